//! The host's side of a guest operating system (see [`crate::guest`]): dispatching its tasks,
//! their I/O and job arrivals, the two-level fault path with and without the Accelerator,
//! PAGEMON's sampling, terminal-driver sessions, and the benchmark's report sections.
//!
//! ```text
//!  job arrival, task I/O or timer over, PAGEMON's period, a segment's end ─► the tasks change
//!    ─► the virtual machine follows them (FN §2.1): a task ready ─► Ready / Wakes (eligible Q1)
//!                                                   none, one pending ─► Waits (VioWait, in queue)
//!                                                   none, none pending ─► Idles (leaves the queue)
//!  fault on a task page, Accelerator on ─► 1st external interrupt: the task page-waits
//!  its page in ─► 2nd external interrupt: every page-waiting task ready (young ch. II §3)
//! ```
//!
//! [`GuestBooks`] owns the guests, their PAGEMONs, the sessions and the benchmark's report
//! sections. Its handlers take the context and the users (a guest is its user's program) and
//! say what becomes of the virtual machine ([`VmMove`]); [`System`](super::System) carries
//! that out on the scheduler and the dispatcher.

use super::ctx::Ctx;
use super::users::{UState, User};
use super::virtual_io::VirtualIo;
use super::{Event, Program};
use crate::guest::pagemon::{Pagemon, Sample};
use crate::guest::{BenchmarkReport, GuestOs, Verdict};
use crate::memory::Memory;
use crate::monitor::Counters;
use crate::spec::SystemSpec;
use pagelab_core::Tick;
use std::collections::BTreeMap;

/// Guest virtual machines (user indices), their PAGEMON, the benchmark's report sections.
pub(super) struct GuestBooks {
    pub(super) guests: Vec<u32>,
    pagemons: Vec<Option<Pagemon>>,
    pub(super) bench: Option<BenchmarkReport>,
    pub(super) sessions: BTreeMap<u32, usize>,
    pub(super) done_at: Option<Tick>,
    /// Each guest's spec (`workload.guest`), in guest order.
    specs: Vec<crate::spec::guest::GuestSpec>,
    /// Some guest ends the run when the benchmark is over (`end_when_done`).
    end_when_done: bool,
    /// Frames PAGEMON counts as available [frames] (`memory.frames`).
    apages: f64,
}

/// What becomes of a guest's virtual machine once its tasks changed.
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum VmMove {
    /// Nothing changes.
    Stays,
    /// A task is ready: the virtual machine is made ready (`front`: first on its list).
    Ready { front: bool },
    /// No task is ready and one waits for the host (its I/O, page or timer): the virtual
    /// machine waits in queue (`VioWait`).
    Waits,
    /// No task is ready or waits (an enabled wait with nothing pending): the virtual machine
    /// waits, leaves the queue and idles (`Thinking`); admission runs.
    Idles,
    /// A task became ready in an idle virtual machine: it joins the eligible list for Q1;
    /// admission runs.
    Wakes,
}

/// The guest operating system user `usr` runs, if it runs one.
fn guest_os(usr: &User) -> Option<&GuestOs> {
    match &usr.program {
        Program::Guest(os) => Some(os),
        _ => None,
    }
}

/// The guest operating system of a guest user.
fn the_os(usr: &mut User) -> &mut GuestOs {
    match &mut usr.program {
        Program::Guest(os) => os,
        _ => panic!("a guest user runs a guest"),
    }
}

impl GuestBooks {
    pub(super) fn new(spec: &SystemSpec, n_users: u32, n_all: u32) -> GuestBooks {
        GuestBooks {
            guests: (n_users..n_all).collect(),
            pagemons: Vec::new(),
            bench: None,
            sessions: BTreeMap::new(),
            done_at: None,
            specs: spec.workload.guests.clone(),
            end_when_done: spec.workload.guests.iter().any(|g| g.end_when_done),
            apages: f64::from(spec.memory.frames.get()),
        }
    }

    /// At build: reserved frames, the first job arrivals, PAGEMON's first sample.
    pub(super) fn start(&mut self, ctx: &mut Ctx, mem: &mut Memory, users: &mut [User]) {
        if self.guests.is_empty() {
            return;
        }
        self.bench.get_or_insert_with(BenchmarkReport::default);
        let owners = mem.tables.len();
        for (gi, spec) in self.specs.iter().enumerate() {
            let u = self.guests[gi];
            if spec.reserved_frames > 0 {
                mem.reserve.resize(owners, 0);
                mem.reserve[u as usize] = spec.reserved_frames;
            }
            let os = the_os(&mut users[u as usize]);
            for s in 0..spec.streams.len() {
                if let Some(t) = os.next_arrival(s) {
                    ctx.q.schedule(t, Event::GuestArrive(u, s as u16));
                }
            }
            // A guest whose spooler is ready from the start.
            ctx.q.schedule(Tick::ZERO, Event::GuestWake(u, u16::MAX));
            match &spec.pagemon {
                Some(p) => {
                    self.pagemons
                        .push(Some(Pagemon::new(p, os.job_partitions())));
                    let first = Tick::from_secs_f64(p.period_s);
                    ctx.q.schedule(first, Event::Pagemon(gi as u32));
                }
                None => self.pagemons.push(None),
            }
        }
    }

