//! Load control: who enters and leaves the multiprogramming set, with which time slice.
//!
//! ```text
//!   think ends ──► eligible list (E1: Q1 candidates, then E2: Q2 candidates; FIFO within each)
//!                     │ admit()  (storage test)
//!                     ▼
//!   multiprogramming set (Q1 | Q2) ──► queue-drop: transaction end, terminal write (a false
//!                     ▲                 drop, unless eliminated), Q1 slice end (→ E2),
//!                     └──────────────── Q2 slice end (→ E2)
//! ```
//!
//! Lifecycle, as the system calls the hooks: at every queue-drop the system measures the stay
//! and calls [`LoadController::on_queue_drop`], which updates the user's projected working set;
//! then, and whenever a user joins the eligible list, it calls [`LoadController::admit`] with a
//! view of storage and the eligible users in priority order, and carries out the returned
//! [`LoadAction`]s. Policies return decisions; the system moves users.
//!
//! **VM/370** (tetzlaff, "Background"; fidelity notes §2.2–2.3, VM/370 R6 Logic p.146 and System
//! Programmer's Guide p.108): admit the eligible head while SUMWSS + P ≤ APAGES, or
//! APAGES × 1.25 for a Q1 candidate; a Q2 candidate that does not fit is still admitted if
//! 0.75 P frames remain uncommitted; P is projected at queue-drop from A, the stay's mean
//! resident set sampled at page reads, with the damping rule `P = (A + P)/2` when the trend
//! reverses, else `P = A`.
//!
//! **CP-67** (bard §6, §8, §12 and ref. [6]): storage estimated per program so that it would
//! page at a desirable rate, admission while the estimates fit: [`crate::cp67_scheduler`].
//!
//! **Ψ-scheduler** (bard §8–10): the `psi` kind, in [`psi_scheduler`].
//!
//! Deviation (both): when no user is in queue the eligible head is admitted whatever its
//! projection (VM-SPG p.108 lets an oversized Q2 user in "when no other users are in Q1 or Q2";
//! we apply the same to Q1 so that a lone user can always run).

pub mod cp67_scheduler;
pub mod psi_scheduler;
pub mod spec;

use crate::monitor::Counters;
use cp67_scheduler::{admit_count, next_estimate, Cp67Spec};
use psi_scheduler::{Evict, PsiScheduler};
use spec::{LoadControlSpec, ProjectionKind, StorageTestSpec};

pub use crate::queue::Queue;

/// An eligible user as the load controller sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// User index.
    pub user: u32,
    /// Queue the user waits for.
    pub queue: Queue,
    /// Projected working set [pages].
    pub projected: f64,
}

/// What the load controller sees.
#[derive(Clone, Copy, Debug)]
pub struct LoadView<'a> {
    /// Pageable frames (APAGES) [frames].
    pub apages: u32,
    /// Sum of projected working sets of users in queue [pages].
    pub sumwss: f64,
    /// Users in Q1 or Q2 [count].
    pub in_queue: u32,
    /// Eligible users, highest priority first.
    pub eligible: &'a [Candidate],
}

/// A load-control decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadAction {
    /// Post: `user` is in the multiprogramming set, in `queue`, its projection added to SUMWSS.
    Admit {
        /// User index.
        user: u32,
        /// Queue joined.
        queue: Queue,
    },
}

/// Measurements of one in-queue stay, taken at its queue-drop.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StayStats {
    /// Page reads during the stay [pages] (VMPGREAD).
    pub page_reads: u64,
    /// Sum of the user's resident pages at each page read [pages] (VMPGRINQ).
    pub resident_at_reads: u64,
    /// Resident pages at the drop [pages] (VMPAGES).
    pub resident_now: u32,
    /// The queue of the stay (set at admission).
    pub queue: Option<Queue>,
    /// CPU time of the stay [ns].
    pub cpu_ns: u64,
}

