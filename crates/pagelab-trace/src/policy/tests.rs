//! Known answers on hand-worked strings, and the laws every policy obeys.

use super::*;
use crate::{AccessKind, VecSource};
use proptest::prelude::*;

fn pages(p: &[u32]) -> Vec<Run> {
    VecSource::from_pages(p).runs().to_vec()
}

/// Single references (no merging), `w` marks written positions.
fn singles(p: &[u32], w: &[usize]) -> Vec<Run> {
    p.iter()
        .enumerate()
        .map(|(i, &pg)| {
            Run::new(
                pg,
                1,
                if w.contains(&i) {
                    AccessKind::Store
                } else {
                    AccessKind::Load
                },
            )
        })
        .collect()
}

fn spec(s: &str) -> PolicySpec {
    serde_json::from_str(s).unwrap()
}

fn faults(sp: &PolicySpec, runs: &[Run], frames: u32) -> u64 {
    simulate(sp, runs, frames, 0).unwrap().measured.faults
}

/// Victims in order, from step mode.
fn victims(sp: &PolicySpec, runs: &[Run], frames: u32) -> Vec<u32> {
    Stepper::new(sp, frames, runs)
        .unwrap()
        .flat_map(|s| s.victims)
        .map(|v| v.page)
        .collect()
}

const BELADY: [u32; 12] = [1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5];
const TEXTBOOK: [u32; 20] = [7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1];

