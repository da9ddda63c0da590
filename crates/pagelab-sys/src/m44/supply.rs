//! Global page replacement across the 44Xs (B&G 1968, "The control program": "Available real
//! store is competed for freely by all the 44X's") through the frame-supply seam
//! ([`crate::supply::FrameSupply`]) over the M44's store, a table of [`Frame`]s.
//!
//! ```text
//!   pull done ── on_load(job, page, frame) ──►┐
//!   slice ── on_reference(job, page, k, now) ─►│ M44Supply ── select_victim(&mut [Frame]) ──► fault
//!   job ends ── on_free(job, page) ───────────►┘   (FIFO, BIFO, AR)   (the machine pushes, refills)
//! ```
//!
//! The store is the machine's: a frame being filled is no candidate, and a job's pages leave
//! when it ends. A page is loaded when its pull completes, which on two disks need not be the
//! order of the faults, so the trace lab's policies, which load a page at its fault, are not
//! driven whole as the demand-paging system's `PolicySupply` drives them: their choices are,
//! over the store. AR is the trace lab's [`ArHand`] (usage bits, pointer, periodic clearing)
//! over the store's frames, candidates those whose page has arrived. FIFO is the trace lab's
//! [`fifo::search`] over the store's arrivals, oldest first (the trace lab's ring from the hand
//! is the same order when every victim's frame is refilled in place). `supply_tests.rs` drives
//! both through this seam against the trace lab's `fifo` and `ar` on the same reference strings
//! and finds the same victims. BIFO favours one job's pages, which a single-owner policy cannot
//! express: a supply of its own, FIFO's search with a candidate predicate of the M44's.

use std::collections::VecDeque;

use pagelab_trace::policy::ar::{ArHand, ArSpec};
use pagelab_trace::policy::fifo;

use super::spec::{PolicyKind, ReplacementSpec};
use crate::supply::FrameSupply;

const NONE: u32 = u32::MAX;

/// One page frame of the paged store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    /// The job and page it holds (or is being pulled into it); `None`: free.
    pub owner: Option<(u16, u32)>,
    /// Changed since it arrived: replacing it needs a push.
    pub dirty: bool,
    /// A pull into it is in progress; it cannot be chosen.
    pub busy: bool,
}

impl Frame {
    /// Holds a page that has arrived: a candidate for replacement.
    pub fn candidate(&self) -> bool {
        self.owner.is_some() && !self.busy
    }
    fn job(&self) -> Option<u16> {
        self.owner.map(|(j, _)| j)
    }
}

/// The store's arrivals, oldest first: each the frame and its arrival number. An entry whose
/// frame has since been freed or refilled is stale and no candidate (dropped at the front).
#[derive(Clone, Debug, Default)]
struct Arrivals {
    queue: VecDeque<(u32, u64)>,
    /// Arrival number of each frame's current page [arrivals].
    number: Vec<u64>,
    n: u64,
}

impl Arrivals {
    fn push(&mut self, frame: u32) {
        self.n += 1;
        if frame as usize >= self.number.len() {
            self.number.resize(frame as usize + 1, 0);
        }
        self.number[frame as usize] = self.n;
        self.queue.push_back((frame, self.n));
    }

    /// The candidate that arrived first among those `keep` accepts: the trace lab's FIFO
    /// search over the arrivals still current.
    fn oldest(&mut self, frames: &[Frame], keep: impl Fn(&Frame) -> bool) -> Option<u32> {
        let number = &self.number;
        let current =
            |(f, n): (u32, u64)| frames[f as usize].candidate() && number[f as usize] == n;
        while self.queue.front().is_some_and(|&a| !current(a)) {
            self.queue.pop_front();
        }
        // BIFO passes over the favoured job's pages: drop what went stale behind them.
        if self.queue.len() > 2 * frames.len() {
            self.queue.retain(|&a| current(a));
        }
        let (f, _) = fifo::search(self.queue.iter().copied(), |a| {
            current(a) && keep(&frames[a.0 as usize])
        })?;
        Some(f)
    }
}

/// FIFO: "the page selected by FIFO is the one which has been in core for the longest period
/// of time" (B&G, "The paging algorithms").
#[derive(Clone, Debug, Default)]
pub struct FifoSupply {
    arrivals: Arrivals,
}

impl FrameSupply<[Frame]> for FifoSupply {
    fn on_load(&mut self, _job: u32, _page: u32, frame: u32, _now: u64) -> Option<u64> {
        self.arrivals.push(frame);
        None
    }
    fn on_reference(&mut self, _job: u32, _page: u32, _count: u32, _now: u64) {}
    fn select_victim(&mut self, frames: &mut [Frame]) -> Option<u32> {
        self.arrivals.oldest(frames, |_| true)
    }
}

