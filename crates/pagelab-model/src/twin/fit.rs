//! The chance that the E2 head fits beside the set (reading `twin-e2-head-must-fit`).
//!
//! CP-67's test admits the eligible list's head while the committed estimates plus its own fit
//! in APAGES and stops at the first misfit, an estimate above APAGES tested as APAGES
//! (`pagelab-sys` `load_control/cp67_scheduler.rs`, `admit_count`; VM/370's
//! `StorageTest::admit` in `load_control.rs` also stops at the first misfit). The list offers
//! E1 candidates before E2 (`system/vmsp_dispatch.rs`, `admission_order`), so an E2 stay
//! enters only at a departure that finds the E1 list empty and leaves its whole projection
//! free. With N₁ the E1 stays in the set, Poisson of mean s₁ n₁ and all of them fitting (the
//! E1 list is empty), the E2 stays at their mean:
//!
//! ```text
//!   f_c = P(N₁ p₁ + s₂ D₂ + P_c ≤ room | N₁ p₁ + s₂ D₂ ≤ room),   f = Σ_c w_c f_c / Σ_c w_c
//! ```
//!
//! w_c = n₂c/τ₂c, the class's E2 departures: a class is at the head as often as its stays
//! enter.

/// One class's E2 candidates, as a head of the eligible list sees them.
#[derive(Clone, Copy, Debug)]
pub(super) struct Head {
    /// Their departures per processor second, all in the set (n₂c/τ₂c): how often the class
    /// is at the head [1/s].
    pub weight: f64,
    /// Their projection [frames].
    pub frames: f64,
}

/// The E2 heads' chance to fit, given the E1 candidates and the room.
pub(super) struct HeadFit<'a> {
    /// The E2 heads by class.
    pub heads: &'a [Head],
    /// E1 candidates inside [users].
    pub e1_users: f64,
    /// Their mean projection [frames].
    pub e1_frames: f64,
    /// The E2 candidates' projections' sum [frames].
    pub e2_want: f64,
    /// The frames the test fills [frames].
    pub room: f64,
}

impl HeadFit<'_> {
    /// f at the shares (s₁, s₂) of the E1 and E2 candidates in the set [1].
    pub(super) fn chance(&self, s1: f64, s2: f64) -> f64 {
        let left = self.room - s2 * self.e2_want;
        let mean = s1 * self.e1_users;
        // P(the E1 list empty): every E1 stay in the set fits.
        let empty = if self.e1_frames > 0.0 {
            poisson_cdf(mean, left / self.e1_frames)
        } else {
            1.0
        };
        let (mut f, mut w) = (0.0, 0.0);
        for h in self.heads {
            if h.weight <= 0.0 {
                continue;
            }
            // An estimate above APAGES is tested as APAGES (`admit_count`).
            let free = left - h.frames.min(self.room);
            let f_c = if self.e1_frames <= 0.0 {
                f64::from(u8::from(free >= 0.0))
            } else if empty > 0.0 {
                poisson_cdf(mean, free / self.e1_frames) / empty
            } else {
                0.0
            };
            f += h.weight * f_c;
            w += h.weight;
        }
        if w > 0.0 {
            f / w
        } else {
            1.0
        }
    }
}

/// P(N ≤ x) for N Poisson of mean `mean`, read linearly between integers (so continuous and
/// nondecreasing in x): P(N ≤ k) + (x − k) P(N = k + 1) for k ≤ x < k + 1.
pub(super) fn poisson_cdf(mean: f64, x: f64) -> f64 {
    if x < -1.0 {
        return 0.0;
    }
    if mean <= 0.0 {
        return (x + 1.0).min(1.0);
    }
    // Far above the mean the rest is below 1e-12.
    if x > mean + 30.0 * mean.sqrt() + 30.0 {
        return 1.0;
    }
    let k = x.floor();
    // P(N = j) by the ratio mean/j; from a log start where e^(−mean) would underflow.
    let (mut p, mut j, mut cdf) = ((-mean).exp(), 0.0, 0.0);
    if p == 0.0 {
        return poisson_cdf_logs(mean, x);
    }
    while j <= k {
        cdf += p;
        j += 1.0;
        p *= mean / j;
    }
    (cdf + (x - k) * p).min(1.0)
}

