//! The multi-generational LRU: a hand-worked string, and the engine against a model over single
//! references written apart (a map of Vec generations, no shared code) on random strings.

use super::mglru::{Mglru, MglruSpec};
use super::tests::arb_runs;
use super::{Memory, PolicySpec, Replacement};
use crate::{AccessKind, Run};
use proptest::prelude::*;
use std::collections::{BTreeMap, HashMap};

/// Three frames, `1 2 3 4 2 5 1`: the first eviction ages twice (1, 2, 3 promoted, then an
/// empty walk) and takes 1, the oldest, walked first; 2's second use saves it once;
/// at the last fault 4 and 5 still carry their fault's accessed bit, so 2 goes where LRU
/// would take 4.
#[test]
fn generations_worked() {
    let r: Vec<Run> = [1, 2, 3, 4, 2, 5, 1]
        .iter()
        .map(|&p| Run::new(p, 1, AccessKind::Load))
        .collect();
    let mut p = Mglru::new(&MglruSpec::default(), 3, 6).unwrap();
    let mut mem = Memory::new(6);
    mem.set_recording(true);
    let faults: u64 = r
        .iter()
        .enumerate()
        .map(|(t, x)| u64::from(!p.reference(x.page, 1, t as u64, &mut mem)))
        .sum();
    let victims: Vec<u32> = mem.take_reclaimed().iter().map(|v| v.page).collect();
    assert_eq!((faults, victims), (6, vec![1, 3, 2]));
    assert_eq!(p.n_agings, 4);
    let s = p.state();
    let lists: Vec<(&str, &[u32])> = s.lists.iter().map(|(n, l)| (n.as_str(), &l[..])).collect();
    assert_eq!(
        lists,
        vec![
            ("generation 7 (newest first)", &[][..]),
            ("generation 6 (newest first)", &[1][..]),
            ("generation 5 (newest first)", &[5, 4][..]),
            ("accessed", &[1][..]),
        ]
    );
    assert_eq!(
        s.values,
        vec![("min_seq".into(), 5.0), ("max_seq".into(), 7.0)]
    );
}

