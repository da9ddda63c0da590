//! Load control's books: the eligible lists, the multiprogramming set's counts and SUMWSS,
//! and the load controller ([`crate::load_control`]) that decides. Its handlers take the
//! context and return the controller's decisions ([`LoadAction`], [`Evict`]); [`System`]
//! carries them out on the users, the dispatcher and paging (scheduling.rs).

use super::ctx::Ctx;
use super::users::{UState, User};
use crate::load_control::psi_scheduler::Evict;
use crate::load_control::{Candidate, LoadAction, LoadControl, LoadController, LoadView, Queue};
use crate::monitor::Counters;
use crate::spec::SystemSpec;
use std::collections::VecDeque;

/// Load control: the eligible lists, the multiprogramming set's books and the controller.
pub(super) struct Scheduler {
    pub(super) lc: LoadController,
    pub(super) e1: VecDeque<u32>,
    pub(super) e2: VecDeque<u32>,
    /// Sum of the projected working sets of the users in queue [pages].
    pub(super) sumwss: f64,
    pub(super) n_q1: u32,
    pub(super) n_q2: u32,
    /// Users in queue waiting for a page or a frame (Linux PSI's memory stalls).
    pub(super) n_page_wait: u32,
    /// Users in queue waiting for a virtual I/O (Linux PSI's I/O waits).
    pub(super) n_vio_wait: u32,
    pub(super) candidates: Vec<Candidate>,
    pub(super) actions: Vec<LoadAction>,
    /// Admission order per user (the latest admitted has the lowest priority in queue).
    pub(super) admit_seq: Vec<u64>,
    pub(super) n_admitted: u64,
    /// Clear the reference bits of a dropped user's pages (`memory.reset_reference_at_drop`).
    pub(super) reset_at_drop: bool,
    /// Move a dropped user's pages to the flush list (`memory.flush_at_drop`).
    pub(super) flush_at_drop: bool,
    /// Frames available for paging, APAGES [frames] -- parameter (`memory.frames`).
    pub(super) apages: u32,
    /// The page-swapping prototype's fixed Q2 limit [users] (`swapping.q2_mpl_limit`; none
    /// without page swapping).
    pub(super) q2_mpl_limit: Option<u32>,
}

impl Scheduler {
    pub(super) fn build(
        spec: &SystemSpec,
        lc: LoadController,
        n_all: u32,
        page_swapping: bool,
    ) -> Scheduler {
        Scheduler {
            lc,
            e1: VecDeque::new(),
            e2: VecDeque::new(),
            sumwss: 0.0,
            n_q1: 0,
            n_q2: 0,
            n_page_wait: 0,
            n_vio_wait: 0,
            candidates: Vec::new(),
            actions: Vec::new(),
            admit_seq: vec![0; n_all as usize],
            n_admitted: 0,
            reset_at_drop: spec.memory.reset_reference_at_drop,
            flush_at_drop: spec.memory.flush_at_drop,
            apages: spec.memory.frames.get(),
            q2_mpl_limit: spec.swapping.q2_mpl_limit.filter(|_| page_swapping),
        }
    }
}

impl Scheduler {
    /// Users in queue, the MPL [users].
    pub(super) fn mpl(&self) -> u32 {
        self.n_q1 + self.n_q2
    }

    /// A user in queue goes from `old` to `new`. Post: the page-wait and VIO-wait counts
    /// (Linux PSI's memory stalls and I/O waits) follow.
    pub(super) fn on_state_change(&mut self, old: UState, new: UState) {
        let waits = |s: UState| matches!(s, UState::PageWait | UState::FrameWait);
        if waits(old) && !waits(new) {
            self.n_page_wait -= 1;
        } else if !waits(old) && waits(new) {
            self.n_page_wait += 1;
        }
        if old == UState::VioWait && new != UState::VioWait {
            self.n_vio_wait -= 1;
        } else if old != UState::VioWait && new == UState::VioWait {
            self.n_vio_wait += 1;
        }
    }

    /// `u` waits on the eligible list of `queue` (E1 for Q1, E2 for Q2).
    pub(super) fn make_eligible(&mut self, u: u32, queue: Queue) {
        match queue {
            Queue::Q1 => self.e1.push_back(u),
            Queue::Q2 => self.e2.push_back(u),
        }
    }

