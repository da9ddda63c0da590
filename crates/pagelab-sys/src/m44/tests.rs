//! Whole-machine checks of the M44/44X engine on small programs.

use super::spec::{load_spec, M44Spec};
use super::{run, Machine};
use crate::SysError;
use pagelab_trace::gen::{generate, M44Params, M44Program};
use std::collections::{HashSet, VecDeque};

const PRESET: &str = include_str!("../../../../presets/m44.toml");

fn spec(overrides: &[(&str, &str)]) -> M44Spec {
    let mut o: Vec<(String, String)> = vec![
        ("workload.params.sort.items".into(), "600".into()),
        ("workload.program".into(), "t4-1xq".into()),
    ];
    o.extend(
        overrides
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string())),
    );
    load_spec(PRESET, "m44.toml", &o).unwrap()
}

fn metric(r: &crate::Report, name: &str) -> f64 {
    r.metrics[name].value
}

/// Pulls of one program under plain FIFO with `frames` frames, counted independently.
fn fifo_pulls(program: M44Program, items: u64, frames: usize) -> (u64, u64) {
    let mut p = M44Params::default();
    p.sort.items = items;
    let g = generate(program, &p, 1).unwrap();
    let mut resident: HashSet<u32> = HashSet::new();
    let mut order: VecDeque<u32> = VecDeque::new();
    let mut pulls = 0;
    for r in &g.runs {
        if !resident.contains(&r.page) {
            pulls += 1;
            if resident.len() == frames {
                let v = order.pop_front().unwrap();
                resident.remove(&v);
            }
            resident.insert(r.page);
            order.push_back(r.page);
        }
    }
    (pulls, g.n_references)
}

#[test]
fn one_job_is_the_single_programmed_model() {
    // One job alone: global FIFO is the program's own FIFO, and the CPU waits for every pull,
    // so run time = references × 10 µs + pulls × 0.21 s (the m44-single model).
    for frames in [4usize, 6, 30] {
        let words = (frames * 1024).to_string();
        let s = spec(&[
            ("workload.copies", "1"),
            ("memory.store_words", &words),
            ("replacement.policy", "\"fifo\""),
        ]);
        let r = run(&s, 1, &mut |_| {}).unwrap();
        let (pulls, refs) = fifo_pulls(M44Program::T4_1XQ, 600, frames);
        assert_eq!(metric(&r, "pulls") as u64, pulls, "{frames} frames");
        assert_eq!(metric(&r, "references") as u64, refs);
        let expect = refs as f64 * 10e-6 + pulls as f64 * 0.21;
        assert!(
            (metric(&r, "elapsed_s") - expect).abs() < 1e-6,
            "{frames} frames: {} s against {expect} s",
            metric(&r, "elapsed_s")
        );
    }
}

#[test]
fn two_jobs_with_room_overlap_cpu_and_paging() {
    // Room for both: each pulls each of its pages once; the CPU runs one job while the other
    // waits, so two jobs take less than twice one.
    let one = run(&spec(&[("workload.copies", "1")]), 1, &mut |_| {}).unwrap();
    let two = run(&spec(&[("workload.copies", "2")]), 1, &mut |_| {}).unwrap();
    assert_eq!(metric(&two, "pulls"), 2.0 * metric(&one, "pulls"));
    assert!(metric(&two, "elapsed_s") < 2.0 * metric(&one, "elapsed_s"));
    assert!(metric(&two, "elapsed_s") > metric(&one, "elapsed_s"));
}

#[test]
fn same_seed_same_report() {
    let s = spec(&[
        ("workload.copies", "3"),
        ("memory.store_words", "12288"),
        ("replacement.policy", "\"ar\""),
        ("leveler.enabled", "true"),
    ]);
    let a = serde_json::to_string(&run(&s, 7, &mut |_| {}).unwrap()).unwrap();
    let b = serde_json::to_string(&run(&s, 7, &mut |_| {}).unwrap()).unwrap();
    assert_eq!(a, b);
}

#[test]
fn every_policy_finishes_every_job_in_a_squeezed_store() {
    for policy in ["\"fifo\"", "\"bifo\"", "\"ar\""] {
        for leveler in ["false", "true"] {
            let s = spec(&[
                ("workload.copies", "4"),
                ("memory.store_words", "10240"),
                ("replacement.policy", policy),
                ("replacement.bifo_interval_s", "0.3"),
                ("leveler.enabled", leveler),
                ("leveler.period_s", "0.5"),
            ]);
            let r = run(&s, 1, &mut |_| {}).unwrap();
            // Each copy reads its own input: the references of the four strings.
            let refs: u64 = (0..4)
                .map(|j| {
                    let seed = super::machine::copy_seed(1, j);
                    generate(M44Program::T4_1XQ, &s.workload.params, seed)
                        .unwrap()
                        .n_references
                })
                .sum();
            assert_eq!(metric(&r, "references") as u64, refs, "{policy} {leveler}");
            assert_eq!(r.users.len(), 4);
            assert!(r.users.iter().all(|u| u.response_mean_s > 0.0));
        }
    }
}

