//! The M44's AR and FIFO, through the frame-supply seam, are the trace lab's `ar` and `fifo`:
//! the same victims on the same reference strings.
//!
//! The M44's store is its own (frames being filled cannot be taken, pulls complete
//! asynchronously across jobs), so its supplies ([`M44Supply`], `supply.rs`) run the trace
//! lab's choices over it: AR is `pagelab_trace::policy::ar::ArHand`, FIFO the trace lab's
//! `fifo::search` over the arrivals. Here they are driven through [`FrameSupply`], as the
//! machine drives them, against the trace lab's policies driven as the demand-paging system's
//! frame supply drives them (`pagelab_trace::policy::driven::Driven`). With one job nothing is
//! ever in transit when a victim is chosen, and the two must agree reference run by reference
//! run. BIFO, which spares one favoured job's pages, has no counterpart in a single-owner trace
//! and stays the M44's.

use super::spec::{load_spec, PolicyKind, ReplacementSpec};
use super::supply::{Frame, M44Supply};
use crate::supply::FrameSupply;
use pagelab_core::RngStreams;
use pagelab_trace::gen::generate;
use pagelab_trace::policy::driven::Driven;
use pagelab_trace::policy::PolicySpec;
use rand::Rng as _;

const NONE: u32 = u32::MAX;

fn trace_ar(frames: u32, reset_interval: u64, pages: u32) -> Driven {
    trace_policy(
        serde_json::json!({"kind": "ar", "reset_interval": reset_interval}),
        frames,
        pages,
    )
}

fn trace_policy(spec: serde_json::Value, frames: u32, pages: u32) -> Driven {
    let spec: PolicySpec = serde_json::from_value(spec).unwrap();
    Driven::new(&spec, frames, pages).unwrap()
}

/// The M44 side: `Machine::fault`, `Machine::handle_at` and `Machine::slice` for one job whose
/// pulls complete before it runs again (a free frame lowest first, else the supply's victim;
/// the supply told of the arrival, then of the retried reference run).
struct M44One {
    frames: Vec<Frame>,
    free: Vec<u32>,
    table: Vec<u32>,
    supply: M44Supply,
    refs_done: u64,
}

impl M44One {
    fn new(kind: PolicyKind, frames: usize, pages: u32, interval: u64) -> Self {
        let spec = ReplacementSpec {
            policy: kind,
            bifo_interval_s: pagelab_core::Secs(1.0),
            ar_reset_interval: interval,
        };
        M44One {
            frames: vec![Frame::default(); frames],
            free: (0..frames as u32).rev().collect(),
            table: vec![NONE; pages as usize],
            supply: M44Supply::build(&spec, frames as u32),
            refs_done: 0,
        }
    }

    /// A run of `count` references to `page`: whether it hit, and the page evicted if any.
    fn reference(&mut self, page: u32, count: u32) -> (bool, Option<u32>) {
        let mut evicted = None;
        let hit = self.table[page as usize] != NONE;
        if !hit {
            let f = match self.free.pop() {
                Some(f) => f,
                None => {
                    let v = self
                        .supply
                        .select_victim(&mut self.frames)
                        .expect("a victim");
                    let (_, vp) = self.frames[v as usize]
                        .owner
                        .expect("a victim holds a page");
                    self.table[vp as usize] = NONE;
                    evicted = Some(vp);
                    v
                }
            };
            self.frames[f as usize] = Frame {
                owner: Some((0, page)),
                busy: true,
                ..Frame::default()
            };
            self.table[page as usize] = f;
            // The pull completes.
            self.frames[f as usize].busy = false;
            self.supply.on_load(0, page, f, self.refs_done);
        }
        self.supply.on_reference(0, page, count, self.refs_done);
        self.refs_done += u64::from(count);
        (hit, evicted)
    }
}

