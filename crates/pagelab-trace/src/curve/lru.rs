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
//! Distances come from a Fenwick tree over reference times: each page marks the time of its
//! latest run, and the distance is 1 + the marks after the page's own mark: O(log n) a run.
//! Times are run indices; when they reach the tree's capacity the live marks (one per page)
//! are renumbered 0..pages in order and the tree rebuilt, so memory is O(pages) and the
//! builder works on a stream. Inside a run, references 2..count have distance 1.
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

/// One-pass LRU stack: feed runs, then [`finish`](LruStack::finish).
#[derive(Clone, Debug)]
pub struct LruStack {
    last: Vec<u32>,
    m: Vec<u32>,
    fen: Vec<u32>,
    slot_page: Vec<u32>,
    now: u32,
    distinct: u32,
    hist: Vec<u64>,
    push_diff: Vec<i64>,
    cold: u64,
    time: u64,
    warmup: u64,
    /// Per page: its stack depth when the warm-up ended, if not referenced since (else 0).
    wdepth: Vec<u32>,
    warmup_done: bool,
}

impl LruStack {
    /// A stack for pages `0..page_bound` (it grows for larger pages); references before
    /// `warmup` [references] are not counted.
    pub fn new(page_bound: u32, warmup: u64) -> Self {
        let cap = (4 * page_bound as usize).max(1 << 12);
        LruStack {
            last: vec![NIL; page_bound as usize],
            m: vec![NEVER_WRITTEN; page_bound as usize],
            fen: vec![0; cap + 1],
            slot_page: vec![NIL; cap],
            now: 0,
            distinct: 0,
            hist: vec![0; page_bound as usize + 2],
            push_diff: vec![0; page_bound as usize + 2],
            cold: 0,
            time: 0,
            warmup,
            wdepth: vec![0; page_bound as usize],
            warmup_done: false,
        }
    }

    #[inline]
    fn fen_add(&mut self, slot: u32, v: u32) {
        let mut i = slot as usize + 1;
        let n = self.fen.len();
        while i < n {
            self.fen[i] = self.fen[i].wrapping_add(v);
            i += i & i.wrapping_neg();
        }
    }

    /// Marks in slots 0..=slot.
    #[inline]
    fn fen_prefix(&self, slot: u32) -> u32 {
        let mut i = slot as usize + 1;
        let mut s = 0u32;
        while i > 0 {
            s = s.wrapping_add(self.fen[i]);
            i &= i - 1;
        }
        s
    }

    /// Renumbers the live marks 0..distinct and rebuilds the tree (doubling it if half full).
    fn compact(&mut self) {
        let mut live = Vec::with_capacity(self.distinct as usize);
        for s in 0..self.now {
            let p = self.slot_page[s as usize];
            if p != NIL && self.last[p as usize] == s {
                live.push(p);
            }
        }
        let mut cap = self.slot_page.len();
        if live.len() * 2 > cap {
            cap *= 2;
        }
        self.slot_page.clear();
        self.slot_page.resize(cap, NIL);
        self.fen.clear();
        self.fen.resize(cap + 1, 0);
        for (s, &p) in live.iter().enumerate() {
            self.slot_page[s] = p;
            self.last[p as usize] = s as u32;
            self.fen[s + 1] = 1;
        }
        // Linear Fenwick build.
        for i in 1..=cap {
            let j = i + (i & i.wrapping_neg());
            if j <= cap {
                self.fen[j] += self.fen[i];
            }
        }
        self.now = live.len() as u32;
    }

    fn grow_pages(&mut self, page: u32) {
        let n = (page as usize + 1).max(self.last.len() * 2);
        self.last.resize(n, NIL);
        self.m.resize(n, NEVER_WRITTEN);
        self.hist.resize(n + 2, 0);
        self.push_diff.resize(n + 2, 0);
        self.wdepth.resize(n, 0);
    }

    /// At the end of the warm-up: the depth of every page, newest first.
    fn end_warmup(&mut self) {
        self.warmup_done = true;
        let mut depth = 0;
        for s in (0..self.now).rev() {
            let p = self.slot_page[s as usize];
            if p != NIL && self.last[p as usize] == s {
                depth += 1;
                self.wdepth[p as usize] = depth;
            }
        }
    }

    /// Counts the pushes of a page reclaimed changed at the sizes C with lo <= C < d.
    #[inline]
    fn add_pushes(&mut self, page: usize, d: u32) {
        let lo = self.m[page].max(1).max(self.wdepth[page]);
        if lo < d {
            self.push_diff[lo as usize] += 1;
            self.push_diff[d as usize] -= 1;
        }
    }

    /// Feeds runs.
    pub fn push_runs(&mut self, runs: &[Run]) {
        for &r in runs {
            let p = r.page as usize;
            if p >= self.last.len() {
                self.grow_pages(r.page);
            }
            if self.now as usize == self.slot_page.len() {
                self.compact();
            }
            let counted = self.time >= self.warmup;
            if counted && !self.warmup_done {
                self.end_warmup();
            }
            let prev = self.last[p];
            if prev == NIL {
                self.distinct += 1;
                self.cold += u64::from(counted);
            } else {
                let d = self.distinct - self.fen_prefix(prev) + 1;
                if counted {
                    self.hist[d as usize] += 1;
                    self.add_pushes(p, d);
                    self.wdepth[p] = 0;
                }
                if self.m[p] != NEVER_WRITTEN {
                    self.m[p] = self.m[p].max(d);
                }
                self.fen_add(prev, u32::MAX); // -1
            }
            if r.kind.is_write() {
                self.m[p] = 0;
            }
            let s = self.now;
            self.now += 1;
            self.slot_page[s as usize] = r.page;
            self.last[p] = s;
            self.fen_add(s, 1);
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
                if p != NIL && self.last[p as usize] == s {
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
