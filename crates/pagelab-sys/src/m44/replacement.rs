//! Global page replacement across the 44Xs (B&G 1968, "The control program": "Available real
//! store is competed for freely by all the 44X's"): FIFO, BIFO and AR over one table of page
//! frames.
//!
//! The frame table is the engine's own: a frame being filled is not a candidate, and a job's
//! pages leave when it ends, which a trace-lab policy (one owner, instantaneous loads) does not
//! see. FIFO and AR run the trace lab's own code over it. FIFO's choice is
//! `pagelab_trace::policy::fifo::search` over a queue of arrivals, each entry the frame and the
//! stamp of the page that arrived in it; an entry whose frame has since been freed or refilled
//! is stale and no candidate (and is dropped once at the front). AR's is its search from the
//! pointer (`pagelab_trace::policy::ar::search`, the candidates being the frames whose page has
//! arrived) and its periodic clearing (`ar::reset_in`). `ar_tests.rs` drives both against the
//! trace lab's `ar` and `fifo` on the same random reference strings and on one whole M44 job
//! and finds the same victims. BIFO favours one job's pages, which a single-owner policy cannot
//! express: it is FIFO's search with a candidate predicate of the M44's alone.

use super::spec::PolicyKind;
use pagelab_trace::policy::ar::{self, ArSearch};
use pagelab_trace::policy::fifo;
use std::collections::VecDeque;

/// One page frame of the paged store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    /// The job and page it holds (or is being pulled into it); `None`: free.
    pub owner: Option<(u16, u32)>,
    /// Order in which its page arrived (larger is later; 0: no page has arrived).
    pub loaded: u64,
    /// Hardware use bit: set on every reference.
    pub used: bool,
    /// Changed since it arrived: replacing it needs a push.
    pub dirty: bool,
    /// A pull into it is in progress; it cannot be chosen.
    pub busy: bool,
}

impl Frame {
    fn candidate(&self) -> bool {
        self.owner.is_some() && !self.busy
    }
    fn job(&self) -> Option<u16> {
        self.owner.map(|(j, _)| j)
    }
}

/// The replacement algorithm and its state.
#[derive(Clone, Debug)]
pub struct Replacer {
    kind: PolicyKind,
    /// AR's cyclic pointer.
    hand: usize,
    /// BIFO's favoured 44X.
    favoured: Option<u16>,
    /// FIFO's and BIFO's arrivals, oldest first: (frame, its `loaded` stamp at arrival).
    arrivals: VecDeque<(u32, u64)>,
}

impl Replacer {
    /// A replacer of `kind`; BIFO starts favouring no one until [`Replacer::rotate`].
    pub fn new(kind: PolicyKind) -> Self {
        Replacer {
            kind,
            hand: 0,
            favoured: None,
            arrivals: VecDeque::new(),
        }
    }

    /// The page in `frame` has arrived, stamped `loaded` (larger than every earlier stamp).
    pub fn on_arrival(&mut self, frame: u32, loaded: u64) {
        if self.kind != PolicyKind::Ar {
            self.arrivals.push_back((frame, loaded));
        }
    }

    /// The favoured 44X under BIFO.
    pub fn favoured(&self) -> Option<u16> {
        self.favoured
    }

    /// Moves BIFO's favour to the next job after the current one (in job order, wrapping)
    /// for which `eligible` is true; none eligible: no one is favoured.
    pub fn rotate(&mut self, eligible: &[bool]) {
        let n = eligible.len();
        let start = self.favoured.map_or(0, |f| usize::from(f) + 1);
        self.favoured = (0..n)
            .map(|k| (start + k) % n.max(1))
            .find(|&j| eligible[j])
            .map(|j| j as u16);
    }

    /// The frame whose page is to be overwritten, among frames holding a page and not being
    /// filled; `None` if there is none. AR may clear use bits.
    pub fn victim(&mut self, frames: &mut [Frame]) -> Option<usize> {
        match self.kind {
            PolicyKind::Fifo => self.oldest(frames, |_| true),
            // B&G: "favors (on a round robin basis) one 44X by choosing not to overwrite the
            // pages associated with it"; when only its pages are candidates, plain FIFO
            // (fidelity-notes §6.2).
            PolicyKind::Bifo => {
                let fav = self.favoured;
                self.oldest(frames, |f| f.job() != fav || fav.is_none())
                    .or_else(|| self.oldest(frames, |_| true))
            }
            // B&G: "chooses a candidate for replacement from the set of pages which have not
            // been recently referenced": the trace lab's AR search over this frame table, the
            // candidates being the frames whose page has arrived.
            PolicyKind::Ar => {
                let n = frames.len() as u32;
                let candidate = |i: u32| frames[i as usize].candidate();
                let found =
                    match ar::search(n, self.hand as u32, candidate, |i| frames[i as usize].used) {
                        ArSearch::Unused(i) => Some(i),
                        ArSearch::AllUsed(first) => {
                            for f in frames.iter_mut() {
                                f.used = false;
                            }
                            first
                        }
                    };
                if let Some(i) = found {
                    self.hand = (i as usize + 1) % frames.len();
                }
                found.map(|i| i as usize)
            }
        }
    }
}