#[test]
fn fifo_exhibits_belady_anomaly_on_classic_string() {
    let f = spec(r#"{"kind":"fifo"}"#);
    assert_eq!(faults(&f, &pages(&BELADY), 3), 9);
    assert_eq!(faults(&f, &pages(&BELADY), 4), 10);
    // 3 frames: 1 2 3 load; 4 takes 1's frame, 1 takes 2's, 2 takes 3's, 5 takes 4's;
    // 1, 2 hit; 3 takes 1's, 4 takes 2's; 5 hits.
    assert_eq!(victims(&f, &pages(&BELADY), 3), vec![1, 2, 3, 4, 1, 2]);
}

#[test]
fn textbook_string_fifo_lru_min() {
    // Silberschatz, Galvin & Gagne's string with 3 frames: FIFO 15, LRU 12, OPT 9.
    let r = pages(&TEXTBOOK);
    assert_eq!(faults(&spec(r#"{"kind":"fifo"}"#), &r, 3), 15);
    assert_eq!(faults(&spec(r#"{"kind":"lru"}"#), &r, 3), 12);
    assert_eq!(faults(&spec(r#"{"kind":"min"}"#), &r, 3), 9);
}

#[test]
fn lru_on_belady_string() {
    let l = spec(r#"{"kind":"lru"}"#);
    // 3 frames: 4 evicts 1, 1 evicts 2, 2 evicts 3, 5 evicts 4; 1, 2 hit; 3 evicts 5,
    // 4 evicts 1, 5 evicts 2.
    assert_eq!(faults(&l, &pages(&BELADY), 3), 10);
    assert_eq!(victims(&l, &pages(&BELADY), 3), vec![1, 2, 3, 4, 5, 1, 2]);
    // 4 frames: 5 evicts 3, 3 evicts 4, 4 evicts 5, 5 evicts 1.
    assert_eq!(faults(&l, &pages(&BELADY), 4), 8);
    assert_eq!(victims(&l, &pages(&BELADY), 4), vec![3, 4, 5, 1]);
}

#[test]
fn min_on_belady_string_and_tie_rule() {
    let m = spec(r#"{"kind":"min"}"#);
    // 3 frames: 4 evicts 3 (next at 9), 5 evicts 4 (next at 10); 3 arrives when 1 and 2 are
    // never used again: the lower page, 1, goes; 4 evicts 2 (never used again).
    assert_eq!(faults(&m, &pages(&BELADY), 3), 7);
    assert_eq!(victims(&m, &pages(&BELADY), 3), vec![3, 4, 1, 2]);
    // 4 frames: 5 evicts 4 (next at 10); 4 evicts 1 (1, 2, 3 never again: lowest page).
    assert_eq!(faults(&m, &pages(&BELADY), 4), 6);
    assert_eq!(victims(&m, &pages(&BELADY), 4), vec![4, 1]);
    // Dirty rule: with 1 written, at 3's fault 1 and 2 are both never used again; the clean
    // one (2) is reclaimed, so 1 is not pushed then; 4 then reclaims 3 or 1: 3 is clean.
    let w = singles(&BELADY, &[7]);
    assert_eq!(victims(&m, &w, 3), vec![3, 4, 2, 3]);
    let o = simulate(&m, &w, 3, 0).unwrap();
    assert_eq!(o.measured.faults, 7);
    assert_eq!(o.measured.pushes, 0);
    assert_eq!(o.dirty_resident, 1);
}

#[test]
fn clock_hand_worked() {
    // 3 frames, bit set on load. 4: hand clears 1, 2, 3 and takes frame 0 (page 1);
    // 1 takes frame 1 (2, bit 0), 2 takes frame 2 (3); 5: clears 4, 1, 2, takes frame 0 (4);
    // 1, 2 hit (bits set); 3: clears 1, 2, 5, takes frame 1 (1); 4 takes frame 2 (2, bit 0).
    let c = spec(r#"{"kind":"clock"}"#);
    let r = pages(&BELADY);
    assert_eq!(faults(&c, &r, 3), 9);
    assert_eq!(victims(&c, &r, 3), vec![1, 2, 3, 4, 1, 2]);
    let last = Stepper::new(&c, 3, &r).unwrap().last().unwrap();
    assert_eq!(last.frames, vec![Some(5), Some(3), Some(4)]);
    assert_eq!(last.state.hand, Some(0));
    assert_eq!(last.state.frame_bits, Some(vec![true, true, true]));
}

#[test]
fn clock_without_bit_on_load_differs() {
    // Bit clear on load: 1 2 3 fill with bits 0; 1 hits (bit 1); 4: hand passes 1 (clears it),
    // takes 2; 5: takes 3; 6: takes 1 (bit now 0).
    let c = spec(r#"{"kind":"clock","bit_on_load":false}"#);
    let r = singles(&[1, 2, 3, 1, 4, 5, 6], &[]);
    assert_eq!(victims(&c, &r, 3), vec![2, 3, 1]);
}

#[test]
fn ar_hand_worked_and_reset() {
    // Without resets the M44 pointer reading: 1 2 3 fill with bits 1; 3: no bit 0, clear all,
    // take frame 0 (1), ...; victims 1 2 3 4 1 2 on Belady's string as for CLOCK.
    let a = spec(r#"{"kind":"ar","reset_interval":0}"#);
    assert_eq!(victims(&a, &pages(&BELADY), 3), vec![1, 2, 3, 4, 1, 2]);
    // 2 frames, 1 2 3 3 2 4. No reset: 3 clears all and takes frame 0 (1); 3, 2 set bits;
    // 4 finds none clear, clears all, takes the pointer frame 1 (2).
    let r = pages(&[1, 2, 3, 3, 2, 4]);
    assert_eq!(victims(&a, &r, 2), vec![1, 2]);
    // Reset after every 4th reference: after the second 3 all bits clear; 2 sets frame 1's
    // bit; 4 passes frame 1 and takes frame 0 (3).
    let a4 = spec(r#"{"kind":"ar","reset_interval":4}"#);
    assert_eq!(victims(&a4, &r, 2), vec![1, 3]);
    assert_eq!(faults(&a4, &r, 2), 4);
    // The run 3 3 spans the reset; simulate must agree with single references.
    assert_eq!(simulate(&a4, &r, 2, 0).unwrap().measured.faults, 4);
}

#[test]
fn ws_hand_worked() {
    // tau = 3: 1 2 3 fault; 1 hits (distance 3); 4 faults, 2 leaves (last at 1, + 3 = 4);
    // 1 hits, 3 leaves; 2 faults (distance 5). Sizes 1 2 3 3 3 2 3.
    let w = spec(r#"{"kind":"ws","tau":3}"#);
    let r = singles(&[1, 2, 3, 1, 4, 1, 2], &[1]);
    let o = simulate(&w, &r, 1, 0).unwrap();
    assert_eq!(o.measured.faults, 5);
    assert_eq!(o.measured.resident_sum, 17);
    assert_eq!(o.mean_resident, Some(17.0 / 7.0));
    assert_eq!(o.measured.pushes, 1, "page 2 written at 1, leaves at 4");
    assert_eq!(victims(&w, &r, 1), vec![2, 3]);
    // A long run slides the window over the others.
    let r = vec![
        Run::new(1, 1, AccessKind::Load),
        Run::new(2, 10, AccessKind::Load),
    ];
    let o = simulate(&w, &r, 1, 0).unwrap();
    // Sizes: 1, then 2 2 (1 leaves after time 3), then 1 x 8.
    assert_eq!(o.measured.resident_sum, 1 + 2 + 2 + 8);
}

#[test]
fn arc_hand_worked() {
    // c = 2: 1 2 into T1; 1 to T2; 3: REPLACE moves 2 to B1 (|T1| = 1 > p = 0);
    // 2 in B1: p = 1, REPLACE moves 1 (T2) to B2; 4: REPLACE moves 2 (T2) to B2;
    // 1 in B2: p = 0, REPLACE moves 3 (T1) to B1.
    let a = spec(r#"{"kind":"arc"}"#);
    let r = pages(&[1, 2, 1, 3, 2, 4, 1]);
    assert_eq!(faults(&a, &r, 2), 6);
    assert_eq!(victims(&a, &r, 2), vec![2, 1, 2, 3]);
    let last = Stepper::new(&a, 2, &r).unwrap().last().unwrap();
    let l = |n: &str| {
        last.state
            .lists
            .iter()
            .find(|(k, _)| k == n)
            .unwrap()
            .1
            .clone()
    };
    assert_eq!(
        (l("T1"), l("T2"), l("B1"), l("B2")),
        (vec![4], vec![1], vec![3], vec![2])
    );
    assert_eq!(last.state.values, vec![("p".to_string(), 0.0)]);
}

#[test]
fn lirs_hand_worked() {
    // c = 3: L_lirs = 2, L_hirs = 1. 1 2 LIR; 3 resident HIR; 4 reclaims 3 (stays in S as
    // non-resident HIR); 3 reclaims 4, becomes LIR, 1 (bottom LIR) becomes resident HIR;
    // 1 hits; 5 reclaims 1; 2 hits and S is pruned of 4.
    let l = spec(r#"{"kind":"lirs"}"#);
    let r = pages(&[1, 2, 3, 4, 3, 1, 5, 2]);
    assert_eq!(faults(&l, &r, 3), 6);
    assert_eq!(victims(&l, &r, 3), vec![3, 4, 1]);
    let last = Stepper::new(&l, 3, &r).unwrap().last().unwrap();
    assert_eq!(last.state.lists[0].1, vec![2, 5, 1, 3]);
    assert_eq!(last.state.lists[1].1, vec![5]);
    assert!(simulate(&l, &r, 1, 0).is_err());
}

#[test]
fn sieve_hand_worked() {
    // c = 3: 1 2 3; 1 visited; 4: hand at tail 1 (visited: clear, move on), takes 2;
    // 2: hand at 3, takes it; 5: takes 4; 1 hits; 3: hand at 2, takes it.
    let s = spec(r#"{"kind":"sieve"}"#);
    let r = pages(&[1, 2, 3, 1, 4, 2, 5, 1, 3]);
    assert_eq!(faults(&s, &r, 3), 7);
    assert_eq!(victims(&s, &r, 3), vec![2, 3, 4, 2]);
}

#[test]
fn clock_pro_hand_worked() {
    // 3 frames, cold target 1 (hot target 2). 1 2 3 enter cold in test; 1 hits (bit set).
    // 4: hand_cold promotes 1 to hot (m_c 2), reclaims 2 (kept as non-resident test).
    // 2: a test page faults: m_c stays 2 (at most frames - 1); hand_cold reclaims 3 (test);
    //    2 becomes hot at the head; 2 hot > 1 allowed, so hand_hot demotes 1 (bit clear).
    // 5: hand_cold reclaims 4 (test). 1 hits. 6: hand_cold passes hot 2, finds 1 referenced
    //    but not in test: starts a test period, moves it to the head; reclaims 5 (test).
    let c = spec(r#"{"kind":"clock-pro"}"#);
    let r = pages(&[1, 2, 3, 1, 4, 2, 5, 1, 6]);
    assert_eq!(faults(&c, &r, 3), 7);
    assert_eq!(victims(&c, &r, 3), vec![2, 3, 4, 5]);
    let last = Stepper::new(&c, 3, &r).unwrap().last().unwrap();
    let l = |n: &str| {
        last.state
            .lists
            .iter()
            .find(|(k, _)| k == n)
            .unwrap()
            .1
            .clone()
    };
    assert_eq!(
        l("clock (oldest first, from hand_hot)"),
        vec![3, 4, 2, 5, 1, 6]
    );
    assert_eq!(
        (l("hot"), l("cold"), l("cold in test")),
        (vec![2], vec![1, 6], vec![1, 6])
    );
    assert_eq!(l("non-resident test"), vec![3, 4, 5]);
    assert_eq!(last.state.values, vec![("m_c".to_string(), 2.0)]);
    assert!(simulate(
        &spec(r#"{"kind":"clock-pro","initial_cold_fraction":1.5}"#),
        &r,
        3,
        0
    )
    .is_err());
}

#[test]
fn random_is_seeded_and_deterministic() {
    let r: Vec<Run> = (0..2000u32)
        .map(|i| Run::new((i * 7919) % 97, 1, AccessKind::Load))
        .collect();
    let a = simulate(&spec(r#"{"kind":"random","seed":5}"#), &r, 10, 0).unwrap();
    let b = simulate(&spec(r#"{"kind":"random","seed":5}"#), &r, 10, 0).unwrap();
    let c = simulate(&spec(r#"{"kind":"random","seed":6}"#), &r, 10, 0).unwrap();
    assert_eq!(a, b);
    assert_ne!(a.measured.faults, c.measured.faults);
    // Enough frames for every page: only cold faults.
    assert_eq!(
        simulate(&spec(r#"{"kind":"random"}"#), &r, 97, 0)
            .unwrap()
            .measured
            .faults,
        97
    );
}

#[test]
fn specs_are_strict_and_named() {
    assert!(serde_json::from_str::<PolicySpec>(r#"{"kind":"fifo","tau":3}"#).is_err());
    assert!(serde_json::from_str::<PolicySpec>(r#"{"kind":"ws","tua":3}"#).is_err());
    assert!(serde_json::from_str::<PolicySpec>(r#"{"kind":"nope"}"#).is_err());
    assert_eq!(spec(r#"{"kind":"opt"}"#), PolicySpec::Min(min::MinSpec {}));
    assert_eq!(
        spec(r#"{"kind":"ws"}"#),
        PolicySpec::Ws(ws::WsSpec { tau: 10_000 })
    );
    let s = serde_json::to_string(&PolicySpec::by_name("core-table-scan").unwrap()).unwrap();
    assert_eq!(s, r#"{"kind":"clock","bit_on_load":true}"#);
    assert!(PolicySpec::by_name("belady").is_ok());
    let e = PolicySpec::by_name("mru").unwrap_err().to_string();
    assert!(e.contains("mru") && e.contains("fifo"), "{e}");
    for i in INFO {
        assert!(PolicySpec::by_name(i.name).is_ok());
        assert!(!i.summary.is_empty() && !i.citation.is_empty());
    }
    assert_eq!(INFO.len(), 14);
}

#[test]
fn huge_frame_counts_allocate_only_what_is_used() {
    let r = pages(&BELADY);
    for s in ALL.iter().filter(|s| !s.contains("ws")) {
        let o = simulate(&spec(s), &r, u32::MAX, 0).unwrap();
        assert_eq!(o.measured.faults, 5, "{s}");
    }
    let mut src = VecSource::new(r.clone());
    let o = simulate_stream(&spec(r#"{"kind":"clock"}"#), &mut src, u32::MAX, 0).unwrap();
    assert_eq!(o.measured.faults, 5);
    let steps: Vec<Step> = Stepper::new(&spec(r#"{"kind":"fifo"}"#), u32::MAX, &r)
        .unwrap()
        .collect();
    assert_eq!(steps[11].frames.len(), 6);
}

#[test]
fn empty_string_is_fine() {
    for s in ALL {
        let o = simulate(&spec(s), &[], 3, 10).unwrap();
        assert_eq!(
            (
                o.measured.references,
                o.warmup.references,
                o.measured.faults
            ),
            (0, 0, 0)
        );
        assert_eq!(o.fault_rate, 0.0);
    }
}

#[test]
fn bad_arguments_are_one_line_errors() {
    let r = pages(&BELADY);
    let e = simulate(&spec(r#"{"kind":"lru"}"#), &r, 0, 0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("frames") && !e.contains('\n'), "{e}");
    assert!(simulate(&spec(r#"{"kind":"min"}"#), &r, 0, 0).is_err());
    assert!(simulate_sizes(&spec(r#"{"kind":"lru"}"#), &r, &[3, 0], 0).is_err());
    assert!(simulate(&spec(r#"{"kind":"ws","tau":0}"#), &r, 1, 0).is_err());
    let mut src = VecSource::new(r);
    let e = simulate_stream(&spec(r#"{"kind":"min"}"#), &mut src, 3, 0).unwrap_err();
    assert!(e.to_string().contains("min"));
}

#[test]
fn warmup_is_counted_apart() {
    // LRU, 3 frames, Belady's string; warm-up of 5 references (1 2 3 4 1: 5 faults).
    let l = spec(r#"{"kind":"lru"}"#);
    let o = simulate(&l, &pages(&BELADY), 3, 5).unwrap();
    assert_eq!((o.warmup.references, o.warmup.faults), (5, 5));
    assert_eq!((o.measured.references, o.measured.faults), (7, 5));
    // A boundary inside a run: the run's first reference is in the warm-up.
    let r = vec![
        Run::new(0, 10, AccessKind::Store),
        Run::new(1, 1, AccessKind::Load),
    ];
    let o = simulate(&l, &r, 1, 4).unwrap();
    assert_eq!((o.warmup.references, o.warmup.faults), (4, 1));
    assert_eq!(
        (o.measured.references, o.measured.faults, o.measured.pushes),
        (7, 1, 1)
    );
}

pub(super) fn arb_runs(max_page: u32, max_len: usize) -> impl Strategy<Value = Vec<Run>> {
    prop::collection::vec((0..max_page, 1u32..4, any::<bool>(), 0u8..4), 1..max_len).prop_map(|v| {
        v.into_iter()
            .map(|(p, c, _, k)| Run::new(p, c, AccessKind::from_code(k).unwrap()))
            .collect()
    })
}

const ALL: [&str; 13] = [
    r#"{"kind":"fifo"}"#,
    r#"{"kind":"lru"}"#,
    r#"{"kind":"clock"}"#,
    r#"{"kind":"ar","reset_interval":7}"#,
    r#"{"kind":"random","seed":3}"#,
    r#"{"kind":"ws","tau":5}"#,
    r#"{"kind":"arc"}"#,
    r#"{"kind":"lirs","hir_fraction":0.25}"#,
    r#"{"kind":"sieve"}"#,
    r#"{"kind":"clock-pro","initial_cold_fraction":0.2}"#,
    r#"{"kind":"linux-lru","inactive_ratio":2}"#,
    r#"{"kind":"mglru"}"#,
    r#"{"kind":"min"}"#,
];

proptest! {
    #[test]
    fn lru_and_min_faults_monotone_in_frames(r in arb_runs(12, 120)) {
        for s in [r#"{"kind":"lru"}"#, r#"{"kind":"min"}"#] {
            let sp = spec(s);
            let f: Vec<u64> = (1..14).map(|k| faults(&sp, &r, k)).collect();
            prop_assert!(f.windows(2).all(|w| w[1] <= w[0]), "{s}: {f:?}");
        }
    }

    #[test]
    fn min_never_faults_more_than_any_policy(r in arb_runs(12, 120), k in 2u32..12) {
        let m = faults(&spec(r#"{"kind":"min"}"#), &r, k);
        for s in &ALL[..11] {
            if s.contains("ws") { continue; }
            prop_assert!(m <= faults(&spec(s), &r, k), "{s}");
        }
    }

    #[test]
    fn stepper_agrees_with_simulate(r in arb_runs(10, 60), k in 2u32..8) {
        for s in ALL {
            let sp = spec(s);
            let o = simulate(&sp, &r, k, 0).unwrap();
            let mut st = Stepper::new(&sp, k, &r).unwrap();
            let steps: Vec<Step> = st.by_ref().collect();
            prop_assert_eq!(steps.len() as u64, o.measured.references);
            prop_assert_eq!(st.n_faults(), o.measured.faults, "{}", s);
            prop_assert_eq!(st.n_pushes(), o.measured.pushes, "{}", s);
            let bound = r.iter().map(|x| x.page + 1).max().unwrap();
            if !s.contains("ws") {
                for step in &steps {
                    prop_assert_eq!(step.frames.len(), k.min(bound) as usize);
                    prop_assert!(step.frames.iter().flatten().count() <= k as usize);
                    // The frame table holds exactly the resident pages.
                    prop_assert!(step.frames.contains(&Some(step.page)));
                }
            }
        }
    }

    #[test]
    fn counters_add_up_and_pushes_need_writes(r in arb_runs(15, 150), k in 1u32..10, w in 0u64..200) {
        let writes = r.iter().filter(|x| x.is_write()).count() as u64;
        let total: u64 = r.iter().map(|x| u64::from(x.count)).sum();
        for s in ALL {
            let sp = spec(s);
            if s.contains("lirs") && k < 2 { continue; }
            let o = simulate(&sp, &r, k, w).unwrap();
            let all = simulate(&sp, &r, k, 0).unwrap();
            prop_assert_eq!(o.measured.references + o.warmup.references, total);
            prop_assert_eq!(o.measured.faults + o.warmup.faults, all.measured.faults, "{}", s);
            prop_assert_eq!(o.measured.pushes + o.warmup.pushes, all.measured.pushes, "{}", s);
            prop_assert!(o.measured.hits() + o.measured.faults == o.measured.references);
            prop_assert!(all.measured.pushes + all.dirty_resident <= writes, "{}", s);
            let runs_read: Vec<Run> = r.iter().map(|x| Run { kind: AccessKind::Load, ..*x }).collect();
            let clean = simulate(&sp, &runs_read, k, 0).unwrap();
            prop_assert_eq!(clean.measured.pushes + clean.dirty_resident, 0);
        }
    }

    #[test]
    fn run_collapsed_simulation_agrees_with_per_reference_steps(
        r in arb_runs(8, 80), k in 1u32..8, w in 0u64..120
    ) {
        // The same string as runs (of 1..4 references; adjacent runs of one page in different
        // kinds, which the driver collapses into one call) and one reference at a time through
        // the Stepper; then split at a warm-up, which cuts a collapsed run in two.
        for s in ALL {
            let sp = spec(s);
            if s.contains("lirs") && k < 2 { continue; }
            let o = simulate(&sp, &r, k, 0).unwrap();
            let mut st = Stepper::new(&sp, k, &r).unwrap();
            let steps = st.by_ref().count() as u64;
            prop_assert_eq!(steps, o.measured.references);
            prop_assert_eq!(st.n_faults(), o.measured.faults, "{}", s);
            prop_assert_eq!(st.n_pushes(), o.measured.pushes, "{}", s);
            // Split at the warm-up, per reference: faults and pushes add up to the whole.
            let split = simulate(&sp, &r, k, w).unwrap();
            prop_assert_eq!(split.warmup.faults + split.measured.faults, st.n_faults(), "{}", s);
            prop_assert_eq!(split.warmup.pushes + split.measured.pushes, st.n_pushes(), "{}", s);
            prop_assert_eq!(split.dirty_resident, o.dirty_resident, "{}", s);
        }
    }

    #[test]
    fn warm_up_counts_are_those_of_its_references(
        r in arb_runs(8, 80), k in 1u32..8, w in 0u64..120
    ) {
        // The driver hands the runs after the warm-up to the policy's block loop (its own loop
        // for LRU, FIFO, CLOCK); the warm-up's counts must be exactly those of the first `w`
        // references taken one at a time.
        for s in ALL {
            let sp = spec(s);
            if s.contains("lirs") && k < 2 { continue; }
            let split = simulate(&sp, &r, k, w).unwrap();
            let first: Vec<_> = Stepper::new(&sp, k, &r).unwrap().take(w as usize).collect();
            let faults = first.iter().filter(|st| !st.hit).count() as u64;
            let pushes = first.iter().flat_map(|st| &st.victims).filter(|v| v.pushed).count();
            prop_assert_eq!(split.warmup.references, first.len() as u64, "{}", s);
            prop_assert_eq!(split.warmup.faults, faults, "{}", s);
            prop_assert_eq!(split.warmup.pushes, pushes as u64, "{}", s);
        }
    }

    #[test]
    fn stream_equals_slice(r in arb_runs(40, 300), k in 2u32..20) {
        for s in &ALL[..11] {
            let sp = spec(s);
            let a = simulate(&sp, &r, k, 17).unwrap();
            let mut src = VecSource::new(r.clone());
            let b = simulate_stream(&sp, &mut src, k, 17).unwrap();
            prop_assert_eq!(a, b);
        }
    }
}

#[test]
fn sizes_in_order_and_deterministic() {
    let r: Vec<Run> = (0..5000u32)
        .map(|i| Run::new((i * i + 3 * i) % 211, 1 + i % 3, AccessKind::Load))
        .collect();
    let sizes = [50, 5, 100, 20];
    for s in ALL {
        let sp = spec(s);
        let v = simulate_sizes(&sp, &r, &sizes, 100).unwrap();
        for (o, &k) in v.iter().zip(&sizes) {
            assert_eq!(o, &simulate(&sp, &r, k, 100).unwrap());
        }
    }
}

/// Straightforward models over single references (Vec scans, no shared code with the
/// engines): (faults, pushes).
pub(super) mod naive {
    use crate::Run;

    fn expand(r: &[Run]) -> Vec<(u32, bool)> {
        r.iter()
            .flat_map(|x| std::iter::repeat_n((x.page, x.is_write()), x.count as usize))
            .collect()
    }

    /// Frames as a Vec of (page, dirty, bit); `pick` chooses the victim index.
    fn run(
        r: &[Run],
        k: usize,
        mut on_hit: impl FnMut(&mut Vec<(u32, bool, bool)>, usize),
        mut pick: impl FnMut(&mut Vec<(u32, bool, bool)>, usize) -> usize,
        mut on_load: impl FnMut(&mut Vec<(u32, bool, bool)>, usize),
    ) -> (u64, u64) {
        let mut fr: Vec<(u32, bool, bool)> = Vec::new();
        let (mut faults, mut pushes) = (0, 0);
        for (t, (p, w)) in expand(r).into_iter().enumerate() {
            let i = match fr.iter().position(|e| e.0 == p) {
                Some(i) => {
                    on_hit(&mut fr, i);
                    i
                }
                None => {
                    faults += 1;
                    let i = if fr.len() < k {
                        fr.push((p, false, false));
                        fr.len() - 1
                    } else {
                        let v = pick(&mut fr, t);
                        pushes += u64::from(fr[v].1);
                        fr[v] = (p, false, false);
                        v
                    };
                    on_load(&mut fr, i);
                    i
                }
            };
            fr[i].1 |= w;
        }
        (faults, pushes)
    }

    pub fn fifo(r: &[Run], k: usize) -> (u64, u64) {
        let mut hand = 0;
        run(
            r,
            k,
            |_, _| {},
            |_, _| {
                let v = hand;
                hand = (hand + 1) % k;
                v
            },
            |_, _| {},
        )
    }

    pub fn lru(r: &[Run], k: usize) -> (u64, u64) {
        // Keep frames ordered by recency: most recent last; victim index 0.
        let mut order: Vec<u32> = Vec::new();
        let mut faults = 0;
        let mut pushes = 0;
        let mut dirty = std::collections::BTreeSet::new();
        for (p, w) in expand(r) {
            if let Some(i) = order.iter().position(|&x| x == p) {
                order.remove(i);
            } else {
                faults += 1;
                if order.len() == k {
                    let v = order.remove(0);
                    pushes += u64::from(dirty.remove(&v));
                }
            }
            order.push(p);
            if w {
                dirty.insert(p);
            }
        }
        (faults, pushes)
    }

    pub fn clock(r: &[Run], k: usize) -> (u64, u64) {
        let mut hand = 0;
        run(
            r,
            k,
            |fr, i| fr[i].2 = true,
            |fr, _| loop {
                if fr[hand].2 {
                    fr[hand].2 = false;
                    hand = (hand + 1) % k;
                } else {
                    let v = hand;
                    hand = (hand + 1) % k;
                    return v;
                }
            },
            |fr, i| fr[i].2 = true,
        )
    }

    pub fn min(r: &[Run], k: usize) -> (u64, u64) {
        let refs = expand(r);
        let next = |p: u32, t: usize| {
            refs[t + 1..]
                .iter()
                .position(|e| e.0 == p)
                .map(|d| t + 1 + d)
        };
        run(
            r,
            k,
            |_, _| {},
            |fr, t| {
                // Farthest next use; never-again pages: clean first, then the lowest page.
                (0..fr.len())
                    .max_by_key(|&i| match next(fr[i].0, t) {
                        Some(n) => (0u8, n, 0u8, 0u32),
                        None => (1, 0, u8::from(!fr[i].1), u32::MAX - fr[i].0),
                    })
                    .unwrap()
            },
            |_, _| {},
        )
    }

    pub fn sieve(r: &[Run], k: usize) -> (u64, u64) {
        // Queue oldest first; `hand` an index or None (start at the oldest).
        let mut q: Vec<(u32, bool, bool)> = Vec::new();
        let mut hand: Option<usize> = None;
        let (mut faults, mut pushes) = (0, 0);
        for (p, w) in expand(r) {
            let i = match q.iter().position(|e| e.0 == p) {
                Some(i) => {
                    q[i].2 = true;
                    i
                }
                None => {
                    faults += 1;
                    if q.len() == k {
                        let mut i = hand.unwrap_or(0);
                        while q[i].2 {
                            q[i].2 = false;
                            i = (i + 1) % q.len();
                        }
                        pushes += u64::from(q[i].1);
                        q.remove(i);
                        hand = (i < q.len()).then_some(i);
                    }
                    q.push((p, false, false));
                    q.len() - 1
                }
            };
            q[i].1 |= w;
        }
        (faults, pushes)
    }

    /// Working set: (faults, pushes, size sum).
    pub fn ws(r: &[Run], tau: usize) -> (u64, u64, u64) {
        let refs = expand(r);
        let (mut faults, mut pushes, mut sum) = (0, 0, 0u64);
        let mut dirty = std::collections::BTreeSet::new();
        let mut resident = std::collections::BTreeSet::new();
        for (t, &(p, w)) in refs.iter().enumerate() {
            if !resident.contains(&p) {
                faults += 1;
            }
            let lo = (t + 1).saturating_sub(tau);
            let window: std::collections::BTreeSet<u32> =
                refs[lo..=t].iter().map(|e| e.0).collect();
            if w {
                dirty.insert(p);
            }
            for &q in resident.iter().filter(|q| !window.contains(q)) {
                pushes += u64::from(dirty.remove(&q));
            }
            resident = window;
            sum += resident.len() as u64;
        }
        (faults, pushes, sum)
    }
}

proptest! {
    #[test]
    fn engines_agree_with_naive_models(r in arb_runs(9, 60), k in 1u32..7, tau in 1u64..12) {
        let fp = |s: &str| {
            let o = simulate(&spec(s), &r, k, 0).unwrap();
            (o.measured.faults, o.measured.pushes)
        };
        let ku = k as usize;
        prop_assert_eq!(fp(r#"{"kind":"fifo"}"#), naive::fifo(&r, ku));
        prop_assert_eq!(fp(r#"{"kind":"lru"}"#), naive::lru(&r, ku));
        prop_assert_eq!(fp(r#"{"kind":"clock"}"#), naive::clock(&r, ku));
        prop_assert_eq!(fp(r#"{"kind":"min"}"#), naive::min(&r, ku));
        prop_assert_eq!(fp(r#"{"kind":"sieve"}"#), naive::sieve(&r, ku));
        let o = simulate(&PolicySpec::Ws(ws::WsSpec { tau }), &r, 1, 0).unwrap();
        prop_assert_eq!(
            (o.measured.faults, o.measured.pushes, o.measured.resident_sum),
            naive::ws(&r, tau as usize)
        );
    }
}
