"""Reading reproduction records for the site, in both of their shapes.

The record (DESIGN.md, "the reproduction record") gives every row a role (`input`, `fitted`,
`predicted`, `ours`) and every claim a verdict (`holds`, `direction-only`, `fails`,
`inconclusive`) computed over seeds. Records written before roles and verdicts carry rows with
no role and claims with a boolean `holds` decided on one seed. Both are read here, and what an
older record leaves out is said, never guessed: a row without a role has role `unknown` and is
scored apart from the predicted rows; a claim with only `holds` gets the verdict
`direction-only (legacy)` (it held, on one seed, with no interval) or `fails (legacy)`.

Anything else that does not fit stops the build with one line naming the file and the key.
"""

from __future__ import annotations

import json
import math
import re
import shlex
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import PagelabError

ROLES = ("input", "fitted", "predicted", "ours")
VERDICTS = ("holds", "direction-only", "fails", "inconclusive")
LEGACY_VERDICTS = ("direction-only (legacy)", "fails (legacy)")
#: A record's name names its page, so it must be a plain file name.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
#: Every verdict a claim can show, in the order the site lists them.
ALL_VERDICTS = VERDICTS + LEGACY_VERDICTS


@dataclass
class Row:
    """One number of ours beside the paper's."""

    table: str
    row: str
    column: str
    role: str
    paper: float | None
    pagelab: float | None
    unit: str
    interval: tuple[float, float] | None
    why: str
    #: The paper's number as a bound ("upper", "lower") or its range; None: a point.
    bound: str | None = None
    paper_range: tuple[float, float] | None = None
    #: The trivial baseline's prediction of this row, where the record gives one.
    baseline: float | None = None


@dataclass
class Claim:
    """One of the paper's findings and whether it holds here."""

    id: str
    text: str
    verdict: str
    legacy: bool
    effect: float | None
    paper_effect: float | None
    interval: tuple[float, float] | None
    band: tuple[float | None, float | None] | None
    seeds: int | None
    method: str
    evidence: str
    #: The paper's sentence; "paper", "fitted" or "ours" ("" in a record written before
    #: claims had roles); a reading changed after its result.
    quote: str = ""
    role: str = ""
    changed_after_results: bool = False

    @property
    def scored(self) -> bool:
        """Counted in the score (pagelab.scoring.claim_scored); a record written before claims
        carried a role and a quote counts every claim, as it did."""
        from ..scoring import claim_scored

        if not self.role:
            return True
        return claim_scored(
            {"quote": self.quote, "role": self.role,
             "changed_after_results": self.changed_after_results}
        )  # fmt: skip

    @property
    def mean_in_band(self) -> bool | None:
        """The mean effect lies in the paper's band (else a `holds` rests on the interval);
        None where the record gives neither a band nor the paper's effect to make one."""
        from ..sweep.paired import band_of, mean_in_band

        band = self.band
        if band is None:
            if self.paper_effect is None:
                return None
            band = band_of(self.paper_effect, None, None)
        return mean_in_band(self.effect, band)


@dataclass
class Record:
    """A reproduction record, its fields checked and its gaps made explicit."""

    path: Path
    name: str
    paper: str
    title: str
    scale: str
    version: str
    date: str
    date_source: str
    seeds: list[int]
    rows: list[Row]
    claims: list[Claim]
    figures: list[str]
    notes: list[str]
    fitted: dict[str, Any] | None
    declared_score: dict[str, Any] | None
    wall_seconds: float | None
    command: str
    extra: dict[str, Any] = field(default_factory=dict)


class _Where:
    """Builds the one-line error for a bad value: file, key path, what was expected."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, key: str, expected: str, got: Any) -> PagelabError:
        shown = json.dumps(got)[:60] if _jsonable(got) else repr(got)[:60]
        return PagelabError(f"{self.path}: {key}: expected {expected}, got {shown}")


def _jsonable(v: Any) -> bool:
    try:
        json.dumps(v)
    except (TypeError, ValueError):
        return False
    return True


#: Largest magnitude of a record's number: no measured quantity comes near it, and a chart's
#: axis over ±1e308 cannot be drawn (NumPy's ranges overflow).
MAX_MAGNITUDE = 1e15
#: Longest text of a record [characters]: a title or a note longer than this would make a
#: chart's image or a page too large to draw (a 5 MB title did).
MAX_TEXT = 10_000
#: Largest record file read [bytes].
MAX_RECORD_BYTES = 64 * 2**20


def _number(w: _Where, key: str, v: Any) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise w.fail(key, "a finite number or null", v)
    if abs(v) > MAX_MAGNITUDE:
        raise w.fail(key, f"a number no larger than {MAX_MAGNITUDE:g} in size", v)
    return v


def _text(w: _Where, key: str, v: Any, *, default: str | None = None) -> str:
    if v is None and default is not None:
        return default
    if isinstance(v, str) and len(v) > MAX_TEXT:
        raise w.fail(key, f"a text of at most {MAX_TEXT:,} characters", f"{len(v):,} characters")
    if isinstance(v, str):
        return v
    if isinstance(v, int | float) and not isinstance(v, bool):
        return str(v)
    raise w.fail(key, "a string", v)


def _interval(w: _Where, key: str, v: Any) -> tuple[float, float] | None:
    if v is None:
        return None
    if not isinstance(v, list) or len(v) != 2:
        raise w.fail(key, "[low, high] or null", v)
    lo, hi = (_number(w, f"{key}[{i}]", x) for i, x in enumerate(v))
    if lo is None or hi is None:
        return None
    return (lo, hi)


def _band(w: _Where, key: str, v: Any) -> tuple[float | None, float | None] | None:
    """The paper's band around its effect; a null end is unbounded (a direction alone)."""
    if v is None:
        return None
    if not isinstance(v, list) or len(v) != 2:
        raise w.fail(key, "[low, high] with null for an open end", v)
    lo, hi = (_number(w, f"{key}[{i}]", x) for i, x in enumerate(v))
    return (lo, hi)