    /// Offers the eligible users, in admission `order`, to the load controller (at most 64,
    /// none in Q2 past the fixed Q2 limit). Returns its decisions, to be carried out in order
    /// and handed back with [`Scheduler::done_admitting`].
    pub(super) fn decide_admissions(&mut self, users: &[User], order: Vec<u32>) -> Vec<LoadAction> {
        self.candidates.clear();
        let mut actions = std::mem::take(&mut self.actions);
        actions.clear();
        let lc = &self.lc;
        let proj = |u: u32| lc.projected(&users[u as usize].proj, users[u as usize].wants);
        // The prototype's fixed Q2 limit: Q2 candidates beyond it are not offered.
        let mut q2_room = match self.q2_mpl_limit {
            Some(lim) => lim.saturating_sub(self.n_q2),
            None => u32::MAX,
        };
        for u in order {
            let queue = users[u as usize].wants;
            if queue == Queue::Q2 {
                if q2_room == 0 {
                    continue;
                }
                q2_room -= 1;
            }
            self.candidates.push(Candidate {
                user: u,
                queue,
                projected: proj(u),
            });
            // The controller stops at the first misfit; a bounded look-ahead is enough.
            if self.candidates.len() >= 64 {
                break;
            }
        }
        if self.candidates.is_empty() {
            return actions;
        }
        let view = LoadView {
            apages: self.apages,
            sumwss: self.sumwss,
            in_queue: self.mpl(),
            eligible: &self.candidates,
        };
        self.lc.admit(&view, &mut actions);
        actions
    }

    /// Hands back the decisions of [`Scheduler::decide_admissions`], carried out.
    pub(super) fn done_admitting(&mut self, actions: Vec<LoadAction>) {
        self.actions = actions;
    }

    /// `user` is admitted to `queue`. Post: it is off the eligible lists, counted in queue
    /// last in priority, and its projected working set (the one offered, else `fallback`
    /// [pages]) is in SUMWSS. Returns that projection.
    pub(super) fn on_admitted(&mut self, user: u32, queue: Queue, fallback: f64) -> f64 {
        let projected = self
            .candidates
            .iter()
            .find(|c| c.user == user)
            .map_or(fallback, |c| c.projected);
        self.n_admitted += 1;
        self.admit_seq[user as usize] = self.n_admitted;
        if let Some(i) = self.e1.iter().position(|&x| x == user) {
            self.e1.remove(i);
        } else if let Some(i) = self.e2.iter().position(|&x| x == user) {
            self.e2.remove(i);
        }
        self.sumwss += projected;
        match queue {
            Queue::Q1 => self.n_q1 += 1,
            Queue::Q2 => self.n_q2 += 1,
        }
        projected
    }

    /// `usr` leaves `queue` (`false_drop`: for a terminal write), its stay's books filled in.
    /// Post: the controller has updated its projection, SUMWSS and the queue counts no longer
    /// hold it, the drop is counted.
    pub(super) fn on_queue_drop(
        &mut self,
        ctx: &mut Ctx,
        usr: &mut User,
        q: Queue,
        false_drop: bool,
    ) {
        let stay = usr.stay;
        self.lc.on_queue_drop(&mut usr.proj, &stay);
        self.sumwss -= usr.admitted_p;
        if self.mpl() == 1 {
            self.sumwss = 0.0; // no drift from float sums
        }
        if ctx.warm {
            usr.t_drops += 1;
        }
        match q {
            Queue::Q1 => {
                self.n_q1 -= 1;
                ctx.c.q1_drops += 1.0;
                ctx.c.q1_stay_page_reads += stay.page_reads as f64;
            }
            Queue::Q2 => {
                self.n_q2 -= 1;
                ctx.c.q2_drops += 1.0;
            }
        }
        if false_drop {
            ctx.c.false_drops += 1.0;
        }
    }

    /// A monitor interval's counters `d`: the controller's feedback, whom to deactivate.
    pub(super) fn on_interval(&mut self, d: &Counters) -> Evict {
        let mpl = self.mpl();
        self.lc.on_interval(d, mpl, self.sumwss, self.apages)
    }

    /// The `ready` users in deactivation order: lowest priority first (Q2 before Q1, the
    /// latest admitted first).
    pub(super) fn deactivation_order(&self, users: &[User], mut ready: Vec<u32>) -> Vec<u32> {
        ready.sort_by_key(|&u| {
            (
                users[u as usize].queue == Some(Queue::Q1),
                std::cmp::Reverse(self.admit_seq[u as usize]),
            )
        });
        ready
    }

    /// Whether deactivation for `e` is done after `n` users: met, or one user left in queue.
    pub(super) fn evicted_enough(&self, e: Evict, n: u32) -> bool {
        (n >= e.at_least && self.sumwss <= e.until_sumwss) || self.mpl() <= 1
    }
}
