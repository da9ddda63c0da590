use super::*;
use pagelab_core::RngStreams;

fn run(
    v: CorrelationVersion,
    c: &CorrelationParams,
    seed: u64,
) -> (
    Solution,
    ResultCheck,
    Vec<super::super::memory::Segment>,
    Vec<u64>,
) {
    let ex = generate_exercise(c, &mut RngStreams::new(seed).stream("t2", 0));
    let mut mem = TracedMemory::new(1024, 1 << 21).unwrap();
    let (sol, check) = run_program(&mut mem, v, c, 256, &ex).unwrap();
    let (_, map, _, segs) = mem.finish();
    (sol, check, segs, map)
}

#[test]
fn converges_to_the_true_tracks_in_both_versions_identically() {
    let c = CorrelationParams::default();
    let (a, ca, _, _) = run(CorrelationVersion::FieldArrays, &c, 11);
    let (b, cb, _, _) = run(CorrelationVersion::RecordArray, &c, 11);
    assert!(ca.passed && cb.passed, "{ca:?}");
    assert_eq!(
        a.params, b.params,
        "layout changes addresses, not arithmetic"
    );
    assert!(a.iterations >= 2 && a.iterations < 20);
    // Noise of 0.2–0.5 nmi over 240 reports: the fitted tracks lie well within a mile of
    // the truth, and the normalised residuals have mean square near one.
    assert!(a.track_error < 1.0, "{}", a.track_error);
    assert!(
        (0.6..1.5).contains(&a.chi2_per_observation),
        "{}",
        a.chi2_per_observation
    );
    // Each track point is 5 words; every report appears once per ship it involves: fixes
    // once, sightings twice.
    assert_eq!(a.track.len() % 5, 0);
    assert!(a.track.len() / 5 > 240 && a.track.len() / 5 <= 480);
}

#[test]
fn data_base_takes_the_papers_page_counts() {
    // B&G 1968, Problem T2: 4 pages for T2.1X*, 13 pages of fixed arrays for T2.1X.
    let c = CorrelationParams::default();
    let count = |v, prefix: &str| {
        let (_, _, segs, map) = run(v, &c, 1);
        let spans: Vec<(u64, u64)> = segs
            .iter()
            .filter(|s| s.name.starts_with(prefix))
            .map(|s| (s.base / 1024, (s.base + s.words - 1) / 1024))
            .collect();
        let allocated = spans.last().unwrap().1 - spans[0].0 + 1;
        let referenced = map
            .iter()
            .filter(|&&vp| spans.iter().any(|&(a, b)| vp >= a && vp <= b))
            .count();
        (allocated, referenced)
    };
    assert_eq!(count(CorrelationVersion::RecordArray, "data array"), (4, 4));
    let (alloc, refd) = count(CorrelationVersion::FieldArrays, "field array");
    assert_eq!(alloc, 13);
    assert!((12..=13).contains(&refd), "{refd}");
}

#[test]
fn a_hopeless_iteration_limit_fails_the_check_but_not_the_run() {
    let c = CorrelationParams {
        max_iterations: 1,
        ..CorrelationParams::default()
    };
    let (s, check, _, _) = run(CorrelationVersion::RecordArray, &c, 3);
    assert_eq!(s.iterations, 1);
    assert!(!check.passed);
}
