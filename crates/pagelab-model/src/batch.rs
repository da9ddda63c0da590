//! The M44/44X's twin: N copies of one batch program, no terminals, sharing the paged store.
//!
//! ```text
//!   N jobs (no think) ──► CPU (round robin) ──► page pull on one of the disks ──► CPU …
//!   frames per job m = frames / N;  pulls per job = faults(m) of the program's string
//!   D_cpu = references × reference time,  D_disk = pulls × pull time / disks (each disk)
//! ```
//!
//! Brawn and Gustavson 1968 run 1 to 5 copies of a program together under one global policy
//! and report the time per job (elapsed / jobs). The twin splits the store equally among the
//! copies (each copy's fair share under a global policy that favours none: Denning's
//! equal-partition reading) and counts each copy's pulls as the trace lab's policy of the same
//! rule at that share of frames, on the reference string the simulator generates for the first
//! copy (`pagelab_trace::gen`, seeded as `m44::machine` seeds it). BIFO is FIFO that spares one
//! job at a time, so its twin is FIFO. The network is closed with N customers and no think
//! time, the processor a queue (its 0.1 s slice against seconds of work: processor sharing)
//! and the disks identical queues in round robin; solved by exact MVA
//! ([`crate::mva::exact_one_class`]). All copies start together and are alike, so the time per
//! job is 1 / X(N) and the elapsed time N / X(N).

use pagelab_sys::m44::spec::PolicyKind;
use pagelab_sys::m44::M44Spec;
use pagelab_sys::SysError;
use pagelab_trace::gen::{generate, M44Program};
use pagelab_trace::policy::{simulate_sizes, PolicySpec};

use crate::mva::{exact_one_class, Station};
use crate::twin::{ClassRow, Row};
use crate::{Lifetime, LifetimePoint};

/// What the M44 spec sets up, as the twin reads it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BatchDemands {
    /// The program every copy runs.
    pub program: String,
    /// References of one copy's string [references].
    pub references: f64,
    /// Processor time per reference [s].
    pub reference_s: f64,
    /// Disk time per page pulled [s].
    pub pull_s: f64,
    /// Disks the pages are spread over [count].
    pub disks: u32,
    /// Frames of the paged store [frames].
    pub frames: u32,
    /// The trace lab's policy whose faults stand for the machine's pulls.
    pub policy: String,
}

/// The trace lab's rule for the M44's policy (BIFO is FIFO sparing one job at a time).
fn trace_policy(kind: PolicyKind) -> &'static str {
    match kind {
        PolicyKind::Ar => "ar",
        _ => "fifo",
    }
}

/// The twin of `spec` at each number of copies: its demands, the pulls of one copy against
/// its frames (a lifetime curve at the shares asked for), and one row per count.
pub fn solve(
    spec: &M44Spec,
    copies: &[u32],
    seed: u64,
) -> Result<(BatchDemands, Lifetime, Vec<Row>), SysError> {
    let program = M44Program::from_name(&spec.workload.program)?;
    let g = generate(program, &spec.workload.params, seed)?;
    let frames = spec.memory.frames();
    let name = trace_policy(spec.replacement.policy);
    let policy = PolicySpec::by_name(name)?;
    let share = |n: u32| (frames / n.max(1)).max(1);
    let mut sizes: Vec<u32> = copies.iter().map(|&n| share(n)).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let outcomes = simulate_sizes(&policy, &g.runs, &sizes, 0)?;
    let refs = g.n_references as f64;
    let d = BatchDemands {
        program: spec.workload.program.clone(),
        references: refs,
        reference_s: spec.machine.reference_us().get() * 1e-6,
        pull_s: spec.disk.pull_s.get(),
        disks: spec.disk.count,
        frames,
        policy: name.into(),
    };
    let points: Vec<LifetimePoint> = sizes
        .iter()
        .zip(&outcomes)
        .map(|(&m, o)| {
            let faults = o.measured.faults as f64;
            LifetimePoint {
                frames: m,
                faults,
                writes: 0.0,
                lifetime: if faults > 0.0 {
                    refs / faults
                } else {
                    f64::INFINITY
                },
                warm_faults: faults,
                warm_writes: 0.0,
                // A copy runs from its start with its share of the store: it holds it.
                occupancy: f64::from(m),
                warm_occupancy: f64::from(m),
                estimate: None,
                warm_estimate: None,
                txn_faults: faults,
                txn_writes: 0.0,
                txn_occupancy: f64::from(m),
                txn_estimate: None,
            }
        })
        .collect();
    let rows = copies
        .iter()
        .map(|&n| {
            let m = share(n);
            let pulls = points
                .iter()
                .find(|p| p.frames == m)
                .map_or(0.0, |p| p.faults);
            row(&d, n, m, pulls)
        })
        .collect();
    let life = Lifetime {
        class: d.program.clone(),
        references: refs,
        working_set: g.n_pages() as f64,
        points,
        drops: [0.0; 2],
    };
    Ok((d, life, rows))
}

