//! Lifetime curves: faults per transaction against the frames a program holds, measured with
//! the trace lab's one-pass LRU stack ([`pagelab_trace::curve::LruStack`]) on the program's
//! own reference string.
//!
//! A locality program (`cms`, `drifting`) is the simulator's [`LocalityModel`], seeded and
//! driven as the simulator drives it: each transaction starts with
//! `on_transaction_start(set_fraction)` and runs its command's CPU demand (exponential or
//! fixed, as the spec says) in references. Its stack starts empty at each transaction: VM
//! resets a dropped user's reference bits, so under load its pages leave within a scan cycle
//! while it thinks (TETZ "Background"), and each stay reloads what it references. The
//! lifetime L(m) = references / faults(m) is Denning's; a stay's distinct pages (the curve's
//! cold misses) are its working set, which the storage test projects.
//!
//! References to the shared segment count as references but never fault: its pages are the
//! most used of the machine and stay resident (the model gives them their frames up front).
//!
//! A trace program continues across transactions (the simulator resumes it where it was), so
//! its curve is one warm stack over the trace: faults per reference at each size, times the
//! references of a transaction.

use crate::estimate::EstimateSums;
use pagelab_core::random::{exponential, RngStreams};
use pagelab_sys::demands::{ClassDemand, CommandDemand, ServiceDemands};
use pagelab_sys::load_control::cp67_scheduler::Cp67Spec;
use pagelab_sys::workload::LocalityModel;
use pagelab_sys::TraceOpener;
use pagelab_trace::curve::LruStack;
use pagelab_trace::{ReferenceSource, Run, TraceError};

/// Runs of reference string measured per command at most [runs] (enough for a stable mean:
/// hundreds of interactive transactions, a few long ones).
pub const RUN_BUDGET: u64 = 400_000;

/// Faults and page-outs of one transaction at one size.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct LifetimePoint {
    /// Frames the program holds [frames].
    pub frames: u32,
    /// Mean faults per transaction [pages].
    pub faults: f64,
    /// Mean changed pages written per transaction (pushed during the stay, or changed and
    /// resident at its end, written when reclaimed later) [pages].
    pub writes: f64,
    /// Mean references between faults [references].
    pub lifetime: f64,
    /// Mean faults per transaction when the program's pages survive its think time (one
    /// stack across its transactions) [pages].
    pub warm_faults: f64,
    /// Mean changed pages written per transaction, pages surviving [pages].
    pub warm_writes: f64,
    /// Mean resident pages over a stay's references, the stay started with none: the mean
    /// of min(distinct pages so far, frames) (reading `twin-stay-occupancy`) [pages].
    pub occupancy: f64,
    /// The same with the program's pages surviving its think time [pages].
    pub warm_occupancy: f64,
    /// CP-67's storage estimate at this size, averaged over the cold stays (reading
    /// `twin-cp67-estimate`) [pages]; `None` under another scheduler.
    pub estimate: Option<f64>,
    /// The same over the stays with the program's pages surviving [pages].
    pub warm_estimate: Option<f64>,
}

/// A class's lifetime curve, per transaction (its commands mixed by their probabilities).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Lifetime {
    /// Class name.
    pub class: String,
    /// Mean references per transaction [references].
    pub references: f64,
    /// Mean distinct private pages per transaction: the stay's working set [pages].
    pub working_set: f64,
    /// Points at 0..=max frames; beyond the last, the last.
    pub points: Vec<LifetimePoint>,
}

impl Lifetime {
    /// Faults and writes per transaction with `m` frames (linear between whole frames), when
    /// a share `survive` of the program's pages outlives its think time.
    pub fn at(&self, m: f64, survive: f64) -> (f64, f64) {
        let s = survive.clamp(0.0, 1.0);
        let mix = |cold: fn(&LifetimePoint) -> f64, warm: fn(&LifetimePoint) -> f64| {
            s * self.lerp(m, warm) + (1.0 - s) * self.lerp(m, cold)
        };
        (
            mix(|p| p.faults, |p| p.warm_faults),
            mix(|p| p.writes, |p| p.warm_writes),
        )
    }

