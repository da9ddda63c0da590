"""The examples of README.md and docs/*.md as the test suite runs them (tests/test_docs.py).

A fenced block is an example when its language says so:

* ```` ```sh ````: commands, run as written by bash (`-e`: the first failing line fails the block);
* ```` ```python ````: a script, written to a file and run by this environment's Python; a block
  of ``>>>`` lines is a doctest session instead, its printed output compared (``...`` matches
  anything);
* ```` ```console ````: ``$ command`` lines, each followed by the output it must print (stdout
  and stderr together, ``...`` matching anything).

Synopses and file layouts use ```` ```text ```` (or no language) and are not run. A block that
cannot run in the test suite (a full-scale run, a cluster it has no access to) says why in a
comment on the line before its fence: ``<!-- not run: full scale, 27 min -->``. The blocks of one
document run in order in one scratch directory (the checkout's presets/ and docs/ linked into it,
as if run from the checkout), so a later block may use an earlier one's files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

RUN = ("sh", "python", "console")
_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
_NOT_RUN = re.compile(r"<!--\s*not run:\s*(.*?)\s*-->\s*$")


@dataclass
class Block:
    """One fenced block of a document."""

    doc: str
    line: int
    lang: str
    text: str
    not_run: str | None  # the reason given, when the block is marked

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"

    @property
    def is_doctest(self) -> bool:
        return self.lang == "python" and self.text.lstrip().startswith(">>>")


def blocks(path: Path, root: Path) -> list[Block]:
    """Every fenced block of the Markdown file at `path`, in order."""
    text = path.read_text()
    found = []
    for m in _FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = _NOT_RUN.search(before)
        found.append(
            Block(
                str(path.relative_to(root)),
                line,
                m.group(1).lower(),
                m.group(2),
                mark.group(1) if mark else None,
            )
        )
    return found


def examples(path: Path, root: Path) -> list[Block]:
    """The blocks of `path` that are examples (run, or marked not run)."""
    return [b for b in blocks(path, root) if b.lang in RUN]


def console_steps(text: str) -> list[tuple[str, str]]:
    """(command, expected output) of each ``$`` line of a console block."""
    steps: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
        elif line.strip():
            raise ValueError(f"console block: output before the first $ line: {line!r}")
    return [(cmd, "\n".join(out).strip()) for cmd, out in steps]


def matches(expected: str, got: str) -> bool:
    """Whether `got` is `expected` with each ``...`` standing for any text (doctest's ELLIPSIS),
    both compared line by line after trailing spaces are dropped."""
    norm_e = "\n".join(line.rstrip() for line in expected.strip().splitlines())
    norm_g = "\n".join(line.rstrip() for line in got.strip().splitlines())
    pattern = ".*?".join(re.escape(part) for part in norm_e.split("..."))
    return re.fullmatch(pattern, norm_g, re.S) is not None