/// A user's working-set projection state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projection {
    /// Projected working set P [pages].
    pub p: f64,
    /// Last actual working set LA [pages].
    pub last_a: f64,
    /// Last projection LP [pages].
    pub last_p: f64,
    /// Ψ-scheduler: smoothed requirement Ā per activation type, Q1 then Q2 [pages] (eq. 9).
    pub abar: [f64; 2],
    /// Ψ-scheduler: predicted requirement A* per activation type, Q1 then Q2 [pages] (eq. 10).
    pub next: [f64; 2],
}

/// The load-control seam: who enters the multiprogramming set, with which slice, and how a
/// user's storage demand is projected. Policies return decisions; the system moves users.
///
/// Lifecycle, in the order the system calls the hooks: [`LoadControl::initial_projection`]
/// once per user at build; at every queue-drop [`LoadControl::on_queue_drop`] with the stay's
/// measurements; after every queue-drop and every arrival on the eligible list
/// [`LoadControl::admit`] with the eligible users in priority order; [`LoadControl::slice_ns`]
/// whenever the system checks a user's in-queue CPU time.
pub trait LoadControl {
    /// Projection of a user never dropped yet.
    fn initial_projection(&self) -> Projection;
    /// In-queue time slice of `q` [ns of CPU].
    fn slice_ns(&self, q: Queue) -> u64;
    /// Whether intra-transaction terminal writes keep the user in queue.
    fn eliminates_false_drops(&self) -> bool;
    /// Updates the projection at a queue-drop from the stay's measurements.
    fn on_queue_drop(&mut self, proj: &mut Projection, stay: &StayStats);
    /// Appends the users to admit, in order, to `out`.
    fn admit(&mut self, view: &LoadView<'_>, out: &mut Vec<LoadAction>);
    /// The storage a candidate for queue `q` is tested with [pages].
    fn projected(&self, proj: &Projection, _q: Queue) -> f64 {
        proj.p
    }
    /// Feedback at the end of a monitor interval with its counter differences `d`; returns
    /// the deactivations wanted at once.
    fn on_interval(&mut self, _d: &Counters, _mpl: u32, _sumwss: f64, _apages: u32) -> Evict {
        Evict::NONE
    }
}

/// The load controllers of the base systems: a closed enum, dispatched by `match`.
#[derive(Clone, Debug)]
pub enum LoadController {
    /// CP-67's scheduler (bard ref. [6]).
    Cp67(Cp67Scheduler),
    /// VM/370.
    Vm370(StorageTest),
    /// Bard's Ψ-scheduler.
    Psi(PsiScheduler),
}

/// VM/370's storage-test scheduler, with its parameters.
#[derive(Clone, Debug)]
pub struct StorageTest {
    /// Parameters.
    pub p: StorageTestSpec,
    /// Admit a Q2 candidate that does not fit if 0.75 P frames are uncommitted (VM-SPG p.108).
    pub q2_partial_fit: bool,
    /// APAGES scale of the pressure feedback (1 without it) [1].
    pub factor: f64,
}

/// CP-67's scheduler ([`crate::cp67_scheduler`]) on the load-control seam.
#[derive(Clone, Debug)]
pub struct Cp67Scheduler {
    /// Parameters.
    pub p: Cp67Spec,
}

impl Cp67Scheduler {
    fn initial_projection(&self) -> Projection {
        let w = self.p.initial_ws_pages;
        Projection {
            p: w,
            last_a: w,
            last_p: w,
            abar: [w; 2],
            next: [w; 2],
        }
    }

    fn slice_ns(&self, q: Queue) -> u64 {
        let s = match q {
            Queue::Q1 => self.p.q1_slice_s,
            Queue::Q2 => self.p.q2_slice_s,
        };
        (s * 1e9).round() as u64
    }

    fn on_queue_drop(&mut self, proj: &mut Projection, st: &StayStats) {
        let w = next_estimate(
            &self.p,
            proj.p,
            st.page_reads,
            st.resident_at_reads,
            st.resident_now,
            st.cpu_ns,
        );
        proj.last_a = w;
        proj.last_p = proj.p;
        proj.p = w;
    }

