"""The prediction's draws: how many (`--draws`), where they fall, and a draw the kernel would
OOM-kill (docs/readings.md `linux-fifteen-draws`, `linux-killed-draws`)."""

import numpy as np
import pytest

from pagelab import _core, linux
from pagelab.errors import PagelabError
from pagelab.linux import prediction


def test_five_draws_are_the_slots_and_phases_the_readings_name():
    assert prediction.aslr_slots(5) == (51, 154, 256, 358, 461)
    assert prediction.phases(5) == (0.1, 0.3, 0.5, 0.7, 0.9)
    # Fifteen is the same rule with more points, the five among them.
    assert set(prediction.aslr_slots(5)) <= set(prediction.aslr_slots(15))
    assert set(prediction.phases(5)) <= set(prediction.phases(15))
    assert all(0 <= s < 512 for s in prediction.aslr_slots(64))


@pytest.fixture
def loop(tmp_path):
    path = tmp_path / "loop.u64"
    np.tile(np.arange(300, dtype=np.uint64), 3).tofile(path)
    return linux.prepare(path)


def _spy(monkeypatch, kill=frozenset(), faults=None):
    """Records each replay's flusher phase [s]; raises the OOM for the phases in `kill`; with
    `faults` (phase: major faults), the replay's counters carry those major faults."""
    seen = []
    replay = _core.linux_replay

    def spy(*args, **kwargs):
        phase = round(kwargs["clock"]["phase_s"], 6)
        seen.append(phase)
        if phase in kill:
            raise _core.OomKilled("memory.max of 1 pages: reclaim freed nothing 16 times")
        got = replay(*args, **kwargs)
        return got if faults is None else {**got, "major_faults": faults[phase]}

    monkeypatch.setattr(prediction._core, "linux_replay", spy)
    return seen


def test_draws_set_how_many_replays_and_their_phases(monkeypatch, loop):
    seen = _spy(monkeypatch)
    knobs = linux.make_knobs("6.1", "1M", "off")
    prediction.predict(loop, knobs, prediction.Options(tlb=None, draws=3))
    assert sorted(seen) == [round(2 * p, 6) for p in (1 / 6, 0.5, 5 / 6)]
    seen.clear()
    prediction.predict(loop, knobs, prediction.Options(tlb=None))
    assert len(seen) == prediction.DRAWS


@pytest.mark.parametrize("draws", [0, 65])
def test_draws_out_of_range_is_one_line(loop, draws):
    knobs = linux.make_knobs("6.1", "1M", "off")
    with pytest.raises(PagelabError, match=f"^--draws {draws}: expected 1 to 64$"):
        prediction.predict(loop, knobs, prediction.Options(tlb=None, draws=draws))


def test_the_oom_is_its_own_kind_of_error():
    pages = list(range(40)) * 10
    with pytest.raises(_core.OomKilled, match="reclaim freed nothing 16 times"):
        _core.linux_replay(pages, 20, kernel="6.12")
    assert issubclass(_core.OomKilled, ValueError)


#: Made-up major faults of the five draws, by the flusher's phase [s].
FAULTS = {0.2: 100, 0.6: 200, 1.0: 300, 1.4: 400, 1.8: 500}


@pytest.mark.parametrize("pooled", [False, True])
def test_a_killed_draw_ranks_above_every_draw_that_runs(monkeypatch, loop, pooled):
    knobs = linux.make_knobs("6.1", "1M", "off")
    opts = prediction.Options(tlb=None, pooled_median=pooled)
    _spy(monkeypatch, faults=FAULTS)
    assert prediction.predict(loop, knobs, opts)["major_faults"] == 300
    _spy(monkeypatch, kill={0.2}, faults=FAULTS)
    got = prediction.predict(loop, knobs, opts)
    # 200, 300, 400, 500, then the killed one: the middle is 400 (300 if it ranked lowest).
    assert (got["major_faults"], got["killed_draws"]) == (400, 1)


def test_a_killed_middle_draw_kills_the_prediction(monkeypatch, loop):
    knobs = linux.make_knobs("6.1", "1M", "off")
    _spy(monkeypatch, kill={0.2, 1.0, 1.8}, faults=FAULTS)
    with pytest.raises(PagelabError, match="^memory.max of 1 pages: reclaim freed nothing"):
        prediction.predict(loop, knobs, prediction.Options(tlb=None))
