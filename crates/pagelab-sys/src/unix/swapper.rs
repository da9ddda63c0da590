//! The swapper, process 0: V6 `sched` as a pure function over the process table.
//!
//! Each call makes one decision, as one pass of `sched`'s loop does (fidelity-notes §1.2,
//! [S: V6-SLP]):
//!
//! 1. The swap-in candidate is the first process in table order with the largest `p_time`
//!    among those ready (`SRUN`) and not in core. None: the swapper sleeps on `runout`.
//! 2. Its need is its image plus its shared text if no user of the text is in core (text is
//!    counted once). If the core map has a contiguous first-fit hole, it comes in.
//! 3. Else the first process in table order that is in core, not locked, and sleeping at low
//!    priority (`SWAIT`) or stopped goes out ("easy core"); with `easy_io`, also one asleep in a
//!    block access (`SSLEEP` at `PRIBIO`), CHANSON §3.1's account of his swapper [A].
//! 4. Else, only if the candidate has been out at least `out_min_s` (3 in the code: `n >= 3`),
//!    the in-core, unlocked, ready or high-priority-sleeping (`SSLEEP`) process resident
//!    longest goes out, if it has been in at least `in_min_s` (2 in the code).
//! 5. Else the swapper sleeps on `runin` (woken each second and whenever a process sleeps at
//!    low priority).
//!
//! The caller performs the verdict and calls again (after each swap-out `sched` retries the
//! allocation). `p_time` is in whole seconds, bumped by the clock once a second, saturating
//! at 127. Chanson's appendix states the thresholds as "more than 2 seconds" and "more than
//! 1 second"; the code's integer tests `>= 3` and `>= 2` on a counter bumped on whole-second
//! boundaries are followed here and are parameters (fidelity-notes §1.2).

use super::map::ResourceMap;
use pagelab_core::Tick;

/// Process states the swapper distinguishes (V6 `p_stat`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stat {
    /// Ready to run (`SRUN`).
    Run,
    /// Sleeping at a negative (high, uninterruptible) priority (`SSLEEP`).
    SleepHigh,
    /// Sleeping at a priority ≥ 0 (low, interruptible) (`SWAIT`).
    SleepLow,
    /// Stopped while traced (`SSTOP`).
    Stop,
    /// Slot unused or process exited (`0`, `SZOMB`).
    Gone,
}

/// What the swapper sees of one process-table slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcView {
    /// State.
    pub stat: Stat,
    /// The image is in core (`SLOAD`).
    pub loaded: bool,
    /// Not swappable now (`SLOCK`: swap I/O under way).
    pub locked: bool,
    /// Seconds since last swap-in or swap-out (`p_time`) [s].
    pub time: u8,
    /// Image size including the u-area (`p_size`) [clicks].
    pub size: u32,
    /// Shared text segment, an index into the text table.
    pub text: Option<usize>,
    /// Asleep at `PRIBIO` in a block access of its own (a buffer read or write under way).
    pub in_bio: bool,
}

/// What the swapper sees of one shared text segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextView {
    /// Size (`x_size`) [clicks].
    pub size: u32,
    /// Users of the text in core (`x_ccount`) [processes].
    pub in_core: u32,
}

/// Thresholds of the "deserving" swap-out rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwapperParams {
    /// The candidate must have been out at least this (`n >= 3`) [s].
    pub out_min_s: u8,
    /// The victim must have been in at least this (`p_time >= 2`) [s].
    pub in_min_s: u8,
    /// Easy core also takes a process asleep in a block access (CHANSON §3.1's reading).
    pub easy_io: bool,
}

impl Default for SwapperParams {
    /// V6 `sched`: 3 s and 2 s (fidelity-notes §1.2).
    fn default() -> Self {
        SwapperParams {
            out_min_s: 3,
            in_min_s: 2,
            easy_io: false,
        }
    }
}

