//! One-pass curves against per-size simulation.

use super::*;
use crate::policy::{simulate, NextUse};
use crate::{AccessKind, VecSource};
use proptest::prelude::*;

fn spec(s: &str) -> PolicySpec {
    serde_json::from_str(s).unwrap()
}

fn arb_runs(max_page: u32, max_len: usize) -> impl Strategy<Value = Vec<Run>> {
    prop::collection::vec((0..max_page, 1u32..4, 0u8..4), 1..max_len).prop_map(|v| {
        v.into_iter()
            .map(|(p, c, k)| Run::new(p, c, AccessKind::from_code(k).unwrap()))
            .collect()
    })
}

#[test]
fn lru_curve_textbook() {
    let s = VecSource::from_pages(&[7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1]);
    let c = lru_curve(s.runs(), 0);
    assert_eq!(c.at(3).unwrap().faults, 12);
    assert_eq!(c.points.len(), 6);
    assert_eq!(c.at(6).unwrap().faults, 6);
    let o = opt_curve(&NextUse::compute(s.runs()), 0);
    assert_eq!(o.at(3).unwrap().faults, 9);
}

#[test]
fn lru_pushes_hand_worked() {
    // Page 0 written, then 1, 2, then 0 again (distance 3). With 1 or 2 frames 0 was
    // reclaimed changed: one push; with 3 frames it stayed.
    let r = vec![
        Run::new(0, 1, AccessKind::Store),
        Run::new(1, 1, AccessKind::Load),
        Run::new(2, 1, AccessKind::Load),
        Run::new(0, 1, AccessKind::Load),
        Run::new(1, 1, AccessKind::Load),
    ];
    let c = lru_curve(&r, 0);
    let p: Vec<_> = c.points.iter().map(|p| p.pushes.unwrap()).collect();
    assert_eq!(p, vec![1, 1, 0]);
}

