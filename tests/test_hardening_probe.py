"""A fuzz-style probe of the newer surfaces: sweep grids and seeds, calibration targets and
`--vary` ranges, records for the report, and `--set` values on every system kind. Every input
must give a result or a PagelabError (a ValueError) with a one-line message: no other
exception, no panic, no hang. The cases the probe found when it was first run are kept as
fixed regression cases beside the generated ones (tests/test_hardening_bounds.py,
test_hardening_outputs.py, test_hardening_store.py and test_hardening_signals.py hold the
rest).
"""

from __future__ import annotations

import copy
import faulthandler
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pagelab
from pagelab import calibrate as cal
from pagelab import system
from pagelab.errors import PagelabError
from pagelab.report import records

HANG_S = 60
SHORT = ["run.duration_s=20", "run.warmup_s=5"]


@pytest.fixture(autouse=True)
def _hang_guard() -> Any:
    faulthandler.dump_traceback_later(HANG_S, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def _clean(fn: Any) -> str:
    """'ok' or 'error'; any exception other than a one-line PagelabError fails the test."""
    try:
        fn()
    except PagelabError as e:
        assert "\n" not in str(e), str(e)
        return "error"
    return "ok"


NUMBERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, 1, -1, 1e-300, 1e300, 2**63, 2**64]),
)
AXIS_TEXT = st.one_of(
    st.builds(lambda a, b, c: f"{a}:{b}:{c}", NUMBERS, NUMBERS, NUMBERS),
    st.lists(NUMBERS.map(repr), min_size=0, max_size=4).map(",".join),
    st.text(max_size=20),
)
KEYS = st.sampled_from(
    ["workload.users", "memory.frames", "run.warmup_s", "cpu.count", "no.such", "", "a..b"]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=KEYS, text=AXIS_TEXT, seeds=st.one_of(NUMBERS, st.none(), st.text(max_size=4)))
def test_any_grid_and_seeds_plan_or_give_one_error(key: str, text: str, seeds: Any) -> None:
    # Only the plan: it makes every check a run would, and must do so quickly for any input.
    _clean(lambda: pagelab.sweep.plan("vm370", grid=[f"{key}={text}"], seeds=seeds, set=SHORT))


@settings(max_examples=60, deadline=None)
@given(
    grid=st.one_of(
        st.dictionaries(KEYS, st.one_of(NUMBERS, st.lists(NUMBERS, max_size=3)), max_size=2),
        st.lists(st.text(max_size=12), max_size=2),
        NUMBERS,
    )
)
def test_any_python_grid_plans_or_gives_one_error(grid: Any) -> None:
    _clean(lambda: pagelab.sweep.plan("vm370", grid=grid, set=SHORT))


TARGET_VALUES = st.one_of(NUMBERS, st.text(max_size=8), st.booleans(), st.just([1, 2]))


@settings(max_examples=120, deadline=None)
@given(
    metric=st.one_of(st.text(max_size=10), NUMBERS),
    value=TARGET_VALUES,
    weight=TARGET_VALUES,
    sets=st.one_of(st.lists(st.text(max_size=10), max_size=2), TARGET_VALUES),
    raw=st.binary(max_size=64),
)
def test_any_target_file_loads_or_gives_one_error(
    tmp_path_factory: pytest.TempPathFactory,
    metric: Any,
    value: Any,
    weight: Any,
    sets: Any,
    raw: bytes,
) -> None:
    from pagelab import tomlout

    d = tmp_path_factory.mktemp("target")
    point = {"metric": metric, "value": value, "weight": weight, "set": sets}
    try:
        text = tomlout.dumps({"point": [point]})
    except (ValueError, TypeError):
        text = "[[point]]\n"
    (d / "t.toml").write_text(text)
    _clean(lambda: cal.load_target(d / "t.toml"))
    (d / "b.toml").write_bytes(raw)
    _clean(lambda: cal.load_target(d / "b.toml"))


