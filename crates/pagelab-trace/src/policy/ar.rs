//! AR: the M44's "replace a page not recently referenced".
//!
//! Brawn & Gustavson (1968) describe AR only as "a hardware supported algorithm which chooses a
//! candidate for replacement from the set of pages which have not been recently referenced".
//! We follow the reading of fidelity-notes section 6.2: a usage bit per frame, set by every
//! reference; at a fault a cyclic pointer looks, from where it stopped, for the next frame whose
//! bit is 0 and reclaims it (the pointer stops just past it); if every bit is 1, all bits are
//! cleared and the frame under the pointer is reclaimed. Unlike CLOCK the search clears no bit:
//! usage bits are cleared for all frames together every `reset_interval` references, "as on the
//! M44" (the reset period was not retrieved: ours is a parameter).
//!
//! Clearing all bits is O(1): a frame's bit is 1 when its stamp equals the current epoch, and a
//! reset advances the epoch. The reset falls after every `reset_interval`-th reference of the
//! whole string (warm-up included); a run that spans a reset sets its page's bit again if it
//! has references after it. Bits, pointer and clearing are [`ArHand`], which works over frames
//! it does not own: [`Ar`] adds the trace lab's page table, the M44 its store (pagelab-sys
//! `m44/supply.rs`).
//!
//! Parameters: `reset_interval` [references], default 10 000: one M44 time slice (0.1 s,
//! B&G) at the effective 10 us reference time (B&G); 0 means never reset.

use super::{
    frame_table_of, has_frame, Memory, ParamInfo, PolicyState, Replacement, SpecParams, NIL,
};
use crate::TraceError;
use serde::{Deserialize, Serialize};

/// Parameters of AR.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ArSpec {
    /// References between two clearings of all usage bits [references] -- parameter, default
    /// 10 000 (source: one 0.1 s time slice at 10 us a reference, Brawn & Gustavson 1968);
    /// 0 = never.
    pub reset_interval: u64,
}

impl Default for ArSpec {
    fn default() -> Self {
        ArSpec {
            reset_interval: 10_000,
        }
    }
}

impl SpecParams for ArSpec {
    const PARAMS: &'static [ParamInfo] = &[ParamInfo {
        name: "reset_interval",
        unit: "[references]",
        default: "10000",
        doc: "references between clearings of all usage bits (0 = never); one 0.1 s M44 slice",
    }];
}

/// AR state: frame table, page -> frame map and the [`ArHand`] over the frames.
#[derive(Clone, Debug)]
pub struct Ar {
    frame_page: Vec<u32>,
    cap: u32,
    page_frame: Vec<u32>,
    used: u32,
    hand: ArHand,
}

impl Ar {
    /// AR over `frames` frames [frames] for pages `0..page_bound`.
    pub fn new(spec: &ArSpec, frames: u32, page_bound: u32) -> Result<Self, TraceError> {
        Ok(Ar {
            frame_page: Vec::with_capacity(frames.min(page_bound) as usize),
            cap: frames,
            page_frame: vec![NIL; page_bound as usize],
            used: 0,
            hand: ArHand::new(spec, frames.min(page_bound) as usize),
        })
    }
}

/// AR's decisions over a table of frames it does not own: a usage bit per frame (on when the
/// frame's stamp equals the epoch, so clearing every bit is O(1)), the cyclic pointer, and the
/// periodic clearing. The trace lab's [`Ar`] runs it over its own frames; the M44 (pagelab-sys
/// `m44/supply.rs`), whose frames can be empty or still being filled, over its store through
/// the frame supply. The one AR of both.
#[derive(Clone, Debug)]
pub struct ArHand {
    stamp: Vec<u64>,
    pointer: u32,
    epoch: u64,
    reset_interval: u64,
}

impl ArHand {
    /// The hand of `spec` over `frames` frames [frames], every bit off, the pointer at 0.
    pub fn new(spec: &ArSpec, frames: usize) -> Self {
        ArHand {
            stamp: vec![0; frames],
            pointer: 0,
            epoch: 1,
            reset_interval: spec.reset_interval,
        }
    }

    /// Grows the table to `frames` frames, the new ones with their bit off.
    #[inline]
    pub fn reserve_frames(&mut self, frames: usize) {
        if self.stamp.len() < frames {
            self.stamp.resize(frames, 0);
        }
    }

    /// Sets the usage bit of `frame`.
    #[inline]
    pub fn touch(&mut self, frame: u32) {
        self.stamp[frame as usize] = self.epoch;
    }

    /// A run of `count` references to the page in `frame`, the first being reference `now`
    /// (0-based) of the whole string: sets its bit, then clears every bit if a periodic
    /// clearing falls in the run ([`reset_in`]), setting it again if the run goes on after it.
    #[inline]
    pub fn referenced(&mut self, frame: u32, now: u64, count: u32) {
        self.touch(frame);
        if let Some(keep) = reset_in(now, count, self.reset_interval) {
            self.epoch += 1;
            if keep {
                self.touch(frame);
            }
        }
    }

