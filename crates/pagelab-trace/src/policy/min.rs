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
//! and the victim is the page of largest key. How [`Min`] finds it (a scan, or a near set and
//! a far heap) is said at the type; every way reclaims the same page, since keys are distinct.
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
/// while that is cheap; past that, a near set and a far heap.
///
/// A hit only raises the key of the page referenced: its old key was this run's index, the
/// smallest of all. In *scan* mode the entries are unordered: a hit is one store and a fault
/// scans them for the largest key, so the cost is runs + faults x frames. When the scans have
/// cost more than [`Min::SCAN_BUDGET`] entries per run so far, MIN switches to *heap* mode for
/// good, where each page referenced goes by how far ahead its next use lies:
///
/// - less than [`Min::NEAR_FRAMES`] x frames runs ahead: to the *near* set, unordered, whose
///   largest key is kept. A hit that stays near is one store and a `max`: the old key was the
///   smallest, so the largest can only grow. On a locality trace most hits are of this kind.
/// - farther (or never again): to the *far* set, an indexed binary max-heap; a hit sifts the
///   page up (its key only grows).
///
/// At a fault with full memory the victim is the larger of the heap's top and the near set's
/// largest key; only when the near set holds it is the near set scanned (for its new largest).
/// Either way it is the resident page of largest key, the one the scan would find.
#[derive(Clone, Debug)]
pub struct Min {
    /// Scan mode: every resident page, unordered. Heap mode: the far pages, a max-heap.
    heap: Vec<(u64, u32)>,
    /// Heap mode: the near pages, unordered.
    near: Vec<(u64, u32)>,
    /// Largest key in `near` (0 when it is empty).
    near_max: u64,
    /// Per page: its index in `heap`, [`IN_NEAR`] | its index in `near`, or `NIL`.
    pos: Vec<u32>,
    cap: u32,
    /// A next use less than this many runs ahead is near (heap mode) [runs].
    near_runs: u64,
    is_heap: bool,
    n_runs: u64,
    n_scanned: u64,
}

/// Tag of a `pos` entry that indexes the near set (resident pages number below 2^31: `pos`
/// alone would take 8 GB before that).
const IN_NEAR: u32 = 1 << 31;

impl Min {
    /// Entries scanned per run, on average, beyond which MIN keeps a heap instead [entries]
    /// -- parameter: a heap costs a sift of about log2(frames) levels at every far hit.
    pub const SCAN_BUDGET: u64 = 4;

    /// A page whose next use is less than this many times the frames [runs] ahead goes to the
    /// near set in heap mode -- parameter (speed only: the victims do not depend on it).
    pub const NEAR_FRAMES: u64 = 2;

    /// The near limit's ceiling [runs]: a page never referenced again is never near, since its
    /// key (and [`NEVER`]) lies at least 2^63 - 2^32 runs ahead of any run.
    const NEAR_LIMIT: u64 = 1 << 62;

