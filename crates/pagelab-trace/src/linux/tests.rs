//! Known answers of the replay: the zero page, the charge batches, the reclaim batch.

use super::*;

/// The default parameters under each kernel and each list.
fn each_series() -> impl Iterator<Item = LinuxParams> {
    [Kernel::V6_1, Kernel::V6_12]
        .into_iter()
        .flat_map(|kernel| {
            [false, true].map(|lru_gen| LinuxParams {
                kernel,
                lru_gen,
                ..LinuxParams::default()
            })
        })
}

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

/// The scan-resistance string: 30 rounds of 3,000 references to a hot set of 100 pages
/// (a fixed pseudo-random order), each followed by a one-time scan of 2,000 new pages;
/// `interleave`: a hot reference after every fourth scan page.
fn hot_set_with_scans(interleave: bool) -> Vec<(u32, bool)> {
    let mut x: u64 = 1;
    let mut next = move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((x >> 33) % 100) as u32
    };
    let (mut refs, mut scan) = (Vec::new(), 100u32);
    for _ in 0..30 {
        refs.extend((0..3000).map(|_| (next(), true)));
        for i in 0..2000 {
            refs.push((scan, true));
            scan += 1;
            if interleave && i % 4 == 0 {
                refs.push((next(), true));
            }
        }
    }
    refs
}

/// The two lists and MGLRU, both kernels, on the scan-resistance string (hot refaults = major
/// faults: the scan pages are never used again). Known answers of the rules as written.
#[test]
fn scan_resistance_known_answers() {
    let mut got = Vec::new();
    for interleave in [false, true] {
        let refs = hot_set_with_scans(interleave);
        for frames in [128u32, 256, 512] {
            for (kernel, lru_gen) in [
                (Kernel::V6_1, false),
                (Kernel::V6_1, true),
                (Kernel::V6_12, false),
                (Kernel::V6_12, true),
            ] {
                let p = LinuxParams {
                    kernel,
                    lru_gen,
                    ..LinuxParams::default()
                };
                let c = replay(&refs, frames, &p).unwrap();
                got.push(c.major_faults);
            }
        }
    }
    // (6.1 two-list, 6.1 MGLRU, 6.12 two-list, 6.12 MGLRU) per frames 128, 256, 512; one-time
    // scans, then interleaved. The two lists keep the activated hot set once the inactive list
    // is not low (256 frames and up); generations lose it to a scan longer than memory. 6.1's
    // two lists read the counters as flushed at each reclaim (mm/memcontrol.c). A shadow is
    // stamped with the age before its eviction moves it on (mm/workingset.c), so a page that
    // refaults at once has distance 1, not 0, and an empty active list activates nothing.
    // A page reaches its list when the CPU's batch moves (15 pages in 6.1, 31 in 6.12), so the
    // flushed sizes and the scan targets leave out up to 14 or 30 of the newest pages. MGLRU's
    // walks follow its reclaims' vmpressure works (priority 3 and below), through the PMD's
    // accessed bit and the Bloom filters.
    let want = [
        [1611, 3914, 2249, 3317],
        [667, 2900, 810, 2900],
        [1577, 2900, 1580, 2900],
        [13967, 15758, 13976, 15438],
        [9401, 12048, 9520, 12017],
        [356, 7931, 351, 8198],
    ];
    assert_eq!(got, want.concat());
}

