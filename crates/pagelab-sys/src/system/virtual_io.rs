//! The virtual machines' own I/O devices (`[vio]`): a virtual I/O queues behind the ones
//! before it on its device and ends with an interrupt, both charged to the supervisor.

use super::ctx::Ctx;
use super::Event;
use crate::spec::SystemSpec;
use pagelab_core::random::exponential;
use pagelab_core::{Rng, RngStreams, Tick};

/// The virtual machines' own I/O devices (`[vio]`): when each is next free.
pub(super) struct VirtualIo {
    pub(super) busy: Vec<Tick>,
    /// Service time of one virtual I/O [ns].
    pub(super) service_ns: f64,
    /// Exponential service times, else constant.
    pub(super) exponential: bool,
    pub(super) rng: Rng,
}

impl VirtualIo {
    pub(super) fn build(spec: &SystemSpec, streams: &RngStreams) -> VirtualIo {
        VirtualIo {
            busy: vec![Tick::ZERO; spec.vio.devices as usize],
            service_ns: spec.vio.service_ms.get() * 1e6,
            exponential: spec.vio.exponential,
            rng: streams.stream("vio", 0),
        }
    }
}

impl VirtualIo {
    /// Starts a virtual I/O on device `key` modulo the devices, queued behind the ones before
    /// it, and queues `done` at its end. Post: the I/O is counted and its SIO charged.
    pub(super) fn start(&mut self, ctx: &mut Ctx, key: usize, done: Event) {
        let d = key % self.busy.len();
        let svc = if self.exponential {
            exponential(&mut self.rng, self.service_ns)
        } else {
            self.service_ns
        };
        let start = self.busy[d].max(ctx.now);
        let at = start + Tick(svc.round() as u64);
        self.busy[d] = at;
        ctx.c.vios += 1.0;
        ctx.sup_debt_ns += ctx.cost.vio_sio;
        ctx.q.schedule(at, done);
    }

    /// A virtual I/O ended. Post: its interrupt is charged and counted.
    pub(super) fn on_done(&mut self, ctx: &mut Ctx) {
        ctx.sup_debt_ns += ctx.cost.vio_interrupt;
        ctx.c.io_interrupts += 1.0;
    }
}
