//! The assembled machine and its event loop.
//!
//! ```text
//!  ThinkEnded ─► eligible ─admit─► ready (Q1 FIFO before Q2 FIFO) ─dispatch─► burst on a CPU
//!  burst: the user's reference runs, in a tight loop, until a fault, the end of a CPU segment
//!         (then a VIO, a terminal write or the transaction's end), the in-queue slice, the
//!         dispatch slice, or the next queued event ─► burst end
//!  fault ─► free frame? page-in SIO : wait for a frame;  free list < MPL + 1 ─► SELECT
//!  SELECT ─► flush list, else core-table scan; changed victim ─► page-out to a new slot
//!  Device: Reconnect (channel free? transfer : RPS miss) ─► Complete ─► wake users, free frames
//! ```
//!
//! Time is integer nanoseconds; problem-state time per reference is kept in picoseconds so
//! that a run of references costs `count × reference_ps` exactly (a remainder below one
//! reference carries to the user's next burst). A burst's references are applied when it is
//! dispatched and it never extends past the next queued event; bursts themselves are not queued
//! events (each processor holds the end of its own), so two processors never cut each other's
//! bursts to nothing. The skew between a reference bit being set and the simulated instant of
//! the reference is therefore at most one burst, during which no queued event is due; only a
//! fault ending another processor's shorter burst can fall inside it (see docs/system.md). At
//! equal times a burst end is handled before queued events, lower processor first.
//!
//! With `memory.residency = "page-swapping"` (the VM/SP HPO prototypes, [`crate::page_swap`])
//! queue-drop identifies the working set and trims the rest, queue-add logically swaps in and
//! prepages, a fault on a page of a swap set reads the whole set, and SELECT's order becomes
//! flush list, physical swap-out, core-table scan.
//!
//! Supervisor time (per fault, SIO, interrupt, dispatch, page moved) accumulates as a debt that
//! the next dispatch on any processor pays before running the user; an idle processor pays it
//! at once.

use crate::device::PagingIo;
use crate::error::SysError;
use crate::guest::{BenchmarkReport, ScheduleRow, SessionRow};
use crate::load_control::psi_scheduler::Evict;
use crate::load_control::{LoadAction, LoadControl, LoadController, Projection, Queue, StayStats};
use crate::memory::{FrameState, Memory, NONE};
use crate::monitor::{self, ClassRow, Counters, Percentiles, Report, UserRow};
use crate::page_swap::PageSwap;
use crate::spec::{ClassSpec, ProgramSpec, ScriptOrder, SystemSpec};
use crate::supply::{FrameSupply, Supply};
use crate::workload::{think_time, Program, TraceOpener};
use pagelab_core::random::exponential;
use pagelab_core::{Rng, RngStreams, Tick};
use pagelab_trace::Run;
use rand::Rng as _;
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    ThinkEnded(u32),
    CpuFreed(u32),
    Reconnect(u16),
    IoComplete(u16),
    /// A step of a channel program on a spare exposure (device, exposure).
    Exposure(u16, u16),
    VioDone(u32),
    ConsoleDone(u32),
    Sample,
    Collect,
    /// A guest task's I/O or timer is over (guest user, task).
    GuestWake(u32, u16),
    /// A guest job stream delivers (guest user, stream).
    GuestArrive(u32, u16),
    /// PAGEMON samples (index into the guests).
    Pagemon(u32),
    WarmupEnded,
    End,
}

/// The machine built from a spec, ready to run.
pub struct System<'o> {
    seed: u64,
    ctx: Ctx,
    users: Vec<User>,
    classes: Vec<ClassRt>,
    mem: Memory,
    sched: Scheduler,
    dispatch: Dispatcher,
    reclaim: Reclaim,
    faults: Faults,
    paging: Paging,
    spool: CpSpool,
    vio: VirtualIo,
    monitor: MonitorBooks,
    guest: GuestBooks,
    opener: Option<&'o TraceOpener>,
    n_events: u64,
    check_every: u64,
    check_countdown: u64,
}

/// Marks a fault waiter as a guest task's pseudo page fault (the Accelerator): its wait does
/// not block the virtual machine and its completion is the second external interrupt.
const PSEUDO: u32 = 1 << 31;

/// Events between invariant passes by default: 4096 in debug builds, none in release builds.
const DEFAULT_CHECK_EVERY: u64 = if cfg!(debug_assertions) { 4096 } else { 0 };

#[derive(Clone, Copy, Debug)]
struct SupCost {
    fault: u64,
    sio: u64,
    interrupt: u64,
    dispatch: u64,
    page: u64,
    /// A virtual machine's SIO and the interrupt ending its I/O.
    vio_sio: u64,
    vio_interrupt: u64,
}

