//! The VM/SP HPO presets at smoke scale (five simulated minutes after a warm-up): each loads,
//! runs, and the prototype moves the Table 2 measures the way the paper says (tetzlaff,
//! "Performance results"); round turkey blocks its page-outs.

use pagelab_sys::{load_spec, run, Report};

fn preset(name: &str, extra: &[(&str, &str)]) -> Report {
    let path = format!("{}/../../presets/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut o: Vec<(String, String)> = vec![
        ("run.duration_s".into(), "400".into()),
        ("run.warmup_s".into(), "100".into()),
    ];
    o.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let spec = load_spec(&text, &path, &o).unwrap();
    run(&spec, 1).unwrap()
}

fn m(r: &Report, k: &str) -> f64 {
    r.metrics[k].value
}

/// The keys `pagelab calibrate` fitted to Table 2's base column, as overrides
/// (presets/hpo-base-3081-fitted.toml, `[[provenance.key]]`): the reproductions run base and
/// prototype with them.
fn fitted() -> Vec<(String, String)> {
    let path = format!(
        "{}/../../presets/hpo-base-3081-fitted.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let doc: toml::Table = std::fs::read_to_string(&path).unwrap().parse().unwrap();
    doc["provenance"]["key"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["key"].as_str().unwrap().to_string(),
                k["value"].to_string(),
            )
        })
        .collect()
}

fn fitted_preset(name: &str, extra: &[(&str, &str)]) -> Report {
    let keys = fitted();
    let mut o: Vec<(&str, &str)> = keys.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    o.extend_from_slice(extra);
    preset(name, &o)
}

#[test]
fn prototype_moves_table_2_the_papers_way() {
    let base = fitted_preset("vmsp", &[]);
    // The Q2 limit the paper's experiment chooses (hpo_fit.q2_limit, full scale).
    let proto = fitted_preset("hpo-prototype", &[("swapping.q2_mpl_limit", "10")]);
    // Demand paging rate and page reads per Q1 stay down several-fold (425 → 50, 11.6 → 1.4).
    assert!(m(&proto, "demand_paging_rate") * 3.0 < m(&base, "demand_paging_rate"));
    assert!(m(&proto, "page_reads_per_q1") * 3.0 < m(&base, "page_reads_per_q1"));
    // Paging SIO rate down (240 → 136).
    assert!(m(&proto, "paging_sio_rate") < 0.6 * m(&base, "paging_sio_rate"));
    // Total paging (swap plus demand) up; most of it swapping (720 swap against 50 demand).
    assert!(m(&proto, "total_paging_rate") > 1.2 * m(&base, "total_paging_rate"));
    assert!(m(&proto, "swap_paging_rate") > 5.0 * m(&proto, "demand_paging_rate"));
    // Physical swap-out, not the scan, supplies most frames: steals fall several-fold (CP's
    // spool pages and the last resort keep a few).
    assert!(m(&proto, "steal_rate") < 0.25 * m(&base, "steal_rate"));
    // Q1 response better.
    assert!(m(&proto, "q1_seconds") < m(&base, "q1_seconds"));
    // No swapping metric leaks into the base.
    assert_eq!(m(&base, "swap_paging_rate"), 0.0);
}

#[test]
fn a_trivial_response_splits_into_parts_that_add_up() {
    const PARTS: [&str; 7] = [
        "q1_eligible_s",
        "q1_ready_s",
        "q1_running_s",
        "q1_page_wait_s",
        "q1_frame_wait_s",
        "q1_vio_wait_s",
        "q1_console_s",
    ];
    let base = fitted_preset("vmsp", &[]);
    let proto = fitted_preset("hpo-prototype", &[("swapping.q2_mpl_limit", "10")]);
    for r in [&base, &proto] {
        let sum: f64 = PARTS.iter().map(|k| m(r, k)).sum();
        assert!((sum - m(r, "q1_seconds")).abs() < 1e-9 * m(r, "q1_seconds").max(1.0));
        // Every trivial transaction runs and does its minidisk I/O.
        assert!(m(r, "q1_running_s") > 0.0 && m(r, "q1_vio_wait_s") > 0.0);
    }
    // The prototype's gain is page wait: its trivial transactions read far fewer pages.
    assert!(m(&proto, "q1_page_wait_s") < 0.6 * m(&base, "q1_page_wait_s"));
    // The base admits every trivial transaction at once: none waits on the eligible list.
    assert_eq!(m(&base, "q1_eligible_s"), 0.0);
}

#[test]
fn round_turkey_blocks_page_outs() {
    let base = preset("vmsp", &[]);
    let rt = preset("hpo-round-turkey", &[]);
    assert_eq!(m(&base, "pages_per_write_group"), 1.0);
    assert!(m(&rt, "pages_per_write_group") > 4.0);
    assert!(m(&rt, "paging_sio_rate") < 0.8 * m(&base, "paging_sio_rate"));
}

