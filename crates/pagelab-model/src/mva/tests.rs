use super::*;

/// Jain, *The Art of Computer Systems Performance Analysis* (Wiley 1991), ch. 35,
/// Example 35.5: three terminals thinking Z = 4.68 in front of a CPU (demand 0.78) and two
/// disks (2.34, 1.56). The book gives X = 0.264, R = 6.694, utilisations 0.206, 0.618,
/// 0.412 and 0.97 jobs at disk A.
fn jain_35_5() -> (Vec<Kind>, Vec<f64>, f64) {
    let q = Kind::Queue { servers: 1 };
    (vec![q, q, q], vec![0.78, 2.34, 1.56], 4.68)
}

/// One copy of a station of each kind.
fn one_copy_each(kinds: &[Kind]) -> Vec<Station> {
    kinds
        .iter()
        .map(|&kind| Station {
            name: String::new(),
            kind,
            copies: 1,
        })
        .collect()
}

#[test]
fn exact_mva_gives_jain_example_35_5() {
    let (k, d, z) = jain_35_5();
    let s = &exact(&k, &d, z, 3)[2];
    assert!((s.x[0] - 0.264).abs() < 5e-4, "{s:?}");
    assert!((s.r[0] - 6.694).abs() < 5e-4);
    // The book multiplies its rounded X by the demands.
    for (u, want) in s.u.iter().zip([0.206, 0.618, 0.412]) {
        assert!((u - want).abs() < 2e-3, "{u} {want}");
    }
    assert!((s.q[1] - 0.97).abs() < 5e-3);
    // The interactive response time law: N = X (R + Z).
    assert!((s.x[0] * (s.r[0] + z) - 3.0).abs() < 1e-9);
}

#[test]
fn schweitzer_stays_within_five_percent_of_exact_on_jain_35_5() {
    let (k, d, z) = jain_35_5();
    let st = one_copy_each(&k);
    for n in 1..=20u32 {
        let e = &exact(&k, &d, z, n)[n as usize - 1];
        let a = schweitzer(&st, std::slice::from_ref(&d), &[f64::from(n)], &[z]);
        assert!((a.x[0] / e.x[0] - 1.0).abs() < 0.05, "n {n}: {a:?} {e:?}");
    }
}

#[test]
fn two_identical_classes_solve_as_one() {
    let st = vec![
        Station {
            name: "cpu".into(),
            kind: Kind::Queue { servers: 2 },
            copies: 1,
        },
        Station {
            name: "disk".into(),
            kind: Kind::Queue { servers: 1 },
            copies: 3,
        },
    ];
    let d = vec![0.2, 0.1];
    let one = schweitzer(&st, std::slice::from_ref(&d), &[12.0], &[1.0]);
    let two = schweitzer(&st, &[d.clone(), d], &[6.0, 6.0], &[1.0, 1.0]);
    assert!((two.x[0] + two.x[1] - one.x[0]).abs() < 1e-6 * one.x[0]);
    assert!((two.u[0] - one.u[0]).abs() < 1e-9);
}

#[test]
fn fifo_bursts_of_equal_length_solve_as_processor_sharing_and_long_bursts_wait_less() {
    let st = vec![Station::queue("cpu", 1), Station::queue("disk", 2)];
    let d = vec![vec![0.3, 0.1], vec![2.0, 0.4]];
    let (n, z) = ([4.0, 2.0], [0.0, 0.0]);
    let ps = schweitzer(&st, &d, &n, &z);
    // Bursts of 10 ms for both classes: the processor-sharing form.
    let equal = vec![vec![30.0, 0.0], vec![200.0, 0.0]];
    let same = schweitzer_visits(&st, &d, Some(&equal), &n, &z);
    assert!((same.x[0] - ps.x[0]).abs() < 1e-9 && (same.x[1] - ps.x[1]).abs() < 1e-9);
    // The second class's bursts five times longer: it waits behind short ones, the first
    // class behind long ones.
    let unequal = vec![vec![30.0, 0.0], vec![40.0, 0.0]];
    let fifo = schweitzer_visits(&st, &d, Some(&unequal), &n, &z);
    assert!(
        fifo.x[1] > ps.x[1] && fifo.x[0] < ps.x[0],
        "{fifo:?} {ps:?}"
    );
}

