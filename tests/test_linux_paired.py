"""The paired comparison of two linux-validation records (docs/readings.md
`linux-adoption-paired`), on records made from the kernel's reference itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pagelab.errors import PagelabError
from pagelab.reproductions import _linux_grid as grid
from pagelab.reproductions import linux_paired as paired
from pagelab.reproductions import linux_validation as val


def _record(path: Path, scale) -> Path:
    """A record whose prediction of each cell is `scale(entry)` times the kernel's median."""
    rows = []
    for entry in val.reference()["cells"]:
        cell = grid.Cell(**entry["cell"])
        rows.append({"table": val.TABLE, "row": val.label(entry), "column": cell.setting,
                     "pagelab": round(scale(entry) * entry["median"]["major_faults"])})  # fmt: skip
    path.write_text(json.dumps({"name": val.NAME, "rows": rows}))
    return path


def _programs_scaled(factor: float):
    return lambda e: factor if grid.Cell(**e["cell"]).kind == "program" else 1.02


def test_a_record_against_itself_moves_nothing(tmp_path):
    rec = _record(tmp_path / "a.json", _programs_scaled(1.04))
    got = paired.compare(rec, rec, draws=200)
    assert len(got["series"]) == 8 and not got["failures"]
    for s in got["series"]:
        assert s["delta"] == s["low"] == s["high"] == 0.0 and not s["worse"] and not s["gone_out"]


def test_a_candidate_farther_from_every_cell_is_worse(tmp_path):
    shipped = _record(tmp_path / "a.json", _programs_scaled(1.03))
    candidate = _record(tmp_path / "b.json", _programs_scaled(1.12))
    got = {s["series"]: s for s in paired.compare(shipped, candidate, draws=400)["series"]
           if s["kind"] == "real programs"}  # fmt: skip
    assert len(got) == 4
    for s in got.values():
        assert s["worse"] and s["low"] > 0 and 7 < s["delta"] < 10, s


def test_one_cell_moved_inside_the_kernel_s_spread_is_not_worse(tmp_path):
    """A series' median moved by one cell is not evidence: the interval spans zero."""
    moved = [e for e in val.reference()["cells"] if grid.Cell(**e["cell"]).kind == "program"][0]
    shipped = _record(tmp_path / "a.json", _programs_scaled(1.03))
    same = (moved["cell"], moved["memory_max"])
    candidate = _record(tmp_path / "b.json", lambda e: 1.06 if (e["cell"], e["memory_max"]) == same
                        else _programs_scaled(1.03)(e))  # fmt: skip
    series = next(s for s in paired.compare(shipped, candidate, draws=400)["series"]
                  if s["kind"] == "real programs" and s["low"] != s["high"])  # fmt: skip
    assert not series["worse"] and series["low"] <= 0 <= series["high"]


def test_a_cell_the_candidate_cannot_replay_is_named(tmp_path):
    shipped = _record(tmp_path / "a.json", _programs_scaled(1.0))
    rec = json.loads(shipped.read_text())
    entry = next(e for e in val.reference()["cells"] if grid.Cell(**e["cell"]).kind == "program"
                 and not sum(e["runs"].get("oom_killed", [])))  # fmt: skip
    first = {"row": val.label(entry), "column": grid.Cell(**entry["cell"]).setting}
    rec["rows"].append({"table": "killed", "row": first["row"], "column": first["column"],
                        "pagelab": 1})  # fmt: skip
    candidate = tmp_path / "b.json"
    candidate.write_text(json.dumps(rec))
    got = paired.compare(shipped, candidate, draws=100)
    assert got["failures"] == [f"{first['row']} ({first['column']})"]


def test_a_file_that_is_no_record_names_itself(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(PagelabError, match=r"bad\.json: not a readable linux-validation record"):
        paired.compare(bad, bad)
    with pytest.raises(PagelabError, match="--draws 5"):
        paired.compare(bad, bad, draws=5)


def test_the_kernels_effect_interval_spans_its_runs_resampled():
    """`linux_validation.effect_interval`: the ratio of two cells' medians, less one, over
    resamples of their runs; a cell that never moves gives its one effect."""
    assert val.effect_interval([20.0] * 5, [10.0] * 5) == (1.0, 1.0)
    # Two runs resample to medians 10, 20 or 30: effects 0, 1 and 2 against a base of 10.
    assert val.effect_interval([10.0, 30.0], [10.0]) == (0.0, 2.0)
    assert val.effect_interval([10.0, 30.0], [10.0]) == val.effect_interval([10.0, 30.0], [10.0])


def test_a_later_session_is_scored_as_the_reference_is(monkeypatch, tmp_path):
    """`linux_validation._later_session`: each cell's median and widened range over the later
    session's runs, beside that session's shift from the reference; a cell with a killed run
    in that session is left out."""
    from pagelab.linux import tlb_paired
    from pagelab.reproductions import linux_validation as val

    sort = {"program": "sort", "level": 200, "kernel": "6.1", "lru_gen": False}
    gzip = {**sort, "program": "gzip"}
    runs = [{"cell": sort, "major_faults": f, "killed": 0} for f in (90, 100, 110)]
    runs += [{"cell": gzip, "major_faults": f, "killed": k} for f, k in ((50, 0), (0, 1))]
    path = tmp_path / "last.json"
    path.write_text(json.dumps({"runs": runs}))
    monkeypatch.setattr(tlb_paired, "RECORD_LAST", path)
    assert set(val.later_runs()) == {json.dumps(sort, sort_keys=True)}
    rows = []
    ctx = type("Ctx", (), {"row": lambda self, *a, **k: rows.append((a[1], a[3]))})()
    chosen = [{"cell": sort, "median": {"major_faults": 80}, "range": {"major_faults": [70, 90]}}]
    val._later_session(ctx, chosen, {json.dumps(sort, sort_keys=True): 120})
    got = {what.split(": ", 1)[1][:20]: value for what, value in rows}
    # The replay's 120 against the session's median 100 (range 90-110, widened 76.5-126.5);
    # the session's 100 against the reference's 80 (70-90 widened to 59.5-103.5).
    assert got == pytest.approx(
        {
            "median |error| of pa": 20.0,
            "cells inside the ses": 100.0,
            "median |shift| of th": 25.0,
            "the session's median": 100.0,
        }
    )


def test_the_summary_gives_the_errors_sign_beside_their_size():
    """`linux_validation._summary`: errors of one sign have a median |error| and a median
    signed error of the same size; the share below the kernel counts the negative ones."""
    from collections import Counter

    from pagelab.reproductions import linux_validation as val

    rows = []
    ctx = type("Ctx", (), {"row": lambda self, *a, **k: rows.append((a[1], a[2], a[3]))})()
    errors = {("real programs", "6.1 two-list"): [(-0.04, True), (-0.02, True), (0.01, False)]}
    val._summary(ctx, errors, Counter())
    got = {what.split(": ", 1)[1][:22]: value for what, _, value in rows}
    assert got == pytest.approx(
        {
            "median |error| against": 2.0,
            "cells inside the kerne": 100 * 2 / 3,
            "cells the kernel runs ": 0,
            "median signed error (p": -2.0,
            "cells where pagelab is": 100 * 2 / 3,
        }
    )