/// The reclaim steps add up to the counters: one begin and one end per reclaim, the pages each
/// end reports are the pages its evictions freed, and every page freed was written out.
/// The two lists: a reclaim at 101 frames over a loop of 200 pages first finds every page
/// young (kept, none freed), then frees at priority 0, and each inactive scan's pages are
/// freed, activated or kept. MGLRU: none activated (one PTE a page), and a scan counts 0 pages
/// once two generations remain, as its tracepoint does.
#[test]
fn reclaim_events_add_up_to_the_counters() {
    let refs = writes(&(0..200).cycle().take(2000).collect::<Vec<_>>());
    for p in each_series() {
        let (kernel, lru_gen) = (p.kernel, p.lru_gen);
        let (c, ev) = replay_with_events(&refs, 101, &p).unwrap();
        assert_eq!(
            c,
            replay(&refs, 101, &p).unwrap(),
            "recording changes nothing"
        );
        let count = |f: fn(&ReclaimEvent) -> bool| ev.iter().filter(|e| f(e)).count() as u64;
        assert_eq!(
            count(|e| matches!(e, ReclaimEvent::ReclaimBegin)),
            c.reclaims
        );
        assert_eq!(
            count(|e| matches!(e, ReclaimEvent::ReclaimEnd { .. })),
            c.reclaims
        );
        let (mut freed, mut ended) = (0u64, 0u64);
        for e in &ev {
            match e {
                ReclaimEvent::ShrinkInactive {
                    scanned,
                    reclaimed,
                    activated,
                    kept,
                    ..
                } => {
                    if lru_gen {
                        assert_eq!(*activated, 0);
                    } else {
                        assert_eq!(scanned, &(reclaimed + activated + kept));
                    }
                    freed += u64::from(*reclaimed);
                }
                ReclaimEvent::ShrinkActive { .. } => assert!(!lru_gen, "MGLRU has no active list"),
                ReclaimEvent::ReclaimEnd { reclaimed } => ended += u64::from(*reclaimed),
                _ => {}
            }
        }
        assert_eq!(
            (freed, ended),
            (c.pswpout, c.pswpout),
            "{kernel:?} {lru_gen}"
        );
        let first_kept = ev.iter().find_map(|e| match e {
            ReclaimEvent::ShrinkInactive {
                reclaimed: 0, kept, ..
            } => Some(*kept),
            _ => None,
        });
        assert!(
            first_kept.is_some_and(|k| k > 0),
            "{kernel:?} {lru_gen}: {ev:?}"
        );
    }
}

/// A hot page read between the pages of a cyclic scan: with every reference setting the
/// accessed bit it is never evicted; with a TLB that keeps its translation, reclaim sees it
/// cold after the first scan and it refaults; with a one-entry TLB the scan evicts its
/// translation before each use, so every use walks and it is never evicted again.
#[test]
fn a_cached_translation_hides_use_from_reclaim() {
    let mut refs = Vec::new();
    for _ in 0..20 {
        for p in 1..200u32 {
            refs.push((0, true));
            refs.push((p, true));
        }
    }
    let hot_faults = |tlb: Option<TlbParams>| {
        let p = LinuxParams {
            tlb,
            ..LinuxParams::default()
        };
        replay(&refs, 120, &p).unwrap().major_faults
    };
    let one = TlbParams {
        entries: 1,
        victims: 0,
        touches_per_list_page: 0,
        list_offset: 0,
    };
    // 19 passes of 199 scan pages refault either way; the cached hot page 45 times more.
    let got = [None, Some(TlbParams::QEMU_TCG), Some(one)].map(hot_faults);
    assert_eq!(got, [3782, 3782 + 45, 3782]);
}

/// 6.12 maps a page swapped in by a read writable but clean (mm/memory.c `do_swap_page`), 6.1
/// read-only: the first write after it walks the page table in both (to set the dirty bit; in
/// 6.1 after a write-protect fault, a minor fault), later writes and reads do not; a page
/// swapped in by a write is dirty from the start.
#[test]
fn the_first_write_after_a_read_swap_in_walks() {
    for (kernel, wp_fault) in [(Kernel::V6_12, 0), (Kernel::V6_1, 1)] {
        let p = LinuxParams {
            kernel,
            tlb: Some(TlbParams::QEMU_TCG),
            ..LinuxParams::default()
        };
        let mut r = Replay::new(4, 4, &p);
        for (page, write) in [(0, true), (1, true)] {
            r.reference(page, 1, write).unwrap();
        }
        for page in [0u32, 1] {
            // Evicted to the device, as reclaim leaves it.
            if let Lists::TwoList(l) = &mut r.lists {
                l.forget(page);
            }
            r.charge.uncharge(1);
            r.state[page as usize] = ON_DEVICE;
            r.writable[page as usize] = false;
            r.dirty[page as usize] = false;
        }
        r.reference(0, 1, false).unwrap(); // swapped in by a read
        r.reference(1, 1, true).unwrap(); // swapped in by a write
        let minor = r.c.minor_faults;
        let walks = [
            r.resident_access(0, false),
            r.resident_access(0, true),
            r.resident_access(0, true),
            r.resident_access(1, true),
        ];
        assert_eq!(walks, [false, true, false, false], "{kernel:?}");
        assert_eq!(r.c.minor_faults - minor, wp_fault, "{kernel:?}");
    }
}

