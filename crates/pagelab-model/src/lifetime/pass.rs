//! The lifetime pass over a locality program's transactions ([`super`]): three LRU stacks fed
//! at once, one for each fate of a program's pages while it is out of the set (reading
//! `twin-drop-survival`):
//!
//! ```text
//!   cold   a fresh stack at every stay: nothing survives a drop or a think
//!   txn    one stack per transaction: its pages survive its drops, not its think
//!   warm   one stack across the transactions: everything survives
//! ```
//!
//! A stay ends at the in-queue slice (the first, then each later one) and, where the load
//! controller drops the user there, at a terminal write (reading `twin-false-drop-stays`).

use super::{StayRules, RUN_BUDGET};
use crate::estimate::EstimateSums;
use pagelab_core::random::{exponential, RngStreams};
use pagelab_sys::demands::{ClassDemand, CommandDemand};
use pagelab_sys::workload::LocalityModel;
use pagelab_trace::curve::LruStack;
use pagelab_trace::{ReferenceSource, Run, TraceError};

/// Per-size sums of one view: faults, writes, and Σ over references of min(distinct so far, m).
#[derive(Clone, Debug)]
pub(super) struct Sums {
    pub(super) faults: Vec<f64>,
    pub(super) writes: Vec<f64>,
    pub(super) occupancy: Vec<f64>,
}

impl Sums {
    pub(super) fn new(len: usize) -> Sums {
        Sums {
            faults: vec![0.0; len],
            writes: vec![0.0; len],
            occupancy: vec![0.0; len],
        }
    }

    /// Adds `stack`'s faults and writes over `refs` references and `res`'s residency, each
    /// divided by `per`; returns the stack's faults.
    pub(super) fn add(
        &mut self,
        stack: &LruStack,
        refs: f64,
        res: &mut Residency,
        per: f64,
    ) -> Vec<f64> {
        let (f, w) = per_size(stack, refs, self.faults.len());
        let occ = res.take(self.faults.len());
        for m in 0..self.faults.len() {
            self.faults[m] += f[m] / per;
            self.writes[m] += w[m] / per;
            self.occupancy[m] += occ[m] / per;
        }
        f
    }

    /// Adds `other` weighted by `w`.
    pub(super) fn add_weighted(&mut self, other: &Sums, w: f64) {
        for m in 0..self.faults.len() {
            self.faults[m] += w * other.faults[m];
            self.writes[m] += w * other.writes[m];
            self.occupancy[m] += w * other.occupancy[m];
        }
    }
}

/// CP-67's estimate over the stays of a stack kept across them: each stay's faults are the
/// stack's since the last stay ended.
#[derive(Clone, Debug)]
pub(super) struct Kept {
    pub(super) sums: EstimateSums,
    last: Vec<f64>,
}

impl Kept {
    fn stay(&mut self, stack: &LruStack, refs: f64, cpu_s: f64) {
        let (now, _) = per_size(stack, refs, self.last.len());
        let stay: Vec<f64> = now.iter().zip(&self.last).map(|(a, b)| a - b).collect();
        self.sums.add(&stay, stack.distinct(), cpu_s);
        self.last = now;
    }
}

/// CP-67's estimate over the stays in each view.
#[derive(Clone, Debug)]
pub(super) struct Estimates {
    pub(super) cold: EstimateSums,
    pub(super) txn: Kept,
    pub(super) warm: Kept,
}

/// Per-size sums over transactions.
pub(super) struct Tally {
    pub(super) cold: Sums,
    pub(super) txn: Sums,
    /// Already per transaction.
    pub(super) warm: Sums,
    pub(super) refs: f64,
    pub(super) distinct: f64,
    pub(super) n: f64,
    /// Drops inside the transactions at a terminal write, and at a slice's end [count].
    pub(super) write_drops: f64,
    pub(super) slice_drops: f64,
    /// `None`: another scheduler than CP-67's.
    pub(super) estimate: Option<Estimates>,
    reference_s: f64,
}

impl Tally {
    /// Empty sums at sizes 0..=size, CP-67's estimate kept where `rules` has its scheduler.
    pub(super) fn new(size: usize, rules: &StayRules) -> Tally {
        let len = size + 1;
        Tally {
            cold: Sums::new(len),
            txn: Sums::new(len),
            warm: Sums::new(len),
            refs: 0.0,
            distinct: 0.0,
            n: 0.0,
            write_drops: 0.0,
            slice_drops: 0.0,
            estimate: rules.estimate.as_ref().map(|r| {
                let e = EstimateSums::new(r, len);
                let kept = Kept {
                    sums: e.clone(),
                    last: vec![0.0; len],
                };
                Estimates {
                    cold: e,
                    txn: kept.clone(),
                    warm: kept,
                }
            }),
            reference_s: rules.reference_s,
        }
    }
}

