//! Scheduling: a think period ends, the eligible lists, admission to Q1 and Q2, the ready
//! lists, queue-drop and deactivation (VM/370's scheduler, Tetzlaff "Background", Bard §2).
//! The load controller ([`crate::load_control`]) decides; this code carries the decisions out.

use super::faults::Storage;
use super::*;

impl System<'_> {
    /// Takes in-queue users out at once, lowest priority first (Q2 before Q1, the latest
    /// admitted first), until `e` is met. Only users waiting for a processor are taken; one
    /// waiting for a page or an I/O leaves at its own queue-drop (bard §10 is silent [A]).
    pub(super) fn deactivate(&mut self, e: Evict) {
        if e.at_least == 0 && self.sched.sumwss <= e.until_sumwss {
            return;
        }
        let ready = self.dispatch.ready().copied().collect();
        let mut n = 0;
        for u in self.sched.deactivation_order(&self.users, ready) {
            if self.sched.evicted_enough(e, n) {
                break;
            }
            let Some(q) = self.users[u as usize].queue else {
                continue;
            };
            self.dispatch.withdraw(u);
            self.users[u as usize].cont = false;
            self.queue_drop(u, false);
            self.ctx.c.deactivations += 1.0;
            self.users[u as usize].wants = q;
            self.set_state(u, UState::Eligible);
            self.sched.make_eligible(u, q);
            n += 1;
        }
    }

    pub(super) fn set_state(&mut self, u: u32, s: UState) {
        let old = self.users[u as usize].state;
        let waits = |s: UState| matches!(s, UState::PageWait | UState::FrameWait);
        let essential = waits(s)
            || s == UState::VioWait
            || (self.reclaim.survival.kind == crate::survival::Essential::Unrunnable
                && matches!(s, UState::ConsoleWait | UState::Thinking));
        if old == UState::Running && essential {
            self.reclaim.survival.interrupted(u);
        }
        self.sched.on_state_change(old, s);
        let now = self.ctx.now;
        self.users[u as usize].enter(s, now);
        if s == UState::Eligible && old != UState::Eligible {
            let queue = self.users[u as usize].wants;
            self.dispatch.on_eligible(&self.ctx, u, queue);
        }
    }

    pub(super) fn make_ready(&mut self, u: u32, front: bool) {
        self.set_state(u, UState::Ready);
        self.dispatch.enqueue(&self.users, u, front);
    }

    pub(super) fn handle_think_ended(&mut self, u: u32) {
        let usr = &mut self.users[u as usize];
        usr.begin_transaction(&self.classes[usr.class as usize], self.ctx.now);
        self.set_state(u, UState::Eligible);
        self.dispatch.vmsp.on_transaction_started(u);
        let mut st = Storage {
            mem: &mut self.mem,
            paging: &mut self.paging,
            reclaim: &mut self.reclaim,
        };
        self.spool.on_transaction_started(&mut self.ctx, &mut st);
        self.sched.make_eligible(u, Queue::Q1);
        self.admit();
    }

    /// Offers the eligible users to the load controller and carries out its admissions: each
    /// admitted user's stay begins, it is made ready and, with page swapping, swapped in.
    pub(super) fn admit(&mut self) {
        let order = self
            .dispatch
            .vmsp
            .admission_order(&self.sched.e1, &self.sched.e2);
        let actions = self.sched.decide_admissions(&self.users, order);
        for a in &actions {
            let LoadAction::Admit { user, queue } = *a;
            let fallback = self.users[user as usize].proj.p;
            let projected = self.sched.on_admitted(user, queue, fallback);
            let usr = &mut self.users[user as usize];
            usr.queue = Some(queue);
            usr.admitted_p = projected;
            usr.stay = StayStats {
                queue: Some(queue),
                ..StayStats::default()
            };
            usr.stay_cpu_ns = 0;
            usr.minor_left_ns = self.dispatch.dispatch_ns;
            self.dispatch.vmsp.on_admitted(user, queue);
            self.make_ready(user, false);
            if self.paging.swap.is_some() {
                let (ctx, mem) = (&mut self.ctx, &mut self.mem);
                self.paging
                    .swap_queue_add(ctx, mem, &mut self.reclaim, user, queue);
            }
        }
        self.sched.done_admitting(actions);
    }

    /// Takes `u` out of the multiprogramming set. `false_drop` marks a terminal write.
    pub(super) fn queue_drop(&mut self, u: u32, false_drop: bool) {
        let usr = &mut self.users[u as usize];
        let Some(q) = usr.queue.take() else { return };
        usr.stay.resident_now = self.mem.resident[u as usize];
        usr.stay.cpu_ns = usr.stay_cpu_ns;
        self.sched.on_queue_drop(&mut self.ctx, usr, q, false_drop);
        let stay = usr.stay;
        if let Some(b) = self.guest.bench.as_mut() {
            b.schedule.push(ScheduleRow {
                t_s: self.ctx.now.as_secs_f64(),
                user: u,
                queue: q,
                cpu_s: usr.stay_cpu_ns as f64 / 1e9,
                resident: stay.resident_now,
                page_reads: stay.page_reads,
                projected_ws: usr.proj.p,
            });
        }
        if self.paging.swap.is_some() {
            self.paging
                .swap_queue_drop(&mut self.ctx, &mut self.mem, u, q);
        } else if self.sched.flush_at_drop || self.sched.reset_at_drop {
            let len = self.mem.tables[u as usize].len();
            for i in 0..len {
                let f = self.mem.tables[u as usize][i].frame;
                if f == NONE || self.mem.frames[f as usize].state != FrameState::Resident {
                    continue;
                }
                if self.sched.flush_at_drop {
                    self.mem.push_flush(f);
                } else {
                    self.mem.frames[f as usize].referenced = false;
                }
            }
        }
    }
}
