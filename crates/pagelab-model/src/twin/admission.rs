//! The load controller's storage test in the twin: how many of the users inside the memory
//! level are in the multiprogramming set, and the storage each stay is projected to need.

use super::fit::Head;
use super::holds::{shares, Candidates};
use crate::lifetime::{write_stays, Lifetime};
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
    /// Each class's processor time per E1 stay and per E2 stay [s].
    stay_s: Vec<[f64; 2]>,
}

impl Admission {
    /// The test of `d`'s load controller, or a fixed `mpl_limit`; `life` gives the classes'
    /// drops, and so their stays.
    pub(super) fn new(d: &ServiceDemands, life: &[Lifetime], mpl_limit: Option<f64>) -> Admission {
        let cpu_s: Vec<f64> = d
            .classes
            .iter()
            .map(|c| c.commands.iter().map(|k| k.probability * k.cpu_s).sum())
            .collect();
        let q1: Vec<f64> = d.classes.iter().map(|c| q1_share(d, c)).collect();
        let stay_s = (0..cpu_s.len())
            .map(|c| stays(cpu_s[c], q1[c], life[c].drops))
            .collect();
        Admission {
            apages: f64::from(d.frames) - f64::from(d.shared_pages),
            overcommit: d.overcommit,
            desirable_rate: d.desirable_rate,
            mpl_limit,
            cpu_s,
            q1,
            stay_s,
        }
    }

    /// Class `c`'s share of processor time in Q1 stays [1].
    pub(super) fn q1_share(&self, c: usize) -> f64 {
        self.q1[c]
    }

    /// Users of each class admitted from `pop` by the load controller, or by a fixed MPL
    /// limit. The storage test admits while the projections `proj` fit in c·APAGES, E1
    /// candidates (a think's or a write's end) before E2 (a slice's end), an E2 stay entering
    /// only when its projection fits and keeping its storage to its slice's end
    /// ([`super::holds`], [`super::fit`]).
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
        // are E1 and E2 candidates as its processor time is Q1's and Q2's. E1 orders the
        // admissions, and an admitted E2 stay holds its storage ([`super::holds`]).
        let kind = |e1: bool| -> Candidates {
            let mut k = Candidates::default();
            for c in 0..pop.len() {
                let n = pop[c] * if e1 { self.q1[c] } else { 1.0 - self.q1[c] };
                k.users += n;
                k.want += n * proj[c].min(share);
                k.leave += n / self.stay_s[c][usize::from(!e1)];
            }
            k
        };
        // Each class's E2 head must fit ([`super::fit`], reading `twin-e2-head-must-fit`).
        let heads: Vec<Head> = (0..pop.len())
            .map(|c| Head {
                weight: pop[c] * (1.0 - self.q1[c]) / self.stay_s[c][1],
                frames: proj[c].min(share),
            })
            .collect();
        let room = self.overcommit * self.apages;
        let (s1, s2) = shares(&kind(true), &kind(false), &heads, room);
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

/// The processor time of an E1 stay and of an E2 stay [s], from a transaction's `cpu_s`, its
/// share `q1` in Q1 and its `drops` at terminal writes and at slices' ends: 1 + d_w stays start
/// from E1 (after a think or a write, `system.rs` `handle_console_done`), d_s from E2 (after a
/// slice's end, `slice_expired`).
fn stays(cpu_s: f64, q1: f64, drops: [f64; 2]) -> [f64; 2] {
    let floor = 1e-9;
    let e2_stays = if drops[1] > 0.0 { drops[1] } else { 1.0 };
    [
        (cpu_s * q1 / (1.0 + drops[0])).max(floor),
        (cpu_s * (1.0 - q1) / e2_stays).max(floor),
    ]
}

/// The share of class `c`'s processor time spent in Q1. Each stay begins with a Q1 slice
/// s₁: a transaction's first, and under a load controller that drops the user at its terminal
/// writes (CP-67's "false" drops) each stay after a write, readmitted to Q1 (`system.rs`
/// `handle_console_done`; reading `twin-write-stays-q1`). A stay of share f of a command's
/// demand T spends E[min(f T, s₁)] in Q1 (T exponential or fixed, as the spec says); the rest
/// is in Q2 stays.
fn q1_share(d: &ServiceDemands, c: &ClassDemand) -> f64 {
    let s1 = d.slices_s[0];
    let (mut q1, mut all) = (0.0, 0.0);
    for k in &c.commands {
        let in_q1: f64 = write_stays(k, d.false_drops)
            .into_iter()
            .map(|f| in_first_slice(f * k.cpu_s, k.exponential, s1))
            .sum();
        q1 += k.probability * in_q1;
        all += k.probability * k.cpu_s;
    }
    if all > 0.0 {
        q1 / all
    } else {
        1.0
    }
}

/// E[min(T, s₁)] for a demand T of mean `mean` [s], exponential or fixed.
fn in_first_slice(mean: f64, exponential: bool, s1: f64) -> f64 {
    if exponential && mean > 0.0 {
        mean * (1.0 - (-s1 / mean).exp())
    } else {
        mean.min(s1)
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
            stay_s: q1.iter().map(|&q| stays(1.0, q, [0.0, 4.0])).collect(),
        }
    }