/// One decision of `sched`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing ready is out: sleep on `runout`.
    Idle,
    /// Bring `proc` in at core address `addr`; `with_text` if its text must come in too (the
    /// text goes at `addr`, the image after it) [clicks].
    SwapIn {
        /// Slot of the process.
        proc: usize,
        /// First-fit core address [clicks].
        addr: u32,
        /// Total clicks taken (image, plus text if it comes in) [clicks].
        need: u32,
        /// The shared text comes in with it.
        with_text: bool,
    },
    /// Write `victim` out to make room for `for_proc`.
    SwapOut {
        /// Slot of the process going out.
        victim: usize,
        /// Slot of the candidate it makes room for.
        for_proc: usize,
        /// Why it was chosen.
        reason: OutReason,
    },
    /// No room and no victim: sleep on `runin`.
    Wait {
        /// Slot of the candidate that is waiting.
        for_proc: usize,
    },
}

/// Which rule chose a swap-out victim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutReason {
    /// Sleeping at low priority or stopped ("easy core").
    Easy,
    /// The longest-resident ready or high-priority sleeper, candidate out ≥ 3 s.
    Deserving,
}

/// The core a candidate needs: its image, plus its text if no user of the text is in core
/// [clicks]; and whether the text comes in.
pub fn need_of(p: &ProcView, texts: &[TextView]) -> (u32, bool) {
    match p.text.and_then(|t| texts.get(t)) {
        Some(t) if t.in_core == 0 => (p.size + t.size, true),
        _ => (p.size, false),
    }
}

/// One pass of `sched` over `procs` (table order; slot 0, the swapper itself, is not listed),
/// `texts` and the core map.
pub fn decide(
    procs: &[ProcView],
    texts: &[TextView],
    core: &ResourceMap,
    params: SwapperParams,
) -> Verdict {
    // (1) The ready process out longest; first in table order on ties.
    let mut cand: Option<usize> = None;
    for (i, p) in procs.iter().enumerate() {
        if p.stat == Stat::Run && !p.loaded && !p.locked {
            match cand {
                Some(c) if procs[c].time >= p.time => {}
                _ => cand = Some(i),
            }
        }
    }
    let Some(c) = cand else {
        return Verdict::Idle;
    };
    let n = procs[c].time;
    // (2) Room for it?
    let (need, with_text) = need_of(&procs[c], texts);
    if let Some(addr) = core.find(need) {
        return Verdict::SwapIn {
            proc: c,
            addr,
            need,
            with_text,
        };
    }
    let swappable = |p: &ProcView| p.loaded && !p.locked;
    // (3) Easy core: first in table order sleeping at low priority or stopped; with `easy_io`,
    // also one waiting for its own block (CHANSON §3.1: "the swapper initially looks for
    // blocked processes to swap out").
    let easy = |p: &ProcView| {
        matches!(p.stat, Stat::SleepLow | Stat::Stop)
            || (params.easy_io && p.stat == Stat::SleepHigh && p.in_bio)
    };
    if let Some(v) = procs.iter().position(|p| swappable(p) && easy(p)) {
        return Verdict::SwapOut {
            victim: v,
            for_proc: c,
            reason: OutReason::Easy,
        };
    }
    // (4) Deserving: only if the candidate has been out long enough.
    if n >= params.out_min_s {
        let mut best: Option<usize> = None;
        for (i, p) in procs.iter().enumerate() {
            if swappable(p) && matches!(p.stat, Stat::Run | Stat::SleepHigh) {
                match best {
                    Some(b) if procs[b].time >= p.time => {}
                    _ => best = Some(i),
                }
            }
        }
        if let Some(v) = best {
            if procs[v].time >= params.in_min_s {
                return Verdict::SwapOut {
                    victim: v,
                    for_proc: c,
                    reason: OutReason::Deserving,
                };
            }
        }
    }
    Verdict::Wait { for_proc: c }
}