/// 6.1's write-protect fault after a read swap-in reuses the page, which the swap-in mapped
/// exclusive (mm/memory.c `do_swap_page`: a fresh page, not the swap cache's), so
/// `do_wp_page` takes it before its `lru_add_drain`: with `anon_exclusive` the batch keeps the
/// page; without it the fault moves the batch onto the lists.
#[test]
fn a_write_protect_fault_on_an_exclusive_page_leaves_the_batch() {
    for (exclusive, left) in [(true, vec![0]), (false, vec![])] {
        let p = LinuxParams {
            anon_exclusive: exclusive,
            ..LinuxParams::default()
        };
        let mut r = Replay::new(8, 8, &p);
        r.reference(0, 1, true).unwrap();
        if let Lists::TwoList(l) = &mut r.lists {
            l.drain();
            l.forget(0);
        }
        r.charge.uncharge(1);
        (r.state[0], r.writable[0], r.dirty[0]) = (ON_DEVICE, false, false);
        r.reference(0, 1, false).unwrap(); // swapped in by a read: read-only, in the batch
        let minor = r.c.minor_faults;
        r.reference(0, 1, true).unwrap(); // the write: a write-protect fault
        assert_eq!(r.c.minor_faults - minor, 1);
        let Lists::TwoList(l) = &r.lists else {
            unreachable!()
        };
        assert_eq!(l.batch(), left, "anon_exclusive {exclusive}");
    }
}

/// Memory stalls counted by hand: 33 pages written at 32 frames, then pages 0, 1 and 2 read.
/// The 33rd page's charge fails, and its reclaim (inside `try_charge_memcg`'s stall) writes
/// pages to the device: under MGLRU the 32 pages of the oldest generation, all of them. Pages
/// 0-2 then refault in a fault with min_seq where it was at their eviction, so each gets
/// `PG_workingset` (`lru_gen_refault`) and its read is a stall (mm/page_io.c). The two lists
/// never activated a page, so their refaults restore nothing and no read stalls.
#[test]
fn memory_stalls_counted_by_hand() {
    let mut refs = writes(&(0..33).collect::<Vec<_>>());
    refs.extend([(0, false), (1, false), (2, false)]);
    for kernel in [Kernel::V6_1, Kernel::V6_12] {
        for lru_gen in [false, true] {
            let p = LinuxParams {
                kernel,
                lru_gen,
                ..LinuxParams::default()
            };
            let c = replay(&refs, 32, &p).unwrap();
            let what = format!("{kernel:?} lru_gen {lru_gen}");
            assert_eq!((c.reclaims, c.major_faults), (1, 3), "{what}");
            assert_eq!(c.memstall_swapouts, c.pswpout, "{what}");
            assert_eq!(c.memstall_swapins, c.workingset_restore_anon, "{what}");
            if lru_gen {
                assert_eq!((c.memstall_swapouts, c.memstall_swapins), (32, 3), "{what}");
            } else {
                assert_eq!(c.memstall_swapins, 0, "{what}");
            }
        }
    }
}

/// With zswap, only the pages the reclaim itself writes to the device stall it: 1,000 pages
/// evicted into a pool capped at 200 zbud pages (6.1) are first stored (no device write), then
/// rejected at the cap and written by the reclaim, while the shrink worker's writebacks run
/// outside the cgroup.
#[test]
fn zswap_writebacks_are_no_stall_of_the_cgroup() {
    let p = LinuxParams {
        zswap: Some(ZswapParams {
            total_ram_pages: 1000,
            compressed_bytes: 100,
            max_pool_percent: 20,
            accept_threshold_percent: 90,
            zpool: None,
        }),
        ..LinuxParams::default()
    };
    let c = replay(&writes(&(0..1100).collect::<Vec<_>>()), 100, &p).unwrap();
    assert!(c.zswap_written_back > 0 && c.zswap_rejected > 0, "{c:?}");
    assert_eq!(c.memstall_swapouts, c.pswpout - c.zswap_written_back);
    assert_eq!(c.memstall_swapouts, c.zswap_rejected);
}

