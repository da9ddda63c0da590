//! Known answers for each PSI rule. Expected values are worked by hand in the comments from the
//! kernel's formulas (FIXED_1 = 2048; period P = 2,004,000,000 ns), never from the code tested.

use super::*;

const P: u64 = PERIOD_NS;

fn tasks(memstall: u32, running: u32, memstall_running: u32, iowait: u32) -> MemTasks {
    MemTasks {
        memstall,
        running,
        memstall_running,
        iowait,
    }
}

/// test_state: MEM_SOME = NR_MEMSTALL > 0; MEM_FULL = NR_MEMSTALL > 0 and NR_RUNNING ==
/// NR_MEMSTALL_RUNNING.
#[test]
fn test_state_some_and_full() {
    // Nobody: neither.
    assert!(!tasks(0, 0, 0, 0).some() && !tasks(0, 0, 0, 0).full());
    // One task sleeping on a refault, nothing else: some and full.
    assert!(tasks(1, 0, 0, 0).some() && tasks(1, 0, 0, 0).full());
    // One stalled, one runnable outside a stall: some, not full.
    assert!(tasks(1, 1, 0, 0).some() && !tasks(1, 1, 0, 0).full());
    // Two stalled of which one runs (reclaiming), the only runnable one: full (1 == 1).
    assert!(tasks(2, 1, 1, 0).full());
    // Three tasks waiting for I/O and no stall: not memory pressure at all.
    assert!(!tasks(0, 0, 0, 3).some() && !tasks(0, 0, 0, 3).full());
    // One stalled, two in I/O wait, none runnable: I/O waiters are not running, so full.
    assert!(tasks(1, 0, 0, 2).full());
}

/// psi.c's "Multiple CPUs" model, with its own two examples and a few of ours.
#[test]
fn shares_on_several_cpus() {
    // psi.c: 4 tasks on 4 CPUs, one delayed for memory: threads 4, SOME 1/4, FULL (4-3)/4.
    assert_eq!(tasks(1, 3, 0, 0).shares(4), (0.25, 0.25));
    // Two CPUs, one stalled and one in I/O wait, none runnable: threads min(2, 2) = 2, SOME
    // 1/2, FULL min(1, 2 - 0) / 2 = 1/2 (full capped at the delayed threads).
    assert_eq!(tasks(1, 0, 0, 1).shares(2), (0.5, 0.5));
    // Two CPUs, three stalled: SOME min(3, 2)/2 = 1, FULL min(3, 2 - 0)/2 = 1.
    assert_eq!(tasks(3, 0, 0, 0).shares(2), (1.0, 1.0));
    // Two CPUs, one stalled, five runnable: threads 2, SOME 1/2, FULL (2 - min(5, 2))/2 = 0.
    assert_eq!(tasks(1, 5, 0, 0).shares(2), (0.5, 0.0));
    // Two CPUs, one stalled alone: threads min(1, 2) = 1, SOME 1, FULL 1.
    assert_eq!(tasks(1, 0, 0, 0).shares(2), (1.0, 1.0));
    // Three CPUs, two stalled of which one reclaims on a CPU, one other runnable: nonidle
    // 2 + 1 = 3, threads 3, productive 2 - 1 = 1, SOME 2/3, FULL min(2, 3 - 1)/3 = 2/3.
    assert_eq!(tasks(2, 2, 1, 0).shares(3), (2.0 / 3.0, 2.0 / 3.0));
    // No stall: nothing, however busy.
    assert_eq!(tasks(0, 7, 0, 4).shares(2), (0.0, 0.0));
}

/// On one CPU the model's shares are test_state's booleans, for every small count.
#[test]
fn one_cpu_shares_are_test_state() {
    for memstall in 0..4 {
        for running in 0..4 {
            for memstall_running in 0..=memstall.min(running) {
                for iowait in 0..3 {
                    let t = tasks(memstall, running, memstall_running, iowait);
                    let want = (f64::from(u8::from(t.some())), f64::from(u8::from(t.full())));
                    assert_eq!(t.shares(1), want, "{t:?}");
                }
            }
        }
    }
}

/// calc_load: load·e + active·(2048 − e), + 2047 while rising, / 2048.
#[test]
fn calc_load_known_answers() {
    // 0 → 100 %: 204,800 × 371 = 75,980,800; + 2047 = 75,982,847; / 2048 = 37,100 (rem 2047).
    assert_eq!(calc_load(0, 1677, 100 * FIXED_1), 37_100);
    // 37,100 → 0 %: 37,100 × 1677 = 62,216,700; / 2048 = 30,379 (rem 508), no rounding up.
    assert_eq!(calc_load(37_100, 1677, 0), 30_379);
    // Equal load and active: 2048 × 1981 + 2048 × 67 + 2047 = 4,196,351; / 2048 = 2048.
    assert_eq!(calc_load(FIXED_1, 1981, FIXED_1), FIXED_1);
}

