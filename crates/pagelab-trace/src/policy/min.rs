//! MIN: Belady's optimal replacement, and the next-use annotation it needs.
//!
//! At a fault with full memory MIN reclaims the resident page whose next reference lies
//! farthest in the future (Belady 1966); no policy faults less at the same size. Brawn &
//! Gustavson (1968) computed it offline from the whole trace and counted pulls only, noting
//! that Belady found the total of pulls and pushes differs insignificantly from the true
//! minimum of both. We count both.
//!
//! **The dirty-page rule.** Next references of distinct pages are distinct times, so the only
//! ties are among pages never referenced again. Among those MIN reclaims a clean page before a
//! changed one (saving a push at no cost in pulls), and among equals the lowest page number.
//! The key of a resident page is therefore
//!
//! ```text
//!   key = next            if the page is referenced again (next < 2^63)
//!   key = 2^63 + clean*2^32 + (2^32 - 1 - page)   otherwise
//! ```
//!
//! and the victim is the page of largest key: an indexed binary max-heap gives it in
//! O(log frames) per fault, and a hit re-keys the page in O(log frames).
//!
//! **Next-use.** [`NextUse::compute`] walks the string backwards once, keeping the index of
//! each page's latest run: `next(i)` is the index of the next run of the same page, which orders
//! the future exactly as its time would. [`Min`] can only be built from a `NextUse`, which borrows the
//! runs it annotates, so MIN cannot be run on a string without its future, nor on another
//! string than the one annotated.
//!
//! Parameters: none.

use super::{Memory, ParamInfo, PolicyState, SpecParams, NIL};
use crate::format::TraceReader;
use crate::{Run, TraceError};
use serde::{Deserialize, Serialize};

/// MIN has no parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MinSpec {}

impl SpecParams for MinSpec {
    const PARAMS: &'static [ParamInfo] = &[];
}

/// Key of a next reference that never comes.
pub const NEVER: u64 = u64::MAX;

/// A string of runs annotated with, for each run, the index of the next run of the same page.
///
/// Run indices order the future exactly as reference times do, and at 4 bytes a run they
/// halve the memory of times: on a long trace the annotation's size, not its arithmetic, is
/// what costs (first touch of fresh memory). Strings of 2^32 - 1 runs or more do not fit.
#[derive(Clone, Debug)]
pub struct NextUse<'a> {
    runs: &'a [Run],
    /// Next-run indices in reverse order of runs (the backward pass pushes them).
    next_rev: Vec<u32>,
    bound: u32,
}

const NEVER32: u32 = u32::MAX;

impl<'a> NextUse<'a> {
    /// Annotates `runs` in one backward pass (O(runs + pages) time, 4 bytes a run).
    pub fn compute(runs: &'a [Run]) -> Self {
        debug_assert!(
            runs.len() < NEVER32 as usize,
            "too many runs for 32-bit next-use"
        );
        let bound = runs.iter().map(|r| r.page + 1).max().unwrap_or(0);
        let mut last = vec![NEVER32; bound as usize];
        let mut next_rev = Vec::with_capacity(runs.len());
        for (i, r) in runs.iter().enumerate().rev() {
            let slot = &mut last[r.page as usize];
            next_rev.push(*slot);
            *slot = i as u32;
        }
        NextUse {
            runs,
            next_rev,
            bound,
        }
    }

    /// The annotated runs.
    pub fn runs(&self) -> &'a [Run] {
        self.runs
    }

    /// Index of the next run of the page of run `i` (an order of the future, not a time), or
    /// [`NEVER`].
    #[inline]
    pub fn next(&self, i: usize) -> u64 {
        match self.next_rev[self.runs.len() - 1 - i] {
            NEVER32 => NEVER,
            j => u64::from(j),
        }
    }

    /// One more than the largest page number.
    pub fn page_bound(&self) -> u32 {
        self.bound
    }
}

/// Next-use of a pagelab trace file, computed by reading its chunks backwards: the runs are
/// not kept (the forward pass decodes them again), so MIN over a trace file holds 4 bytes a run
/// instead of 16. Like [`NextUse`], it is the only other way to build a [`Min`].
#[derive(Clone, Debug)]
pub struct TraceNextUse {
    next_rev: Vec<u32>,
    bound: u32,
}

impl TraceNextUse {
    /// Annotates every run of the trace `reader` reads, in one backward pass over its chunks.
    pub fn compute(reader: &mut TraceReader) -> Result<Self, TraceError> {
        let n = reader.runs();
        if n >= u64::from(NEVER32) {
            return Err(TraceError::invalid(format!(
                "{}: {n} runs; MIN handles at most {} runs",
                reader.path().display(),
                NEVER32 - 1
            )));
        }
        let bound = u32::try_from(reader.distinct_pages()).unwrap_or(u32::MAX);
        let mut last = vec![NEVER32; bound as usize];
        let mut next_rev = Vec::with_capacity(n as usize);
        let mut buf = Vec::new();
        let mut i = n as u32;
        for c in (0..reader.chunk_count()).rev() {
            buf.clear();
            reader.read_chunk(c, &mut buf)?;
            for r in buf.iter().rev() {
                i = i.checked_sub(1).ok_or_else(|| too_many_runs(reader))?;
                let slot = last
                    .get_mut(r.page as usize)
                    .ok_or_else(|| page_out_of_range(reader, r.page, bound))?;
                next_rev.push(*slot);
                *slot = i;
            }
        }
        if i != 0 {
            return Err(too_many_runs(reader));
        }
        Ok(TraceNextUse { next_rev, bound })
    }

