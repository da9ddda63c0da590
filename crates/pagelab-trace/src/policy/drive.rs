//! The loop over runs shared by every policy (counts, the warm-up split, change bits, the
//! collapse of adjacent runs of one page), and the entry points that run a policy over a string
//! in memory, a stream or a trace file.

use super::{min, Counts, Memory, NextUse, Online, Outcome, PolicySpec, Replacement, INFO};
use crate::{ReferenceSource, Run, TraceError};
use rayon::prelude::*;

/// The loop over runs shared by every policy: counts, warm-up split, change bits.
pub(crate) struct Driver {
    now: u64,
    warmup: u64,
    bound: u32,
    mem: Memory,
    faults: [u64; 2],
    /// Memory counters when the warm-up ended: pushes, size integral.
    at_warmup_end: Option<(u64, u64)>,
}

impl Driver {
    pub(crate) fn new(page_bound: u32, warmup: u64) -> Self {
        let mut d = Driver {
            now: 0,
            warmup,
            bound: page_bound,
            mem: Memory::new(page_bound),
            faults: [0; 2],
            at_warmup_end: None,
        };
        d.maybe_end_warmup();
        d
    }

    fn maybe_end_warmup(&mut self) {
        if self.at_warmup_end.is_none() && self.now >= self.warmup {
            self.at_warmup_end = Some((self.mem.n_pushes, self.mem.size_sum));
        }
    }

    #[inline(always)]
    fn one<P: Replacement>(&mut self, p: &mut P, run: Run, phase: usize) {
        // Branch-free: a quarter of runs write, at random.
        self.mem.dirty[run.page as usize] |= run.kind.is_write();
        let hit = p.reference(run.page, run.count, self.now, &mut self.mem);
        self.faults[phase] += u64::from(!hit);
        self.now += u64::from(run.count);
    }

    /// Drives `runs`: the runs of the warm-up one group at a time (one of them may straddle
    /// its end), the rest in one [`Replacement::run_block`]. Each group of adjacent runs of one
    /// page (runs of different kinds) may go in one call: see "Runs, not references" above for
    /// why that is exact. `refs` is the references in `runs` when the caller knows it (a
    /// chunk's header), else they are counted.
    pub(crate) fn drive<P: Replacement>(&mut self, p: &mut P, runs: &[Run], refs: Option<u64>) {
        let end = refs.map(|r| self.now + r);
        let mut at = 0;
        if self.at_warmup_end.is_none() {
            let Some((&first, rest)) = runs.split_first() else {
                return;
            };
            at = 1;
            let mut cur = first;
            for &r in rest {
                if absorb(&mut cur, r) {
                    at += 1;
                    continue;
                }
                self.drive_one(p, cur);
                if self.at_warmup_end.is_some() {
                    break;
                }
                cur = r;
                at += 1;
            }
            if self.at_warmup_end.is_none() || at == runs.len() {
                self.drive_one(p, cur);
                at = runs.len();
            }
        }
        let measured = &runs[at..];
        let faults = p.run_block(measured, self.now, &mut self.mem);
        self.faults[1] += faults;
        self.end_block(measured, end);
    }

    /// Moves the clock past `measured`, to `end` if the caller knew it.
    #[inline]
    fn end_block(&mut self, measured: &[Run], end: Option<u64>) {
        let counted = || self.now + measured.iter().map(|r| u64::from(r.count)).sum::<u64>();
        debug_assert!(end.is_none_or(|e| e == counted()), "a block's references");
        self.now = end.unwrap_or_else(counted);
    }

    /// Drives MIN over `runs`, next uses from `next`: the warm-up's runs one at a time, the
    /// rest in one [`min::Min::run_block`].
    pub(crate) fn drive_min(
        &mut self,
        m: &mut min::Min,
        runs: &[Run],
        next: &mut min::NextUseCursor<'_>,
        refs: Option<u64>,
    ) {
        let end = refs.map(|r| self.now + r);
        let mut at = 0;
        while self.at_warmup_end.is_none() {
            let Some(&r) = runs.get(at) else {
                return;
            };
            let now = next.at();
            min_run(self, m, r, next.next_use(), now);
            at += 1;
        }
        let measured = &runs[at..];
        self.faults[1] += m.run_block(measured, next, &mut self.mem);
        self.end_block(measured, end);
    }

