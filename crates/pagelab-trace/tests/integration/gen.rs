//! The M44/44X programs through the public API: determinism, dense pages, maximal runs, result
//! checks, and (ignored by default) the full-size figures.

use pagelab_trace::gen::{generate, Generated, M44Params, M44Program, INFO};
use pagelab_trace::{ReferenceSource, VecSource};
use proptest::prelude::*;

/// Sizes small enough for a debug build: order 6, 3 ships and 30 reports, 200 items.
fn small() -> M44Params {
    let mut p = M44Params {
        page_words: 64,
        ..M44Params::default()
    };
    p.matrix.n = 6;
    p.matrix.fixed_dim = 9;
    p.correlation.ships = 3;
    p.correlation.reports = 30;
    p.correlation.fixed_dim = 50;
    p.sort.items = 200;
    p.sort.sublists = 4;
    p.buffer_words = 16;
    p
}

fn assert_well_formed(g: &Generated) {
    let mut seen = 0u32;
    for r in &g.runs {
        assert!(r.count > 0);
        assert!(r.page <= seen, "page {} before {} was seen", r.page, seen);
        if r.page == seen {
            seen += 1;
        }
    }
    assert_eq!(seen as usize, g.page_map.len(), "pages are dense");
    for w in g.runs.windows(2) {
        assert!(
            w[0].page != w[1].page || w[0].kind != w[1].kind,
            "runs are merged maximally: {:?}",
            w
        );
    }
    let mut m = g.page_map.clone();
    m.sort_unstable();
    m.dedup();
    assert_eq!(m.len(), g.page_map.len(), "the page map is one-to-one");
    let total: u64 = g.runs.iter().map(|r| u64::from(r.count)).sum();
    assert_eq!(total, g.n_references);
}

#[test]
fn every_program_small_is_correct_dense_merged_and_deterministic() {
    let p = small();
    for prog in M44Program::ALL {
        let a = generate(prog, &p, 7).unwrap();
        assert!(a.check.passed, "{}: {:?}", prog.label(), a.check);
        assert_well_formed(&a);
        let b = generate(prog, &p, 7).unwrap();
        assert_eq!(a.runs, b.runs, "{} deterministic", prog.label());
        assert_eq!(a.page_map, b.page_map);
        let c = generate(prog, &p, 8).unwrap();
        assert!(c.check.passed);
        if !matches!(
            prog,
            M44Program::T1_1X | M44Program::T1_1XStar | M44Program::T1_1XStarStar
        ) {
            assert_ne!(
                a.runs,
                c.runs,
                "{}: another seed, another string",
                prog.label()
            );
        }
    }
}

#[test]
fn generated_serves_as_a_reference_source() {
    let g = generate(M44Program::T4_1XQRStar, &small(), 1).unwrap();
    let runs = g.runs.clone();
    let mut src: VecSource = g.into();
    assert_eq!(
        src.page_bound(),
        Some(runs.iter().map(|r| r.page + 1).max().unwrap())
    );
    let mut out = Vec::new();
    while src.next_batch(&mut out).unwrap() {}
    assert_eq!(out, runs);
}

#[test]
fn names_round_trip_through_serde_and_the_table() {
    for i in INFO {
        let json = serde_json::to_string(&i.program).unwrap();
        assert_eq!(json, format!("\"{}\"", i.name));
        let back: M44Program = serde_json::from_str(&json).unwrap();
        assert_eq!(back, i.program);
        assert_eq!(M44Program::from_name(i.label).unwrap(), i.program);
    }
    assert_eq!(INFO.len(), 9);
    let e = M44Program::from_name("t9").unwrap_err().to_string();
    assert!(e.starts_with("program: expected one of t1-1x"), "{e}");
}

