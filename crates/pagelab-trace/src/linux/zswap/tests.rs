//! Known answers of zswap's rules, for the replay's pool and the system simulator's alike.

use super::*;
use crate::linux::LinuxCounters;

fn pool(kernel: Kernel, zpool: Zpool, total: u64) -> Pool<u32> {
    Pool::new(kernel, zpool, Limits::new(kernel, total, 20.0, 90.0))
}

/// Stores `key` if admitted; the verdict either way.
fn offer(p: &mut Pool<u32>, key: u32, len: u32) -> StoreVerdict {
    let v = p.admit(len);
    if v == StoreVerdict::Store {
        p.insert(key, len);
    }
    v
}

/// 1,000 pages of RAM: a cap of 200 pool pages. In 6.1 the pool is full above the cap: 401
/// entries in zbud take 201 pages, so the 402nd store is rejected, and the shrink worker writes
/// back the 43 oldest entries, to 179 pages (below 90 %: 180); the next store is accepted
/// again. 6.12 is full at the cap. zsmalloc in 6.1 cannot write back.
#[test]
fn rejection_at_the_cap_and_writeback_to_the_threshold() {
    let p = ZswapParams {
        total_ram_pages: 1000,
        compressed_bytes: 100,
        max_pool_percent: 20,
        accept_threshold_percent: 90,
        zpool: None,
    };
    let mut c = LinuxCounters::default();
    let mut pool = ReplayPool::new(p.clone(), Kernel::V6_1);
    assert!((0..401).all(|x| pool.store(x, &mut c)));
    assert_eq!(pool.charged_pages(), 10, "40,100 compressed bytes");
    assert!(!pool.store(401, &mut c));
    assert_eq!((c.zswap_rejected, c.zswap_written_back), (1, 43));
    assert_eq!(pool.take_written_back(), (0..43).collect::<Vec<_>>());
    assert!(pool.store(402, &mut c));
    let zbud = ZswapParams {
        zpool: Some("zbud".into()),
        ..p.clone()
    };
    let mut pool = ReplayPool::new(zbud, Kernel::V6_12);
    assert!((0..399).all(|x| pool.store(x, &mut c)));
    assert!(!pool.store(399, &mut c), "6.12: full at 200 pages");
    let zs = ZswapParams {
        zpool: Some("zsmalloc".into()),
        compressed_bytes: 4096,
        ..p
    };
    let mut c = LinuxCounters::default();
    let mut pool = ReplayPool::new(zs, Kernel::V6_1);
    assert!((0..201).all(|x| pool.store(x, &mut c)));
    assert!(!pool.store(201, &mut c));
    assert_eq!(c.zswap_written_back, 0);
    pool.load(0);
    assert!(
        !pool.store(202, &mut c),
        "200 pages: not below the 180-page threshold"
    );
}

#[test]
fn the_limits_round_down_as_the_kernel_does() {
    // 29 % of 100 pages is 29 pages (integers: 100 × 29 / 100), not 0.29 × 100 floored.
    let l = Limits::new(Kernel::V6_12, 100, 29.0, 90.0);
    assert_eq!((l.max_pages, l.accept_pages), (29, 26));
    // 6.1's threshold is RAM × thr / 100 × max / 100: 1,000 × 85 / 100 = 850, × 15 / 100 = 127;
    // 6.12's is the cap's share: 150 × 85 / 100 = 127 as well here, 6.1 accepting below it.
    let (a, b) = (
        Limits::new(Kernel::V6_1, 1000, 15.0, 85.0),
        Limits::new(Kernel::V6_12, 1000, 15.0, 85.0),
    );
    assert_eq!((a.max_pages, a.accept_pages), (150, 127));
    assert_eq!((b.max_pages, b.accept_pages), (150, 127));
    assert!(!a.accepts(127) && a.accepts(126) && b.accepts(127));
    assert!(!a.full(150) && a.full(151) && b.full(150));
}

#[test]
fn a_full_pool_refuses_until_it_is_back_at_its_threshold() {
    // zsmalloc, 100 pages: a cap of 20 pool pages, 18 at the 90 % threshold.
    let mut z = pool(Kernel::V6_12, Zpool::Zsmalloc, 100);
    (0..20).for_each(|p| assert_eq!(offer(&mut z, p, PAGE_BYTES), StoreVerdict::Store));
    let full = StoreVerdict::Full { shrink: true };
    assert_eq!(z.admit(100), full, "at the cap: full");
    z.remove(0);
    assert_eq!(
        z.admit(100),
        full,
        "19 pages: not yet back to 18; 6.12 shrinks again"
    );
    z.remove(1);
    assert_eq!(z.admit(100), StoreVerdict::Store, "18 pages: accepts again");
    // 6.1: the worker runs only when a store finds the pool above its cap.
    let mut z = pool(Kernel::V6_1, Zpool::Zsmalloc, 100);
    (0..21).for_each(|p| assert_eq!(offer(&mut z, p, PAGE_BYTES), StoreVerdict::Store));
    assert_eq!(z.admit(100), full, "21 pages: above the cap");
    (0..3).for_each(|p| assert!(z.remove(p)));
    assert_eq!(z.admit(100), StoreVerdict::Full { shrink: false });
    z.remove(3);
    assert_eq!(z.admit(100), StoreVerdict::Store, "17 pages: below 18");
}