#[test]
fn lru_stack_compacts_and_streams() {
    // More runs than the tree's initial capacity over few pages.
    let r: Vec<Run> = (0..50_000u32)
        .map(|i| {
            Run::new(
                (i * 31 + i / 7) % 300,
                1 + i % 2,
                AccessKind::from_code((i % 4) as u8).unwrap(),
            )
        })
        .collect();
    let c = lru_curve(&r, 1000);
    let mut st = LruStack::new(0, 1000);
    st.push_source(&mut VecSource::new(r.clone())).unwrap();
    assert_eq!(st.finish(), c);
    for k in [1, 7, 50, 150, 299, 300] {
        let o = simulate(&spec(r#"{"kind":"lru"}"#), &r, k, 1000).unwrap();
        assert_eq!(c.at(k).unwrap(), &CurvePoint::from(&o), "size {k}");
    }
}

#[test]
fn lru_stack_grows_its_marks_on_a_stream() {
    // 6 000 pages from a source that does not announce them: the marks start at 4 096 slots
    // and must double while compacting.
    struct Blind(VecSource);
    impl ReferenceSource for Blind {
        fn next_batch(&mut self, out: &mut Vec<Run>) -> Result<bool, TraceError> {
            self.0.next_batch(out)
        }
    }
    let r: Vec<Run> = (0..60_000u32)
        .map(|i| {
            Run::new(
                (i.wrapping_mul(2_654_435_761) >> 7) % 6_000,
                1,
                AccessKind::Load,
            )
        })
        .collect();
    let c = lru_curve(&r, 0);
    let mut st = LruStack::new(0, 0);
    st.push_source(&mut Blind(VecSource::new(r.clone())))
        .unwrap();
    assert_eq!(st.into_curve(), c);
    for k in [1, 100, 2_500, 5_999] {
        let o = simulate(&spec(r#"{"kind":"lru"}"#), &r, k, 0).unwrap();
        assert_eq!(c.at(k).unwrap(), &CurvePoint::from(&o), "size {k}");
    }
}

#[test]
fn runtime_model_m44() {
    let m = RunTimeModel::default();
    assert!((m.run_time(1_000_000, 100) - (10.0 + 21.0)).abs() < 1e-9);
    let c = Curve {
        policy: "fifo".into(),
        warmup: 0,
        points: vec![CurvePoint::new(4, 100_000, 10, None)],
    };
    assert!((m.apply(&c)[0].run_time - 3.1).abs() < 1e-9);
}

#[test]
fn select_extends_beyond_pages() {
    let s = VecSource::from_pages(&[1, 2, 1, 3]);
    let c = lru_curve(s.runs(), 0).select(&[2, 10]);
    assert_eq!(c.points[1].frames, 10);
    assert_eq!(c.points[1].faults, 3);
}

#[test]
fn ws_curve_rejects_bad_windows() {
    let s = VecSource::from_pages(&[1, 2]);
    assert!(ws_curve(s.runs(), &[0]).is_err());
    let mut h = WsHistogram::new(5).unwrap();
    h.push_runs(s.runs());
    assert!(h.finish(&[6]).is_err());
}

#[test]
fn curve_and_curve_stream_agree_with_simulation() {
    let r: Vec<Run> = (0..20_000u32)
        .map(|i| {
            Run::new(
                (i * 7 + i / 13) % 150,
                1 + i % 3,
                AccessKind::from_code((i % 4) as u8).unwrap(),
            )
        })
        .collect();
    let sizes = [3, 1, 40, 149, 150, 500];
    for s in [
        r#"{"kind":"lru"}"#,
        r#"{"kind":"fifo"}"#,
        r#"{"kind":"arc"}"#,
        r#"{"kind":"ws","tau":50}"#,
    ] {
        let sp = spec(s);
        let want = curve_by_simulation(&sp, &r, &sizes, 300).unwrap();
        assert_eq!(curve(&sp, &r, &sizes, 300).unwrap(), want, "{s}");
        let got = curve_stream(&sp, &mut VecSource::new(r.clone()), &sizes, 300).unwrap();
        assert_eq!(got, want, "{s}");
    }
    assert!(curve_stream(
        &spec(r#"{"kind":"min"}"#),
        &mut VecSource::new(r.clone()),
        &sizes,
        0
    )
    .is_err());
    assert!(curve(&spec(r#"{"kind":"lru"}"#), &r, &[1, 2, 0, 4], 0).is_err());
}

proptest! {
    #[test]
    fn lru_curve_equals_simulation(r in arb_runs(20, 200), w in 0u64..50) {
        let c = lru_curve(&r, w);
        let sp = spec(r#"{"kind":"lru"}"#);
        for p in &c.points {
            let o = simulate(&sp, &r, p.frames, w).unwrap();
            prop_assert_eq!(p, &CurvePoint::from(&o));
        }
    }

    #[test]
    fn opt_curve_equals_simulation(r in arb_runs(20, 200), w in 0u64..50) {
        let c = opt_curve(&NextUse::compute(&r), w);
        let sp = spec(r#"{"kind":"min"}"#);
        for p in &c.points {
            let o = simulate(&sp, &r, p.frames, w).unwrap();
            prop_assert_eq!(p.faults, o.measured.faults, "size {}", p.frames);
            prop_assert_eq!(p.references, o.measured.references);
        }
    }

    #[test]
    fn truncated_opt_curve_is_exact_up_to_its_depth(r in arb_runs(25, 200), m in 1u32..12) {
        let nu = NextUse::compute(&r);
        let full = opt_curve(&nu, 5);
        let cut = opt_curve_upto(&nu, 5, m);
        prop_assert_eq!(cut.points.len(), full.points.len().min(m as usize));
        for p in &cut.points {
            prop_assert_eq!(p, full.at(p.frames).unwrap());
        }
    }

    #[test]
    fn ws_curve_equals_simulation(r in arb_runs(20, 200), taus in prop::collection::vec(1u64..60, 1..6)) {
        let c = ws_curve(&r, &taus).unwrap();
        for p in &c.points {
            let o = simulate(&PolicySpec::Ws(crate::policy::ws::WsSpec { tau: p.tau }), &r, 1, 0).unwrap();
            prop_assert_eq!(p.faults, o.measured.faults, "tau {}", p.tau);
            prop_assert_eq!(p.mean_size, o.mean_resident.unwrap(), "tau {}", p.tau);
            prop_assert!(p.mean_size <= p.mean_size_ds + 1e-12);
        }
    }

    #[test]
    fn curve_by_simulation_matches(r in arb_runs(15, 100)) {
        for s in [r#"{"kind":"fifo"}"#, r#"{"kind":"clock"}"#, r#"{"kind":"lru"}"#] {
            let c = curve_by_simulation(&spec(s), &r, &[5, 1, 3], 0).unwrap();
            prop_assert_eq!(c.points.iter().map(|p| p.frames).collect::<Vec<_>>(), vec![5, 1, 3]);
            if s.contains("lru") {
                let l = lru_curve(&r, 0).select(&[5, 1, 3]);
                prop_assert_eq!(l.points, c.points);
            }
        }
    }
}
