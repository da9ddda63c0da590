//! Bard's Ψ-scheduler (bard 1975 §8–10, Table 1): feed-forward admission on storage
//! requirements projected to a minimum page survival index, and feedback on the system's Ψs*,
//! paging rate and steal ratio.
//!
//! ```text
//!   queue-drop of an activation (Q1 or Q2):  A_obs = S/Q (resident pages summed at page reads)
//!     A(Ψc) = (Ψc/Ψs*) A_obs            if Ψs* < Ψc              (eq. 7)
//!           = (Ψc/Ψs*)^β A_obs          if Ψs* ≥ Ψc              (eq. 8)
//!     A_k = A(Ψm) = A(Ψc)               (bard §9: "we simply took A(Ψc) = A(Ψm)")
//!     Ā_k = α Ā_{k−1} + (1 − α) A_k                              (eq. 9)
//!     A*_{k+1} = Ā_k + ρ (A_k − Ā_k)                             (eq. 10), per activation type
//!   admission: eligible users in priority order while Σ A*_i ≤ N and MPL < the MPL limit
//!   every monitor interval (30 s or 10 scan cycles): violated = {Ψs* < Ψm, page reads/s > P_M,
//!     steal ratio > S_M}; strategy 1 lowers the MPL limit, 2 lowers N, 3 lowers N and
//!     deactivates at once to meet it; all in range: relax gradually.
//! ```
//!
//! Choices where bard is silent (fidelity notes §4.5): "gradually relaxed" is one user (or 5 % of
//! N) per evaluation; "remove some programs" deactivates one user per evaluation; strategies 2
//! and 3 lower N below the storage committed to the active set by the same 5 % step. Ψs* is that
//! of the last completed monitor interval (bard §9's "the period in question"); before the
//! first, or after an interval without a scan cycle (no paging pressure), A_obs is taken as is.

use crate::load_control::{Candidate, LoadAction, LoadView, Projection, Queue, StayStats};
use crate::monitor::{psi_s_star, steal_ratio, Counters};
use serde::{Deserialize, Serialize};

/// Parameters of the Ψ-scheduler; defaults are bard's Table 1 for 768 KB.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PsiSchedulerSpec {
    /// Q1 in-queue time slice [s of CPU] (bard §9: 0.25 s).
    #[serde(default = "q1_slice")]
    pub q1_slice_s: f64,
    /// Q2 in-queue time slice [s of CPU] (bard §9: 2.5 s).
    #[serde(default = "q2_slice")]
    pub q2_slice_s: f64,
    /// Keep the user in queue across intra-transaction terminal writes.
    #[serde(default)]
    pub eliminate_false_drops: bool,
    /// Ψc, the critical Ψ of eqs. 7–8 [interruptions] (Table 1: 13 at 768 KB, 11 at 512 KB).
    #[serde(default = "thirteen")]
    pub psi_c: f64,
    /// Ψm, the minimum allowed Ψ [interruptions] (Table 1: as Ψc).
    #[serde(default = "thirteen")]
    pub psi_m: f64,
    /// β, the exponent above Ψc (eq. 8; Table 1: 0).
    #[serde(default)]
    pub beta: f64,
    /// α, the exponential smoothing constant (eq. 9; Table 1: 0.9).
    #[serde(default = "alpha")]
    pub alpha: f64,
    /// ρ, the regression-to-mean constant (eq. 10; Table 1: 0.5).
    #[serde(default = "rho")]
    pub rho: f64,
    /// Ā0 for interactive (Q1) activations [pages] (Table 1: 5).
    #[serde(default = "five")]
    pub a0_q1: f64,
    /// Ā0 for non-interactive (Q2) activations [pages] (Table 1: 20).
    #[serde(default = "twenty")]
    pub a0_q2: f64,
    /// Carry A(Ψc) to A(Ψm) by inverting eqs. 7–8 (bard §9 describes it) instead of taking
    /// A(Ψm) = A(Ψc) as the tested implementation did.
    #[serde(default)]
    pub map_to_psi_m: bool,
    /// Feedback strategy of bard §10: 1 (MPL limit), 2 (lower N), 3 (lower N, deactivate now).
    #[serde(default = "one_u")]
    pub strategy: u8,
    /// P_M, the maximum allowed paging rate [page reads/s] (Table 1: 65).
    #[serde(default = "p_max")]
    pub p_max: f64,
    /// S_M, the maximum allowed steal ratio [fraction] (Table 1: 0.8).
    #[serde(default = "s_max")]
    pub s_max: f64,
    /// MPL limit relaxation per evaluation in range, strategy 1 [users] (fidelity §4.5 [A]).
    #[serde(default = "one_u32")]
    pub relax_users: u32,
    /// Step of N, down when violated and up when in range, strategies 2–3 [fraction of N]
    /// (fidelity §4.5 [A]).
    #[serde(default = "five_pct")]
    pub n_step: f64,
    /// When step (1) of bard §10 lowers the limit again (MPL, or N for strategies 2–3) [A].
    #[serde(default)]
    pub cut: Cut,
    /// Feedback period [s]: the control variables are averaged and set against their limits
    /// over this time, while Ψs* of eqs. 7–8 stays that of the last monitor interval (bard §5's
    /// "30 seconds or 10 cycles"). Bard §10 says only "check periodically"; absent, feedback
    /// acts at every monitor interval (docs/readings.md, `psi-feedback-period`).
    #[serde(default)]
    pub feedback_s: Option<f64>,
}

