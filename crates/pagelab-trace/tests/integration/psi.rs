//! Bard's Ψ-realization and round-robin prediction: hand-worked strings, the one-pass lanes
//! against direct simulation, the nesting laws, and eq. 1 on synthetic characteristics.

use crate::policies::locality_string;
use pagelab_trace::curve::psi::{fit_break, PsiRealizer, PsiStarBound};
use pagelab_trace::curve::{predict, psi_curve, realize, Prediction, PsiCurve, PsiModel, PsiPoint};
use pagelab_trace::{AccessKind, Run, VecSource};
use proptest::prelude::*;

/// One reference = 1 ms, so that rates are easy to check by hand.
const MS: PsiModel = PsiModel {
    reference_time: 1e-3,
    refs_per_io: 0,
};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

// The string 0 1 2 0 3 1, no I/O. K is the interruption count after the reference; a page is
// written page@count-of-last-reference; it is replaced when K exceeds that count by more than Ψ.
//
// Ψ = 0 (only pages referenced since the last interruption survive): every reference faults.
//   ref 0: 0 fault K=1 {0@1}       ref 3: 0 fault K=4 {0@4}
//   ref 1: 1 fault K=2 {1@2}       ref 4: 3 fault K=5 {3@5}
//   ref 2: 2 fault K=3 {2@3}       ref 5: 1 fault K=6 {1@6}
//   sizes 1 1 1 1 1 1: A = 1; 6 faults, 7 intervals.
// Ψ = 1:
//   ref 0: 0 fault K=1 {0@1}
//   ref 1: 1 fault K=2 {0@1, 1@2}
//   ref 2: 2 fault K=3, 0 expires (3-1=2) {1@2, 2@3}
//   ref 3: 0 fault K=4, 1 expires {2@3, 0@4}
//   ref 4: 3 fault K=5, 2 expires {0@4, 3@5}
//   ref 5: 1 fault K=6, 0 expires {3@5, 1@6}
//   sizes 1 2 2 2 2 2: A = 11/6; 6 faults.
// Ψ = 2:
//   ref 0: 0 fault K=1 {0@1}
//   ref 1: 1 fault K=2 {0@1, 1@2}
//   ref 2: 2 fault K=3 {0@1, 1@2, 2@3}      (0: 3-1=2 survives)
//   ref 3: 0 hit        {0@3, 1@2, 2@3}
//   ref 4: 3 fault K=4 {0@3, 1@2, 2@3, 3@4} (1: 4-2=2 survives)
//   ref 5: 1 hit        {0@3, 1@4, 2@3, 3@4}
//   sizes 1 2 3 3 4 4: A = 17/6; 4 faults, 5 intervals.
#[test]
fn hand_worked_string_at_psi_0_1_2() {
    let s = VecSource::from_pages(&[0, 1, 2, 0, 3, 1]);
    let expected: [(Vec<u64>, Vec<Vec<u32>>); 3] = [
        (
            vec![0, 1, 2, 3, 4, 5],
            vec![vec![0], vec![1], vec![2], vec![0], vec![3], vec![1]],
        ),
        (
            vec![0, 1, 2, 3, 4, 5],
            vec![
                vec![0],
                vec![0, 1],
                vec![1, 2],
                vec![0, 2],
                vec![0, 3],
                vec![1, 3],
            ],
        ),
        (
            vec![0, 1, 2, 4],
            vec![
                vec![0],
                vec![0, 1],
                vec![0, 1, 2],
                vec![0, 1, 2],
                vec![0, 1, 2, 3],
                vec![0, 1, 2, 3],
            ],
        ),
    ];
    let c = psi_curve(s.runs(), &[0, 1, 2], MS).unwrap();
    for (psi, (faults, sets)) in expected.iter().enumerate() {
        let d = realize(s.runs(), psi as u32, MS).unwrap();
        assert_eq!(&d.fault_at, faults, "Ψ = {psi}");
        assert_eq!(&d.resident, sets, "Ψ = {psi}");
        assert_eq!(d.point, c.points[psi], "Ψ = {psi}");
    }
    let [p0, p1, p2] = [c.points[0], c.points[1], c.points[2]];
    assert_eq!((p0.a, p1.a, p2.a), (1.0, 11.0 / 6.0, 17.0 / 6.0));
    // 6 references = 6 ms of CPU.
    assert!(close(p0.r, 1000.0) && close(p2.r, 4.0 / 6e-3));
    assert!(close(p0.t, 6e-3 / 7.0) && close(p2.t, 6e-3 / 5.0));
    assert!(close(p0.f, 6.0 / 7.0) && close(p2.f, 4.0 / 5.0));
    for p in &c.points {
        assert!(close(p.f, p.r * p.t), "f = R t at Ψ = {}", p.psi);
    }
    assert_eq!(c.pages, 4);
}

