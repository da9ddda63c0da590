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

pub use super::next_use::{NextUse, NextUseCursor, TraceNextUse, NEVER};
use super::{Memory, ParamInfo, PolicyState, SpecParams, NIL};
use crate::Run;
use serde::{Deserialize, Serialize};

/// MIN has no parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MinSpec {}

impl SpecParams for MinSpec {
    const PARAMS: &'static [ParamInfo] = &[];
}

/// The key of a page never referenced again: above every time, a clean page above a changed
/// one, then the lower page number above (see "The dirty-page rule").
#[inline(always)]
fn never_key(page: u32, dirty: bool) -> u64 {
    (1u64 << 63) | (u64::from(!dirty) << 32) | u64::from(u32::MAX - page)
}

/// MIN state: the resident pages with their keys, scanned for the largest key at a fault
/// while that is cheap, an indexed max-heap once it is not.
///
/// A hit only raises the key of the page referenced (its old key was this reference's time,
/// the smallest of all). In *scan* mode the entries are unordered: a hit is one store and a
/// fault scans them for the largest key, so the cost is runs + faults x frames. When the scans
/// have cost more than [`Min::SCAN_BUDGET`] entries per run so far, the entries are heapified
/// once and every later hit sifts its page up in O(log frames). Keys are distinct, so both modes
/// reclaim the same page.
#[derive(Clone, Debug)]
pub struct Min {
    heap: Vec<(u64, u32)>,
    pos: Vec<u32>,
    cap: u32,
    is_heap: bool,
    n_runs: u64,
    n_scanned: u64,
}

impl Min {
    /// Entries scanned per run, on average, beyond which MIN keeps a heap instead [entries]
    /// -- parameter: a heap costs a sift of about log2(frames) levels at every hit.
    pub const SCAN_BUDGET: u64 = 4;

    fn with_bound(frames: u32, bound: u32) -> Self {
        Min {
            heap: Vec::with_capacity(frames.min(bound) as usize),
            pos: vec![NIL; bound as usize],
            cap: frames,
            is_heap: false,
            n_runs: 0,
            n_scanned: 0,
        }
    }

    /// MIN over `frames` frames [frames] for the string annotated by `nu`.
    pub fn new(frames: u32, nu: &NextUse<'_>) -> Self {
        Self::with_bound(frames, nu.page_bound())
    }

    /// MIN over `frames` frames [frames] for the trace annotated by `nu`.
    pub fn for_trace(frames: u32, nu: &TraceNextUse) -> Self {
        Self::with_bound(frames, nu.page_bound())
    }

    #[inline]
    fn key(page: u32, next: u64, mem: &Memory) -> u64 {
        if next == NEVER {
            never_key(page, mem.is_dirty(page))
        } else {
            next
        }
    }

    /// One run of `page` whose next reference is at `next` [references] (or [`NEVER`]); the
    /// driver has already set the change bit if the run writes. Returns `true` on a hit.
    #[inline]
    pub fn reference(&mut self, page: u32, next: u64, mem: &mut Memory) -> bool {
        let k = Self::key(page, next, mem);
        self.n_runs += 1;
        let i = self.pos[page as usize];
        if i != NIL {
            self.heap[i as usize].0 = k;
            if self.is_heap {
                // The old key was the smallest of all; the new one is larger: it can only
                // move up the max-heap.
                self.sift_up(i as usize);
            }
            return true;
        }
        if (self.heap.len() as u32) < self.cap {
            self.heap.push((k, page));
            let i = self.heap.len() - 1;
            self.pos[page as usize] = i as u32;
            if self.is_heap {
                self.sift_up(i);
            }
            return false;
        }
        let at = if self.is_heap { 0 } else { self.scan() };
        let victim = self.heap[at].1;
        self.pos[victim as usize] = NIL;
        mem.reclaim(victim);
        self.heap[at] = (k, page);
        self.pos[page as usize] = at as u32;
        if self.is_heap {
            self.sift_down(0);
        } else if self.n_scanned > Self::SCAN_BUDGET * self.n_runs {
            self.heapify();
        }
        false
    }

    /// Runs `runs`, all past the warm-up, their next uses read from `next`; returns the
    /// faults. In scan mode a hit is one store, done here in a loop over tables borrowed once;
    /// a fault, and every run in heap mode, goes through [`Min::reference`].
    pub(crate) fn run_block(
        &mut self,
        runs: &[Run],
        next: &mut NextUseCursor<'_>,
        mem: &mut Memory,
    ) -> u64 {
        let (mut faults, mut i) = (0u64, 0usize);
        while i < runs.len() {
            if !self.is_heap {
                let (pos, heap, dirty) = (&self.pos[..], &mut self.heap[..], &mut mem.dirty[..]);
                let start = i;
                while let Some(r) = runs.get(i) {
                    let slot = pos[r.page as usize];
                    if slot == NIL {
                        break;
                    }
                    dirty[r.page as usize] |= r.kind.is_write();
                    let nu = next.next_use();
                    heap[slot as usize].0 = if nu == NEVER {
                        never_key(r.page, dirty[r.page as usize])
                    } else {
                        nu
                    };
                    i += 1;
                }
                self.n_runs += (i - start) as u64;
            }
            if let Some(r) = runs.get(i) {
                mem.dirty[r.page as usize] |= r.kind.is_write();
                faults += u64::from(!self.reference(r.page, next.next_use(), mem));
                i += 1;
            }
        }
        faults
    }

    /// The entry of largest key (scan mode).
    #[inline]
    fn scan(&mut self) -> usize {
        self.n_scanned += self.heap.len() as u64;
        let (mut at, mut best) = (0, self.heap[0].0);
        for (j, e) in self.heap.iter().enumerate().skip(1) {
            if e.0 > best {
                best = e.0;
                at = j;
            }
        }
        at
    }

    /// Orders the entries as a max-heap (Floyd's bottom-up construction) and stays a heap.
    fn heapify(&mut self) {
        self.is_heap = true;
        for i in (0..self.heap.len() / 2).rev() {
            self.sift_down(i);
        }
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