    /// The victim among frames `0..n` that `candidate` accepts ([`search`] from the pointer);
    /// if every candidate's bit is on, all bits are cleared first. The pointer stops just past
    /// the victim. `None` (the bits still cleared): no frame is a candidate.
    #[inline]
    pub fn victim(&mut self, n: u32, candidate: impl Fn(u32) -> bool) -> Option<u32> {
        let (stamp, epoch) = (&self.stamp, self.epoch);
        let found = match search(n, self.pointer, candidate, |h| stamp[h as usize] == epoch) {
            ArSearch::Unused(h) => Some(h),
            ArSearch::AllUsed(first) => {
                self.epoch += 1;
                first
            }
        };
        if let Some(h) = found {
            self.pointer = if h + 1 == n { 0 } else { h + 1 };
        }
        found
    }

    /// The usage bits of frames `0..n`.
    pub fn bits(&self, n: usize) -> Vec<bool> {
        self.stamp[..n].iter().map(|&s| s == self.epoch).collect()
    }

    /// The frame the next search starts from.
    pub fn pointer(&self) -> u32 {
        self.pointer
    }
}

/// What AR's pointer finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArSearch {
    /// The first candidate frame from the pointer whose usage bit is off: the victim.
    Unused(u32),
    /// Every candidate's bit is on: the caller clears all bits and takes this frame, the first
    /// candidate from the pointer (`None`: no frame is a candidate).
    AllUsed(Option<u32>),
}

/// AR's search over frames `0..n` from `pointer` (fidelity-notes section 6.2). `candidate`
/// says which frames may be taken: every one in the trace lab; in the M44, whose frames can be
/// empty or still being filled, those holding a page that has arrived. `used` reads a frame's
/// usage bit. The search of [`ArHand::victim`].
#[inline]
pub fn search(
    n: u32,
    pointer: u32,
    candidate: impl Fn(u32) -> bool,
    used: impl Fn(u32) -> bool,
) -> ArSearch {
    let mut h = pointer;
    let mut first = None;
    for _ in 0..n {
        if candidate(h) {
            if !used(h) {
                return ArSearch::Unused(h);
            }
            first = first.or(Some(h));
        }
        h = if h + 1 == n { 0 } else { h + 1 };
    }
    ArSearch::AllUsed(first)
}

/// AR's periodic clearing of every usage bit, after every `interval`-th reference of the whole
/// string (0: never), against a run of `count` references whose first is reference `now`
/// (0-based): `None` if no clearing falls inside the run, else `Some(keep)` where `keep` says
/// the run has references after the clearing, which set its page's bit again. The one rule of
/// the trace lab and the M44, applied by [`ArHand::referenced`].
#[inline]
pub fn reset_in(now: u64, count: u32, interval: u64) -> Option<bool> {
    // A clearing follows reference t when (t + 1) % interval == 0.
    let end = now + u64::from(count);
    let reset_after = end.checked_div(interval)? * interval;
    (reset_after > now).then_some(reset_after < end)
}

impl Replacement for Ar {
    fn reserve_pages(&mut self, page_bound: u32) {
        if self.page_frame.len() < page_bound as usize {
            self.page_frame.resize(page_bound as usize, NIL);
        }
    }

    #[inline]
    fn reference(&mut self, page: u32, count: u32, now: u64, mem: &mut Memory) -> bool {
        let mut f = self.page_frame[page as usize];
        let hit = f != NIL;
        if !hit {
            f = if self.used < self.cap {
                self.frame_page.push(NIL);
                self.hand.reserve_frames(self.frame_page.len());
                self.used += 1;
                self.used - 1
            } else {
                let h = self.hand.victim(self.cap, |_| true).expect("a full table");
                let victim = self.frame_page[h as usize];
                self.page_frame[victim as usize] = NIL;
                mem.reclaim(victim);
                h
            };
            self.frame_page[f as usize] = page;
            self.page_frame[page as usize] = f;
        }
        self.hand.referenced(f, now, count);
        hit
    }

    fn is_resident(&self, page: u32) -> bool {
        has_frame(&self.page_frame, page)
    }

    fn resident(&self) -> u32 {
        self.used
    }

    fn frame_table(&self) -> Option<Vec<Option<u32>>> {
        Some(frame_table_of(&self.frame_page))
    }

    fn state(&self) -> PolicyState {
        PolicyState {
            hand: Some(self.hand.pointer()),
            frame_bits: Some(self.hand.bits(self.frame_page.len())),
            ..PolicyState::default()
        }
    }
}