    fn admit(&mut self, view: &LoadView<'_>, out: &mut Vec<LoadAction>) {
        let est: Vec<f64> = view.eligible.iter().map(|c| c.projected).collect();
        let k = admit_count(view.apages, view.sumwss, view.in_queue, &est);
        for c in &view.eligible[..k] {
            out.push(LoadAction::Admit {
                user: c.user,
                queue: c.queue,
            });
        }
    }
}

impl LoadControlSpec {
    /// The first parameter of the controller out of range: (key under `load_control`, what was
    /// expected); VM/370's storage test is checked in `SystemSpec::validate`.
    pub fn check_params(&self) -> Result<(), (&'static str, &'static str)> {
        match self {
            LoadControlSpec::Cp67(p) => p.check(),
            LoadControlSpec::Psi(p) => p.check(),
            LoadControlSpec::Vm370(p) => p.pressure.as_ref().map_or(Ok(()), |f| f.check()),
        }
    }
}

impl LoadController {
    /// Builds the controller of `spec`.
    pub fn build(spec: &LoadControlSpec) -> LoadController {
        match spec {
            LoadControlSpec::Cp67(p) => LoadController::Cp67(Cp67Scheduler { p: p.clone() }),
            LoadControlSpec::Vm370(p) => LoadController::Vm370(StorageTest {
                p: p.clone(),
                q2_partial_fit: true,
                factor: 1.0,
            }),
            LoadControlSpec::Psi(p) => LoadController::Psi(PsiScheduler::new(p.clone())),
        }
    }
}

impl LoadControl for LoadController {
    fn initial_projection(&self) -> Projection {
        match self {
            LoadController::Cp67(s) => s.initial_projection(),
            LoadController::Vm370(s) => s.initial_projection(),
            LoadController::Psi(s) => s.initial_projection(),
        }
    }
    fn slice_ns(&self, q: Queue) -> u64 {
        match self {
            LoadController::Cp67(s) => s.slice_ns(q),
            LoadController::Vm370(s) => s.slice_ns(q),
            LoadController::Psi(s) => s.slice_ns(q),
        }
    }
    fn eliminates_false_drops(&self) -> bool {
        match self {
            LoadController::Cp67(s) => s.p.eliminate_false_drops,
            LoadController::Vm370(s) => s.eliminates_false_drops(),
            LoadController::Psi(s) => s.p.eliminate_false_drops,
        }
    }
    fn on_queue_drop(&mut self, proj: &mut Projection, stay: &StayStats) {
        match self {
            LoadController::Cp67(s) => s.on_queue_drop(proj, stay),
            LoadController::Vm370(s) => s.on_queue_drop(proj, stay),
            LoadController::Psi(s) => s.on_queue_drop(proj, stay),
        }
    }
    fn admit(&mut self, view: &LoadView<'_>, out: &mut Vec<LoadAction>) {
        match self {
            LoadController::Cp67(s) => s.admit(view, out),
            LoadController::Vm370(s) => s.admit(view, out),
            LoadController::Psi(s) => s.admit(view, out),
        }
    }
    fn projected(&self, proj: &Projection, q: Queue) -> f64 {
        match self {
            LoadController::Cp67(_) => proj.p,
            LoadController::Vm370(s) => s.projected(proj, q),
            LoadController::Psi(s) => s.projected(proj, q),
        }
    }
    fn on_interval(&mut self, d: &Counters, mpl: u32, sumwss: f64, apages: u32) -> Evict {
        match self {
            LoadController::Cp67(_) => Evict::NONE,
            LoadController::Vm370(s) => s.on_interval(d, mpl, sumwss, apages),
            LoadController::Psi(s) => s.on_sample(d, mpl, sumwss, apages),
        }
    }
}

impl LoadControl for StorageTest {
    /// The pressure feedback, when the spec has one: a new APAGES factor; nobody is evicted.
    fn on_interval(&mut self, d: &Counters, _mpl: u32, _sumwss: f64, _apages: u32) -> Evict {
        if let Some(fb) = &self.p.pressure {
            self.factor = fb.next_factor(self.factor, d);
        }
        Evict::NONE
    }