/// 100 pages written in a cgroup of 100, then written again: resident, no fault. A page-table
/// page charged between the passes leaves 99 for them: the cgroup reclaims at least a batch,
/// and the second pass refaults what it took; a charge where the stock has room reclaims
/// nothing.
#[test]
fn a_kernel_page_charged_in_the_loop_takes_a_frame() {
    let pages: Vec<u32> = (0..100).chain(0..100).collect();
    let refs = writes(&pages);
    for lru_gen in [false, true] {
        let plain = LinuxParams {
            lru_gen,
            ..LinuxParams::default()
        };
        let c = replay(&refs, 100, &plain).unwrap();
        assert_eq!((c.reclaims, c.major_faults), (0, 0), "lru_gen {lru_gen}");
        let charged = LinuxParams {
            kernel_charges: vec![100],
            ..plain.clone()
        };
        let c = replay(&refs, 100, &charged).unwrap();
        assert!(c.reclaims >= 1, "lru_gen {lru_gen}");
        assert!(c.pswpout >= u64::from(memcg::SWAP_CLUSTER_MAX), "{c:?}");
        assert!(
            c.major_faults > 0 && c.major_faults <= c.pswpout,
            "the second pass refaults what was taken: {c:?}"
        );
        // At 200 pages the first 64 came in one batch and the stock pays for the page.
        let roomy = replay(&refs, 200, &charged).unwrap();
        assert_eq!((roomy.reclaims, roomy.major_faults), (0, 0));
    }
}

/// With every page of a small cgroup in 6.12's batch of 31 and both lists empty, a reclaim
/// finds nothing to scan (only a list's shrink moves the batch) and the charge fails 16 times;
/// exec's argument page on the active list makes `inactive_is_low` true, whose shrink of the
/// active list moves the batch, so the replay goes on (docs/policies/linux-replay.md).
#[test]
fn exec_s_active_page_lets_reclaim_reach_the_batch() {
    let refs = writes(&(0..40).cycle().take(400).collect::<Vec<_>>());
    let p = LinuxParams {
        kernel: Kernel::V6_12,
        ..LinuxParams::default()
    };
    let err = replay(&refs, 20, &p).unwrap_err();
    assert!(
        matches!(err, crate::TraceError::OomKilled { .. }),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("reclaim freed nothing 16 times"),
        "{err}"
    );
    let p = LinuxParams {
        exec_active_pages: 1,
        ..p
    };
    let c = replay(&refs, 20, &p).unwrap();
    assert!(c.major_faults > 0 && c.reclaims > 0, "{c:?}");
}

/// A page the kernel writes at every context switch (the rseq area) stays in use. Page 1000 is
/// written once, then a loop of exactly `frames` pages runs: without the kernel's writes the
/// reclaim takes page 1000 and the loop then fits, so later passes fault no more; with a switch
/// after every reference the loop and page 1000 need one frame more than there is, and every
/// pass faults. A rate whose first switch comes after the replay changes nothing.
#[test]
fn the_kernel_s_rseq_writes_keep_their_page() {
    let frames = 100;
    let run = |passes: usize, rseq: Option<RseqWrites>, lru_gen: bool| {
        let mut refs = writes(&[1000]);
        refs.extend(writes(
            &(0..frames)
                .cycle()
                .take(passes * frames as usize)
                .collect::<Vec<_>>(),
        ));
        let p = LinuxParams {
            lru_gen,
            rseq,
            ..LinuxParams::default()
        };
        replay(&refs, frames, &p).unwrap()
    };
    let clock = GuestClock {
        per_touch_s: 1.0,
        per_major_fault_s: 0.0,
        per_swapout_s: 0.0,
        phase_s: 0.0,
    };
    let every = RseqWrites {
        page: 1000,
        switches_per_s: 1.0,
        clock,
        through_tlb: false,
    };
    let never = RseqWrites {
        switches_per_s: 1e-9,
        ..every
    };
    for lru_gen in [false, true] {
        let (a, b) = (run(10, None, lru_gen), run(20, None, lru_gen));
        assert_eq!(
            a.major_faults, b.major_faults,
            "lru_gen {lru_gen}: {a:?} {b:?}"
        );
        // Without other switches only a reclaim's own switch writes it (its vmpressure work,
        // at priority 3 or below). The two lists reach priority 3 before they have freed 32
        // of the 100 pages (the lists >> priority), so they switch each time: back at every
        // reclaim, the page leaves the loop one frame short, so it never fits. MGLRU frees a
        // batch of 64 at priority 6 and does not switch: the loop fits once the page is out,
        // as without rseq.
        let (c, d) = (run(10, Some(never), lru_gen), run(20, Some(never), lru_gen));
        if lru_gen {
            assert_eq!(d, b, "lru_gen {lru_gen}");
        } else {
            assert!(d.major_faults >= c.major_faults + 500, "{c:?} {d:?}");
        }
        let (a, b) = (run(10, Some(every), lru_gen), run(20, Some(every), lru_gen));
        assert!(
            b.major_faults >= a.major_faults + 10,
            "lru_gen {lru_gen}: {a:?} {b:?}"
        );
    }
    let bad = LinuxParams {
        rseq: Some(RseqWrites {
            switches_per_s: 0.0,
            ..every
        }),
        ..LinuxParams::default()
    };
    let err = replay(&writes(&[0]), 10, &bad).unwrap_err().to_string();
    assert!(err.contains("rseq switches_per_s 0"), "{err}");
}

