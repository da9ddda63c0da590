//! LRU at every memory size in one pass: Mattson stack distances, and pushes.
//!
//! **Faults.** The LRU stack distance of a reference is 1 + the number of distinct pages
//! referenced since the previous reference to its page (infinite for a first reference). With
//! C frames LRU faults exactly when the distance exceeds C (Mattson et al. 1970, inclusion
//! property), so with a histogram h(d) of distances and `cold` first references,
//!
//! ```text
//!   faults(C) = cold + sum_{d > C} h(d)        for C = 1 ..= distinct pages.
//! ```
//!
//! Distances come from marks over reference times (Bennett & Kruskal 1975, "LRU stack
//! processing": counts over the time axis in a tree; Almási, Caşcaval & Padua 2002 compare the
//! exact methods): each page marks the time of its latest run, and the distance is 1 + the
//! marks after the page's own mark. The marks are a bitmap with a Fenwick tree over blocks of
//! 512 slots: O(log n) a run, with a small constant. Times are run indices; when they reach the
//! tree's capacity the live marks (one per page) are renumbered 0..pages in order and the tree
//! rebuilt, so memory is O(pages) and the builder works on a stream. Inside a run, references
//! 2..count have distance 1.
//!
//! The [`TOP`] most recent pages are held apart, in order, in a small array and without marks:
//! a run of one of them has its position as distance (a short scan) and moves no mark. Only a
//! run of a page below them touches the tree: its distance is TOP + 1 + the marks after its
//! own, and the oldest top page goes down with a mark at its latest time. With locality most
//! runs stay in the top, so the tree is rarely touched.
//!
//! **Pushes.** For each page keep M, the largest distance of its references since its last
//! write (0 at the write; "never written" is infinite). With C frames the page was loaded at
//! its last reference with distance > C; it is changed when reclaimed iff a write came after
//! that load, that is iff M <= C. It is reclaimed between two references iff the second has
//! distance d > C. So a reference with distance d pushes the page at every size C with
//! max(M, 1) <= C < d: one difference-array update per run, summed at the end. A page never
//! referenced again is reclaimed at the sizes below its depth at the end of the string, and
//! counted the same way then. Changed pages still resident at the end are not pushes (as in
//! [`crate::policy::simulate`]).
//!
//! Warm-up: references before `warmup` are not counted, nor the faults they cause. A push
//! belongs to the phase of the reclaim, which with C frames happens when the page's depth
//! passes C; so for a page last referenced in the warm-up, with depth D when it ended, only
//! the sizes C >= D (still resident then) count: the lower bound becomes max(M, 1, D).

use super::{Curve, CurvePoint};
use crate::{ReferenceSource, Run, TraceError};

const NIL: u32 = u32::MAX;
const NEVER_WRITTEN: u32 = u32::MAX;

/// One mark per page, at the slot (time) of its latest run: a bitmap, and a Fenwick tree over
/// blocks of [`Marks::BLOCK`] slots holding their counts. Marks after a slot are the rest of
/// its block (at most 8 popcounts) plus the blocks after it (a Fenwick query over n/512 blocks,
/// which stays in the first-level cache).
#[derive(Clone, Debug)]
struct Marks {
    bits: Vec<u64>,
    fen: Vec<u32>,
    total: u32,
}

impl Marks {
    /// Slots per block.
    const BLOCK: usize = 512;

    /// `cap` slots (a multiple of [`Marks::BLOCK`]) with slots `0..n` marked.
    fn first(cap: usize, n: usize) -> Self {
        let mut bits = vec![0u64; cap / 64];
        for (w, word) in bits.iter_mut().enumerate().take(n.div_ceil(64)) {
            let k = (n - 64 * w).min(64);
            *word = if k == 64 { u64::MAX } else { (1u64 << k) - 1 };
        }
        let nb = cap / Self::BLOCK;
        let mut fen = vec![0u32; nb + 1];
        for b in 0..nb {
            fen[b + 1] = n.saturating_sub(b * Self::BLOCK).min(Self::BLOCK) as u32;
        }
        for i in 1..=nb {
            let j = i + (i & i.wrapping_neg());
            if j <= nb {
                fen[j] += fen[i];
            }
        }
        Marks {
            bits,
            fen,
            total: n as u32,
        }
    }

