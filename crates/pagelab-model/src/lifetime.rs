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

use pagelab_core::random::RngStreams;
use pagelab_sys::demands::{ClassDemand, ServiceDemands};
use pagelab_sys::load_control::cp67_scheduler::Cp67Spec;
use pagelab_sys::workload::LocalityModel;
use pagelab_sys::TraceOpener;
use pagelab_trace::curve::LruStack;
use pagelab_trace::{ReferenceSource, TraceError};

mod cache;
mod pass;
use pass::{Residency, Sums, Tally};

/// The shares of a transaction of `cmd` that its stays take when the load controller drops
/// the user at each terminal write inside it (`false_drops`), in order; `[1.0]` otherwise:
/// the stays between the writes the simulator places ([`pass::write_drops`]).
pub(crate) fn write_stays(
    cmd: &pagelab_sys::demands::CommandDemand,
    false_drops: bool,
) -> Vec<f64> {
    let mut cuts = Vec::new();
    if false_drops {
        pass::write_drops(cmd, 1.0, &mut cuts);
    }
    cuts.push(1.0);
    let mut last = 0.0;
    cuts.iter()
        .map(|&c| {
            let share = c - last;
            last = c;
            share
        })
        .collect()
}

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
    /// Faults per transaction when the program's pages survive its drops inside a
    /// transaction but not its think (one stack per transaction; reading
    /// `twin-drop-survival`) [pages].
    pub txn_faults: f64,
    /// Changed pages written per transaction, the same way [pages].
    pub txn_writes: f64,
    /// Mean resident pages over a stay's references, the same way [pages].
    pub txn_occupancy: f64,
    /// CP-67's estimate over the stays, the same way [pages].
    pub txn_estimate: Option<f64>,
}

/// The shares of a program's pages that outlive its think and a drop inside its transaction
/// (reading `twin-drop-survival`): a drop is shorter than a think, so at least as many
/// survive it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Survival {
    /// Outliving the think [fraction].
    pub think: f64,
    /// Outliving a drop inside the transaction [fraction].
    pub drop: f64,
}

impl Survival {
    /// The same share for a think and a drop.
    pub fn uniform(s: f64) -> Survival {
        Survival { think: s, drop: s }
    }

    /// The weights of the warm, per-transaction and cold views: everything kept, kept across
    /// the drops only, nothing kept.
    fn weights(self) -> [f64; 3] {
        let t = self.think.clamp(0.0, 1.0);
        let d = self.drop.clamp(t, 1.0);
        [t, d - t, 1.0 - d]
    }
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
    /// Drops inside a transaction at a terminal write, and at a slice's end, per transaction
    /// [count].
    pub drops: [f64; 2],
}

impl Lifetime {
    /// Faults and writes per transaction with `m` frames (linear between whole frames), when
    /// the shares `s` of the program's pages outlive its think and its drops.
    pub fn at(&self, m: f64, s: Survival) -> (f64, f64) {
        (
            self.mix(m, s, [|p| p.warm_faults, |p| p.txn_faults, |p| p.faults]),
            self.mix(m, s, [|p| p.warm_writes, |p| p.txn_writes, |p| p.writes]),
        )
    }

    /// Mean resident pages of a stay that may grow to `m` frames, when the shares `s` of the
    /// program's pages outlive its think and its drops [pages].
    pub fn occupancy_at(&self, m: f64, s: Survival) -> f64 {
        let views: [fn(&LifetimePoint) -> f64; 3] =
            [|p| p.warm_occupancy, |p| p.txn_occupancy, |p| p.occupancy];
        self.mix(m, s, views)
    }

    /// CP-67's storage estimate of a stay that may grow to `m` frames, the shares `s` of the
    /// program's pages outliving its think and its drops [pages]; `None` under another
    /// scheduler.
    pub fn estimate_at(&self, m: f64, s: Survival) -> Option<f64> {
        self.points.first()?.estimate?;
        let views: [fn(&LifetimePoint) -> f64; 3] = [
            |p| p.warm_estimate.unwrap_or(0.0),
            |p| p.txn_estimate.unwrap_or(0.0),
            |p| p.estimate.unwrap_or(0.0),
        ];
        Some(self.mix(m, s, views))
    }