/// With `through_tlb` the kernel's writes to the rseq page walk only after the page was
/// mapped (docs/readings.md `linux-rseq-tlb-again`): once a reclaim has cleared its accessed
/// bit no write sets it again, so the page is evicted, and the next write faults it back, over
/// and over; walking at every write keeps it young, and resident, as the loop runs.
#[test]
fn rseq_writes_through_the_tlb_let_their_page_go() {
    let frames = 100;
    let mut refs = writes(&[1000]);
    refs.extend(writes(
        &(0..frames)
            .cycle()
            .take(20 * frames as usize)
            .collect::<Vec<_>>(),
    ));
    let every = RseqWrites {
        page: 1000,
        switches_per_s: 1.0,
        clock: a_second_a_touch(),
        through_tlb: false,
    };
    let what = Record {
        events: false,
        faults: true,
    };
    for lru_gen in [false, true] {
        let faults_on_it = |w: RseqWrites| {
            let p = LinuxParams {
                lru_gen,
                rseq: Some(w),
                ..LinuxParams::default()
            };
            let got = replay_recorded(&refs, frames, &p, what).unwrap();
            got.faults.iter().filter(|f| f.1 == 1000).count()
        };
        let walked = faults_on_it(every);
        let cached = faults_on_it(RseqWrites {
            through_tlb: true,
            ..every
        });
        // At least once in every four of the 20 passes.
        assert!(
            walked <= 1 && cached >= 5,
            "lru_gen {lru_gen}: {walked} {cached}"
        );
    }
}

/// A guest clock of one second a touch and nothing else.
fn a_second_a_touch() -> GuestClock {
    GuestClock {
        per_touch_s: 1.0,
        per_major_fault_s: 0.0,
        per_swapout_s: 0.0,
        phase_s: 0.0,
    }
}

/// The switches come one period apart, several due at once counting as one write.
#[test]
fn switches_come_a_period_apart() {
    let w = RseqWrites {
        page: 0,
        switches_per_s: 4.0,
        clock: a_second_a_touch(),
        through_tlb: false,
    };
    let mut s = rseq::Switches::new(w);
    let due: Vec<bool> = [0.1, 0.25, 0.3, 0.49, 0.5, 1.6, 1.7, 1.75]
        .iter()
        .map(|&t| s.due(t))
        .collect();
    assert_eq!(due, [false, true, false, false, true, true, false, true]);
}

/// The fault record: one entry per major fault, at the reference that took it, on that
/// reference's page; a loop of 150 pages in 100 frames faults again only after its first pass,
/// and recording changes no counter.
#[test]
fn the_fault_record_names_each_major_fault_s_reference() {
    let pages: Vec<u32> = (0..150).cycle().take(1500).collect();
    let refs = writes(&pages);
    for p in each_series() {
        let (kernel, lru_gen) = (p.kernel, p.lru_gen);
        let what = Record {
            events: false,
            faults: true,
        };
        let got = replay_recorded(&refs, 100, &p, what).unwrap();
        assert_eq!(
            got.counters,
            replay(&refs, 100, &p).unwrap(),
            "{kernel:?} {lru_gen}"
        );
        assert_eq!(got.faults.len() as u64, got.counters.major_faults);
        assert!(got.counters.major_faults > 0);
        assert!(got.faults.windows(2).all(|w| w[0].0 < w[1].0));
        for &(at, page) in &got.faults {
            assert!(at >= 150, "no refault in the first pass: {at}");
            assert_eq!(pages[at as usize], page);
        }
    }
}