    #[test]
    fn e1_orders_admissions_and_e2_stays_hold_their_storage() {
        // Class 0: half its processor time in Q1, E1 stays of 0.5 s, E2 of 0.125 s; class 1
        // all in Q2, E2 stays of 0.25 s.
        let t = cp67(100.0, &[0.5, 0.0]);
        // Everyone fits: all admitted.
        assert_eq!(t.admitted(&[2.0, 1.0], &[10.0, 50.0]), vec![2.0, 1.0]);
        // E1: 5 users, 50 frames, leaving at 10/s; E2: 7 users, 150 frames, at 40 + 8 = 48/s,
        // their heads class 0's (10 frames, entering at 40/s) and class 1's (50, at 8/s).
        let a = t.admitted(&[10.0, 2.0], &[10.0, 50.0]);
        let kind = |users, want, leave| Candidates { users, want, leave };
        let heads = [
            Head {
                weight: 40.0,
                frames: 10.0,
            },
            Head {
                weight: 8.0,
                frames: 50.0,
            },
        ];
        let (s1, s2) = shares(
            &kind(5.0, 50.0, 10.0),
            &kind(7.0, 150.0, 48.0),
            &heads,
            100.0,
        );
        assert!((a[0] - 10.0 * (0.5 * s1 + 0.5 * s2)).abs() < 1e-9, "{a:?}");
        assert!((a[1] - 2.0 * s2).abs() < 1e-9, "{a:?}");
        // Every E1 candidate is in, and the E2 heads wait for room: storage is not full.
        assert!(
            s1 == 1.0 && s2 > 0.1 && 50.0 + s2 * 150.0 < 100.0,
            "{s1} {s2}"
        );
        // E1 alone overfills storage, yet the held E2 stays keep a share of it, small now
        // that a 50-page head must find its room.
        let a = t.admitted(&[40.0, 2.0], &[10.0, 50.0]);
        assert!(a[1] > 0.01 && a[1] < 0.02, "{a:?}");
        let frames = (a[0] * 10.0) + a[1] * 50.0;
        assert!((frames - 100.0).abs() < 1e-9, "{a:?}");
    }

    #[test]
    fn each_stay_after_a_dropping_write_starts_with_its_own_q1_slice() {
        let path = format!("{}/../../presets/cp67.toml", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let spec = pagelab_sys::load_spec(&text, &path, &[]).unwrap();
        let mut d = ServiceDemands::of(&spec);
        assert!(d.false_drops && d.slices_s[0] == 0.25, "{:?}", d.slices_s);
        // CMS's nontrivial command alone: 0.6 s exponential, 20 VIOs, 2 writes; the writes
        // end segments 11 and 22 of 23, so its stays take 11/23, 11/23 and 1/23 of it.
        let mut c = d.classes[0].clone();
        c.commands.retain(|k| k.name == "nontrivial");
        c.commands[0].probability = 1.0;
        assert_eq!((c.commands[0].vio, c.commands[0].console_writes), (20, 2));
        // Σ f·0.6·(1 − exp(−0.25 / (f·0.6))) / 0.6, by hand: 2 × 0.16688 + 0.02609 over 0.6.
        assert!(
            (q1_share(&d, &c) - 0.59975).abs() < 1e-4,
            "{}",
            q1_share(&d, &c)
        );
        // Kept in queue across its writes, one Q1 slice: 1 − exp(−0.25 / 0.6).
        d.false_drops = false;
        assert!(
            (q1_share(&d, &c) - 0.34076).abs() < 1e-4,
            "{}",
            q1_share(&d, &c)
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
