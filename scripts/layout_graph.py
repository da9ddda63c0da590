"""Import graphs for scripts/check_layout.py: which module of a Rust crate or of the Python
package uses which, and the cycles among them.

Rust: a module is a file (`a/b.rs` or `a/b/mod.rs` is `a::b`). Its edges are the paths it names
that start at `crate::`, `super::` or `self::` (in `use` statements, groups included, and in
code), and the relative paths of its `use` statements that name a child module, resolved to the
deepest module they reach; a name a module re-exports (`pub use x::Name`) resolves to `x`. A
cycle is looked for among the children of every module, an edge between two children being any
edge between their subtrees: `unix::cpu` naming `super::machine::Machine` while
`unix::machine` names `super::cpu::f` is a cycle of the folder `unix`. An edge to an ancestor
(`use super::*`) is none, but what the glob brings in is: a name the parent imports from one of
its own submodules, used in the module, is an edge to that submodule, and so is a path through
a sibling (`sibling::Name`). `#[cfg(test)]` items are left out.

Python: a module is a file of `python/` (`pagelab/report/__init__.py` is `pagelab.report`); its
edges are its imports of other modules of the tree wherever they stand (in a function too), save
those under `if TYPE_CHECKING:`. `from . import x` names the module `x` (no edge when `x` is
compiled, as `_core` is), not the package.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

USE = re.compile(r"\b(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.S)
PUB_USE = re.compile(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", re.S)
INLINE = re.compile(r"\b(?:crate|super|self)(?:::\w+)+")
GLOB_SUPER = re.compile(r"\buse\s+super::\*\s*;")
COMMENT = re.compile(r"//[^\n]*")
Module = tuple[str, ...]


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


def rust_module(src: Path, path: Path) -> Module:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main") and (len(parts) > 1 or parts[-1] != "mod"):
        parts.pop()
    return tuple(parts)


def expand_use(tree: str) -> list[str]:
    """`a::{b, c::{d, e as f}, self}` -> ["a::b", "a::c::d", "a::c::e as f", "a"]."""
    tree = " ".join(tree.split()).replace(" ::", "::").replace(":: ", "::")
    brace = tree.find("{")
    if brace < 0:
        return [tree.strip()]
    head, body = tree[:brace].strip().removesuffix("::"), tree[brace + 1 : tree.rfind("}")]
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        depth += (ch == "{") - (ch == "}")
        if ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    out = []
    for part in filter(None, (p.strip() for p in parts)):
        for sub in expand_use(part):
            out.append(head if sub == "self" else f"{head}::{sub}" if head else sub)
    return out


def strip_alias(path: str) -> str:
    return re.sub(r"\s+as\s+\w+$", "", path)


class RustCrate:
    """The module tree of one crate's `src/` and its edges."""

    def __init__(self, src: Path, texts: dict[Path, str]):
        self.files = {rust_module(src, p): t for p, t in texts.items()}
        self.modules = set(self.files)
        self.reexports: dict[Module, dict[str, Module]] = {}
        for here, text in self.files.items():
            names: dict[str, Module] = {}
            for stmt in PUB_USE.findall(text):
                for path in expand_use(stmt):
                    alias = re.search(r"\sas\s+(\w+)$", path)
                    path = strip_alias(path)
                    target = self.resolve(path, here, follow=False)
                    if target is not None and not path.endswith("*"):
                        names[alias.group(1) if alias else path.split("::")[-1]] = target
            self.reexports[here] = names

    def resolve(self, path: str, here: Module, follow: bool = True) -> Module | None:
        segs = [s for s in path.split("::") if s]
        if not segs:
            return None
        cur: Module
        if segs[0] == "crate":
            cur, segs = (), segs[1:]
        elif segs[0] in ("super", "self"):
            cur = here
            while segs and segs[0] in ("super", "self"):
                cur = cur[:-1] if segs.pop(0) == "super" else cur
        elif here + (segs[0],) in self.modules:
            cur = here
        else:
            return None  # another crate or the standard library
        for seg in segs:
            if cur + (seg,) in self.modules:
                cur = cur + (seg,)
            elif follow and seg in self.reexports.get(cur, {}):
                return self.reexports[cur][seg]
            else:
                break
        return cur

    def edges(self) -> dict[Module, set[Module]]:
        out: dict[Module, set[Module]] = {m: set() for m in self.modules}
        for here, text in self.files.items():
            paths = [strip_alias(p) for stmt in USE.findall(text) for p in expand_use(stmt)]
            paths += INLINE.findall(text)
            for path in paths:
                target = self.resolve(path, here)
                if target is not None and target != here:
                    out[here].add(target)
            if GLOB_SUPER.search(text):
                out[here] |= self.glob_edges(here, text) - {here}
        return out

    def glob_edges(self, here: Module, text: str) -> set[Module]:
        """What a module reaches through `use super::*`: the names its parent brings in from
        the parent's own submodules, and paths through a sibling (`sibling::Name`)."""
        parent = here[:-1]
        code = COMMENT.sub("", text)
        out: set[Module] = set()
        for stmt in USE.findall(self.files.get(parent, "")):
            for path in expand_use(stmt):
                alias = re.search(r"\sas\s+(\w+)$", path)
                path = strip_alias(path)
                name = alias.group(1) if alias else path.split("::")[-1]
                target = self.resolve(path, parent)
                inside = target is not None and target[: len(parent)] == parent
                if inside and target != parent and re.search(rf"\b{name}\b", code):
                    out.add(target)
        for m in self.modules:
            if m[:-1] == parent and len(m) == len(here) and re.search(rf"\b{m[-1]}::", code):
                out.add(m)
        return out


def sibling_graphs(edges: dict[Module, set[Module]]) -> dict[Module, dict[str, set[str]]]:
    """For every module with children, the graph among its children (named by their paths)."""
    graphs: dict[Module, dict[str, set[str]]] = {}
    for m in edges:
        for depth in range(len(m)):
            graphs.setdefault(m[:depth], {}).setdefault("::".join(m[: depth + 1]), set())
    for src, targets in edges.items():
        for dst in targets:
            common = 0
            while common < min(len(src), len(dst)) and src[common] == dst[common]:
                common += 1
            if common < len(src) and common < len(dst):
                a, b = "::".join(src[: common + 1]), "::".join(dst[: common + 1])
                graphs[src[:common]][a].add(b)
    return graphs


def rust_cycles(src: Path, texts: dict[Path, str]) -> tuple[list[list[str]], list[str]]:
    """The crate's cycles, and its graphs as printable lines."""
    graphs = sibling_graphs(RustCrate(src, texts).edges())
    found, lines = [], []
    for folder in sorted(graphs):
        found += cycles(graphs[folder])
        for m in sorted(graphs[folder]):
            lines.append(f"  {m} -> {', '.join(sorted(graphs[folder][m])) or '-'}")
    return found, lines


def python_module(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def python_imports(name: str, is_package: bool, tree: ast.Module, modules: set[str]) -> set[str]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = name.split(".") if is_package else name.split(".")[:-1]
                pkg = pkg[: len(pkg) - node.level + 1]
                base = ".".join(pkg + ([node.module] if node.module else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in modules or node.module:  # `from . import x` names modules only
                    out.add(sub if sub in modules else base)
    return {m for m in out if m in modules and m != name}


def python_graph(root: Path) -> dict[str, set[str]]:
    files = {python_module(root, p): p for p in sorted(root.rglob("*.py"))}
    modules = set(files)
    graph = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(), str(path))
        graph[name] = python_imports(name, path.name == "__init__.py", tree, modules)
    return graph
