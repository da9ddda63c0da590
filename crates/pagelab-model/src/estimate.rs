//! CP-67's storage estimate over the lifetime pass's stays (reading `twin-cp67-estimate`).
//!
//! The simulator's CP-67 scheduler estimates, at each queue-drop, the storage a program would
//! need to page at the desirable rate (bard §9, §12; `pagelab-sys`
//! `load_control/cp67_scheduler.rs`). The twin applies that same rule
//! ([`next_estimate`]) to every stay the lifetime pass runs, at every size m:
//!
//! ```text
//!   reads      the stay's faults with m frames
//!   resident   min(distinct pages of the stay, m): under LRU a stay's resident set only grows,
//!              so this is also the build-up correction's max(S/Q, resident at the drop)
//!   W'(m)      next_estimate with no smoothing: A · clamp((R / R_d)^(1/γ), 1/k, k), ≥ W_min
//! ```
//!
//! and keeps the sum over the stays. The smoothing σ of the scheduler's running estimate keeps
//! its mean, so the stationary projection is W' averaged over the stays.

use pagelab_sys::load_control::cp67_scheduler::{next_estimate, Cp67Spec};

/// Sums of one stay kind's estimates at sizes 0..len.
#[derive(Clone, Debug)]
pub(crate) struct EstimateSums {
    rule: Cp67Spec,
    /// Σ over stays of W'(m) [pages].
    pub(crate) sums: Vec<f64>,
    /// Stays summed [count].
    pub(crate) stays: f64,
}

impl EstimateSums {
    /// Sums for sizes 0..`len` under `rule` (its smoothing set aside: the mean is kept).
    pub(crate) fn new(rule: &Cp67Spec, len: usize) -> EstimateSums {
        EstimateSums {
            rule: Cp67Spec {
                smoothing: 0.0,
                ..rule.clone()
            },
            sums: vec![0.0; len],
            stays: 0.0,
        }
    }

    /// Adds one stay of `refs` references lasting `cpu_s` of CPU, with `faults[m]` page reads
    /// at each size m and `distinct` pages it could hold.
    pub(crate) fn add(&mut self, faults: &[f64], distinct: u32, cpu_s: f64) {
        let cpu_ns = (cpu_s * 1e9).round().max(1.0) as u64;
        for (m, (sum, &f)) in self.sums.iter_mut().zip(faults).enumerate().skip(1) {
            let resident = distinct.min(m as u32);
            let reads = f.round().max(0.0) as u64;
            let at_reads = reads * u64::from(resident);
            *sum += next_estimate(&self.rule, 0.0, reads, at_reads, resident, cpu_ns);
        }
        self.stays += 1.0;
    }

    /// Adds `other`'s sums weighted by `w` (a command's share of the class's transactions
    /// over its transactions measured).
    pub(crate) fn add_weighted(&mut self, other: &EstimateSums, w: f64) {
        for (s, o) in self.sums.iter_mut().zip(&other.sums) {
            *s += w * o;
        }
        self.stays += w * other.stays;
    }

    /// The mean estimate over the stays at each size [pages].
    pub(crate) fn means(&self) -> Vec<f64> {
        self.sums
            .iter()
            .map(|s| s / self.stays.max(1e-12))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> Cp67Spec {
        toml::from_str("").unwrap()
    }

    #[test]
    fn a_stay_paging_at_the_desirable_rate_is_estimated_at_its_resident_set() {
        let mut e = EstimateSums::new(&rule(), 12);
        // 10 pages, 65 reads in one CPU second at every size from 10: R = R_d.
        let mut f = vec![0.0; 12];
        for (m, x) in f.iter_mut().enumerate() {
            *x = if m >= 10 { 65.0 } else { 650.0 };
        }
        e.add(&f, 10, 1.0);
        let w = e.means();
        assert!((w[10] - 10.0).abs() < 1e-9, "{w:?}");
        // At 5 frames, ten times too fast: √10 = 3.16 times the 5 it held.
        assert!((w[5] - 5.0 * 10f64.sqrt()).abs() < 1e-9, "{w:?}");
    }

    #[test]
    fn the_factor_stops_at_k_and_the_floor_holds() {
        let mut e = EstimateSums::new(&rule(), 4);
        // 3 pages read in a microsecond: far too fast, the factor stops at k = 4.
        e.add(&[0.0, 3.0, 3.0, 3.0], 3, 1e-6);
        assert_eq!(e.means()[3], 12.0);
        let mut slow = EstimateSums::new(&rule(), 4);
        // One read in 100 s of CPU: the factor 1/4, then the 2-page floor.
        slow.add(&[0.0, 1.0, 1.0, 1.0], 3, 100.0);
        assert_eq!(slow.means()[3], 2.0);
    }

    #[test]
    fn commands_weigh_by_their_stays() {
        let mut a = EstimateSums::new(&rule(), 2);
        a.add(&[0.0, 0.0], 1, 1.0);
        a.add(&[0.0, 0.0], 1, 1.0);
        let mut mix = EstimateSums::new(&rule(), 2);
        mix.add_weighted(&a, 0.5);
        // No read: what it held (1 page), floored at 2.
        assert_eq!(mix.means()[1], 2.0);
        assert_eq!(mix.stays, 1.0);
    }
}