    /// Jobs of stream `s` arrive at guest `u` (user `usr`); the stream's next arrival is
    /// scheduled.
    pub(super) fn on_arrive(&self, ctx: &mut Ctx, usr: &mut User, u: u32, s: usize) -> VmMove {
        let now = ctx.now;
        let os = the_os(usr);
        os.arrive(s, now);
        if let Some(t) = os.next_arrival(s) {
            ctx.q.schedule(t.max(now), Event::GuestArrive(u, s as u16));
        }
        self.follow_tasks(usr)
    }

    /// Task `t` of guest `u` (user `usr`) is done with its I/O or timer (`u16::MAX`: only
    /// look at the virtual machine); the interrupt costs the supervisor.
    pub(super) fn on_wake(&self, ctx: &mut Ctx, usr: &mut User, u: u32, t: usize) -> VmMove {
        if t != u16::MAX as usize {
            if let Verdict::Timer(i, ns) = the_os(usr).wake(t) {
                ctx.q
                    .schedule(ctx.now + Tick(ns), Event::GuestWake(u, i as u16));
            }
            ctx.sup_debt_ns += ctx.cost.vio_interrupt;
        }
        self.follow_tasks(usr)
    }

    /// Guest `u`'s current task has spent its CPU segment: its I/O starts (on a minidisk
    /// server), or its step or job ends; the virtual machine runs on if another task is ready.
    pub(super) fn on_segment_ended(
        &mut self,
        ctx: &mut Ctx,
        vio: &mut VirtualIo,
        users: &mut [User],
        u: u32,
    ) -> VmMove {
        let now = ctx.now;
        match the_os(&mut users[u as usize]).segment_ended(now) {
            Verdict::Io(t) => {
                vio.start(ctx, t, Event::GuestWake(u, t as u16));
                if ctx.warm {
                    users[u as usize].t_vios += 1;
                }
            }
            Verdict::Timer(t, ns) => {
                ctx.q
                    .schedule(now + Tick(ns), Event::GuestWake(u, t as u16));
            }
            Verdict::Continue => self.check_done(ctx, users),
        }
        let os = the_os(&mut users[u as usize]);
        if os.has_ready() {
            VmMove::Ready { front: false }
        } else {
            Self::waits(os)
        }
    }

    /// The virtual machine of `usr` follows its tasks (FN §2.1: only waits with I/O
    /// outstanding stay in queue): a waiting one runs if a task is ready and leaves the queue
    /// if none is pending; an idle one wakes if a task is ready.
    pub(super) fn follow_tasks(&self, usr: &User) -> VmMove {
        let os = guest_os(usr).expect("a guest user runs a guest");
        match usr.state {
            UState::VioWait if os.has_ready() => VmMove::Ready { front: false },
            UState::VioWait if !os.has_pending() => VmMove::Idles,
            UState::Thinking if os.has_ready() => VmMove::Wakes,
            _ => VmMove::Stays,
        }
    }

    /// A virtual machine with no task ready waits, in queue while a task is pending.
    fn waits(os: &GuestOs) -> VmMove {
        if os.has_pending() {
            VmMove::Waits
        } else {
            VmMove::Idles
        }
    }

    /// Before a burst of `usr`: a guest dispatches its highest-priority ready task (CP charges
    /// the privileged operations of a task switch). `None` when a task runs (or `usr` runs no
    /// guest); else the virtual machine has none to run, and this is what becomes of it.
    pub(super) fn dispatch_task(&self, ctx: &mut Ctx, usr: &mut User) -> Option<VmMove> {
        let Program::Guest(os) = &mut usr.program else {
            return None;
        };
        let before = os.n_switches;
        if os.dispatch(
            &mut usr.runs,
            &mut usr.pos,
            &mut usr.left,
            &mut usr.seg_left_ns,
        ) {
            if os.n_switches != before {
                ctx.sup_debt_ns += (os.spec.switch_us * 1e3).round() as u64;
            }
            return None;
        }
        Some(Self::waits(os))
    }

    /// Whether a fault of `usr` on `page` becomes a pseudo fault: a guest with the
    /// Accelerator, a task running, the page a task's (taken enabled; young ch. II §3).
    pub(super) fn takes_pseudo_fault(&self, usr: &User, page: u32) -> bool {
        match guest_os(usr) {
            Some(os) => os.spec.accelerator && os.current().is_some() && os.enabled_at(page),
            None => false,
        }
    }

