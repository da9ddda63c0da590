"""The system simulator from Python: a spec in, a :class:`SystemResult` out.

A spec is a preset name (``"vmsp"``), a path to a TOML file, or a dict with the same tree as the
TOML. Overrides (``set=``) change single keys by their dotted path, as ``pagelab run --set`` does::

    >>> import pagelab
    >>> r = pagelab.run_system("vm370", set={"run.duration_s": 20, "run.warmup_s": 5,
    ...                                      "workload.users": 10}, seed=2)
    >>> r.metrics["users"]
    Metric(name='users', value=10.0, unit='users')
    >>> r.spec["workload"]["users"]
    10

The result is also the raw report as a dict (``r["metrics"]["users"]["value"]``), as it has
always been; the attributes add typed and tabular views (``r.to_frame()``, ``r.intervals``,
``r.users``; pandas DataFrames). docs/python.md describes the whole API.

Presets are found in the checkout's ``presets/`` when pagelab runs from a source checkout, and
in the copy packaged inside the wheel otherwise (:func:`presets_dir`).
"""

from __future__ import annotations

import difflib
import json
import math
import os
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _atomic, _core, validate
from .errors import PagelabError
from .tomlout import key as _key
from .tomlout import value as toml_value

if TYPE_CHECKING:
    import pandas

#: The presets packaged inside the installed wheel (pyproject.toml, ``[tool.maturin] include``).
PRESETS_DIR = Path(__file__).resolve().parent / "presets"

#: The root of the source checkout this module would sit in (``python/pagelab/system.py``).
_CHECKOUT = Path(__file__).resolve().parents[2]

#: What a dict spec is called in error messages.
DICT_ORIGIN = "<dict>"

Spec = str | os.PathLike[str] | Mapping[str, Any]
Overrides = Mapping[str, Any] | Iterable[str]


def presets_dir() -> Path:
    """The directory presets are read from: the checkout's ``presets/`` when pagelab runs from
    a source checkout (so an edit there takes effect at once), else the packaged copy."""
    checkout = _CHECKOUT / "presets"
    if checkout.is_dir() and (_CHECKOUT / "Cargo.toml").is_file():
        return checkout
    return PRESETS_DIR


#: The kinds of preset, in the order `pagelab list presets` shows them: a system as the sources
#: describe it, a fit the reproductions run on (`[provenance] status = "adopted"`), and any
#: other fit, kept to show how far a result moves with the fit.
PRESET_GROUPS = {
    "system": "Systems",
    "adopted": "Adopted fits (the reproductions run on these)",
    "comparison": "Fits kept for comparison",
}


def presets() -> list[dict[str, str]]:
    """The presets shipped: name, file, title (its one-line description) and group (a key of
    :data:`PRESET_GROUPS`).

    >>> [p["group"] for p in presets() if p["name"] in ("vmsp", "cp67-fitted")]
    ['adopted', 'system']
    """
    found = []
    for path in sorted(presets_dir().glob("*.toml")):
        try:
            data = tomllib.loads(path.read_text())
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            data = {}  # `pagelab run` says what is wrong with it
        title = (data.get("preset") or {}).get("name", "")
        provenance = data.get("provenance")
        if not isinstance(provenance, dict):
            group = "system"
        else:
            group = "adopted" if provenance.get("status") == "adopted" else "comparison"
            # A fit's own line: what was fitted to what (its title is often its base's).
            title = provenance.get("description") or title
        found.append({"name": path.stem, "file": str(path), "title": str(title), "group": group})
    return found


def resolve_spec_path(spec: str | os.PathLike[str]) -> Path:
    """A path, or the name of a shipped preset (``vm370``).

    >>> resolve_spec_path("vm370").name
    'vm370.toml'
    """
    path = Path(spec)
    if path.exists():
        return validate.spec_file(path, "spec")
    candidate = presets_dir() / f"{spec}.toml"
    if "/" not in str(spec) and candidate.is_file():
        return candidate
    names = [p.stem for p in sorted(presets_dir().glob("*.toml"))]
    near = difflib.get_close_matches(str(spec), names, n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(near)}? " if near else ""
    raise PagelabError(
        f"{spec}: no such file, and no preset of that name ({hint}presets: {', '.join(names)})"
    )


class Metric(float):
    """One named figure of a run: a number (``float(m)``, ``m * 2``, ``m > 0.5``, numpy and
    pandas take it as the float it is) that also carries its ``name`` and ``unit``.

    >>> m = Metric("q1_seconds", 0.5, "s")
    >>> m * 2, float(m), m.value, m.unit
    (1.0, 0.5, 0.5, 's')
    """

    __slots__ = ("name", "unit")
    _fields = ("name", "value", "unit")

    def __new__(cls, name: str, value: float, unit: str) -> Metric:
        self = super().__new__(cls, value)
        self.name = name
        self.unit = unit
        return self

    @property
    def value(self) -> float:
        """The number itself, as a plain float."""
        return float(self)

    def _asdict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "unit": self.unit}

    def __reduce__(self) -> tuple[Any, ...]:
        return (Metric, (self.name, self.value, self.unit))

    def __repr__(self) -> str:
        return f"Metric(name={self.name!r}, value={self.value!r}, unit={self.unit!r})"