#[test]
fn bad_parameters_are_errors_naming_the_key() {
    let mut p = small();
    p.matrix.fixed_dim = 3;
    let e = generate(M44Program::T1_1X, &p, 1).unwrap_err().to_string();
    assert!(e.starts_with("matrix.fixed_dim"), "{e}");
    let mut p = small();
    p.sort.sublists = 0;
    let e = generate(M44Program::T4_1XQStar, &p, 1)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("sort.sublists"), "{e}");
    let mut p = small();
    p.correlation.fixed_dim = 10;
    let e = generate(M44Program::T2_1X, &p, 1).unwrap_err().to_string();
    assert!(e.starts_with("correlation.fixed_dim"), "{e}");
    let mut p = small();
    p.page_words = 0;
    assert!(generate(M44Program::T2_1XStar, &p, 1)
        .unwrap_err()
        .to_string()
        .starts_with("page_words"));
    let mut p = small();
    // The program alone (the 44X OS below it would not fit first).
    p.runtime.enabled = false;
    p.address_space_words = 1000;
    let e = generate(M44Program::T4_1XQ, &p, 1).unwrap_err().to_string();
    assert!(
        e.starts_with("sort.items") && e.contains("address_space_words"),
        "{e}"
    );
    // Data that fits but code and buffers that do not: the allocator names the segment.
    p.address_space_words = 2100;
    let e = generate(M44Program::T4_1XQ, &p, 1).unwrap_err().to_string();
    assert!(
        e.starts_with("address_space_words") && e.contains("FILE"),
        "{e}"
    );
    for (key, edit) in [
        (
            "matrix.n",
            (|p: &mut M44Params| p.matrix.n = u64::MAX) as fn(&mut M44Params),
        ),
        ("sort.items", |p: &mut M44Params| p.sort.items = 1 << 40),
        ("correlation.reports", |p: &mut M44Params| {
            p.correlation.reports = 1 << 40
        }),
        ("correlation.duration_hours", |p: &mut M44Params| {
            p.correlation.duration_hours = f64::NAN
        }),
    ] {
        let mut p = small();
        p.correlation.fixed_dim = u64::MAX;
        edit(&mut p);
        let prog = match key.split('.').next() {
            Some("matrix") => M44Program::T1_1XStar,
            Some("sort") => M44Program::T4_1XQ,
            _ => M44Program::T2_1XStar,
        };
        let e = generate(prog, &p, 1).unwrap_err().to_string();
        assert!(e.starts_with(key), "{key}: {e}");
    }
    let bad: Result<M44Params, _> = serde_json::from_str(r#"{"sort": {"itmes": 5}}"#);
    assert!(bad.unwrap_err().to_string().contains("itmes"));
}