#[test]
fn spec_is_named_and_strict() {
    let s: PolicySpec = serde_json::from_str(r#"{"kind":"multi-gen-lru"}"#).unwrap();
    assert_eq!(s.name(), "mglru");
    assert!(serde_json::from_str::<PolicySpec>(r#"{"kind":"mglru","gens":4}"#).is_err());
}

/// The model: generation seq -> pages, head first; one step per reference. (faults, pushes).
fn model(r: &[Run], k: usize) -> (u64, u64) {
    let mut gens: BTreeMap<u64, Vec<u32>> = (0..4).map(|s| (s, Vec::new())).collect();
    let mut accessed: HashMap<u32, bool> = HashMap::new();
    let mut dirty: HashMap<u32, bool> = HashMap::new();
    let (mut faults, mut pushes) = (0u64, 0u64);
    let resident = |g: &BTreeMap<u64, Vec<u32>>| g.values().map(Vec::len).sum::<usize>();
    let find = |g: &BTreeMap<u64, Vec<u32>>, p: u32| {
        g.iter().find(|(_, v)| v.contains(&p)).map(|(s, _)| *s)
    };
    for x in r {
        for _ in 0..x.count {
            let p = x.page;
            if find(&gens, p).is_some() {
                accessed.insert(p, true);
            } else {
                faults += 1;
                if resident(&gens) == k {
                    let victim = loop {
                        let (min, max) =
                            (*gens.keys().next().unwrap(), *gens.keys().last().unwrap());
                        let total = resident(&gens);
                        let skewed = gens[&max].len() * 2 > total
                            || gens[&(max - 2).max(min)].len() * 4 < total;
                        let gens_now = max - min + 1;
                        if gens_now <= 2 || (gens_now == 3 && skewed) {
                            let walk: Vec<u32> = gens
                                .values()
                                .flat_map(|v| v.iter().rev())
                                .copied()
                                .filter(|q| accessed[q])
                                .collect();
                            for q in walk {
                                accessed.insert(q, false);
                                let s = find(&gens, q).unwrap();
                                gens.get_mut(&s).unwrap().retain(|&y| y != q);
                                gens.get_mut(&max).unwrap().insert(0, q);
                            }
                            gens.insert(max + 1, Vec::new());
                            continue;
                        }
                        if gens[&min].is_empty() {
                            gens.remove(&min);
                            continue;
                        }
                        let t = *gens[&min].last().unwrap();
                        gens.get_mut(&min).unwrap().pop();
                        if accessed.insert(t, false).unwrap_or(false) {
                            gens.get_mut(&max).unwrap().insert(0, t);
                            continue;
                        }
                        break t;
                    };
                    pushes += u64::from(dirty.insert(victim, false).unwrap_or(false));
                }
                let max = *gens.keys().last().unwrap();
                gens.get_mut(&(max - 1)).unwrap().insert(0, p);
                accessed.insert(p, true);
            }
            if x.kind.is_write() {
                dirty.insert(p, true);
            }
        }
    }
    (faults, pushes)
}

proptest! {
    #[test]
    fn engine_agrees_with_the_model(r in arb_runs(14, 160), k in 1u32..9) {
        let o = super::simulate(&PolicySpec::Mglru(MglruSpec::default()), &r, k, 0).unwrap();
        prop_assert_eq!((o.measured.faults, o.measured.pushes), model(&r, k as usize));
    }
}

/// With a kernel named, the lab's generations are the kernel's (`linux_mglru`): the first
/// reclaim of 100 young pages ages twice and evicts a batch of 64 from the oldest generation.
#[test]
fn a_named_kernel_evicts_a_batch_of_64() {
    let s: PolicySpec = serde_json::from_str(r#"{"kind":"mglru","kernel":"6.1"}"#).unwrap();
    let PolicySpec::Mglru(spec) = &s else {
        unreachable!()
    };
    let mut p = Mglru::new(spec, 100, 101).unwrap();
    let mut mem = Memory::new(101);
    mem.set_recording(true);
    for x in 0..101 {
        assert!(!p.reference(x, 1, u64::from(x), &mut mem));
    }
    let victims: Vec<u32> = mem.take_reclaimed().iter().map(|v| v.page).collect();
    assert_eq!(victims, (0..64).collect::<Vec<_>>(), "oldest first");
    assert_eq!(p.resident(), 37);
}

/// `folio_update_gen` clears the access count and flags, and the page-table walk runs only
/// while the mm's bit is set (`should_skip_mm`): the first aging walks and promotes the young
/// pages, the second finds the bit cleared and only adds a generation.
#[test]
fn the_walk_runs_once_per_switch_in() {
    use super::kernel::{Kernel, Workingset};
    use super::linux_mglru::Mglru as Gens;
    let mut g = Gens::new(Kernel::V6_12, 8);
    let mut ws = Workingset::default();
    for x in 0..4 {
        g.add(x, &mut ws);
    }
    let mut out = Vec::new();
    g.reclaim(32, &mut out, &mut ws);
    // Priority 2 (4 >> 2 = 1) retires the empty generations 0 and 1, leaving two; priority 1
    // ages with the walk (all four young: promoted, bits cleared) and ends the pass; priority
    // 0 finds the oldest of three generations empty and ages again, without a walk.
    assert_eq!((g.n_agings, out.len()), (2, 0));
    // The charge retries the reclaim: at priority 1 the four, no longer young, go at once;
    // their generation emptied, two remain, so priority 0 ages once more.
    g.reclaim(32, &mut out, &mut ws);
    assert_eq!((g.n_agings, out), (3, vec![0, 1, 2, 3]));
}

/// A Linux MGLRU of `kernel` over 8 pages, its reclaim steps recorded, with pages 0-3 added.
fn four_pages_recorded(
    kernel: super::kernel::Kernel,
) -> (super::linux_mglru::Mglru, super::kernel::Workingset) {
    let mut g = super::linux_mglru::Mglru::new(kernel, 8);
    g.events.record();
    let mut ws = super::kernel::Workingset::default();
    for x in 0..4 {
        g.add(x, &mut ws);
    }
    (g, ws)
}

/// MGLRU's reclaim steps as its tracepoints report them: each `evict_folios` that isolated
/// pages is one `ShrinkInactive` (scanned 0 once two generations remain; kept counts only the
/// pages kept for a young PTE: the look-around of the first marks its isolated neighbours,
/// which are kept without a count), bracketed by the reclaim's begin and end.
#[test]
fn mglru_reclaim_events_are_evict_folios_steps() {
    use super::kernel::{Kernel, ReclaimEvent};
    let (mut g, mut ws) = four_pages_recorded(Kernel::V6_12);
    let mut out = Vec::new();
    g.reclaim(32, &mut out, &mut ws); // ages only (the_walk_runs_once_per_switch_in)
    let steps: Vec<_> = g.events.take();
    let steps: Vec<_> = steps
        .into_iter()
        .filter(|e| {
            !matches!(
                e,
                ReclaimEvent::Generations { .. } | ReclaimEvent::LruPages { .. }
            )
        })
        .collect();
    assert_eq!(
        steps,
        [
            ReclaimEvent::ReclaimBegin,
            ReclaimEvent::ReclaimEnd { reclaimed: 0 }
        ]
    );
    for x in 0..4 {
        g.touch(x);
    }
    g.reclaim(32, &mut out, &mut ws);
    let steps = g.events.take();
    let evictions: Vec<_> = steps
        .iter()
        .filter_map(|e| match e {
            ReclaimEvent::ShrinkInactive {
                reclaimed,
                kept,
                activated,
                ..
            } => Some((*reclaimed, *kept, *activated)),
            _ => None,
        })
        .collect();
    // All four young: the first one's look-around keeps them all, one counted.
    assert_eq!(evictions[0], (0, 1, 0), "{steps:?}");
    let freed: u32 = evictions.iter().map(|e| e.0).sum();
    assert_eq!(
        steps.last(),
        Some(&ReclaimEvent::ReclaimEnd { reclaimed: freed })
    );
    assert_eq!(freed as usize, out.len());
}

/// 6.12's generations step by step, as the kernel's kprobes showed them on a small program
/// (docs/policies/linux-replay.md "The lists at each reclaim"): four pages in max_seq
/// of four generations. Priorities 12 to 3 scan `4 >> priority` = 0; at 2 `evict_folios`
/// finds the oldest generations empty, retires two (`try_to_inc_min_seq`) and, two left,
/// reports nothing scanned; at 1 two generations call for aging; at 0 three, none in the
/// oldest (less than a quarter), so it ages again. No aging at the default priority.
#[test]
fn mglru_6_12_generations_follow_try_to_shrink_lruvec() {
    use super::kernel::{GenerationsAt as At, Kernel, ReclaimEvent};
    let (mut g, mut ws) = four_pages_recorded(Kernel::V6_12);
    g.reclaim(32, &mut Vec::new(), &mut ws);
    let gens = |at, priority, min_seq, max_seq, sizes: &[u64]| ReclaimEvent::Generations {
        at,
        priority,
        min_seq,
        max_seq,
        sizes: sizes.to_vec(),
    };
    let mut want = vec![
        ReclaimEvent::ReclaimBegin,
        ReclaimEvent::LruPages { pages: 4 },
    ];
    want.extend(
        (2..=12)
            .rev()
            .map(|p| gens(At::Shrink, p, 0, 3, &[0, 0, 0, 4])),
    );
    want.extend([
        gens(At::Evict, 2, 0, 3, &[0, 0, 0, 4]),
        gens(At::Shrink, 1, 2, 3, &[0, 4]),
        gens(At::Age, 1, 2, 3, &[0, 4]),
        gens(At::Shrink, 0, 2, 4, &[0, 4, 0]),
        gens(At::Age, 0, 2, 4, &[0, 4, 0]),
        ReclaimEvent::ReclaimEnd { reclaimed: 0 },
    ]);
    assert_eq!(g.events.take(), want);
    // 6.1 records no generations.
    let (mut g, mut ws) = four_pages_recorded(Kernel::V6_1);
    g.reclaim(32, &mut Vec::new(), &mut ws);
    let steps = g.events.take();
    assert!(!steps
        .iter()
        .any(|e| matches!(e, ReclaimEvent::Generations { .. })));
}
