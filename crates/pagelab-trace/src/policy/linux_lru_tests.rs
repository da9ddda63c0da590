//! The two-list LRU: hand-worked strings, and the engine against a model over single references
//! written apart (Vec lists, no shared code) on random strings.

use super::linux_lru::{LinuxLru, LinuxLruSpec};
use super::tests::arb_runs;
use super::{Memory, PolicySpec, Replacement};
use crate::{AccessKind, Run};
use proptest::prelude::*;

fn loads(p: &[u32]) -> Vec<Run> {
    p.iter()
        .map(|&x| Run::new(x, 1, AccessKind::Load))
        .collect()
}

/// Runs `r` one call per run: (faults, victims, the engine).
fn drive(spec: &LinuxLruSpec, r: &[Run], k: u32) -> (u64, Vec<u32>, LinuxLru) {
    let bound = r.iter().map(|x| x.page + 1).max().unwrap_or(0);
    let mut p = LinuxLru::new(spec, k, bound).unwrap();
    let mut mem = Memory::new(bound);
    mem.set_recording(true);
    let mut faults = 0;
    for (t, x) in r.iter().enumerate() {
        faults += u64::from(!p.reference(x.page, x.count, t as u64, &mut mem));
    }
    let victims = mem.take_reclaimed().iter().map(|v| v.page).collect();
    (faults, victims, p)
}

fn lists(p: &LinuxLru) -> (Vec<u32>, Vec<u32>) {
    let s = p.state();
    (s.lists[0].1.clone(), s.lists[1].1.clone())
}

/// Three frames: a page used once after its fault is marked and rotated, not activated; one
/// used twice across reclaim checks is activated; refault distances beyond the active list.
#[test]
fn second_use_activates_worked() {
    let r = loads(&[1, 2, 3, 2, 4, 1, 5, 1, 4, 6, 1, 7, 4, 6]);
    let (faults, victims, p) = drive(&LinuxLruSpec::default(), &r, 3);
    assert_eq!(faults, 10);
    assert_eq!(victims, vec![1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(lists(&p), (vec![1], vec![6, 4]));
    assert_eq!(p.state().values[0].1, 8.0);
    assert_eq!(p.n_refault_activations, 0);
}

/// Four frames: page 4's refault distance (2) is within the active list (2 pages), so it goes
/// straight to the active list; without refault activation it goes to the inactive list.
#[test]
fn short_refault_distance_activates_worked() {
    let r = loads(&[1, 2, 3, 4, 5, 2, 3, 6, 4, 7]);
    let (_, victims, p) = drive(&LinuxLruSpec::default(), &r, 4);
    assert_eq!(victims, vec![1, 4, 5, 6]);
    assert_eq!(p.n_refault_activations, 1);
    assert_eq!(lists(&p), (vec![4, 3], vec![7, 2]));
    let off = LinuxLruSpec {
        refault: false,
        ..LinuxLruSpec::default()
    };
    let (_, _, q) = drive(&off, &r, 4);
    assert_eq!(q.n_refault_activations, 0);
    assert_ne!(lists(&q), lists(&p));
}

#[test]
fn spec_is_strict_and_named() {
    let s: PolicySpec = serde_json::from_str(r#"{"kind":"active-inactive"}"#).unwrap();
    assert_eq!(s.name(), "linux-lru");
    assert!(serde_json::from_str::<PolicySpec>(r#"{"kind":"linux-lru","ratio":2}"#).is_err());
    let e = LinuxLru::new(
        &LinuxLruSpec {
            inactive_ratio: 0,
            ..LinuxLruSpec::default()
        },
        4,
        10,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("inactive_ratio"), "{e}");
}

/// The model: lists as Vecs (head first), one step per reference. (faults, pushes).
fn model(r: &[Run], k: usize, ratio: usize, refault: bool) -> (u64, u64) {
    use std::collections::HashMap;
    let (mut act, mut inact): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
    let (mut young, mut marked, mut dirty) = (HashMap::new(), HashMap::new(), HashMap::new());
    let mut shadow: HashMap<u32, u64> = HashMap::new();
    let (mut age, mut faults, mut pushes) = (0u64, 0u64, 0u64);
    for x in r {
        for _ in 0..x.count {
            let p = x.page;
            if act.contains(&p) || inact.contains(&p) {
                young.insert(p, true);
            } else {
                faults += 1;
                if act.len() + inact.len() == k {
                    loop {
                        while !act.is_empty()
                            && (inact.is_empty() || inact.len() * ratio < act.len())
                        {
                            let t = act.pop().unwrap();
                            young.insert(t, false);
                            inact.insert(0, t);
                        }
                        let t = inact.pop().unwrap();
                        let was = marked.insert(t, false).unwrap_or(false);
                        if young.insert(t, false).unwrap_or(false) {
                            marked.insert(t, true);
                            if was {
                                act.insert(0, t);
                                age += 1;
                            } else {
                                inact.insert(0, t);
                            }
                            continue;
                        }
                        pushes += u64::from(dirty.insert(t, false).unwrap_or(false));
                        shadow.insert(t, age);
                        age += 1;
                        break;
                    }
                }
                let near = shadow
                    .remove(&p)
                    .is_some_and(|s| age - s <= act.len() as u64);
                if refault && near {
                    act.insert(0, p);
                    age += 1;
                } else {
                    inact.insert(0, p);
                }
                young.insert(p, true);
                marked.insert(p, false);
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
    fn engine_agrees_with_the_model(
        r in arb_runs(14, 160), k in 1u32..9, ratio in 1u32..4, refault in any::<bool>()
    ) {
        let spec = PolicySpec::LinuxLru(LinuxLruSpec { inactive_ratio: ratio, refault, ..LinuxLruSpec::default() });
        let o = super::simulate(&spec, &r, k, 0).unwrap();
        let (f, p) = model(&r, k as usize, ratio as usize, refault);
        prop_assert_eq!((o.measured.faults, o.measured.pushes), (f, p));
    }
}

/// With a kernel named, the lab's two lists are the kernel's (`linux_two_list`): a fault at
/// the limit frees a cgroup reclaim's batch, so several victims come back at once.
#[test]
fn a_named_kernel_reclaims_in_batches() {
    let s: PolicySpec =
        serde_json::from_str(r#"{"kind":"linux-lru","kernel":"6.12","swappiness":100}"#).unwrap();
    let r = loads(&(0..200).collect::<Vec<_>>());
    let o = super::simulate(&s, &r, 100, 0).unwrap();
    assert_eq!(o.measured.faults, 200);
    let PolicySpec::LinuxLru(spec) = &s else {
        unreachable!()
    };
    let (_, victims, p) = drive(spec, &r, 100);
    assert!(p.resident() <= 100);
    assert_eq!(victims.len() as u32, 200 - p.resident());
    assert!(serde_json::from_str::<PolicySpec>(r#"{"kind":"linux-lru","kernel":"5.4"}"#).is_err());
}
