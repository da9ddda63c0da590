//! The monitor: the time integrals of the machine's occupancy, counter snapshots, interval
//! samples (by time, or by core-table scan cycles, Bard §5) and the warm-up's mark. Its
//! handlers take the context; what the occupancy is, the rest of the machine tells it
//! ([`Occupancy`]), and what load control makes of an interval is the system's to carry out.

use super::ctx::Ctx;
use super::Event;
use crate::device::PagingIo;
use crate::memory::Memory;
use crate::monitor::Counters;
use crate::spec::SystemSpec;
use pagelab_core::Tick;

/// The machine's occupancy over an interval of time, as the monitor integrates it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Occupancy {
    /// Users in Q1 and in Q2 [users].
    pub(super) n_q1: u32,
    pub(super) n_q2: u32,
    /// Users on the eligible lists [users].
    pub(super) n_eligible: usize,
    /// Users in queue waiting for a page or a frame [users].
    pub(super) n_page_wait: u32,
    /// Idle processors [CPUs].
    pub(super) n_idle_cpus: u32,
    /// Linux PSI's memory shares, some and full [fraction].
    pub(super) pressure: (f64, f64),
}

/// The monitor's books: the counters' interval samples and the sampling clock (the counters
/// themselves are the context's, [`Ctx::c`]).
pub(super) struct MonitorBooks {
    pub(super) last_t: Tick,
    pub(super) samples: Vec<Counters>,
    pub(super) warm_sample: Counters,
    pub(super) interval: Tick,
    /// When the pending `Sample` is due (an earlier one ended by scan cycles makes it stale).
    pub(super) next_sample: Tick,
    pub(super) cycles_at_sample: u64,
    /// Memory PSI: totals and the avg10/60/300 of `kernel/sched/psi.c`.
    pub(super) pressure: crate::pressure::Pressure,
    /// An interval also ends after this many core-table scan cycles (`monitor.cycles`).
    pub(super) cycles: Option<u64>,
    /// What the report divides by: frames, CPUs, terminal users.
    pub(super) frames: u32,
    pub(super) cpus: u32,
    pub(super) users: u32,
    /// Each paging actuator's name and whether it is a swap area, in device order.
    pub(super) devices: Vec<(String, bool)>,
    /// The resolved spec the report embeds.
    pub(super) resolved: serde_json::Value,
}

impl MonitorBooks {
    pub(super) fn build(spec: &SystemSpec) -> MonitorBooks {
        MonitorBooks {
            last_t: Tick::ZERO,
            samples: Vec::new(),
            warm_sample: Counters::default(),
            interval: spec.monitor.interval_s.tick().max(Tick(1)),
            next_sample: Tick::ZERO,
            cycles_at_sample: 0,
            pressure: crate::pressure::Pressure::new(),
            cycles: spec.monitor.cycles,
            frames: spec.memory.frames.get(),
            cpus: spec.cpu.count,
            users: spec.workload.users,
            devices: spec
                .actuators()
                .iter()
                .map(|(name, ds)| (name.clone(), ds.swap_area))
                .collect(),
            resolved: serde_json::to_value(spec).unwrap_or(serde_json::Value::Null),
        }
    }
}

impl MonitorBooks {
    /// Integrates `occ` from the last mark to `t` and moves the clock there. Returns the
    /// interval [s], or `None` when `t` is not past the last mark (the clock does not go back).
    #[inline]
    pub(super) fn advance(&mut self, ctx: &mut Ctx, t: Tick, occ: Occupancy) -> Option<f64> {
        if t <= self.last_t {
            ctx.now = ctx.now.max(t);
            return None;
        }
        let dt = (t - self.last_t).as_secs_f64();
        let c = &mut ctx.c;
        c.time_s += dt;
        let mpl = f64::from(occ.n_q1 + occ.n_q2);
        c.mpl_user_s += mpl * dt;
        c.q1_user_s += f64::from(occ.n_q1) * dt;
        c.q2_user_s += f64::from(occ.n_q2) * dt;
        c.eligible_user_s += occ.n_eligible as f64 * dt;
        c.page_wait_user_s += f64::from(occ.n_page_wait) * dt;
        if occ.n_page_wait > 0 {
            c.page_wait_cpu_s += f64::from(occ.n_idle_cpus) * dt;
        }
        let (some, full) = occ.pressure;
        c.pressure_some_s += some * dt;
        c.pressure_full_s += full * dt;
        self.pressure.advance(self.last_t.0, t.0, (some, full));
        self.last_t = t;
        ctx.now = t;
        Some(dt)
    }

    /// The counters now, with memory's scan counts and the paging devices' books.
    pub(super) fn snapshot(ctx: &Ctx, mem: &Memory, io: &PagingIo) -> Counters {
        let mut c = ctx.c;
        c.scan_cycles = mem.n_cycles as f64;
        c.frames_scanned = mem.n_scanned as f64;
        let mut sios = 0;
        let mut miss = 0;
        let mut resp = 0;
        for d in &io.counters {
            sios += d.n_sios;
            miss += d.n_rps_misses;
            resp += d.page_response_ns;
        }
        c.paging_sios = sios as f64;
        c.rps_misses = miss as f64;
        c.page_io_sum_s = resp as f64 / 1e9;
        c
    }

    /// Whether a queued `Sample` is the one due now (one made stale by scan cycles is not).
    pub(super) fn is_due(&self, ctx: &Ctx) -> bool {
        ctx.now == self.next_sample
    }

    /// Whether `monitor.cycles` core-table scan cycles have passed since the last sample
    /// (bard §5), before the end.
    pub(super) fn cycles_due(&self, ctx: &Ctx, mem: &Memory) -> bool {
        self.cycles
            .is_some_and(|k| mem.n_cycles >= self.cycles_at_sample + k && ctx.now < ctx.end)
    }

    /// Ends a monitor interval: records the counters and queues the next sample. Returns the
    /// interval's counters, for load control's feedback.
    pub(super) fn sample(&mut self, ctx: &mut Ctx, mem: &Memory, io: &PagingIo) -> Counters {
        let snap = Self::snapshot(ctx, mem, io);
        let prev = self.samples.last().copied().unwrap_or_default();
        self.samples.push(snap);
        self.cycles_at_sample = mem.n_cycles;
        self.next_sample = ctx.now + self.interval;
        if self.next_sample < ctx.end {
            ctx.q.schedule(self.next_sample, Event::Sample);
        }
        snap.since(&prev)
    }

    /// The warm-up is over: the report counts from here.
    pub(super) fn on_warmup_ended(&mut self, ctx: &Ctx, mem: &Memory, io: &PagingIo) {
        self.warm_sample = Self::snapshot(ctx, mem, io);
        self.pressure.start_max();
    }
}