#[test]
fn leveler_sets_aside_when_thrashing_and_restores_later() {
    let s = spec(&[
        ("workload.copies", "4"),
        ("memory.store_words", "10240"),
        ("leveler.enabled", "true"),
    ]);
    let r = run(&s, 1, &mut |_| {}).unwrap();
    assert!(metric(&r, "set_asides") >= 1.0);
    // Every job set aside is restored or finishes; all end.
    assert!(metric(&r, "restores") <= metric(&r, "set_asides"));
    let off = run(
        &spec(&[("workload.copies", "4"), ("memory.store_words", "10240")]),
        1,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(metric(&off, "set_asides"), 0.0);
    // Thrashing relieved: fewer pulls and a shorter run than without the leveler.
    assert!(metric(&r, "pulls") < metric(&off, "pulls"));
    assert!(metric(&r, "elapsed_s") < metric(&off, "elapsed_s"));
    assert!(r.intervals.rows.len() as f64 >= metric(&r, "elapsed_s").floor() - 1.0);
}

#[test]
fn bad_config_names_the_key() {
    let err = |o: &[(&str, &str)]| -> String {
        let o: Vec<(String, String)> = o
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        match load_spec(PRESET, "m44.toml", &o) {
            Err(e @ SysError::Invalid { .. }) | Err(e @ SysError::Spec { .. }) => e.to_string(),
            other => panic!("expected an error, got {other:?}"),
        }
    };
    assert!(err(&[("memory.store_words", "1000")]).contains("memory.store_words"));
    assert!(err(&[("workload.copies", "0")]).contains("workload.copies"));
    assert!(err(&[("workload.program", "t9")]).contains("workload.program"));
    assert!(err(&[("workload.params.page_words", "512")]).contains("workload.params.page_words"));
    assert!(err(&[("replacement.policy", "\"lru\"")]).contains("replacement.policy"));
    assert!(err(&[("leveler.overload_cpu", "1.5")]).contains("leveler.overload_cpu"));
    assert!(
        err(&[("memory.store_words", "4096"), ("workload.copies", "5")])
            .contains("more page frames than jobs")
    );
}

#[test]
fn the_preset_is_the_papers_machine() {
    let s = load_spec(PRESET, "m44.toml", &[]).unwrap();
    assert_eq!(s.memory.frames(), 184);
    assert_eq!(s.machine.reference_us(), pagelab_core::Us(10.0));
    assert_eq!(s.disk.count, 2);
    assert!(Machine::build(&s, 1).is_ok());
}

#[test]
fn copies_read_their_own_input_unless_told_otherwise() {
    // B&G's copies each sort their own tape: distinct strings, so they do not finish together.
    let finish = |distinct: &str| {
        let s = spec(&[
            ("workload.copies", "3"),
            ("workload.distinct_inputs", distinct),
        ]);
        let r = run(&s, 5, &mut |_| {}).unwrap();
        r.users.iter().map(|u| u.cpu_s).collect::<Vec<f64>>()
    };
    let own = finish("true");
    assert!(own[0] != own[1] && own[1] != own[2], "{own:?}");
    let same = finish("false");
    assert!(same[0] == same[1] && same[1] == same[2], "{same:?}");
    assert_eq!(
        super::machine::copy_seed(5, 0),
        5,
        "copy 0 is the run's own seed"
    );
}

#[test]
fn ar_clears_its_use_bits_every_interval_of_references() {
    // Without the periodic clearing a job that waits for its pull keeps no bit set and the one
    // running keeps all of its: the clearing changes which pages AR takes.
    let pulls = |interval: &str| {
        let s = spec(&[
            ("workload.copies", "3"),
            ("memory.store_words", "10240"),
            ("replacement.policy", "\"ar\""),
            ("replacement.ar_reset_interval", interval),
        ]);
        metric(&run(&s, 2, &mut |_| {}).unwrap(), "pulls")
    };
    let (never, slice) = (pulls("0"), pulls("10000"));
    assert!(never > 0.0 && slice > 0.0);
    assert_ne!(never, slice);
    assert_eq!(slice, pulls("10000"), "deterministic");
}