/// The closed network of `n` copies at `m` frames each, `pulls` per copy.
fn row(d: &BatchDemands, n: u32, m: u32, pulls: f64) -> Row {
    let stations = [
        Station::queue("cpu", 1),
        Station::queue("disk", d.disks.max(1)),
    ];
    let cpu = d.references * d.reference_s;
    let disk = pulls * d.pull_s / f64::from(d.disks.max(1));
    let s = exact_one_class(&stations, &[cpu, disk], n.max(1));
    let x = s.x[0];
    Row {
        users: n,
        throughput: x,
        classes: vec![ClassRow {
            class: d.program.clone(),
            users: n,
            throughput: x,
            // A job's residence: the elapsed time of the batch, all copies alike.
            response: if x > 0.0 { f64::from(n) / x } else { f64::NAN },
        }],
        cpu_util: x * cpu,
        paging_util: x * disk,
        vio_util: 0.0,
        fault_rate: x * pulls,
        mpl: f64::from(n),
        eligible: 0.0,
        frames_per_program: f64::from(m),
        crowded_share: 0.0,
        crowding_onset_s: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pagelab_sys::m44::load_spec;

    const PRESET: &str = include_str!("../../../presets/m44.toml");

    /// A small sort (600 items) under FIFO in a store of `words` words.
    fn spec(words: &str) -> M44Spec {
        let o: Vec<(String, String)> = [
            ("workload.params.sort.items", "600"),
            ("workload.program", "t4-1xq"),
            ("replacement.policy", "fifo"),
            ("memory.store_words", words),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        load_spec(PRESET, "m44.toml", &o).unwrap()
    }

    #[test]
    fn one_copy_takes_its_references_plus_its_pulls_and_the_pulls_are_the_trace_labs() {
        let s = spec("16384");
        let (d, life, rows) = solve(&s, &[1, 2, 4], 1).unwrap();
        let g = generate(
            M44Program::from_name("t4-1xq").unwrap(),
            &s.workload.params,
            1,
        )
        .unwrap();
        let fifo = PolicySpec::by_name("fifo").unwrap();
        let pulls_16 = pagelab_trace::policy::simulate(&fifo, &g.runs, 16, 0)
            .unwrap()
            .measured
            .faults as f64;
        assert_eq!(
            life.points.iter().map(|p| p.frames).collect::<Vec<_>>(),
            [4, 8, 16]
        );
        assert_eq!(life.points[2].faults, pulls_16);
        // One job alone waits for nothing: its time is its processor time plus its pulls'.
        let alone = d.references * d.reference_s + pulls_16 * d.pull_s;
        assert!(
            (1.0 / rows[0].throughput - alone).abs() < 1e-9 * alone,
            "{rows:?}"
        );
        assert_eq!((rows[2].users, rows[2].frames_per_program), (4, 4.0));
        // Little's law over the closed loop: N = X × (elapsed per job's residence).
        for r in &rows {
            let n = f64::from(r.users);
            assert!((r.throughput * r.classes[0].response - n).abs() < 1e-9 * n);
            assert!(r.cpu_util <= 1.0 + 1e-12 && r.paging_util <= 1.0 + 1e-12);
        }
    }

    #[test]
    fn copies_that_share_too_small_a_store_thrash() {
        // In a small store each added copy's share faults so much more that the time per job
        // grows; in a large one the copies overlap their pulls with the others' processing.
        let (_, _, small) = solve(&spec("8192"), &[1, 2, 4], 1).unwrap();
        let (_, _, large) = solve(&spec("188416"), &[1, 2, 4], 1).unwrap();
        assert!(small[2].throughput < small[0].throughput, "{small:?}");
        assert!(large[1].throughput > large[0].throughput, "{large:?}");
    }
}