    /// The warm, per-transaction and cold `views` at `m`, weighed by the survival `s`.
    fn mix(&self, m: f64, s: Survival, views: [fn(&LifetimePoint) -> f64; 3]) -> f64 {
        let w = s.weights();
        w[0] * self.lerp(m, views[0])
            + w[1] * self.lerp(m, views[1])
            + w[2] * self.lerp(m, views[2])
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
    pub(crate) fn slices(&self) -> [f64; 2] {
        self.slices_s.map(|s| (s / self.reference_s).max(1.0))
    }
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
    let mut mix = Tally::new(size, rules);
    for cmd in &class.commands {
        let t = pass::measure_command(class, cmd, &mut model, shared, rules, &streams, size)?;
        let w = cmd.probability / t.n.max(1.0);
        mix.cold.add_weighted(&t.cold, w);
        mix.txn.add_weighted(&t.txn, w);
        mix.warm.add_weighted(&t.warm, cmd.probability);
        mix.refs += w * t.refs;
        mix.distinct += cmd.probability * t.distinct;
        mix.write_drops += w * t.write_drops;
        mix.slice_drops += w * t.slice_drops;
        if let (Some(m), Some(t)) = (mix.estimate.as_mut(), t.estimate.as_ref()) {
            m.cold.add_weighted(&t.cold, w);
            m.txn.sums.add_weighted(&t.txn.sums, w);
            m.warm.sums.add_weighted(&t.warm.sums, w);
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
    let mut sums = Sums::new(size + 1);
    sums.add(&stack, refs as f64, &mut Residency::new(size), 1.0);
    let per_txn: f64 = class
        .commands
        .iter()
        .map(|c| c.probability * c.cpu_s / reference_s)
        .sum();
    let scale = per_txn / (refs.max(1) as f64);
    // A trace program resumes where it was: it holds what it has loaded throughout, and
    // every view is the one warm stack.
    let view = Sums {
        faults: sums.faults.iter().map(|f| f * scale).collect(),
        writes: sums.writes.iter().map(|w| w * scale).collect(),
        occupancy: (0..=size).map(|m| m as f64 * per_txn).collect(),
    };
    let rules = StayRules {
        reference_s,
        slices_s: [f64::INFINITY; 2],
        false_drops: false,
        estimate: None,
    };
    let mut mix = Tally::new(size, &rules);
    (mix.cold, mix.txn, mix.warm) = (view.clone(), view.clone(), view);
    mix.refs = per_txn;
    // A warm program reloads only what it faults; its working set is its footprint.
    mix.distinct = size as f64;
    mix.n = 1.0;
    Ok(finish(&class.name, mix))
}

/// Every class's lifetime curve, in class order: locality programs measured from their model
/// (or kept from an earlier solve with the same inputs, [`cache`]), trace programs from their
/// file opened with `open`.
pub fn of_classes(
    d: &ServiceDemands,
    seed: u64,
    open: Option<&TraceOpener>,
) -> Result<Vec<Lifetime>, TraceError> {
    d.classes
        .iter()
        .map(|c| match (&c.locality, &c.trace, open) {
            (Some(_), _, _) => {
                cache::CURVES.of_locality(c, d.shared_pages, &StayRules::of(d), seed)
            }
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
    let means = t
        .estimate
        .as_ref()
        .map(|e| [e.cold.means(), e.txn.sums.means(), e.warm.sums.means()]);
    let est = |v: usize, m: usize| means.as_ref().map(|e| e[v][m]);
    let refs = t.refs.max(1.0);
    let points = (0..t.cold.faults.len())
        .map(|m| LifetimePoint {
            frames: m as u32,
            faults: t.cold.faults[m],
            writes: t.cold.writes[m],
            lifetime: if t.cold.faults[m] > 0.0 {
                t.refs / t.cold.faults[m]
            } else {
                f64::INFINITY
            },
            warm_faults: t.warm.faults[m],
            warm_writes: t.warm.writes[m],
            occupancy: t.cold.occupancy[m] / refs,
            warm_occupancy: t.warm.occupancy[m] / refs,
            estimate: est(0, m),
            warm_estimate: est(2, m),
            txn_faults: t.txn.faults[m],
            txn_writes: t.txn.writes[m],
            txn_occupancy: t.txn.occupancy[m] / refs,
            txn_estimate: est(1, m),
        })
        .collect();
    Lifetime {
        class: class.to_string(),
        references: t.refs,
        working_set: t.distinct,
        points,
        drops: [t.write_drops, t.slice_drops],
    }
}

#[cfg(test)]
mod tests {
    use super::pass::write_drops;
    use super::*;
    use pagelab_sys::demands::CommandDemand;

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

    #[test]
    fn pages_kept_across_the_drops_fault_between_none_kept_and_all() {
        let lt = first_class("cp67");
        for p in &lt.points[1..] {
            assert!(p.warm_faults <= p.txn_faults + 1e-9, "{p:?}");
            assert!(p.txn_faults <= p.faults + 1e-9, "{p:?}");
            assert!(
                p.warm_estimate.is_some() && p.txn_estimate.is_some(),
                "{p:?}"
            );
        }
        // Trivial commands (0.7) write once, the others (0.3) twice, and every write is a
        // drop; the pass cuts between runs of references, so a write inside the run that ends
        // a short transaction is not reached.
        assert!(
            lt.drops[0] <= 1.3 + 1e-9 && lt.drops[0] > 1.2,
            "{:?}",
            lt.drops
        );
        assert!(
            lt.drops[1] > 0.0,
            "600 ms commands outlast the 250 ms slice"
        );
        // Kept across the drops, a transaction faults at its full size only on first touch.
        let last = lt.points.last().unwrap();
        assert!(last.txn_faults < last.faults, "{last:?}");
        // The same share everywhere mixes cold and warm alone.
        let s = Survival::uniform(0.4);
        let (f, _) = lt.at(5.0, s);
        let want = 0.4 * lt.points[5].warm_faults + 0.6 * lt.points[5].faults;
        assert!((f - want).abs() < 1e-9 * want, "{f} {want}");
    }
}