    /// Index of the next run of the page of run `i`, or [`NEVER`].
    #[inline]
    pub fn next(&self, i: usize) -> u64 {
        match self.next_rev[self.next_rev.len() - 1 - i] {
            NEVER32 => NEVER,
            j => u64::from(j),
        }
    }

    /// Runs annotated.
    pub fn len(&self) -> usize {
        self.next_rev.len()
    }

    /// True for an empty trace.
    pub fn is_empty(&self) -> bool {
        self.next_rev.is_empty()
    }

    /// One more than the largest page number.
    pub fn page_bound(&self) -> u32 {
        self.bound
    }
}

fn too_many_runs(reader: &TraceReader) -> TraceError {
    TraceError::Corrupt {
        path: reader.path().to_path_buf(),
        offset: 0,
        what: format!(
            "the chunks hold more or fewer runs than the header's {}",
            reader.runs()
        ),
    }
}

fn page_out_of_range(reader: &TraceReader, page: u32, bound: u32) -> TraceError {
    TraceError::Corrupt {
        path: reader.path().to_path_buf(),
        offset: 0,
        what: format!("page {page} in a chunk; the header counts {bound} distinct pages"),
    }
}

/// MIN state: an indexed max-heap of (key, page) over the resident pages.
#[derive(Clone, Debug)]
pub struct Min {
    heap: Vec<(u64, u32)>,
    pos: Vec<u32>,
    cap: u32,
}

impl Min {
    /// MIN over `frames` frames [frames] for the string annotated by `nu`.
    pub fn new(frames: u32, nu: &NextUse<'_>) -> Self {
        Min {
            heap: Vec::with_capacity(frames.min(nu.page_bound()) as usize),
            pos: vec![NIL; nu.page_bound() as usize],
            cap: frames,
        }
    }

    /// MIN over `frames` frames [frames] for the trace annotated by `nu`.
    pub fn for_trace(frames: u32, nu: &TraceNextUse) -> Self {
        Min {
            heap: Vec::with_capacity(frames.min(nu.page_bound()) as usize),
            pos: vec![NIL; nu.page_bound() as usize],
            cap: frames,
        }
    }

    #[inline]
    fn key(page: u32, next: u64, mem: &Memory) -> u64 {
        if next == NEVER {
            (1u64 << 63) | (u64::from(!mem.is_dirty(page)) << 32) | u64::from(u32::MAX - page)
        } else {
            next
        }
    }

    /// One run of `page` whose next reference is at `next` [references] (or [`NEVER`]); the
    /// driver has already set the change bit if the run writes. Returns `true` on a hit.
    #[inline]
    pub fn reference(&mut self, page: u32, next: u64, mem: &mut Memory) -> bool {
        let k = Self::key(page, next, mem);
        let i = self.pos[page as usize];
        if i != NIL {
            // The page's old key was this run's index, the smallest of all; its new key is
            // larger, so it can only move up the max-heap.
            self.heap[i as usize].0 = k;
            self.sift_up(i as usize);
            return true;
        }
        if (self.heap.len() as u32) < self.cap {
            self.heap.push((k, page));
            let i = self.heap.len() - 1;
            self.pos[page as usize] = i as u32;
            self.sift_up(i);
        } else {
            let victim = self.heap[0].1;
            self.pos[victim as usize] = NIL;
            mem.reclaim(victim);
            self.heap[0] = (k, page);
            self.pos[page as usize] = 0;
            self.sift_down(0);
        }
        false
    }

    fn sift_up(&mut self, mut i: usize) -> usize {
        let e = self.heap[i];
        while i > 0 {
            let p = (i - 1) / 2;
            if self.heap[p].0 >= e.0 {
                break;
            }
            self.heap[i] = self.heap[p];
            self.pos[self.heap[i].1 as usize] = i as u32;
            i = p;
        }
        self.heap[i] = e;
        self.pos[e.1 as usize] = i as u32;
        i
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        let e = self.heap[i];
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let c = if r < n && self.heap[r].0 > self.heap[l].0 {
                r
            } else {
                l
            };
            if self.heap[c].0 <= e.0 {
                break;
            }
            self.heap[i] = self.heap[c];
            self.pos[self.heap[i].1 as usize] = i as u32;
            i = c;
        }
        self.heap[i] = e;
        self.pos[e.1 as usize] = i as u32;
    }

    /// True if `page` is resident.
    pub fn is_resident(&self, page: u32) -> bool {
        self.pos.get(page as usize).is_some_and(|&i| i != NIL)
    }

    /// Pages resident now [pages].
    pub fn resident(&self) -> u32 {
        self.heap.len() as u32
    }

    /// Resident pages by decreasing key (next victim first), for step mode.
    pub fn state(&self) -> PolicyState {
        let mut v = self.heap.clone();
        v.sort_unstable_by_key(|e| std::cmp::Reverse(e.0));
        PolicyState {
            lists: vec![(
                "resident by next use (farthest first)".into(),
                v.into_iter().map(|(_, p)| p).collect(),
            )],
            ..PolicyState::default()
        }
    }
}
