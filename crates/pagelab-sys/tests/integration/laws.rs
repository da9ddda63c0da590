//! Laws and invariants of the running system.

use crate::{m, small};
use pagelab_sys::{load_spec, run, run_with_sources, System};
use pagelab_trace::{ReferenceSource, VecSource};
use proptest::prelude::*;

#[test]
fn smallest_system_runs_end_to_end() {
    let spec = small(6, 100, 120.0, &[]);
    let r = run(&spec, 1).unwrap();
    assert!(m(&r, "throughput") > 0.5, "{}", r.summary_table());
    assert!(m(&r, "demand_paging_rate") > 0.0);
    assert!(m(&r, "vio_rate") > 0.0);
    assert!(m(&r, "q1_drop_rate") > 0.0);
    assert!(m(&r, "problem_state_pct") > 0.0);
    assert_eq!(r.intervals.rows.len(), 12);
    assert_eq!(r.users.len(), 6);
    assert_eq!(r.seed, 1);
    assert!(r.response["all"].n > 0);
    // The report serializes with the spec and the seed inside.
    let json = serde_json::to_string(&r).unwrap();
    assert!(json.contains("\"seed\":1") && json.contains("\"load_control\""));
}

#[test]
fn same_spec_and_seed_give_an_identical_report() {
    let spec = small(8, 120, 90.0, &[]);
    let a = serde_json::to_string(&run(&spec, 7).unwrap()).unwrap();
    let b = serde_json::to_string(&run(&spec, 7).unwrap()).unwrap();
    let c = serde_json::to_string(&run(&spec, 8).unwrap()).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn closed_model_satisfies_interactive_response_time_law() {
    // N = X (R + Z). Transactions in progress at the window's edges make the two sides differ by
    // about N × (R + Z) / T: with N = 12, R + Z ≈ 5.5 s and T = 1180 s, under 1 %. We allow 3 %.
    let spec = small(12, 300, 1200.0, &[]);
    let r = run(&spec, 3).unwrap();
    let n = m(&r, "users");
    let lhs = m(&r, "little_users");
    assert!((lhs / n - 1.0).abs() < 0.03, "X(R+Z) = {lhs}, N = {n}");
}

#[test]
fn response_time_rises_steeply_past_the_thrashing_knee() {
    // 150 frames hold about seven 20-page working sets; with 5 s think times about a tenth of
    // the users are active, so the sets of the active users stop fitting somewhere beyond 16
    // users; the drum, serving up to three queued pages per revolution, holds the knee off to
    // between 24 and 32. Below the knee each user adds a few tens of milliseconds; past it,
    // seconds.
    let resp = |users: u32| {
        let spec = small(users, 150, 400.0, &[]);
        m(&run(&spec, 5).unwrap(), "response_mean_s")
    };
    let (r4, r8, r16, r24) = (resp(4), resp(8), resp(24), resp(32));
    let before = (r8 - r4) / 4.0;
    let after = (r24 - r16) / 8.0; // 24 → 32 users
    assert!(
        after > 10.0 * before.max(0.01),
        "slope {before} s/user below the knee, {after} above (R at 4, 8, 24, 32 users = {r4}, {r8}, {r16}, {r24})"
    );
    assert!(r24 > 10.0 * r8, "R(8) = {r8}, R(32) = {r24}");
}

#[test]
fn frames_pages_and_users_are_conserved_at_every_event() {
    let spec = small(6, 40, 60.0, &[("memory.flush_at_drop", "true")]);
    let mut sys = System::build(&spec, 11, None).unwrap();
    sys.set_check_every(1);
    sys.run(&mut |_| {}).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]
    #[test]
    fn conservation_holds_for_any_small_machine(
        users in 1u32..10,
        frames in 12u32..120,
        cpus in 1u32..4,
        combine in any::<bool>(),
        reset in any::<bool>(),
        flush in any::<bool>(),
        false_drops in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let spec = small(users, frames, 40.0, &[
            ("cpu.count", &cpus.to_string()),
            ("paging.combine_same_cylinder", &combine.to_string()),
            ("memory.reset_reference_at_drop", &reset.to_string()),
            ("memory.flush_at_drop", &flush.to_string()),
            ("load_control.eliminate_false_drops", &false_drops.to_string()),
        ]);
        let mut sys = System::build(&spec, seed, None).unwrap();
        sys.set_check_every(7);
        let r = sys.run(&mut |_| {}).unwrap();
        // Processor time never exceeds capacity.
        prop_assert!(r.metrics["cpu_busy_pct"].value <= 100.0 + 1e-6);
    }
}

#[test]
fn eliminating_false_drops_makes_drops_match_transactions() {
    let with = run(&small(6, 200, 200.0, &[]), 2).unwrap();
    let without = run(
        &small(
            6,
            200,
            200.0,
            &[("load_control.eliminate_false_drops", "true")],
        ),
        2,
    )
    .unwrap();
    assert!(m(&with, "false_drop_rate") > 0.0);
    assert_eq!(m(&without, "false_drop_rate"), 0.0);
    assert!(m(&with, "q1_drop_rate") > m(&without, "q1_drop_rate"));
}

#[test]
fn more_processors_finish_more_work_under_load() {
    let one = run(
        &small(16, 400, 200.0, &[("workload.class.0.think.mean_s", "0.5")]),
        4,
    )
    .unwrap();
    let two = run(
        &small(
            16,
            400,
            200.0,
            &[("workload.class.0.think.mean_s", "0.5"), ("cpu.count", "2")],
        ),
        4,
    )
    .unwrap();
    assert!(m(&two, "throughput") > 1.3 * m(&one, "throughput"));
}