/// References counted by the distinct pages a stack held when they were made.
pub(super) struct Residency {
    by_distinct: Vec<f64>,
}

impl Residency {
    pub(super) fn new(size: usize) -> Residency {
        Residency {
            by_distinct: vec![0.0; size + 1],
        }
    }

    /// `refs` references made with `distinct` pages referenced so far.
    pub(super) fn note(&mut self, distinct: u32, refs: u64) {
        let d = (distinct as usize).min(self.by_distinct.len() - 1);
        self.by_distinct[d] += refs as f64;
    }

    /// Σ over the references of min(distinct, m), at m = 0..len; then starts over.
    pub(super) fn take(&mut self, len: usize) -> Vec<f64> {
        let mut out = vec![0.0; len];
        let total: f64 = self.by_distinct.iter().sum();
        let (mut below, mut weighted) = (0.0, 0.0);
        for (m, o) in out.iter_mut().enumerate() {
            // Σ_{d<m} h_d d + m Σ_{d≥m} h_d
            *o = weighted + m as f64 * (total - below);
            if let Some(&h) = self.by_distinct.get(m) {
                below += h;
                weighted += h * m as f64;
            }
        }
        self.by_distinct.iter_mut().for_each(|h| *h = 0.0);
        out
    }
}

/// Faults and writes of one stack at sizes 0..len: the pushes during the string, plus the
/// changed pages resident at its end, which are written when reclaimed later.
pub(super) fn per_size(stack: &LruStack, refs: f64, len: usize) -> (Vec<f64>, Vec<f64>) {
    let curve = stack.finish();
    let dirty = stack.dirty_resident();
    let distinct = stack.distinct() as usize;
    let (mut f, mut w) = (vec![0.0; len], vec![0.0; len]);
    for m in 0..len {
        if m == 0 {
            f[m] = refs;
        } else if distinct > 0 {
            let p = curve.points[m.min(distinct) - 1];
            f[m] = p.faults as f64;
            w[m] = p.pushes.unwrap_or(0) as f64 + dirty[m.min(dirty.len() - 1)] as f64;
        }
    }
    (f, w)
}

/// Feeds `runs` to `stack`, private pages only; returns the references fed (shared included).
fn push_private(stack: &mut LruStack, runs: &[Run], shared: u32, buf: &mut Vec<Run>) -> u64 {
    buf.clear();
    let mut refs = 0u64;
    for r in runs {
        refs += u64::from(r.count);
        if r.page >= shared {
            buf.push(Run::new(r.page - shared, r.count, r.kind));
        }
    }
    stack.push_runs(buf);
    refs
}

/// Where a transaction of `target` references of `cmd` is dropped at a terminal write
/// [references], in order, into `out`: the simulator cuts the CPU demand into v + w + 1 equal
/// segments and spreads the w writes among the v VIOs (`system/scheduling.rs`), a write
/// ending segment k + 1.
pub(super) fn write_drops(cmd: &CommandDemand, target: f64, out: &mut Vec<f64>) {
    out.clear();
    let (v, w) = (cmd.vio as usize, cmd.console_writes as usize);
    for k in 0..(v + w) {
        if (k + 1) * w / (v + w) > k * w / (v + w) {
            out.push(target * (k + 1) as f64 / (v + w + 1) as f64);
        }
    }
}

/// The three stacks and their residencies while a command's transactions run.
struct Stacks {
    bound: u32,
    stay: LruStack,
    txn: LruStack,
    warm: LruStack,
    /// Cold, txn, warm.
    res: [Residency; 3],
    batch: Vec<Run>,
    buf: Vec<Run>,
    warm_refs: f64,
    stays: f64,
}

