//! MIN's ways of finding the victim (scan, near set and far heap, the block loop) against the
//! textbook model, on random strings.

use super::min::{Min, NextUse, TraceNextUse};
use super::tests::{arb_runs, naive};
use super::Memory;
use crate::Run;
use proptest::prelude::*;

/// MIN through `Min::reference`, one call per run: (faults, pushes).
fn per_run(r: &[Run], k: u32, heap: bool, near: u64) -> (u64, u64) {
    let nu = NextUse::compute(r);
    let mut m = Min::new(k, &nu).forced(heap, near);
    let mut mem = Memory::new(nu.page_bound());
    let mut faults = 0;
    for (i, x) in r.iter().enumerate() {
        if x.kind.is_write() {
            mem.mark_dirty(x.page);
        }
        faults += u64::from(!m.reference(x.page, nu.next(i), i as u64, &mut mem));
        assert_eq!(
            m.resident(),
            (0..=nu.page_bound()).filter(|&p| m.is_resident(p)).count() as u32
        );
    }
    (faults, mem.n_pushes())
}

/// MIN through `Min::run_block`, blocks of `block` runs, next uses from a `TraceNextUse` built
/// in chunks of `chunk` runs: (faults, pushes).
fn blocks(r: &[Run], k: u32, heap: bool, near: u64, block: usize, chunk: usize) -> (u64, u64) {
    let nu = TraceNextUse::of_runs(r, chunk);
    let mut m = Min::for_trace(k, &nu).forced(heap, near);
    let mut mem = Memory::new(nu.page_bound());
    let mut next = nu.cursor();
    let faults = r
        .chunks(block)
        .map(|b| m.run_block(b, &mut next, &mut mem))
        .sum();
    (faults, mem.n_pushes())
}

proptest! {
    #[test]
    fn every_way_to_the_victim_is_the_textbook_one(
        r in arb_runs(14, 200),
        k in 1u32..10,
        near in prop::sample::select(vec![0u64, 1, 2, 3, 5, 8, 20, u64::MAX]),
        block in 1usize..40,
        chunk in 1usize..40,
    ) {
        let want = naive::min(&r, k as usize);
        prop_assert_eq!(per_run(&r, k, false, near), want);
        prop_assert_eq!(per_run(&r, k, true, near), want);
        prop_assert_eq!(blocks(&r, k, false, near, block, chunk), want);
        prop_assert_eq!(blocks(&r, k, true, near, block, chunk), want);
    }
}
