#!/usr/bin/env python3
"""Checks the layout of the Rust crates and of the Python package: no source file over 800
lines, no function over 80 lines, no import cycle (scripts/layout_graph.py says what an edge is:
among the children of every Rust module, and among the modules of `python/`).

Tests are excepted (files named `tests.rs` or `*_tests.rs`, `#[cfg(test)]` modules, the
crates' `tests/` and `benches/` folders, the repository's `tests/`), as are the entries of
`scripts/layout_debt.txt`: files and functions over the limits today, each with its size then,
which it may not exceed (the list only shrinks); a `cycle GROUP: modules` entry (GROUP a crate
or `python`) lets those modules (or fewer of them) form a cycle while it is being cut. In
`pagelab-sys`, every timed engine runs on the one loop of `pagelab_core::kernel`: each
`EventQueue<E>` belongs to an `impl Engine` whose `Event` is `E` and which is passed to
`kernel::run`, and no engine keeps a `BinaryHeap` of events or looks for a stop request itself.
Prints the largest file and function and, with `--graph`, each module graph; exits 1 on any
violation.

    python3 scripts/check_layout.py [--graph]
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from layout_graph import cycles, python_graph, rust_cycles

ROOT = Path(__file__).resolve().parents[1]
MAX_FILE = 800
MAX_FN = 80
DEBT = "scripts/layout_debt.txt"
PYTHON_TREES = ("python", "scripts")
FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:unsafe\s+)?fn\s+(\w+)")
QUEUE = re.compile(r"\bEventQueue<(\w+)>")
ENGINE_IMPL = re.compile(r"\bimpl(?:<[^>]*>)?\s+(?:[\w:]*::)?Engine\s+for\s+(\w+)")
ENGINE_EVENT = re.compile(r"\btype\s+Event\s*=\s*(\w+)\s*;")
KERNEL_RUN = re.compile(r"\bkernel::run\(\s*([\w:]+)")
OWN_LOOP = re.compile(r"\bBinaryHeap\b|\binterrupt::check\b")


def is_test_file(path: Path) -> bool:
    return path.name == "tests.rs" or path.name.endswith("_tests.rs")


def strip_test_modules(lines: list[str]) -> list[str | None]:
    """The lines with those of `#[cfg(test)]` items replaced by None."""
    out: list[str | None] = list(lines)
    i = 0
    while i < len(lines):
        if lines[i].strip() == "#[cfg(test)]":
            depth, j, opened = 0, i + 1, False
            while j < len(lines):
                depth += lines[j].count("{") - lines[j].count("}")
                opened = opened or "{" in lines[j]
                if opened and depth <= 0:
                    break
                if not opened and lines[j].rstrip().endswith(";"):
                    break
                j += 1
            for k in range(i, min(j + 1, len(lines))):
                out[k] = None
            i = j + 1
        else:
            i += 1
    return out


def functions(lines: list[str | None]) -> list[tuple[str, int, int]]:
    """(name, first line, length in lines) of each function with a body."""
    found = []
    for i, line in enumerate(lines):
        if line is None:
            continue
        m = FN.match(line)
        if not m:
            continue
        depth, opened = 0, False
        for j in range(i, len(lines)):
            text = lines[j] or ""
            if not opened and text.rstrip().endswith(";") and "{" not in text:
                break  # a declaration without a body
            depth += text.count("{") - text.count("}")
            opened = opened or "{" in text
            if opened and depth <= 0:
                found.append((m.group(1), i + 1, j - i + 1))
                break
    return found


def module_of(src: Path, path: Path) -> str:
    rel = path.relative_to(src)
    return rel.parts[0].removesuffix(".rs")


def load_debt() -> dict[str, int]:
    debt = {}
    f = ROOT / "scripts" / "layout_debt.txt"
    if f.exists():
        for line in f.read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line.startswith("cycle "):
                debt[line] = 0
            elif line:
                key, size = line.rsplit(None, 1)
                debt[key] = int(size)
    return debt


def stale_debt(debt: dict[str, int], seen: dict[str, int]) -> list[str]:
    """The debt is a ratchet: an entry that shrank must be lowered, one under the limit (or gone)
    removed, so that no later change can grow back into the room a split made."""
    out = []
    for key, size in debt.items():
        if key.startswith("cycle "):
            continue
        limit = MAX_FN if "::" in key else MAX_FILE
        now = seen.get(key, 0)
        if now <= limit:
            out.append(f"scripts/layout_debt.txt: {key} is within the limit now: remove its entry")
        elif now < size:
            out.append(f"scripts/layout_debt.txt: {key} is {now} lines now: lower its entry")
    return out


def one_run_loop(src: Path) -> list[str]:
    """Every event queue of the crate is driven by `pagelab_core::kernel::run` (module doc)."""
    out: list[str] = []
    queues: dict[tuple[str, str], str] = {}  # (module, event type) -> where its queue is
    engines: dict[tuple[str, str], str] = {}  # (module, event type) -> engine type
    run_args: set[str] = set()
    for path in sorted(src.rglob("*.rs")):
        if is_test_file(path):
            continue
        rel, module = str(path.relative_to(ROOT)), module_of(src, path)
        kept = strip_test_modules(path.read_text().splitlines())
        code = [(i, ln) for i, ln in enumerate(kept, 1) if ln and not ln.lstrip().startswith("//")]
        engine = None
        for i, line in code:
            if OWN_LOOP.search(line):
                out.append(f"{rel}:{i}: an event loop of its own; run it on pagelab_core::kernel")
            for ev in QUEUE.findall(line):
                queues.setdefault((module, ev), f"{rel}:{i}")
            if m := ENGINE_IMPL.search(line):
                engine = m.group(1)
            if engine and (m := ENGINE_EVENT.search(line)):
                engines[(module, m.group(1))] = engine
                engine = None
            for arg in KERNEL_RUN.findall(line):
                run_args.update(arg.split("::"))
    for (module, ev), where in sorted(queues.items()):
        if (module, ev) not in engines:
            out.append(f"{where}: EventQueue<{ev}> has no `impl Engine` with `type Event = {ev}`")
        elif engines[(module, ev)] not in run_args:
            engine = engines[(module, ev)]
            out.append(f"{where}: engine {engine} is never run by pagelab_core::kernel::run")
    return out


@dataclass
class Tally:
    """Sizes seen and problems found."""

    debt: dict[str, int]
    problems: list[str] = field(default_factory=list)
    seen: dict[str, int] = field(default_factory=dict)  # the debt's entries as they are now
    largest_file: tuple[str, int] = ("", 0)
    largest_fn: tuple[str, int] = ("", 0)

    def file(self, rel: str, n: int) -> None:
        if rel in self.debt:
            self.seen[rel] = n
        if n > self.largest_file[1]:
            self.largest_file = (rel, n)
        if n > MAX_FILE and n > self.debt.get(rel, 0):
            self.problems.append(f"{rel}: {n} lines (limit {MAX_FILE})")

    def function(self, key: str, first: int, length: int) -> None:
        if key in self.debt:
            self.seen[key] = max(self.seen.get(key, 0), length)
        if length > self.largest_fn[1]:
            self.largest_fn = (f"{key} (line {first})", length)
        if length > MAX_FN and length > self.debt.get(key, 0):
            self.problems.append(f"{key} (line {first}): {length} lines (limit {MAX_FN})")

    def cycles(self, group: str, found: list[list[str]]) -> None:
        """Cycles of a crate or of `python`, against the debt's `cycle GROUP:` entries."""
        entries = [k for k in self.debt if k.startswith(f"cycle {group}:")]
        allowed = [set(k.split(":", 1)[1].split()) for k in entries]
        for comp in found:
            if not any(set(comp) <= a for a in allowed):
                self.problems.append(f"{group}: import cycle among modules {', '.join(comp)}")
        for a in allowed:
            if not any(set(comp) <= a for comp in found):
                names = " ".join(sorted(a))
                self.problems.append(f"{DEBT}: no cycle left among {names}: remove its entry")
            elif not any(set(comp) == a for comp in found):
                left = " ".join(sorted(max((c for c in found if set(c) <= a), key=len)))
                self.problems.append(f"{DEBT}: the cycle is down to {left}: lower its entry")