    /// A pseudo fault of `usr` must wait: the first external interrupt. The running task
    /// page-waits and the virtual machine runs on, first on its list, if another is ready.
    pub(super) fn on_pseudo_fault(&self, ctx: &mut Ctx, usr: &mut User) -> VmMove {
        ctx.sup_debt_ns += ctx.cost.interrupt;
        let os = the_os(usr);
        os.pseudo_fault();
        if os.has_ready() {
            VmMove::Ready { front: true }
        } else {
            // The task that faulted is pending.
            VmMove::Waits
        }
    }

    /// A pseudo fault of `usr` is resolved (`on_cpu`: its virtual machine is on a processor).
    /// Resolved while the fault is being handled: no wait, no interrupt, it runs again. Else
    /// the page's arrival is the second external interrupt: every page-waiting task becomes
    /// ready (it names neither task nor page).
    pub(super) fn on_pseudo_page_arrived(
        &self,
        ctx: &mut Ctx,
        usr: &mut User,
        on_cpu: bool,
        front: bool,
    ) -> VmMove {
        if !on_cpu && usr.state == UState::Running {
            return VmMove::Ready { front };
        }
        ctx.sup_debt_ns += ctx.cost.interrupt;
        the_os(usr).page_arrived();
        if on_cpu {
            VmMove::Stays
        } else {
            self.follow_tasks(usr)
        }
    }

    /// PAGEMON's period for guest `i` (user `usr`): it measures the host's load
    /// (`demand_pages`: projected working sets in queue and eligible [pages]; `counters`: the
    /// monitor's), sets the allowed task count and tells the guest; its next period is
    /// scheduled.
    pub(super) fn on_pagemon(
        &mut self,
        ctx: &mut Ctx,
        usr: &mut User,
        i: usize,
        demand_pages: f64,
        counters: Counters,
    ) -> VmMove {
        let sample = Sample {
            time_s: ctx.now.as_secs_f64(),
            page_reads: ctx.c.page_reads,
            steals: ctx.c.steals,
            demand_pages,
            apages: self.apages,
            counters,
        };
        let Some(pm) = self.pagemons[i].as_mut() else {
            return VmMove::Stays;
        };
        let (m, allowed) = pm.step(sample);
        let period = self.specs[i].pagemon.as_ref().map_or(1.0, |p| p.period_s);
        let now = ctx.now;
        let os = the_os(usr);
        os.set_allowed(allowed);
        os.pagemon_trace.push((now.as_secs_f64(), m, allowed));
        ctx.q
            .schedule(now + Tick::from_secs_f64(period), Event::Pagemon(i as u32));
        self.follow_tasks(usr)
    }

    /// Whether session user `u` signs off, having run its script of `n_commands` (`k`
    /// transactions done). Post: if so, its row records when, and whether the benchmark is
    /// over is checked.
    pub(super) fn signs_off(
        &mut self,
        ctx: &Ctx,
        users: &[User],
        u: u32,
        n_commands: usize,
        k: u64,
    ) -> bool {
        let Some(&row) = self.sessions.get(&u) else {
            return false;
        };
        if k < n_commands as u64 {
            return false;
        }
        let now = ctx.now.as_secs_f64();
        if let Some(b) = self.bench.as_mut() {
            let r = &mut b.sessions[row];
            r.signed_off_s = Some(now);
            r.response_index_s = Some(now - r.released_s);
        }
        self.check_done(ctx, users);
        true
    }

    /// The benchmark is over when every guest's finite streams are done and every session
    /// signed off (if some guest asks to end then). Post: `done_at` is set then.
    fn check_done(&mut self, ctx: &Ctx, users: &[User]) {
        if self.done_at.is_some() || !self.end_when_done {
            return;
        }
        let sessions_done = self
            .bench
            .as_ref()
            .is_none_or(|b| b.sessions.iter().all(|s| s.signed_off_s.is_some()));
        let streams_done = self
            .guests
            .iter()
            .all(|&g| guest_os(&users[g as usize]).is_none_or(GuestOs::streams_done));
        if sessions_done && streams_done {
            self.done_at = Some(ctx.now);
        }
    }

    /// The benchmark's sections of the report, if the run had guests or sessions.
    pub(super) fn report(&mut self, ctx: &Ctx, users: &[User]) -> Option<BenchmarkReport> {
        let mut b = self.bench.take()?;
        for &g in &self.guests {
            if let Some(os) = guest_os(&users[g as usize]) {
                b.guests.push(os.report());
            }
        }
        b.ended_s = ctx.now.as_secs_f64();
        Some(b)
    }
}