/// Drives both on a random string of 20 000 runs; panics at the first difference.
fn same_victims(kind: PolicyKind, seed: u64, frames: usize, pages: u32, interval: u64) {
    let mut rng = RngStreams::new(seed).stream("ar-identity", 0);
    let mut m44 = M44One::new(kind, frames, pages, interval);
    let mut lab = match kind {
        PolicyKind::Ar => trace_ar(frames as u32, interval, pages),
        PolicyKind::Fifo => trace_policy(serde_json::json!({"kind": "fifo"}), frames as u32, pages),
        PolicyKind::Bifo => unreachable!("BIFO has no trace-lab counterpart"),
    };
    let mut reclaimed = Vec::new();
    let mut now = 0u64;
    let mut faults = 0;
    for i in 0..20_000 {
        // Some locality: half the runs stay in a moving window of 6 pages.
        let page = if rng.gen_bool(0.5) {
            (i / 500 * 3 + rng.gen_range(0..6)) % pages
        } else {
            rng.gen_range(0..pages)
        };
        let count = rng.gen_range(1..=3u32);
        let (hit, evicted) = m44.reference(page, count);
        let lab_hit = lab.reference(page, count, now);
        reclaimed.clear();
        lab.take_reclaimed(&mut reclaimed);
        let what = format!("{kind:?}, seed {seed}, run {i}: page {page} ×{count}");
        assert_eq!(hit, lab_hit, "{what}");
        assert_eq!(evicted.into_iter().collect::<Vec<_>>(), reclaimed, "{what}");
        faults += u64::from(!hit);
        now += u64::from(count);
    }
    assert!(
        faults > 1000,
        "seed {seed}: the string must fault often ({faults})"
    );
}

#[test]
fn m44_ar_through_the_seam_evicts_what_the_trace_labs_ar_evicts_on_random_strings() {
    for (seed, frames, pages, interval) in [
        (1u64, 8usize, 24u32, 25u64),
        (2, 12, 40, 7),
        (3, 5, 9, 0),
        (4, 30, 64, 100),
    ] {
        same_victims(PolicyKind::Ar, seed, frames, pages, interval);
    }
}

#[test]
fn m44_fifo_through_the_seam_evicts_what_the_trace_labs_fifo_evicts_on_random_strings() {
    for (seed, frames, pages) in [(5u64, 8usize, 24u32), (6, 12, 40), (7, 5, 9)] {
        same_victims(PolicyKind::Fifo, seed, frames, pages, 0);
    }
}

/// One M44 job of the study's sort program in `frames` frames under `policy` (AR clearing its
/// bits every `interval` references) pulls exactly what the trace lab's policy faults.
fn one_job_pulls_what_the_trace_lab_faults(policy: &str, frames: usize, interval: &str) {
    let preset = include_str!("../../../../presets/m44.toml");
    let words = (frames * 1024).to_string();
    let quoted = format!("\"{policy}\"");
    let o: Vec<(String, String)> = [
        ("workload.params.sort.items", "600"),
        ("workload.program", "\"t4-1xq\""),
        ("workload.copies", "1"),
        ("memory.store_words", words.as_str()),
        ("replacement.policy", quoted.as_str()),
        ("replacement.ar_reset_interval", interval),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let spec = load_spec(preset, "m44.toml", &o).unwrap();
    let report = super::run(&spec, 3, &mut |_| {}).unwrap();
    let g = generate(
        pagelab_trace::gen::M44Program::from_name(&spec.workload.program).unwrap(),
        &spec.workload.params,
        3,
    )
    .unwrap();
    let mut lab = match policy {
        "ar" => trace_ar(frames as u32, interval.parse().unwrap(), g.n_pages()),
        _ => trace_policy(
            serde_json::json!({"kind": policy}),
            frames as u32,
            g.n_pages(),
        ),
    };
    let mut now = 0u64;
    let mut faults = 0u64;
    for r in &g.runs {
        faults += u64::from(!lab.reference(r.page, r.count, now));
        now += u64::from(r.count);
    }
    let pulls = report.metrics["pulls"].value as u64;
    assert_eq!(
        pulls, faults,
        "{policy}: {frames} frames, reset every {interval}"
    );
    assert!(
        faults > g.n_pages() as u64,
        "{policy}, {frames} frames: must replace"
    );
}

#[test]
fn one_m44_job_under_ar_pulls_what_the_trace_labs_ar_faults() {
    // The whole engine: one job of the study's sort program, AR with the clearing every slice.
    for (frames, interval) in [(6usize, "10000"), (10, "2500"), (8, "0")] {
        one_job_pulls_what_the_trace_lab_faults("ar", frames, interval);
    }
}

#[test]
fn one_m44_job_under_fifo_pulls_what_the_trace_labs_fifo_faults() {
    for frames in [5usize, 8, 12] {
        one_job_pulls_what_the_trace_lab_faults("fifo", frames, "0");
    }
}