/// [`poisson_cdf`] carried in logs, for a mean whose e^(−mean) underflows.
fn poisson_cdf_logs(mean: f64, x: f64) -> f64 {
    let k = x.floor();
    let ln_mean = mean.ln();
    let (mut ln_p, mut j, mut cdf) = (-mean, 0.0, 0.0);
    while j <= k {
        cdf += ln_p.exp();
        j += 1.0;
        ln_p += ln_mean - j.ln();
    }
    (cdf + (x - k) * ln_p.exp()).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poisson_cdf_at_and_between_integers() {
        // Mean 2: P(0) = e⁻², P(1) = 2e⁻², P(2) = 2e⁻².
        let e = (-2.0_f64).exp();
        assert!((poisson_cdf(2.0, 0.0) - e).abs() < 1e-15);
        assert!((poisson_cdf(2.0, 2.0) - 5.0 * e).abs() < 1e-15);
        assert!((poisson_cdf(2.0, 1.5) - 4.0 * e).abs() < 1e-15);
        assert!((poisson_cdf(2.0, -0.5) - 0.5 * e).abs() < 1e-15);
        assert_eq!(poisson_cdf(2.0, -1.5), 0.0);
        assert_eq!(poisson_cdf(0.0, 0.0), 1.0);
        // A large mean neither underflows nor loses its middle: P(N ≤ 1000) ≈ ½ at mean 1000.
        let mid = poisson_cdf(1000.0, 1000.0);
        assert!((mid - 0.508_4).abs() < 1e-3, "{mid}");
        assert_eq!(poisson_cdf(5.0, 500.0), 1.0);
        // Beyond e^(−mean)'s range, in logs: P(N ≤ 800) ≈ ½ at mean 800.
        let logs = poisson_cdf(800.0, 800.0);
        assert!((logs - 0.509_4).abs() < 1e-3, "{logs}");
        let (lin, log) = (poisson_cdf(50.0, 47.3), poisson_cdf_logs(50.0, 47.3));
        assert!((lin - log).abs() < 1e-12, "{lin} {log}");
    }

    #[test]
    fn a_large_head_fits_less_often_than_a_small_one() {
        // 130 frames, 3 E1 stays of 12 pages expected in the set, 60 pages of E2 want at
        // s₂ = ½: a 60-page head fits only with N₁ ≤ 40/12 = 3.33, a 12-page one with
        // N₁ ≤ 7.33; weighted 1 : 3.
        let heads = [
            Head {
                weight: 1.0,
                frames: 60.0,
            },
            Head {
                weight: 3.0,
                frames: 12.0,
            },
        ];
        let fit = HeadFit {
            heads: &heads,
            e1_users: 6.0,
            e1_frames: 12.0,
            e2_want: 60.0,
            room: 130.0,
        };
        let e = (-3.0_f64).exp();
        // P(N ≤ 3) = 13e⁻³ and P(N = 4) = 81/24 e⁻³; the others summed by the series.
        let cdf = |k: u32| {
            (0..=k)
                .map(|j| 3.0_f64.powi(j as i32) / (1..=j).product::<u32>() as f64)
                .sum::<f64>()
                * e
        };
        let big = cdf(3) + (40.0 / 12.0 - 3.0) * 81.0 / 24.0 * e;
        let small = cdf(7) + (88.0 / 12.0 - 7.0) * 3.0_f64.powi(8) / 40_320.0 * e;
        // Given the E1 list empty: N₁ ≤ 100/12 = 8.33.
        let empty = cdf(8) + (100.0 / 12.0 - 8.0) * 3.0_f64.powi(9) / 362_880.0 * e;
        let f = fit.chance(0.5, 0.5);
        assert!(
            (f - (big + 3.0 * small) / (4.0 * empty)).abs() < 1e-12,
            "{f}"
        );
        assert!(big / empty < 0.75 && small / empty > 0.98, "{big} {small}");
        // A head of no pages always fits beside a set whose E1 candidates all fit.
        let none = [Head {
            weight: 1.0,
            frames: 0.0,
        }];
        let fit = HeadFit {
            heads: &none,
            ..fit
        };
        assert!((fit.chance(0.5, 0.5) - 1.0).abs() < 1e-12);
    }
}
