//! The UNIX V6 machine: conservation, determinism, the PCTRMM law, spec errors.

use pagelab_sys::unix::{load_spec, Machine};

fn preset() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../presets/unix-v6.toml");
    std::fs::read_to_string(path).expect("presets/unix-v6.toml")
}

fn set(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn metric(r: &pagelab_sys::Report, name: &str) -> f64 {
    r.metrics[name].value
}

#[test]
fn core_and_swap_are_conserved_after_every_event() {
    // Fragmentation on purpose: unequal sizes, a shared text, memory for about half.
    let spec = load_spec(
        &preset(),
        "unix-v6.toml",
        &set(&[
            ("run.duration_s", "120.0"),
            ("run.warmup_s", "0.0"),
            ("workload.size_spread", "0.5"),
            ("workload.text_clicks", "60"),
            ("memory.core_clicks", "900"),
        ]),
    )
    .unwrap();
    let mut m = Machine::build(&spec, 5).unwrap();
    m.set_check_every(1);
    let r = m.run(&mut |_| {}).unwrap();
    assert!(metric(&r, "swap_outs") > 10.0, "the run must swap");
}

#[test]
fn same_seed_same_bits() {
    let spec = load_spec(
        &preset(),
        "unix-v6.toml",
        &set(&[("run.duration_s", "200.0"), ("run.warmup_s", "20.0")]),
    )
    .unwrap();
    let a = pagelab_sys::unix::run(&spec, 9, &mut |_| {}).unwrap();
    let b = pagelab_sys::unix::run(&spec, 9, &mut |_| {}).unwrap();
    let c = pagelab_sys::unix::run(&spec, 10, &mut |_| {}).unwrap();
    let ja = serde_json::to_string(&a).unwrap();
    assert_eq!(ja, serde_json::to_string(&b).unwrap());
    assert_ne!(ja, serde_json::to_string(&c).unwrap());
}

#[test]
fn reaction_time_rises_as_pctrmm_falls() {
    // PN = 8, PS = 200: MM 1800, 1200, 800 give PCTRMM 11, −33, −100.
    let mut last = -1.0;
    let mut last_swaps = -0.5;
    for mm in ["1800", "1200", "800"] {
        let spec = load_spec(
            &preset(),
            "unix-v6.toml",
            &set(&[
                ("run.duration_s", "400.0"),
                ("run.warmup_s", "40.0"),
                ("memory.core_clicks", mm),
            ]),
        )
        .unwrap();
        let r = pagelab_sys::unix::run(&spec, 1, &mut |_| {}).unwrap();
        let rt = metric(&r, "reaction_time_ms");
        assert!(
            rt > last,
            "MM {mm} (PCTRMM {:.0}): reaction {rt:.1} ms not above {last:.1}",
            metric(&r, "pctrmm")
        );
        last = rt;
        // Figure 1: swapping intensifies as −PCTRMM grows (none while everything fits).
        let swaps = metric(&r, "swap_rate");
        assert!(
            swaps > last_swaps,
            "MM {mm}: swap rate {swaps} not above {last_swaps}"
        );
        last_swaps = swaps;
    }
    assert!(
        last > 500.0,
        "PCTRMM −100 should react slowly: {last:.1} ms"
    );
}

#[test]
fn swap_outs_during_io_are_never_easy_core() {
    // CHANSON §3.1's victims "before the I/O is completed" sleep at PRIBIO (SSLEEP), which
    // sched's easy-core rule never takes: the two shares are disjoint. Without sleep calls or
    // terminal output the prototypes only compute or wait for blocks, so the deserving rule
    // must take some of them in the middle of a block access.
    for (sleep, tty) in [("0.15", "0.3"), ("0.0", "0.0")] {
        let spec = load_spec(
            &preset(),
            "unix-v6.toml",
            &set(&[
                ("run.duration_s", "300.0"),
                ("memory.core_clicks", "800"),
                ("workload.sleep_probability", sleep),
                ("workload.tty_probability", tty),
            ]),
        )
        .unwrap();
        let r = pagelab_sys::unix::run(&spec, 3, &mut |_| {}).unwrap();
        let (io, easy) = (
            metric(&r, "swap_out_io_pct"),
            metric(&r, "swap_out_easy_pct"),
        );
        assert!(metric(&r, "swap_outs") > 20.0, "the run must swap");
        assert!(io + easy <= 100.0 + 1e-9, "io {io} % + easy {easy} %");
        assert!(io > 0.0, "sleep {sleep}, tty {tty}: no swap-out during I/O");
        let out = metric(&r, "reaction_swapped_pct");
        assert!(out <= 100.0, "reactions woken swapped out: {out} %");
        if sleep != "0.0" {
            // Low-priority sleepers are swapped out first, so some reactions begin outside.
            assert!(out > 0.0, "no reaction began swapped out");
        }
    }
}

#[test]
fn a_sequential_walk_reads_ahead_and_finds_its_blocks_in_core() {
    // Files of 400 blocks against 15 buffers, everything in core, reads only. A random block
    // is almost never cached and nothing is read ahead; walking the file, each read after the
    // first finds the block breada started (after waiting for it, if the disk has not yet
    // delivered), yet every block still crosses the disk once. The buffer books are checked
    // after every event.
    let walk = |access: &str| {
        let access = format!("\"{access}\"");
        let pairs = [
            ("run.duration_s", "120.0"),
            ("run.warmup_s", "10.0"),
            ("memory.core_clicks", "2000"),
            ("workload.write_fraction", "0.0"),
            ("workload.file_blocks", "400"),
            ("workload.file_access", access.as_str()),
        ];
        let spec = load_spec(&preset(), "unix-v6.toml", &set(&pairs)).unwrap();
        let mut m = Machine::build(&spec, 4).unwrap();
        m.set_check_every(1);
        m.run(&mut |_| {}).unwrap()
    };
    let random = walk("random");
    assert_eq!(metric(&random, "read_ahead_rate"), 0.0);
    assert!(metric(&random, "cache_hit_pct") < 10.0);
    let seq = walk("sequential");
    let (hits, ahead) = (
        metric(&seq, "cache_hit_pct"),
        metric(&seq, "read_ahead_rate"),
    );
    assert!(hits > 80.0, "sequential hits {hits} %");
    assert!(
        ahead > 0.5 * metric(&seq, "fs_access_rate"),
        "read-aheads {ahead}/s"
    );
    let (disk, fs) = (metric(&seq, "disk_io_rate"), metric(&seq, "fs_access_rate"));
    assert!(disk > 0.9 * fs, "{disk} transfers/s for {fs} accesses/s");
}

#[test]
fn everything_fits_no_swapping() {
    let spec = load_spec(
        &preset(),
        "unix-v6.toml",
        &set(&[("run.duration_s", "120.0"), ("memory.core_clicks", "2000")]),
    )
    .unwrap();
    let r = pagelab_sys::unix::run(&spec, 2, &mut |_| {}).unwrap();
    assert_eq!(metric(&r, "swap_ins") + metric(&r, "swap_outs"), 0.0);
    assert_eq!(metric(&r, "reaction_swapped_pct"), 0.0);
    assert_eq!(metric(&r, "pctrmm"), 20.0);
    assert!(metric(&r, "loop_rate") > 0.0);
}

#[test]
fn run_toml_dispatches_on_system_kind() {
    let r = pagelab_sys::run_toml(
        &preset(),
        "unix-v6.toml",
        &set(&[("run.duration_s", "60.0"), ("run.warmup_s", "0.0")]),
        1,
        None,
        &mut |_| {},
    )
    .unwrap();
    assert!(r.metrics.contains_key("reaction_time_ms"));
    assert_eq!(r.spec["workload"]["processes"], 8);
}

#[test]
fn spec_errors_are_one_line_and_name_the_key() {
    let cases = [
        ("workload.processes", "0", "workload.processes"),
        ("workload.size_clicks", "2000", "workload.size_clicks"),
        ("swapper.swap_drive", "2", "swapper.swap_drive"),
        ("workload.cpu_ms", "-1.0", "workload.cpu_ms"),
        ("workload.sleep_every_s", "-2.0", "workload.sleep_every_s"),
        ("workload.tty_every_s", "nan", "workload.tty_every_s"),
        ("memory.residency", "\"demand-paging\"", "memory.residency"),
        ("workload.colour", "1", "workload"),
    ];
    for (k, v, path) in cases {
        let e = load_spec(&preset(), "unix-v6.toml", &set(&[(k, v)]))
            .unwrap_err()
            .to_string();
        assert!(!e.contains('\n'), "{e}");
        assert!(e.starts_with("unix-v6.toml: "), "{e}");
        assert!(e.contains(path), "{k}: {e}");
    }
    // The paging engine refuses a swapping spec with a pointer to the right loader.
    let e = pagelab_sys::load_spec(&preset(), "unix-v6.toml", &[])
        .unwrap_err()
        .to_string();
    assert!(!e.contains('\n'), "{e}");
}

#[test]
fn login_control_admits_fewer_and_reacts_faster_under_a_lower_threshold() {
    let run = |threshold: &str| {
        let spec = load_spec(
            &preset(),
            "unix-v6.toml",
            &set(&[
                ("run.duration_s", "600.0"),
                ("run.warmup_s", "0.0"),
                ("workload.processes", "2"),
                ("login.arrival_s", "20.0"),
                ("login.threshold_ms", threshold),
                ("login.window_s", "60.0"),
                ("login.max_processes", "30"),
            ]),
        )
        .unwrap();
        pagelab_sys::unix::run(&spec, 3, &mut |_| {}).unwrap()
    };
    let strict = run("300.0");
    let loose = run("3000.0");
    assert!(metric(&strict, "logins_refused") > 0.0);
    assert!(
        metric(&strict, "processes_end") < metric(&loose, "processes_end"),
        "strict {} loose {}",
        metric(&strict, "processes_end"),
        metric(&loose, "processes_end")
    );
    assert!(metric(&strict, "reaction_time_ms") < metric(&loose, "reaction_time_ms"));
}

mod conservation {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]
        #[test]
        fn core_and_swap_balance_for_any_mix(
            pn in 1u32..12,
            ps in 40u32..200,
            spread in 0.0f64..0.9,
            text in prop_oneof![Just(0u32), 10u32..80],
            mm_factor in 0.4f64..1.5,
            pc in 1.0f64..200.0,
            seed in 0u64..1000,
        ) {
            let largest = (f64::from(ps) * (1.0 + spread)).ceil() as u32 + text;
            // The system's own processes (the console shell: 130 clicks) must fit too.
            let mm = ((f64::from(pn * ps) * mm_factor) as u32).max(largest + 1).max(131);
            let o = set(&[
                ("run.duration_s", "60.0"),
                ("run.warmup_s", "0.0"),
                ("workload.processes", &pn.to_string()),
                ("workload.size_clicks", &ps.to_string()),
                ("workload.size_spread", &format!("{spread}")),
                ("workload.text_clicks", &text.to_string()),
                ("workload.cpu_ms", &format!("{pc}")),
                ("memory.core_clicks", &mm.to_string()),
            ]);
            let spec = load_spec(&preset(), "unix-v6.toml", &o);
            // Configurations whose swap area is too small are refused with a named key.
            let spec = match spec {
                Ok(s) => s,
                Err(e) => {
                    prop_assert!(e.to_string().contains("swapper.swap_blocks"), "{}", e);
                    return Ok(());
                }
            };
            let mut m = Machine::build(&spec, seed).unwrap();
            m.set_check_every(1);
            let r = m.run(&mut |_| {});
            prop_assert!(r.is_ok(), "{:?}", r.err());
        }
    }
}
