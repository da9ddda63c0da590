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
fn a_full_pool_writes_back_its_oldest_pages() {
    let r = run(10, 60, &[("memory.zswap.max_pool_percent", "10")]);
    assert!(m(&r, "zswap_writeback_rate") > 0.0);
    assert!(m(&r, "zswap_pool_pct") <= 10.0 + 1e-9);
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
    /// The invariant pass after every event with a pool of any size and ratio, under any
    /// frame supply.
    #[test]
    fn invariants_hold_with_any_pool(
        users in 1u32..12,
        frames in 30u32..120,
        percent in 0u32..60,
        ratio in 1.0f64..4.0,
        policy in proptest::sample::select(vec!["clock", "lru", "linux-lru", "mglru"]),
        seed in 0u64..1000,
    ) {
        let spec = small(users, frames, 30.0, &[
            ("memory.replacement", policy),
            ("memory.replacement_reserve", "8"),
            ("memory.zswap.max_pool_percent", &percent.to_string()),
            ("memory.zswap.compression_ratio", &format!("{ratio:.3}")),
        ]);
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