def _row(w: _Where, i: int, r: Any) -> Row:
    key = f"rows[{i}]"
    if not isinstance(r, dict):
        raise w.fail(key, "an object", r)
    role = r.get("role", "unknown")
    if role != "unknown" and role not in ROLES:
        raise w.fail(f"{key}.role", " | ".join(ROLES), role)
    return Row(
        table=_text(w, f"{key}.table", r.get("table"), default=""),
        row=_text(w, f"{key}.row", r.get("row")),
        column=_text(w, f"{key}.column", r.get("column"), default=""),
        role=role,
        paper=_number(w, f"{key}.paper", r.get("paper")),
        pagelab=_number(w, f"{key}.pagelab", r.get("pagelab")),
        unit=_text(w, f"{key}.unit", r.get("unit"), default=""),
        interval=_interval(w, f"{key}.interval", r.get("interval")),
        why=_text(w, f"{key}.why", r.get("why"), default=""),
        bound=r.get("bound") if r.get("bound") in ("upper", "lower") else None,
        paper_range=_interval(w, f"{key}.paper_range", r.get("paper_range")),
        baseline=_number(w, f"{key}.baseline", r.get("baseline")),
    )


def _claim(w: _Where, i: int, c: Any) -> Claim:
    key = f"claims[{i}]"
    if not isinstance(c, dict):
        raise w.fail(key, "an object", c)
    if "verdict" in c:
        verdict, legacy = c["verdict"], False
        if verdict not in VERDICTS:
            raise w.fail(f"{key}.verdict", " | ".join(VERDICTS), verdict)
    elif isinstance(c.get("holds"), bool):
        verdict, legacy = LEGACY_VERDICTS[0] if c["holds"] else LEGACY_VERDICTS[1], True
    else:
        raise w.fail(key, "a `verdict` or a boolean `holds`", c.get("holds"))
    seeds = c.get("seeds")
    if isinstance(seeds, list) and all(isinstance(s, int) for s in seeds):
        seeds = len(seeds)  # the seeds themselves rather than their count
    if seeds is not None and (isinstance(seeds, bool) or not isinstance(seeds, int)):
        raise w.fail(f"{key}.seeds", "a count of seeds (or their list)", seeds)
    return Claim(
        id=_text(w, f"{key}.id", c.get("id"), default=f"claim-{i + 1}"),
        text=_text(w, f"{key}.text", c.get("text")),
        verdict=verdict,
        legacy=legacy,
        effect=_number(w, f"{key}.effect", c.get("effect")),
        paper_effect=_number(w, f"{key}.paper_effect", c.get("paper_effect")),
        interval=_interval(w, f"{key}.interval", c.get("interval")),
        band=_band(w, f"{key}.band", c.get("band")),
        seeds=seeds,
        method=_text(w, f"{key}.method", c.get("method"), default=""),
        evidence=_text(w, f"{key}.evidence", c.get("evidence"), default=""),
        quote=_text(w, f"{key}.quote", c.get("quote"), default=""),
        role=c.get("role") if c.get("role") in ("paper", "fitted", "ours") else "",
        changed_after_results=c.get("changed_after_results") is True,
    )


def _seeds(w: _Where, raw: dict[str, Any]) -> list[int]:
    seeds = raw.get("seeds", [raw["seed"]] if "seed" in raw else [])
    if not isinstance(seeds, list) or not all(
        isinstance(s, int) and not isinstance(s, bool) for s in seeds
    ):
        raise w.fail("seeds", "a list of integer seeds", seeds)
    return seeds


def _list(w: _Where, raw: dict[str, Any], key: str, *, required: bool) -> list[Any]:
    if key not in raw and not required:
        return []
    v = raw.get(key)
    if not isinstance(v, list):
        raise w.fail(key, "a list", v)
    return v