/// Bard §10, step (1): "If at least one control variable falls outside the prescribed limit,
/// reduce the maximum allowed MPL below the current level"; (3): "After all variables have
/// returned to their permitted operating ranges, the limit imposed in (1) is gradually
/// relaxed". Whether (1) acts at every evaluation out of range or once per excursion is not
/// said; both readings are kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cut {
    /// At every evaluation with a variable out of range (a level-triggered controller).
    #[default]
    EveryInterval,
    /// Once, when the variables leave their ranges; held while they stay out ("the limit
    /// imposed in (1)"), step (2) still acting whenever all are out.
    OnEntry,
}

fn q1_slice() -> f64 {
    0.25
}
fn q2_slice() -> f64 {
    2.5
}
fn thirteen() -> f64 {
    13.0
}
fn alpha() -> f64 {
    0.9
}
fn rho() -> f64 {
    0.5
}
fn five() -> f64 {
    5.0
}
fn twenty() -> f64 {
    20.0
}
fn one_u() -> u8 {
    1
}
fn p_max() -> f64 {
    65.0
}
fn s_max() -> f64 {
    0.8
}
fn one_u32() -> u32 {
    1
}
fn five_pct() -> f64 {
    0.05
}

impl PsiSchedulerSpec {
    /// The first parameter out of range: (key under `load_control`, expected form).
    pub fn check(&self) -> Result<(), (&'static str, &'static str)> {
        let pos = |x: f64| x.is_finite() && x > 0.0;
        let unit = |x: f64| x.is_finite() && (0.0..=1.0).contains(&x);
        if !pos(self.q1_slice_s) {
            return Err(("q1_slice_s", "expected a positive CPU time [s]"));
        }
        if !pos(self.q2_slice_s) {
            return Err(("q2_slice_s", "expected a positive CPU time [s]"));
        }
        if !pos(self.psi_c) {
            return Err(("psi_c", "expected a positive survival index"));
        }
        if !pos(self.psi_m) {
            return Err(("psi_m", "expected a positive survival index"));
        }
        if !(self.beta.is_finite() && self.beta >= 0.0) {
            return Err(("beta", "expected an exponent ≥ 0"));
        }
        if !unit(self.alpha) {
            return Err(("alpha", "expected a constant in [0, 1]"));
        }
        if !unit(self.rho) {
            return Err(("rho", "expected a constant in [0, 1]"));
        }
        if !(self.a0_q1.is_finite() && self.a0_q1 >= 0.0) {
            return Err(("a0_q1", "expected pages ≥ 0"));
        }
        if !(self.a0_q2.is_finite() && self.a0_q2 >= 0.0) {
            return Err(("a0_q2", "expected pages ≥ 0"));
        }
        if !(1..=3).contains(&self.strategy) {
            return Err(("strategy", "expected 1, 2 or 3 (bard §10)"));
        }
        if !pos(self.p_max) {
            return Err(("p_max", "expected a positive paging rate [page reads/s]"));
        }
        if !pos(self.s_max) {
            return Err(("s_max", "expected a positive steal ratio"));
        }
        if !(self.n_step.is_finite() && self.n_step > 0.0 && self.n_step < 1.0) {
            return Err(("n_step", "expected a fraction of N in (0, 1)"));
        }
        if self.feedback_s.is_some_and(|t| !pos(t)) {
            return Err(("feedback_s", "expected a positive period [s]"));
        }
        Ok(())
    }
}

