"""A preset's parameters for its page: value, unit, and the comment that says where it came from.

Presets are TOML files whose every number carries a trailing comment naming its source (a paper
section, a table, a reference note) and marking it `[I]` inferred or `[A]` assumed where the
sources are silent (presets/*.toml headers). TOML parsers drop comments, so the file is read
twice: `tomllib` for the values and a line scan for the comments, joined on the key path.
Units come from the key's suffix, the house convention (`think_s`, `page_bytes`, `reference_ns`).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import PagelabError

#: Key suffix -> unit, longest first so `_ms` wins over `_s`.
UNIT_SUFFIXES = (
    ("_per_s", "per s"),
    ("_fraction", "fraction"),
    ("_bytes", "bytes"),
    ("_clicks", "64-byte clicks"),
    ("_pages", "pages"),
    ("_frames", "frames"),
    ("_words", "words"),
    ("_ms", "ms"),
    ("_us", "µs"),
    ("_ns", "ns"),
    ("_hz", "Hz"),
    ("_pct", "%"),
    ("_kb", "KB"),
    ("_mb", "MB"),
    ("_s", "s"),
)
#: Whole key names that are a count of a known unit.
UNIT_KEYS = {
    "frames": "frames",
    "pages": "pages",
    "users": "users",
    "count": "count",
    "fraction": "fraction",
    "s": "s",
    "ms": "ms",
}

#: What a value rests on, from its comment (see `basis_of`); `label` is a name (a channel's, a
#: class's), which identifies a part and needs no source.
BASES = ("sourced", "fitted", "inferred", "assumed", "label", "none")

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-]+|\"[^\"]*\")\s*=")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'')


@dataclass
class Param:
    """One value of a preset, flattened to its dotted key path."""

    key: str
    value: str
    unit: str
    source: str
    basis: str


def unit_of(key: str) -> str:
    """The unit a key's name declares, or "" when it declares none."""
    leaf = key.rsplit(".", 1)[-1]
    if leaf in UNIT_KEYS:
        return UNIT_KEYS[leaf]
    for suffix, unit in UNIT_SUFFIXES:
        if leaf.endswith(suffix):
            return unit
    return ""


def basis_of(comment: str) -> str:
    """`fitted` for a value `pagelab calibrate` wrote, `inferred` for an [I] comment, `assumed`
    for [A], `sourced` for any other comment, else `none`."""
    if comment.startswith("fitted by"):
        return "fitted"
    if "[I]" in comment:
        return "inferred"
    if "[A]" in comment:
        return "assumed"
    return "sourced" if comment else "none"


def _comment(line: str) -> str:
    """The comment of one TOML line (after a `#` outside strings)."""
    bare = _STRING.sub(lambda m: "x" * len(m.group()), line)
    at = bare.find("#")
    return line[at + 1 :].strip() if at >= 0 else ""


def _depth(line: str) -> int:
    bare = _STRING.sub("", line).split("#", 1)[0]
    return bare.count("[") + bare.count("{") - bare.count("]") - bare.count("}")


def comments(text: str) -> dict[str, str]:
    """Dotted key path -> its comment: the trailing one, else the comment block just above; and
    section path -> the comment block just above its header and the header line's own, which
    speak for the section's keys that have none of their own (`_nearest`)."""
    found: dict[str, str] = {}
    section: list[str] = []
    counts: dict[str, int] = {}
    above: list[str] = []
    depth = 0
    for line in text.splitlines():
        stripped = line.strip()
        if depth > 0:
            depth += _depth(line)
            continue
        if stripped.startswith("#"):
            above.append(stripped.lstrip("#").strip())
            continue
        if not stripped:
            above = []
            continue
        header = _HEADER.match(line)
        if header:
            name = header.group(2).strip()
            if header.group(1) == "[[":
                counts[name] = counts.get(name, -1) + 1
                section = [*name.split("."), str(counts[name])]
            else:
                section = name.split(".")
            # the comment block above a header, and one at its end, speak for its keys
            note = " ".join([*above, _comment(line)]).strip()
            if note:
                found.setdefault(".".join(_indexed(section, counts)), note)
            above = []
            continue
        key = _KEY.match(line)
        if key:
            path = ".".join([*_indexed(section, counts), key.group(1).strip('"')])
            found[path] = _comment(line) or " ".join(above)
            depth = _depth(line)
        above = []
    return found


def _indexed(section: list[str], counts: dict[str, int]) -> list[str]:
    """A section path with the index of each enclosing array of tables (`workload.class.1`)."""
    if not section:
        return []
    out: list[str] = []
    for i, part in enumerate(section):
        out.append(part)
        prefix = ".".join(out)
        nxt = section[i + 1] if i + 1 < len(section) else None
        if prefix in counts and not (nxt and nxt.isdigit()):
            out.append(str(counts[prefix]))
    return out