class SystemResult(dict):
    """The report of one run: the raw report as a dict (``r["metrics"]``, ``r["spec"]``, ... as
    written to ``summary.json``), with typed and tabular views as attributes.

    The DataFrame views import pandas when first used.
    """

    @property
    def metrics(self) -> dict[str, Metric]:
        """Every metric by name: value and unit."""
        return {
            name: Metric(name, _number(m.get("value")), str(m.get("unit", "")))
            for name, m in self.get("metrics", {}).items()
        }

    @property
    def spec(self) -> dict[str, Any]:
        """The resolved spec the run used (preset, extends and overrides applied)."""
        return self.get("spec") or {}

    @property
    def seed(self) -> int:
        """The seed of every random stream of the run."""
        return int(self["seed"])

    @property
    def interval_rows(self) -> list[dict[str, float]]:
        """The monitor's interval samples, one dict per interval."""
        return interval_rows(self)

    @property
    def interval_units(self) -> dict[str, str]:
        """The unit of each interval column."""
        table = self.get("intervals") or {}
        return dict(zip(table.get("columns", []), table.get("units", []), strict=False))

    @property
    def intervals(self) -> pandas.DataFrame:
        """The interval samples as a DataFrame (one row per interval, units in
        :attr:`interval_units`)."""
        columns = (self.get("intervals") or {}).get("columns", [])
        return _frame(self.interval_rows, columns)

    @property
    def users(self) -> pandas.DataFrame:
        """The per-user table as a DataFrame."""
        return _frame(self.get("users") or [])

    @property
    def classes(self) -> pandas.DataFrame:
        """The per-class table as a DataFrame."""
        return _frame(self.get("classes") or [])

    def to_frame(self) -> pandas.DataFrame:
        """The metrics as a DataFrame indexed by name, with columns ``value`` and ``unit``."""
        rows = [m._asdict() for m in self.metrics.values()]
        return _frame(rows, list(Metric._fields)).set_index("name")

    def write(self, out: str | os.PathLike[str]) -> None:
        """Writes summary.json, the tables as Parquet and the resolved spec to ``out``."""
        write_report(self, Path(out))

    def __repr__(self) -> str:
        name = self.spec.get("preset", {}).get("name", "")
        return f"<SystemResult {name!r} seed={self.get('seed')} metrics={len(self.metrics)}>"


def _number(v: Any) -> float:
    """A metric's value; JSON carries a NaN as null."""
    return math.nan if v is None else float(v)


def _frame(rows: list[dict[str, Any]], columns: Sequence[str] | None = None) -> pandas.DataFrame:
    from . import extras

    extras.need("frames", "a DataFrame")
    import pandas as pd

    return pd.DataFrame.from_records(rows, columns=list(columns) if columns else None)


def run(
    spec: Spec,
    *,
    set: Overrides | None = None,
    overrides: Iterable[str] = (),
    seed: int = 1,
    out: str | os.PathLike[str] | None = None,
    max_memory: str | int | None = None,
) -> SystemResult:
    """Runs one simulation and returns its :class:`SystemResult`.

    ``spec`` is a preset name, a TOML path or a dict spec (which may name a preset to build on
    with ``{"preset": {"extends": "vm370"}}``). ``set`` maps dotted key paths to values
    (``{"memory.frames": 256}``) or lists ``"key.path=value"`` strings; ``overrides`` is the
    older spelling of the latter and applies first. ``out``, if given, receives summary.json,
    the interval, user and class tables as Parquet and the resolved spec, each written
    atomically.

    A spec whose memory estimate exceeds the memory available is refused before it is built;
    ``max_memory`` (bytes, or with a K, M, G or T suffix) sets another limit, as does the
    environment variable PAGELAB_MAX_MEMORY.
    """
    text, origin, label = _spec_text(spec)
    if max_memory is not None:
        os.environ["PAGELAB_MAX_MEMORY"] = validate.byte_size(max_memory, "--max-memory")
    seed = validate.integer(seed, "seed")
    pairs = _set_pairs(overrides) + _set_pairs(set)
    if out is not None:
        check_out_dir(out)  # before the run, not after it
    from . import progress  # rich, imported only when a run starts (`import pagelab` stays light)

    with progress.bar(f"simulating {label}", total=1.0) as update:
        try:
            report = _core.run_system(text, origin, pairs, seed, update)
        except (ValueError, OverflowError) as e:
            raise PagelabError(str(e)) from None
    result = SystemResult(json.loads(report))
    if out is not None:
        result.write(out)
    return result


