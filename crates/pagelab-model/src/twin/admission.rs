//! The load controller's storage test in the twin: how many of the users inside the memory
//! level are in the multiprogramming set, and the storage each stay is projected to need.

use crate::lifetime::Lifetime;
use pagelab_sys::demands::{ClassDemand, ServiceDemands};

/// The storage test's settings, read once from the spec's demands.
pub(super) struct Admission {
    /// APAGES: the frames programs may be projected into [frames].
    apages: f64,
    /// c, the storage test's overcommitment [1].
    overcommit: f64,
    /// CP-67's desirable paging rate R_d (none under VM/370) [1/s of CPU].
    desirable_rate: Option<f64>,
    /// A fixed limit on the multiprogramming level in place of the test [users].
    mpl_limit: Option<f64>,
    /// Each class's processor time per transaction [s].
    cpu_s: Vec<f64>,
    /// Each class's share of processor time in Q1 stays [1].
    q1: Vec<f64>,
}

impl Admission {
    /// The test of `d`'s load controller, or a fixed `mpl_limit`.
    pub(super) fn new(d: &ServiceDemands, mpl_limit: Option<f64>) -> Admission {
        let cpu_s = d
            .classes
            .iter()
            .map(|c| c.commands.iter().map(|k| k.probability * k.cpu_s).sum())
            .collect();
        Admission {
            apages: f64::from(d.frames) - f64::from(d.shared_pages),
            overcommit: d.overcommit,
            desirable_rate: d.desirable_rate,
            mpl_limit,
            cpu_s,
            q1: d.classes.iter().map(|c| q1_share(d, c)).collect(),
        }
    }

    /// Class `c`'s share of processor time in Q1 stays [1].
    pub(super) fn q1_share(&self, c: usize) -> f64 {
        self.q1[c]
    }

    /// Users of each class admitted from `pop` by the load controller, or by a fixed MPL
    /// limit. The storage test admits while the projections `proj` fit in c·APAGES, E1
    /// candidates (a think's or a write's end) before E2 (a slice's end).
    pub(super) fn admitted(&self, pop: &[f64], proj: &[f64]) -> Vec<f64> {
        let total: f64 = pop.iter().sum();
        if total <= 0.0 {
            return pop.to_vec();
        }
        // An empty set admits its head whatever its projection.
        let floor = 1.0_f64.min(total) / total;
        if let Some(limit) = self.mpl_limit {
            let s = (limit / total).clamp(floor, 1.0);
            return pop.iter().map(|p| p * s).collect();
        }
        // VM/370 projects from the resident set at page reads, which cannot exceed a user's
        // share of storage: a crowded set's projections shrink to that share.
        let share = if self.desirable_rate.is_none() {
            self.overcommit * self.apages / total
        } else {
            f64::INFINITY
        };
        // E1 candidates before E2 (reading `twin-eligible-priority`): a class's users inside
        // are E1 and E2 candidates as its processor time is Q1's and Q2's.
        let room = self.overcommit * self.apages;
        let want = |e1: bool| -> f64 {
            (0..pop.len())
                .map(|c| {
                    let phi = if e1 { self.q1[c] } else { 1.0 - self.q1[c] };
                    pop[c] * phi * proj[c].min(share)
                })
                .sum()
        };
        let e1 = want(true);
        let s1 = (room / e1.max(1e-9)).min(1.0);
        let s2 = ((room - e1).max(0.0) / want(false).max(1e-9)).min(1.0);
        let a: Vec<f64> = (0..pop.len())
            .map(|c| pop[c] * (self.q1[c] * s1 + (1.0 - self.q1[c]) * s2))
            .collect();
        let n: f64 = a.iter().sum();
        if n < floor * total {
            return pop.iter().map(|p| p * floor).collect();
        }
        a
    }

    /// The storage a stay of class `c` with lifetime curve `l` is projected to need
    /// [frames]: its working set under VM/370; under CP-67, the storage at which it would page
    /// at the desirable rate per CPU second (bard §12; `load_control/cp67_scheduler.rs`), read
    /// off its curve: there the start of the twin's fixed point with the scheduler's estimate.
    pub(super) fn projection(&self, l: &Lifetime, c: usize) -> f64 {
        let Some(rate) = self.desirable_rate else {
            return l.working_set.max(1.0);
        };
        let allowed = rate * self.cpu_s[c];
        l.points
            .iter()
            .find(|p| p.faults <= allowed)
            .map_or(l.working_set, |p| f64::from(p.frames))
            .max(1.0)
    }
}

/// The share of class `c`'s processor time spent in Q1: the first stay's slice of each
/// transaction, E[min(T, Q1 slice)] over its commands' CPU demands T (exponential or fixed,
/// as the spec says); the rest is in Q2 stays.
fn q1_share(d: &ServiceDemands, c: &ClassDemand) -> f64 {
    let s1 = d.slices_s[0];
    let (mut q1, mut all) = (0.0, 0.0);
    for k in &c.commands {
        let in_q1 = if k.exponential && k.cpu_s > 0.0 {
            k.cpu_s * (1.0 - (-s1 / k.cpu_s).exp())
        } else {
            k.cpu_s.min(s1)
        };
        q1 += k.probability * in_q1;
        all += k.probability * k.cpu_s;
    }
    if all > 0.0 {
        q1 / all
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CP-67's test (no share cap) over `apages` frames with the classes' Q1 shares `q1`.
    fn cp67(apages: f64, q1: &[f64]) -> Admission {
        Admission {
            apages,
            overcommit: 1.0,
            desirable_rate: Some(65.0),
            mpl_limit: None,
            cpu_s: vec![1.0; q1.len()],
            q1: q1.to_vec(),
        }
    }

    #[test]
    fn e1_candidates_fill_storage_before_e2() {
        let t = cp67(100.0, &[0.5, 0.0]);
        // Everyone fits: all admitted.
        assert_eq!(t.admitted(&[2.0, 1.0], &[10.0, 50.0]), vec![2.0, 1.0]);
        // E1 wants 10 × 0.5 × 10 = 50 of 100; E2 wants 50 + 2 × 50 = 150 of the 50 left: 1/3.
        let a = t.admitted(&[10.0, 2.0], &[10.0, 50.0]);
        assert!((a[0] - 10.0 * (0.5 + 0.5 / 3.0)).abs() < 1e-12, "{a:?}");
        assert!((a[1] - 2.0 / 3.0).abs() < 1e-12, "{a:?}");
        // E1 alone overfills storage: E1 in proportion, no E2 stay.
        let a = t.admitted(&[40.0, 2.0], &[10.0, 50.0]);
        assert!(
            (a[0] - 40.0 * 0.5 * 0.5).abs() < 1e-12 && a[1] == 0.0,
            "{a:?}"
        );
    }

    #[test]
    fn an_empty_set_admits_its_head_and_a_limit_replaces_the_test() {
        let t = cp67(100.0, &[0.0]);
        let a = t.admitted(&[4.0], &[500.0]);
        assert!((a[0] - 1.0).abs() < 1e-12, "{a:?}");
        let limited = Admission {
            mpl_limit: Some(3.0),
            ..cp67(100.0, &[1.0, 1.0])
        };
        assert_eq!(limited.admitted(&[4.0, 2.0], &[1.0, 1.0]), vec![2.0, 1.0]);
    }
}
