//! CPUs and dispatching: which ready user runs next on an idle processor, its slices, the
//! processors' bursts ([`super::burst`]) and the supervisor's debt paid on them. Handlers take
//! the context; what a user does when its burst ends is the system's to carry out.

use super::ctx::Ctx;
use super::users::{Cpu, User};
use super::{vmsp_dispatch, Event};
use crate::load_control::{LoadControl, LoadController, Queue};
use crate::memory::NONE;
use crate::spec::SystemSpec;
use pagelab_core::Tick;
use std::collections::VecDeque;

/// CPUs and dispatching: the processors, the ready lists, the slices (the supervisor's costs
/// and debt are the context's, [`Ctx::cost`]).
pub(super) struct Dispatcher {
    pub(super) cpus: Vec<Cpu>,
    pub(super) ready_q1: VecDeque<u32>,
    pub(super) ready_q2: VecDeque<u32>,
    pub(super) n_idle_cpus: u32,
    /// Problem-state time per reference [ps].
    pub(super) reference_ps: u64,
    /// The dispatcher's own slice [ns].
    pub(super) dispatch_ns: u64,
    /// Q1 ready list ordered by CPU used in the stay (`cpu.dispatch_order = "least-cpu"`).
    pub(super) least_cpu_first: bool,
    /// The load controller's Q1 and Q2 slices [ns] (constant; read at every dispatch).
    pub(super) slices_ns: [u64; 2],
    /// VM/SP dispatcher books ([`super::vmsp_dispatch`]).
    pub(super) vmsp: vmsp_dispatch::VmspBooks,
    pub(super) n_runs: u64,
}

impl Dispatcher {
    pub(super) fn build(spec: &SystemSpec, lc: &LoadController, n_all: u32) -> Dispatcher {
        Dispatcher {
            cpus: vec![Cpu::idle(); spec.cpu.count as usize],
            ready_q1: VecDeque::new(),
            ready_q2: VecDeque::new(),
            n_idle_cpus: spec.cpu.count,
            reference_ps: (spec.cpu.reference_ns * 1e3).round().max(1.0) as u64,
            dispatch_ns: spec.cpu.dispatch_slice_ms.ns().max(1),
            least_cpu_first: spec.cpu.dispatch_order == crate::spec::DispatchOrder::LeastCpu,
            slices_ns: [Queue::Q1, Queue::Q2].map(|q| lc.slice_ns(q)),
            vmsp: vmsp_dispatch::VmspBooks::new(spec.vmsp.clone(), n_all as usize),
            n_runs: 0,
        }
    }
}

impl Dispatcher {
    /// The earliest burst end, lowest processor first (`Tick::NEVER` when none runs).
    pub(super) fn next_burst_end(&self) -> (u32, Tick) {
        let mut best = (0, Tick::NEVER);
        for (i, c) in self.cpus.iter().enumerate() {
            if c.user != NONE && c.burst_end < best.1 {
                best = (i as u32, c.burst_end);
            }
        }
        best
    }

    /// The next ready user, Q1's before Q2's, taken off its list.
    pub(super) fn next_ready(&mut self) -> Option<u32> {
        self.ready_q1
            .pop_front()
            .or_else(|| self.ready_q2.pop_front())
    }

    /// Processor `ci` is idle with no user to run: it pays the supervisor's debt at once.
    /// Post: with a debt, the processor is busy until its `CpuFreed`, the debt paid and counted.
    pub(super) fn pay_debt(&mut self, ctx: &mut Ctx, ci: usize) {
        if ctx.sup_debt_ns > 0 {
            let d = std::mem::take(&mut ctx.sup_debt_ns);
            ctx.c.cpu_supervisor_s += d as f64 / 1e9;
            self.cpus[ci].busy = true;
            self.n_idle_cpus -= 1;
            ctx.q
                .schedule(ctx.now + Tick(d), Event::CpuFreed(ci as u32));
        }
    }

    /// Processor `c` has paid the supervisor's debt. Post: it is idle.
    pub(super) fn on_cpu_freed(&mut self, c: usize) {
        self.cpus[c].busy = false;
        self.n_idle_cpus += 1;
    }

    /// Processor `ci`'s burst is over. Post: the processor is idle; returns what the burst
    /// did, for the system to carry out.
    pub(super) fn end_burst(&mut self, ci: usize) -> Cpu {
        let cpu = self.cpus[ci];
        self.cpus[ci].busy = false;
        self.cpus[ci].user = NONE;
        self.cpus[ci].burst_end = Tick::NEVER;
        self.n_idle_cpus += 1;
        cpu
    }

    /// Puts ready user `u` on its queue's ready list: at the back, at the front (`front`: a
    /// burst cut short by an event), or with `cpu.dispatch_order = "least-cpu"` Q1 by CPU used
    /// in the stay.
    pub(super) fn enqueue(&mut self, users: &[User], u: u32, front: bool) {
        let q1 = users[u as usize].queue == Some(Queue::Q1);
        if q1 && self.least_cpu_first {
            // FN §2.4 (VM/370 Logic p.143): infrequent CPU users first; read as least CPU
            // used in the current stay first, ties in arrival order.
            let key = users[u as usize].stay_cpu_ns;
            let at = self
                .ready_q1
                .iter()
                .position(|&v| users[v as usize].stay_cpu_ns > key)
                .unwrap_or(self.ready_q1.len());
            self.ready_q1.insert(at, u);
            return;
        }
        let q = if q1 {
            &mut self.ready_q1
        } else {
            &mut self.ready_q2
        };
        if front {
            q.push_front(u);
        } else {
            q.push_back(u);
        }
    }

    /// Takes `u` off the ready lists.
    pub(super) fn withdraw(&mut self, u: u32) {
        self.ready_q1.retain(|&x| x != u);
        self.ready_q2.retain(|&x| x != u);
    }

    /// The ready users, Q1's then Q2's.
    pub(super) fn ready(&self) -> impl Iterator<Item = &u32> {
        self.ready_q1.iter().chain(self.ready_q2.iter())
    }

    /// The load controller's slice of `queue` [ns].
    pub(super) fn slice_ns(&self, queue: Queue) -> u64 {
        self.slices_ns[queue as usize]
    }

    /// User `u` joins the eligible list waiting for `queue`: VM/SP's deadline for it.
    pub(super) fn on_eligible(&mut self, ctx: &Ctx, u: u32, queue: Queue) {
        let slice = self.slice_ns(queue);
        self.vmsp.on_eligible(ctx, u, queue, slice);
    }

    /// The in-queue slice of user `u` in `queue` [ns]: its queue's (Q2's when out of queue),
    /// times `vmsp.q3_slices` in Q3.
    pub(super) fn stay_slice_ns(&self, u: u32, queue: Option<Queue>) -> u64 {
        let s = self.slice_ns(queue.unwrap_or(Queue::Q2));
        self.vmsp.stay_slice_ns(u, s)
    }
}