    #[inline]
    fn fen_add(&mut self, block: usize, v: u32) {
        let mut i = block + 1;
        while i < self.fen.len() {
            self.fen[i] = self.fen[i].wrapping_add(v);
            i += i & i.wrapping_neg();
        }
    }

    #[inline]
    fn set(&mut self, s: u32) {
        self.bits[(s >> 6) as usize] |= 1u64 << (s & 63);
        self.fen_add(s as usize / Self::BLOCK, 1);
        self.total += 1;
    }

    #[inline]
    fn clear(&mut self, s: u32) {
        self.bits[(s >> 6) as usize] &= !(1u64 << (s & 63));
        self.fen_add(s as usize / Self::BLOCK, u32::MAX);
        self.total -= 1;
    }

    /// Marks in slots after `s`.
    #[inline]
    fn after(&self, s: u32) -> u32 {
        let w = (s >> 6) as usize;
        let bit = s & 63;
        let mut c = if bit == 63 {
            0
        } else {
            (self.bits[w] >> (bit + 1)).count_ones()
        };
        let block = s as usize / Self::BLOCK;
        let block_end = (block + 1) * (Self::BLOCK / 64);
        for x in &self.bits[w + 1..block_end] {
            c += x.count_ones();
        }
        // Blocks 0..=block hold fen_prefix marks; the rest are after s.
        let mut i = block + 1;
        let mut upto = 0u32;
        while i > 0 {
            upto = upto.wrapping_add(self.fen[i]);
            i &= i - 1;
        }
        c + self.total - upto
    }
}

/// What the stack keeps per page (one cache line access a run).
#[derive(Clone, Copy, Debug)]
struct PageState {
    /// Slot of the latest run, or `NIL`.
    last: u32,
    /// Largest distance since the last write (0 at the write), or `NEVER_WRITTEN`.
    m: u32,
    /// Depth when the warm-up ended, if not referenced since (else 0).
    wdepth: u32,
    /// True if the page is among the [`TOP`] most recent (held in order, without a mark).
    in_top: bool,
}

impl PageState {
    const NEW: PageState = PageState {
        last: NIL,
        m: NEVER_WRITTEN,
        wdepth: 0,
        in_top: false,
    };
}

/// Pages at the top of the stack held in order in a small array [pages] -- parameter: a
/// reference within them finds its distance by a short scan, with no mark to move; most
/// references of a program with locality land there.
const TOP: usize = 32;

/// Moves `page`, one of `top`, to its front, shifting the pages before it down one place in
/// the same scan that finds it (no separate copy); returns its position before, from 1.
#[inline]
fn move_to_front(top: &mut [u32], page: u32) -> u32 {
    let mut carry = page;
    for (i, slot) in top.iter_mut().enumerate() {
        let x = std::mem::replace(slot, carry);
        if x == page {
            return i as u32 + 1;
        }
        carry = x;
    }
    unreachable!("a page marked in the top is among the top pages")
}

/// One-pass LRU stack: feed runs, then [`finish`](LruStack::finish).
#[derive(Clone, Debug)]
pub struct LruStack {
    pages: Vec<PageState>,
    /// The most recent pages, most recent first (at most [`TOP`]).
    top: Vec<u32>,
    marks: Marks,
    slot_page: Vec<u32>,
    now: u32,
    distinct: u32,
    hist: Vec<u64>,
    push_diff: Vec<i64>,
    cold: u64,
    time: u64,
    warmup: u64,
    warmup_done: bool,
}

