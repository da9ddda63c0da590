"""The core install and its extras: what pyproject.toml declares, and each command that needs an
extra saying which when a package of it is missing (the packages are hidden here, as in a core
install; the sizes measured in real environments are in the docs)."""

from __future__ import annotations

import importlib.util
import tomllib

import pytest

from conftest import ROOT
from pagelab import extras
from pagelab.cli import cli
from pagelab.errors import PagelabError

#: Distribution name -> import names, where they differ.
IMPORT_NAMES = {"markdown-it-py": ["markdown_it"], "dask[distributed]": ["dask", "distributed"]}


def _declared() -> tuple[list[str], dict[str, list[str]]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project["dependencies"], project["optional-dependencies"]


def _names(requirement: str) -> list[str]:
    base = requirement.split(">=")[0].split("<")[0].strip()
    return IMPORT_NAMES.get(base, [base.split("[")[0].replace("-", "_")])


def test_the_core_needs_click_and_rich_alone():
    core, _ = _declared()
    assert sorted(n for r in core for n in _names(r)) == ["click", "rich"]


def test_every_package_a_feature_checks_is_in_its_extra():
    _, optional = _declared()

    def provided(extra: str) -> set[str]:
        names = set()
        for r in optional[extra]:
            if r.startswith("pagelab["):
                for inner in r[len("pagelab[") : -1].split(","):
                    names |= provided(inner)
            else:
                names.update(_names(r))
        return names

    for feature, (modules, extras_named) in extras.FEATURES.items():
        for extra in extras_named:
            assert set(modules) <= provided(extra), (feature, extra)
    assert provided("all") >= {m for mods in extras.EXTRAS.values() for m in mods}


@pytest.fixture
def core_only(monkeypatch):
    """As in `pip install pagelab`: every package of an extra is missing."""
    optional = {m for mods, _ in extras.FEATURES.values() for m in mods}
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name.split(".")[0] in optional else real(name, *a),
    )


@pytest.mark.parametrize(
    "args, extra",
    [
        (["sweep", "vm370", "--grid", "workload.users=10,20", "--out", "r"], "sweep"),
        (["reproduce", "belady-anomaly"], "sweep"),
        (
            ["calibrate", "unix-v6", "--target", "t.toml", "--vary", "a=1:2", "--out", "f"],
            "calibrate",
        ),
        (["report", "results", "--out", "site"], "report"),
        (["model", "cp67", "--users", "10"], "sweep"),
        (["chanson", "predict", "--mm", "1000", "--pn", "10", "--ps", "100", "--fit"], "stats"),
        (["step", "--refs", "1,2", "--frames", "1", "--policy", "fifo"], None),
        (["list", "presets"], None),
    ],
)
def test_each_command_names_the_extra_it_needs(core_only, tmp_path, monkeypatch, args, extra):
    monkeypatch.chdir(tmp_path)
    if extra is None:
        cli.main(args, standalone_mode=False)  # the core's commands run
        return
    with pytest.raises(PagelabError, match=rf"pip install 'pagelab\[{extra}\]'"):
        cli.main(args, standalone_mode=False)
    assert not (tmp_path / "r").exists() and not (tmp_path / "site").exists()


def test_a_missing_package_met_anyway_is_explained():
    e = ModuleNotFoundError("No module named 'optuna'", name="optuna")
    assert extras.explain(e, "`pagelab calibrate`") == (
        "`pagelab calibrate` needs optuna, not installed: pip install 'pagelab[calibrate]'"
    )
