#!/usr/bin/env python3
"""Checks the Rust crates' layout: no source file over 800 lines, no function over 100 lines,
no import cycle between the top-level modules of a crate.

Tests are excepted (files named `tests.rs` or `*_tests.rs`, `#[cfg(test)]` modules, the
crates' `tests/` and `benches/` folders), as are the entries of `scripts/layout_debt.txt`: files
and functions over the limits today, each with its size then, which it may not exceed (the
list only shrinks); a `cycle CRATE: modules` entry lets those modules (or fewer of them) form
a cycle while it is being cut. In `pagelab-sys`, every timed engine runs on the one loop of
`pagelab_core::kernel`: each `EventQueue<E>` belongs to an `impl Engine` whose `Event` is `E` and
which is passed to `kernel::run`, and no engine keeps a `BinaryHeap` of events or looks for a
stop request itself. Prints the largest file and function and each crate's module graph;
exits 1 on any violation.

    python3 scripts/check_layout.py [--graph]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_FILE = 800
MAX_FN = 100
DEBT = "scripts/layout_debt.txt"
FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:unsafe\s+)?fn\s+(\w+)")
CRATE_REF = re.compile(r"\bcrate::(\w+)")
CRATE_GROUP = re.compile(r"\bcrate::\{([^}]*)\}")  # `crate::{a::X, b}`: a and b
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


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


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


def main() -> int:
    show_graph = "--graph" in sys.argv
    debt = load_debt()
    problems: list[str] = []
    largest_file = ("", 0)
    largest_fn = ("", 0)
    seen: dict[str, int] = {}  # sizes of the debt's files and functions as they are now
    for src in sorted(ROOT.glob("crates/*/src")):
        crate = src.parent.name
        graph: dict[str, set[str]] = {}
        for path in sorted(src.rglob("*.rs")):
            rel = str(path.relative_to(ROOT))
            lines = path.read_text().splitlines()
            module = module_of(src, path)
            graph.setdefault(module, set())
            kept = strip_test_modules(lines)
            for line in kept:
                if line is not None and not line.lstrip().startswith("//"):
                    refs = CRATE_REF.findall(line)
                    for group in CRATE_GROUP.findall(line):
                        refs += re.findall(r"(?:^|,)\s*(\w+)", group)
                    for ref in refs:
                        known = (src / f"{ref}.rs").exists() or (src / ref).is_dir()
                        if ref != module and known:
                            graph[module].add(ref)
            if is_test_file(path):
                continue
            n = len(lines)
            if rel in debt:
                seen[rel] = n
            if n > largest_file[1]:
                largest_file = (rel, n)
            if n > MAX_FILE and n > debt.get(rel, 0):
                problems.append(f"{rel}: {n} lines (limit {MAX_FILE})")
            for name, first, length in functions(kept):
                key = f"{rel}::{name}"
                if key in debt:
                    seen[key] = max(seen.get(key, 0), length)
                if length > largest_fn[1]:
                    largest_fn = (f"{key} (line {first})", length)
                if length > MAX_FN and length > debt.get(key, 0):
                    problems.append(f"{key} (line {first}): {length} lines (limit {MAX_FN})")
        if crate == "pagelab-sys":
            problems += one_run_loop(src)
        allowed = [set(k.split(":", 1)[1].split()) for k in debt if k.startswith(f"cycle {crate}:")]
        found = cycles(graph)
        for comp in found:
            if not any(set(comp) <= a for a in allowed):
                problems.append(f"crates/{crate}: import cycle among modules {', '.join(comp)}")
        for a in allowed:
            if not any(set(comp) <= a for comp in found):
                names = " ".join(sorted(a))
                problems.append(f"{DEBT}: no cycle left among {names}: remove its entry")
            elif not any(set(comp) == a for comp in found):
                left = " ".join(sorted(max((c for c in found if set(c) <= a), key=len)))
                problems.append(f"{DEBT}: the cycle is down to {left}: lower its entry")
        if show_graph:
            print(f"{crate}:")
            for m in sorted(graph):
                print(f"  {m} -> {', '.join(sorted(graph[m])) or '-'}")
    problems += stale_debt(debt, seen)
    print(f"largest file: {largest_file[0]} ({largest_file[1]} lines)")
    print(f"largest function: {largest_fn[0]} ({largest_fn[1]} lines)")
    for p in problems:
        print(f"layout: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
