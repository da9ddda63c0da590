"""The Linux replay through the Python binding: the counters' shape, page lists and errors."""

import pytest

from pagelab import _core

KEYS = {
    "references",
    "major_faults",
    "minor_faults",
    "pswpin",
    "pswpout",
    "workingset_refault_anon",
    "workingset_activate_anon",
    "workingset_restore_anon",
    "zswpout",
    "zswpin",
    "zswap_rejected",
    "zswap_written_back",
    "reclaims",
}


@pytest.mark.parametrize("kernel", ["6.1", "6.12"])
@pytest.mark.parametrize("lru_gen", [False, True])
def test_a_loop_larger_than_the_limit_swaps(kernel, lru_gen):
    pages = list(range(300)) * 5
    c = _core.linux_replay(pages, 200, kernel=kernel, lru_gen=lru_gen)
    assert set(c) == KEYS
    assert c["references"] == 1500
    assert c["minor_faults"] == 300  # each page's first write
    assert c["major_faults"] == c["pswpin"] > 0
    assert c["pswpout"] >= c["pswpin"]


def test_reads_map_the_zero_page_and_pairs_carry_writes():
    reads = [(p, False) for p in range(500)]
    c = _core.linux_replay(reads, 10)
    assert (c["minor_faults"], c["major_faults"], c["pswpout"]) == (500, 0, 0)


def test_writes_keyword_gives_each_page_its_kind():
    pages = list(range(500))
    c = _core.linux_replay(pages, 10, writes=[False] * 500)
    assert (c["minor_faults"], c["pswpout"]) == (500, 0)
    with pytest.raises(ValueError, match="writes"):
        _core.linux_replay(pages, 10, writes=[True])


def test_zswap_takes_the_evicted_pages():
    pages = list(range(300)) * 3
    z = {"total_ram_pages": 65536, "compressed_bytes": 40}
    c = _core.linux_replay(pages, 200, zswap=z)
    assert c["zswpout"] > 0 and c["pswpout"] == 0
    assert c["zswpin"] == c["major_faults"] > 0


def test_bad_options_are_one_line_errors():
    with pytest.raises(ValueError, match="kernel"):
        _core.linux_replay([1, 2], 4, kernel="5.4")
    with pytest.raises(ValueError, match="zswap"):
        _core.linux_replay([1, 2], 4, zswap={"total_ram_pages": 1})