impl SupCost {
    /// The supervisor's costs of `spec.cpu.supervisor`, in ns.
    fn of(s: &crate::spec::SupervisorSpec) -> SupCost {
        SupCost {
            fault: s.fault_us.ns(),
            sio: s.sio_us.ns(),
            interrupt: s.interrupt_us.ns(),
            dispatch: s.dispatch_us.ns(),
            page: s.page_moved_us.ns(),
            vio_sio: s.vio_sio_us.unwrap_or(s.sio_us).ns(),
            vio_interrupt: s.vio_interrupt_us.unwrap_or(s.interrupt_us).ns(),
        }
    }
}

impl<'o> System<'o> {
    /// Runs the invariant pass ([`System::check_invariants`]) every `n` events, in any build
    /// (1: after every event; 0: never). Default: every 4096 events in debug builds, never in
    /// release builds.
    pub fn set_check_every(&mut self, n: u64) {
        self.check_every = n;
        self.check_countdown = n;
    }

    /// Runs to the end and returns the report; `progress` gets the fraction done.
    pub fn run(self, progress: &mut dyn FnMut(f64)) -> Result<Report, SysError> {
        pagelab_core::kernel::run(kernel_impl::VmRun::new(self), progress)
    }

    /// The in-queue slice of `u`'s stay [ns].
    fn stay_slice_ns(&self, u: u32) -> u64 {
        self.dispatch.stay_slice_ns(u, self.users[u as usize].queue)
    }

    fn next_burst_end(&self) -> (u32, Tick) {
        self.dispatch.next_burst_end()
    }

    fn next_time(&self) -> Tick {
        self.next_burst_end()
            .1
            .min(self.ctx.q.peek_time().unwrap_or(Tick::NEVER))
    }

    /// Moves the clock to `t`, the monitor integrating the machine's occupancy up to it.
    fn advance(&mut self, t: Tick) {
        if t <= self.monitor.last_t {
            self.ctx.now = self.ctx.now.max(t);
            return;
        }
        let occ = Occupancy {
            n_q1: self.sched.n_q1,
            n_q2: self.sched.n_q2,
            n_eligible: self.sched.e1.len() + self.sched.e2.len(),
            n_page_wait: self.sched.n_page_wait,
            n_idle_cpus: self.dispatch.n_idle_cpus,
            pressure: self.mem_tasks().shares(self.dispatch.cpus.len() as u32),
        };
        let Some(dt) = self.monitor.advance(&mut self.ctx, t, occ) else {
            return;
        };
        if let Some(z) = self.paging.zswap.as_mut() {
            z.c.frame_s += z.frames.len() as f64 * dt;
        }
        for &g in &self.guest.guests {
            let usr = &mut self.users[g as usize];
            let blocked = matches!(usr.state, UState::PageWait | UState::FrameWait);
            let waiting = usr.state == UState::VioWait;
            if let Program::Guest(os) = &mut usr.program {
                os.accumulate(dt, t, blocked, waiting);
            }
        }
    }

    /// The users as Linux PSI's memory task counts (docs/system.md, "Memory pressure"): a user
    /// waiting for a page read (always a page that was in storage before, as a first
    /// reference is a cleared frame with no I/O: a workingset refault, `folio_wait_bit_common`,
    /// `swap_readpage`) or for a frame (direct reclaim, `__alloc_pages_direct_reclaim`,
    /// `try_charge_memcg`) is in a memory stall, asleep; ready and running users are runnable;
    /// users waiting for a virtual I/O are in iowait. No user reclaims on a processor (SELECT
    /// is supervisor time), so none is a running stall. Users outside the multiprogramming set
    /// (eligible, thinking, writing to the terminal) are idle, and a guest's pseudo page fault
    /// stalls a guest task, not the virtual machine.
    fn mem_tasks(&self) -> crate::pressure::MemTasks {
        let on_cpu = self
            .dispatch
            .cpus
            .iter()
            .filter(|c| c.busy && c.user != NONE)
            .count();
        let ready = self.dispatch.ready_q1.len() + self.dispatch.ready_q2.len();
        crate::pressure::MemTasks {
            memstall: self.sched.n_page_wait,
            running: (on_cpu + ready) as u32,
            memstall_running: 0,
            iowait: self.sched.n_vio_wait,
        }
    }