    /// One (collapsed) run, split at the end of the warm-up if it straddles it.
    #[inline(always)]
    fn drive_one<P: Replacement>(&mut self, p: &mut P, r: Run) {
        if self.at_warmup_end.is_some() {
            self.one(p, r, 1);
            return;
        }
        let left = self.warmup - self.now;
        if u64::from(r.count) <= left {
            self.one(p, r, 0);
        } else {
            let head = left as u32;
            self.one(p, Run { count: head, ..r }, 0);
            self.maybe_end_warmup();
            self.one(
                p,
                Run {
                    count: r.count - head,
                    ..r
                },
                1,
            );
        }
        self.maybe_end_warmup();
    }

    /// Makes sure pages of `runs` fit the tables (streams of unknown page bound).
    fn grow_for(&mut self, runs: &[Run]) -> Option<u32> {
        let m = runs.iter().map(|r| r.page).max()?;
        if m >= self.bound {
            self.bound = (m + 1).max(self.bound.saturating_mul(2)).max(1024);
            self.mem.reserve_pages(self.bound);
            return Some(self.bound);
        }
        None
    }

    pub(crate) fn outcome(
        mut self,
        policy: &PolicySpec,
        frames: u32,
        is_resident: impl Fn(u32) -> bool,
    ) -> Outcome {
        self.maybe_end_warmup();
        let (pushes_w, size_w) = self
            .at_warmup_end
            .unwrap_or((self.mem.n_pushes, self.mem.size_sum));
        let warm_refs = self.warmup.min(self.now);
        let warmup = Counts {
            references: warm_refs,
            faults: self.faults[0],
            pushes: pushes_w,
            resident_sum: size_w,
        };
        let measured = Counts {
            references: self.now - warm_refs,
            faults: self.faults[1],
            pushes: self.mem.n_pushes - pushes_w,
            resident_sum: self.mem.size_sum - size_w,
        };
        let dirty_resident = (0..self.mem.dirty.len() as u32)
            .filter(|&pg| self.mem.dirty[pg as usize] && is_resident(pg))
            .count() as u64;
        let variable = INFO
            .iter()
            .any(|i| i.name == policy.name() && i.variable_space);
        Outcome {
            policy: policy.clone(),
            frames,
            measured,
            warmup,
            dirty_resident,
            fault_rate: measured.fault_rate(),
            mean_resident: variable.then(|| measured.mean_resident()),
        }
    }
}

/// Adds run `r` to `cur` if it is a run of the same page (and the count fits): one call for
/// both, a write if either writes ("Runs, not references" above).
#[inline(always)]
fn absorb(cur: &mut Run, r: Run) -> bool {
    if r.page != cur.page {
        return false;
    }
    let Some(c) = cur.count.checked_add(r.count) else {
        return false;
    };
    cur.count = c;
    cur.kind = if cur.is_write() { cur.kind } else { r.kind };
    true
}

/// The default [`Replacement::run_block`]: each group of adjacent runs of one page in one call
/// to `reference`; returns the faults.
pub(crate) fn run_each<P: Replacement>(p: &mut P, runs: &[Run], now: u64, mem: &mut Memory) -> u64 {
    let Some((&first, rest)) = runs.split_first() else {
        return 0;
    };
    let (mut now, mut faults) = (now, 0u64);
    let mut cur = first;
    for &r in rest {
        if absorb(&mut cur, r) {
            continue;
        }
        mem.dirty[cur.page as usize] |= cur.kind.is_write();
        faults += u64::from(!p.reference(cur.page, cur.count, now, mem));
        now += u64::from(cur.count);
        cur = r;
    }
    mem.dirty[cur.page as usize] |= cur.kind.is_write();
    faults + u64::from(!p.reference(cur.page, cur.count, now, mem))
}

