//! Known answers of the two lists' rules (`linux_two_list.rs`).

use super::*;

fn filled(kernel: Kernel, pages: u32) -> (TwoList, Workingset) {
    let (mut l, mut c) = (TwoList::new(kernel, pages, 60), Workingset::default());
    for p in 0..pages {
        l.add(p, &mut c);
    }
    l.drain();
    (l, c)
}

/// 6.1 reads what the last flush left; a reclaim's `shrink_node` flushes once more than
/// one batch of 64 updates has passed (3 per new page, 1 more as the batch moves it onto
/// its list: 32 pages pass one batch, 33 two).
#[test]
fn six_one_reads_the_counters_as_last_flushed() {
    let (mut l, c) = filled(Kernel::V6_1, 32);
    assert_eq!(l.read_counters().inactive, 0, "nothing flushed yet");
    l.flush_at_shrink_node(&c);
    assert_eq!(l.read_counters().inactive, 0, "one batch passed: no flush");
    let (mut l, c) = filled(Kernel::V6_1, 33);
    l.flush_at_shrink_node(&c);
    assert_eq!(
        l.read_counters().inactive,
        33,
        "two batches passed: flushed"
    );
}

/// A new page waits in the CPU's batch, on no list, until the batch is full: 15 pages in
/// 6.1, 31 in 6.12 (`PAGEVEC_SIZE`). It is resident, but no scan target counts it.
#[test]
fn a_new_page_waits_in_the_batch_until_it_is_full() {
    for (kernel, size) in [(Kernel::V6_1, 15u32), (Kernel::V6_12, 31)] {
        let (mut l, mut c) = (TwoList::new(kernel, 64, 60), Workingset::default());
        for p in 0..size - 1 {
            l.add(p, &mut c);
        }
        assert_eq!((l.resident(), l.len(INACTIVE)), (size - 1, 0), "{kernel:?}");
        assert!(l.is_resident(0));
        assert_eq!(l.scan_targets(0), [0, 0]);
        l.add(size - 1, &mut c);
        assert_eq!((l.len(INACTIVE), l.batch().len()), (size, 0), "{kernel:?}");
        assert_eq!(l.scan_targets(0), [u64::from(size), 0]);
    }
}

/// Each list's shrink moves the batch onto the lists first (`lru_add_drain`), so its pages
/// are scanned in the order they came: 15 on the list and 5 in the batch, none young, are
/// all freed, oldest first.
#[test]
fn a_shrink_moves_the_batch_onto_the_lists_first() {
    let (mut l, mut c) = (TwoList::new(Kernel::V6_1, 32, 60), Workingset::default());
    for p in 0..20 {
        l.add(p, &mut c);
        l.young[p as usize] = false;
    }
    assert_eq!(l.batch(), [15, 16, 17, 18, 19]);
    let mut out = Vec::new();
    assert_eq!(l.shrink_inactive(32, 0, &mut out), 20);
    assert_eq!(out, (0..20).collect::<Vec<_>>());
}

/// 6.1's write-protect fault drains the batch when its page is in it, and only then.
#[test]
fn a_write_protect_fault_on_a_batched_page_drains_the_batch() {
    let (mut l, mut c) = (TwoList::new(Kernel::V6_1, 32, 60), Workingset::default());
    for p in 0..17 {
        l.add(p, &mut c);
    }
    l.drain_if_pending(3);
    assert_eq!(l.batch(), [15, 16], "page 3 is on a list: no drain");
    l.drain_if_pending(16);
    assert_eq!((l.batch().len(), l.len(INACTIVE)), (0, 17));
}

/// `workingset_eviction` stamps the shadow with the age before moving it on, so a page
/// that refaults before any other eviction has distance 1: with no active page it stays
/// inactive, with one it is activated (6.12 reads the lists as they are).
#[test]
fn a_refault_at_once_has_distance_one() {
    for active in [0u32, 1] {
        let (mut l, mut c) = filled(Kernel::V6_12, 2);
        if active == 1 {
            l.forget(1);
            l.push_head(1, ACTIVE);
        }
        l.young[0] = false;
        let mut out = Vec::new();
        assert_eq!(l.shrink_inactive(1, 0, &mut out), 1);
        assert_eq!(out, [0]);
        l.add(0, &mut c);
        assert_eq!(
            (c.refault, c.activate),
            (1, u64::from(active)),
            "active {active}"
        );
    }
}

/// The copies the replayer's report flushes before its loop, as measured in 6.12's guest:
/// exec's page active, the other 13 pages in the batch, so 0 inactive against 1 active,
/// and `inactive_is_low` true until the next flush; two pages later 6.1's batch of 15 is
/// full and moves, giving the 15 and 1 its guest showed, while 6.12's batch of 31 holds.
#[test]
fn the_copies_at_the_loop_s_start() {
    for (kernel, want) in [(Kernel::V6_12, (0, 1, true)), (Kernel::V6_1, (0, 1, true))] {
        let (mut l, mut c) = (TwoList::new(kernel, 64, 60), Workingset::default());
        l.flush_periodically();
        l.add_active(0);
        for p in 1..14 {
            l.add(p, &mut c);
        }
        l.flush_stats(&c);
        let f = l.read_counters();
        assert_eq!(
            (f.inactive, f.active, l.inactive_is_low()),
            want,
            "{kernel:?}"
        );
        l.add(14, &mut c);
        l.add(15, &mut c);
        l.flush_stats(&c);
        let f = l.read_counters();
        let moved = kernel == Kernel::V6_1;
        assert_eq!(f.inactive, if moved { 15 } else { 0 }, "{kernel:?}");
        assert_eq!(l.inactive_is_low(), !moved, "{kernel:?}");
    }
}

/// 6.1's periodic flusher brings the copies up to date and sets the batches passed back
/// to 0 (`__mem_cgroup_flush_stats`), so the next reclaim's flush waits for two more.
#[test]
fn six_one_s_periodic_flush_starts_the_batches_again() {
    let (mut l, mut c) = (TwoList::new(Kernel::V6_1, 128, 60), Workingset::default());
    l.flush_periodically();
    for p in 0..45 {
        l.add(p, &mut c);
    }
    l.flush_stats(&c);
    assert_eq!(l.read_counters().inactive, 45);
    for p in 45..60 {
        l.add(p, &mut c);
    }
    l.flush_at_shrink_node(&c);
    assert_eq!(l.len(INACTIVE), 60);
    assert_eq!(
        l.read_counters().inactive,
        45,
        "fewer than two batches since"
    );
    for p in 60..105 {
        l.add(p, &mut c);
    }
    l.flush_at_shrink_node(&c);
    assert_eq!(
        l.read_counters().inactive,
        105,
        "two batches since: flushed"
    );
}

/// 6.12 reads the lists as they are, or with the periodic flusher only what it left.
#[test]
fn six_twelve_reads_the_lists_or_the_periodic_flush() {
    let (mut l, c) = filled(Kernel::V6_12, 40);
    l.flush_at_shrink_node(&c);
    assert_eq!(l.read_counters().inactive, 40);
    let (mut l, c) = filled(Kernel::V6_12, 40);
    l.flush_periodically();
    l.flush_at_shrink_node(&c);
    assert_eq!(
        l.read_counters().inactive,
        0,
        "reclaim does not flush in 6.12"
    );
    l.flush_stats(&c);
    assert_eq!(l.read_counters().inactive, 40);
}