/// BIFO: FIFO that "favors (on a round robin basis) one 44X by choosing not to overwrite the
/// pages associated with it" (B&G); when only its pages are candidates, plain FIFO
/// (fidelity-notes §6.2).
#[derive(Clone, Debug, Default)]
pub struct BifoSupply {
    arrivals: Arrivals,
    /// The favoured 44X.
    favoured: Option<u16>,
}

impl BifoSupply {
    /// Moves the favour to the next job after the current one (in job order, wrapping) for
    /// which `eligible` is true; none eligible: no one is favoured.
    pub fn rotate(&mut self, eligible: &[bool]) {
        let n = eligible.len();
        let start = self.favoured.map_or(0, |f| usize::from(f) + 1);
        self.favoured = (0..n)
            .map(|k| (start + k) % n.max(1))
            .find(|&j| eligible[j])
            .map(|j| j as u16);
    }
}

impl FrameSupply<[Frame]> for BifoSupply {
    fn on_load(&mut self, _job: u32, _page: u32, frame: u32, _now: u64) -> Option<u64> {
        self.arrivals.push(frame);
        None
    }
    fn on_reference(&mut self, _job: u32, _page: u32, _count: u32, _now: u64) {}
    fn select_victim(&mut self, frames: &mut [Frame]) -> Option<u32> {
        let fav = self.favoured;
        self.arrivals
            .oldest(frames, |f| fav.is_none() || f.job() != fav)
            .or_else(|| self.arrivals.oldest(frames, |_| true))
    }
}

/// AR: "chooses a candidate for replacement from the set of pages which have not been recently
/// referenced" (B&G): the trace lab's [`ArHand`] over the store.
#[derive(Clone, Debug)]
pub struct ArSupply {
    hand: ArHand,
    /// Frame of each job's pages since their last arrival (stale once they leave; a page is
    /// referenced only while it holds its frame).
    frame_of: Vec<Vec<u32>>,
}

impl ArSupply {
    /// AR over `frames` frames [frames], clearing every usage bit each `reset_interval`
    /// references executed [references] (0: never).
    pub fn new(frames: u32, reset_interval: u64) -> Self {
        ArSupply {
            hand: ArHand::new(&ArSpec { reset_interval }, frames as usize),
            frame_of: Vec::new(),
        }
    }
}

impl FrameSupply<[Frame]> for ArSupply {
    /// The faulting reference is about to be retried: the page counts as referenced.
    fn on_load(&mut self, job: u32, page: u32, frame: u32, _now: u64) -> Option<u64> {
        let (j, p) = (job as usize, page as usize);
        if j >= self.frame_of.len() {
            self.frame_of.resize(j + 1, Vec::new());
        }
        if p >= self.frame_of[j].len() {
            self.frame_of[j].resize(p + 1, NONE);
        }
        self.frame_of[j][p] = frame;
        self.hand.touch(frame);
        None
    }
    #[inline]
    fn on_reference(&mut self, job: u32, page: u32, count: u32, now: u64) {
        let frame = self.frame_of[job as usize][page as usize];
        self.hand.referenced(frame, now, count);
    }
    fn select_victim(&mut self, frames: &mut [Frame]) -> Option<u32> {
        self.hand
            .victim(frames.len() as u32, |i| frames[i as usize].candidate())
    }
}

/// The M44's supply: enum dispatch, one per run.
#[derive(Clone, Debug)]
pub enum M44Supply {
    /// Global FIFO.
    Fifo(FifoSupply),
    /// FIFO sparing one favoured 44X at a time.
    Bifo(BifoSupply),
    /// A page not recently referenced, by the usage bits.
    Ar(ArSupply),
}

impl M44Supply {
    /// The supply `spec` names over `frames` frames [frames]; BIFO favours no one until
    /// [`M44Supply::rotate`].
    pub fn build(spec: &ReplacementSpec, frames: u32) -> Self {
        match spec.policy {
            PolicyKind::Fifo => M44Supply::Fifo(FifoSupply::default()),
            PolicyKind::Bifo => M44Supply::Bifo(BifoSupply::default()),
            PolicyKind::Ar => M44Supply::Ar(ArSupply::new(frames, spec.ar_reset_interval)),
        }
    }

    /// BIFO's favoured 44X; `None` under FIFO and AR.
    pub fn favoured(&self) -> Option<u16> {
        match self {
            M44Supply::Bifo(b) => b.favoured,
            _ => None,
        }
    }

    /// BIFO's favour moves on ([`BifoSupply::rotate`]); nothing under FIFO and AR.
    pub fn rotate(&mut self, eligible: &[bool]) {
        if let M44Supply::Bifo(b) = self {
            b.rotate(eligible);
        }
    }
}