def check(spec: Spec, *, set: Overrides | None = None, overrides: Iterable[str] = ()) -> str:  # noqa: A002
    """Makes every check :func:`run` makes before a run starts (the memory budget, the keys,
    their types and ranges) without running; returns the system's kind (``vm``, ``unix`` or
    ``m44``) or raises :class:`PagelabError` naming the file and key."""
    text, origin, _ = _spec_text(spec)
    pairs = _set_pairs(overrides) + _set_pairs(set)
    try:
        return _core.check_system(text, origin, pairs)
    except (ValueError, OverflowError) as e:
        raise PagelabError(str(e)) from None


def checker(spec: str | os.PathLike[str]) -> Any:
    """A function of overrides making :func:`check`'s checks of the file `spec` with them, the
    file read once (a sweep checks each of its points so, before any run)."""
    text, origin, _ = _spec_text(spec)

    def check_with(overrides: Iterable[str]) -> str:
        try:
            return _core.check_system(text, origin, [_pair(o) for o in overrides])
        except (ValueError, OverflowError) as e:
            raise PagelabError(str(e)) from None

    return check_with


def _spec_text(spec: Spec) -> tuple[str, str, str]:
    """(TOML text, origin for errors and ``extends``, a label) of any form of spec."""
    if isinstance(spec, Mapping):
        # `preset.extends` names a file beside the origin: place such a dict among the presets.
        extends = (spec.get("preset") or {}).get("extends")
        origin = str(presets_dir() / DICT_ORIGIN) if extends else DICT_ORIGIN
        return to_toml(spec), origin, "a dict spec"
    if not isinstance(spec, str | os.PathLike):
        raise PagelabError(
            f"spec {spec!r}: expected a preset name, a TOML file or a dict, "
            f"not {type(spec).__name__}"
        )
    path = resolve_spec_path(spec)
    return validate.read_toml_text(path, "spec"), str(path), path.name


def _pair(o: str) -> tuple[str, str]:
    if not isinstance(o, str):
        raise PagelabError(f'--set {o!r}: expected a "key.path=value" string')
    key, sep, value = o.partition("=")
    if not sep or not key.strip():
        raise PagelabError(f"--set {o!r}: expected key.path=value")
    return key.strip(), value.strip()


def _set_pairs(set_: Overrides | None) -> list[tuple[str, str]]:
    if set_ is None:
        return []
    if isinstance(set_, str):
        return [_pair(set_)]
    if isinstance(set_, Mapping):
        return [(str(k), toml_value(v, str(k))) for k, v in set_.items()]
    if isinstance(set_, bytes) or not isinstance(set_, Iterable):
        raise PagelabError(
            f'set {set_!r}: expected a dict {{"key.path": value}} or "key.path=value" strings'
        )
    return [_pair(o) for o in set_]


def check_out_dir(out: Any) -> Path:
    """`out` as a folder a run can write into, made now if it is new (an empty folder is all
    a failed run leaves); a PagelabError otherwise, before any work."""
    if not isinstance(out, str | os.PathLike):
        raise PagelabError(f"out {out!r}: expected a folder path, not {type(out).__name__}")
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise PagelabError(f"--out {os.fspath(out)}: exists and is not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise PagelabError(f"--out {os.fspath(out)}: cannot make it ({e.strerror})") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise PagelabError(f"--out {os.fspath(out)}: not a folder this user can write")
    return path


def to_toml(spec: Mapping[str, Any]) -> str:
    """A dict spec as TOML text: one line per top-level key.

    >>> print(to_toml({"run": {"duration_s": 20.0}, "preset": {"extends": "vm370"}}), end="")
    run = {duration_s = 20.0}
    preset = {extends = "vm370"}
    """
    return "\n".join(f"{_key(k)} = {toml_value(v, str(k))}" for k, v in spec.items()) + "\n"


def write_report(report: Mapping[str, Any], out: Path) -> None:
    """summary.json, intervals.parquet, users.parquet, spec.json: each written atomically."""
    from . import __version__

    out.mkdir(parents=True, exist_ok=True)
    summary = {
        "metrics": report.get("metrics", {}),
        "response": report.get("response", {}),
        "spec": report.get("spec"),
        "seed": report.get("seed"),
        "version": __version__,
        "engine": report.get("engine", {}),
    }
    _atomic.write_json(out / "summary.json", summary)
    _atomic.write_json(out / "spec.json", report.get("spec"))
    if report.get("benchmark") is not None:
        # Guests, terminal-driver sessions and SCHEDULE records (docs/presets/vm370-mft.md).
        _atomic.write_json(out / "benchmark.json", report["benchmark"])
    tables = {
        "intervals": interval_rows(report),
        "users": report.get("users") or [],
        "classes": report.get("classes") or [],
    }
    for name, rows in tables.items():
        if rows:
            _atomic.write_table(out / f"{name}.parquet", rows, "parquet")


def interval_rows(report: Mapping[str, Any]) -> list[dict[str, float]]:
    """The monitor's interval samples as one dict per interval (column names carry no units;
    the units are in the report's `intervals.units`)."""
    table = report.get("intervals") or {}
    columns = table.get("columns", [])
    return [dict(zip(columns, row, strict=True)) for row in table.get("rows", [])]