#[test]
fn presets_load_and_run_at_smoke_scale() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../presets/");
    for (file, users) in [
        ("cp67.toml", "10"),
        ("cp67-psi.toml", "10"),
        ("vm370.toml", "30"),
    ] {
        let text = std::fs::read_to_string(format!("{root}{file}")).unwrap();
        let o = vec![
            ("workload.users".to_string(), users.to_string()),
            ("run.duration_s".to_string(), "60".to_string()),
            ("run.warmup_s".to_string(), "10".to_string()),
        ];
        let spec = load_spec(&text, file, &o).unwrap();
        assert_eq!(spec.workload.users.to_string(), users);
        let r = run(&spec, 1).unwrap();
        assert!(m(&r, "throughput") > 0.0, "{file}");
    }
}

#[test]
fn a_trace_program_plugs_in_through_reference_source() {
    let dir = std::env::temp_dir().join(format!("pagelab-sys-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("loop.trace");
    std::fs::write(&path, b"stand-in: the opener below supplies the runs").unwrap();
    let spec = small(
        3,
        100,
        60.0,
        &[(
            "workload.class.0.program",
            &format!(
                "{{ kind = \"trace\", path = {:?} }}",
                path.display().to_string()
            ),
        )],
    );
    let opener =
        |_: &std::path::Path| -> Result<Box<dyn ReferenceSource>, pagelab_trace::TraceError> {
            let pages: Vec<u32> = (0..2000).map(|i| (i * 7 % 23) as u32).collect();
            Ok(Box::new(VecSource::from_pages(&pages)))
        };
    let r = run_with_sources(&spec, 1, &opener, &mut |_| {}).unwrap();
    assert!(m(&r, "throughput") > 0.0);
    // Without a reader, a trace program is a one-line error naming the key.
    let e = run(&spec, 1).unwrap_err().to_string();
    assert!(
        e.contains("workload.class.0.program") && !e.contains('\n'),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn progress_is_reported_in_order_up_to_one() {
    let spec = small(3, 100, 60.0, &[]);
    let mut seen = Vec::new();
    pagelab_sys::run_with_progress(&spec, 1, &mut |f| seen.push(f)).unwrap();
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    assert_eq!(seen.last(), Some(&1.0));
    assert!(seen.len() >= 6);
}

#[test]
fn slices_default_to_bards_values() {
    let spec = small(2, 50, 60.0, &[]);
    let text = crate::small_toml(2, 50, 60.0)
        .replace("q1_slice_s = 0.25\n", "")
        .replace("q2_slice_s = 2.5\n", "");
    assert!(!text.contains("slice_s"));
    let d = load_spec(&text, "t.toml", &[]).unwrap();
    assert_eq!(d.load_control, spec.load_control);
}

/// Every online policy of the trace lab's registry: each can be the frame supply.
fn online_policies() -> Vec<&'static str> {
    let info = pagelab_trace::policy::INFO.iter();
    info.filter(|i| !i.needs_future).map(|i| i.name).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, .. ProptestConfig::default() })]
    /// The invariant pass after every event, in any build (`cargo test --release` runs it
    /// too): random machines, loads and frame supplies.
    #[test]
    fn invariants_hold_after_every_event_for_random_specs(
        users in 1u32..12,
        frames in 40u32..160,
        cpus in 1u32..3,
        policy in proptest::sample::select(online_policies()),
        reserve in 1u32..16,
        flush in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let spec = small(users, frames, 30.0, &[
            ("cpu.count", &cpus.to_string()),
            ("memory.replacement", policy),
            ("memory.replacement_reserve", &reserve.to_string()),
            ("memory.flush_at_drop", &flush.to_string()),
        ]);
        let mut sys = System::build(&spec, seed, None).unwrap();
        sys.set_check_every(1);
        let r = sys.run(&mut |_| {});
        prop_assert!(r.is_ok(), "{policy}: {:?}", r.err());
    }
}

/// The sum of an interval column over the run.
fn total(r: &pagelab_sys::Report, name: &str) -> f64 {
    let col = r.intervals.columns.iter().position(|c| c == name);
    let col = col.unwrap_or_else(|| panic!("no interval column {name}"));
    r.intervals.rows.iter().map(|row| row[col]).sum()
}

#[test]
fn virtual_io_costs_default_to_the_paging_ones_and_are_charged_per_virtual_io() {
    let plain = run(&small(8, 60, 200.0, &[]), 3).unwrap();
    let same = [
        ("cpu.supervisor.vio_sio_us", "50.0"),
        ("cpu.supervisor.vio_interrupt_us", "20.0"),
    ];
    let explicit = run(&small(8, 60, 200.0, &same), 3).unwrap();
    let json = |r: &pagelab_sys::Report| serde_json::to_string(&r.metrics).unwrap();
    assert_eq!(json(&plain), json(&explicit));
    // Only the virtual SIO costs: 1 ms of supervisor time per virtual I/O, nothing per paging
    // operation (a cost debt carried over an interval's edge moves a few µs across it).
    let only = [
        ("cpu.supervisor.fault_us", "0.0"),
        ("cpu.supervisor.sio_us", "0.0"),
        ("cpu.supervisor.interrupt_us", "0.0"),
        ("cpu.supervisor.dispatch_us", "0.0"),
        ("cpu.supervisor.page_moved_us", "0.0"),
        ("cpu.supervisor.vio_sio_us", "1000.0"),
    ];
    let r = run(&small(8, 60, 200.0, &only), 3).unwrap();
    let (sup, vios) = (total(&r, "cpu_supervisor_s"), total(&r, "vios"));
    assert!(vios > 100.0 && m(&r, "demand_paging_rate") > 0.0);
    assert!(
        (sup - vios * 1e-3).abs() < 0.01 * vios * 1e-3,
        "{sup} s for {vios} VIOs"
    );
}