/// Eqs. 7–8: A(Ψc) from the observed A(Ψs*); `psi` absent or not positive leaves it as is.
pub fn a_at_psi_c(a_obs: f64, psi: Option<f64>, psi_c: f64, beta: f64) -> f64 {
    match psi {
        Some(p) if p > 0.0 && p.is_finite() => {
            if p < psi_c {
                psi_c / p * a_obs
            } else {
                (psi_c / p).powf(beta) * a_obs
            }
        }
        _ => a_obs,
    }
}

/// Eqs. 7–8 solved the other way (bard §9): A(Ψm) from A(Ψc).
pub fn a_at_psi_m(a_c: f64, psi_c: f64, psi_m: f64, beta: f64) -> f64 {
    if psi_m < psi_c {
        psi_m / psi_c * a_c
    } else {
        (psi_m / psi_c).powf(beta) * a_c
    }
}

/// Eq. 9 then eq. 10: (Ā_k, A*_{k+1}) from Ā_{k−1} and A_k.
pub fn smooth_and_predict(abar_prev: f64, a_k: f64, alpha: f64, rho: f64) -> (f64, f64) {
    let abar = alpha * abar_prev + (1.0 - alpha) * a_k;
    (abar, abar + rho * (a_k - abar))
}

/// What feedback asks the system to do at once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Evict {
    /// Deactivate at least this many users, lowest priority first [users].
    pub at_least: u32,
    /// Then go on deactivating while the committed storage exceeds this [pages].
    pub until_sumwss: f64,
}

impl Evict {
    /// Nothing to do.
    pub const NONE: Evict = Evict {
        at_least: 0,
        until_sumwss: f64::INFINITY,
    };
}

/// Control variables of one evaluation interval (bard §6 and §10).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measures {
    /// Ψs* of the interval (eq. 5); `None` without a scan cycle.
    pub psi_s_star: Option<f64>,
    /// Page reads per second.
    pub page_read_rate: f64,
    /// Fraction of pages read that replaced pages of active users (bard §6).
    pub steal_ratio: f64,
}

impl Measures {
    /// The measures of an interval's counter differences.
    pub fn of(d: &Counters) -> Measures {
        let t = d.time_s.max(f64::MIN_POSITIVE);
        Measures {
            psi_s_star: psi_s_star(d),
            page_read_rate: d.page_reads / t,
            steal_ratio: steal_ratio(d),
        }
    }
}

/// The Ψ-scheduler's state.
#[derive(Clone, Debug)]
pub struct PsiScheduler {
    /// Parameters.
    pub p: PsiSchedulerSpec,
    /// Ψs* of the last evaluation interval.
    pub psi_star: Option<f64>,
    /// Strategy 1's maximum MPL; `None`: no limit.
    pub mpl_limit: Option<u32>,
    /// Strategies 2–3's storage N used in the test [pages]; `None`: all pageable frames.
    pub n_limit: Option<f64>,
    /// A control variable was out of range at the last evaluation.
    was_out: bool,
    /// Monitor intervals since the last feedback, joined (with `feedback_s`); boxed, so that
    /// the controller stays small beside the other load controls.
    pending: Box<Counters>,
}

fn qi(q: Queue) -> usize {
    match q {
        Queue::Q1 => 0,
        Queue::Q2 => 1,
    }
}

impl PsiScheduler {
    /// A scheduler with `p`, no estimate and no limits yet.
    pub fn new(p: PsiSchedulerSpec) -> PsiScheduler {
        PsiScheduler {
            p,
            psi_star: None,
            mpl_limit: None,
            n_limit: None,
            was_out: false,
            pending: Box::default(),
        }
    }