def _date(raw: dict[str, Any], path: Path) -> tuple[str, str]:
    for key in ("date", "finished", "started"):
        if isinstance(raw.get(key), str):
            return raw[key], "record"
    stamp = datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
    return stamp.strftime("%Y-%m-%d %H:%M UTC"), "file time"


def _command(raw: dict[str, Any], name: str, scale: str, seeds: list[int]) -> str:
    if isinstance(raw.get("command"), str):
        return raw["command"]
    parts = ["pagelab", "reproduce", name]
    if scale in ("smoke", "full"):
        parts += ["--scale", scale]
    if seeds:
        parts += ["--seed", str(raw.get("seed", seeds[0]))]
    if isinstance(raw.get("seeds"), list):  # the newer record: every setting over these seeds
        parts += ["--seeds", str(len(seeds))]
    return shlex.join([*parts, "--out", "results"])


def parse(path: Path, raw: Any) -> Record:
    """Checks one record's fields and fills its gaps explicitly (see the module docstring)."""
    w = _Where(path)
    if not isinstance(raw, dict):
        raise w.fail("(top level)", "a JSON object (a reproduction record)", type(raw).__name__)
    name = _text(w, "name", raw.get("name"))
    if not NAME.fullmatch(name):
        raise w.fail("name", "a reproduction name of letters, digits, '.', '_' and '-'", name)
    scale = _text(w, "scale", raw.get("scale"), default="unknown")
    seeds = _seeds(w, raw)
    figures = [
        _text(w, f"figures[{i}]", f) for i, f in enumerate(_list(w, raw, "figures", required=False))
    ]
    for i, f in enumerate(figures):
        if "/" in f or "\\" in f or f.startswith("."):
            raise w.fail(f"figures[{i}]", "a file name beside the record", f)
    fitted = raw.get("fitted")
    if fitted is not None and not isinstance(fitted, dict):
        raise w.fail("fitted", "an object or null", fitted)
    score = raw.get("score")
    if score is not None and not isinstance(score, dict):
        raise w.fail("score", "an object or null", score)
    wall = _number(w, "wall_seconds", raw.get("wall_seconds"))
    date, date_source = _date(raw, path)
    known = {
        "name", "paper", "title", "scale", "seed", "seeds", "version", "rows", "claims",
        "figures", "notes", "fitted", "score", "wall_seconds", "command", "date", "finished",
        "started",
    }  # fmt: skip
    return Record(
        path=path,
        name=name,
        paper=_text(w, "paper", raw.get("paper")),
        title=_text(w, "title", raw.get("title"), default=name),
        scale=scale,
        version=_text(w, "version", raw.get("version"), default="unknown"),
        date=date,
        date_source=date_source,
        seeds=seeds,
        rows=[_row(w, i, r) for i, r in enumerate(_list(w, raw, "rows", required=True))],
        claims=[_claim(w, i, c) for i, c in enumerate(_list(w, raw, "claims", required=True))],
        figures=figures,
        notes=[
            _text(w, f"notes[{i}]", n) for i, n in enumerate(_list(w, raw, "notes", required=False))
        ],
        fitted=fitted,
        declared_score=score,
        wall_seconds=wall,
        command=_command(raw, name, scale, seeds),
        extra={k: v for k, v in raw.items() if k not in known},
    )


def is_record(raw: Any) -> bool:
    """A JSON object with `rows` or `claims` is a record (well-formed or not); a results
    directory may hold other JSON beside the records (tables, run summaries)."""
    return isinstance(raw, dict) and ("rows" in raw or "claims" in raw)


def load(results: Path) -> list[Record]:
    """Every record in `results` (the `*.json` at its top level that are records), sorted by
    paper and name."""
    if not results.is_dir():
        raise PagelabError(f"{results}: expected a directory of reproduction records")
    found = []
    for path in sorted(results.glob("*.json")):
        if path.name.startswith("."):
            continue
        if not path.is_file() or path.stat().st_size > MAX_RECORD_BYTES:
            raise PagelabError(
                f"{path}: not a record (expected a JSON file of at most "
                f"{MAX_RECORD_BYTES // 2**20} MiB)"
            )
        try:
            raw = json.loads(path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise PagelabError(f"{path}: not valid JSON ({e})") from None
        except RecursionError:
            raise PagelabError(f"{path}: JSON nested too deeply to be a record") from None
        if is_record(raw):
            found.append(parse(path, raw))
    if not found:
        raise PagelabError(
            f"{results}: no reproduction records (*.json); fill it with "
            "`pagelab reproduce NAME --out DIR`"
        )
    names: dict[str, Path] = {}
    for r in found:
        if r.name in names:
            raise PagelabError(f"{r.path}: name {r.name!r} already used by {names[r.name]}")
        names[r.name] = r.path
    return sorted(found, key=lambda r: (r.paper, r.name))