pub(crate) fn check_frames(frames: u32) -> Result<(), TraceError> {
    if frames == 0 {
        return Err(TraceError::invalid("frames: 0; expected at least 1 frame"));
    }
    Ok(())
}

fn page_bound_of(runs: &[Run]) -> u32 {
    runs.iter().map(|r| r.page + 1).max().unwrap_or(0)
}

/// Runs the policy `spec` over `runs` with `frames` frames; the first `warmup` references are
/// counted apart. MIN computes next-use itself (a backward pass over `runs`).
///
/// ```
/// use pagelab_trace::policy::{simulate, PolicySpec};
/// use pagelab_trace::VecSource;
/// let s = VecSource::from_pages(&[1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5]);
/// let fifo = PolicySpec::by_name("fifo").unwrap();
/// assert_eq!(simulate(&fifo, s.runs(), 3, 0).unwrap().measured.faults, 9);
/// assert_eq!(simulate(&fifo, s.runs(), 4, 0).unwrap().measured.faults, 10);
/// ```
pub fn simulate(
    spec: &PolicySpec,
    runs: &[Run],
    frames: u32,
    warmup: u64,
) -> Result<Outcome, TraceError> {
    check_frames(frames)?;
    let bound = page_bound_of(runs);
    match Online::build(spec, frames, bound)? {
        Some(mut p) => {
            let mut d = Driver::new(bound, warmup);
            p.drive(runs, &mut d, None);
            Ok(d.outcome(spec, frames, |pg| p.is_resident(pg)))
        }
        None => simulate_min(spec, &NextUse::compute(runs), frames, warmup),
    }
}

/// MIN over an annotated string (next-use already computed).
pub fn simulate_min(
    spec: &PolicySpec,
    nu: &NextUse<'_>,
    frames: u32,
    warmup: u64,
) -> Result<Outcome, TraceError> {
    check_frames(frames)?;
    let mut m = min::Min::new(frames, nu);
    let mut d = Driver::new(nu.page_bound(), warmup);
    for (i, &r) in nu.runs().iter().enumerate() {
        min_run(&mut d, &mut m, r, nu.next(i), i as u64);
    }
    Ok(d.outcome(spec, frames, |pg| m.is_resident(pg)))
}

/// Runs MIN over a pagelab trace file at `frames` [frames], decoding its chunks as it goes:
/// with `nu` from [`min::TraceNextUse::compute`] on the same file, memory is about 2 bytes a
/// run.
pub fn simulate_min_trace(
    spec: &PolicySpec,
    reader: &mut crate::format::TraceReader,
    nu: &min::TraceNextUse,
    frames: u32,
    warmup: u64,
) -> Result<Outcome, TraceError> {
    check_frames(frames)?;
    if reader.runs() != nu.len() as u64 {
        return Err(TraceError::invalid(format!(
            "{}: next-use annotates {} runs, the trace has {}",
            reader.path().display(),
            nu.len(),
            reader.runs()
        )));
    }
    let mut m = min::Min::for_trace(frames, nu);
    let mut d = Driver::new(nu.page_bound(), warmup);
    let mut buf = Vec::new();
    let mut next = nu.cursor();
    for c in 0..reader.chunk_count() {
        buf.clear();
        let kinds = reader.read_chunk(c, &mut buf)?;
        d.drive_min(&mut m, &buf, &mut next, Some(kinds.iter().sum()));
    }
    Ok(d.outcome(spec, frames, |pg| m.is_resident(pg)))
}

/// One run (index `now`) through MIN, splitting it at the end of the warm-up.
#[inline(always)]
pub(crate) fn min_run(d: &mut Driver, m: &mut min::Min, r: Run, next: u64, now: u64) {
    if r.kind.is_write() {
        d.mem.mark_dirty(r.page);
    }
    if d.at_warmup_end.is_none() && d.now + u64::from(r.count) > d.warmup {
        let left = (d.warmup - d.now) as u32;
        for (part, phase) in [(left, 0usize), (r.count - left, 1)] {
            let hit = m.reference(r.page, next, now, &mut d.mem);
            d.faults[phase] += u64::from(!hit);
            d.now += u64::from(part);
            d.maybe_end_warmup();
        }
        return;
    }
    let phase = usize::from(d.at_warmup_end.is_some());
    let hit = m.reference(r.page, next, now, &mut d.mem);
    d.faults[phase] += u64::from(!hit);
    d.now += u64::from(r.count);
    d.maybe_end_warmup();
}

