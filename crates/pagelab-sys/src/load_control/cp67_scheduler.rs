//! CP-67's scheduler, the baseline of Bard 1975's Table 2: the "paging priority dispatcher" of
//! Schatzoff and Wheeler (bard ref. [6]) as Bard describes it.
//!
//! ```text
//!   think ends ──► eligible list (Q1 candidates first, then Q2; FIFO within each)   bard §8
//!                    │ admit the head while  Σ W_i (dispatchable) + W_head ≤ N      bard §8–9, §12
//!                    ▼
//!   dispatchable list: Q1 stay ≤ 0.25 s CPU, Q2 stay ≤ 2.5 s CPU                     bard §9 [9]
//!                    │ queue-drop: storage estimate for the next stay
//!                    ▼
//!   A = max(S/Q, resident at the drop): S/Q corrected for the build-up              bard §9
//!   R = Q / CPU seconds of the stay                                                   bard §3 R(Ψ)
//!   W' = A · clamp((R / R_d)^(1/γ), 1/k, k)  the storage at which it would page at R_d bard §12
//!   W  = σ W_prev + (1 − σ) W'  clamped to [W_min, N]
//! ```
//!
//! Bard §12: "The CP-67 scheduler [6] attempted to estimate for each program separately the
//! amount of storage it would require to page at what was considered a desirable rate"; §6: it
//! "attempts to control the MPL so as to optimize performance", and performance under it was
//! "not sensitive to the MPL". The report [6] is not available, so the rule that turns a stay's
//! measurements into that storage is ours [A]: a program's paging rate falls as a power of its
//! storage, R ∝ A^(−γ) (bard §7: A ∝ Ψ and R ∝ Ψ^(−γ), 2 ≤ γ ≤ 4, below Ψc), so the storage at
//! which it would page at R_d is A (R/R_d)^(1/γ). This is load feedback through every program's
//! own estimate: a crowded system squeezes resident sets, paging rates rise, the estimates grow
//! and admission stops until the set fits again; a program paging slower than R_d gives up
//! storage. Bard's criticism (§12) holds here as in his CP-67: the estimates do not control
//! what each program gets once admitted (eq. 1 splits the frames), so the system's paging rate
//! only follows R_d loosely.
//!
//! Choices where bard is silent [A], each a parameter: R_d, γ, the clamp k on one stay's
//! correction, the smoothing σ, the floor W_min, one estimate per program (not per activation
//! type), and a stay without page reads estimated at its resident pages at the drop. A lone
//! user is always admitted. The glue to the load-control seam is in [`crate::load_control`].

use serde::{Deserialize, Serialize};

/// Parameters of CP-67's scheduler.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cp67Spec {
    /// Q1 in-queue time slice [s of CPU] (bard §9 and note [9]: 0.25 s at CSC).
    #[serde(default = "q1_slice")]
    pub q1_slice_s: f64,
    /// Q2 in-queue time slice [s of CPU] (bard §9 and note [9]: 2.5 s at CSC).
    #[serde(default = "q2_slice")]
    pub q2_slice_s: f64,
    /// Keep the user in queue across intra-transaction terminal writes.
    #[serde(default)]
    pub eliminate_false_drops: bool,
    /// Storage estimate of a user never dropped yet [pages] (bard Table 1's interactive Ā0,
    /// "derived from usually available data" §12) [A for CP-67].
    #[serde(default = "five")]
    pub initial_ws_pages: f64,
    /// R_d, the desirable paging rate of one program [page reads per CPU second] [A]. Default:
    /// bard §6's limit of 65 page reads/s, so that Σ R_i CPU_i ≤ 65/s however the CPU is shared.
    #[serde(default = "desirable")]
    pub desirable_rate: f64,
    /// γ, the exponent of R ∝ A^(−γ) (bard §7: 2 ≤ γ ≤ 4) [A: the low end].
    #[serde(default = "two")]
    pub gamma: f64,
    /// k, the largest factor one stay may change the estimate by, either way [A].
    #[serde(default = "four")]
    pub max_step: f64,
    /// σ, the weight of the previous estimate (0: the last stay alone) [A].
    #[serde(default = "half")]
    pub smoothing: f64,
    /// W_min, the smallest estimate [pages] [A].
    #[serde(default = "two")]
    pub min_ws_pages: f64,
    /// Use the storage estimate in admission; `false` is the storage test on S/Q alone (A
    /// without the paging-rate correction), the scheduler without load feedback.
    #[serde(default = "yes")]
    pub rate_feedback: bool,
    /// Correct A for the initial build-up of the stay (bard §9: "a correction for the initial
    /// page build-up period may be applied"): A = max(S/Q, resident pages at the drop), since
    /// S/Q averages over a resident set that grows from what survived the last dormancy [A].
    #[serde(default = "yes")]
    pub build_up_correction: bool,
}

