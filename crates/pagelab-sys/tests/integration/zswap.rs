//! The compressed page pool (`[memory.zswap]`, Linux's zswap on VM's frame supply).

use crate::{m, small};
use pagelab_sys::System;
use proptest::prelude::*;

fn run(users: u32, frames: u32, overrides: &[(&str, &str)]) -> pagelab_sys::Report {
    let spec = small(users, frames, 120.0, overrides);
    let mut sys = System::build(&spec, 5, None).unwrap();
    sys.set_check_every(1);
    sys.run(&mut |_| {}).unwrap()
}

#[test]
fn the_pool_turns_page_reads_into_loads_and_costs_storage() {
    let without = run(8, 80, &[]);
    let with = run(8, 80, &[("memory.zswap.max_pool_percent", "40")]);
    assert!(
        !without.metrics.contains_key("zswap_load_rate"),
        "no pool, no pool metrics"
    );
    let (loads, stores) = (m(&with, "zswap_load_rate"), m(&with, "zswap_store_rate"));
    assert!(
        loads > 0.0 && stores >= loads,
        "stores {stores}, loads {loads}"
    );
    // Every load is a fault that needed no read; the pool's frames are storage lost to pages.
    assert!(m(&with, "demand_paging_rate") < m(&without, "demand_paging_rate"));
    let pool = m(&with, "zswap_pool_pct");
    assert!(pool > 0.0 && pool <= 40.0 + 1e-9, "pool {pool} %");
}

#[test]
fn a_pool_of_no_storage_stores_nothing_and_changes_nothing() {
    let without = run(6, 60, &[]);
    let empty = run(6, 60, &[("memory.zswap.max_pool_percent", "0")]);
    assert_eq!(m(&empty, "zswap_store_rate"), 0.0);
    assert!(m(&empty, "zswap_reject_rate") > 0.0, "every store refused");
    for k in [
        "q1_seconds",
        "demand_paging_rate",
        "page_io_time_ms",
        "cpu_busy_pct",
    ] {
        assert_eq!(m(&empty, k), m(&without, k), "{k}");
    }
}

#[test]
fn a_full_pool_refuses_and_writes_back_its_oldest_pages_to_the_threshold() {
    let r = run(10, 60, &[("memory.zswap.max_pool_percent", "10")]);
    // At its cap a store is refused (written as without the pool) and the shrink worker
    // writes back until the pool is at 90 % of its cap: both happen, and the pool stays in.
    assert!(m(&r, "zswap_reject_rate") > 0.0);
    assert!(m(&r, "zswap_writeback_rate") > 0.0);
    assert!(m(&r, "zswap_pool_pct") <= 10.0 + 1e-9);
    // With no threshold to fall to, the worker empties the pool each time it is full.
    let empty = run(
        10,
        60,
        &[
            ("memory.zswap.max_pool_percent", "10"),
            ("memory.zswap.accept_threshold_percent", "0"),
        ],
    );
    assert!(m(&empty, "zswap_pool_pct") < m(&r, "zswap_pool_pct"));
}

#[test]
fn a_measured_compressor_stores_zero_filled_pages_in_no_room() {
    let ratio = run(8, 80, &[("memory.zswap.max_pool_percent", "30")]);
    let lzo = run(
        8,
        80,
        &[
            ("memory.zswap.max_pool_percent", "30"),
            ("memory.zswap.compressor", "lzo"),
        ],
    );
    assert_eq!(m(&ratio, "zswap_zero_filled_pct"), 0.0);
    let zero = m(&lzo, "zswap_zero_filled_pct");
    assert!(zero > 0.0 && zero < 100.0, "zero-filled {zero} %");
    assert!(m(&lzo, "zswap_store_rate") > 0.0);
}

#[test]
fn an_unknown_compressor_names_the_key() {
    let o = vec![("memory.zswap.compressor".to_string(), "deflate".to_string())];
    let e = pagelab_sys::load_spec(&crate::small_toml(4, 40, 60.0), "small.toml", &o)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("memory.zswap.compressor") && e.contains("lzo"),
        "{e}"
    );
}

#[test]
fn page_swapping_and_the_pool_do_not_mix() {
    let o: Vec<(String, String)> = [
        ("memory.residency", "page-swapping"),
        ("memory.zswap.compression_ratio", "2"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let e = pagelab_sys::load_spec(&crate::small_toml(4, 40, 60.0), "small.toml", &o)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("memory.zswap") && e.contains("page-swapping"),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]
    /// The invariant pass after every event with a pool of any size, threshold, ratio or
    /// measured compressor, under any frame supply.
    #[test]
    fn invariants_hold_with_any_pool(
        users in 1u32..12,
        frames in 30u32..120,
        percent in 0u32..60,
        ratio in 1.0f64..4.0,
        threshold in 0u32..100,
        compressor in proptest::sample::select(vec!["", "lzo", "lz4", "zstd"]),
        policy in proptest::sample::select(vec!["clock", "lru", "linux-lru", "mglru"]),
        seed in 0u64..1000,
    ) {
        let (p, t, r) = (percent.to_string(), threshold.to_string(), format!("{ratio:.3}"));
        let mut o = vec![
            ("memory.replacement", policy),
            ("memory.replacement_reserve", "8"),
            ("memory.zswap.max_pool_percent", p.as_str()),
            ("memory.zswap.accept_threshold_percent", t.as_str()),
            ("memory.zswap.compression_ratio", r.as_str()),
        ];
        if !compressor.is_empty() {
            o.push(("memory.zswap.compressor", compressor));
        }
        let spec = small(users, frames, 30.0, &o);
        let mut sys = System::build(&spec, seed, None).unwrap();
        sys.set_check_every(1);
        let r = sys.run(&mut |_| {});
        prop_assert!(r.is_ok(), "{policy}: {:?}", r.err());
    }
}

#[test]
fn a_ranking_policy_leaves_room_for_the_pool() {
    // The policy holds at most the frames the pool at its cap leaves: SELECT takes its
    // victims, never the scan's for want of one.
    let r = run(
        10,
        80,
        &[
            ("memory.replacement", "lru"),
            ("memory.replacement_reserve", "8"),
            ("memory.zswap.max_pool_percent", "30"),
        ],
    );
    assert!(m(&r, "zswap_store_rate") > 0.0);
    assert!(r.engine["supply_reclaimed"] > 0);
    assert_eq!(r.engine["supply_scan_fallbacks"], 0);
}
