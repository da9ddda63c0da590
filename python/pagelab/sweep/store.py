"""The content-addressed result store: one Parquet file per run, named by the run's key.

```
DIR/runs/<sha256>.parquet     one row: key, spec, seed, the swept keys, every metric, version,
                              the resolved spec and the whole report as JSON
DIR/runs/_<sha256>.sha256     the sha256 of that file's bytes, in hex (the `_` keeps it out of
                              a reader's view of the folder as a dataset, as Arrow ignores it)
```
A file appears by rename of a finished temporary file (`.<name>.*.tmp`, ignored by readers and by
`*.parquet` globs), so a reader sees a whole run or none; a present key is never recomputed.
Every read checks the run's bytes against its checksum, written before the run file appears:
a changed byte anywhere in the file (a flipped bit in a column name or in the report's JSON
would otherwise read back as a valid run) is named as a mismatch, and `--repair` computes such
a run again.
Two sweeps into one DIR at once can only race to write the same bytes under the same name. The
directory is a dataset as it stands: `duckdb -c "select ... from 'DIR/runs/*.parquet'"`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .. import _atomic
from ..errors import PagelabError
from .spec import is_finite_number

RUNS = "runs"
KEY_FILE = re.compile(r"^[0-9a-f]{64}\.parquet$")
SUM_FILE = re.compile(r"^_[0-9a-f]{64}\.sha256$")
#: Columns every run has, in this order before the swept keys and the metrics.
HEAD = ("key", "spec", "seed")
#: Columns after the metrics: identity and provenance, not numbers to analyse.
TAIL = ("version", "spec_json", "report")


class Store:
    """A result directory. Nothing is created until the first run is written."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.runs = self.root / RUNS
        # Files this object has already found to be runs: a search that checks the store once
        # per batch of trials reads the schema of each file once, not once per batch.
        self._checked: set[str] = set()
        #: The runs the last `check(repair=True)` deleted, each with what was wrong.
        self.repaired: list[str] = []

    def check(self, repair: bool = False) -> set[str]:
        """The keys present; a one-line error naming the first foreign or corrupt file. With
        `repair`, a corrupt run or one whose bytes fail their checksum is deleted instead (and
        so computed again), each named in :attr:`repaired`."""
        self.repaired: list[str] = []
        if self.root.exists() and not self.root.is_dir():
            raise PagelabError(f"{self.root}: not a directory (expected a result store)")
        if not self.root.is_dir():
            return set()
        for entry in sorted(self.root.iterdir()):
            if entry.name != RUNS and not entry.name.startswith("."):
                raise PagelabError(
                    f"{entry}: foreign file in a result store (expected only {RUNS}/)"
                )
        if not self.runs.is_dir():
            return set()
        import pyarrow.parquet as pq

        keys = set()
        for entry in sorted(self.runs.iterdir()):
            if entry.name.startswith(".") or SUM_FILE.match(entry.name):
                continue  # a writer's temporary file, live or killed; a checksum
            if not KEY_FILE.match(entry.name):
                raise PagelabError(
                    f"{entry}: foreign file in a result store (expected KEY.parquet)"
                )
            key = entry.name.removesuffix(".parquet")
            if key not in self._checked:
                if not self.sum_path(key).exists():
                    continue  # written before runs carried a checksum: made again if asked for
                problem = self.problem(key, schema=pq.read_schema)
                if problem is not None and repair:
                    self.remove(key)
                    self.repaired.append(f"{entry}: {problem}")
                    continue
                if problem is not None:
                    raise PagelabError(f"{entry}: {problem}; delete it, or rerun with --repair")
                self._checked.add(key)
            keys.add(key)
        self._checked &= keys
        return keys

    def sum_path(self, key: str) -> Path:
        return self.runs / f"_{key}.sha256"

    def problem(self, key: str, schema: Any = None) -> str | None:
        """What is wrong with the stored run `key` (its bytes against its checksum, and, given
        `schema` (a reader of a file's schema), its columns), or None."""
        path = self.path(key)
        try:
            data = path.read_bytes()
            expected = self.sum_path(key).read_text().strip()
        except FileNotFoundError:
            return "no checksum beside it (written before runs carried one, or cut short)"
        except (OSError, UnicodeDecodeError) as e:
            return f"unreadable ({_one_line(e)})"
        if hashlib.sha256(data).hexdigest() != expected:
            return "corrupt run (checksum mismatch: its bytes changed after it was written)"
        if schema is not None:
            try:
                names = schema(path).names
            except Exception as e:
                return f"corrupt run ({_one_line(e)})"
            if "key" not in names or "report" not in names:
                return "not a pagelab run (no key or report column)"
        return None

    def remove(self, key: str) -> None:
        """Deletes a run and its checksum (a corrupt run, to be computed again)."""
        for p in (self.path(key), self.sum_path(key)):
            p.unlink(missing_ok=True)
        self._checked.discard(key)

    def path(self, key: str) -> Path:
        return self.runs / f"{key}.parquet"

    def write(self, row: dict[str, Any], units: dict[str, str]) -> None:
        """Writes one run atomically; the units go in the columns' metadata."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        fields = []
        for name, value in row.items():
            kind = _arrow_type(name, value)
            meta = {"unit": units[name]} if units.get(name) else None
            fields.append(pa.field(name, kind, metadata=meta))
        table = pa.Table.from_pylist([row], schema=pa.schema(fields))
        key = row["key"]
        with _atomic.atomic_path(self.path(key)) as tmp:
            pq.write_table(table, tmp)
            # The checksum first: a run file never appears without the sum it is read against.
            _atomic.write_text(self.sum_path(key), hashlib.sha256(tmp.read_bytes()).hexdigest())

    def read(self, keys: Iterable[str]) -> list[dict[str, Any]]:
        """The rows of `keys`, in that order."""
        import pyarrow.parquet as pq

        rows = []
        for key in keys:
            path = self.path(key)
            problem = self.problem(key)
            if problem is not None:
                raise PagelabError(f"{path}: {problem}; delete it, or rerun with --repair")
            try:
                # ParquetFile, not read_table: the latter goes through pyarrow.dataset, whose
                # import and per-file set-up made a fully stored sweep several times slower.
                row = pq.ParquetFile(path).read().to_pylist()[0]
            except Exception as e:
                raise PagelabError(
                    f"{path}: corrupt run ({_one_line(e)}); delete it, or rerun with --repair"
                ) from None
            if row.get("key") != key:
                raise PagelabError(f"{path}: holds run {row.get('key')!r}, not {key!r}")
            rows.append(row)
        return rows


def _arrow_type(name: str, value: Any) -> Any:
    import pyarrow as pa

    if name in ("key", "spec", *TAIL):
        return pa.string()
    if name == "seed":
        return pa.int64()
    if isinstance(value, bool):
        return pa.bool_()
    if isinstance(value, int):
        return pa.int64()
    if isinstance(value, str):
        return pa.string()
    return pa.float64()  # metrics, None included: one type for a column across runs


def run_row(
    key: str, point: Any, seed: int, params: dict[str, Any], report: dict[str, Any], version: str
) -> tuple[dict[str, Any], dict[str, str]]:
    """The stored row of one finished run, and the units of its metric columns."""
    row: dict[str, Any] = {"key": key, "spec": point.name, "seed": seed}
    row.update(params)
    units = {}
    for name, m in (report.get("metrics") or {}).items():
        if name in row or name in TAIL:
            continue
        v = m.get("value") if isinstance(m, dict) else m
        row[name] = float(v) if is_finite_number(v) else None
        units[name] = m.get("unit", "") if isinstance(m, dict) else ""
    row["version"] = version
    row["spec_json"] = point.tree_json
    row["report"] = json.dumps(report, sort_keys=True)
    return row, units


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__
