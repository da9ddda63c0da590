"""The diagnostic kprobes (`linux.diag_kprobes`, `lru_probe --with`): which probes each set
sets per series, how their lines read back, and their errors."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pagelab.errors import PagelabError
from pagelab.linux import diag_kprobes, guest

TEXT = """\
 r-1 [000] ..... 3.9100: dg_flush: (cgroup_rstat_flush+0x4/0x80)
 r-1 [000] .N... 3.9220: mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_HIGHUSER_MOVABLE
 r-1 [000] ..... 3.9300: mm_vmscan_memcg_reclaim_end: nr_reclaimed=7
 r-1 [000] ..... 3.9420: dg_refault: (workingset_test_recent+0x4/0x1a0) shadow=0x%x
 r-1 [000] ..... 3.9421: dg_recent: (workingset_refault+0x9e/0x3b0 <- workingset_test_recent) yes=1
 kworker/0:1-31 [000] ..... 5.9000: dg_flush: (cgroup_rstat_flush+0x4/0x80)
 sh-90 [000] ..... 1.0000: mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_KERNEL
"""


def _packed(eviction: int, memcg: int, workingset: int) -> int:
    """`pack_shadow` with Debian's shifts (16-bit memcg id, 10 node bits, node 0), then
    `xa_mk_value`."""
    v = ((eviction << 16 | memcg) << 10) << 1 | workingset
    return v << 1 | 1


def test_each_set_names_its_probes_per_series():
    assert diag_kprobes.kprobes("6.1", ("flushes",)) == ("p:dg_flush cgroup_rstat_flush_irqsafe",)
    assert diag_kprobes.kprobes("6.12", ("flushes",)) == ("p:dg_flush cgroup_rstat_flush",)
    # 6.1's try_charge_memcg is static and its lruvec_page_state inline: not probed there.
    six_one = " ".join(diag_kprobes.kprobes("6.1", ("refaults", "charges")))
    assert "try_charge_memcg" not in six_one and "lruvec_page_state" not in six_one
    assert "workingset_refault" in six_one
    assert len(diag_kprobes.kprobes("6.12", ("charges",))) == 3
    for series in ("6.1", "6.12"):
        got = diag_kprobes.kprobes(series, tuple(diag_kprobes.SETS))
        assert all(k.split()[0].split(":")[1].startswith("dg_") for k in got)


def test_a_bad_set_is_a_one_line_error():
    assert diag_kprobes.parse_sets("drains,refaults") == ("drains", "refaults")
    for spec in ("", "drains,pages"):
        with pytest.raises(PagelabError, match="expected sets among drains, flushes"):
            diag_kprobes.parse_sets(spec)


def test_a_shadow_entry_reads_back_its_fields():
    assert diag_kprobes.shadow(_packed(26, 2, 0)) == {"eviction": 26, "memcg": 2, "workingset": 0}
    assert diag_kprobes.shadow(_packed(913, 7, 1)) == {"eviction": 913, "memcg": 7, "workingset": 1}


def test_the_timeline_numbers_the_reclaims_and_reads_the_shadows():
    got = diag_kprobes.timeline(TEXT % _packed(28, 2, 1))
    assert got == [
        "3.9100 flush (cgroup_rstat_flush+0x4/0x80)",
        "3.9220 reclaim 1",
        "3.9300 end 1: nr_reclaimed=7",
        "3.9420 refault eviction=28 memcg=2 workingset=1",
        "3.9421 recent yes=1",
        "5.9000 flush (cgroup_rstat_flush+0x4/0x80)",
        "1.0000 reclaim 2 (the limit write's)",
    ]


def test_the_guest_sets_and_prints_a_cells_sets():
    cell = guest.Cell("t", 10, 1 << 21, False, reclaim_events=True, lists="6.12",
                      probes=("refaults",))  # fmt: skip
    script = "\n".join(guest._cell_lines(0, cell))
    assert "workingset_test_recent" in script and "dg_[a-z]+" in script
    bare = guest.Cell("t", 10, 1 << 21, False, reclaim_events=True, lists="6.12")
    plain = "\n".join(guest._cell_lines(0, bare))
    assert "dg_" not in plain


def test_the_probe_command_refuses_a_bad_set_and_raw_for_many_cells():
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pagelab.linux.lru_probe", *args],
                              capture_output=True, text=True)  # fmt: skip

    bad = run("--with", "pages")
    assert bad.returncode == 2 and "expected sets among" in bad.stderr.splitlines()[-1]
    many = run("sort:20000:6.1:off", "sort:5000:6.1:off", "--with", "drains", "--raw", "x.txt")
    assert many.returncode == 2 and "expected one cell, got 2" in many.stderr.splitlines()[-1]