fn q1_slice() -> f64 {
    0.25
}
fn q2_slice() -> f64 {
    2.5
}
fn five() -> f64 {
    5.0
}
fn desirable() -> f64 {
    65.0
}
fn two() -> f64 {
    2.0
}
fn four() -> f64 {
    4.0
}
fn half() -> f64 {
    0.5
}
fn yes() -> bool {
    true
}

impl Cp67Spec {
    /// The first parameter out of range: (key under `load_control`, expected form).
    pub fn check(&self) -> Result<(), (&'static str, &'static str)> {
        let pos = |x: f64| x.is_finite() && x > 0.0;
        if !pos(self.q1_slice_s) {
            return Err(("q1_slice_s", "expected a positive CPU time [s]"));
        }
        if !pos(self.q2_slice_s) {
            return Err(("q2_slice_s", "expected a positive CPU time [s]"));
        }
        if !(self.initial_ws_pages.is_finite() && self.initial_ws_pages >= 0.0) {
            return Err(("initial_ws_pages", "expected pages ≥ 0"));
        }
        if !pos(self.desirable_rate) {
            return Err((
                "desirable_rate",
                "expected a positive rate [page reads/CPU s]",
            ));
        }
        if !pos(self.gamma) {
            return Err(("gamma", "expected a positive exponent"));
        }
        if !(self.max_step.is_finite() && self.max_step >= 1.0) {
            return Err(("max_step", "expected a factor ≥ 1"));
        }
        if !(self.smoothing.is_finite() && (0.0..1.0).contains(&self.smoothing)) {
            return Err(("smoothing", "expected a weight in [0, 1)"));
        }
        if !(self.min_ws_pages.is_finite() && self.min_ws_pages >= 0.0) {
            return Err(("min_ws_pages", "expected pages ≥ 0"));
        }
        Ok(())
    }
}

/// The storage at which a program that held `a` pages on average and paged at `r` page reads
/// per CPU second would page at `r_d`: `a · (r / r_d)^(1/γ)`, the factor clamped to
/// [1/k, k] (bard §7's R ∝ A^(−γ); the clamp is ours [A]).
pub fn storage_for_rate(a: f64, r: f64, r_d: f64, gamma: f64, k: f64) -> f64 {
    let f = (r / r_d).powf(1.0 / gamma).clamp(1.0 / k, k);
    a * f
}

/// The next storage estimate [pages] from the last one, `prev`, and a stay's page reads, the
/// resident pages summed at them, the resident pages at the drop and its CPU time.
pub fn next_estimate(
    p: &Cp67Spec,
    prev: f64,
    reads: u64,
    sum: u64,
    resident: u32,
    cpu_ns: u64,
) -> f64 {
    let cpu_s = cpu_ns as f64 / 1e9;
    let w = if reads == 0 {
        // No page read: what it held sufficed [A].
        f64::from(resident)
    } else {
        let mut a = sum as f64 / reads as f64;
        if p.build_up_correction {
            a = a.max(f64::from(resident));
        }
        if p.rate_feedback && cpu_s > 0.0 {
            let r = reads as f64 / cpu_s;
            storage_for_rate(a, r, p.desirable_rate, p.gamma, p.max_step)
        } else {
            a
        }
    };
    (p.smoothing * prev + (1.0 - p.smoothing) * w).max(p.min_ws_pages)
}