@settings(max_examples=80, deadline=None)
@given(arg=st.one_of(st.text(max_size=24), AXIS_TEXT.map(lambda t: f"workload.users={t}")))
def test_any_vary_parses_or_gives_one_error(arg: str) -> None:
    _clean(lambda: cal.parse_vary(arg))


def _record() -> dict[str, Any]:
    return {
        "name": "probe",
        "paper": "Probe 1970",
        "title": "A probe",
        "scale": "smoke",
        "seeds": [1, 2],
        "rows": [
            {"table": "t", "row": "r", "column": "c", "paper": 1.0, "pagelab": 1.1, "unit": "s"}
        ],
        "claims": [{"text": "it holds", "verdict": "holds"}],
        "notes": ["a note"],
    }


EXTREMES = st.sampled_from(
    [1e308, -1e308, 1e16, "x" * 200_000, None, [], {}, [[[]]], True, "", -1, 2**70]
)


def _leaves(v: Any, path: tuple = ()) -> list[tuple]:
    if isinstance(v, dict):
        return [p for k, x in v.items() for p in _leaves(x, (*path, k))] or [path]
    if isinstance(v, list):
        return [p for i, x in enumerate(v) for p in _leaves(x, (*path, i))] or [path]
    return [path]


@pytest.fixture(scope="module")
def record_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A record's file (its date is the file's when the record gives none)."""
    path = tmp_path_factory.mktemp("record") / "probe.json"
    path.write_text(json.dumps(_record()))
    return path


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_damaged_record_parses_or_gives_one_error(
    record_file: Path, data: st.DataObject
) -> None:
    raw = copy.deepcopy(_record())
    for _ in range(data.draw(st.integers(min_value=1, max_value=3))):
        leaves = _leaves(raw)
        path = data.draw(st.sampled_from(leaves))
        if not path:
            continue
        cur = raw
        for p in path[:-1]:
            cur = cur[p]
        cur[path[-1]] = copy.deepcopy(data.draw(EXTREMES))  # never one object twice
    r = None

    def parse() -> None:
        nonlocal r
        r = records.parse(record_file, raw)

    if _clean(parse) == "ok":
        numbers = [x for row in r.rows for x in (row.paper, row.pagelab) if x is not None]
        assert all(math.isfinite(x) and abs(x) <= records.MAX_MAGNITUDE for x in numbers)
        assert len(r.title) <= records.MAX_TEXT


def test_records_found_by_the_probe_end_in_one_line(tmp_path: Path) -> None:
    # A 5 MB title, values of ±1e308, and JSON nested 100,000 deep: each used to end in a
    # traceback (matplotlib's image size, NumPy's arange, RecursionError).
    cases = {
        "title": {**_record(), "title": "t" * 5_000_000},
        "huge": {**_record(), "rows": [{**_record()["rows"][0], "paper": 1e308}]},
        "tiny": {**_record(), "rows": [{**_record()["rows"][0], "pagelab": -1e308}]},
    }
    for name, rec in cases.items():
        d = tmp_path / name
        d.mkdir()
        (d / "r.json").write_text(json.dumps(rec))
        with pytest.raises(PagelabError):
            records.load(d)
    deep = tmp_path / "deep"
    deep.mkdir()
    (deep / "r.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(PagelabError, match="nested too deeply"):
        records.load(deep)


SPAN_KEYS = {
    "vm370": ["cpu.supervisor.fault_us", "paging.sio_overhead_ms", "run.duration_s"],
    "unix-v6": ["machine.switch_us", "run.duration_s"],
    "m44": ["disk.pull_s", "machine.time_slice_s", "machine.memory_us"],
}


@settings(max_examples=80, deadline=None)
@given(
    spec=st.sampled_from(sorted(SPAN_KEYS)),
    data=st.data(),
    value=st.one_of(NUMBERS, st.sampled_from(["1e17", "1e-12", "-0.0", "inf", "nan", "x"])),
)
def test_any_time_on_any_system_is_checked_at_load(spec: str, data: Any, value: Any) -> None:
    key = data.draw(st.sampled_from(SPAN_KEYS[spec]))
    _clean(lambda: system.check(spec, overrides=[f"{key}={value}"]))
