//! Known answers of the 6.1 and 6.12 MGLRU rules (`linux_mglru.rs`).

use super::{Kernel, Mglru, Workingset};

/// One history (Debian's kernels build without `CONFIG_LRU_GEN_STATS`): when min_seq moves,
/// `reset_ctrl_pos` folds the history into the averages, then clears it; an aging alone
/// clears nothing.
#[test]
fn the_pid_controller_keeps_one_history_cleared_as_min_seq_moves() {
    let mut g = Mglru::new(Kernel::V6_12, 8);
    g.ctrl.refaulted[0][1] = 10;
    g.ctrl.evicted[0][1] = 20;
    g.ctrl.protected[0][0] = 4;
    g.age();
    assert_eq!(g.ctrl.refaulted[0][1], 10);
    // Generations 0 to 4, all empty: min_seq moves to 3, leaving two.
    assert!(g.try_to_inc_min_seq());
    assert_eq!(g.min_seq, 3);
    assert_eq!(g.ctrl.avg_refaulted[1], 5);
    assert_eq!(g.ctrl.avg_total[1], 12);
    assert_eq!(g.ctrl.refaulted[0], [0; 4]);
    assert_eq!((g.ctrl.evicted[0][1], g.ctrl.protected[0][0]), (0, 0));
}

fn pages(g: &Mglru, seq: u64) -> Vec<u32> {
    g.generations()
        .into_iter()
        .find(|(s, _)| *s == seq)
        .unwrap()
        .1
}

/// `walk_pte_range` → `folio_update_gen(max_seq)`: a young page already in max_seq only
/// has its bit, count and flags cleared, and keeps its place; a young page of an older
/// generation goes to max_seq.
#[test]
fn a_walk_leaves_the_pages_already_in_max_seq_in_place() {
    let mut g = Mglru::new(Kernel::V6_12, 8);
    let mut c = Workingset::default();
    for p in 0..4 {
        g.add(p, &mut c);
    }
    let seq = g.max_seq;
    assert_eq!(pages(&g, seq), [3, 2, 1, 0]);
    g.young[1] = false;
    g.young[3] = false;
    g.refs[2] = 2;
    g.arm_walk();
    g.age();
    assert_eq!((g.max_seq, g.n_walks), (seq + 1, 1));
    assert_eq!(pages(&g, seq), [3, 2, 1, 0]);
    assert!(g.young.iter().all(|y| !y) && g.refs[2] == 0);
    // Page 0, now of the older generation, used again: the next walk moves it.
    g.touch(0);
    g.arm_walk();
    g.age();
    assert_eq!(
        (pages(&g, seq), pages(&g, seq + 1)),
        (vec![3, 2, 1], vec![0])
    );
    // Not switched in since: the aging does not walk.
    g.touch(1);
    g.age();
    assert_eq!((g.n_walks, pages(&g, seq)), (2, vec![3, 2, 1]));
}

/// An unforced walk visits only the tables in the Bloom filter of the generation it ages:
/// those where the last walk found one PTE in 8 young (here table 0, 64 of 512, and not
/// table 1, 1 of 512).
#[test]
fn a_walk_visits_the_tables_the_last_walk_found_young() {
    let mut g = Mglru::new(Kernel::V6_12, 1024);
    let mut c = Workingset::default();
    let used: Vec<u32> = (0..64).chain([600]).collect();
    for &p in &used {
        g.add(p, &mut c);
    }
    g.age(); // the first iteration forces the scan
    assert!(g.young.iter().all(|y| !y));
    for &p in &used {
        g.touch(p);
    }
    g.arm_walk();
    g.age();
    assert_eq!(g.n_walks, 2);
    assert!(!g.young[0] && g.young[600], "table 1 is not in the filter");
}

/// A vmpressure work (a pass at priority 3 or below) switches the reclaiming task out and
/// back, which re-arms the walk: the next aging walks.
#[test]
fn a_vmpressure_work_re_arms_the_walk() {
    let mut g = Mglru::new(Kernel::V6_12, 256);
    let mut c = Workingset::default();
    let mut out = Vec::new();
    for p in 0..200 {
        g.add(p, &mut c);
    }
    // Every page idle after the first (forced) walk: a batch is freed at priority 10.
    g.reclaim(32, &mut out, &mut c);
    assert_eq!((g.n_walks, g.vmpressure.works), (1, 0));
    assert!(out.len() >= 32);
    // Every page used again: each eviction keeps what it isolates, the priority falls to
    // 3, the work is queued, and the agings after it walk.
    for p in 0..200 {
        g.touch(p);
    }
    g.reclaim(32, &mut out, &mut c);
    assert!(g.vmpressure.works >= 1, "{:?}", g.vmpressure);
    assert!(g.n_walks >= 2, "walks {}", g.n_walks);
}

