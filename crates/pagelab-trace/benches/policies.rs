//! References per second of every policy and curve on a large synthetic string (a plain
//! `harness = false` bench binary).
//!
//! The string: `PAGELAB_BENCH_RUNS` runs (default 4 000 000) over 50 000 pages, in phases of
//! 20 000 runs; in each phase 90% of runs go to a random window of 2 000 pages and 10% anywhere;
//! run lengths are 1..=8 references, one run in four writes. Seeded, so every run of the
//! bench sees the same string.
//!
//! `PAGELAB_BENCH_MAXRUN` (default 8) sets the longest run; 1 makes every run one reference.
//! `PAGELAB_BENCH_FILTER` keeps only the rows whose name contains it (`lru curve`, `min`).
//!
//! `cargo bench -p pagelab-trace --bench policies`

use pagelab_core::RngStreams;
use pagelab_trace::curve::{curve_by_simulation, lru_curve, opt_curve, opt_curve_upto, ws_curve};
use pagelab_trace::policy::{simulate, NextUse, PolicySpec, INFO};
use pagelab_trace::{AccessKind, Run};
use rand::Rng;
use std::time::Instant;

const PAGES: u32 = 50_000;
const WINDOW: u32 = 2_000;
const PHASE: usize = 20_000;

fn string(n_runs: usize, max_run: u32) -> Vec<Run> {
    let mut rng = RngStreams::new(1).stream("bench.string", 0);
    let mut runs = Vec::with_capacity(n_runs);
    let mut base = 0;
    for i in 0..n_runs {
        if i % PHASE == 0 {
            base = rng.gen_range(0..PAGES - WINDOW);
        }
        let page = if rng.gen_bool(0.9) {
            base + rng.gen_range(0..WINDOW)
        } else {
            rng.gen_range(0..PAGES)
        };
        let kind = if rng.gen_range(0..4) == 0 {
            AccessKind::Store
        } else {
            AccessKind::Load
        };
        runs.push(Run::new(page, rng.gen_range(1..=max_run), kind));
    }
    runs
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown cpu".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    format!("{cpu}, {cores} cores")
}

fn report(name: &str, refs: u64, secs: f64, note: &str) {
    println!(
        "{name:<28} {:>10.1} M refs/s  {:>8.3} s  {note}",
        refs as f64 / secs / 1e6,
        secs
    );
}

fn main() {
    let n_runs: usize = std::env::var("PAGELAB_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4_000_000);
    let max_run: u32 = std::env::var("PAGELAB_BENCH_MAXRUN")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(8)
        .max(1);
    let filter = std::env::var("PAGELAB_BENCH_FILTER").unwrap_or_default();
    let want = |name: &str| name.contains(filter.as_str());
    let runs = string(n_runs, max_run);
    let refs: u64 = runs.iter().map(|r| u64::from(r.count)).sum();
    println!("machine: {}", machine());
    println!(
        "string: {} runs, {} references, {} pages (synthetic, seed 1)",
        runs.len(),
        refs,
        PAGES
    );
    let frames = 4_096;
    println!("single size: {frames} frames, from memory, best of 3");
    for name in INFO.iter().map(|i| i.name) {
        if !want(name) {
            continue;
        }
        let spec = PolicySpec::by_name(name).unwrap();
        let mut best = f64::INFINITY;
        let mut faults = 0;
        for _ in 0..3 {
            let t = Instant::now();
            let o = simulate(&spec, &runs, frames, 0).unwrap();
            best = best.min(t.elapsed().as_secs_f64());
            faults = o.measured.faults;
        }
        let note = if name == "min" {
            "(next-use pass included)"
        } else {
            ""
        };
        report(name, refs, best, &format!("faults {faults} {note}"));
    }
    println!("curves:");
    if want("lru curve") {
        let t = Instant::now();
        let c = lru_curve(&runs, 0);
        let s = t.elapsed().as_secs_f64();
        report(
            "lru curve (all sizes)",
            refs,
            s,
            &format!("{} sizes", c.points.len()),
        );
    }
    if want("ws curve") {
        let t = Instant::now();
        let w = ws_curve(&runs, &(1..=100).map(|k| k * 1000).collect::<Vec<_>>()).unwrap();
        let s = t.elapsed().as_secs_f64();
        report(
            "ws curve (100 windows)",
            refs,
            s,
            &format!("{} windows", w.points.len()),
        );
    }
    if want("min curve") {
        let opt_runs = &runs[..runs.len().min(500_000)];
        let opt_refs: u64 = opt_runs.iter().map(|r| u64::from(r.count)).sum();
        let t = Instant::now();
        let o = opt_curve(&NextUse::compute(opt_runs), 0);
        let s = t.elapsed().as_secs_f64();
        let note = format!("{} sizes, first {} runs", o.points.len(), opt_runs.len());
        report("min curve (all sizes)", opt_refs, s, &note);
        let t = Instant::now();
        let o = opt_curve_upto(&NextUse::compute(&runs), 0, 4_096);
        let s = t.elapsed().as_secs_f64();
        let note = format!("{} sizes, whole string", o.points.len());
        report("min curve (sizes <= 4096)", refs, s, &note);
    }
    let sizes: Vec<u32> = (1..=16).map(|k| k * 512).collect();
    for name in ["fifo", "clock"] {
        let row = format!("{name} curve (16 sizes)");
        if !want(&row) {
            continue;
        }
        let spec = PolicySpec::by_name(name).unwrap();
        let t = Instant::now();
        curve_by_simulation(&spec, &runs, &sizes, 0).unwrap();
        let s = t.elapsed().as_secs_f64();
        report(
            &row,
            refs * sizes.len() as u64,
            s,
            "references x sizes, rayon over the cores",
        );
    }
}