/// A swap operation under way: its remaining transfers and what to do at the end.
#[derive(Clone, Copy, Debug)]
pub(super) enum SwapJob {
    In {
        proc: usize,
        text_first: Option<u32>,
        started: Tick,
    },
    Out {
        proc: usize,
        started: Tick,
        /// The victim was asleep in a block access of its own (CHANSON §3.1).
        in_io: bool,
        /// Chosen by the easy-core rule (asleep at low priority or stopped).
        easy: bool,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(stat: Stat, loaded: bool, time: u8, size: u32) -> ProcView {
        ProcView {
            stat,
            loaded,
            locked: false,
            time,
            size,
            text: None,
            in_bio: false,
        }
    }

    /// A core map of `total` clicks with the listed extents in use.
    fn core(total: u32, used: &[(u32, u32)]) -> ResourceMap {
        let mut m = ResourceMap::new(0, total);
        // Allocate everything, then free the gaps between used extents.
        let _ = m.alloc(total);
        let mut at = 0;
        for &(a, n) in used {
            if a > at {
                m.free(a - at, at).unwrap();
            }
            at = a + n;
        }
        if at < total {
            m.free(total - at, at).unwrap();
        }
        m
    }

    #[test]
    fn nothing_ready_outside_is_idle() {
        let procs = [p(Stat::Run, true, 5, 100), p(Stat::SleepLow, false, 9, 100)];
        let v = decide(
            &procs,
            &[],
            &core(300, &[(0, 100)]),
            SwapperParams::default(),
        );
        assert_eq!(v, Verdict::Idle);
    }

    #[test]
    fn the_ready_process_out_longest_comes_in_first_fit() {
        let procs = [
            p(Stat::Run, false, 4, 50),
            p(Stat::Run, false, 7, 50),
            p(Stat::Run, false, 7, 50),
            p(Stat::Run, true, 1, 100),
        ];
        // Core: [0,100) used by slot 3, hole [100,300).
        let v = decide(
            &procs,
            &[],
            &core(300, &[(0, 100)]),
            SwapperParams::default(),
        );
        assert_eq!(
            v,
            Verdict::SwapIn {
                proc: 1,
                addr: 100,
                need: 50,
                with_text: false
            }
        );
    }

    #[test]
    fn fragmented_core_forces_a_swap_out_though_total_free_suffices() {
        // 300 clicks: holes of 60 at 0 and 60 at 160; the candidate needs 100.
        let procs = [
            p(Stat::Run, false, 5, 100),
            p(Stat::SleepHigh, true, 9, 100),
            p(Stat::Run, true, 1, 80),
        ];
        let m = core(300, &[(60, 100), (220, 80)]);
        assert_eq!(m.free_total(), 120);
        let v = decide(&procs, &[], &m, SwapperParams::default());
        assert_eq!(
            v,
            Verdict::SwapOut {
                victim: 1,
                for_proc: 0,
                reason: OutReason::Deserving
            }
        );
    }

    #[test]
    fn easy_core_is_the_first_low_sleeper_in_table_order_not_the_oldest() {
        let procs = [
            p(Stat::Run, false, 0, 100),
            p(Stat::Run, true, 50, 100),
            p(Stat::SleepLow, true, 1, 100),
            p(Stat::Stop, true, 30, 100),
        ];
        let v = decide(
            &procs,
            &[],
            &core(300, &[(0, 300)]),
            SwapperParams::default(),
        );
        assert_eq!(
            v,
            Verdict::SwapOut {
                victim: 2,
                for_proc: 0,
                reason: OutReason::Easy
            }
        );
    }

    #[test]
    fn easy_core_takes_a_block_waiter_only_under_chansons_reading() {
        let mut waiter = p(Stat::SleepHigh, true, 0, 100);
        waiter.in_bio = true;
        let procs = [
            p(Stat::Run, false, 0, 100),
            p(Stat::Run, true, 50, 100),
            waiter,
        ];
        let map = core(200, &[(0, 200)]);
        // The code: a block waiter is not easy core, and the candidate has not been out 3 s.
        let v = decide(&procs, &[], &map, SwapperParams::default());
        assert_eq!(v, Verdict::Wait { for_proc: 0 });
        let chanson = SwapperParams {
            easy_io: true,
            ..SwapperParams::default()
        };
        assert_eq!(
            decide(&procs, &[], &map, chanson),
            Verdict::SwapOut {
                victim: 2,
                for_proc: 0,
                reason: OutReason::Easy
            }
        );
        // A high-priority sleeper that is not in a block access stays out of easy core.
        let mut other = procs;
        other[2].in_bio = false;
        assert_eq!(
            decide(&other, &[], &map, chanson),
            Verdict::Wait { for_proc: 0 }
        );
    }

    #[test]
    fn locked_processes_are_never_victims() {
        let mut low = p(Stat::SleepLow, true, 9, 100);
        low.locked = true;
        let procs = [p(Stat::Run, false, 2, 100), low];
        let v = decide(
            &procs,
            &[],
            &core(100, &[(0, 100)]),
            SwapperParams::default(),
        );
        assert_eq!(v, Verdict::Wait { for_proc: 0 });
    }

    #[test]
    fn deserving_rule_waits_until_the_candidate_has_been_out_3_s() {
        let m = core(200, &[(0, 200)]);
        for (n, expect_out) in [(2u8, false), (3, true)] {
            let procs = [p(Stat::Run, true, 10, 100), p(Stat::Run, false, n, 100)];
            let v = decide(&procs, &[], &m, SwapperParams::default());
            if expect_out {
                assert_eq!(
                    v,
                    Verdict::SwapOut {
                        victim: 0,
                        for_proc: 1,
                        reason: OutReason::Deserving
                    }
                );
            } else {
                assert_eq!(v, Verdict::Wait { for_proc: 1 });
            }
        }
    }

    #[test]
    fn deserving_victim_must_have_been_in_2_s_and_is_the_longest_resident() {
        let m = core(300, &[(0, 300)]);
        // Longest resident has p_time 1: nobody qualifies.
        let procs = [
            p(Stat::Run, true, 1, 100),
            p(Stat::SleepHigh, true, 0, 100),
            p(Stat::Run, false, 9, 100),
        ];
        assert_eq!(
            decide(&procs, &[], &m, SwapperParams::default()),
            Verdict::Wait { for_proc: 2 }
        );
        // p_time 2 and 4: the one in 4 s goes (not the first in table order).
        let procs = [
            p(Stat::Run, true, 2, 100),
            p(Stat::SleepHigh, true, 4, 100),
            p(Stat::Run, false, 9, 100),
        ];
        assert_eq!(
            decide(&procs, &[], &m, SwapperParams::default()),
            Verdict::SwapOut {
                victim: 1,
                for_proc: 2,
                reason: OutReason::Deserving
            }
        );
    }

    #[test]
    fn shared_text_is_counted_once() {
        let texts = [TextView {
            size: 40,
            in_core: 1,
        }];
        let mut a = p(Stat::Run, false, 5, 100);
        a.text = Some(0);
        // Text already in core for another user: need is the image alone.
        let m = core(260, &[(0, 140), (240, 20)]);
        assert_eq!(need_of(&a, &texts), (100, false));
        assert_eq!(
            decide(&[a], &texts, &m, SwapperParams::default()),
            Verdict::SwapIn {
                proc: 0,
                addr: 140,
                need: 100,
                with_text: false
            }
        );
        // No user in core: the text comes in with it and the same hole no longer fits.
        let texts = [TextView {
            size: 40,
            in_core: 0,
        }];
        assert_eq!(need_of(&a, &texts), (140, true));
        assert_eq!(
            decide(&[a], &texts, &m, SwapperParams::default()),
            Verdict::Wait { for_proc: 0 }
        );
    }

    #[test]
    fn retry_after_each_swap_out_until_the_hole_is_big_enough() {
        // Core 300: [0,100) slot 1 (low sleeper), [100,200) slot 2 (low sleeper),
        // [200,300) slot 3 (ready, in 5 s). Slot 0 needs 200 clicks.
        let mut procs = [
            p(Stat::Run, false, 4, 200),
            p(Stat::SleepLow, true, 1, 100),
            p(Stat::SleepLow, true, 1, 100),
            p(Stat::Run, true, 5, 100),
        ];
        let mut m = ResourceMap::new(0, 300);
        assert_eq!(m.alloc(300), Some(0));
        let addr = [0, 0, 100, 200];
        let mut outs = Vec::new();
        loop {
            match decide(&procs, &[], &m, SwapperParams::default()) {
                Verdict::SwapOut { victim, .. } => {
                    outs.push(victim);
                    procs[victim].loaded = false;
                    m.free(procs[victim].size, addr[victim]).unwrap();
                }
                Verdict::SwapIn { proc, addr, .. } => {
                    assert_eq!((proc, addr), (0, 0));
                    break;
                }
                v => panic!("unexpected {v:?}"),
            }
        }
        // Two easy victims in table order; the ready one stays.
        assert_eq!(outs, vec![1, 2]);
    }
}
