//! One-pass curves against per-size simulation on a fixed-seed locality string.

use crate::policies::{locality_string, write_trace};
use pagelab_trace::curve::{
    curve_by_simulation, lru_curve, opt_curve, opt_curve_trace, ws_curve, CurvePoint, RunTimeModel,
};
use pagelab_trace::grid::simulate_min_trace_sizes;
use pagelab_trace::policy::{simulate, simulate_sizes, NextUse, PolicySpec};
use pagelab_trace::{AccessKind, Run};

#[test]
fn lru_curve_equals_simulation_at_every_size() {
    let runs = locality_string(20_000, 5);
    let c = lru_curve(&runs, 2_000);
    let sizes: Vec<u32> = c.points.iter().map(|p| p.frames).collect();
    let outs = simulate_sizes(&PolicySpec::by_name("lru").unwrap(), &runs, &sizes, 2_000).unwrap();
    for (p, o) in c.points.iter().zip(&outs) {
        assert_eq!(p, &CurvePoint::from(o), "size {}", p.frames);
    }
    assert!(c.points.iter().any(|p| p.pushes.unwrap() > 0));
}

#[test]
fn opt_curve_equals_simulation_at_every_size() {
    let runs = locality_string(20_000, 6);
    let c = opt_curve(&NextUse::compute(&runs), 0);
    let sizes: Vec<u32> = c.points.iter().map(|p| p.frames).collect();
    let outs = simulate_sizes(&PolicySpec::by_name("min").unwrap(), &runs, &sizes, 0).unwrap();
    for (p, o) in c.points.iter().zip(&outs) {
        assert_eq!(p.faults, o.measured.faults, "size {}", p.frames);
    }
}

/// A locality string with pages whose next reference is 70,000 runs away (beyond the 16-bit
/// distances of the next-use over a trace file) and pages never referenced again.
fn far_reuse_string() -> Vec<Run> {
    let mut runs = vec![
        Run::new(1000, 1, AccessKind::Store),
        Run::new(1001, 2, AccessKind::Load),
    ];
    runs.extend(locality_string(70_000, 12));
    runs.push(Run::new(1000, 1, AccessKind::Load));
    runs.extend(locality_string(3_000, 13));
    runs.push(Run::new(1001, 1, AccessKind::Load));
    runs.push(Run::new(1002, 1, AccessKind::Store));
    runs
}

#[test]
fn opt_curve_over_a_trace_file_equals_it_in_memory() {
    let runs = far_reuse_string();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("far.pltrace");
    write_trace(&path, &runs);
    // The writer merges adjacent runs of one page and kind; annotate what the file holds.
    let held = pagelab_trace::format::TraceReader::open(&path)
        .unwrap()
        .read_all()
        .unwrap();
    for (warmup, max) in [(0, u32::MAX), (5_000, 60)] {
        let mem = pagelab_trace::curve::opt_curve_upto(&NextUse::compute(&held), warmup, max);
        assert_eq!(opt_curve_trace(&path, warmup, max).unwrap(), mem);
    }
    let sizes = [1, 30, 200];
    let spec = PolicySpec::by_name("min").unwrap();
    let file = simulate_min_trace_sizes(&spec, &path, &sizes, 100).unwrap();
    assert_eq!(file, simulate_sizes(&spec, &held, &sizes, 100).unwrap());
}

#[test]
fn ws_curve_equals_simulation() {
    let runs = locality_string(20_000, 8);
    let taus = [1, 10, 100, 1_000, 5_000];
    let c = ws_curve(&runs, &taus).unwrap();
    for p in &c.points {
        let spec: PolicySpec =
            serde_json::from_str(&format!(r#"{{"kind":"ws","tau":{}}}"#, p.tau)).unwrap();
        let o = simulate(&spec, &runs, 1, 0).unwrap();
        assert_eq!(p.faults, o.measured.faults);
        assert!((p.mean_size - o.mean_resident.unwrap()).abs() < 1e-9);
    }
    // The miss rate falls and the size grows with the window.
    assert!(c
        .points
        .windows(2)
        .all(|w| w[1].fault_rate <= w[0].fault_rate));
    assert!(c
        .points
        .windows(2)
        .all(|w| w[1].mean_size >= w[0].mean_size));
}

#[test]
fn m44_run_time_falls_with_core_size() {
    let runs = locality_string(20_000, 9);
    let c = curve_by_simulation(
        &PolicySpec::by_name("fifo").unwrap(),
        &runs,
        &[8, 32, 128, 400],
        0,
    )
    .unwrap();
    let t = RunTimeModel::default().apply(&c);
    assert_eq!(t.len(), 4);
    assert!(t[0].run_time > t[3].run_time);
    // All 400 pages fit: only cold pulls remain.
    let refs: u64 = runs.iter().map(|r| u64::from(r.count)).sum();
    let cold = c.points[3].faults;
    assert!((t[3].run_time - (refs as f64 * 10e-6 + cold as f64 * 0.21)).abs() < 1e-6);
}
