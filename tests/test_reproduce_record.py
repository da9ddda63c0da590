"""The reproduction record: roles on rows, computed claims, the score."""

from __future__ import annotations

import math

import pytest

from pagelab.reproduce import PER_CENT, Context, Runs, score

BASE = [10.0, 10.0, 10.0]
TREAT = [5.0, 6.0, 7.0]
HALF = 4.302653 / math.sqrt(3)


def test_context_claim_computes_the_verdict_and_the_score_counts_it():
    ctx = Context(name="t", scale="smoke", seed=1, out=None)
    c = ctx.claim(
        "down",
        "halved",
        base=BASE,
        treatment=TREAT,
        kind="difference",
        paper_effect=-5.0,
        evidence="by hand",
        quote="The paper's sentence.",
    )
    assert c["verdict"] == "holds" and c["seeds"] == 3
    assert c["interval"][0] == pytest.approx(-4 - HALF, abs=1e-3)
    ctx.row("T", "a", "Base", [1.0, 1.1, 0.9], paper=1.05, role="fitted")
    ctx.row("T", "a", "Proto", [2.0, 2.0, 2.0], paper=2.1)  # predicted, within 10 %
    ctx.row("T", "b", "Proto", 3.0, paper=4.0)  # predicted, 25 % off: within 25 % only
    ctx.row("T", "c", "Proto", 3.0)  # ours
    s = score(ctx.rows, ctx.claims)
    assert (s["predicted"], s["within_10"], s["within_25"], s["fitted"]) == (2, 1, 2, 1)
    assert s["claims"] == {"holds": 1, "direction-only": 0, "fails": 0, "inconclusive": 0}
    assert s["holds_mean_in_band"] == 1  # -4 in the band of -5 ± 25 %
    assert [r["role"] for r in ctx.rows] == ["fitted", "predicted", "predicted", "ours"]
    assert ctx.rows[0]["pagelab"] == pytest.approx(1.0) and ctx.rows[0]["interval"] is not None


def test_a_row_role_must_be_known():
    ctx = Context(name="t", scale="smoke", seed=1, out=None)
    with pytest.raises(ValueError, match="role"):
        ctx.row("T", "a", "B", 1.0, role="guessed")


FAST = ["belady-anomaly", "unix-swap-interval", "unix-login-control", "psi-table4"]


@pytest.mark.parametrize("name", FAST)
def test_records_follow_the_format(name, tmp_path):
    import pagelab.reproduce as rep
    from pagelab.sweep.paired import VERDICTS

    record = rep.reproduce(name, scale="smoke", out=tmp_path)
    assert record["seeds"] == [1, 2, 3] and "fitted" in record
    assert all(r["role"] in rep.ROLES for r in record["rows"])
    for c in record["claims"]:
        assert c["verdict"] in VERDICTS and c["seeds"] >= 1 and len(c["interval"]) == 2
        assert {"paper_effect", "effect", "evidence"} <= set(c)
    assert set(record["score"]) >= {"predicted", "within_10", "within_25", "claims"}
    counted = sum(record["score"]["claims"].values())
    assert counted + record["score"]["claims_unscored"] == len(record["claims"])
    # Every scored claim carries its paper's sentence.
    assert counted == sum(1 for c in record["claims"] if rep.claim_scored(c))
    # Its runs are in the result store beside the record: a rerun computes none.
    again = rep.reproduce(name, scale="smoke", out=tmp_path)
    assert again["runs"]["computed"] == 0 and again["rows"] == record["rows"]


def test_reproduce_on_workers_gives_the_same_record(cli, tmp_path):
    import json

    for workers in ("1", "2"):
        cli(
            "reproduce",
            "unix-login-control",
            "--workers",
            workers,
            "--out",
            str(tmp_path / workers),
            check=True,
        )
    one, two = (
        json.loads((tmp_path / w / "unix-login-control.json").read_text()) for w in ("1", "2")
    )
    assert one["rows"] == two["rows"] and one["claims"] == two["claims"]


def test_list_shows_the_score_of_the_last_full_run(cli, tmp_path):
    import json

    import pagelab.reproduce as rep

    record = {
        "name": "belady-anomaly",
        "scale": "full",
        "score": {
            "predicted": 6,
            "within_10": 6,
            "within_25": 6,
            "fitted": 0,
            "inputs": 0,
            "claims": {"holds": 3, "direction-only": 0, "fails": 0, "inconclusive": 0},
        },
    }
    (tmp_path / "belady-anomaly.json").write_text(json.dumps(record))
    out = cli("reproduce", "--list", "--out", str(tmp_path), check=True).stdout
    line = next(x for x in out.splitlines() if x.startswith("belady-anomaly:"))
    assert "6 within 10 %" in line and "3 holds" in line
    # Where OUT has no full run, the published record's score (docs/published), if any.
    other = next(x for x in out.splitlines() if x.startswith("hpo-table2:"))
    published = (rep.PUBLISHED / "hpo-table2.json").exists()
    assert ("published record" in other) == published
    assert ("no full run yet" in other) == (not published)


