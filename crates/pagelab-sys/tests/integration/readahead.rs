//! Swap readahead (`paging.page_cluster`, Linux's cluster readahead on VM's paging devices).

use crate::{m, small, small_toml};
use pagelab_sys::System;
use proptest::prelude::*;

fn run(users: u32, frames: u32, overrides: &[(&str, &str)]) -> pagelab_sys::Report {
    let spec = small(users, frames, 120.0, overrides);
    let mut sys = System::build(&spec, 9, None).unwrap();
    sys.set_check_every(1);
    sys.run(&mut |_| {}).unwrap()
}

#[test]
fn a_cluster_reads_its_neighbours_in_the_same_channel_program() {
    let alone = run(8, 70, &[]);
    let ahead = run(8, 70, &[("paging.page_cluster", "2")]);
    assert!(
        !alone.metrics.contains_key("readahead_rate"),
        "no readahead, no metrics"
    );
    assert!(m(&ahead, "readahead_rate") > 0.0);
    let hit = m(&ahead, "readahead_hit_pct");
    assert!((0.0..=100.0).contains(&hit), "hit {hit} %");
    // The extra pages ride in the faulting page's SIO: more pages per read SIO.
    let per_sio = |r: &pagelab_sys::Report| {
        let d = &r.devices[0];
        (d.reads as f64) / (d.sios as f64)
    };
    assert!(per_sio(&ahead) > per_sio(&alone));
}

#[test]
fn a_cluster_of_one_slot_is_no_readahead() {
    let spec = small(6, 60, 60.0, &[]);
    let text = small_toml(6, 60, 60.0);
    let o = vec![("paging.page_cluster".to_string(), "0".to_string())];
    let zero = pagelab_sys::load_spec(&text, "small.toml", &o).unwrap();
    assert_eq!(spec, zero);
}

#[test]
fn bad_clusters_name_the_key() {
    for (k, v) in [
        ("paging.page_cluster", "7"),
        ("memory.residency", "page-swapping"),
    ] {
        let mut o = vec![(k.to_string(), v.to_string())];
        if k == "memory.residency" {
            o.push(("paging.page_cluster".into(), "2".into()));
        }
        let e = pagelab_sys::load_spec(&small_toml(4, 40, 60.0), "small.toml", &o)
            .unwrap_err()
            .to_string();
        assert!(e.contains("paging.page_cluster"), "{e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]
    /// The invariant pass after every event with readahead of any cluster, under any frame
    /// supply, with and without a compressed pool.
    #[test]
    fn invariants_hold_with_readahead(
        users in 1u32..12,
        frames in 30u32..120,
        cluster in 0u32..5,
        pool in any::<bool>(),
        policy in proptest::sample::select(vec!["clock", "lru", "linux-lru", "mglru"]),
        seed in 0u64..1000,
    ) {
        let pct = if pool { "25" } else { "0" };
        let spec = small(users, frames, 30.0, &[
            ("memory.replacement", policy),
            ("paging.page_cluster", &cluster.to_string()),
            ("memory.zswap.max_pool_percent", pct),
        ]);
        let mut sys = System::build(&spec, seed, None).unwrap();
        sys.set_check_every(1);
        let r = sys.run(&mut |_| {});
        prop_assert!(r.is_ok(), "{policy}, cluster {cluster}: {:?}", r.err());
    }
}