// The same string with an I/O after every second reference (before references 2 and 4), Ψ = 1:
//   ref 0: 0 fault K=1 {0@1}
//   ref 1: 1 fault K=2 {0@1, 1@2}
//   I/O K=3, 0 expires {1@2}
//   ref 2: 2 fault K=4, 1 expires {2@4}
//   ref 3: 0 fault K=5 {2@4, 0@5}
//   I/O K=6, 2 expires {0@5}
//   ref 4: 3 fault K=7, 0 expires {3@7}
//   ref 5: 1 fault K=8 {3@7, 1@8}
//   sizes 1 2 1 2 1 2: A = 9/6; 6 faults, 2 I/Os, 9 intervals.
#[test]
fn hand_worked_string_with_io() {
    let s = VecSource::from_pages(&[0, 1, 2, 0, 3, 1]);
    let m = PsiModel {
        refs_per_io: 2,
        ..MS
    };
    let d = realize(s.runs(), 1, m).unwrap();
    assert_eq!(
        d.resident,
        vec![
            vec![0],
            vec![0, 1],
            vec![2],
            vec![0, 2],
            vec![3],
            vec![1, 3]
        ]
    );
    let c = psi_curve(s.runs(), &[1], m).unwrap();
    let p = c.points[0];
    assert_eq!(p, d.point);
    assert_eq!((p.faults, p.ios, p.a), (6, 2, 1.5));
    assert!(close(p.f, 6.0 / 9.0) && close(p.t, 6e-3 / 9.0));
}