    /// A user's state before its first activation: Ā0 and A*1 = Ā0 per activation type.
    pub fn initial_projection(&self) -> Projection {
        let a = [self.p.a0_q1, self.p.a0_q2];
        Projection {
            p: self.p.a0_q1,
            last_a: self.p.a0_q1,
            last_p: self.p.a0_q1,
            abar: a,
            next: a,
        }
    }

    /// In-queue time slice of `q` [ns].
    pub fn slice_ns(&self, q: Queue) -> u64 {
        let s = match q {
            Queue::Q1 => self.p.q1_slice_s,
            Queue::Q2 => self.p.q2_slice_s,
        };
        (s * 1e9).round() as u64
    }

    /// A*_{k+1} for a prospective activation of type `q` (bard §9, last paragraph).
    pub fn projected(&self, proj: &Projection, q: Queue) -> f64 {
        proj.next[qi(q)]
    }

    /// Updates Ā and A* of the activation type just ended (eqs. 7–10).
    pub fn on_queue_drop(&mut self, proj: &mut Projection, stay: &StayStats) {
        let q = qi(stay.queue.unwrap_or(Queue::Q2));
        let a_obs = if stay.page_reads > 0 {
            stay.resident_at_reads as f64 / stay.page_reads as f64
        } else {
            f64::from(stay.resident_now)
        };
        let a_c = a_at_psi_c(a_obs, self.psi_star, self.p.psi_c, self.p.beta);
        let a_k = if self.p.map_to_psi_m {
            a_at_psi_m(a_c, self.p.psi_c, self.p.psi_m, self.p.beta)
        } else {
            a_c
        };
        let (abar, next) = smooth_and_predict(proj.abar[q], a_k, self.p.alpha, self.p.rho);
        proj.abar[q] = abar;
        proj.next[q] = next;
        proj.last_a = a_k;
        proj.last_p = next;
        proj.p = next;
    }

    /// Feed-forward: admit in priority order while Σ A* ≤ N and the MPL is under its limit.
    pub fn admit(&mut self, view: &LoadView<'_>, out: &mut Vec<LoadAction>) {
        let n = self.storage(view.apages);
        let mut sum = view.sumwss;
        let first = out.len();
        for c in view.eligible {
            let in_queue = view.in_queue + (out.len() - first) as u32;
            // A lone user can always run (the base systems' deviation, load_control.rs).
            if in_queue > 0 {
                if self.mpl_limit.is_some_and(|l| in_queue >= l) {
                    break;
                }
                if sum + c.projected > n {
                    break;
                }
            }
            admit_one(c, out);
            sum += c.projected;
        }
    }

    /// N as used in the storage test [pages].
    pub fn storage(&self, apages: u32) -> f64 {
        let n = f64::from(apages);
        self.n_limit.map_or(n, |l| l.min(n))
    }

    /// The end of a monitor interval with counter differences `d`: Ψs* for eqs. 7–8 is the
    /// interval's; feedback acts on the intervals joined since the last feedback once they span
    /// `feedback_s` (at once without it).
    pub fn on_sample(&mut self, d: &Counters, mpl: u32, sumwss: f64, apages: u32) -> Evict {
        let Some(period) = self.p.feedback_s else {
            return self.on_interval(&Measures::of(d), mpl, sumwss, apages);
        };
        let psi = psi_s_star(d);
        *self.pending = self.pending.plus(d);
        // A hair under the period: a 30-s interval sampled at 29.999... s still counts.
        let evict = if self.pending.time_s >= period * (1.0 - 1e-9) {
            let m = Measures::of(&std::mem::take(&mut *self.pending));
            self.on_interval(&m, mpl, sumwss, apages)
        } else {
            Evict::NONE
        };
        self.psi_star = psi;
        evict
    }

