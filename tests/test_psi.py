"""Bard's program characterization from the command line and the API."""

from __future__ import annotations

import json

import pytest

import pagelab
from conftest import assert_one_line_error


@pytest.fixture(scope="module")
def sort_trace(tmp_path_factory):
    from pagelab import programs

    path = tmp_path_factory.mktemp("psi") / "t4.pltrace"
    programs.generate("t4-1xqr-star", path, params={"sort": {"items": 800}})
    return path


def test_characteristic_is_monotone_and_adds_up(sort_trace):
    c = pagelab.lab.psi_curve(sort_trace, range(0, 21))
    pts = c["points"]
    assert [p["psi"] for p in pts] == list(range(21))
    a = [p["a"] for p in pts]
    r = [p["r"] for p in pts]
    assert a == sorted(a) and r == sorted(r, reverse=True)
    for p in pts:  # f = R t (Bard 1975, section 4)
        assert p["f"] == pytest.approx(p["r"] * p["t"], rel=1e-9)


def test_prediction_solves_equation_one(sort_trace):
    c = pagelab.lab.psi_curve(sort_trace, range(0, 21))
    frames = int(2 * c["points"][10]["a"])
    p = pagelab.lab.psi_predict([c, c], frames)
    a = {pt["psi"]: pt["a"] for pt in c["points"]}
    lo, hi = int(p["psi_star"]), int(p["psi_star"]) + 1
    # two copies of one program: each holds N / 2 at Ψ*, between its A at the neighbours
    assert 2 * a[lo] <= frames <= 2 * a[hi]
    assert p["paging_rate"] > 0


def test_psi_command_writes_points_and_plot(cli, sort_trace, tmp_path):
    png = tmp_path / "psi.png"
    proc = cli(
        "psi", str(sort_trace), "--psi", "0:12", "--format", "json", "--plot", str(png), check=True
    )
    rows = json.loads(proc.stdout)
    assert [r["psi"] for r in rows] == list(range(13))
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert_one_line_error(cli("psi", str(sort_trace), "--reference-time", "-1"), "reference")


def test_psi_command_draws_figures_5_to_7_for_several_programs(cli, sort_trace, tmp_path):
    png = tmp_path / "fig.png"
    proc = cli(
        "psi",
        *(str(sort_trace),) * 2,
        "--psi",
        "0:8",
        "--format",
        "json",
        "--plot",
        str(png),
        check=True,
    )
    rows = json.loads(proc.stdout)
    # one row per program and Ψ, named by program; the figure holds all four panels
    assert len(rows) == 18 and {r["program"] for r in rows} == {sort_trace.name}
    assert png.read_bytes()[:4] == b"\x89PNG"
    from pagelab import plots

    assert plots._a_at([{"psi": 0, "a": 1.0}, {"psi": 4, "a": 5.0}], 1.0) == 2.0
    assert plots._a_at([{"psi": 0, "a": 1.0}], 3.0) is None