fn arb_runs() -> impl Strategy<Value = Vec<Run>> {
    prop::collection::vec((0u32..12, 1u32..4), 1..150).prop_map(|v| {
        v.into_iter()
            .map(|(p, c)| Run::new(p, c, AccessKind::Load))
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn one_pass_equals_direct_simulation(
        runs in arb_runs(),
        psis in prop::collection::btree_set(0u32..9, 1..6),
        io in prop_oneof![Just(0u64), 1u64..12],
    ) {
        let psis: Vec<u32> = psis.into_iter().collect();
        let m = PsiModel { refs_per_io: io, ..MS };
        let c = psi_curve(&runs, &psis, m).unwrap();
        for (p, &psi) in c.points.iter().zip(&psis) {
            let d = realize(&runs, psi, m).unwrap();
            prop_assert_eq!(*p, d.point);
        }
    }

    #[test]
    fn realizations_are_nested_in_psi(
        runs in arb_runs(),
        psi in 0u32..8,
        io in prop_oneof![Just(0u64), 1u64..12],
    ) {
        // Exceptions at Ψ + 1 are a subset of those at Ψ; resident sets contain each other.
        let m = PsiModel { refs_per_io: io, ..MS };
        let lo = realize(&runs, psi, m).unwrap();
        let hi = realize(&runs, psi + 1, m).unwrap();
        prop_assert!(hi.fault_at.iter().all(|t| lo.fault_at.binary_search(t).is_ok()));
        for (a, b) in lo.resident.iter().zip(&hi.resident) {
            prop_assert!(a.iter().all(|p| b.binary_search(p).is_ok()));
        }
    }

    #[test]
    fn a_nondecreasing_and_r_nonincreasing(
        runs in arb_runs(),
        io in prop_oneof![Just(0u64), 1u64..12],
    ) {
        let psis: Vec<u32> = (0..=12).collect();
        let c = psi_curve(&runs, &psis, PsiModel { refs_per_io: io, ..MS }).unwrap();
        for w in c.points.windows(2) {
            prop_assert!(w[1].a >= w[0].a, "A({}) < A({})", w[1].psi, w[0].psi);
            prop_assert!(w[1].r <= w[0].r, "R({}) > R({})", w[1].psi, w[0].psi);
        }
    }
}

#[test]
fn streamed_in_batches_equals_in_memory() {
    let runs = locality_string(40_000, 11);
    let psis: Vec<u32> = (0..=30).collect();
    let m = PsiModel {
        refs_per_io: 500,
        ..PsiModel::default()
    };
    let whole = psi_curve(&runs, &psis, m).unwrap();
    let mut r = PsiRealizer::new(&psis, m).unwrap();
    r.push_source(&mut VecSource::new(runs.clone())).unwrap();
    assert_eq!(r.finish().unwrap(), whole);
    for psi in [0, 3, 10, 30] {
        assert_eq!(
            realize(&runs, psi, m).unwrap().point,
            whole.points[psi as usize]
        );
    }
}

fn point(psi: u32, a: f64, r: f64, t: f64) -> PsiPoint {
    PsiPoint {
        psi,
        references: 1,
        faults: 0,
        ios: 0,
        a,
        r,
        t,
        f: r * t,
    }
}

fn curve(points: Vec<PsiPoint>) -> PsiCurve {
    let b = fit_break(&points);
    PsiCurve {
        model: PsiModel::default(),
        pages: 0,
        points,
        psi_c: b.map(|b| b.psi_c),
        beta: b.map(|b| b.beta),
        slope_below: b.map(|b| b.slope_below),
    }
}

#[test]
fn break_fit_recovers_psi_c_and_beta() {
    // A = 3 Ψ up to Ψ_c = 8, then 24 (Ψ/8)^0.2.
    let pts: Vec<PsiPoint> = (0..=30)
        .map(|psi| {
            let x = f64::from(psi);
            let a = if psi <= 8 {
                3.0 * x
            } else {
                24.0 * (x / 8.0).powf(0.2)
            };
            point(psi, a, 1.0, 1.0)
        })
        .collect();
    let c = curve(pts);
    assert_eq!(c.psi_c, Some(8.0));
    assert!((c.beta.unwrap() - 0.2).abs() < 1e-9, "{:?}", c.beta);
    assert!((c.slope_below.unwrap() - 1.0).abs() < 1e-9);
    assert!(
        fit_break(&c.points[..4]).is_none(),
        "Ψ = 0 is not usable in log-log"
    );
}

#[test]
fn prediction_hand_worked() {
    // A_1 = Ψ, A_2 = 2 Ψ on Ψ = 0..=10: A_1 + A_2 = 15 at Ψ* = 5.
    // R_1 = 10/(Ψ+1), t_1 = 0.01 (Ψ+1); R_2 = 40/(Ψ+1), t_2 = 0.005 (Ψ+1): f_1 = f_2 = 0.1... no:
    // f_1 = 0.1, f_2 = 0.2 at every Ψ; at Ψ* = 5: t_1 = 0.06, t_2 = 0.03,
    // P = (0.1 + 0.2) / (0.06 + 0.03) = 3.333.. (eq. 2) = (0.06 10/6 + 0.03 40/6) / 0.09 (eq. 3).
    let one = curve(
        (0..=10)
            .map(|p| {
                let x = f64::from(p);
                point(p, x, 10.0 / (x + 1.0), 0.01 * (x + 1.0))
            })
            .collect(),
    );
    let two = curve(
        (0..=10)
            .map(|p| {
                let x = f64::from(p);
                point(p, 2.0 * x, 40.0 / (x + 1.0), 0.005 * (x + 1.0))
            })
            .collect(),
    );
    let pr = predict(&[one.clone(), two.clone()], 15).unwrap();
    assert_eq!(pr.bound, PsiStarBound::Solved);
    assert!(close(pr.psi_star, 5.0));
    assert!(close(pr.paging_rate, 0.3 / 0.09));
    let eq3 = pr.per_program.iter().map(|p| p.t * p.r).sum::<f64>()
        / pr.per_program.iter().map(|p| p.t).sum::<f64>();
    assert!(close(pr.paging_rate, eq3));
    // Between grid points: N = 16 gives Ψ* = 16/3.
    let pr = predict(&[one.clone(), two.clone()], 16).unwrap();
    assert!(close(pr.psi_star, 16.0 / 3.0));
    // Out of range on both sides.
    let pr = predict(&[one.clone(), two.clone()], 31).unwrap();
    assert_eq!((pr.bound, pr.psi_star), (PsiStarBound::AboveRange, 10.0));
    let mut three = one.clone();
    for p in &mut three.points {
        p.a += 5.0;
    }
    let pr = predict(&[three, two], 4).unwrap();
    assert_eq!((pr.bound, pr.psi_star), (PsiStarBound::BelowRange, 0.0));
}

#[test]
fn prediction_solves_eq_1_on_synthetic_characteristics() {
    // Characteristics from real realizations of locality strings on different grids.
    let psis_a: Vec<u32> = (0..=40).collect();
    let psis_b: Vec<u32> = (0..=40).step_by(4).collect();
    let m = PsiModel {
        refs_per_io: 300,
        ..PsiModel::default()
    };
    let cs = [
        psi_curve(&locality_string(20_000, 21), &psis_a, m).unwrap(),
        psi_curve(&locality_string(20_000, 22), &psis_b, m).unwrap(),
        psi_curve(&locality_string(10_000, 23), &psis_a, m).unwrap(),
    ];
    let lo: f64 = cs.iter().map(|c| c.points[0].a).sum();
    let hi: f64 = cs.iter().map(|c| c.points.last().unwrap().a).sum();
    let mut solved = 0;
    for frames in (lo.ceil() as u32)..=(hi.floor() as u32) {
        let pr: Prediction = predict(&cs, frames).unwrap();
        assert_eq!(pr.bound, PsiStarBound::Solved, "N = {frames}");
        let sum: f64 = pr.per_program.iter().map(|p| p.a).sum();
        assert!(
            (sum - f64::from(frames)).abs() < 1e-9,
            "N = {frames}: {sum}"
        );
        let f: f64 = pr.per_program.iter().map(|p| p.f).sum();
        let t: f64 = pr.per_program.iter().map(|p| p.t).sum();
        assert!(close(pr.paging_rate, f / t));
        solved += 1;
    }
    assert!(solved > 10, "{solved} frame counts inside the range");
    // More frames, larger Ψ*, lower paging rate.
    let a = predict(&cs, lo.ceil() as u32 + 2).unwrap();
    let b = predict(&cs, hi.floor() as u32 - 2).unwrap();
    assert!(b.psi_star > a.psi_star && b.paging_rate < a.paging_rate);
}

#[test]
fn results_round_trip_through_json() {
    let c = psi_curve(&locality_string(5_000, 3), &[1, 2, 4, 8, 16], MS).unwrap();
    // serde_json reads floats back to within an ulp or so (no float_roundtrip feature).
    let near = |a: f64, b: f64| (a - b).abs() <= 1e-14 * a.abs().max(b.abs());
    let back: PsiCurve = serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
    assert_eq!(
        (back.model, back.pages, back.psi_c),
        (c.model, c.pages, c.psi_c)
    );
    for (x, y) in back.points.iter().zip(&c.points) {
        assert_eq!(
            (x.psi, x.references, x.faults, x.ios),
            (y.psi, y.references, y.faults, y.ios)
        );
        assert!(near(x.a, y.a) && near(x.r, y.r) && near(x.t, y.t) && near(x.f, y.f));
    }
    let pr = predict(std::slice::from_ref(&c), 10).unwrap();
    let text = serde_json::to_string(&pr).unwrap();
    let back: Prediction = serde_json::from_str(&text).unwrap();
    assert_eq!(back.bound, pr.bound);
    assert!(near(back.psi_star, pr.psi_star) && near(back.paging_rate, pr.paging_rate));
    assert!(text.contains(r#""bound":"solved""#), "{text}");
}

#[test]
fn prediction_errors_name_the_argument() {
    let c = psi_curve(&locality_string(2_000, 3), &[10, 20], MS).unwrap();
    let d = psi_curve(&locality_string(2_000, 4), &[1, 5], MS).unwrap();
    let e = predict(&[c.clone(), d], 10).unwrap_err().to_string();
    assert!(e.starts_with("characteristics"), "{e}");
    let mut bad = c.clone();
    bad.points.reverse();
    let e = predict(&[bad], 10).unwrap_err().to_string();
    assert!(e.contains("characteristics[0].points[1].psi"), "{e}");
}

/// Figures for docs/psi.md: the characteristics of the M44 programs and the one-pass speed.
/// `cargo test --release -p pagelab-trace --test integration psi_figures -- --ignored --nocapture`
#[test]
#[ignore = "measurement; run in release"]
fn psi_figures_of_the_m44_programs() {
    use pagelab_trace::gen::{generate, M44Params, M44Program};
    let psis: Vec<u32> = (0..=30).collect();
    for prog in M44Program::ALL {
        let g = generate(prog, &M44Params::default(), 1).unwrap();
        let runs = g.source().runs().to_vec();
        for io in [0u64, 20_000] {
            let m = PsiModel {
                refs_per_io: io,
                ..PsiModel::default()
            };
            let t0 = std::time::Instant::now();
            let c = psi_curve(&runs, &psis, m).unwrap();
            let wall = t0.elapsed().as_secs_f64();
            let n = c.points[0].references;
            let at = |p: u32| c.at(p).unwrap();
            println!(
                "{:<10} io={:<6} refs={:>10} runs={:>9} pages={:>4} A(1,5,10,20,30)={:.1},{:.1},{:.1},{:.1},{:.1} \
                 R(1,10,30)={:.0},{:.0},{:.0}/s f(10)={:.3} psi_c={:?} beta={:.3?} below={:.3?} \
                 {:.3}s {:.1}M runs/s",
                prog.name(),
                io,
                n,
                runs.len(),
                c.pages,
                at(1).a,
                at(5).a,
                at(10).a,
                at(20).a,
                at(30).a,
                at(1).r,
                at(10).r,
                at(30).r,
                at(10).f,
                c.psi_c,
                c.beta,
                c.slope_below,
                wall,
                runs.len() as f64 / wall / 1e6,
            );
        }
    }
}

/// Programs run together under round robin on one global CLOCK (the core-table scan of
/// Bard 1975 section 2): each program runs until its next interruption (a page exception, after
/// which the faulting reference completes, or its I/O point), then the next one runs. Strings
/// restart when they end so that the mix stays the same. Returns page exceptions per CPU second
/// after `warmup` references.
fn round_robin_paging_rate(
    progs: &[Vec<Run>],
    frames: u32,
    m: PsiModel,
    warmup: u64,
    total: u64,
) -> f64 {
    use pagelab_trace::policy::clock::{Clock, ClockSpec};
    use pagelab_trace::policy::{Memory, Replacement};
    let bound: Vec<u32> = progs
        .iter()
        .map(|r| r.iter().map(|x| x.page + 1).max().unwrap_or(0))
        .collect();
    let offset: Vec<u32> = bound
        .iter()
        .scan(0, |s, &b| {
            let o = *s;
            *s += b;
            Some(o)
        })
        .collect();
    let pages: u32 = bound.iter().sum();
    let mut clock = Clock::new(&ClockSpec::default(), frames, pages).unwrap();
    let mut mem = Memory::new(pages);
    // Per program: run index, references done in the run, references done, next I/O point.
    let mut st: Vec<(usize, u32, u64, u64)> =
        progs.iter().map(|_| (0, 0, 0, m.refs_per_io)).collect();
    let (mut now, mut faults) = (0u64, 0u64);
    'outer: loop {
        for (i, runs) in progs.iter().enumerate() {
            let (pos, done, refs, next_io) = &mut st[i];
            loop {
                if now >= total {
                    break 'outer;
                }
                let r = runs[*pos];
                let mut seg = u64::from(r.count - *done);
                if m.refs_per_io > 0 {
                    seg = seg.min(*next_io - *refs);
                }
                let hit = clock.reference(offset[i] + r.page, 1, now, &mut mem);
                if !hit && now >= warmup {
                    faults += 1;
                }
                *refs += seg;
                now += seg;
                *done += seg as u32;
                if *done == r.count {
                    *done = 0;
                    *pos = (*pos + 1) % runs.len();
                }
                let io = m.refs_per_io > 0 && *refs == *next_io;
                if io {
                    *next_io += m.refs_per_io;
                }
                if io || !hit {
                    break;
                }
            }
        }
    }
    faults as f64 / ((total - warmup) as f64 * m.reference_time)
}

/// Prediction (eqs. 1-2) against the round-robin simulation for a mix of the M44 programs.
/// `cargo test --release -p pagelab-trace --test integration psi_prediction -- --ignored --nocapture`
#[test]
#[ignore = "measurement; run in release"]
fn psi_prediction_against_round_robin() {
    use pagelab_trace::gen::{generate, M44Params, M44Program};
    let m = PsiModel {
        refs_per_io: 20_000,
        ..PsiModel::default()
    };
    let psis: Vec<u32> = (0..=60).collect();
    let mixes: [&[M44Program]; 2] = [
        &[
            M44Program::T1_1X,
            M44Program::T2_1X,
            M44Program::T4_1XQStar,
            M44Program::T4_1XQR,
        ],
        &[
            M44Program::T1_1XStar,
            M44Program::T2_1XStar,
            M44Program::T4_1XQ,
            M44Program::T4_1XQRStar,
        ],
    ];
    for mix in mixes {
        let progs: Vec<Vec<Run>> = mix
            .iter()
            .map(|&p| {
                generate(p, &M44Params::default(), 1)
                    .unwrap()
                    .source()
                    .runs()
                    .to_vec()
            })
            .collect();
        let cs: Vec<PsiCurve> = progs
            .iter()
            .map(|r| psi_curve(r, &psis, m).unwrap())
            .collect();
        let names: Vec<&str> = mix.iter().map(|p| p.name()).collect();
        println!("mix {names:?}");
        for frames in [20, 30, 40, 60, 80, 100, 130] {
            let pr = predict(&cs, frames).unwrap();
            let t0 = std::time::Instant::now();
            let sim = round_robin_paging_rate(&progs, frames, m, 5_000_000, 65_000_000);
            println!(
                "  N={frames:>3} psi*={:>6.2} ({:?}) predicted P={:>8.1}/s simulated P={:>8.1}/s ratio={:.3} ({:.1}s)",
                pr.psi_star,
                pr.bound,
                pr.paging_rate,
                sim,
                pr.paging_rate / sim,
                t0.elapsed().as_secs_f64()
            );
        }
    }
}