impl FrameSupply<[Frame]> for M44Supply {
    fn on_load(&mut self, job: u32, page: u32, frame: u32, now: u64) -> Option<u64> {
        match self {
            M44Supply::Fifo(s) => s.on_load(job, page, frame, now),
            M44Supply::Bifo(s) => s.on_load(job, page, frame, now),
            M44Supply::Ar(s) => s.on_load(job, page, frame, now),
        }
    }
    #[inline]
    fn on_reference(&mut self, job: u32, page: u32, count: u32, now: u64) {
        if let M44Supply::Ar(s) = self {
            s.on_reference(job, page, count, now);
        }
    }
    fn select_victim(&mut self, frames: &mut [Frame]) -> Option<u32> {
        match self {
            M44Supply::Fifo(s) => s.select_victim(frames),
            M44Supply::Bifo(s) => s.select_victim(frames),
            M44Supply::Ar(s) => s.select_victim(frames),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(policy: PolicyKind) -> ReplacementSpec {
        ReplacementSpec {
            policy,
            bifo_interval_s: pagelab_core::Secs(1.0),
            ar_reset_interval: 0,
        }
    }

    /// A store of `pages` (job, page) with the pages of `arrived` arriving in that order.
    fn store(policy: PolicyKind, pages: &[(u16, u32)], arrived: &[u32]) -> (Vec<Frame>, M44Supply) {
        let mut frames: Vec<Frame> = pages
            .iter()
            .map(|&o| Frame {
                owner: Some(o),
                busy: true,
                ..Frame::default()
            })
            .collect();
        let mut s = M44Supply::build(&spec(policy), frames.len() as u32);
        for &f in arrived {
            frames[f as usize].busy = false;
            let (j, p) = frames[f as usize].owner.unwrap();
            s.on_load(u32::from(j), p, f, 0);
        }
        (frames, s)
    }

    #[test]
    fn fifo_takes_the_oldest_and_skips_busy_and_free_frames() {
        let (mut f, mut s) = store(PolicyKind::Fifo, &[(0, 0), (1, 0), (0, 1)], &[2, 1, 0]);
        f.push(Frame::default());
        f[2].busy = true; // refilled since it arrived
        assert_eq!(s.select_victim(&mut f), Some(1));
        f[1].busy = true;
        assert_eq!(s.select_victim(&mut f), Some(0));
        f[0] = Frame::default(); // its job ended
        assert_eq!(s.select_victim(&mut f), None);
        f[2].busy = false;
        s.on_load(0, 1, 2, 0);
        assert_eq!(
            s.select_victim(&mut f),
            Some(2),
            "arrived again: a candidate"
        );
    }

    #[test]
    fn bifo_spares_the_favoured_job() {
        // Job 0 owns the two oldest pages.
        let pages = [(0, 0), (0, 1), (1, 0), (2, 0)];
        let (mut f, mut s) = store(PolicyKind::Bifo, &pages, &[0, 1, 2, 3]);
        s.rotate(&[true, true, true]);
        assert_eq!(s.favoured(), Some(0));
        assert_eq!(
            s.select_victim(&mut f),
            Some(2),
            "job 0's older pages are spared"
        );
        s.rotate(&[true, true, true]);
        assert_eq!(s.favoured(), Some(1));
        assert_eq!(
            s.select_victim(&mut f),
            Some(0),
            "job 0 is no longer favoured"
        );
    }

    #[test]
    fn bifo_falls_back_to_fifo_when_only_the_favoured_job_has_pages() {
        let (mut f, mut s) = store(PolicyKind::Bifo, &[(1, 0), (1, 1)], &[1, 0]);
        f.push(Frame::default());
        s.rotate(&[false, true]);
        assert_eq!(s.favoured(), Some(1));
        assert_eq!(s.select_victim(&mut f), Some(1));
    }

    #[test]
    fn favour_rotates_round_robin_skipping_ineligible_jobs() {
        let mut s = M44Supply::build(&spec(PolicyKind::Bifo), 4);
        let elig = [true, false, true, true];
        let mut seen = Vec::new();
        for _ in 0..6 {
            s.rotate(&elig);
            seen.push(s.favoured().unwrap());
        }
        assert_eq!(seen, vec![0, 2, 3, 0, 2, 3]);
        s.rotate(&[false; 4]);
        assert_eq!(s.favoured(), None);
    }

    #[test]
    fn ar_takes_the_next_unused_frame_from_its_pointer() {
        let pages = [(0, 0), (0, 1), (1, 0), (1, 1)];
        let (mut f, mut s) = store(PolicyKind::Ar, &pages, &[0, 1, 2, 3]);
        // Every page just arrived, so every bit is on: all cleared, the frame at the pointer.
        assert_eq!(s.select_victim(&mut f), Some(0));
        s.on_reference(0, 1, 1, 0);
        s.on_reference(1, 1, 1, 1);
        // From the pointer (1): frame 1 used, frame 2 not.
        assert_eq!(s.select_victim(&mut f), Some(2));
        assert_eq!(s.select_victim(&mut f), Some(0), "past 3, which is used");
    }

    #[test]
    fn ar_ignores_busy_frames() {
        let (mut f, mut s) = store(PolicyKind::Ar, &[(0, 0), (0, 1)], &[1]);
        assert_eq!(s.select_victim(&mut f), Some(1));
    }
}
