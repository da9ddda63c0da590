"""The content-addressed result store: one Parquet file per run, named by the run's key.

```
DIR/runs/<sha256>.parquet     one row: key, spec, seed, the swept keys, every metric, version,
                              the resolved spec and the whole report as JSON
```
A file appears by rename of a finished temporary file (`.<name>.*.tmp`, ignored by readers and by
`*.parquet` globs), so a reader sees a whole run or none; a present key is never recomputed.
Two sweeps into one DIR at once can only race to write the same bytes under the same name. The
directory is a dataset as it stands: `duckdb -c "select ... from 'DIR/runs/*.parquet'"`.
"""

from __future__ import annotations

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

    def check(self) -> set[str]:
        """The keys present; a one-line error naming the first foreign or corrupt file."""
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
            if entry.name.startswith("."):
                continue  # a temporary file of a writer, live or killed
            if not KEY_FILE.match(entry.name):
                raise PagelabError(
                    f"{entry}: foreign file in a result store (expected KEY.parquet)"
                )
            key = entry.name.removesuffix(".parquet")
            if key not in self._checked:
                try:
                    schema = pq.read_schema(entry)
                except Exception as e:
                    raise PagelabError(
                        f"{entry}: corrupt run ({_one_line(e)}); delete it"
                    ) from None
                if "key" not in schema.names or "report" not in schema.names:
                    raise PagelabError(f"{entry}: not a pagelab run (no key or report column)")
                self._checked.add(key)
            keys.add(key)
        self._checked &= keys
        return keys

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
        with _atomic.atomic_path(self.path(row["key"])) as tmp:
            pq.write_table(table, tmp)

    def read(self, keys: Iterable[str]) -> list[dict[str, Any]]:
        """The rows of `keys`, in that order."""
        import pyarrow.parquet as pq

        rows = []
        for key in keys:
            path = self.path(key)
            try:
                # ParquetFile, not read_table: the latter goes through pyarrow.dataset, whose
                # import and per-file set-up made a fully stored sweep several times slower.
                row = pq.ParquetFile(path).read().to_pylist()[0]
            except Exception as e:
                raise PagelabError(f"{path}: corrupt run ({_one_line(e)}); delete it") from None
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