/// psi_show's LOAD_INT.LOAD_FRAC: 37,100 = 18 × 2048 + 236; 236 × 100 / 2048 = 11.5 → 11.
#[test]
fn readings_truncate_to_hundredths() {
    assert_eq!(reading(37_100), 18.11);
    assert_eq!(reading(0), 0.0);
    assert_eq!(reading(100 * FIXED_1), 100.0);
}

/// One period half stalled, one period free: the averages of calc_avgs after each.
#[test]
fn averages_after_a_half_period_then_a_free_one() {
    let mut p = Pressure::new();
    // Stalled (one CPU, full) for the first P/2 = 1,002,000,000 ns, then free.
    p.advance(0, P / 2, (1.0, 1.0));
    p.advance(P / 2, P, (0.0, 0.0));
    // Period 1: 1,002,000,000 × 100 / P = 50 %, active 102,400.
    //   avg10  = (102,400 × 371 + 2047) / 2048 = 18,550 → 9.05 (18,550 = 9 × 2048 + 118;
    //            118 × 100 / 2048 = 5.8 → 5)
    //   avg60  = (102,400 × 67 + 2047) / 2048 = 3,350 → 1.63
    //   avg300 = (102,400 × 14 + 2047) / 2048 = 700 → 0.34
    assert_eq!(p.averages(Stall::Some), [9.05, 1.63, 0.34]);
    assert_eq!(p.averages(Stall::Full), [9.05, 1.63, 0.34]);
    p.start_max();
    p.advance(P, 2 * P, (0.0, 0.0));
    // Period 2: 0 %. avg10 = 18,550 × 1677 / 2048 = 15,189 → 7.41; avg60 = 3,350 × 1981 /
    // 2048 = 3,240 → 1.58; avg300 = 700 × 2034 / 2048 = 695 → 0.33.
    assert_eq!(p.averages(Stall::Some), [7.41, 1.58, 0.33]);
    // The largest since start_max are those after period 1.
    assert_eq!(p.max_averages(Stall::Some), [9.05, 1.63, 0.34]);
    // Total: 1,002,000,000 ns = 1,002,000 µs.
    assert_eq!(p.total_us(Stall::Some), 1_002_000);
}

/// Three periods fully stalled in one step: the step is cut at each period's end.
#[test]
fn averages_after_three_full_periods_in_one_step() {
    let mut p = Pressure::new();
    p.advance(0, 3 * P, (1.0, 0.0));
    // 100 % each period. avg10: 0 → 37,100 → (37,100 × 1677 + 75,980,800 + 2047) / 2048 =
    // 67,480 → (67,480 × 1677 + 75,980,800 + 2047) / 2048 = 92,356 → 45.09 (92,356 = 45 × 2048
    // + 196; 196 × 100 / 2048 = 9.6 → 9). avg60: 6,700 → 13,181 → 19,450 = 9.49. avg300:
    // 1,400 → 2,791 → 4,172 = 2.03.
    assert_eq!(p.averages(Stall::Some), [45.09, 9.49, 2.03]);
    assert_eq!(p.averages(Stall::Full), [0.0, 0.0, 0.0]);
    // Total: 3 × 2.004 s = 6.012 s.
    assert_eq!(p.total_us(Stall::Some), 6_012_000);
    assert_eq!(p.total_us(Stall::Full), 0);
}

/// calc_avgs samples a whole percentage: 1 ns short of 1 % of a period counts as 0 %.
#[test]
fn a_period_under_one_percent_samples_zero() {
    let mut p = Pressure::new();
    // 20,039,999 × 100 / 2,004,000,000 = 0.99999995 → 0.
    p.advance(0, 20_039_999, (1.0, 1.0));
    p.advance(20_039_999, P, (0.0, 0.0));
    assert_eq!(p.averages(Stall::Some), [0.0, 0.0, 0.0]);
    // One more nanosecond in the next period: 20,040,000 × 100 / P = 1 % exactly, active
    // 2048: avg10 = (2048 × 371 + 2047) / 2048 = 371 → 0.18 (37,100 / 2048 = 18.1 → 18).
    p.advance(P, P + 20_040_000, (1.0, 1.0));
    p.advance(P + 20_040_000, 2 * P, (0.0, 0.0));
    assert_eq!(p.averages(Stall::Some)[0], 0.18);
}

/// Shares accumulate into totals: two CPUs, one stalled user and three runnable for 1 s,
/// then the three runnable ones leave for 0.5 s.
#[test]
fn totals_of_a_two_cpu_sequence() {
    let mut p = Pressure::new();
    // threads 2, SOME 1/2, FULL (2 - 2)/2 = 0, for 1 s: some 0.5 s.
    p.advance(0, 1_000_000_000, tasks(1, 3, 0, 0).shares(2));
    // Alone: threads 1, SOME 1, FULL 1, for 0.5 s: some 1.0 s, full 0.5 s in all.
    p.advance(1_000_000_000, 1_500_000_000, tasks(1, 0, 0, 0).shares(2));
    assert_eq!(p.total_us(Stall::Some), 1_000_000);
    assert_eq!(p.total_us(Stall::Full), 500_000);
    // No period has ended: the averages have not moved.
    assert_eq!(p.averages(Stall::Some), [0.0, 0.0, 0.0]);
}