    /// Mean resident pages of a stay that may grow to `m` frames, when a share `survive` of
    /// the program's pages outlives its think time [pages].
    pub fn occupancy_at(&self, m: f64, survive: f64) -> f64 {
        let s = survive.clamp(0.0, 1.0);
        s * self.lerp(m, |p| p.warm_occupancy) + (1.0 - s) * self.lerp(m, |p| p.occupancy)
    }

    /// CP-67's storage estimate of a stay that may grow to `m` frames, a share `survive` of
    /// the program's pages outliving its drops [pages]; `None` under another scheduler.
    pub fn estimate_at(&self, m: f64, survive: f64) -> Option<f64> {
        self.points.first()?.estimate?;
        let s = survive.clamp(0.0, 1.0);
        let cold = self.lerp(m, |p| p.estimate.unwrap_or(0.0));
        let warm = self.lerp(m, |p| p.warm_estimate.unwrap_or(0.0));
        Some(s * warm + (1.0 - s) * cold)
    }

    /// `f` of the points, linear between whole frames; beyond the last, the last.
    fn lerp(&self, m: f64, f: fn(&LifetimePoint) -> f64) -> f64 {
        let last = self.points.len() - 1;
        let m = m.clamp(0.0, last as f64);
        let i = (m.floor() as usize).min(last);
        let j = (i + 1).min(last);
        let w = m - i as f64;
        let (a, b) = (f(&self.points[i]), f(&self.points[j]));
        a + w * (b - a)
    }
}

/// Per-size sums over transactions.
struct Tally {
    faults: Vec<f64>,
    writes: Vec<f64>,
    warm_faults: Vec<f64>,
    warm_writes: Vec<f64>,
    /// Σ over references of min(distinct so far, m), per size.
    occupancy: Vec<f64>,
    warm_occupancy: Vec<f64>,
    refs: f64,
    distinct: f64,
    n: f64,
    /// CP-67's estimate over the cold stays and over the warm ones, and the warm stack's
    /// faults at the last stay's end (`None`: another scheduler).
    estimate: Option<(EstimateSums, EstimateSums, Vec<f64>)>,
    /// CPU seconds per reference [s].
    reference_s: f64,
}

/// References counted by the distinct pages a stack held when they were made.
struct Residency {
    by_distinct: Vec<f64>,
}

impl Residency {
    fn new(size: usize) -> Residency {
        Residency {
            by_distinct: vec![0.0; size + 1],
        }
    }

    /// `refs` references made with `distinct` pages referenced so far.
    fn note(&mut self, distinct: u32, refs: u64) {
        let d = (distinct as usize).min(self.by_distinct.len() - 1);
        self.by_distinct[d] += refs as f64;
    }

