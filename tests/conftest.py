from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_cli(
    *args: str, check: bool = False, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    """Runs the installed `pagelab` command as a user would."""
    exe = Path(sys.executable).with_name("pagelab")
    proc = subprocess.run(
        [str(exe), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200"},
        timeout=600,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"pagelab {' '.join(args)} failed:\n{proc.stderr}")
    return proc


@pytest.fixture
def cli():
    return run_cli


def assert_one_line_error(proc: subprocess.CompletedProcess, *needles: str) -> None:
    """A failed command says what is wrong in one line, without a traceback."""
    assert proc.returncode != 0
    err = proc.stderr.strip()
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    for n in needles:
        assert n in lines[0], (n, lines[0])


#: Smoke records (seed 1) already made in this session, by name.
SMOKE_RECORDS: dict[str, dict] = {}
#: Where the workers of one `pytest -n` run share the records they made (set per session).
_SHARED: list[Path] = []


def smoke_record(name: str) -> dict:
    """The smoke record of reproduction `name` at seed 1, made once per run: the golden test,
    the tests that read a record and the report's browser test share it. Under pytest-xdist
    the workers share them through files (`_made_once`), so each is made by one worker. The
    record is what its JSON reads back as, whichever worker made it."""
    if name not in SMOKE_RECORDS:
        SMOKE_RECORDS[name] = _made_once(name)
    return SMOKE_RECORDS[name]


def _made_once(name: str) -> dict:
    """The record made here, or read from the run's shared folder where another worker made
    it; a lock on the name keeps two workers from making the same one."""
    import fcntl
    import json

    import pagelab.reproduce as rep

    if not _SHARED:
        return json.loads(json.dumps(rep.reproduce(name, scale="smoke", seed=1)))
    path = _SHARED[0] / f"{name}.json"
    with open(_SHARED[0] / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            text = json.dumps(rep.reproduce(name, scale="smoke", seed=1))
            tmp = path.with_suffix(".tmp")
            tmp.write_text(text)
            os.replace(tmp, path)
        return json.loads(path.read_text())


@pytest.fixture(scope="session", autouse=True)
def _shared_records(tmp_path_factory):
    """Under pytest-xdist, the folder the run's workers share (beside their own temp roots)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = tmp_path_factory.getbasetemp().parent / "smoke-records"
        shared.mkdir(exist_ok=True)
        _SHARED[:] = [shared]
    yield


@pytest.fixture(scope="session")
def hpo_table2_smoke() -> dict:
    """The `hpo-table2` smoke record, run once for the tests that only read it."""
    return smoke_record("hpo-table2")
