//! The M44's AR and FIFO are the trace lab's `ar` and `fifo`: the same victims on the same
//! reference strings.
//!
//! The M44 engine keeps its own frame table (frames being filled cannot be taken, pulls
//! complete asynchronously across jobs), so its policies are [`Replacer`] over that table and
//! [`clear_use_bits`], FIFO's through the trace lab's own search over arrivals
//! (`pagelab_trace::policy::fifo::search`), AR's through its search and clearing rule
//! (`pagelab_trace::policy::ar::{search, reset_in}`); the trace lab's and the frame supply's
//! are `pagelab_trace::policy`'s, driven here exactly as the system's frame supply drives them
//! (`pagelab_trace::policy::driven::Driven`). With one job nothing is ever in transit when a
//! victim is chosen, and the two must agree reference run by reference run. BIFO, which spares
//! one favoured job's pages, has no counterpart in a single-owner trace and stays the M44's.

use super::replacement::{clear_use_bits, Frame, Replacer};
use super::spec::{load_spec, PolicyKind};
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

/// The M44 side: `Machine::fault` and `Machine::slice` for one job whose pulls complete before
/// it runs again (a free frame lowest first, else AR's victim; the pulled page's use bit set by
/// its retried reference; the bits cleared every `interval` references executed).
struct M44Ar {
    loads: u64,
    frames: Vec<Frame>,
    free: Vec<u32>,
    table: Vec<u32>,
    replacer: Replacer,
    refs_done: u64,
    interval: u64,
}

impl M44Ar {
    fn new(kind: PolicyKind, frames: usize, pages: u32, interval: u64) -> Self {
        M44Ar {
            loads: 0,
            frames: vec![Frame::default(); frames],
            free: (0..frames as u32).rev().collect(),
            table: vec![NONE; pages as usize],
            replacer: Replacer::new(kind),
            refs_done: 0,
            interval,
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
                    let v = self.replacer.victim(&mut self.frames).expect("a victim");
                    let (_, vp) = self.frames[v].owner.expect("a victim holds a page");
                    self.table[vp as usize] = NONE;
                    evicted = Some(vp);
                    v as u32
                }
            };
            self.loads += 1;
            self.frames[f as usize] = Frame {
                owner: Some((0, page)),
                loaded: self.loads,
                used: true,
                ..Frame::default()
            };
            self.replacer.on_arrival(f, self.loads);
            self.table[page as usize] = f;
        }
        let f = self.table[page as usize] as usize;
        self.frames[f].used = true;
        self.refs_done += u64::from(count);
        clear_use_bits(&mut self.frames, f, self.refs_done, count, self.interval);
        (hit, evicted)
    }
}

/// Drives both on a random string of 20 000 runs; panics at the first difference.
fn same_victims(kind: PolicyKind, seed: u64, frames: usize, pages: u32, interval: u64) {
    let mut rng = RngStreams::new(seed).stream("ar-identity", 0);
    let mut m44 = M44Ar::new(kind, frames, pages, interval);
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
fn m44_ar_and_the_trace_labs_ar_evict_the_same_pages_on_random_strings() {
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
fn m44_fifo_and_the_trace_labs_fifo_evict_the_same_pages_on_random_strings() {
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
