"""The layout check's import graphs (scripts/layout_graph.py) find the cycles they claim to."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import layout_graph  # noqa: E402


def crate(tmp_path: Path, files: dict[str, str]) -> list[list[str]]:
    src = tmp_path / "src"
    texts = {}
    for name, text in files.items():
        path = src / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        texts[path] = text
    found, _ = layout_graph.rust_cycles(src, texts)
    return found


def test_sibling_files_naming_each_other_are_a_cycle(tmp_path):
    found = crate(
        tmp_path,
        {
            "lib.rs": "pub mod unix;\n",
            "unix/mod.rs": "mod cpu;\nmod machine;\npub use machine::Machine;\n",
            "unix/machine.rs": "use super::cpu::{burst, Slice as S};\npub struct Machine;\n",
            "unix/cpu.rs": "use super::machine::*;\npub fn burst() {}\n",
        },
    )
    assert found == [["unix::cpu", "unix::machine"]]


def test_a_name_reexported_by_the_root_resolves_to_its_module(tmp_path):
    found = crate(
        tmp_path,
        {
            "lib.rs": "pub mod a;\npub mod b;\npub use b::Thing;\n",
            "a.rs": "pub fn f() -> crate::Thing { crate::Thing }\n",
            "b.rs": "pub struct Thing;\nfn g() { crate::a::f(); }\n",
        },
    )
    assert found == [["a", "b"]]


def test_a_child_using_its_parent_is_no_cycle(tmp_path):
    found = crate(
        tmp_path,
        {
            "lib.rs": "pub mod m44;\n",
            "m44/mod.rs": "mod spec;\nmod machine;\npub use machine::run;\npub struct Report;\n",
            "m44/spec.rs": "use super::*;\n",
            "m44/machine.rs": "use super::spec;\nuse super::Report;\npub fn run() {}\n",
        },
    )
    assert found == []


def test_use_groups_expand_over_lines():
    text = "crate::{\n    a::{X, y::Z as W},\n    b,\n    self,\n}"
    expected = ["crate::a::X", "crate::a::y::Z as W", "crate::b", "crate"]
    assert layout_graph.expand_use(text) == expected


def test_python_cycle_and_compiled_module(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from . import _core\nfrom .a import f\n")
    (pkg / "a.py").write_text("def f():\n    from .sub import b\n    return b\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("from ..a import f\n")
    graph = layout_graph.python_graph(tmp_path)
    assert graph["pkg"] == {"pkg.a"}
    assert layout_graph.cycles(graph) == [["pkg.a", "pkg.sub.b"]]


def test_a_sibling_reached_through_the_parents_glob_is_an_edge(tmp_path):
    # readahead implements Paging, which it sees only through `use super::*` (the parent
    # imports it from paging_io), while paging_io names readahead: a cycle of `system`.
    files = {
        "lib.rs": "pub mod system;\n",
        "system/mod.rs": "mod paging_io;\nmod readahead;\nuse paging_io::Paging;\n",
        "system/paging_io.rs": "use super::readahead;\npub struct Paging(readahead::R);\n",
        "system/readahead.rs": "use super::*;\npub struct R;\nimpl Paging { fn f(&self) {} }\n",
    }
    assert crate(tmp_path, files) == [["system::paging_io", "system::readahead"]]
    # The same name in a comment is no edge.
    files["system/readahead.rs"] = "use super::*;\npub struct R; // asked by Paging\n"
    assert crate(tmp_path / "again", files) == []