impl Stacks {
    /// One transaction of `target` references, dropped at the writes `drops` [references],
    /// its stays cut at `slices` [references].
    fn transaction(
        &mut self,
        t: &mut Tally,
        model: &mut LocalityModel,
        (target, drops): (f64, &[f64]),
        slices: [f64; 2],
        shared: u32,
    ) -> Result<(), TraceError> {
        self.stay = LruStack::new(self.bound, 0);
        self.txn = LruStack::new(self.bound, 0);
        if let Some(e) = t.estimate.as_mut() {
            e.txn.last.iter_mut().for_each(|x| *x = 0.0);
        }
        let (mut done, mut stay_end, mut stay_start) = (0u64, slices[0], 0u64);
        let mut next_drop = 0;
        while (done as f64) < target {
            self.batch.clear();
            model.next_batch(&mut self.batch)?;
            for i in 0..self.batch.len() {
                if done as f64 >= target {
                    break;
                }
                let at_write = drops.get(next_drop).is_some_and(|&d| done as f64 >= d);
                if at_write || done as f64 >= stay_end {
                    // Dropped at the slice's end or at a write: after a write the user is
                    // readmitted to Q1 with a fresh slice.
                    self.end_stay(t, (done - stay_start) as f64);
                    stay_start = done;
                    if at_write {
                        next_drop += 1;
                        t.write_drops += 1.0;
                        stay_end = done as f64 + slices[0];
                    } else {
                        t.slice_drops += 1.0;
                        stay_end += slices[1];
                    }
                }
                let r = self.batch[i];
                let refs = push_private(&mut self.stay, &[r], shared, &mut self.buf);
                done += refs;
                self.txn.push_runs(&self.buf);
                self.warm.push_runs(&self.buf);
                self.res[0].note(self.stay.distinct(), refs);
                self.res[1].note(self.txn.distinct(), refs);
                self.res[2].note(self.warm.distinct(), refs);
            }
        }
        self.end_stay(t, (done - stay_start) as f64);
        t.txn.add(&self.txn, done as f64, &mut self.res[1], 1.0);
        self.warm_refs += done as f64;
        Ok(())
    }

    /// Ends a stay of `refs` references: its fresh stack into the cold sums, and the
    /// estimate of each view.
    fn end_stay(&mut self, t: &mut Tally, refs: f64) {
        let f = t.cold.add(&self.stay, refs, &mut self.res[0], 1.0);
        t.refs += refs;
        t.distinct += f64::from(self.stay.distinct());
        self.stays += 1.0;
        let cpu_s = refs * t.reference_s;
        if let Some(e) = t.estimate.as_mut() {
            e.cold.add(&f, self.stay.distinct(), cpu_s);
            e.txn.stay(&self.txn, refs, cpu_s);
            e.warm.stay(&self.warm, refs, cpu_s);
        }
        self.stay = LruStack::new(self.bound, 0);
    }
}

/// One command's `cmd` transactions of `class`'s program `model` through the three stacks.
pub(super) fn measure_command(
    class: &ClassDemand,
    cmd: &CommandDemand,
    model: &mut LocalityModel,
    shared: u32,
    rules: &StayRules,
    streams: &RngStreams,
    size: usize,
) -> Result<Tally, TraceError> {
    let mut tally = Tally::new(size, rules);
    let mean_refs = (cmd.cpu_s / rules.reference_s).max(1.0);
    let l = class.locality.as_ref().expect("a locality program");
    let runs_per_txn = mean_refs / l.refs_per_run.max(1.0);
    let txns = ((RUN_BUDGET as f64 / runs_per_txn) as u64).clamp(4, 2_000);
    let mut rng = streams.stream("lifetime-length", 0);
    let bound = l.address_pages + 1;
    let mut s = Stacks {
        bound,
        stay: LruStack::new(bound, 0),
        txn: LruStack::new(bound, 0),
        warm: LruStack::new(bound, 0),
        res: [0; 3].map(|_| Residency::new(size)),
        batch: Vec::new(),
        buf: Vec::new(),
        warm_refs: 0.0,
        stays: 0.0,
    };
    let mut drops = Vec::new();
    for _ in 0..txns {
        let target = if cmd.exponential {
            exponential(&mut rng, mean_refs).max(1.0)
        } else {
            mean_refs
        };
        model.on_transaction_start(cmd.set_fraction);
        drops.clear();
        if rules.false_drops {
            write_drops(cmd, target, &mut drops);
        }
        s.transaction(&mut tally, model, (target, &drops), rules.slices(), shared)?;
    }
    let n = txns as f64;
    tally
        .warm
        .add(&s.warm, s.warm_refs, &mut s.res[2], n.max(1.0));
    tally.n = n;
    // The storage test projects a stay's working set.
    tally.distinct /= s.stays.max(1.0);
    Ok(tally)
}