/// The replayer's report page (`report.rs`): written before the loop, mapped by nothing. In a
/// loop of 150 pages in 100 frames the two lists' first reclaim scans it first (it is the
/// oldest page) and frees it at once, where every other page is young at first sight; without
/// it that first step frees nothing. Every series swaps it out at some reclaim and reads it
/// back after the loop: one pswpin more than the major faults, and no fault of its own.
#[test]
fn the_report_page_is_freed_at_its_first_scan_and_read_back_after_the_loop() {
    let refs = writes(&(0..150).cycle().take(1500).collect::<Vec<_>>());
    let first_step = |ev: &[ReclaimEvent]| {
        ev.iter().find_map(|e| match e {
            ReclaimEvent::ShrinkInactive {
                scanned, reclaimed, ..
            } => Some((*scanned, *reclaimed)),
            _ => None,
        })
    };
    for plain in each_series() {
        let (kernel, lru_gen) = (plain.kernel, plain.lru_gen);
        let p = LinuxParams {
            report_page_at: Some(0),
            ..plain.clone()
        };
        let (with, ev) = replay_with_events(&refs, 100, &p).unwrap();
        let (without, ev0) = replay_with_events(&refs, 100, &plain).unwrap();
        assert_eq!(with.pswpin, with.major_faults + 1, "{kernel:?} {lru_gen}");
        assert_eq!(without.pswpin, without.major_faults, "{kernel:?} {lru_gen}");
        assert_eq!(with.minor_faults, without.minor_faults, "no fault on it");
        if !lru_gen {
            assert_eq!(first_step(&ev).map(|s| s.1), Some(1), "{kernel:?}");
            assert_eq!(first_step(&ev0).map(|s| s.1), Some(0), "{kernel:?}");
        }
    }
}

/// The start's kernel pages take frames until the first reclaim ends, then give them back:
/// with three of them in 100 frames, new pages written once reclaim first at the 98th page
/// (at the 101st without), and after that reclaim the pages it freed and the three fit.
#[test]
fn the_start_s_kernel_pages_are_given_back_by_the_first_reclaim() {
    let refs = writes(&(0..400).collect::<Vec<_>>());
    let reclaims = |n: usize, p: &LinuxParams| replay(&refs[..n], 100, p).unwrap().reclaims;
    let first_freed = |n: usize, p: &LinuxParams| {
        let (_, ev) = replay_with_events(&refs[..n], 100, p).unwrap();
        ev.iter()
            .find_map(|e| match e {
                ReclaimEvent::ReclaimEnd { reclaimed } => Some(*reclaimed as usize),
                _ => None,
            })
            .unwrap()
    };
    for plain in each_series() {
        for start in [0u32, 3] {
            let p = LinuxParams {
                start_kernel_pages: start,
                ..plain.clone()
            };
            let s = start as usize;
            let at = |k: u64| (1..=refs.len()).find(|&n| reclaims(n, &p) >= k).unwrap();
            let (one, two) = (at(1), at(2));
            let what = format!("{:?} lru_gen {} start {start}", p.kernel, p.lru_gen);
            assert_eq!(one, 101 - s, "{what}");
            assert_eq!(two - one, first_freed(one, &p) + s, "{what}");
        }
    }
}

/// Given back when the second reclaim ends (6.12's measured `start_back_at`): the three
/// pages still take frames between the first and second reclaims, so the second comes after
/// the pages the first freed; the third after those the second freed and the three.
#[test]
fn the_start_s_kernel_pages_held_to_the_second_reclaim() {
    let refs = writes(&(0..400).collect::<Vec<_>>());
    let reclaims = |n: usize, p: &LinuxParams| replay(&refs[..n], 100, p).unwrap().reclaims;
    let freed = |n: usize, p: &LinuxParams, k: usize| {
        let (_, ev) = replay_with_events(&refs[..n], 100, p).unwrap();
        let ends = ev.iter().filter_map(|e| match e {
            ReclaimEvent::ReclaimEnd { reclaimed } => Some(*reclaimed as usize),
            _ => None,
        });
        ends.clone().nth(k).unwrap()
    };
    for plain in each_series() {
        let p = LinuxParams {
            start_kernel_pages: 3,
            start_back_at: 2,
            ..plain.clone()
        };
        let at = |k: u64| (1..=refs.len()).find(|&n| reclaims(n, &p) >= k).unwrap();
        let (one, two, three) = (at(1), at(2), at(3));
        let what = format!("{:?} lru_gen {}", p.kernel, p.lru_gen);
        assert_eq!(one, 98, "{what}");
        assert_eq!(two - one, freed(one, &p, 0), "{what}");
        assert_eq!(three - two, freed(two, &p, 1) + 3, "{what}");
    }
}