/// AR's periodic clearing of every use bit, by the trace lab's rule ([`ar::reset_in`]): `k`
/// references to the page in `frame` have just run, making `refs_done` in all.
pub fn clear_use_bits(frames: &mut [Frame], frame: usize, refs_done: u64, k: u32, interval: u64) {
    if let Some(keep) = ar::reset_in(refs_done - u64::from(k), k, interval) {
        for f in frames.iter_mut() {
            f.used = false;
        }
        frames[frame].used = keep;
    }
}

impl Replacer {
    /// The candidate frame loaded earliest among those `keep` accepts: the trace lab's FIFO
    /// search over the arrivals still current.
    fn oldest(&mut self, frames: &[Frame], keep: impl Fn(&Frame) -> bool) -> Option<usize> {
        let current = |(f, loaded): (u32, u64)| {
            let fr = &frames[f as usize];
            fr.candidate() && fr.loaded == loaded
        };
        while self.arrivals.front().is_some_and(|&a| !current(a)) {
            self.arrivals.pop_front();
        }
        // BIFO passes over the favoured job's pages: drop what went stale behind them.
        if self.arrivals.len() > 2 * frames.len() {
            self.arrivals.retain(|&a| current(a));
        }
        let (f, _) = fifo::search(self.arrivals.iter().copied(), |a| {
            current(a) && keep(&frames[a.0 as usize])
        })?;
        Some(f as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A replacer of `kind` that has seen the pages of `frames` arrive in `loaded` order.
    fn replacer(kind: PolicyKind, frames: &[Frame]) -> Replacer {
        let mut r = Replacer::new(kind);
        let mut arrived: Vec<(u32, u64)> = (0..frames.len() as u32)
            .filter(|&i| frames[i as usize].candidate())
            .map(|i| (i, frames[i as usize].loaded))
            .collect();
        arrived.sort_by_key(|a| a.1);
        for (f, loaded) in arrived {
            r.on_arrival(f, loaded);
        }
        r
    }

    fn frame(job: u16, page: u32, loaded: u64) -> Frame {
        Frame {
            owner: Some((job, page)),
            loaded,
            ..Frame::default()
        }
    }

    #[test]
    fn fifo_takes_the_oldest_and_skips_busy_and_free_frames() {
        let mut f = vec![
            frame(0, 0, 5),
            frame(1, 0, 2),
            frame(0, 1, 1),
            Frame::default(),
        ];
        f[2].busy = true;
        let mut r = replacer(PolicyKind::Fifo, &f);
        assert_eq!(r.victim(&mut f), Some(1));
        f[1].busy = true;
        assert_eq!(r.victim(&mut f), Some(0));
        f[0].busy = true;
        assert_eq!(r.victim(&mut f), None);
    }

    #[test]
    fn bifo_spares_the_favoured_job() {
        // Job 0 owns the two oldest pages; job 1 the newest.
        let mut f = vec![
            frame(0, 0, 1),
            frame(0, 1, 2),
            frame(1, 0, 3),
            frame(2, 0, 4),
        ];
        let mut r = replacer(PolicyKind::Bifo, &f);
        r.rotate(&[true, true, true]);
        assert_eq!(r.favoured(), Some(0));
        assert_eq!(r.victim(&mut f), Some(2), "job 0's older pages are spared");
        r.rotate(&[true, true, true]);
        assert_eq!(r.favoured(), Some(1));
        assert_eq!(r.victim(&mut f), Some(0), "job 0 is no longer favoured");
    }

    #[test]
    fn bifo_falls_back_to_fifo_when_only_the_favoured_job_has_pages() {
        let mut f = vec![frame(1, 0, 7), frame(1, 1, 3), Frame::default()];
        let mut r = replacer(PolicyKind::Bifo, &f);
        r.rotate(&[false, true]);
        assert_eq!(r.favoured(), Some(1));
        assert_eq!(r.victim(&mut f), Some(1));
    }

    #[test]
    fn favour_rotates_round_robin_skipping_ineligible_jobs() {
        let mut r = Replacer::new(PolicyKind::Bifo);
        let elig = [true, false, true, true];
        let mut seen = Vec::new();
        for _ in 0..6 {
            r.rotate(&elig);
            seen.push(r.favoured().unwrap());
        }
        assert_eq!(seen, vec![0, 2, 3, 0, 2, 3]);
        r.rotate(&[false; 4]);
        assert_eq!(r.favoured(), None);
    }

    #[test]
    fn ar_takes_the_next_unused_frame_from_its_pointer() {
        let mut f = vec![
            frame(0, 0, 1),
            frame(0, 1, 2),
            frame(1, 0, 3),
            frame(1, 1, 4),
        ];
        f[0].used = true;
        f[1].used = true;
        f[3].used = true;
        let mut r = Replacer::new(PolicyKind::Ar);
        assert_eq!(r.victim(&mut f), Some(2));
        // The pointer moved past frame 2; the bits were not touched.
        assert!(f[0].used && f[1].used && f[3].used);
        f[2].used = true;
        // Every candidate used: all bits cleared, the frame at the pointer (3) chosen.
        assert_eq!(r.victim(&mut f), Some(3));
        assert!(f.iter().all(|x| !x.used));
        assert_eq!(r.victim(&mut f), Some(0));
    }

    #[test]
    fn ar_ignores_busy_frames() {
        let mut f = vec![frame(0, 0, 1), frame(0, 1, 2)];
        f[0].busy = true;
        f[1].used = true;
        let mut r = Replacer::new(PolicyKind::Ar);
        assert_eq!(r.victim(&mut f), Some(1));
    }
}