/// Runs an online policy over any [`ReferenceSource`] in constant memory (apart from per-page
/// tables). MIN is refused: it needs the whole string (use [`simulate`]).
pub fn simulate_stream<S: ReferenceSource + ?Sized>(
    spec: &PolicySpec,
    source: &mut S,
    frames: u32,
    warmup: u64,
) -> Result<Outcome, TraceError> {
    check_frames(frames)?;
    let bound = source.page_bound().unwrap_or(0);
    let Some(mut p) = Online::build(spec, frames, bound)? else {
        return Err(TraceError::invalid(format!(
            "policy `{}`: needs the whole reference string (next-use), so it cannot run on a \
             stream; expected an in-memory string",
            spec.name()
        )));
    };
    let mut d = Driver::new(bound, warmup);
    let mut batch = Vec::with_capacity(1 << 14);
    loop {
        batch.clear();
        if !source.next_batch(&mut batch)? {
            break;
        }
        if let Some(b) = d.grow_for(&batch) {
            p.reserve_pages(b);
        }
        p.drive(&batch, &mut d, None);
    }
    Ok(d.outcome(spec, frames, |pg| p.is_resident(pg)))
}

/// Runs an online policy at every size of `sizes` [frames] in one read of `source`: each batch
/// of runs goes to every size, the sizes spread over the cores. Results in the order of `sizes`.
pub fn simulate_stream_sizes<S: ReferenceSource + ?Sized>(
    spec: &PolicySpec,
    source: &mut S,
    sizes: &[u32],
    warmup: u64,
) -> Result<Vec<Outcome>, TraceError> {
    check_sizes(sizes)?;
    let bound = source.page_bound().unwrap_or(0);
    let mut sims = Vec::with_capacity(sizes.len());
    for &f in sizes {
        let Some(p) = Online::build(spec, f, bound)? else {
            return Err(TraceError::invalid(format!(
                "policy `{}`: needs the whole reference string (next-use), so it cannot run on \
                 a stream; expected an in-memory string",
                spec.name()
            )));
        };
        sims.push((p, Driver::new(bound, warmup)));
    }
    let mut batch = Vec::with_capacity(1 << 14);
    loop {
        batch.clear();
        if !source.next_batch(&mut batch)? {
            break;
        }
        sims.par_iter_mut().for_each(|(p, d)| {
            if let Some(b) = d.grow_for(&batch) {
                p.reserve_pages(b);
            }
            p.drive(&batch, d, None);
        });
    }
    Ok(sims
        .into_iter()
        .zip(sizes)
        .map(|((p, d), &f)| d.outcome(spec, f, |pg| p.is_resident(pg)))
        .collect())
}

pub(crate) fn check_sizes(sizes: &[u32]) -> Result<(), TraceError> {
    if let Some(i) = sizes.iter().position(|&s| s == 0) {
        return Err(TraceError::invalid(format!(
            "sizes[{i}]: 0 frames; expected at least 1 frame"
        )));
    }
    Ok(())
}

/// Runs `spec` at every size of `sizes` [frames], spread over the cores; results are in the
/// order of `sizes` and do not depend on the number of threads.
pub fn simulate_sizes(
    spec: &PolicySpec,
    runs: &[Run],
    sizes: &[u32],
    warmup: u64,
) -> Result<Vec<Outcome>, TraceError> {
    check_sizes(sizes)?;
    if let PolicySpec::Min(_) = spec {
        let nu = NextUse::compute(runs);
        return sizes
            .par_iter()
            .map(|&f| simulate_min(spec, &nu, f, warmup))
            .collect();
    }
    sizes
        .par_iter()
        .map(|&f| simulate(spec, runs, f, warmup))
        .collect()
}