    fn initial_projection(&self) -> Projection {
        let p = self.p.initial_ws_pages;
        Projection {
            p,
            last_a: p,
            last_p: p,
            abar: [p; 2],
            next: [p; 2],
        }
    }

    fn slice_ns(&self, q: Queue) -> u64 {
        let s = match q {
            Queue::Q1 => self.p.q1_slice_s,
            Queue::Q2 => self.p.q2_slice_s,
        };
        (s * 1e9).round() as u64
    }

    fn eliminates_false_drops(&self) -> bool {
        self.p.eliminate_false_drops
    }

    fn on_queue_drop(&mut self, proj: &mut Projection, stay: &StayStats) {
        // A: mean resident set at page reads (VMPGRINQ / VMPGREAD), or resident pages at the
        // drop when there were no reads (fidelity §2.2 choice; bard §9's S/Q).
        let a = if stay.page_reads > 0 {
            stay.resident_at_reads as f64 / stay.page_reads as f64
        } else {
            f64::from(stay.resident_now)
        };
        let new_p = match self.p.projection {
            ProjectionKind::Last => a,
            ProjectionKind::Damped => {
                if (proj.last_p - proj.last_a) * (proj.p - a) < 0.0 {
                    (a + proj.p) / 2.0
                } else {
                    a
                }
            }
        };
        proj.last_a = a;
        proj.last_p = new_p;
        proj.p = new_p;
    }