/// 6.12's retry of a pass that frees nothing (`memcg_full_walk`), as the kernel's kprobes showed
/// it on sort at 188 KiB (docs/policies/linux-replay.md "The lists at each reclaim"): 31 pages,
/// fewer than the 32 a reclaim asks for, so the first reclaim frees all and ages at priority 0.
/// Used again, they sit in one generation behind an empty youngest: the next reclaim's first
/// pass ages, evicts nothing at 4 (the oldest generations are empty), ages at 3, keeps every
/// page it isolates at 2 (young: the look-around promotes them), ages at 1 and 0; the retry
/// then finds them old and frees all 31 at priority 3. Without the retry the reclaim frees
/// nothing.
#[test]
fn a_pass_that_frees_nothing_runs_again_under_6_12_mglru() {
    use super::super::kernel::{GenerationsAt as At, ReclaimEvent};
    let run = |retry: bool| {
        let mut g = Mglru::new(Kernel::V6_12, 64);
        g.full_walk_retry = retry;
        let (mut c, mut out) = (Workingset::default(), Vec::new());
        for p in 0..31 {
            g.add(p, &mut c);
        }
        g.reclaim(32, &mut out, &mut c);
        assert_eq!(out.len(), 31);
        for p in 0..31 {
            g.add(p, &mut c);
        }
        g.events.record();
        out.clear();
        g.reclaim(32, &mut out, &mut c);
        let steps: Vec<(At, u32, Vec<u64>)> = g
            .events
            .take()
            .into_iter()
            .filter_map(|e| match e {
                ReclaimEvent::Generations {
                    at,
                    priority,
                    sizes,
                    ..
                } if at != At::Shrink => Some((at, priority, sizes)),
                _ => None,
            })
            .collect();
        (out.len(), steps)
    };
    let (freed, steps) = run(true);
    let first = [
        (At::Age, 11, vec![0, 0, 31]),
        (At::Evict, 4, vec![0, 0, 31, 0]),
        (At::Age, 3, vec![31, 0]),
        (At::Evict, 2, vec![31, 0, 0]),
        (At::Age, 1, vec![0, 31]),
        (At::Age, 0, vec![0, 31, 0]),
    ];
    let retry = [
        (At::Evict, 4, vec![0, 31, 0, 0]),
        (At::Evict, 3, vec![31, 0, 0]),
        (At::Age, 2, vec![0, 0]),
    ];
    assert_eq!(steps, [&first[..], &retry[..]].concat());
    assert_eq!(freed, 31);
    let (freed, steps) = run(false);
    assert_eq!((freed, steps), (0, first.to_vec()));
}

/// Pages 0-1 in the oldest generation, 2-3 in the next, 4-5 in max_seq, every PTE young.
fn three_generations(kernel: Kernel, batch: bool) -> Mglru {
    let mut g = Mglru::new(kernel, 8);
    g.lookaround_batch = batch;
    let mut c = Workingset::default();
    // Generations 0 to 3, empty: two are retired before each aging, as the eviction would.
    for (p, age) in [
        (0, false),
        (1, true),
        (2, false),
        (3, true),
        (4, false),
        (5, false),
    ] {
        if age {
            assert!(g.try_to_inc_min_seq());
        }
        g.add(p, &mut c);
        if age {
            g.age();
        }
    }
    for p in 0..6 {
        g.touch(p);
    }
    assert_eq!(g.max_seq - g.min_seq, 2);
    g
}

/// `lru_gen_look_around` without a walk in hand (mm/vmscan.c): the young neighbours in another
/// generation are queued on the activate batch, not moved; the batch moves them to the head of
/// max_seq when drained (mm/swap.c `lru_activate`). Without the batch they move at once.
#[test]
fn the_look_around_queues_its_promotions_on_the_activate_batch() {
    for kernel in [Kernel::V6_1, Kernel::V6_12] {
        let mut c = Workingset::default();
        let mut out = Vec::new();
        let mut g = three_generations(kernel, true);
        let (old, mid) = (g.min_seq, g.min_seq + 1);
        assert_eq!((pages(&g, old), pages(&g, mid)), (vec![1, 0], vec![3, 2]));
        g.evict_folios(&mut out, &mut c);
        // 0 and 1 were young: kept (back to max_seq); 2 and 3 queued where they were.
        assert!(out.is_empty());
        assert_eq!(g.queued(), 2, "{kernel:?}");
        assert_eq!(pages(&g, mid), vec![3, 2], "{kernel:?}");
        let kept = pages(&g, g.max_seq);
        g.drain_activate();
        assert_eq!(g.queued(), 0);
        // The drain puts them at the head, ahead of the pages the eviction kept.
        assert_eq!(
            pages(&g, g.max_seq),
            [vec![3, 2], kept].concat(),
            "{kernel:?}"
        );

        let mut now = three_generations(kernel, false);
        now.evict_folios(&mut out, &mut c);
        assert_eq!(now.queued(), 0);
        let order = pages(&now, now.max_seq);
        assert_eq!(order.len(), 6);
        assert_eq!(&order[4..], &[5, 4], "{kernel:?}");
        assert!(
            !order[..2].contains(&3),
            "{kernel:?}: kept pages at the head"
        );
    }
}

/// A queued page the eviction isolates before the batch moves it, with no young PTE, is
/// unmapped but kept: `pageout` finds the batch's reference (`is_page_cache_freeable`).
#[test]
fn a_queued_page_found_old_is_unmapped_and_kept() {
    let mut c = Workingset::default();
    let mut out = Vec::new();
    let mut g = three_generations(Kernel::V6_12, true);
    g.evict_folios(&mut out, &mut c);
    assert_eq!(g.queued(), 2);
    // The oldest generation is now the queued pages' (its kept pages went to max_seq).
    assert_eq!(pages(&g, g.min_seq), vec![3, 2]);
    g.evict_folios(&mut out, &mut c);
    assert!(out.is_empty());
    let mut kept = g.take_unmapped();
    kept.sort_unstable();
    assert_eq!(kept, vec![2, 3]);
    assert!(g.is_resident(2) && g.is_resident(3));
    // Drained, the batch lets them go: the next eviction frees them.
    g.drain_activate();
    assert!(g.take_unmapped().is_empty());
}