#[test]
fn a_flow_equivalent_server_reproduces_the_network_it_replaces() {
    // Chandy, Herzog and Woo's theorem: the central subsystem's throughput with k customers
    // and no think time, used as a load-dependent rate, gives the whole network's throughput
    // (exact for product-form networks; QSP ch. 8).
    let (k, d, z) = jain_35_5();
    let n = 25u32;
    let mu: Vec<f64> = exact(&k, &d, 0.0, n).iter().map(|s| s.x[0]).collect();
    let p = terminals_and_fes(n, z, &mu);
    let x: f64 = (1..=n as usize).map(|j| p[j] * mu[j - 1]).sum();
    let full = &exact(&k, &d, z, n)[n as usize - 1];
    assert!((x / full.x[0] - 1.0).abs() < 1e-9, "{x} {}", full.x[0]);
    let busy: f64 = (1..=n as usize).map(|j| p[j] * f64::from(j as u32)).sum();
    assert!((busy - full.x[0] * full.r[0]).abs() < 1e-6);
}

#[test]
fn no_think_time_keeps_every_customer_at_the_station() {
    let p = terminals_and_fes(4, 0.0, &[1.0, 2.0, 3.0, 4.0]);
    assert_eq!(p, vec![0.0, 0.0, 0.0, 0.0, 1.0]);
}

#[test]
fn exact_over_copies_is_exact_mva_over_the_expanded_network() {
    // Two copies of a disk of demand 1.17 each are Jain's 35.5 with disk A split in two.
    let q = Kind::Queue { servers: 1 };
    let st = |copies| Station {
        name: String::new(),
        kind: q,
        copies,
    };
    let s = exact_one_class(&[st(1), st(2), st(1)], &[0.78, 1.17, 1.56], 7);
    let e = &exact(&[q, q, q, q], &[0.78, 1.17, 1.17, 1.56], 0.0, 7)[6];
    assert!((s.x[0] - e.x[0]).abs() < 1e-12 && (s.q[1] - e.q[1]).abs() < 1e-12);
}

/// Lazowska, Zahorjan, Graham and Sevcik, *Quantitative System Performance* (1984), ch. 7: a
/// two-class model of 10 batch jobs (no think time) and 25 terminals (30 s think) at a CPU
/// (demands 1.0 and 0.1 s) and a disk (0.09 and 0.9 s). The book's mean customers per class
/// and station, exact: CPU 9.717 batch, 0.8496 interactive; disk 0.2827, 2.0900.
fn lazowska_ch7() -> (Vec<Kind>, Vec<Vec<f64>>, Vec<u32>, Vec<f64>) {
    let q = Kind::Queue { servers: 1 };
    let d = vec![vec![1.0, 0.09], vec![0.1, 0.9]];
    (vec![q, q], d, vec![10, 25], vec![0.0, 30.0])
}

#[test]
fn exact_mva_with_two_classes_gives_the_books_queue_lengths() {
    let (k, d, n, z) = lazowska_ch7();
    let s = exact_classes(&k, &d, &n, &z).expect("small enough");
    let book = [[9.717, 0.2827], [0.8496, 2.0900]];
    for c in 0..2 {
        for (st, want) in book[c].iter().enumerate() {
            assert!((s.q[c][st] - want).abs() < 1e-3, "{c} {st}: {s:?}");
        }
        // Little's law over the whole loop: N_c = X_c (Z_c + R_c).
        assert!((s.x[c] * (z[c] + s.r[c]) - f64::from(n[c])).abs() < 1e-9);
    }
}

#[test]
fn schweitzer_with_two_classes_is_its_fixed_point_and_near_the_exact_throughputs() {
    let (k, d, n, z) = lazowska_ch7();
    let st = one_copy_each(&k);
    let pop: Vec<f64> = n.iter().map(|&c| f64::from(c)).collect();
    let s = schweitzer(&st, &d, &pop, &z);
    // The fixed point of Schweitzer's equations, iterated apart from this code: CPU 9.70613 +
    // 0.83913, disk 0.29387 + 2.29288 customers; terminals' throughput 0.728933.
    assert!((s.q[0] - (9.70613 + 0.83913)).abs() < 1e-4, "{s:?}");
    assert!((s.q[1] - (0.29387 + 2.29288)).abs() < 1e-4, "{s:?}");
    assert!((s.x[1] - 0.728933).abs() < 1e-5, "{s:?}");
    // Against the book's exact solution the approximation's throughputs are within 1 %.
    let e = exact_classes(&k, &d, &n, &z).expect("small");
    for c in 0..2 {
        assert!(
            (s.x[c] / e.x[c] - 1.0).abs() < 0.01,
            "class {c}: {s:?} {e:?}"
        );
    }
}