/// How many of the eligible users, in priority order with estimates `estimates`, to admit:
/// the head while the dispatchable list's `committed` estimates plus its own fit in the
/// `apages` pageable frames (bard §8: "admits programs only as long as their requirements can
/// be met"). An estimate above N is tested as N so that a large program waits for an empty
/// set rather than forever; with `in_queue` = 0 the head always enters.
pub fn admit_count(apages: u32, committed: f64, in_queue: u32, estimates: &[f64]) -> usize {
    let n = f64::from(apages);
    let mut sum = committed;
    for (i, &e) in estimates.iter().enumerate() {
        let w = e.min(n);
        if in_queue as usize + i > 0 && sum + w > n {
            return i;
        }
        sum += w;
    }
    estimates.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> Cp67Spec {
        toml::from_str("").unwrap()
    }

    #[test]
    fn storage_for_rate_on_hand_cases() {
        // Paging 4 × too fast with γ = 2: twice the storage; 4 × too slow: half.
        assert_eq!(storage_for_rate(10.0, 520.0, 130.0, 2.0, 4.0), 20.0);
        assert_eq!(storage_for_rate(10.0, 32.5, 130.0, 2.0, 4.0), 5.0);
        // 100 × too fast: the factor stops at k = 4.
        assert_eq!(storage_for_rate(10.0, 13_000.0, 130.0, 2.0, 4.0), 40.0);
        assert_eq!(storage_for_rate(10.0, 0.0, 130.0, 2.0, 4.0), 2.5);
    }

    #[test]
    fn queue_drop_moves_the_estimate_toward_the_desirable_rate() {
        let mut p = Cp67Spec {
            build_up_correction: false,
            ..spec()
        };
        // 52 reads in 0.2 s = 260/s = 4 R_d at S/Q = 520/52 = 10 pages: W' = 20;
        // W = (5 + 20)/2 = 12.5.
        let w = next_estimate(&p, 5.0, 52, 520, 9, 200_000_000);
        assert_eq!(w, 12.5);
        // No read: W' = the 6 resident pages; W = (12.5 + 6)/2 = 9.25.
        assert_eq!(next_estimate(&p, w, 0, 0, 6, 100_000_000), 9.25);
        // Without rate feedback: W' = S/Q = 10.
        p.rate_feedback = false;
        assert_eq!(next_estimate(&p, 9.25, 52, 520, 9, 200_000_000), 9.625);
        // The build-up correction: 9 resident at the drop beat S/Q = 520/104 = 5; R = 4 R_d.
        p.rate_feedback = true;
        p.build_up_correction = true;
        p.smoothing = 0.0;
        assert_eq!(next_estimate(&p, 9.625, 104, 520, 9, 400_000_000), 18.0);
        // The floor.
        assert_eq!(next_estimate(&p, 18.0, 0, 0, 0, 100_000_000), 2.0);
    }

    #[test]
    fn admits_in_priority_order_while_the_estimates_fit() {
        // 130 frames, 90 committed: 110 fits, 140 does not; the third waits behind the second.
        assert_eq!(admit_count(130, 90.0, 4, &[20.0, 30.0, 5.0]), 1);
        // An empty set takes an estimate above N, tested as N: nothing after it fits.
        assert_eq!(admit_count(130, 0.0, 0, &[500.0, 1.0]), 1);
        assert_eq!(admit_count(130, 0.0, 0, &[60.0, 70.0]), 2);
    }

    #[test]
    fn defaults_and_checks() {
        let p = spec();
        assert_eq!(
            (p.q1_slice_s, p.q2_slice_s, p.desirable_rate),
            (0.25, 2.5, 65.0)
        );
        assert!(p.check().is_ok());
        let bad = Cp67Spec {
            smoothing: 1.0,
            ..spec()
        };
        assert_eq!(bad.check().unwrap_err().0, "smoothing");
    }
}