#[test]
fn improved_versions_touch_no_more_pages_than_casual_ones() {
    // At a moderate size the variable-dimension matrix needs fewer pages than the fixed array,
    // and the record layout of T2 fewer than the field arrays.
    let mut p = small();
    p.matrix.n = 20;
    p.matrix.fixed_dim = 30;
    let casual = generate(M44Program::T1_1X, &p, 3).unwrap().n_pages();
    let compact = generate(M44Program::T1_1XStarStar, &p, 3)
        .unwrap()
        .n_pages();
    assert!(compact < casual, "{compact} < {casual}");
    let f = generate(M44Program::T2_1X, &p, 3).unwrap().n_pages();
    let r = generate(M44Program::T2_1XStar, &p, 3).unwrap().n_pages();
    assert!(r < f, "{r} < {f}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    #[test]
    fn sorts_are_correct_for_any_size(items in 1u64..120, sub in 1u64..8, rw in 2u64..5,
                                      page in 8u32..100, seed in 0u64..1000) {
        let mut p = small();
        p.sort.items = items;
        p.sort.sublists = sub.min(items);
        p.sort.record_words = rw;
        p.page_words = page;
        for prog in [M44Program::T4_1XQ, M44Program::T4_1XQStar, M44Program::T4_1XQR,
                     M44Program::T4_1XQRStar] {
            let g = generate(prog, &p, seed).unwrap();
            prop_assert!(g.check.passed, "{:?}", g.check);
            assert_well_formed(&g);
        }
    }

    #[test]
    fn inversions_check_for_any_order(n in 1u64..9, page in 4u32..64, seed in 0u64..1000) {
        let mut p = small();
        p.matrix.n = n;
        p.matrix.fixed_dim = n + 2;
        p.page_words = page;
        for prog in [M44Program::T1_1X, M44Program::T1_1XStar, M44Program::T1_1XStarStar] {
            let g = generate(prog, &p, seed).unwrap();
            prop_assert!(g.check.passed, "{:?}", g.check);
            assert_well_formed(&g);
        }
    }
}

/// B&G 1968, Problem T4, at the paper's size: the casual sort "deprived of only a small amount
/// of its required store ... behaves very badly", while T4.1XQR* keeps a working set of about 13
/// pages ("N pages plus instruction and control pages").
#[test]
fn sort_versions_show_the_papers_working_sets() {
    let p = M44Params::default();
    let casual = generate(M44Program::T4_1XQ, &p, 2).unwrap();
    let best = generate(M44Program::T4_1XQRStar, &p, 2).unwrap();
    // Deprived of about a tenth of the pages it uses while it runs (the 44X OS's job pages are
    // touched only when it starts and ends).
    let needed = casual.n_pages() - casual.pages_in("44X OS job pages");
    let pulls = fifo_pulls(&casual, needed - 12);
    assert!(
        pulls > 20 * u64::from(needed),
        "{pulls} pulls at {} frames",
        needed - 12
    );
    assert!(fifo_pulls(&best, 16) < 3 * u64::from(best.n_pages()));
    assert!(fifo_pulls(&best, 10) > 100 * u64::from(best.n_pages()));
}

/// The paper-size figures: `cargo test -p pagelab-trace --release --test integration --
/// --ignored --nocapture full_size`.
#[test]
#[ignore]
fn full_size_figures() {
    let p = M44Params::default();
    let mut generating = 0.0;
    for prog in M44Program::ALL {
        let t = std::time::Instant::now();
        let g = generate(prog, &p, 1).unwrap();
        generating += t.elapsed().as_secs_f64();
        println!(
            "{:9} refs {:>11} runs {:>10} pages {:>4} extent {:>6} words  paper {:>4}  {:.2}s  check {} {:.3e} <= {:.0e} {}",
            prog.label(),
            g.n_references,
            g.runs.len(),
            g.n_pages(),
            g.extent_words,
            prog.paper_pages().map(|x| x.0.to_string()).unwrap_or("-".into()),
            t.elapsed().as_secs_f64(),
            g.check.passed,
            g.check.value,
            g.check.limit,
            g.check.detail
        );
        println!(
            "          data pages referenced: FILE {} PTR {} field arrays {} DATA {} array A {}",
            g.pages_in("file FILE"),
            g.pages_in("pointer table"),
            g.pages_in("field array"),
            g.pages_in("data array"),
            g.pages_in("array A")
        );
        for s in &g.segments {
            println!(
                "          {:40} {:>8} {:>7} words  pages {}..{}",
                s.name,
                s.base,
                s.words,
                s.base / u64::from(g.page_words),
                (s.base + s.words.max(1) - 1) / u64::from(g.page_words)
            );
        }
        assert!(g.check.passed);
        let sizes = [128u32, 96, 64, 48, 32, 16, 13, 8];
        let pulls: Vec<String> = sizes
            .iter()
            .map(|&f| format!("{f}:{}", fifo_pulls(&g, f)))
            .collect();
        println!("          FIFO pulls by frames {}", pulls.join(" "));
        let pulls: Vec<String> = sizes
            .iter()
            .map(|&f| format!("{f}:{}", min_pulls(&g, f)))
            .collect();
        println!("          MIN  pulls by frames {}", pulls.join(" "));
    }
    println!("all nine generated in {generating:.2}s");
}

/// Page pulls under FIFO with `frames` frames (a run faults at most once: its first reference).
fn fifo_pulls(g: &Generated, frames: u32) -> u64 {
    let mut resident = vec![false; g.page_map.len()];
    let mut queue = std::collections::VecDeque::new();
    let mut pulls = 0;
    for r in &g.runs {
        let p = r.page as usize;
        if !resident[p] {
            pulls += 1;
            if queue.len() == frames as usize {
                let v: usize = queue.pop_front().unwrap();
                resident[v] = false;
            }
            resident[p] = true;
            queue.push_back(p);
        }
    }
    pulls
}

/// Page pulls under Belady's MIN with `frames` frames: on a fault with every frame full, the
/// resident page whose next reference is farthest away (or never comes) leaves.
fn min_pulls(g: &Generated, frames: u32) -> u64 {
    let n = g.runs.len();
    let mut next = vec![usize::MAX; n];
    let mut last = vec![usize::MAX; g.page_map.len()];
    for i in (0..n).rev() {
        let p = g.runs[i].page as usize;
        next[i] = last[p];
        last[p] = i;
    }
    let mut resident = vec![false; g.page_map.len()];
    let mut next_use = vec![0usize; g.page_map.len()];
    let mut heap = std::collections::BinaryHeap::new();
    let (mut used, mut pulls) = (0u32, 0u64);
    for (i, r) in g.runs.iter().enumerate() {
        let p = r.page as usize;
        if !resident[p] {
            pulls += 1;
            if used == frames {
                loop {
                    let (nu, v): (usize, usize) = heap.pop().unwrap();
                    if resident[v] && next_use[v] == nu {
                        resident[v] = false;
                        break;
                    }
                }
            } else {
                used += 1;
            }
            resident[p] = true;
        }
        next_use[p] = next[i];
        heap.push((next[i], p));
    }
    pulls
}