    fn with_bound(frames: u32, bound: u32) -> Self {
        let cap = frames.min(bound) as usize;
        debug_assert!(
            cap < IN_NEAR as usize,
            "resident pages must number below 2^31"
        );
        Min {
            heap: Vec::with_capacity(cap),
            near: Vec::with_capacity(cap),
            near_max: 0,
            pos: vec![NIL; bound as usize],
            cap: frames,
            near_runs: (Self::NEAR_FRAMES * u64::from(frames)).min(Self::NEAR_LIMIT),
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

    /// Starts in heap mode with the given near limit [runs] (tests: every mode, every split).
    #[cfg(test)]
    pub(crate) fn forced(mut self, heap: bool, near_runs: u64) -> Self {
        self.is_heap = heap;
        self.near_runs = near_runs.min(Self::NEAR_LIMIT);
        self
    }

    #[inline]
    fn key(page: u32, next: u64, mem: &Memory) -> u64 {
        if next == NEVER {
            never_key(page, mem.is_dirty(page))
        } else {
            next
        }
    }

    /// One run (index `now`) of `page`, whose next run is `next` (or [`NEVER`]); the driver has
    /// already set the change bit if the run writes. Returns `true` on a hit.
    #[inline]
    pub fn reference(&mut self, page: u32, next: u64, now: u64, mem: &mut Memory) -> bool {
        let k = Self::key(page, next, mem);
        self.n_runs += 1;
        let i = self.pos[page as usize];
        if self.is_heap {
            return self.reference_heap(page, k, now, i, mem);
        }
        if i != NIL {
            self.heap[i as usize].0 = k;
            return true;
        }
        if (self.heap.len() as u32) < self.cap {
            self.pos[page as usize] = self.heap.len() as u32;
            self.heap.push((k, page));
            return false;
        }
        let at = self.scan();
        let victim = self.heap[at].1;
        self.pos[victim as usize] = NIL;
        mem.reclaim(victim);
        self.heap[at] = (k, page);
        self.pos[page as usize] = at as u32;
        if self.n_scanned > Self::SCAN_BUDGET * self.n_runs {
            self.heapify(now);
        }
        false
    }

    /// [`Min::reference`] in heap mode; `k` is the new key, `i` the page's `pos`.
    fn reference_heap(&mut self, page: u32, k: u64, now: u64, i: u32, mem: &mut Memory) -> bool {
        let near = k.wrapping_sub(now) < self.near_runs;
        if i != NIL {
            if i & IN_NEAR != 0 {
                let j = (i & !IN_NEAR) as usize;
                if near {
                    self.near[j].0 = k;
                    self.near_max = self.near_max.max(k);
                } else {
                    self.remove_near(j);
                    self.insert(k, page, false);
                }
            } else if near {
                self.remove_far(i as usize);
                self.insert(k, page, true);
            } else {
                self.heap[i as usize].0 = k;
                self.sift_up(i as usize);
            }
            return true;
        }
        if self.resident() < self.cap {
            self.insert(k, page, near);
            return false;
        }
        let victim = match self.heap.first() {
            Some(&(top, v)) if self.near.is_empty() || top > self.near_max => {
                if near {
                    self.remove_far(0);
                } else {
                    // The new page takes the top's place and sinks.
                    self.heap[0] = (k, page);
                    self.pos[page as usize] = 0;
                    self.sift_down(0);
                }
                v
            }
            _ => {
                let j = self.near_scan().0;
                let v = self.near[j].1;
                self.remove_near(j);
                v
            }
        };
        self.pos[victim as usize] = NIL;
        mem.reclaim(victim);
        if self.pos[page as usize] == NIL {
            self.insert(k, page, near);
        }
        false
    }

    /// Adds `page` with key `k` to the near set or the far heap.
    #[inline]
    fn insert(&mut self, k: u64, page: u32, near: bool) {
        if near {
            self.pos[page as usize] = IN_NEAR | self.near.len() as u32;
            self.near.push((k, page));
            self.near_max = self.near_max.max(k);
        } else {
            self.pos[page as usize] = self.heap.len() as u32;
            self.heap.push((k, page));
            self.sift_up(self.heap.len() - 1);
        }
    }

    /// Takes entry `j` out of the near set (the page's `pos` is the caller's to set).
    #[inline]
    fn remove_near(&mut self, j: usize) {
        let (k, _) = self.near.swap_remove(j);
        if let Some(&(_, moved)) = self.near.get(j) {
            self.pos[moved as usize] = IN_NEAR | j as u32;
        }
        if k == self.near_max {
            self.near_max = self.near_scan().1;
        }
    }

    /// Takes entry `j` out of the far heap (the page's `pos` is the caller's to set).
    #[inline]
    fn remove_far(&mut self, j: usize) {
        let last = self.heap.pop().expect("a far page to remove");
        if j < self.heap.len() {
            self.heap[j] = last;
            self.pos[last.1 as usize] = j as u32;
            let j = self.sift_up(j);
            self.sift_down(j);
        }
    }

    /// The near entry of largest key and that key (0, 0 when the set is empty).
    fn near_scan(&self) -> (usize, u64) {
        let mut best = (0, 0);
        for (j, e) in self.near.iter().enumerate() {
            if e.0 > best.1 {
                best = (j, e.0);
            }
        }
        best
    }

    /// Runs `runs`, all past the warm-up, their next uses read from `next`; returns the
    /// faults. The common hit -- any hit in scan mode, a hit that stays near in heap mode -- is
    /// handled here in a loop over tables borrowed once; every other run goes through
    /// [`Min::reference`].
    pub(crate) fn run_block(
        &mut self,
        runs: &[Run],
        next: &mut NextUseCursor<'_>,
        mem: &mut Memory,
    ) -> u64 {
        let (mut faults, mut i) = (0u64, 0usize);
        while i < runs.len() {
            let slow = if self.is_heap {
                self.near_hits(runs, &mut i, next, mem)
            } else {
                self.scan_hits(runs, &mut i, next, mem)
            };
            if let Some((page, nu, now)) = slow {
                faults += u64::from(!self.reference(page, nu, now, mem));
            }
        }
        faults
    }

    /// Scan mode: the hits from `runs[*i]` on, each one store; returns the first fault (page,
    /// next use, run index), its change bit set.
    #[inline(always)]
    fn scan_hits(
        &mut self,
        runs: &[Run],
        i: &mut usize,
        next: &mut NextUseCursor<'_>,
        mem: &mut Memory,
    ) -> Option<(u32, u64, u64)> {
        let (pos, heap, dirty) = (&self.pos[..], &mut self.heap[..], &mut mem.dirty[..]);
        let start = *i;
        let mut slow = None;
        while let Some(r) = runs.get(*i) {
            *i += 1;
            let p = r.page as usize;
            dirty[p] |= r.kind.is_write();
            let (now, nu) = (next.at(), next.next_use());
            let slot = pos[p];
            if slot == NIL {
                slow = Some((r.page, nu, now));
                break;
            }
            heap[slot as usize].0 = if nu == NEVER {
                never_key(r.page, dirty[p])
            } else {
                nu
            };
        }
        // The fault is counted by `reference`.
        self.n_runs += (*i - start - usize::from(slow.is_some())) as u64;
        slow
    }

    /// Heap mode: the hits that stay near from `runs[*i]` on, each one store and a `max`;
    /// returns the first other run (page, next use, run index), its change bit set.
    #[inline(always)]
    fn near_hits(
        &mut self,
        runs: &[Run],
        i: &mut usize,
        next: &mut NextUseCursor<'_>,
        mem: &mut Memory,
    ) -> Option<(u32, u64, u64)> {
        let (pos, near, dirty) = (&self.pos[..], &mut self.near[..], &mut mem.dirty[..]);
        let (mut near_max, lim) = (self.near_max, self.near_runs);
        // Copies of the cursor and the index, so that they stay in registers.
        let (mut cur, mut j) = (next.clone(), *i);
        let mut slow = None;
        while let Some(r) = runs.get(j) {
            j += 1;
            let p = r.page as usize;
            dirty[p] |= r.kind.is_write();
            let (now, nu) = (cur.at(), cur.next_use());
            let slot = pos[p];
            // NIL has the tag too: a fault is never near. A never-again next use is far.
            if slot == NIL || slot & IN_NEAR == 0 || nu.wrapping_sub(now) >= lim {
                slow = Some((r.page, nu, now));
                break;
            }
            near[(slot & !IN_NEAR) as usize].0 = nu;
            near_max = near_max.max(nu);
        }
        (*next, *i) = (cur, j);
        self.near_max = near_max;
        slow
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

    /// Leaves scan mode at run `now`: the entries split into near and far, the far ones
    /// ordered as a max-heap (Floyd's bottom-up construction).
    fn heapify(&mut self, now: u64) {
        self.is_heap = true;
        for (k, page) in std::mem::take(&mut self.heap) {
            let near = k.wrapping_sub(now) < self.near_runs;
            let v = if near { &mut self.near } else { &mut self.heap };
            self.pos[page as usize] = v.len() as u32 | if near { IN_NEAR } else { 0 };
            v.push((k, page));
        }
        self.near_max = self.near_scan().1;
        for i in (0..self.heap.len() / 2).rev() {
            self.sift_down(i);
        }
    }

    /// Moves entry `i` up to its place; returns where it landed. The tables are borrowed as
    /// slices once, so that no store reloads them.
    fn sift_up(&mut self, mut i: usize) -> usize {
        let (heap, pos) = (&mut self.heap[..], &mut self.pos[..]);
        let e = heap[i];
        while i > 0 {
            let p = (i - 1) / 2;
            let pe = heap[p];
            if pe.0 >= e.0 {
                break;
            }
            heap[i] = pe;
            pos[pe.1 as usize] = i as u32;
            i = p;
        }
        heap[i] = e;
        pos[e.1 as usize] = i as u32;
        i
    }

    /// Moves entry `i` down to its place; the larger child is picked without a branch.
    fn sift_down(&mut self, mut i: usize) {
        let (heap, pos) = (&mut self.heap[..], &mut self.pos[..]);
        let n = heap.len();
        let e = heap[i];
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let c = if l + 1 < n {
                l + usize::from(heap[l + 1].0 > heap[l].0)
            } else {
                l
            };
            let ce = heap[c];
            if ce.0 <= e.0 {
                break;
            }
            heap[i] = ce;
            pos[ce.1 as usize] = i as u32;
            i = c;
        }
        heap[i] = e;
        pos[e.1 as usize] = i as u32;
    }

    /// True if `page` is resident.
    pub fn is_resident(&self, page: u32) -> bool {
        self.pos.get(page as usize).is_some_and(|&i| i != NIL)
    }

    /// Pages resident now [pages].
    pub fn resident(&self) -> u32 {
        (self.heap.len() + self.near.len()) as u32
    }

    /// Resident pages by decreasing key (next victim first), for step mode.
    pub fn state(&self) -> PolicyState {
        let mut v: Vec<_> = self.heap.iter().chain(&self.near).copied().collect();
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