def test_a_reproduction_may_run_more_seeds_at_full_scale(monkeypatch):
    """`FULL_SEEDS` sets the seeds of a full run; `--seeds` still overrides it; smoke keeps 3."""
    import types

    from pagelab import reproduce as rp

    seen = []
    module = types.SimpleNamespace(
        PAPER="p", TITLE="t", FULL_SEEDS=7, run=lambda ctx: seen.append(ctx.seeds)
    )
    monkeypatch.setattr(rp, "_modules", lambda: {"m": module})
    assert rp.reproduce("m", scale="full", seed=3)["seeds"] == [3, 4, 5, 6, 7, 8, 9]
    assert len(rp.reproduce("m", scale="full", seeds=2)["seeds"]) == 2
    assert len(rp.reproduce("m", scale="smoke")["seeds"]) == rp.SEEDS["smoke"]
    assert [len(s) for s in seen] == [7, 2, 3]


def test_publishing_runs_every_reproduction():
    import importlib.util
    from pathlib import Path

    import pagelab.reproduce as rep

    path = Path(__file__).resolve().parents[1] / "scripts" / "publish_records.py"
    spec = importlib.util.spec_from_file_location("publish_records", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert sorted(module.ORDER) == sorted(r["name"] for r in rep.available())


def test_publishing_one_record_keeps_the_others_in_the_scoreboard(tmp_path):
    import importlib.util
    import shutil
    from pathlib import Path

    import pagelab.reproduce as rep

    path = Path(__file__).resolve().parents[1] / "scripts" / "publish_records.py"
    spec = importlib.util.spec_from_file_location("publish_records", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    published = sorted(rep.PUBLISHED.glob("*.json"))
    if len(published) < 2:
        pytest.skip("needs two published records")
    to, results = tmp_path / "published", tmp_path / "results"
    to.mkdir()
    results.mkdir()
    for p in published:
        shutil.copy(p, to / p.name)
    # One record rerun (its copy in results), the others only published.
    shutil.copy(published[0], results / published[0].name)
    records = module.publish(results, to)
    assert len(records) == len(published)
    board = (to / "SCOREBOARD.md").read_text()
    assert all(f"| {p.stem} |" in board for p in published)


def _runs(name: str, unit: str, values: list[float]) -> Runs:
    return Runs([{"metrics": {name: {"value": v, "unit": unit}}} for v in values])


def test_an_interval_of_a_share_stops_at_its_domain():
    # 99, 100, 100 %: mean 99.67, t interval ±1.43, so [98.23, 101.1] before the clip
    busy = _runs("cpu_busy_pct", "%", [99.0, 100.0, 100.0]).metric("cpu_busy_pct")
    assert busy.domain == (0.0, 100.0)
    ctx = Context(name="t", scale="smoke", seed=1, out=None)
    ctx.row("T", "CPU busy", "Base", busy, unit="%")
    lo, hi = ctx.rows[-1]["interval"]
    assert lo == pytest.approx(99.667 - 1.434, abs=0.01) and hi == 100.0
    # a fraction stops at 0 and 1; an explicit domain wins for values computed from metrics
    steal = _runs("steal_ratio", "fraction", [0.0, 0.0, 0.03]).metric("steal_ratio")
    ctx.row("T", "steal ratio", "Base", steal)
    assert steal.domain == (0.0, 1.0) and ctx.rows[-1]["interval"][0] == 0.0
    ctx.row("T", "share computed", "Base", [0.0, 0.0, 3.0], unit="%", domain=PER_CENT)
    assert ctx.rows[-1]["interval"][0] == 0.0 and ctx.rows[-1]["interval"][1] > 3.0
    # no share: PCTRMM in per cent, a difference of shares, a time; their intervals stand
    pctrmm = _runs("pctrmm", "%", [99.0, 100.0, 100.0]).metric("pctrmm")
    assert pctrmm.domain is None
    ctx.row("T", "PCTRMM", "Base", pctrmm, unit="%")
    assert ctx.rows[-1]["interval"][1] > 100.0
    ctx.row("T", "gain", "Base", [b - 1.0 for b in busy], unit="%")
    assert ctx.rows[-1]["interval"][1] > 0.0
    assert _runs("q1_seconds", "s", [1.0]).metric("q1_seconds").domain is None