    fn admit(&mut self, view: &LoadView<'_>, out: &mut Vec<LoadAction>) {
        let apages = f64::from(view.apages) * self.factor;
        let mut sum = view.sumwss;
        let first = out.len();
        for c in view.eligible {
            let in_queue = view.in_queue as usize + (out.len() - first);
            let limit = match c.queue {
                Queue::Q1 => apages * self.p.q1_overcommit,
                Queue::Q2 => apages,
            };
            let fits = sum + c.projected <= limit
                || (c.queue == Queue::Q2
                    && self.q2_partial_fit
                    && 0.75 * c.projected <= apages - sum)
                || in_queue == 0;
            if !fits {
                break;
            }
            out.push(LoadAction::Admit {
                user: c.user,
                queue: c.queue,
            });
            sum += c.projected;
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// VM/370's storage-test controller with the CP-67 slices, for tests.
    pub(crate) fn vm() -> LoadController {
        LoadController::build(&LoadControlSpec::Vm370(StorageTestSpec {
            q1_slice_s: 0.25,
            q2_slice_s: 2.5,
            q1_overcommit: 1.25,
            projection: ProjectionKind::Damped,
            initial_ws_pages: 20.0,
            eliminate_false_drops: false,
            pressure: None,
        }))
    }

    /// The pressure feedback lowers the admission factor while "some" exceeds its target,
    /// never below its floor, and raises it back to 1 when the pressure falls.
    #[test]
    fn pressure_feedback_throttles_and_releases_admission() {
        use crate::load_control::spec::PressureFeedback;
        let fb = PressureFeedback {
            target_some_pct: 50.0,
            step: 0.2,
            min_factor: 0.5,
        };
        let interval = |some_s: f64| Counters {
            time_s: 10.0,
            pressure_some_s: some_s,
            ..Counters::default()
        };
        let mut f = 1.0;
        let mut seen = Vec::new();
        for some in [8.0, 8.0, 8.0, 2.0, 2.0, 2.0] {
            f = fb.next_factor(f, &interval(some));
            seen.push((f * 10.0_f64).round() / 10.0);
        }
        assert_eq!(seen, vec![0.8, 0.6, 0.5, 0.7, 0.9, 1.0]);
        // Admission follows: 100 frames at factor 0.5 admit one 40-page Q2 user, not two.
        let mut lc = StorageTest {
            p: StorageTestSpec {
                q1_overcommit: 1.0,
                pressure: Some(fb),
                ..match vm() {
                    LoadController::Vm370(s) => s.p,
                    _ => unreachable!(),
                }
            },
            q2_partial_fit: false,
            factor: 1.0,
        };
        for _ in 0..3 {
            lc.on_interval(&interval(9.0), 2, 0.0, 100);
        }
        let el = [7, 8].map(|user| Candidate {
            user,
            queue: Queue::Q2,
            projected: 40.0,
        });
        let mut out = Vec::new();
        let view = LoadView {
            apages: 100,
            sumwss: 0.0,
            in_queue: 1,
            eligible: &el,
        };
        lc.admit(&view, &mut out);
        assert_eq!(out.len(), 1);
        lc.factor = 1.0;
        out.clear();
        lc.admit(&view, &mut out);
        assert_eq!(out.len(), 2);
    }

    #[test]
    fn q1_candidates_get_the_25_percent_overcommitment() {
        let mut lc = vm();
        let el = [
            Candidate {
                user: 1,
                queue: Queue::Q1,
                projected: 20.0,
            },
            Candidate {
                user: 2,
                queue: Queue::Q1,
                projected: 20.0,
            },
        ];
        let mut out = Vec::new();
        // 100 frames, 90 committed: 110 ≤ 125 admits the first, 130 > 125 stops at the second.
        lc.admit(
            &LoadView {
                apages: 100,
                sumwss: 90.0,
                in_queue: 3,
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
    }

    #[test]
    fn q2_candidate_needs_plain_fit_or_three_quarters_free() {
        let mut lc = vm();
        let el = [Candidate {
            user: 7,
            queue: Queue::Q2,
            projected: 40.0,
        }];
        let mut out = Vec::new();
        // 100 - 75 = 25 free < 0.75 × 40 = 30: stays eligible.
        lc.admit(
            &LoadView {
                apages: 100,
                sumwss: 75.0,
                in_queue: 2,
                eligible: &el,
            },
            &mut out,
        );
        assert!(out.is_empty());
        // 100 - 68 = 32 ≥ 30: admitted although 108 > 100.
        lc.admit(
            &LoadView {
                apages: 100,
                sumwss: 68.0,
                in_queue: 2,
                eligible: &el,
            },
            &mut out,
        );
        assert_eq!(out.len(), 1);
        // Empty multiprogramming set: admitted whatever its size.
        out.clear();
        let big = [Candidate {
            user: 7,
            queue: Queue::Q2,
            projected: 400.0,
        }];
        lc.admit(
            &LoadView {
                apages: 100,
                sumwss: 0.0,
                in_queue: 0,
                eligible: &big,
            },
            &mut out,
        );
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn damped_projection_halves_a_reversal() {
        let mut lc = vm();
        // (LP − LA)(P − A) = (30 − 20)(30 − 40) < 0: damped, P = (40 + 30)/2.
        let mut pr = Projection {
            p: 30.0,
            last_a: 20.0,
            last_p: 30.0,
            abar: [0.0; 2],
            next: [0.0; 2],
        };
        lc.on_queue_drop(
            &mut pr,
            &StayStats {
                page_reads: 4,
                resident_at_reads: 160,
                resident_now: 12,
                queue: None,
                cpu_ns: 0,
            },
        );
        assert_eq!(pr.p, 35.0);
        // (30 − 20)(30 − 12) > 0: follow A, here the resident pages (no reads in the stay).
        let mut pr = Projection {
            p: 30.0,
            last_a: 20.0,
            last_p: 30.0,
            abar: [0.0; 2],
            next: [0.0; 2],
        };
        lc.on_queue_drop(
            &mut pr,
            &StayStats {
                page_reads: 0,
                resident_at_reads: 0,
                resident_now: 12,
                queue: None,
                cpu_ns: 0,
            },
        );
        assert_eq!(pr.p, 12.0);
    }
}