#[test]
fn a_poor_page_is_refused_after_the_limits_and_leaves_the_pool_as_it_was() {
    let mut z = pool(Kernel::V6_12, Zpool::Zsmalloc, 100);
    (0..19).for_each(|p| assert_eq!(offer(&mut z, p, PAGE_BYTES), StoreVerdict::Store));
    assert_eq!(z.admit(PAGE_BYTES + 1), StoreVerdict::Poor);
    assert_eq!(
        z.admit(PAGE_BYTES),
        StoreVerdict::Store,
        "not full: one page short"
    );
    let mut zbud = pool(Kernel::V6_12, Zpool::Zbud, 100);
    assert_eq!(
        zbud.admit(3969),
        StoreVerdict::Poor,
        "zbud: a page less two chunks"
    );
    assert_eq!(zbud.admit(3968), StoreVerdict::Store);
}

#[test]
fn zero_filled_pages_take_no_room_and_are_never_written_back() {
    // 6.12: the swap map's zero bit, even with the pool full.
    let mut z = pool(Kernel::V6_12, Zpool::Zsmalloc, 100);
    (0..20).for_each(|p| assert_eq!(offer(&mut z, p, PAGE_BYTES), StoreVerdict::Store));
    assert_eq!(offer(&mut z, 100, 0), StoreVerdict::Store);
    assert_eq!((z.pages(), z.len()), (20, 21));
    assert!(std::iter::from_fn(|| z.next_writeback()).all(|k| k != 100));
    assert!(z.holds(100) && z.remove(100));
    // 6.1: a same-filled page meets the limits first, then takes no bytes.
    let mut z = pool(Kernel::V6_1, Zpool::Zbud, 100);
    (0..41).for_each(|p| assert_eq!(offer(&mut z, p, 100), StoreVerdict::Store));
    assert_eq!(z.pages(), 21);
    assert_eq!(z.admit(0), StoreVerdict::Full { shrink: true });
    let mut z = pool(Kernel::V6_1, Zpool::Zbud, 100);
    assert_eq!(offer(&mut z, 7, 0), StoreVerdict::Store);
    assert_eq!(
        (z.pages(), z.charged_pages(), z.next_writeback()),
        (0, 0, None)
    );
    z.check().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn writeback_takes_the_oldest_entry_still_held() {
    // A cap of 0 pages: every entry is written back, oldest first.
    let mut z = Pool::new(
        Kernel::V6_12,
        Zpool::Zsmalloc,
        Limits::new(Kernel::V6_12, 100, 0.0, 90.0),
    );
    for k in [10, 20, 30] {
        z.insert(k, 900);
    }
    assert!(z.remove(10), "loaded: gone from the pool");
    assert!(!z.remove(10));
    z.insert(10, 900); // stored again: now the newest
    let order: Vec<u32> = std::iter::from_fn(|| z.next_writeback()).collect();
    assert_eq!(order, [20, 30, 10]);
    assert!(z.is_empty());
    z.check().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn the_zpools_pack_objects_as_they_share_a_page() {
    let pages = |zpool: Zpool, lens: &[u32]| {
        let mut z = pool(Kernel::V6_12, zpool, 1000);
        for (k, &len) in lens.iter().enumerate() {
            z.insert(k as u32, len);
        }
        z.check().unwrap_or_else(|e| panic!("{e}"));
        (z.pages(), z.pages_with(1366))
    };
    // zbud: halves of up to 2,016 bytes; z3fold: thirds of up to 1,344; else one a page.
    assert_eq!(pages(Zpool::Zbud, &[100, 2016, 2017]), (2, 3));
    assert_eq!(pages(Zpool::Z3fold, &[100, 1344, 1345]), (2, 3));
    assert_eq!(pages(Zpool::Zsmalloc, &[1366, 1366]), (1, 2));
    assert_eq!(pages(Zpool::Zsmalloc, &[1366, 1366, 0]), (1, 2));
}

#[test]
fn measured_lengths_follow_the_kernel_on_same_filled_pages() {
    let (a, b) = (
        PageSizes::measured(Compressor::Lzo, Kernel::V6_1),
        PageSizes::measured(Compressor::Lzo, Kernel::V6_12),
    );
    assert!(
        a.mean() < b.mean(),
        "6.1 stores same-filled pages in no bytes"
    );
    let m = PageLengths::Measured(b);
    assert_eq!(m.of(3, 1, 2), m.of(3, 1, 2));
    assert_eq!(PageLengths::mean_ratio(3.0).of(3, 1, 2), 1366);
}
