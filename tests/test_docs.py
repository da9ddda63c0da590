"""Every example of README.md and docs/*.md runs as printed, from a script file, in a scratch
directory (tests/docs_examples.py says which blocks are examples and how each kind is run)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import docs_examples as dx
from conftest import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: At most this share of the examples may be marked not run: they are the exception (today 9 of
#: 25: make targets, full-scale runs, cargo's own tests, a cluster, the nightly fuzzer).
MAX_NOT_RUN = 0.4
#: Seconds one block may take.
BLOCK_TIMEOUT_S = 600


def _env() -> dict[str, str]:
    """This environment's `pagelab` and `python` first on the PATH, as after `make build`."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env["COLUMNS"] = "200"
    return env


def _run(args: list[str], cwd: Path, block: dx.Block) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        args,
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=BLOCK_TIMEOUT_S,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, (
        f"{block.where}: the example failed (exit {proc.returncode})\n"
        f"--- block\n{block.text}--- stderr\n{proc.stderr[-3000:]}"
    )
    return proc


def _run_block(block: dx.Block, cwd: Path, index: int) -> None:
    makes = [line for line in block.text.splitlines() if line.lstrip().startswith("make ")]
    if block.lang == "sh" and makes:
        # From inside `make test` a make target would rebuild what runs or recurse into itself.
        pytest.fail(
            f"{block.where}: `{makes[0].strip()}` is not run by the tests: mark the block "
            "<!-- not run: REASON -->"
        )
    if block.lang == "sh":
        script = cwd / f"example_{index}.sh"
        script.write_text(block.text)
        _run(["bash", "-e", "-o", "pipefail", script.name], cwd, block)
    elif block.lang == "python" and not block.is_doctest:
        script = cwd / f"example_{index}.py"
        script.write_text(block.text)
        _run([sys.executable, script.name], cwd, block)
    elif block.lang == "python":
        # A `>>>` session: doctest from a script file, output compared with ELLIPSIS.
        session = cwd / f"example_{index}.txt"
        session.write_text(block.text)
        script = cwd / f"example_{index}.py"
        script.write_text(
            "import doctest, sys\n"
            f"r = doctest.testfile({session.name!r}, module_relative=False,\n"
            "                     optionflags=doctest.ELLIPSIS | doctest.IGNORE_EXCEPTION_DETAIL)\n"
            "sys.exit(1 if r.failed else 0)\n"
        )
        _run([sys.executable, script.name], cwd, block)
    else:
        for command, expected in dx.console_steps(block.text):
            proc = subprocess.run(
                ["bash", "-c", command],
                cwd=cwd,
                env=_env(),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,  # in the order a terminal shows them
                text=True,
                timeout=BLOCK_TIMEOUT_S,
                stdin=subprocess.DEVNULL,
            )
            got = proc.stdout.strip()
            assert dx.matches(expected, got), (
                f"{block.where}: `{command}` printed\n{got}\n--- expected\n{expected}"
            )


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_example_of_the_document_runs_as_printed(doc, tmp_path):
    # As from the checkout (the documents name presets/... files), without writing into it.
    for shared in ("presets", "docs"):
        (tmp_path / shared).symlink_to(ROOT / shared)
    for i, block in enumerate(dx.examples(doc, ROOT)):
        if block.not_run is None:
            _run_block(block, tmp_path, i)


def test_examples_marked_not_run_are_few_and_say_why():
    found = [b for doc in DOCS for b in dx.examples(doc, ROOT)]
    marked = [b for b in found if b.not_run is not None]
    assert all(b.not_run.strip() for b in marked)
    assert len(marked) <= MAX_NOT_RUN * len(found), [b.where for b in marked]
    assert len(found) >= 20  # the runner finds the documents' examples at all


def test_the_console_matcher_takes_ellipses_and_nothing_else():
    assert dx.matches("error: ...: too big", "error: /x/vm370.toml: too big")
    assert not dx.matches("error: too big", "error: far too big")
    assert dx.console_steps("$ a\nout\n$ b\n") == [("a", "out"), ("b", "")]