#[test]
fn prepage_prototype_swaps_and_prepages() {
    let r = preset("hpo-prepage", &[]);
    assert!(m(&r, "swap_fault_rate") > 0.0);
    assert!(m(&r, "trim_rate") > 0.0);
    let e = m(&r, "prepage_error_ratio");
    assert!(e > 0.0 && e < 0.5, "prepage errors {e}");
    // The fixed Q2 limit holds on average.
    assert!(m(&r, "users_in_q2") <= 40.0);
}

#[test]
fn q2_limit_caps_users_in_q2() {
    let r = preset("hpo-prototype", &[("swapping.q2_mpl_limit", "5")]);
    assert!(m(&r, "users_in_q2") <= 5.0 + 1e-9);
}

#[test]
fn full_prepaging_reads_sets_before_they_fault() {
    let two = preset("hpo-prototype", &[]);
    let all = preset("hpo-prototype", &[("swapping.full_prepage", "true")]);
    let none = preset("hpo-prototype", &[("swapping.prepage_sets", "0")]);
    // Sets come in at queue-add instead of by swap faults: fewer faults the more is prepaged.
    assert!(m(&all, "swap_fault_rate") < m(&two, "swap_fault_rate"));
    assert!(m(&two, "swap_fault_rate") < m(&none, "swap_fault_rate"));
    assert!(m(&all, "swap_paging_rate") >= 0.98 * m(&two, "swap_paging_rate"));
}

#[test]
fn hpo_spec_errors_name_the_key() {
    let path = format!(
        "{}/../../presets/hpo-prototype.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let e = load_spec(
        &text,
        &path,
        &[("swapping.swap_set_pages".into(), "0".into())],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("swapping.swap_set_pages"), "{e}");
    let e = load_spec(&text, &path, &[("swapping.sets".into(), "2".into())])
        .unwrap_err()
        .to_string();
    assert!(e.contains("swapping") && e.contains("unknown field"), "{e}");
    let e = load_spec(
        &text,
        &path,
        &[("paging.slot_allocation".into(), "sideways".into())],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("paging.slot_allocation"), "{e}");
    let e = load_spec(
        &text,
        &path,
        &[("vmsp.dispatch".into(), "\"lottery\"".into())],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("vmsp"), "{e}");
    let e = load_spec(&text, &path, &[("vmsp.bias".into(), "0".into())])
        .unwrap_err()
        .to_string();
    assert!(e.contains("vmsp.bias"), "{e}");
}

#[test]
fn moving_cursor_packs_a_band_where_zigzag_fills_the_centre() {
    // Figure 4 out of a run: slot occupancy by cylinder of the first 3380 swap area.
    let r = preset("hpo-prototype", &[]);
    let d = &r.devices[0];
    assert!(d.swap_area);
    assert_eq!(d.used_by_cylinder.len(), 100);
    let used: u32 = d.used_by_cylinder.iter().sum();
    assert!(used > 0);
    // Every used slot holds a page: the books of the report match the device's writes.
    assert!(u64::from(used) <= d.writes);
    // The paging drums keep their one "cylinder".
    assert_eq!(r.devices[6].used_by_cylinder.len(), 1);
}

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    /// Frames, slots, swap sets and users stay accounted for after every event, whatever the
    /// HPO options, in a small machine short of storage.
    #[test]
    fn page_swapping_conserves_frames_slots_and_sets(
        seed in 0u64..1000,
        rt in any::<bool>(),
        unchanged in any::<bool>(),
        full in any::<bool>(),
        gc in any::<bool>(),
        set_pages in 1u32..10,
    ) {
        let set = set_pages.to_string();
        let spec = crate::small(8, 60, 40.0, &[
            ("memory.residency", "page-swapping"),
            ("memory.free_target_extra", "4"),
            ("paging.slot_allocation", "moving-cursor"),
            ("paging.device_selection", if rt { "round-turkey" } else { "round-robin" }),
            ("paging.write_unchanged", if unchanged { "true" } else { "false" }),
            ("swapping.full_prepage", if full { "true" } else { "false" }),
            ("swapping.garbage_collector", if gc { "true" } else { "false" }),
            ("swapping.gc_period_s", "1.0"),
            ("swapping.swap_set_pages", &set),
            ("swapping.q2_mpl_limit", "2"),
        ]);
        let mut sys = pagelab_sys::System::build(&spec, seed, None).unwrap();
        sys.set_check_every(1);
        let r = sys.run(&mut |_| {}).unwrap();
        // Work gets done and the machine swaps.
        prop_assert!(r.metrics["throughput"].value > 0.0);
        prop_assert!(r.metrics["swap_paging_rate"].value > 0.0);
    }
}