    fn dispatch(&mut self) -> Result<(), SysError> {
        for ci in 0..self.dispatch.cpus.len() {
            if self.dispatch.cpus[ci].busy {
                continue;
            }
            loop {
                let Some(u) = self.dispatch.next_ready() else {
                    self.dispatch.pay_debt(&mut self.ctx, ci);
                    break;
                };
                // In-queue slice already spent (a fault landed on its last nanosecond).
                let slice = self.stay_slice_ns(u);
                if self.users[u as usize].stay_cpu_ns >= slice {
                    self.slice_expired(u);
                    continue;
                }
                let usr = &mut self.users[u as usize];
                if let Some(mv) = self.guest.dispatch_task(&mut self.ctx, usr) {
                    self.guest_moves(u, mv);
                    continue;
                }
                let (mem, reclaim) = (&mut self.mem, &mut self.reclaim);
                let refs = Refs::of(mem, reclaim, &self.faults, u, self.dispatch.reference_ps);
                let usr = &mut self.users[u as usize];
                self.dispatch
                    .run_burst(&mut self.ctx, ci, slice, usr, refs, self.opener)?;
                break;
            }
        }
        Ok(())
    }

    fn handle_burst_ended(&mut self, ci: u32) -> Result<(), SysError> {
        let cpu = self.dispatch.end_burst(ci as usize);
        let u = cpu.user;
        let e = cpu.elapsed_ns;
        let warm = self.ctx.warm;
        let usr = &mut self.users[u as usize];
        usr.seg_left_ns -= e.min(usr.seg_left_ns);
        usr.minor_left_ns -= e.min(usr.minor_left_ns);
        usr.stay_cpu_ns += e;
        if warm {
            usr.t_cpu_ns += e;
        }
        if let Program::Guest(os) = &mut usr.program {
            os.ran(e, usr.seg_left_ns);
        }
        if let Outcome::Fault(page) = cpu.outcome {
            return self.handle_fault(u, page);
        }
        let slice = self.stay_slice_ns(u);
        let usr = &mut self.users[u as usize];
        if usr.seg_left_ns == 0 {
            self.segment_ended(u);
        } else if usr.stay_cpu_ns >= slice {
            self.slice_expired(u);
        } else if usr.minor_left_ns == 0 {
            usr.minor_left_ns = self.dispatch.dispatch_ns;
            self.make_ready(u, false);
        } else {
            usr.cont = true;
            self.make_ready(u, true);
        }
        Ok(())
    }

    fn slice_expired(&mut self, u: u32) {
        self.queue_drop(u, false);
        let usr = &mut self.users[u as usize];
        usr.went_q2 = true;
        usr.wants = Queue::Q2;
        self.set_state(u, UState::Eligible);
        self.sched.make_eligible(u, Queue::Q2);
        self.admit();
    }

    /// User `u` starts a virtual I/O on its device (users dealt round the devices), queued
    /// behind the ones before it.
    fn start_vio(&mut self, u: u32) {
        self.vio.start(&mut self.ctx, u as usize, Event::VioDone(u));
        if self.ctx.warm {
            self.users[u as usize].t_vios += 1;
        }
        self.set_state(u, UState::VioWait);
    }

    fn segment_ended(&mut self, u: u32) {
        if matches!(self.users[u as usize].program, Program::Guest(_)) {
            let (ctx, vio) = (&mut self.ctx, &mut self.vio);
            let mv = self.guest.on_segment_ended(ctx, vio, &mut self.users, u);
            return self.guest_moves(u, mv);
        }
        let usr = &mut self.users[u as usize];
        if usr.next_boundary < usr.boundaries.len() {
            let b = usr.boundaries[usr.next_boundary];
            usr.next_boundary += 1;
            usr.seg_left_ns = usr.seg_ns;
            match b {
                Boundary::Vio => self.start_vio(u),
                Boundary::Console => {
                    let done = self.ctx.now + Tick::from_secs_f64(usr.console_ms / 1e3);
                    if !self.sched.lc.eliminates_false_drops() {
                        self.queue_drop(u, true);
                        self.admit();
                    }
                    self.set_state(u, UState::ConsoleWait);
                    self.ctx.q.schedule(done, Event::ConsoleDone(u));
                }
            }
            return;
        }
        // The transaction is complete: terminal read, queue-drop, think.
        usr.charge(self.ctx.now);
        let resp = (self.ctx.now - usr.txn_start).as_secs_f64();
        let trivial = !usr.went_q2;
        usr.n_txn += 1;
        let ci = usr.class as usize;
        if self.ctx.warm {
            usr.t_txn += 1;
            usr.t_resp += resp;
            self.ctx.c.transactions += 1.0;
            self.ctx.c.response_sum_s += resp;
            let cl = &mut self.classes[ci];
            cl.resp.push(resp);
            if trivial {
                cl.resp_trivial.push(resp);
                cl.trivial += 1;
                self.ctx.c.trivial_transactions += 1.0;
                self.ctx.c.trivial_response_sum_s += resp;
                users::add_trivial_split(&mut self.ctx.c, &usr.split_ns);
            } else {
                cl.resp_nontrivial.push(resp);
            }
        }
        self.queue_drop(u, false);
        let k = self.users[u as usize].n_txn;
        let n_commands = self.classes[ci].spec.commands.len();
        if self
            .guest
            .signs_off(&self.ctx, &self.users, u, n_commands, k)
        {
            self.set_state(u, UState::Thinking);
            self.admit();
            return;
        }
        let z = think_time(
            &self.classes[ci].spec.think,
            &mut self.users[u as usize].rng,
            k,
        );
        if self.ctx.warm {
            let cl = &mut self.classes[ci];
            cl.think_sum += z;
            cl.thinks += 1;
            self.ctx.c.think_sum_s += z;
            self.ctx.c.thinks += 1.0;
        }
        self.set_state(u, UState::Thinking);
        self.ctx
            .q
            .schedule(self.ctx.now + Tick::from_secs_f64(z), Event::ThinkEnded(u));
        self.admit();
    }

