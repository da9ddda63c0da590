"""The lists at each reclaim and 6.12's MGLRU generations step by step (`linux.lru_kprobes`,
`linux.lru_probe`): the kernel's kprobe lines read as the replay's events, and the two set side
by side."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pagelab import linux
from pagelab.errors import PagelabError
from pagelab.linux import lru_kprobes, lru_probe, reclaim_events

_PID = "        replayer-140     [000] .....     6.565174: "


def _gen(kind: str, fn: str, fields: str, sizes: dict[int, int], mx: int | None = None) -> str:
    """A kprobe line as the guest prints it: `sizes` maps a generation's slot (seq % 4) to its
    pages in zone 1 (DMA32, where the guest's pages lie)."""
    n = " ".join(f"n{g}{z}={sizes.get(g, 0) if z == 1 else 0}" for g in range(4) for z in range(3))
    return (
        f"{_PID}mglru_{kind}: ({fn}+0x0/0x2c0) {fields} mx={mx if mx else fields_max(fields)} {n}"
    )


def fields_max(fields: str) -> str:
    return dict(kv.split("=") for kv in fields.split())["max"]


def _text(lines: list[str]) -> str:
    return "[replay]\n" + reclaim_events.SECTION + "\n" + "\n".join(lines) + "\n"


KERNEL = [
    _PID + "mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_HIGHUSER_MOVABLE",
    _gen("shrink", "try_to_shrink_lruvec", "prio=12 max=3 mn=0", {2: 2, 3: 27}),
    _gen("shrink", "try_to_shrink_lruvec", "prio=3 max=3 mn=2", {2: 2, 3: 27}),
    _gen("age", "try_to_inc_max_seq", "max=3 mn=2", {2: 2, 3: 27}),
    _gen("evict", "evict_folios", "prio=2 max=4 mn=2", {2: 1, 3: 28, 0: 0}),
    _PID + "mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=0 nr_reclaimed=29 nr_dirty=0 "
    "nr_writeback=0 nr_congested=0 nr_immediate=0 nr_activate_anon=0 nr_activate_file=0 "
    "nr_ref_keep=0 nr_unmap_fail=0 priority=2 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC",
    _PID + "mm_vmscan_memcg_reclaim_end: nr_reclaimed=29",
]


def test_the_kernels_generations_are_read_as_the_replays_events():
    got = reclaim_events.parse(_text(KERNEL))
    # The reclaim's first read of its lists gives its lru_pages, before that step.
    assert got[:2] == [{"event": "reclaim_begin"}, {"event": "lru_pages", "pages": 29}]
    gens = [e for e in got if e["event"] == "generations"]
    assert gens == [
        {"event": "generations", "at": "shrink", "priority": 12, "min_seq": 0, "max_seq": 3,
         "sizes": [0, 0, 2, 27]},
        {"event": "generations", "at": "shrink", "priority": 3, "min_seq": 2, "max_seq": 3,
         "sizes": [2, 27]},
        # try_to_inc_max_seq has no scan_control: the last shrink's priority.
        {"event": "generations", "at": "age", "priority": 3, "min_seq": 2, "max_seq": 3,
         "sizes": [2, 27]},
        {"event": "generations", "at": "evict", "priority": 2, "min_seq": 2, "max_seq": 4,
         "sizes": [1, 28, 0]},
    ]  # fmt: skip
    assert [e["event"] for e in got][-2:] == ["shrink_inactive", "reclaim_end"]
    assert reclaim_events.summary(got)["reclaimed"] == 29
    # max_seq by BTF and by offset disagree: the offsets are not this kernel's.
    bad = _gen("shrink", "try_to_shrink_lruvec", "prio=12 max=3 mn=0", {3: 1}, mx=7)
    with pytest.raises(PagelabError, match="offsets do not fit this kernel"):
        reclaim_events.parse(_text([KERNEL[0], bad]))


def _lists(ia: int, aa: int, dma: int = 0) -> str:
    return (f"{_PID}lru_lists: (isolate_lru_folios+0x0/0x3d0) d0={dma} d1=0 ia={ia} "
            f"aa={aa}")  # fmt: skip


def test_the_two_lists_are_counted_at_each_reclaims_first_isolation():
    begin, end = KERNEL[0], KERNEL[-1]
    got = reclaim_events.parse(_text([begin, _lists(30, 1), _lists(3, 1), end, begin,
                                      _lists(28, 2), end]))  # fmt: skip
    assert [e["pages"] for e in got if e["event"] == "lru_pages"] == [31, 30]
    assert lru_probe.lru_pages(got) == [31, 30]
    with pytest.raises(PagelabError, match="two lists' offsets do not fit"):
        reclaim_events.parse(_text([begin, _lists(30, 1, dma=5)]))


def test_the_lists_kprobes_go_on_only_when_asked():
    for series, lru_gen, names in (("6.12", True, ["mglru_shrink", "mglru_evict", "mglru_age"]),
                                   ("6.1", True, ["mglru_lists"]), ("6.12", False, ["lru_lists"]),
                                   ("6.1", False, ["lru_lists"])):  # fmt: skip
        probes = lru_kprobes.kprobes(series, lru_gen)
        assert [p.split()[0].split(":")[1] for p in probes] == names
        on = "\n".join(reclaim_events.guest_on(lists=probes))
        assert all(f"echo '{probe}' >> " in on for probe in probes)
    assert "lru_lists" in reclaim_events.guest_dump(lists=True)[-1]
    assert "kprobe_events" not in "\n".join(reclaim_events.guest_on())
    assert "mglru" not in reclaim_events.guest_dump()[-1]
    # The offsets: nr_pages[1][0][1] (generation 1, anon, DMA32) sits 8 x ((1*2+0)*5+1) bytes
    # past nr_pages[0][0][0]; lru_zone_size[1][LRU_INACTIVE_ANON] 8 x 5 past [0][0].
    assert f"n11=+{lru_kprobes.NR_PAGES + 88}(%di):s64" in lru_kprobes.kprobes("6.12", True)[0]
    assert "ia=+1640(%si)" in lru_kprobes.kprobes("6.12", False)[0]
    assert "ia=+2328(%si)" in lru_kprobes.kprobes("6.1", False)[0]


def test_6_1s_mglru_lists_are_read_at_its_evictions():
    # Generations 4-6 (slots 0-2), no BTF max_seq to check against.
    line = _gen("lists", "evict_folios", "mn=4", {0: 3, 1: 25, 2: 2}, mx=6)
    got = reclaim_events.parse(_text([KERNEL[0], line, KERNEL[-1]]))
    assert got == [{"event": "reclaim_begin"}, {"event": "lru_pages", "pages": 30},
                   {"event": "reclaim_end", "reclaimed": 29}]  # fmt: skip
    bad = _gen("lists", "evict_folios", "mn=4", {0: 3}, mx=9)
    with pytest.raises(PagelabError, match="generations' offsets do not fit"):
        reclaim_events.parse(_text([KERNEL[0], bad]))


def _events(steps: list[tuple[str, int, list[int]]], reclaims: int = 1) -> list[dict]:
    out: list[dict] = []
    for _ in range(reclaims):
        out.append({"event": "reclaim_begin"})
        out.append({"event": "lru_pages", "pages": sum(steps[0][2])})
        out += [{"event": "generations", "at": a, "priority": p, "min_seq": 0,
                 "max_seq": len(s) - 1, "sizes": s} for a, p, s in steps]  # fmt: skip
        out.append({"event": "reclaim_end", "reclaimed": 0})
    return out


def test_the_kernels_steps_beside_the_replays():
    k = _events([("shrink", 12, [0, 0, 2, 27]), ("evict", 4, [0, 0, 2, 27])], reclaims=2)
    same = lru_probe.compare(k, k)
    assert same["matching_reclaims"] == 2 and same["first_difference"] is None
    assert same["lru_pages_median"] == {"kernel": 29, "replay": 29}
    assert same["kernel_less_replay_median"] == 0
    r = _events([("shrink", 12, [0, 0, 2, 27]), ("evict", 5, [0, 0, 2, 27])], reclaims=3)
    got = lru_probe.compare(k, r)
    assert got["reclaims"] == {"kernel": 2, "replay": 3}
    assert got["first_difference"] == {"reclaim": 0, "step": 1,
                                       "kernel": ("evict", 4, (0, 0, 2, 27)),
                                       "replay": ("evict", 5, (0, 0, 2, 27))}  # fmt: skip
    # One side's reclaim stops short: the other's next step against None.
    short = _events([("shrink", 12, [0, 0, 2, 27])])
    assert lru_probe.first_difference(lru_probe.reclaims(short), lru_probe.reclaims(k)) == {
        "reclaim": 0, "step": 1, "kernel": None, "replay": ("evict", 4, (0, 0, 2, 27))}  # fmt: skip
    with pytest.raises(PagelabError, match="reported no lists"):
        lru_probe.compare([{"event": "reclaim_begin"}], r)


def test_the_replay_records_6_12s_generations(tmp_path):
    """6.12's replay records its generations at each step and each reclaim's pages on the
    lists (its first shrink's); 6.1's two lists record their pages and no generations. That
    recording changes no counter is Rust's `reclaim_events_add_up_to_the_counters`."""
    trace = tmp_path / "loop.u64"
    np.tile(np.arange(300, dtype=np.uint64), 6).tofile(trace)
    path = tmp_path / "e.jsonl"
    rec = linux.predict(trace, kernel="6.12", memory_max="1M", lru_gen="on",
                        reclaim_events=path)  # fmt: skip
    steps = [json.loads(x) for x in path.read_text().splitlines()]
    gens = [e for e in steps if e["event"] == "generations"]
    assert rec["reclaims"] > 0 and {e["at"] for e in gens} == {"shrink", "age", "evict"}
    assert all(len(e["sizes"]) == e["max_seq"] - e["min_seq"] + 1 <= 4 for e in gens)
    first = lru_probe.reclaims(steps)
    assert len(first) == rec["reclaims"] and all(r and r[0][0] == "shrink" for r in first)
    # Each reclaim's lru_pages is its first shrink's pages.
    assert lru_probe.lru_pages(steps) == [sum(r[0][2]) for r in first]
    assert rec["reclaim_events"]["reclaimed"] == rec["pswpout"]
    rec = linux.predict(trace, kernel="6.1", memory_max="1M", lru_gen="off", reclaim_events=path)
    steps = [json.loads(x) for x in path.read_text().splitlines()]
    assert not [e for e in steps if e["event"] == "generations"]
    assert len(lru_probe.lru_pages(steps)) == rec["reclaims"]


def test_the_probe_command_refuses_a_bad_cell(capsys):
    for bad in ("sort", "sort:5000:on", "sort:5000:6.2:on", "sort:5000:6.12:maybe"):
        with pytest.raises(SystemExit):
            lru_probe.main([bad])
        assert "expected program:level:6.1|6.12:on|off" in capsys.readouterr().err


def _run(cell: str, diff: float | None) -> dict:
    return {"cell": cell, "kernel_less_replay_median": diff}


def test_the_offsets_are_the_medians_of_the_cells_rounded_half_away():
    runs = [_run("sort:5000:6.12:off", -1), _run("gzip:5000:6.12:off", -2),
            _run("sort:5000:6.12:on", -1.5), _run("gzip:5000:6.12:on", -2.5),
            _run("bzip2:200:6.12:on", -2), {"cell": "python:20000:6.12:off", "error": "x"},
            _run("sort:5000:6.1:off", 0.5)]  # fmt: skip
    # 6.12: two lists median(-1, -2) = -1.5 -> -2; MGLRU median(-1.5, -2.5, -2) = -2.
    # 6.1 has one list probed: left out.
    assert lru_probe.offsets(runs) == {"6.12": {"mglru": -2, "two_list": -2}}
    assert [lru_probe._round(x) for x in (-0.5, 0.5, 0.4, -1.49)] == [-1, 1, 0, -1]


def test_the_offsets_go_into_overhead_json_and_the_limit(tmp_path, monkeypatch):
    from pagelab.linux import prediction

    record, over = tmp_path / "probe.json", tmp_path / "overhead.json"
    record.write_text(json.dumps({"runs": [_run("a:1:6.12:off", -1), _run("a:1:6.12:on", -2)]}))
    over.write_text(prediction.OVERHEAD_FILE.read_text())
    assert lru_probe.write_offsets(record, over) == {"6.12": {"mglru": -2, "two_list": -1}}
    assert json.loads(over.read_text())["lists_offset_pages"]["6.12"]["mglru"] == -2
    record.write_text(json.dumps({"runs": [_run("a:1:6.12:off", -1)]}))
    with pytest.raises(PagelabError, match="no series with both lists probed"):
        lru_probe.write_offsets(record, over)
    # The prediction's limit takes the measured pages with the option, and only then.
    monkeypatch.setattr(prediction, "OVERHEAD_FILE", over)
    trace = tmp_path / "loop.u64"
    np.tile(np.arange(300, dtype=np.uint64), 6).tofile(trace)
    kw = {"kernel": "6.12", "memory_max": "1M", "lru_gen": "on"}
    base, less = linux.predict(trace, **kw), linux.predict(trace, **kw, lists_offset=True)
    assert less["frames"] == base["frames"] - 2
    assert less["major_faults"] != base["major_faults"]
    assert linux.predict(trace, **kw, lists_offset=False) == base
