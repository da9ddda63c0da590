"""Reproductions at smoke scale: the record is complete and its claims are computed."""

from __future__ import annotations

import json

import pagelab.reproduce as rep


def test_every_reproduction_is_listed():
    names = {r["name"] for r in rep.available()}
    assert {"belady-anomaly", "m44-single"} <= names


def test_m44_single_smoke_record(tmp_path):
    record = rep.reproduce("m44-single", scale="smoke", seed=2, out=tmp_path)
    saved = json.loads((tmp_path / "m44-single.json").read_text())
    assert saved["rows"] == record["rows"] and saved["scale"] == "smoke"
    claims = {c["id"]: c for c in record["claims"]}
    assert claims["programs-compute"]["holds"], claims["programs-compute"]["evidence"]
    # the casual keysort degrades as soon as it loses a little store, at any scale
    assert claims["t4-casual-degrades"]["holds"], claims["t4-casual-degrades"]["evidence"]
    pages = {r["row"]: r["pagelab"] for r in record["rows"] if r["column"] == "pages"}
    assert len(pages) == 9 and all(p > 0 for p in pages.values())
    assert len(record["figures"]) == 3


def test_same_seed_same_record(tmp_path):
    a = rep.reproduce("m44-single", scale="smoke", seed=4)
    b = rep.reproduce("m44-single", scale="smoke", seed=4)
    assert a["rows"] == b["rows"] and a["claims"] == b["claims"]
