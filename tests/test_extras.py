"""The core install and its extras: what pyproject.toml declares, and each command that needs an
extra saying which when a package of it is missing (the packages are hidden here, as in a core
install; the sizes measured in real environments are in the docs)."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib

import pytest

from conftest import ROOT
from pagelab import extras

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


#: As in `pip install pagelab`: every package of an extra looks missing. Run in a fresh
#: interpreter: a command run in-process leaves process-wide state (its signal handling, its
#: progress display) behind for the tests that follow.
CORE_ONLY = """
import importlib.util, sys
from pagelab import extras
optional = {m for mods, _ in extras.FEATURES.values() for m in mods}
real = importlib.util.find_spec
importlib.util.find_spec = (
    lambda name, *a: None if name.split(".")[0] in optional else real(name, *a)
)
from pagelab.cli import cli
from pagelab.errors import PagelabError
try:
    cli.main(sys.argv[1:], standalone_mode=False)
except PagelabError as e:
    print(e)
    sys.exit(3)
"""


@pytest.mark.parametrize(
    "args, extra",
    [
        (["sweep", "vm370", "--grid", "workload.users=10,20", "--out", "r"], "sweep"),
        (["reproduce", "belady-anomaly", "--scale", "full"], "sweep"),
        (["reproduce", "belady-anomaly", "--workers", "2"], "sweep"),
        (["reproduce", "belady-anomaly", "--scheduler", "tcp://127.0.0.1:1"], "sweep"),
        (["reproduce", "unix-regression"], "stats"),
        (["reproduce", "--all"], "stats"),
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
def test_each_command_names_the_extra_it_needs(tmp_path, args, extra):
    got = subprocess.run(
        [sys.executable, "-c", CORE_ONLY, *args],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    if extra is None:
        assert got.returncode == 0, got.stderr  # the core's commands run
        return
    assert got.returncode == 3, (got.returncode, got.stdout, got.stderr)
    assert f"pip install 'pagelab[{extra}]'" in got.stdout, got.stdout
    assert not (tmp_path / "r").exists() and not (tmp_path / "site").exists()


#: A core install for real: as in CORE_ONLY, and importing a package of an extra fails too (not
#: only looking it up), so a run that reached for Dask, pyarrow, scipy, numpy or matplotlib would
#: end in ModuleNotFoundError. It prints the optional packages imported all the same.
CORE_INSTALL = """
import importlib.util, sys
from pagelab import extras
optional = {m for mods, _ in extras.FEATURES.values() for m in mods}
real = importlib.util.find_spec
importlib.util.find_spec = (
    lambda name, *a: None if name.split(".")[0] in optional else real(name, *a)
)
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in optional:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Blocker())
from pagelab.cli import cli
cli.main(sys.argv[1:], standalone_mode=False)
print("imported:", sorted({m.split(".")[0] for m in sys.modules} & optional))
"""
#: Fast at smoke scale (9 runs), with rows over seeds, a t interval and a rank correlation.
SMOKE = "unix-swap-interval"


def test_a_smoke_reproduction_runs_in_the_core_as_it_runs_on_dask(tmp_path):
    def run(code: str, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-c", code, "reproduce", SMOKE, *args],
            cwd=tmp_path, capture_output=True, text=True, timeout=300,
        )  # fmt: skip

    core = run(CORE_INSTALL, "--out", "core")
    assert core.returncode == 0, (core.stdout, core.stderr)
    assert "imported: []" in core.stdout
    assert "without the [sweep] extra the runs are made in this process" in core.stderr
    assert "pip install 'pagelab[sweep]'" in core.stderr
    # the record alone: no store without pyarrow, no figure without matplotlib
    assert sorted(p.name for p in (tmp_path / "core").iterdir()) == [f"{SMOKE}.json"]
    on_dask = run(
        "import sys\nfrom pagelab.cli import cli\ncli.main(sys.argv[1:], standalone_mode=False)"
        "\nprint('dask:', 'distributed' in sys.modules)",
        *("--out", "dask", "--workers", "2"),
    )
    assert on_dask.returncode == 0, (on_dask.stdout, on_dask.stderr)
    assert "dask: True" in on_dask.stdout and "without the [sweep]" not in on_dask.stderr
    a, b = (json.loads((tmp_path / d / f"{SMOKE}.json").read_text()) for d in ("core", "dask"))
    assert a["runs"] == b["runs"] == {"computed": 9, "from_store": 0}
    assert a["figures"] == [] and b["figures"]
    for part in ("seeds", "rows", "claims", "score", "fitted"):
        assert json.dumps(a[part]) == json.dumps(b[part]), part  # to the last bit


def test_a_missing_package_met_anyway_is_explained():
    e = ModuleNotFoundError("No module named 'optuna'", name="optuna")
    assert extras.explain(e, "`pagelab calibrate`") == (
        "`pagelab calibrate` needs optuna, not installed: pip install 'pagelab[calibrate]'"
    )
