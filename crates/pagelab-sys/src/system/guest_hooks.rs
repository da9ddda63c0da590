//! The host's side of a guest operating system (see [`crate::guest`]): dispatching its tasks,
//! their I/O and job arrivals, the two-level fault path with and without the Accelerator,
//! PAGEMON's sampling, terminal-driver sessions, and the benchmark's report sections.

use super::{Event, Program, System, UState, PSEUDO};
use crate::guest::pagemon::{Pagemon, Sample};
use crate::guest::{BenchmarkReport, Verdict};
use crate::load_control::Queue;
use pagelab_core::Tick;

impl System<'_> {
    fn os(&mut self, u: u32) -> Option<&mut crate::guest::GuestOs> {
        match &mut self.users[u as usize].program {
            Program::Guest(os) => Some(os),
            _ => None,
        }
    }

    /// At build: reserved frames, the first job arrivals, PAGEMON's first sample.
    pub(super) fn start_guests(&mut self) {
        if self.guest.guests.is_empty() {
            return;
        }
        self.guest
            .bench
            .get_or_insert_with(BenchmarkReport::default);
        let owners = self.mem.tables.len();
        for gi in 0..self.guest.guests.len() {
            let u = self.guest.guests[gi];
            let spec = self.guest.specs[gi].clone();
            if spec.reserved_frames > 0 {
                self.mem.reserve.resize(owners, 0);
                self.mem.reserve[u as usize] = spec.reserved_frames;
            }
            let os = self.os(u).expect("a guest user runs a guest");
            let arrivals: Vec<(usize, Tick)> = (0..spec.streams.len())
                .filter_map(|s| os.next_arrival(s).map(|t| (s, t)))
                .collect();
            let partitions = os.job_partitions();
            for (s, t) in arrivals {
                self.ctx.q.schedule(t, Event::GuestArrive(u, s as u16));
            }
            // A guest whose spooler is ready from the start.
            self.ctx
                .q
                .schedule(Tick::ZERO, Event::GuestWake(u, u16::MAX));
            match &spec.pagemon {
                Some(p) => {
                    self.guest.pagemons.push(Some(Pagemon::new(p, partitions)));
                    self.ctx
                        .q
                        .schedule(Tick::from_secs_f64(p.period_s), Event::Pagemon(gi as u32));
                }
                None => self.guest.pagemons.push(None),
            }
        }
    }

    /// Jobs of stream `s` arrive at guest `u`.
    pub(super) fn guest_arrive(&mut self, u: u32, s: usize) {
        let now = self.ctx.now;
        let os = self.os(u).expect("a guest user runs a guest");
        os.arrive(s, now);
        if let Some(t) = os.next_arrival(s) {
            self.ctx
                .q
                .schedule(t.max(now), Event::GuestArrive(u, s as u16));
        }
        self.guest_kick(u);
    }

    /// Task `t`'s I/O or timer is over (`u16::MAX`: only look at the virtual machine).
    pub(super) fn guest_wake(&mut self, u: u32, t: usize) {
        if t != u16::MAX as usize {
            let now = self.ctx.now;
            let os = self.os(u).expect("a guest user runs a guest");
            if let Verdict::Timer(i, ns) = os.wake(t) {
                self.ctx
                    .q
                    .schedule(now + Tick(ns), Event::GuestWake(u, i as u16));
            }
            self.ctx.sup_debt_ns += self.ctx.cost.vio_interrupt;
        }
        self.guest_kick(u);
    }

    /// The current task's CPU segment is spent: its I/O starts (on a minidisk server), or its
    /// step or job ends; the virtual machine runs on if another task is ready.
    pub(super) fn guest_segment_ended(&mut self, u: u32) {
        let now = self.ctx.now;
        let os = self.os(u).expect("a guest user runs a guest");
        match os.segment_ended(now) {
            Verdict::Io(t) => {
                let done = Event::GuestWake(u, t as u16);
                self.vio.start(&mut self.ctx, t, done);
                if self.ctx.warm {
                    self.users[u as usize].t_vios += 1;
                }
            }
            Verdict::Timer(t, ns) => {
                self.ctx
                    .q
                    .schedule(now + Tick(ns), Event::GuestWake(u, t as u16));
            }
            Verdict::Continue => self.check_done(),
        }
        let ready = self.os(u).expect("a guest").has_ready();
        if ready {
            self.make_ready(u, false);
        } else {
            self.set_state(u, UState::VioWait);
            self.guest_kick(u);
        }
    }

    /// The virtual machine's state follows its tasks: an enabled wait with nothing pending
    /// leaves the queue (FN §2.1: only waits with I/O outstanding stay in queue); a task
    /// becoming ready wakes a waiting or idle virtual machine.
    pub(super) fn guest_kick(&mut self, u: u32) {
        let os = self.os(u).expect("a guest user runs a guest");
        let (ready, pending) = (os.has_ready(), os.has_pending());
        match self.users[u as usize].state {
            UState::VioWait => {
                if ready {
                    self.make_ready(u, false);
                } else if !pending {
                    self.queue_drop(u, false);
                    self.set_state(u, UState::Thinking);
                    self.admit();
                }
            }
            UState::Thinking if ready => {
                self.users[u as usize].wants = Queue::Q1;
                self.set_state(u, UState::Eligible);
                self.sched.make_eligible(u, Queue::Q1);
                self.admit();
            }
            _ => {}
        }
    }

    /// Before a burst of user `u`: a guest dispatches its highest-priority ready task (CP
    /// charges the privileged operations of a task switch). `false` when it has none, and the
    /// virtual machine waits instead.
    pub(super) fn guest_dispatch(&mut self, u: u32) -> bool {
        let usr = &mut self.users[u as usize];
        let Program::Guest(os) = &mut usr.program else {
            return true;
        };
        let before = os.n_switches;
        if os.dispatch(
            &mut usr.runs,
            &mut usr.pos,
            &mut usr.left,
            &mut usr.seg_left_ns,
        ) {
            if os.n_switches != before {
                self.ctx.sup_debt_ns += (os.spec.switch_us * 1e3).round() as u64;
            }
            return true;
        }
        self.set_state(u, UState::VioWait);
        self.guest_kick(u);
        false
    }

    /// Whether `u`'s fault on `page` becomes a pseudo fault: a guest with the Accelerator, a
    /// task running, the page a task's (taken enabled; young ch. II §3).
    pub(super) fn pseudo_fault_applies(&mut self, u: u32, page: u32) -> bool {
        match self.os(u) {
            Some(os) => os.spec.accelerator && os.current().is_some() && os.enabled_at(page),
            None => false,
        }
    }

    /// A fault must wait. Ordinarily the user waits in `state`; a pseudo fault instead raises
    /// the first external interrupt: the task page-waits and the virtual machine runs on.
    pub(super) fn fault_wait(&mut self, w: u32, state: UState) {
        if w & PSEUDO == 0 {
            return self.set_state(w, state);
        }
        let u = w & !PSEUDO;
        self.ctx.sup_debt_ns += self.ctx.cost.interrupt;
        let os = self.os(u).expect("pseudo faults are a guest's");
        os.pseudo_fault();
        if os.has_ready() {
            self.make_ready(u, true);
        } else {
            self.set_state(u, UState::VioWait);
        }
    }

    /// A waiting fault moves from the frame wait to the page read.
    pub(super) fn fault_still_waits(&mut self, w: u32) {
        if w & PSEUDO == 0 {
            self.set_state(w, UState::PageWait);
        }
    }

    /// A fault is resolved. A pseudo fault's page arriving is the second external interrupt:
    /// every page-waiting task becomes ready (it names neither task nor page).
    pub(super) fn fault_done(&mut self, w: u32, front: bool) {
        if w & PSEUDO == 0 {
            return self.make_ready(w, front);
        }
        let u = w & !PSEUDO;
        let on_cpu = self.dispatch.cpus.iter().any(|c| c.user == u);
        if !on_cpu && self.users[u as usize].state == UState::Running {
            // Resolved while the fault is being handled: no wait, no interrupt.
            return self.make_ready(u, front);
        }
        self.ctx.sup_debt_ns += self.ctx.cost.interrupt;
        self.os(u)
            .expect("pseudo faults are a guest's")
            .page_arrived();
        if !on_cpu {
            self.guest_kick(u);
        }
    }

    /// PAGEMON's period for guest `i`: measure, set the allowed task count, tell the guest.
    pub(super) fn pagemon_step(&mut self, i: usize) {
        let u = self.guest.guests[i];
        let eligible: f64 = self
            .sched
            .e1
            .iter()
            .chain(self.sched.e2.iter())
            .map(|&e| self.users[e as usize].proj.p)
            .sum();
        let sample = Sample {
            time_s: self.ctx.now.as_secs_f64(),
            page_reads: self.ctx.c.page_reads,
            steals: self.ctx.c.steals,
            demand_pages: self.sched.sumwss + eligible,
            apages: self.guest.apages,
            counters: self.snapshot(),
        };
        let Some(pm) = self.guest.pagemons[i].as_mut() else {
            return;
        };
        let (m, allowed) = pm.step(sample);
        let period = self.guest.specs[i]
            .pagemon
            .as_ref()
            .map_or(1.0, |p| p.period_s);
        let now = self.ctx.now;
        let os = self.os(u).expect("a guest");
        os.set_allowed(allowed);
        os.pagemon_trace.push((now.as_secs_f64(), m, allowed));
        self.ctx
            .q
            .schedule(now + Tick::from_secs_f64(period), Event::Pagemon(i as u32));
        self.guest_kick(u);
    }

    /// A session user who has run its script signs off. `k` transactions are done.
    pub(super) fn session_signs_off(&mut self, u: u32, ci: usize, k: u64) -> bool {
        let Some(&row) = self.guest.sessions.get(&u) else {
            return false;
        };
        if k < self.classes[ci].spec.commands.len() as u64 {
            return false;
        }
        let now = self.ctx.now.as_secs_f64();
        if let Some(b) = self.guest.bench.as_mut() {
            let r = &mut b.sessions[row];
            r.signed_off_s = Some(now);
            r.response_index_s = Some(now - r.released_s);
        }
        self.set_state(u, UState::Thinking);
        self.check_done();
        true
    }

    /// The benchmark is over when every guest's finite streams are done and every session
    /// signed off (if some guest asks to end then).
    pub(super) fn check_done(&mut self) {
        if self.guest.done_at.is_some() || !self.guest.end_when_done {
            return;
        }
        let sessions_done = self
            .guest
            .bench
            .as_ref()
            .is_none_or(|b| b.sessions.iter().all(|s| s.signed_off_s.is_some()));
        let guests = self.guest.guests.clone();
        let streams_done = guests.iter().all(|&g| match self.os(g) {
            Some(os) => os.streams_done(),
            None => true,
        });
        if sessions_done && streams_done {
            self.guest.done_at = Some(self.ctx.now);
        }
    }

    /// The benchmark's sections of the report, if the run had guests or sessions.
    pub(super) fn benchmark_report(&mut self) -> Option<BenchmarkReport> {
        let mut b = self.guest.bench.take()?;
        for &g in &self.guest.guests.clone() {
            if let Some(os) = self.os(g) {
                b.guests.push(os.report());
            }
        }
        b.ended_s = self.ctx.now.as_secs_f64();
        Some(b)
    }
}
