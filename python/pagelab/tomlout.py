"""TOML out: a resolved spec tree written as a preset file, with comments on chosen keys.

Tables become `[a.b]` sections, arrays of tables `[[a.b]]`, everything else `key = value`.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from typing import Any

BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def dumps(tree: dict[str, Any], comments: dict[str, str] | None = None) -> str:
    """`tree` as TOML; `comments` maps a dotted key path (array items by index) to a comment
    written on the line before that key."""
    lines: list[str] = []
    _table(tree, [], [], comments or {}, lines, header=False)
    return "\n".join(lines).strip() + "\n"


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def _table(
    t: dict[str, Any],
    path: list[str],
    names: list[str],
    comments: dict[str, str],
    lines: list[str],
    *,
    header: bool,
    array: bool = False,
) -> None:
    scalars = {k: v for k, v in t.items() if not isinstance(v, dict) and not _is_table_array(v)}
    if header and (scalars or array or not t):
        lines.append("")
        name = ".".join(_key(n) for n in names)
        lines.append(f"[[{name}]]" if array else f"[{name}]")
    for k, v in scalars.items():
        note = comments.get(".".join([*path, k]))
        if note:
            lines.append(f"# {note}")
        lines.append(f"{_key(k)} = {_value(v)}")
    for k, v in t.items():
        if isinstance(v, dict):
            _table(v, [*path, k], [*names, k], comments, lines, header=True)
    for k, v in t.items():
        if _is_table_array(v):
            for i, item in enumerate(v):
                _table(
                    item, [*path, k, str(i)], [*names, k], comments, lines, header=True, array=True
                )


def _key(k: str) -> str:
    return k if BARE_KEY.match(k) else json.dumps(k)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, dt.date | dt.time):
        return v.isoformat()
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")