    /// Σ over the references of min(distinct, m), at m = 0..len; then starts over.
    fn take(&mut self, len: usize) -> Vec<f64> {
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

impl Tally {
    fn new(size: usize) -> Tally {
        Tally {
            faults: vec![0.0; size + 1],
            writes: vec![0.0; size + 1],
            warm_faults: vec![0.0; size + 1],
            warm_writes: vec![0.0; size + 1],
            occupancy: vec![0.0; size + 1],
            warm_occupancy: vec![0.0; size + 1],
            refs: 0.0,
            distinct: 0.0,
            n: 0.0,
            estimate: None,
            reference_s: 0.0,
        }
    }

    /// The sums with CP-67's estimate kept under `rules`, where its scheduler runs.
    fn with_rules(size: usize, rules: &StayRules) -> Tally {
        let mut t = Tally::new(size);
        t.reference_s = rules.reference_s;
        t.estimate = rules.estimate.as_ref().map(|r| {
            let e = EstimateSums::new(r, size + 1);
            (e.clone(), e, vec![0.0; size + 1])
        });
        t
    }

    /// Ends a stay of `refs` references on `stack`, `warm` the stack kept across stays.
    fn end_stay(&mut self, stack: &LruStack, warm: &LruStack, refs: f64, res: &mut Residency) {
        let f = self.add(stack, refs, res);
        let cpu_s = refs * self.reference_s;
        if let Some((cold, hot, last)) = self.estimate.as_mut() {
            cold.add(&f, stack.distinct(), cpu_s);
            let (now, _) = per_size(warm, refs, last.len());
            let stay: Vec<f64> = now.iter().zip(last.iter()).map(|(a, b)| a - b).collect();
            hot.add(&stay, warm.distinct(), cpu_s);
            *last = now;
        }
    }

    /// Adds one stay's stack (`refs` references, the shared segment's included) and its
    /// residency.
    fn add(&mut self, stack: &LruStack, refs: f64, res: &mut Residency) -> Vec<f64> {
        let (f, w) = per_size(stack, refs, self.faults.len());
        let occ = res.take(self.faults.len());
        for m in 0..self.faults.len() {
            self.faults[m] += f[m];
            self.writes[m] += w[m];
            self.occupancy[m] += occ[m];
        }
        self.refs += refs;
        self.distinct += f64::from(stack.distinct());
        f
    }

    /// Adds the stack kept across all `n` transactions, as per-transaction means.
    fn add_warm(&mut self, stack: &LruStack, refs: f64, n: f64, res: &mut Residency) {
        let (f, w) = per_size(stack, refs, self.faults.len());
        let occ = res.take(self.faults.len());
        for m in 0..self.faults.len() {
            self.warm_faults[m] += f[m] / n.max(1.0);
            self.warm_writes[m] += w[m] / n.max(1.0);
            self.warm_occupancy[m] += occ[m] / n.max(1.0);
        }
    }
}

/// Faults and writes of one stack at sizes 0..len: the pushes during the string, plus the
/// changed pages resident at its end, which are written when reclaimed later.
fn per_size(stack: &LruStack, refs: f64, len: usize) -> (Vec<f64>, Vec<f64>) {
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

/// Where the simulator ends a transaction's stays: the in-queue CPU slices, and the terminal
/// writes where the load controller drops the user (reading `twin-false-drop-stays`).
#[derive(Clone, Debug, PartialEq)]
pub struct StayRules {
    /// Seconds of CPU per reference [s].
    pub reference_s: f64,
    /// In-queue CPU slices of a first (Q1) and of each later (Q2) stay [s].
    pub slices_s: [f64; 2],
    /// A stay ends at each intra-transaction terminal write, the next one a Q1 stay.
    pub false_drops: bool,
    /// CP-67's scheduler, whose storage estimate is kept over the stays.
    pub estimate: Option<Cp67Spec>,
}

impl StayRules {
    /// The rules of `d`, as the simulator's dispatcher and load controller apply them.
    pub fn of(d: &ServiceDemands) -> StayRules {
        StayRules {
            reference_s: d.reference_s,
            slices_s: d.slices_s,
            false_drops: d.false_drops,
            estimate: d.cp67.clone(),
        }
    }

    /// The slices in references [references].
    fn slices(&self) -> [f64; 2] {
        self.slices_s.map(|s| (s / self.reference_s).max(1.0))
    }
}

/// Where a transaction of `target` references of `cmd` is dropped at a terminal write
/// [references], in order, into `out`: the simulator cuts the CPU demand into v + w + 1 equal
/// segments and spreads the w writes among the v VIOs (`system/scheduling.rs`), a write
/// ending segment k + 1.
fn write_drops(cmd: &CommandDemand, target: f64, out: &mut Vec<f64>) {
    out.clear();
    let (v, w) = (cmd.vio as usize, cmd.console_writes as usize);
    for k in 0..(v + w) {
        if (k + 1) * w / (v + w) > k * w / (v + w) {
            out.push(target * (k + 1) as f64 / (v + w + 1) as f64);
        }
    }
}

/// One command's transactions, each stay on a fresh stack (a stay ends at the in-queue
/// slice, of the first stay and of each later one, and at a write where the user is dropped),
/// and one stack kept across them all.
fn measure_command(
    class: &ClassDemand,
    cmd: &CommandDemand,
    model: &mut LocalityModel,
    shared: u32,
    rules: &StayRules,
    streams: &RngStreams,
    size: usize,
) -> Result<Tally, TraceError> {
    let mut tally = Tally::with_rules(size, rules);
    let (reference_s, slices) = (rules.reference_s, rules.slices());
    let mut drops = Vec::new();
    let mean_refs = (cmd.cpu_s / reference_s).max(1.0);
    let l = class.locality.as_ref().expect("a locality program");
    let runs_per_txn = mean_refs / l.refs_per_run.max(1.0);
    let txns = ((RUN_BUDGET as f64 / runs_per_txn) as u64).clamp(4, 2_000);
    let mut rng = streams.stream("lifetime-length", 0);
    let (mut batch, mut buf) = (Vec::new(), Vec::new());
    let mut warm = LruStack::new(l.address_pages + 1, 0);
    let (mut res, mut warm_res) = (Residency::new(size), Residency::new(size));
    let (mut warm_refs, mut stays) = (0.0, 0.0f64);
    for _ in 0..txns {
        let target = if cmd.exponential {
            exponential(&mut rng, mean_refs).max(1.0)
        } else {
            mean_refs
        };
        model.on_transaction_start(cmd.set_fraction);
        if rules.false_drops {
            write_drops(cmd, target, &mut drops);
        }
        let mut stack = LruStack::new(l.address_pages + 1, 0);
        let (mut done, mut stay_end, mut stay_start) = (0u64, slices[0], 0u64);
        let mut next_drop = 0;
        while (done as f64) < target {
            batch.clear();
            model.next_batch(&mut batch)?;
            for r in &batch {
                if done as f64 >= target {
                    break;
                }
                let at_write = drops.get(next_drop).is_some_and(|&d| done as f64 >= d);
                if at_write || done as f64 >= stay_end {
                    // Dropped at the slice's end or at a write: the next stay reloads what it
                    // touches; after a write it is readmitted to Q1 with a fresh slice.
                    tally.end_stay(&stack, &warm, (done - stay_start) as f64, &mut res);
                    stays += 1.0;
                    stack = LruStack::new(l.address_pages + 1, 0);
                    stay_start = done;
                    if at_write {
                        next_drop += 1;
                        stay_end = done as f64 + slices[0];
                    } else {
                        stay_end += slices[1];
                    }
                }
                let refs = push_private(&mut stack, std::slice::from_ref(r), shared, &mut buf);
                done += refs;
                warm.push_runs(&buf);
                res.note(stack.distinct(), refs);
                warm_res.note(warm.distinct(), refs);
            }
        }
        tally.end_stay(&stack, &warm, (done - stay_start) as f64, &mut res);
        stays += 1.0;
        warm_refs += done as f64;
    }
    tally.add_warm(&warm, warm_refs, txns as f64, &mut warm_res);
    tally.n = txns as f64;
    // The storage test projects a stay's working set.
    tally.distinct /= stays.max(1.0);
    Ok(tally)
}

/// The lifetime curve of `class`'s locality program up to `size` frames, seeded by `seed`.
pub fn of_locality(
    class: &ClassDemand,
    shared: u32,
    rules: &StayRules,
    seed: u64,
) -> Result<Lifetime, TraceError> {
    let l = class.locality.as_ref().expect("a locality program");
    let size = l.address_pages as usize;
    let streams = RngStreams::new(seed);
    let mut model = LocalityModel::new(l, shared, streams.stream("lifetime-program", 0));
    let mut mix = Tally::with_rules(size, rules);
    for cmd in &class.commands {
        let t = measure_command(class, cmd, &mut model, shared, rules, &streams, size)?;
        let w = cmd.probability / t.n.max(1.0);
        for m in 0..=size {
            mix.faults[m] += w * t.faults[m];
            mix.writes[m] += w * t.writes[m];
            mix.warm_faults[m] += cmd.probability * t.warm_faults[m];
            mix.warm_writes[m] += cmd.probability * t.warm_writes[m];
            mix.occupancy[m] += w * t.occupancy[m];
            mix.warm_occupancy[m] += cmd.probability * t.warm_occupancy[m];
        }
        mix.refs += w * t.refs;
        mix.distinct += cmd.probability * t.distinct;
        if let (Some(m), Some(t)) = (mix.estimate.as_mut(), t.estimate.as_ref()) {
            m.0.add_weighted(&t.0, w);
            m.1.add_weighted(&t.1, w);
        }
    }
    Ok(finish(&class.name, mix))
}

/// The lifetime curve of a trace program: one warm stack over `source`, scaled to the class's
/// references per transaction.
pub fn of_source(
    class: &ClassDemand,
    source: &mut dyn ReferenceSource,
    reference_s: f64,
) -> Result<Lifetime, TraceError> {
    let mut stack = LruStack::new(1 << 12, 0);
    let mut batch = Vec::new();
    let mut refs = 0u64;
    while source.next_batch(&mut batch)? {
        refs += batch.iter().map(|r| u64::from(r.count)).sum::<u64>();
        stack.push_runs(&batch);
        batch.clear();
    }
    refs += batch.iter().map(|r| u64::from(r.count)).sum::<u64>();
    stack.push_runs(&batch);
    let size = stack.distinct() as usize;
    let mut t = Tally::new(size);
    t.add(&stack, refs as f64, &mut Residency::new(size));
    let per_txn: f64 = class
        .commands
        .iter()
        .map(|c| c.probability * c.cpu_s / reference_s)
        .sum();
    let scale = per_txn / (refs.max(1) as f64);
    let faults: Vec<f64> = t.faults.iter().map(|f| f * scale).collect();
    let writes: Vec<f64> = t.writes.iter().map(|w| w * scale).collect();
    // A trace program resumes where it was: it holds what it has loaded throughout.
    let held: Vec<f64> = (0..=size).map(|m| m as f64 * per_txn).collect();
    let mix = Tally {
        warm_faults: faults.clone(),
        warm_writes: writes.clone(),
        faults,
        writes,
        occupancy: held.clone(),
        warm_occupancy: held,
        refs: per_txn,
        // A warm program reloads only what it faults; its working set is its footprint.
        distinct: size as f64,
        n: 1.0,
        // A program that never leaves its stay has no stays to estimate.
        estimate: None,
        reference_s,
    };
    Ok(finish(&class.name, mix))
}

/// Every class's lifetime curve, in class order: locality programs measured from their model,
/// trace programs from their file opened with `open`.
pub fn of_classes(
    d: &ServiceDemands,
    seed: u64,
    open: Option<&TraceOpener>,
) -> Result<Vec<Lifetime>, TraceError> {
    d.classes
        .iter()
        .map(|c| match (&c.locality, &c.trace, open) {
            (Some(_), _, _) => of_locality(c, d.shared_pages, &StayRules::of(d), seed),
            (None, Some(path), Some(open)) => {
                let mut src = open(std::path::Path::new(path))?;
                of_source(c, src.as_mut(), d.reference_s)
            }
            _ => Err(TraceError::Invalid(format!(
                "class {}: a trace program needs a trace reader",
                c.name
            ))),
        })
        .collect()
}

fn finish(class: &str, t: Tally) -> Lifetime {
    let means = t.estimate.as_ref().map(|e| (e.0.means(), e.1.means()));
    let points = (0..t.faults.len())
        .map(|m| LifetimePoint {
            frames: m as u32,
            faults: t.faults[m],
            writes: t.writes[m],
            lifetime: if t.faults[m] > 0.0 {
                t.refs / t.faults[m]
            } else {
                f64::INFINITY
            },
            warm_faults: t.warm_faults[m],
            warm_writes: t.warm_writes[m],
            occupancy: t.occupancy[m] / t.refs.max(1.0),
            warm_occupancy: t.warm_occupancy[m] / t.refs.max(1.0),
            estimate: means.as_ref().map(|e| e.0[m]),
            warm_estimate: means.as_ref().map(|e| e.1[m]),
        })
        .collect();
    Lifetime {
        class: class.to_string(),
        references: t.refs,
        working_set: t.distinct,
        points,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lifetime curve of the first class of `presets/<name>.toml`, seed 1.
    fn first_class(name: &str) -> Lifetime {
        let path = format!("{}/../../presets/{name}.toml", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let spec = pagelab_sys::load_spec(&text, &path, &[]).unwrap();
        let d = pagelab_sys::demands::ServiceDemands::of(&spec);
        of_locality(&d.classes[0], d.shared_pages, &StayRules::of(&d), 1).unwrap()
    }

    #[test]
    fn faults_fall_with_frames_to_the_working_set() {
        let lt = first_class("cp67");
        let f: Vec<f64> = lt.points.iter().map(|p| p.faults).collect();
        assert!(f.windows(2).all(|w| w[1] <= w[0] + 1e-9), "{f:?}");
        // With every page of the address space, only cold misses: each stay reloads its
        // working set, and a transaction has at least one stay.
        let last = lt.points.last().unwrap();
        assert!(
            last.faults >= lt.working_set - 1e-9,
            "{last:?} {}",
            lt.working_set
        );
        assert!(last.warm_faults < 0.2 * last.faults, "{last:?}");
        assert!(
            lt.working_set > 3.0 && lt.working_set <= 18.0,
            "{}",
            lt.working_set
        );
        // One frame faults on most runs (mean 200 references each).
        assert!(lt.points[1].lifetime < 400.0, "{:?}", lt.points[1]);
    }

    #[test]
    fn residency_counts_each_reference_at_the_pages_it_could_hold() {
        let mut r = Residency::new(4);
        r.note(1, 2);
        r.note(2, 3);
        r.note(3, 5);
        // m = 2: the 2 references at one page hold 1, the other 8 hold 2.
        assert_eq!(r.take(5), vec![0.0, 10.0, 18.0, 23.0, 23.0]);
        assert_eq!(r.take(2), vec![0.0, 0.0], "taking starts over");
    }

    #[test]
    fn a_stay_holds_on_average_less_than_it_loads_and_more_with_more_frames() {
        let lt = first_class("vm370");
        let occ: Vec<f64> = lt.points.iter().map(|p| p.occupancy).collect();
        assert!(occ.windows(2).all(|w| w[1] >= w[0] - 1e-9), "{occ:?}");
        for p in &lt.points {
            assert!(p.occupancy <= f64::from(p.frames) + 1e-9, "{p:?}");
            assert!(p.occupancy <= p.warm_occupancy + 1e-9, "{p:?}");
        }
        // A cold stay loads its pages as it goes, so it holds less than its address space
        // on average. (The mean is per reference, so long stays, with more distinct pages,
        // weigh more than in the working set, a mean per stay.)
        let last = lt.points.last().unwrap();
        assert!(last.occupancy < 0.9 * f64::from(last.frames), "{last:?}");
        assert!(last.occupancy > 0.3 * lt.working_set, "{last:?}");
    }

    #[test]
    fn a_write_drops_the_user_where_the_simulator_puts_the_write() {
        let cmd = |vio, writes| CommandDemand {
            name: "c".into(),
            probability: 1.0,
            cpu_s: 1.0,
            exponential: false,
            vio,
            console_writes: writes,
            console_write_s: 0.1,
            set_fraction: 1.0,
        };
        let mut out = Vec::new();
        // 4 VIOs and a write: six segments, the write ends the fifth.
        write_drops(&cmd(4, 1), 600.0, &mut out);
        assert_eq!(out, vec![500.0]);
        // 20 VIOs and 2 writes: 23 segments, the writes end the 11th and the 22nd.
        write_drops(&cmd(20, 2), 2300.0, &mut out);
        assert_eq!(out, vec![1100.0, 2200.0]);
        write_drops(&cmd(3, 0), 100.0, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn stays_cut_at_writes_reload_more_and_leave_the_warm_curve_alone() {
        let path = format!("{}/../../presets/cp67.toml", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let spec = pagelab_sys::load_spec(&text, &path, &[]).unwrap();
        let d = pagelab_sys::demands::ServiceDemands::of(&spec);
        assert!(
            d.false_drops,
            "CP-67 drops the user at a terminal write (TETZ)"
        );
        let with = of_locality(&d.classes[0], d.shared_pages, &StayRules::of(&d), 1).unwrap();
        let rules = StayRules {
            false_drops: false,
            ..StayRules::of(&d)
        };
        let without = of_locality(&d.classes[0], d.shared_pages, &rules, 1).unwrap();
        let (a, b) = (with.points.last().unwrap(), without.points.last().unwrap());
        // Every stay reloads its pages, and a transaction has more stays.
        assert!(a.faults > 1.2 * b.faults, "{a:?} {b:?}");
        assert!(with.working_set < without.working_set);
        assert_eq!(a.warm_faults, b.warm_faults);
    }
}
