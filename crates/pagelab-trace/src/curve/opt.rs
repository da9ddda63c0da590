//! MIN (OPT) at every memory size in one pass: the OPT stack of Mattson, Gecsei, Slutz &
//! Traiger (1970).
//!
//! OPT is a stack algorithm when pages are ranked by a priority that does not depend on the
//! memory size: here, the time of the page's next reference (sooner = higher priority; pages
//! never referenced again rank last). The stack update at a reference to x at depth d:
//!
//! ```text
//!   x goes to the top; the old top is carried down; at each depth i = 2 .. d-1 the carried
//!   page and the page at i are compared: the one referenced sooner stays at i, the other is
//!   carried on; the carried page finally takes depth d (x's old place), or a new bottom
//!   place if x was not in the stack.
//! ```
//!
//! With C frames MIN holds the top C pages and the reference faults exactly when d > C, so the
//! histogram of depths gives the faults at every size, as for LRU. Ties among pages never
//! referenced again do not change the faults, so the counts equal those of
//! [`crate::policy::simulate`] with MIN at every size.
//!
//! Cost: O(d) per run (the walk down to the page), so O(runs x mean depth) time, O(pages)
//! memory besides the next-use annotation (4 bytes a run in memory; about 2 bytes a run over a
//! trace file, [`opt_curve_trace`], which never holds the runs themselves). Pushes are not given (`None`):
//! MIN's dirty rule picks among ties, which the stack does not model.
//!
//! Truncation: the update of the top C levels depends only on those levels and on whether x
//! is among them, so [`opt_curve_upto`] keeps only the top `max_frames` levels (a flag per page
//! says whether it is among them; the page carried past the last level is dropped) and walks at
//! most `max_frames` levels a run: exact for every size up to `max_frames`.

use super::{Curve, CurvePoint};
use crate::format::{PrefetchReader, TraceReader};
use crate::policy::min::{TraceNextUse, NEVER};
use crate::policy::NextUse;
use crate::{ReferenceSource, Run, TraceError};
use std::path::Path;

/// The MIN curve at every size 1..=distinct pages of the annotated string, in one pass;
/// references before `warmup` [references] are not counted.
///
/// ```
/// use pagelab_trace::curve::opt_curve;
/// use pagelab_trace::policy::NextUse;
/// use pagelab_trace::VecSource;
/// let s = VecSource::from_pages(&[1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5]);
/// let c = opt_curve(&NextUse::compute(s.runs()), 0);
/// assert_eq!(c.at(3).unwrap().faults, 7);
/// assert_eq!(c.at(4).unwrap().faults, 6);
/// ```
pub fn opt_curve(nu: &NextUse<'_>, warmup: u64) -> Curve {
    opt_curve_upto(nu, warmup, u32::MAX)
}

/// The MIN curve at every size 1..=min(max_frames, distinct pages), keeping only the top
/// `max_frames` levels of the OPT stack (O(min(depth, max_frames)) a run).
pub fn opt_curve_upto(nu: &NextUse<'_>, warmup: u64, max_frames: u32) -> Curve {
    let mut st = OptStack::new(nu.page_bound(), warmup, max_frames);
    for (i, &r) in nu.runs().iter().enumerate() {
        st.push(r, nu.next(i));
    }
    st.finish()
}

/// The MIN curve of the trace file at `path`, as [`opt_curve_upto`], in bounded memory: one
/// backward pass over the chunks for next-use (about 2 bytes a run, [`TraceNextUse`]), then one
/// forward pass; in both, chunks decode on other threads while this one works.
pub fn opt_curve_trace(path: &Path, warmup: u64, max_frames: u32) -> Result<Curve, TraceError> {
    let nu = TraceNextUse::compute_prefetched(path)?;
    let reader = TraceReader::open(path)?;
    let mut st = OptStack::new(nu.page_bound(), warmup, max_frames);
    let mut next = nu.cursor();
    let mut source = PrefetchReader::new(reader);
    let mut block = Vec::new();
    loop {
        block.clear();
        if !source.next_batch(&mut block)? {
            break;
        }
        for &r in &block {
            st.push(r, next.next_use());
        }
    }
    Ok(st.finish())
}

/// The OPT stack, truncated to its top `limit` levels, and its depth histogram.
struct OptStack {
    /// (next use, page), top first.
    stack: Vec<(u64, u32)>,
    in_stack: Vec<bool>,
    limit: usize,
    hist: Vec<u64>,
    cold: u64,
    time: u64,
    warmup: u64,
}

impl OptStack {
    fn new(bound: u32, warmup: u64, max_frames: u32) -> Self {
        let bound = bound as usize;
        let limit = (max_frames as usize).clamp(1, bound.max(1));
        OptStack {
            stack: Vec::with_capacity(limit),
            in_stack: vec![false; bound],
            limit,
            hist: vec![0; limit + 2],
            cold: 0,
            time: 0,
            warmup,
        }
    }

    /// One run whose page is next referenced at run `next` (or [`NEVER`]).
    #[inline]
    fn push(&mut self, r: Run, next: u64) {
        let counted = self.time >= self.warmup;
        let entry = (next, r.page);
        let key = |e: (u64, u32)| if e.0 == NEVER { u64::MAX } else { e.0 };
        let stack = &mut self.stack;
        match stack.first() {
            Some(&(_, p)) if p == r.page => {
                stack[0] = entry;
                self.hist[1] += u64::from(counted);
            }
            None => {
                stack.push(entry);
                self.in_stack[r.page as usize] = true;
                self.cold += u64::from(counted);
            }
            Some(_) => {
                let present = self.in_stack[r.page as usize];
                let mut carry = stack[0];
                stack[0] = entry;
                let mut depth = 0;
                for (j, slot) in stack.iter_mut().enumerate().skip(1) {
                    if present && slot.1 == r.page {
                        *slot = carry;
                        depth = j + 1;
                        break;
                    }
                    if key(carry) < key(*slot) {
                        std::mem::swap(&mut carry, slot);
                    }
                }
                if depth == 0 {
                    // x came from below the kept levels (or is new): a fault at every size kept.
                    self.in_stack[r.page as usize] = true;
                    if stack.len() < self.limit {
                        stack.push(carry);
                    } else {
                        self.in_stack[carry.1 as usize] = false;
                    }
                    self.cold += u64::from(counted);
                } else {
                    self.hist[depth] += u64::from(counted);
                }
            }
        }
        self.time += u64::from(r.count);
    }

    fn finish(self) -> Curve {
        let n = self.stack.len().max(1) as u32;
        debug_assert!(n as usize <= self.limit);
        let references = self.time - self.warmup.min(self.time);
        let mut above: u64 = self.hist.iter().skip(2).sum();
        let mut points = Vec::with_capacity(n as usize);
        for c in 1..=n {
            if c > 1 {
                above -= self.hist[c as usize];
            }
            points.push(CurvePoint::new(c, references, self.cold + above, None));
        }
        Curve {
            policy: "min".into(),
            warmup: self.warmup,
            points,
        }
    }
}
