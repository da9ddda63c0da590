//! Known answers of the replay: the zero page, the charge batches, the reclaim batch.

use super::*;

fn writes(pages: &[u32]) -> Vec<(u32, bool)> {
    pages.iter().map(|&p| (p, true)).collect()
}

/// Reads of untouched pages map the zero page: no page, no charge, no swap.
#[test]
fn reads_of_untouched_pages_map_the_zero_page() {
    let refs: Vec<(u32, bool)> = (0..1000).map(|p| (p, false)).collect();
    let c = replay(&refs, 10, &LinuxParams::default()).unwrap();
    assert_eq!(
        (c.minor_faults, c.major_faults, c.pswpout, c.reclaims),
        (1000, 0, 0, 0)
    );
    // written afterwards: each page is a new page (a minor fault) and needs memory.
    let mut refs2 = refs.clone();
    refs2.extend(writes(&(0..20).collect::<Vec<_>>()));
    let c = replay(&refs2, 100, &LinuxParams::default()).unwrap();
    assert_eq!((c.minor_faults, c.major_faults), (1020, 0));
}

/// A loop of 100 pages written in a cgroup of 100 pages never reclaims; 101 pages do, and the
/// first reclaim frees at least SWAP_CLUSTER_MAX pages at once.
#[test]
fn reclaim_frees_a_batch_at_the_limit() {
    for lru_gen in [false, true] {
        let p = LinuxParams {
            lru_gen,
            ..LinuxParams::default()
        };
        let loop100 = writes(&(0..100).cycle().take(1000).collect::<Vec<_>>());
        let c = replay(&loop100, 100, &p).unwrap();
        assert_eq!((c.major_faults, c.pswpout), (0, 0), "lru_gen {lru_gen}");
        let first = writes(&(0..101).collect::<Vec<_>>());
        let c = replay(&first, 100, &p).unwrap();
        assert_eq!(c.reclaims, 1, "lru_gen {lru_gen}");
        eprintln!("{lru_gen} {c:?}");
        assert!(c.pswpout >= 1, "lru_gen {lru_gen}: {c:?}");
    }
}

#[test]
fn bad_parameters_are_one_line_errors() {
    let p = LinuxParams {
        swappiness: 300,
        ..LinuxParams::default()
    };
    let e = replay(&writes(&[1]), 4, &p).unwrap_err().to_string();
    assert!(e.contains("swappiness"), "{e}");
    assert!(replay(&writes(&[1]), 0, &LinuxParams::default()).is_err());
    assert!(Kernel::parse("5.15").is_err());
}
