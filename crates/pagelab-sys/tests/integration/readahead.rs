//! Swap readahead (`paging.page_cluster`, Linux's cluster readahead on VM's paging devices).

use crate::{m, small, small_toml};
use pagelab_sys::{run_with_sources, System};
use pagelab_trace::{ReferenceSource, VecSource};
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

/// Users sweeping their pages in address order, more than storage holds: each fault's
/// virtual neighbours are the next pages the program wants.
fn sweeps(kind: &str) -> pagelab_sys::Report {
    sweeps_with(kind, "fixed")
}

fn sweeps_with(kind: &str, window: &str) -> pagelab_sys::Report {
    let dir =
        std::env::temp_dir().join(format!("pagelab-ra-{kind}-{window}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sweep.trace");
    std::fs::write(&path, b"stand-in: the opener below supplies the runs").unwrap();
    let program = format!(
        "{{ kind = \"trace\", path = {:?} }}",
        path.display().to_string()
    );
    let spec = small(
        6,
        80,
        120.0,
        &[
            ("workload.class.0.program", &program),
            // A second drum: round-robin page-outs alternate, so a slot's neighbours on one
            // drum are every other page written, not the program's next pages.
            (
                "device.1",
                "{ name = \"drum2\", model = \"2305-2\", channel = \"c0\" }",
            ),
            ("paging.page_cluster", "2"),
            ("paging.readahead", kind),
            ("paging.readahead_window", window),
        ],
    );
    let opener =
        |_: &std::path::Path| -> Result<Box<dyn ReferenceSource>, pagelab_trace::TraceError> {
            let pages: Vec<u32> = (0..40_000).map(|i| 8 + (i / 40) % 60).collect();
            Ok(Box::new(VecSource::from_pages(&pages)))
        };
    let r = run_with_sources(&spec, 3, &opener, &mut |_| {}).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    r
}

#[test]
fn virtual_neighbours_pay_where_a_program_sweeps_its_pages() {
    let (slots, pages) = (sweeps("slots"), sweeps("virtual"));
    let (hs, hv) = (
        m(&slots, "readahead_hit_pct"),
        m(&pages, "readahead_hit_pct"),
    );
    // Slot neighbours are partly the program's too (its page-outs on one drum go in order);
    // virtual neighbours are exactly what it reads next.
    assert!(hv > 95.0 && hv > hs, "hits: slots {hs} %, virtual {hv} %");
    assert!(m(&pages, "demand_paging_rate") < m(&slots, "demand_paging_rate"));
}

#[test]
fn linuxs_window_shrinks_to_the_page_alone_where_the_neighbours_go_unused() {
    // Eight users' page-outs interleaved on one drum: a slot's neighbours are others' pages.
    let fixed = run(8, 70, &[("paging.page_cluster", "3")]);
    let adaptive = run(
        8,
        70,
        &[
            ("paging.page_cluster", "3"),
            ("paging.readahead_window", "adaptive"),
        ],
    );
    assert!(!fixed.metrics.contains_key("readahead_window_mean"));
    let w = m(&adaptive, "readahead_window_mean");
    assert!((1.0..2.0).contains(&w), "window {w} pages");
    let (rf, ra) = (m(&fixed, "readahead_rate"), m(&adaptive, "readahead_rate"));
    assert!(ra < 0.1 * rf, "read ahead: fixed {rf}/s, adaptive {ra}/s");
}

#[test]
fn linuxs_window_grows_to_the_cluster_where_a_program_sweeps_its_pages() {
    // Every page read ahead is found: the hits keep the VMA window at its 2^2 pages.
    let r = sweeps_with("virtual", "adaptive");
    let w = m(&r, "readahead_window_mean");
    assert!(w > 3.5 && w <= 4.0, "window {w} pages");
    assert!(m(&r, "readahead_hit_pct") > 95.0);
    let fixed = sweeps_with("virtual", "fixed");
    let (df, da) = (m(&fixed, "demand_paging_rate"), m(&r, "demand_paging_rate"));
    assert!(da < 1.1 * df, "demand reads: fixed {df}/s, adaptive {da}/s");
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
        kind in proptest::sample::select(vec!["slots", "virtual"]),
        window in proptest::sample::select(vec!["fixed", "adaptive"]),
        pool in any::<bool>(),
        policy in proptest::sample::select(vec!["clock", "lru", "linux-lru", "mglru"]),
        seed in 0u64..1000,
    ) {
        let pct = if pool { "25" } else { "0" };
        let spec = small(users, frames, 30.0, &[
            ("memory.replacement", policy),
            ("memory.replacement_reserve", "8"),
            ("paging.page_cluster", &cluster.to_string()),
            ("paging.readahead", kind),
            ("paging.readahead_window", window),
            ("memory.zswap.max_pool_percent", pct),
        ]);
        let mut sys = System::build(&spec, seed, None).unwrap();
        sys.set_check_every(1);
        let r = sys.run(&mut |_| {});
        prop_assert!(r.is_ok(), "{policy}, {kind} {window} cluster {cluster}: {:?}", r.err());
    }
}