    fn handle_vio_done(&mut self, u: u32) {
        self.vio.on_done(&mut self.ctx);
        self.make_ready(u, false);
    }

    /// Jobs of stream `s` arrive at guest `u`.
    fn handle_guest_arrive(&mut self, u: u32, s: usize) {
        let usr = &mut self.users[u as usize];
        let mv = self.guest.on_arrive(&mut self.ctx, usr, u, s);
        self.guest_moves(u, mv);
    }

    /// Task `t` of guest `u` is done with its I/O or timer.
    fn handle_guest_wake(&mut self, u: u32, t: usize) {
        let usr = &mut self.users[u as usize];
        let mv = self.guest.on_wake(&mut self.ctx, usr, u, t);
        self.guest_moves(u, mv);
    }

    /// PAGEMON's period for guest `i`, measuring the host's demand for pages: the projected
    /// working sets in queue and eligible.
    fn handle_pagemon(&mut self, i: usize) {
        let eligible = self.sched.e1.iter().chain(self.sched.e2.iter());
        let eligible: f64 = eligible.map(|&e| self.users[e as usize].proj.p).sum();
        let counters = self.snapshot();
        let u = self.guest.guests[i];
        let usr = &mut self.users[u as usize];
        let demand = self.sched.sumwss + eligible;
        let mv = self
            .guest
            .on_pagemon(&mut self.ctx, usr, i, demand, counters);
        self.guest_moves(u, mv);
    }

    /// Carries out what becomes of guest `u`'s virtual machine.
    fn guest_moves(&mut self, u: u32, mv: VmMove) {
        match mv {
            VmMove::Stays => {}
            VmMove::Ready { front } => self.make_ready(u, front),
            VmMove::Waits => self.set_state(u, UState::VioWait),
            VmMove::Idles => {
                if self.users[u as usize].state != UState::VioWait {
                    self.set_state(u, UState::VioWait);
                }
                self.queue_drop(u, false);
                self.set_state(u, UState::Thinking);
                self.admit();
            }
            VmMove::Wakes => {
                self.users[u as usize].wants = Queue::Q1;
                self.set_state(u, UState::Eligible);
                self.sched.make_eligible(u, Queue::Q1);
                self.admit();
            }
        }
    }

    fn handle_console_done(&mut self, u: u32) {
        if self.users[u as usize].queue.is_some() {
            self.make_ready(u, false);
        } else {
            self.users[u as usize].wants = Queue::Q1;
            self.set_state(u, UState::Eligible);
            self.sched.make_eligible(u, Queue::Q1);
            self.admit();
        }
    }
}

mod assemble;
pub(crate) use assemble::Parts;
mod burst;
mod components;
mod cp_spool;
mod ctx;
mod dispatcher;
mod faults;
mod guest_hooks;
mod invariants;
mod kernel_impl;
mod monitor_books;
mod page_swapping;
mod paging;
mod paging_full;
mod paging_io;
mod readahead;
mod reclaim;
mod report;
mod scheduler;
mod scheduling;
mod users;
mod virtual_io;
mod vmsp_dispatch;
mod zswap_io;

use burst::Refs;
use cp_spool::CpSpool;
use ctx::Ctx;
use dispatcher::Dispatcher;
use faults::Faults;
use guest_hooks::{GuestBooks, VmMove};
use monitor_books::{MonitorBooks, Occupancy};
use paging_io::Paging;
use reclaim::Reclaim;
use scheduler::Scheduler;
use users::{Boundary, ClassRt, Cpu, Outcome, UState, User};
use virtual_io::VirtualIo;

#[cfg(test)]
mod guest_tests;
#[cfg(test)]
mod swap_tests;

#[cfg(test)]
mod dispatch_tests;
#[cfg(test)]
mod pressure_tests;
#[cfg(test)]
mod tiny_system;
