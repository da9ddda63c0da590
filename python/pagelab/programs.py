"""The M44/44X study's programs as instrumented kernels (Brawn & Gustavson 1968).

Each program computes its real result (an inverse that checks, a sorted file) while every
data and instruction reference goes to a word-addressed 44X store with 1024-word pages.
"""

from __future__ import annotations

import json
import os
from typing import Any

from . import _core, validate
from .errors import PagelabError


def available() -> list[dict[str, Any]]:
    """Every program: name, the paper's label, what it computes."""
    return _core.m44_programs()


def generate(
    program: str,
    output: str | os.PathLike[str],
    *,
    seed: int = 1,
    params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Runs `program` and writes its reference string to `output` as a pagelab trace.

    Returns the trace's description with the program's result check.
    """
    seed = validate.integer(seed, "seed")
    try:
        text = json.dumps(params or {})
    except (TypeError, ValueError) as e:
        raise PagelabError(f"params: not JSON data ({e})") from None
    try:
        return _core.m44_generate(program, text, seed, os.fspath(output))
    except (ValueError, OverflowError) as e:
        raise PagelabError(str(e)) from None