def without_comments(kept: list[str | None]) -> str:
    return "\n".join(re.sub(r"//.*", "", ln) for ln in kept if ln is not None)


def check_crate(src: Path, tally: Tally, show_graph: bool) -> None:
    crate = src.parent.name
    texts: dict[Path, str] = {}
    for path in sorted(src.rglob("*.rs")):
        rel = str(path.relative_to(ROOT))
        lines = path.read_text().splitlines()
        kept = strip_test_modules(lines)
        texts[path] = without_comments(kept)
        if is_test_file(path):
            continue
        tally.file(rel, len(lines))
        for name, first, length in functions(kept):
            tally.function(f"{rel}::{name}", first, length)
    if crate == "pagelab-sys":
        tally.problems += one_run_loop(src)
    found, graph = rust_cycles(src, texts)
    tally.cycles(crate, found)
    if show_graph:
        print(f"{crate}:", *graph, sep="\n")


def python_functions(tree: ast.Module) -> list[tuple[str, int, int]]:
    """(qualified name, first line, length from `def` to the last line) of each function."""
    out = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                out.append((name, child.lineno, child.end_lineno - child.lineno + 1))
                walk(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(tree, "")
    return out


def check_python(tally: Tally, show_graph: bool) -> None:
    for tree in PYTHON_TREES:
        for path in sorted((ROOT / tree).rglob("*.py")):
            rel = str(path.relative_to(ROOT))
            text = path.read_text()
            tally.file(rel, len(text.splitlines()))
            for name, first, length in python_functions(ast.parse(text, rel)):
                tally.function(f"{rel}::{name}", first, length)
    graph = python_graph(ROOT / "python")
    tally.cycles("python", cycles(graph))
    if show_graph:
        print("python:")
        for m in sorted(graph):
            print(f"  {m} -> {', '.join(sorted(graph[m])) or '-'}")


def main() -> int:
    show_graph = "--graph" in sys.argv
    tally = Tally(load_debt())
    for src in sorted(ROOT.glob("crates/*/src")):
        check_crate(src, tally, show_graph)
    check_python(tally, show_graph)
    tally.problems += stale_debt(tally.debt, tally.seen)
    print(f"largest file: {tally.largest_file[0]} ({tally.largest_file[1]} lines)")
    print(f"largest function: {tally.largest_fn[0]} ({tally.largest_fn[1]} lines)")
    for p in tally.problems:
        print(f"layout: {p}")
    return 1 if tally.problems else 0


if __name__ == "__main__":
    sys.exit(main())
