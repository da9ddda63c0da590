"""What a run is: a spec resolved and overridden as the engine will see it, a seed, a version.

The normalisation mirrors the engine's own loading (crates/pagelab-sys `spec.rs`): the preset's
`extends` chain merged table by table (any other value, arrays of tables included, replaced
whole), then each `--set key.path=value` applied in order, the value read as TOML or else taken
as a string. Two commands that give the engine the same tree give the same key, however they
spell it (a preset name or its path, one `--set` or the same value in the file).
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import math
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import system, validate
from ..errors import PagelabError

#: Presets deep enough to be a cycle (the engine's own limit).
MAX_EXTENDS = 8


def parse_value(text: str) -> Any:
    """A `--set`/`--grid` value as the engine reads it: TOML, or else the string itself."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def split_assignment(arg: str, option: str) -> tuple[str, str]:
    """`key.path=value` -> (key.path, value); a one-line error naming the option otherwise."""
    key, sep, value = arg.partition("=")
    key = key.strip()
    if not sep or not key or any(not p for p in key.split(".")):
        raise PagelabError(f"{option} {arg!r}: expected key.path=value")
    return key, value.strip()


def _load(path: Path, depth: int) -> dict[str, Any]:
    stat = validate.spec_file(path, "spec").stat()
    tree = copy.deepcopy(_parsed(str(path), stat.st_mtime_ns, stat.st_size))
    parent = tree.get("preset", {}).get("extends")
    if parent is None:
        return tree
    if not isinstance(parent, str):
        raise PagelabError(f"{path}: preset.extends: expected the name of a preset file")
    if depth >= MAX_EXTENDS:
        raise PagelabError(f"{path}: preset.extends more than {MAX_EXTENDS} deep")
    base = _load(path.parent / f"{parent}.toml", depth + 1)
    _merge_over(base, tree)
    return base


@functools.lru_cache(maxsize=256)
def _parsed(path: str, mtime_ns: int, size: int) -> dict[str, Any]:
    """A spec file's TOML tree, parsed once per version of the file (a sweep resolves its
    preset once per grid point). Callers get a copy: the trees are merged into in place."""
    try:
        return tomllib.loads(validate.read_toml_text(Path(path), "spec"))
    except tomllib.TOMLDecodeError as e:
        raise PagelabError(f"{path}: not TOML ({e})") from None


def extends_chain(path: Path) -> list[Path]:
    """`path` and the preset files it extends, nearest first (those that exist)."""
    chain = [path]
    for _ in range(MAX_EXTENDS):
        try:
            parent = tomllib.loads(chain[-1].read_text()).get("preset", {}).get("extends")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            break
        if not isinstance(parent, str) or not (chain[-1].parent / f"{parent}.toml").is_file():
            break
        chain.append(chain[-1].parent / f"{parent}.toml")
    return chain


def _merge_over(base: dict[str, Any], top: dict[str, Any]) -> None:
    for k, v in top.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _merge_over(base[k], v)
        else:
            base[k] = v


def apply_override(tree: dict[str, Any], key: str, value: Any, arg: str) -> None:
    """Sets `key` (dotted; numbers index arrays) in `tree`, creating tables as the engine does;
    an index one past an array's end appends `value` to it, as in the engine."""
    parts = key.split(".")
    cur: Any = tree
    for i, part in enumerate(parts):
        last = i + 1 == len(parts)
        if isinstance(cur, dict):
            if last:
                cur[part] = value
                return
            cur = cur.setdefault(part, {})
        elif isinstance(cur, list):
            n = len(cur)
            if last and part == str(n):
                cur.append(value)
                return
            if not part.isdigit() or int(part) >= n:
                raise PagelabError(
                    f"--set {arg!r}: `{part}` indexes an array of {n}: expected an index "
                    f"below {n} ({n} appends)"
                )
            if last:
                cur[int(part)] = value
                return
            cur = cur[int(part)]
        else:
            raise PagelabError(f"--set {arg!r}: `{'.'.join(parts[:i])}` is a value, not a table")


def lookup(tree: dict[str, Any], key: str) -> Any:
    """The value at dotted `key`; KeyError when the spec does not have it."""
    cur: Any = tree
    for part in key.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            raise KeyError(key)
    return cur


@dataclass(frozen=True)
class Point:
    """One setting of a spec: the file, the overrides in order, and the tree they make."""

    path: Path
    overrides: tuple[str, ...]
    tree_json: str

    @property
    def name(self) -> str:
        return self.path.stem

    def key(self, seed: int, version: str) -> str:
        """The run's content address: sha256 of the resolved tree, the seed and the version
        (with the engine's build, see `engine_build`)."""
        text = json.dumps({"spec": json.loads(self.tree_json), "seed": seed, "version": version})
        return hashlib.sha256(text.encode()).hexdigest()


def resolve(spec: str | Path, overrides: Sequence[str] = ()) -> tuple[Point, dict[str, Any]]:
    """The point of `spec` (a file or a preset name) with `overrides`, and its resolved tree."""
    path = system.resolve_spec_path(spec).resolve()
    tree = _load(path, 0)
    tree.get("preset", {}).pop("extends", None)
    tree.pop("provenance", None)  # a record of a calibration, not read by the engine
    for arg in overrides:
        key, text = split_assignment(arg, "--set")
        apply_override(tree, key, parse_value(text), arg)
    canonical = json.dumps(tree, sort_keys=True, separators=(",", ":"), default=_json_default)
    return Point(path, tuple(overrides), canonical), tree


def resolve_over(base: Point, extra: Sequence[str]) -> tuple[Point, dict[str, Any]]:
    """As :func:`resolve` of `base`'s spec with its overrides and then `extra`, from `base`'s
    resolved tree, without reading a file again (the tree is parsed from its canonical JSON:
    quicker than a deep copy)."""
    tree = json.loads(base.tree_json)
    for arg in extra:
        key, text = split_assignment(arg, "--set")
        apply_override(tree, key, parse_value(text), arg)
    canonical = json.dumps(tree, sort_keys=True, separators=(",", ":"), default=_json_default)
    return Point(base.path, (*base.overrides, *extra), canonical), tree


def _json_default(v: Any) -> Any:
    # TOML dates and times: their ISO text is their identity.
    return v.isoformat()


def is_finite_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