def _flatten(value: Any, path: str) -> list[tuple[str, Any]]:
    """(dotted key path, value) for every scalar or plain list under `value`."""
    if isinstance(value, dict):
        return [
            item for k, v in value.items() for item in _flatten(v, f"{path}.{k}" if path else k)
        ]
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [item for i, v in enumerate(value) for item in _flatten(v, f"{path}.{i}")]
    return [(path, value)]


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(_show(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return f"{value:.1f}"
    return str(value)


def params(path: Path) -> tuple[dict[str, Any], list[Param]]:
    """The parsed preset and its flattened parameters (the `[preset]` header and a calibrated
    preset's `[provenance]` aside), each with unit, source and basis."""
    text = path.read_text()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PagelabError(f"{path}: not valid TOML ({e})") from None
    notes = comments(text)
    origin = _calibrated_from(path, data)
    out = []
    values = {k: v for k, v in data.items() if k not in ("preset", "provenance")}
    for key, value in _flatten(values, ""):
        comment = _nearest(notes, key) or _origin_comment(origin, key)
        basis = "label" if key.rsplit(".", 1)[-1] == "name" else basis_of(comment)
        out.append(Param(key, _show(value), unit_of(key), comment, basis))
    return data, out


def _calibrated_from(path: Path, data: dict[str, Any]) -> list[tuple[str, dict[str, str]]]:
    """A calibrated preset's origin (`[provenance] from`) and that preset's ancestors, each with
    its comments: `pagelab calibrate` copies the values it does not fit without their comments."""
    provenance = data.get("provenance")
    origin = provenance.get("from") if isinstance(provenance, dict) else None
    chain: list[tuple[str, dict[str, str]]] = []
    current = path.parent / Path(origin).name if isinstance(origin, str) else None
    while current is not None and current.is_file() and len(chain) < 8:
        text = current.read_text()
        chain.append((current.stem, comments(text)))
        try:
            parent = _extends(tomllib.loads(text))
        except tomllib.TOMLDecodeError:
            break
        current = path.parent / f"{parent}.toml" if parent else None
    return chain


def _origin_comment(chain: list[tuple[str, dict[str, str]]], key: str) -> str:
    for name, notes in chain:
        found = _nearest(notes, key)
        if found:
            return f"as in {name}: {found}"
    return ""


def _nearest(notes: dict[str, str], key: str) -> str:
    """The comment of `key`, or of the nearest enclosing key written on one line (inline tables)
    or section with a comment above its header."""
    parts = key.split(".")
    while parts:
        found = notes.get(".".join(parts))
        if found:
            return found
        parts.pop()
    return ""


def header(text: str) -> str:
    """The comment block that opens a preset file: what it models and its sources."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    return " ".join(lines)


def doc_for(path: Path) -> Path | None:
    """The preset's page in docs/presets/, named in its header or sharing its stem."""
    docs = path.resolve().parents[1] / "docs" / "presets"
    named = re.search(r"docs/presets/([\w.\-]+\.md)", path.read_text())
    for candidate in ([docs / named.group(1)] if named else []) + [docs / f"{path.stem}.md"]:
        if candidate.is_file():
            return candidate
    return None


def inherited(path: Path) -> list[tuple[str, list[Param]]]:
    """What `path` takes from the presets it extends: for each ancestor, nearest first, its name
    and the values no preset below it sets (tables merge key by key, an array replaces the
    ancestor's whole array: spec/loading.rs, `merge_over`)."""
    data, _ = params(path)
    below = [data]
    seen = {path.resolve()}
    out = []
    parent = _extends(data)
    while parent:
        ppath = path.parent / f"{parent}.toml"
        if not ppath.is_file() or ppath.resolve() in seen:
            break  # `pagelab run` names a missing or circular parent; the page shows what it has
        seen.add(ppath.resolve())
        pdata, pparams = params(ppath)
        out.append((parent, [p for p in pparams if not any(_sets(d, p.key) for d in below)]))
        below.append(pdata)
        parent = _extends(pdata)
    return out


def _extends(data: dict[str, Any]) -> str | None:
    meta = data.get("preset")
    parent = meta.get("extends") if isinstance(meta, dict) else None
    return parent if isinstance(parent, str) else None


def _sets(data: Any, key: str) -> bool:
    """Whether `data` gives `key` (a dotted path) a value, or replaces an array on its path."""
    node = data
    for part in key.split("."):
        if isinstance(node, list):
            return True
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True
