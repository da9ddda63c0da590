//! How far the admitted stays may grow in the frames they share (reading
//! `twin-stay-occupancy`).

use crate::lifetime::{Lifetime, Survival};
use crate::secant;

/// How far the stays may grow, as a multiple θ of their projections `proj`: the largest
/// at which the `a` stays' mean resident sets fit the `free` frames, Σ a_c R_c(θ P_c) ≤
/// free, at least free / Σ a_c P_c (reading `twin-stay-occupancy`). Cold stays: pages that
/// survived a think time are the frames the active stays leave.
pub(super) fn theta(life: &[Lifetime], (a, proj): (&[f64], &[f64]), free: f64, want: f64) -> f64 {
    let lo = if want > 0.0 { free / want } else { return 1.0 };
    let held = |t: f64| -> f64 {
        (0..a.len())
            .map(|c| a[c] * life[c].occupancy_at(t * proj[c], Survival::uniform(0.0)))
            .sum()
    };
    // Past every curve's last point nothing more is held.
    let hi = (0..a.len())
        .map(|c| (life[c].points.len() - 1) as f64 / proj[c].max(1e-9))
        .fold(lo, f64::max);
    if held(hi) <= free {
        return hi;
    }
    // held is increasing and piecewise linear in θ: a bracketing secant (the Illinois
    // rule) meets it in a few evaluations where halving took sixty.
    let (f_lo, f_hi) = (held(lo) - free, held(hi) - free);
    if f_lo > 0.0 {
        return lo;
    }
    let f = |t: f64| held(t) - free;
    secant::bracket(
        f,
        (lo, f_lo),
        (hi, f_hi),
        |lo, hi| hi - lo <= 1e-12 * hi,
        100,
    )
    .0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifetime::LifetimePoint;

    /// A curve whose stay holds `f(m)` pages at m frames, in every view.
    fn held_as(max: u32, f: impl Fn(f64) -> f64) -> Lifetime {
        let point = |m: u32| {
            let o = f(f64::from(m));
            LifetimePoint {
                frames: m,
                faults: 0.0,
                writes: 0.0,
                lifetime: 0.0,
                warm_faults: 0.0,
                warm_writes: 0.0,
                occupancy: o,
                warm_occupancy: o,
                estimate: None,
                warm_estimate: None,
                txn_faults: 0.0,
                txn_writes: 0.0,
                txn_occupancy: o,
                txn_estimate: None,
            }
        };
        Lifetime {
            class: "c".into(),
            references: 1.0,
            working_set: 1.0,
            points: (0..=max).map(point).collect(),
            drops: [0.0; 2],
        }
    }

    #[test]
    fn a_linear_stay_grows_to_the_free_frames_exactly() {
        // R(m) = m/2: two stays of projection 10 fill 30 frames at θ = 3.
        let life = vec![held_as(100, |m| m / 2.0)];
        let t = theta(&life, (&[2.0], &[10.0]), 30.0, 20.0);
        assert!((t - 3.0).abs() < 1e-9, "{t}");
    }

    #[test]
    fn the_secant_meets_halving_on_bent_curves_of_two_classes() {
        let life = vec![
            held_as(60, |m| 40.0 * (1.0 - (-m / 40.0).exp())),
            held_as(200, |m| 30.0 * m / (m + 30.0)),
        ];
        for free in [12.0, 30.0, 55.0, 80.0] {
            let (a, proj) = ([1.5, 2.5], [9.0, 14.0]);
            let t = theta(&life, (&a, &proj), free, 1.5 * 9.0 + 2.5 * 14.0);
            let held = |t: f64| {
                a[0] * life[0].occupancy_at(t * proj[0], Survival::uniform(0.0))
                    + a[1] * life[1].occupancy_at(t * proj[1], Survival::uniform(0.0))
            };
            let (mut lo, mut hi) = (free / (1.5 * 9.0 + 2.5 * 14.0), 200.0 / 9.0);
            for _ in 0..80 {
                let mid = 0.5 * (lo + hi);
                if held(mid) <= free {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            assert!((t - lo).abs() <= 1e-9 * lo, "free {free}: {t} against {lo}");
            assert!(
                held(t) <= free + 1e-9,
                "free {free}: held {} at {t}",
                held(t)
            );
        }
    }
}