    /// Feedback at the end of an evaluation interval (bard §10). `mpl` is the current MPL,
    /// `sumwss` the storage committed to the active set.
    pub fn on_interval(&mut self, m: &Measures, mpl: u32, sumwss: f64, apages: u32) -> Evict {
        self.psi_star = m.psi_s_star;
        let violated = [
            m.psi_s_star.is_some_and(|p| p < self.p.psi_m),
            m.page_read_rate > self.p.p_max,
            m.steal_ratio > self.p.s_max,
        ];
        let n_bad = violated.iter().filter(|&&v| v).count();
        let n = f64::from(apages);
        let step = self.p.n_step * n;
        let entering = !self.was_out;
        self.was_out = n_bad > 0;
        if n_bad == 0 {
            // (3) all back in range: relax gradually.
            match self.p.strategy {
                1 => self.mpl_limit = self.mpl_limit.map(|l| l + self.p.relax_users),
                _ => {
                    self.n_limit = self.n_limit.map(|l| l + step).filter(|&l| l < n);
                }
            }
            return Evict::NONE;
        }
        let all = n_bad == violated.len();
        if self.p.cut == Cut::OnEntry && !entering {
            // The limit imposed on entry holds; (2) still removes a program when all are out,
            // and strategy 3 keeps the active set within the N it set.
            return match (self.p.strategy, self.n_limit) {
                (3, Some(l)) => Evict {
                    at_least: 0,
                    until_sumwss: l,
                },
                _ => Evict {
                    at_least: u32::from(all),
                    until_sumwss: f64::INFINITY,
                },
            };
        }
        match self.p.strategy {
            1 => {
                // (1) a limit below the current level, met by attrition.
                let l = mpl.saturating_sub(1).max(1);
                self.mpl_limit = Some(self.mpl_limit.map_or(l, |old| old.min(l)));
                Evict {
                    at_least: u32::from(all),
                    until_sumwss: f64::INFINITY,
                }
            }
            s => {
                // Strategy 2: N below what the active set holds; 3: also met at once.
                let cur = self.storage(apages).min(sumwss);
                let l = (cur - step).max(step);
                self.n_limit = Some(l);
                if s == 2 {
                    Evict {
                        at_least: u32::from(all),
                        until_sumwss: f64::INFINITY,
                    }
                } else {
                    Evict {
                        at_least: 0,
                        until_sumwss: l,
                    }
                }
            }
        }
    }
}