impl LruStack {
    /// A stack for pages `0..page_bound` (it grows for larger pages); references before
    /// `warmup` [references] are not counted.
    pub fn new(page_bound: u32, warmup: u64) -> Self {
        let cap = (4 * page_bound as usize)
            .max(1 << 12)
            .next_multiple_of(Marks::BLOCK);
        LruStack {
            pages: vec![PageState::NEW; page_bound as usize],
            top: Vec::with_capacity(TOP),
            marks: Marks::first(cap, 0),
            slot_page: vec![NIL; cap],
            now: 0,
            distinct: 0,
            hist: vec![0; page_bound as usize + 2],
            push_diff: vec![0; page_bound as usize + 2],
            cold: 0,
            time: 0,
            warmup,
            warmup_done: false,
        }
    }

    /// Renumbers the live marks 0..distinct in time order and rebuilds the marks (doubling
    /// their capacity if half full).
    fn compact(&mut self) {
        let mut live = Vec::with_capacity(self.distinct as usize);
        for s in 0..self.now {
            let p = self.slot_page[s as usize];
            if p != NIL && self.pages[p as usize].last == s {
                live.push(p);
            }
        }
        let mut cap = self.slot_page.len();
        if live.len() * 2 > cap {
            cap *= 2;
        }
        self.slot_page.clear();
        self.slot_page.resize(cap, NIL);
        for (s, &p) in live.iter().enumerate() {
            self.slot_page[s] = p;
            self.pages[p as usize].last = s as u32;
        }
        // The top pages are the most recent: the last live slots, left unmarked.
        self.marks = Marks::first(cap, live.len() - self.top.len());
        self.now = live.len() as u32;
    }

    fn grow_pages(&mut self, page: u32) {
        let n = (page as usize + 1).max(self.pages.len() * 2);
        self.pages.resize(n, PageState::NEW);
        self.hist.resize(n + 2, 0);
        self.push_diff.resize(n + 2, 0);
    }

    /// At the end of the warm-up: the depth of every page, newest first.
    fn end_warmup(&mut self) {
        self.warmup_done = true;
        let mut depth = 0;
        for s in (0..self.now).rev() {
            let p = self.slot_page[s as usize];
            if p != NIL && self.pages[p as usize].last == s {
                depth += 1;
                self.pages[p as usize].wdepth = depth;
            }
        }
    }

    /// Counts the pushes of a page reclaimed changed at the sizes C with lo <= C < d.
    #[inline]
    fn add_pushes(&mut self, page: usize, d: u32) {
        let lo = self.pages[page].m.max(1).max(self.pages[page].wdepth);
        if lo < d {
            self.push_diff[lo as usize] += 1;
            self.push_diff[d as usize] -= 1;
        }
    }

    /// Puts `page` at the head of the top pages; the oldest of them, if they were full, goes
    /// below with a mark at its last slot.
    #[inline]
    fn enter_top(&mut self, page: u32) {
        if self.top.len() == TOP {
            let y = self.top[TOP - 1];
            self.pages[y as usize].in_top = false;
            self.marks.set(self.pages[y as usize].last);
            self.top.copy_within(0..TOP - 1, 1);
        } else {
            self.top.insert(0, page);
        }
        self.top[0] = page;
        self.pages[page as usize].in_top = true;
    }

    /// Feeds runs.
    pub fn push_runs(&mut self, runs: &[Run]) {
        for &r in runs {
            let p = r.page as usize;
            if p >= self.pages.len() {
                self.grow_pages(r.page);
            }
            if self.now as usize == self.slot_page.len() {
                self.compact();
            }
            let counted = self.time >= self.warmup;
            if counted && !self.warmup_done {
                self.end_warmup();
            }
            let prev = self.pages[p].last;
            let d = if prev == NIL {
                self.distinct += 1;
                self.cold += u64::from(counted);
                0
            } else if self.pages[p].in_top {
                move_to_front(&mut self.top, r.page)
            } else {
                let d = self.top.len() as u32 + self.marks.after(prev) + 1;
                self.marks.clear(prev);
                d
            };
            if d > 0 {
                if counted {
                    self.hist[d as usize] += 1;
                    self.add_pushes(p, d);
                    self.pages[p].wdepth = 0;
                }
                if self.pages[p].m != NEVER_WRITTEN {
                    self.pages[p].m = self.pages[p].m.max(d);
                }
            }
            if !self.pages[p].in_top {
                self.enter_top(r.page);
            }
            if r.kind.is_write() {
                self.pages[p].m = 0;
            }
            let s = self.now;
            self.now += 1;
            self.slot_page[s as usize] = r.page;
            self.pages[p].last = s;
            self.time += u64::from(r.count);
        }
    }

