"""TOML out: a resolved spec tree written as a preset file, with comments on chosen keys.

Tables become `[a.b]` sections, arrays of tables `[[a.b]]`, everything else `key = value`.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping
from typing import Any

from .errors import PagelabError

BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")  # whole key: fullmatch (a $ would pass "k\n")


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
        name = ".".join(key(n) for n in names)
        lines.append(f"[[{name}]]" if array else f"[{name}]")
    for k, v in scalars.items():
        note = comments.get(".".join([*path, k]))
        if note:
            lines.append(f"# {note}")
        lines.append(f"{key(k)} = {value(v, '.'.join([*path, k]))}")
    for k, v in t.items():
        if isinstance(v, dict):
            _table(v, [*path, k], [*names, k], comments, lines, header=True)
    for k, v in t.items():
        if _is_table_array(v):
            for i, item in enumerate(v):
                _table(
                    item, [*path, k, str(i)], [*names, k], comments, lines, header=True, array=True
                )


_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _string(s: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def key(k: Any) -> str:
    """A TOML key: bare where it can be, quoted otherwise."""
    k = str(k)
    return k if BARE_KEY.fullmatch(k) else _string(k)


def value(v: Any, where: str = "value") -> str:
    """A Python value as an inline TOML value (``--set`` right-hand sides, dict specs).

    >>> value({"kind": "exponential", "mean_s": 10.0})
    '{kind = "exponential", mean_s = 10.0}'
    >>> value([1, True, "a"])
    '[1, true, "a"]'
    """
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        return repr(v) if math.isfinite(v) else ("inf" if v > 0 else "-inf")
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, dt.date | dt.time):
        return v.isoformat()
    if isinstance(v, Mapping):
        inner = ", ".join(f"{key(k)} = {value(x, f'{where}.{k}')}" for k, x in v.items())
        return "{" + inner + "}"
    if isinstance(v, list | tuple):
        return "[" + ", ".join(value(x, f"{where}[{i}]") for i, x in enumerate(v)) + "]"
    if hasattr(v, "item"):  # a numpy scalar
        return value(v.item(), where)
    raise PagelabError(f"{where}: expected a number, string, boolean, list or dict, got {v!r}")