/// 6.12's `memcg_full_walk` retry: one young page alone on the inactive list is scanned only
/// at priority 0, found young and kept, so the pass frees nothing; the second pass finds it
/// old (its bit was cleared by the first) and evicts it. Without the retry the reclaim ends
/// with nothing.
#[test]
fn a_pass_that_frees_nothing_runs_again_under_6_12() {
    for retry in [false, true] {
        let mut c = Workingset::default();
        let mut l = two_list::TwoList::new(Kernel::V6_12, 4, 60);
        l.full_walk_retry = retry;
        l.add(0, &mut c);
        l.drain();
        let mut out = Vec::new();
        l.reclaim(32, &mut out, &mut c);
        assert_eq!(out, if retry { vec![0] } else { vec![] }, "retry {retry}");
    }
}

/// A page the eviction unmapped but kept ([`swapcache`]) is found in the swap cache by its next
/// touch: a minor fault, no read, no refault; a write maps it writable and dirty, and in 6.12 a
/// read maps the exclusive page writable too.
#[test]
fn a_touch_of_a_page_kept_in_the_swap_cache_is_a_minor_fault() {
    for kernel in [Kernel::V6_1, Kernel::V6_12] {
        for write in [false, true] {
            let p = LinuxParams {
                kernel,
                lru_gen: true,
                lookaround_batch: true,
                ..LinuxParams::default()
            };
            let mut r = Replay::new(4, 4, &p);
            r.reference(0, 1, true).unwrap();
            r.state[0] = SWAP_CACHE;
            r.writable[0] = false;
            let before = r.counters();
            r.reference(0, 1, write).unwrap();
            let after = r.counters();
            assert_eq!(after.minor_faults - before.minor_faults, 1, "{kernel:?}");
            assert_eq!(
                (
                    after.major_faults,
                    after.pswpin,
                    after.workingset_refault_anon
                ),
                (
                    before.major_faults,
                    before.pswpin,
                    before.workingset_refault_anon
                )
            );
            assert_eq!(r.state[0], RESIDENT);
            assert_eq!(
                r.writable[0],
                write || kernel == Kernel::V6_12,
                "{kernel:?}"
            );
            assert_eq!(r.dirty[0], write);
        }
    }
}

proptest::proptest! {
    /// With the look-around's batch, the books still balance after any run of touches: a page
    /// is on the lists exactly when the page table holds it (mapped, or kept in the swap cache),
    /// the cgroup's charge counts those pages, and every major fault read the device.
    #[test]
    fn the_activate_batch_keeps_the_books(
        touches in proptest::collection::vec((0u32..200, proptest::bool::ANY), 1..3000),
        frames in 40u32..100,
        is_6_12 in proptest::bool::ANY,
    ) {
        let kernel = if is_6_12 { Kernel::V6_12 } else { Kernel::V6_1 };
        let p = LinuxParams {
            kernel,
            lru_gen: true,
            lookaround_batch: true,
            tlb: Some(TlbParams::QEMU_TCG),
            ..LinuxParams::default()
        };
        let mut r = Replay::new(frames, 200, &p);
        for (page, write) in touches {
            if r.reference(page, 1, write).is_err() {
                return Ok(());
            }
        }
        let Lists::Mglru(l) = &r.lists else { unreachable!() };
        let mut held = 0;
        for page in 0..200u32 {
            let s = r.state[page as usize];
            let mapped = s == RESIDENT || s == SWAP_CACHE;
            proptest::prop_assert_eq!(l.is_resident(page), mapped, "page {}", page);
            held += u32::from(mapped);
        }
        proptest::prop_assert_eq!(r.charge.resident(), held);
        proptest::prop_assert_eq!(r.c.major_faults, r.c.pswpin);
    }
}