#[test]
fn exact_mva_with_one_class_is_the_single_class_recursion() {
    let (k, d, z) = jain_35_5();
    let one = &exact(&k, &d, z, 3)[2];
    let many = exact_classes(&k, &[d], &[3], &[z]).expect("small");
    assert!((many.x[0] - one.x[0]).abs() < 1e-12 && (many.r[0] - one.r[0]).abs() < 1e-12);
    assert!(exact_classes(&k, &vec![vec![1.0; 3]; 3], &[400, 400, 400], &[0.0; 3]).is_none());
}

/// The largest gap between two solutions' queues, each class's over its population [1].
fn queue_gap(a: &[Vec<f64>], b: &[Vec<f64>], n: &[f64]) -> f64 {
    let mut gap = 0.0f64;
    for (c, (qa, qb)) in a.iter().zip(b).enumerate() {
        for (x, y) in qa.iter().zip(qb) {
            gap = gap.max((x - y).abs() / n[c].max(1.0));
        }
    }
    gap
}

#[test]
fn a_warm_start_meets_the_cold_answer_and_from_its_own_fixed_point_sooner() {
    let (k, d, n, z) = lazowska_ch7();
    let st = one_copy_each(&k);
    let pop: Vec<f64> = n.iter().map(|&c| f64::from(c)).collect();
    let mut cold_q = Vec::new();
    let (cold, cold_sweeps) = schweitzer_counted(&st, &d, None, (&pop, &z), &mut cold_q);
    // (a) the same network's converged queues; (b) those of 2 batch jobs and 60 terminals;
    // (c) every customer of each class at the disk.
    let mut other = Vec::new();
    schweitzer_from(&st, &d, None, (&[2.0, 60.0], &z), &mut other);
    let garbage = vec![vec![0.0, 10.0], vec![0.0, 25.0]];
    let mut sweeps = Vec::new();
    for start in [cold_q.clone(), other, garbage] {
        let mut q = start;
        let (warm, s) = schweitzer_counted(&st, &d, None, (&pop, &z), &mut q);
        // A stop at a sweep's change below TOLERANCE leaves the fixed point within a few
        // times that when the iteration contracts fast.
        assert!(
            queue_gap(&q, &cold_q, &pop) < 10.0 * TOLERANCE,
            "{q:?} {cold_q:?}"
        );
        for c in 0..2 {
            assert!(
                (warm.x[c] / cold.x[c] - 1.0).abs() < 10.0 * TOLERANCE,
                "{warm:?}"
            );
        }
        sweeps.push(s);
    }
    assert!(sweeps[0] < cold_sweeps, "{sweeps:?} against {cold_sweeps}");
    assert!(
        sweeps[0] <= 2,
        "a converged start stops at once: {sweeps:?}"
    );
}

#[test]
fn a_warm_start_with_fifo_bursts_and_copies_meets_the_cold_answer() {
    // The twin's form: three classes with no think time at a two-server CPU, two disk copies
    // and a delay, bursts of unequal length at the CPU.
    let st = vec![
        Station {
            name: "cpu".into(),
            kind: Kind::Queue { servers: 2 },
            copies: 1,
        },
        Station::queue("disk", 2),
        Station {
            name: "write".into(),
            kind: Kind::Delay,
            copies: 1,
        },
    ];
    let d = vec![
        vec![0.3, 0.1, 0.05],
        vec![2.0, 0.4, 0.0],
        vec![0.05, 0.2, 0.1],
    ];
    let v = vec![
        vec![30.0, 0.0, 0.0],
        vec![40.0, 0.0, 0.0],
        vec![10.0, 0.0, 0.0],
    ];
    let (n, z) = ([4.0, 2.5, 12.0], [0.0; 3]);
    let mut cold_q = Vec::new();
    let (cold, cold_sweeps) = schweitzer_counted(&st, &d, Some(&v), (&n, &z), &mut cold_q);
    let mut other = Vec::new();
    schweitzer_from(&st, &d, Some(&v), (&[1.0, 9.0, 0.5], &z), &mut other);
    let garbage = vec![vec![4.0, 0.0, 0.0]; 3];
    for (i, start) in [cold_q.clone(), other, garbage].into_iter().enumerate() {
        let mut q = start;
        let (warm, s) = schweitzer_counted(&st, &d, Some(&v), (&n, &z), &mut q);
        assert!(
            queue_gap(&q, &cold_q, &n) < 10.0 * TOLERANCE,
            "start {i}: {q:?}"
        );
        for c in 0..3 {
            assert!(
                (warm.x[c] / cold.x[c] - 1.0).abs() < 10.0 * TOLERANCE,
                "start {i}"
            );
        }
        assert!(i > 0 || s < cold_sweeps, "{s} against {cold_sweeps}");
    }
}