    /// Feeds a whole source.
    pub fn push_source<S: ReferenceSource + ?Sized>(
        &mut self,
        src: &mut S,
    ) -> Result<(), TraceError> {
        let mut batch = Vec::with_capacity(1 << 14);
        loop {
            batch.clear();
            if !src.next_batch(&mut batch)? {
                return Ok(());
            }
            self.push_runs(&batch);
        }
    }

    /// Changed pages resident at the end, at every size: entry C is the count with C frames
    /// (entry 0 unused; sizes past the end as the last). A page is resident with C frames iff
    /// its depth D at the end is at most C, and still changed iff no reference since its last
    /// write had a distance over C (M <= C, see **Pushes**): iff max(M, D) <= C.
    pub fn dirty_resident(&self) -> Vec<u64> {
        let n = self.distinct as usize;
        let mut at = vec![0u64; n + 2];
        let mut depth = 0u32;
        for s in (0..self.now).rev() {
            let p = self.slot_page[s as usize];
            if p != NIL && self.pages[p as usize].last == s {
                depth += 1;
                let m = self.pages[p as usize].m;
                if m != NEVER_WRITTEN {
                    at[m.max(depth) as usize] += 1;
                }
            }
        }
        for c in 1..at.len() {
            at[c] += at[c - 1];
        }
        at
    }

    /// Distinct pages seen [pages].
    pub fn distinct(&self) -> u32 {
        self.distinct
    }

    /// The LRU curve at every size 1..=distinct pages (at least one point).
    pub fn finish(&self) -> Curve {
        let mut me = self.clone();
        me.finish_in_place()
    }

    /// As [`finish`](LruStack::finish), consuming the stack (no copy).
    pub fn into_curve(mut self) -> Curve {
        self.finish_in_place()
    }

    fn finish_in_place(&mut self) -> Curve {
        // Pages never referenced again are reclaimed (and pushed if changed) at the sizes
        // below their depth at the end.
        if self.warmup_done {
            let mut depth = 0;
            for s in (0..self.now).rev() {
                let p = self.slot_page[s as usize];
                if p != NIL && self.pages[p as usize].last == s {
                    depth += 1;
                    self.add_pushes(p as usize, depth);
                }
            }
        }
        let n = self.distinct.max(1);
        let references = self.time - self.warmup.min(self.time);
        let mut points = Vec::with_capacity(n as usize);
        let mut above: u64 = self.hist.iter().skip(2).sum();
        let mut pushes: i64 = 0;
        for c in 1..=n {
            if c > 1 {
                above -= self.hist[c as usize];
            }
            pushes += self.push_diff[c as usize];
            points.push(CurvePoint::new(
                c,
                references,
                self.cold + above,
                Some(pushes as u64),
            ));
        }
        Curve {
            policy: "lru".into(),
            warmup: self.warmup,
            points,
        }
    }
}

/// The LRU curve of `runs` at every size 1..=distinct pages, in one pass.
///
/// ```
/// use pagelab_trace::curve::lru_curve;
/// use pagelab_trace::VecSource;
/// let s = VecSource::from_pages(&[1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5]);
/// let c = lru_curve(s.runs(), 0);
/// assert_eq!(c.at(3).unwrap().faults, 10);
/// assert_eq!(c.at(4).unwrap().faults, 8);
/// ```
pub fn lru_curve(runs: &[Run], warmup: u64) -> Curve {
    let bound = runs.iter().map(|r| r.page + 1).max().unwrap_or(0);
    let mut s = LruStack::new(bound, warmup);
    s.push_runs(runs);
    s.into_curve()
}