fn admit_one(c: &Candidate, out: &mut Vec<LoadAction>) {
    out.push(LoadAction::Admit {
        user: c.user,
        queue: c.queue,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> PsiSchedulerSpec {
        toml::from_str("").unwrap()
    }

    #[test]
    fn defaults_are_table_1() {
        let p = spec();
        assert_eq!((p.psi_c, p.psi_m, p.beta), (13.0, 13.0, 0.0));
        assert_eq!((p.alpha, p.rho, p.a0_q1, p.a0_q2), (0.9, 0.5, 5.0, 20.0));
        assert_eq!((p.p_max, p.s_max, p.strategy), (65.0, 0.8, 1));
    }

    #[test]
    fn eqs_7_and_8_on_hand_cases() {
        // Ψs* = 6.5 < Ψc = 13: A(Ψc) = 13/6.5 × 10 = 20.
        assert_eq!(a_at_psi_c(10.0, Some(6.5), 13.0, 0.0), 20.0);
        // Ψs* = 26 ≥ 13, β = 0: flat, 10; β = 0.5: (1/2)^0.5 × 10.
        assert_eq!(a_at_psi_c(10.0, Some(26.0), 13.0, 0.0), 10.0);
        let a = a_at_psi_c(10.0, Some(26.0), 13.0, 0.5);
        assert!((a - 10.0 / 2f64.sqrt()).abs() < 1e-12);
        // No estimate: as observed.
        assert_eq!(a_at_psi_c(10.0, None, 13.0, 0.25), 10.0);
        // Reverse to Ψm: Ψm = 6.5 < Ψc halves; Ψm = 52 ≥ Ψc with β = 0.5 doubles.
        assert_eq!(a_at_psi_m(20.0, 13.0, 6.5, 0.0), 10.0);
        assert_eq!(a_at_psi_m(20.0, 13.0, 52.0, 0.5), 40.0);
    }

    #[test]
    fn eqs_9_and_10_on_a_hand_case() {
        // Ā0 = 20, A1 = 30, α = 0.9: Ā1 = 18 + 3 = 21; A*2 = 21 + 0.5 × 9 = 25.5.
        let (abar, next) = smooth_and_predict(20.0, 30.0, 0.9, 0.5);
        assert!((abar - 21.0).abs() < 1e-12 && (next - 25.5).abs() < 1e-12);
    }

    #[test]
    fn queue_drop_updates_only_its_activation_type() {
        let mut s = PsiScheduler::new(spec());
        s.psi_star = Some(6.5);
        let mut pr = s.initial_projection();
        // Q2 stay, S/Q = 120/10 = 12 at Ψs* = 6.5: A = 24; Ā = 18 + 2.4 = 20.4; A* = 22.2.
        s.on_queue_drop(
            &mut pr,
            &StayStats {
                page_reads: 10,
                resident_at_reads: 120,
                resident_now: 3,
                queue: Some(Queue::Q2),
                cpu_ns: 0,
            },
        );
        assert!((pr.abar[1] - 20.4).abs() < 1e-12 && (pr.next[1] - 22.2).abs() < 1e-12);
        assert_eq!((pr.abar[0], pr.next[0]), (5.0, 5.0));
        assert_eq!(s.projected(&pr, Queue::Q1), 5.0);
        assert!((s.projected(&pr, Queue::Q2) - 22.2).abs() < 1e-12);
    }

    fn cand(user: u32, queue: Queue, projected: f64) -> Candidate {
        Candidate {
            user,
            queue,
            projected,
        }
    }

    #[test]
    fn admits_while_the_sum_fits_in_n() {
        let mut s = PsiScheduler::new(spec());
        let el = [
            cand(1, Queue::Q1, 5.0),
            cand(2, Queue::Q2, 20.0),
            cand(3, Queue::Q1, 5.0),
        ];
        let mut out = Vec::new();
        // 130 frames, 100 committed: 105 fits, 125 fits, 130 fits (≤ N).
        s.admit(
            &LoadView {
                apages: 130,
                sumwss: 100.0,
                in_queue: 4,
                eligible: &el,
            },
            &mut out,
        );
        assert_eq!(out.len(), 3);
        // 106 committed: 111, then 131 > 130 stops at user 2 although user 3 would fit.
        out.clear();
        s.admit(
            &LoadView {
                apages: 130,
                sumwss: 106.0,
                in_queue: 4,
                eligible: &el,
            },
            &mut out,
        );
        assert_eq!(
            out,
            vec![LoadAction::Admit {
                user: 1,
                queue: Queue::Q1
            }]
        );
        // An MPL limit of 5 admits one more user only.
        s.mpl_limit = Some(5);
        out.clear();
        s.admit(
            &LoadView {
                apages: 130,
                sumwss: 0.0,
                in_queue: 4,
                eligible: &el,
            },
            &mut out,
        );
        assert_eq!(out.len(), 1);
    }

    fn measures(psi: f64, rate: f64, steal: f64) -> Measures {
        Measures {
            psi_s_star: Some(psi),
            page_read_rate: rate,
            steal_ratio: steal,
        }
    }

    #[test]
    fn strategy_1_limits_the_mpl_then_relaxes() {
        let mut s = PsiScheduler::new(spec());
        // Ψ = 10 < 13 only: limit 6 − 1 = 5, no deactivation.
        assert_eq!(
            s.on_interval(&measures(10.0, 20.0, 0.5), 6, 90.0, 130),
            Evict::NONE
        );
        assert_eq!(s.mpl_limit, Some(5));
        // All three violated: one user out at once; the limit never rises while violated.
        let e = s.on_interval(&measures(10.0, 70.0, 0.9), 7, 90.0, 130);
        assert_eq!(e.at_least, 1);
        assert_eq!(s.mpl_limit, Some(5));
        // All in range: + 1 per evaluation.
        s.on_interval(&measures(15.0, 20.0, 0.5), 5, 90.0, 130);
        assert_eq!(s.mpl_limit, Some(6));
        assert_eq!(s.psi_star, Some(15.0));
    }

    #[test]
    fn a_cut_on_entry_holds_while_out_of_range_and_every_interval_cuts_again() {
        // Ψ = 10 < 13 twice; the MPL has come down to the first limit by the second evaluation.
        let out = measures(10.0, 20.0, 0.5);
        let mut every = PsiScheduler::new(spec());
        every.on_interval(&out, 6, 90.0, 130);
        every.on_interval(&out, 5, 90.0, 130);
        assert_eq!(every.mpl_limit, Some(4));
        let mut p = spec();
        p.cut = Cut::OnEntry;
        let mut entry = PsiScheduler::new(p);
        entry.on_interval(&out, 6, 90.0, 130);
        assert_eq!(entry.on_interval(&out, 5, 90.0, 130), Evict::NONE);
        assert_eq!(entry.mpl_limit, Some(5));
        // All three out: step (2) still removes a program.
        assert_eq!(
            entry
                .on_interval(&measures(10.0, 70.0, 0.9), 5, 90.0, 130)
                .at_least,
            1
        );
        // Back in range, then out again: a new excursion cuts from the current level.
        entry.on_interval(&measures(15.0, 20.0, 0.5), 5, 90.0, 130);
        assert_eq!(entry.mpl_limit, Some(6));
        entry.on_interval(&out, 3, 90.0, 130);
        assert_eq!(entry.mpl_limit, Some(2));
    }

    fn interval(t: f64, page_reads: f64, cycles: f64) -> Counters {
        Counters {
            time_s: t,
            faults: page_reads,
            page_reads,
            mpl_user_s: 3.0 * t,
            scan_cycles: cycles,
            ..Counters::default()
        }
    }

    #[test]
    fn a_feedback_period_joins_intervals_and_keeps_each_intervals_psi() {
        let mut p = spec();
        p.feedback_s = Some(30.0);
        let mut s = PsiScheduler::new(p);
        // 10 s at 100 reads/s (over P_M = 65): no feedback yet; Ψs* is this interval's.
        let busy = interval(10.0, 1000.0, 10.0);
        assert_eq!(s.on_sample(&busy, 6, 90.0, 130), Evict::NONE);
        assert_eq!(s.mpl_limit, None);
        assert_eq!(s.psi_star, psi_s_star(&busy));
        // Two quiet 10-s intervals: 1200 reads in 30 s = 40/s, in range: nothing to cut.
        let quiet = interval(10.0, 100.0, 1.0);
        s.on_sample(&quiet, 6, 90.0, 130);
        assert_eq!(s.on_sample(&quiet, 6, 90.0, 130), Evict::NONE);
        assert_eq!((s.mpl_limit, s.psi_star), (None, psi_s_star(&quiet)));
        // Without a period the first busy interval alone cuts the limit.
        let mut at_once = PsiScheduler::new(spec());
        at_once.on_sample(&busy, 6, 90.0, 130);
        assert_eq!(at_once.mpl_limit, Some(5));
    }

    #[test]
    fn strategies_2_and_3_lower_n() {
        let mut p = spec();
        p.strategy = 2;
        let mut s = PsiScheduler::new(p.clone());
        // Committed 100 of 130: N = 100 − 6.5 = 93.5; attrition only.
        assert_eq!(
            s.on_interval(&measures(10.0, 20.0, 0.5), 6, 100.0, 130),
            Evict::NONE
        );
        assert_eq!(s.n_limit, Some(93.5));
        // In range: + 6.5 per evaluation, until N is whole again.
        s.on_interval(&measures(14.0, 20.0, 0.5), 6, 80.0, 130);
        assert_eq!(s.n_limit, Some(100.0));
        for _ in 0..5 {
            s.on_interval(&measures(14.0, 20.0, 0.5), 6, 80.0, 130);
        }
        assert_eq!(s.n_limit, None);
        p.strategy = 3;
        let mut s = PsiScheduler::new(p);
        let e = s.on_interval(&measures(10.0, 20.0, 0.5), 6, 100.0, 130);
        assert_eq!(e.at_least, 0);
        assert_eq!(e.until_sumwss, 93.5);
    }

    #[test]
    fn measures_of_an_interval() {
        let d = Counters {
            time_s: 30.0,
            page_reads: 600.0,
            steals: 330.0,
            stolen_reads: 300.0,
            faults: 600.0,
            vios: 300.0,
            mpl_user_s: 90.0,
            scan_cycles: 10.0,
            ..Default::default()
        };
        let m = Measures::of(&d);
        // Ψs* = 1.5 × 900 × 30 / (90 × 10) = 45.
        assert_eq!(m.psi_s_star, Some(45.0));
        assert_eq!((m.page_read_rate, m.steal_ratio), (20.0, 0.5));
    }
}
