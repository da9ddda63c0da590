//! The VM/370 family on the one run loop ([`pagelab_core::kernel`]): processor bursts are the
//! engine's own steps (kept out of the queue so that one user's burst is not rescheduled at
//! every preemption), everything else is a queued [`Event`]. After each, the monitor's
//! per-scan-cycle sample, the periodic invariant pass and, when the next thing due is later
//! than now, the dispatcher.

use super::{Event, System};
use crate::error::SysError;
use crate::monitor::Report;
use pagelab_core::kernel::{Engine, Flow};
use pagelab_core::{EventQueue, Tick};

/// A [`System`] being run, with the processor whose burst ends next.
pub(super) struct VmRun<'a> {
    pub(super) sys: System<'a>,
    burst_cpu: u32,
}

impl<'a> VmRun<'a> {
    pub(super) fn new(sys: System<'a>) -> Self {
        VmRun { sys, burst_cpu: 0 }
    }
}

impl Engine for VmRun<'_> {
    type Event = Event;
    type Output = Report;
    type Error = SysError;

    fn queue(&mut self) -> &mut EventQueue<Event> {
        &mut self.sys.ctx.q
    }

    /// The earliest burst end, lowest processor first.
    fn next_step(&mut self) -> Tick {
        let (c, t) = self.sys.next_burst_end();
        self.burst_cpu = c;
        t
    }

    fn step(&mut self, _t: Tick) -> Result<(), SysError> {
        self.sys.handle_burst_ended(self.burst_cpu)
    }

    fn advance(&mut self, t: Tick) {
        self.sys.advance(t);
        self.sys.n_events += 1;
    }

    fn handle(&mut self, _t: Tick, ev: Event) -> Result<Flow, SysError> {
        let s = &mut self.sys;
        match ev {
            Event::End => return Ok(Flow::Stop),
            Event::ThinkEnded(u) => s.handle_think_ended(u),
            Event::CpuFreed(c) => s.dispatch.on_cpu_freed(c as usize),
            Event::Reconnect(d) => s.paging.on_reconnect(&mut s.ctx, d as usize),
            Event::IoComplete(d) => s.handle_io_complete(d as usize)?,
            Event::Exposure(d, k) => s.handle_exposure(d as usize, k as usize)?,
            Event::VioDone(u) => s.handle_vio_done(u),
            Event::GuestWake(u, t) => s.handle_guest_wake(u, t as usize),
            Event::GuestArrive(u, st) => s.handle_guest_arrive(u, st as usize),
            Event::Pagemon(i) => s.handle_pagemon(i as usize),
            Event::ConsoleDone(u) => s.handle_console_done(u),
            Event::Sample => {
                if s.monitor.is_due(&s.ctx) {
                    s.take_sample();
                    if s.check_every > 0 {
                        s.checked()?;
                    }
                }
            }
            Event::Collect => {
                s.paging
                    .collect_garbage(&mut s.ctx, &mut s.mem, &s.users, s.faults.shared_owner);
                let period = s.paging.gc_period.expect("collects only with a period");
                let next = s.ctx.now + period;
                if next < s.ctx.end {
                    s.ctx.q.schedule(next, Event::Collect);
                }
            }
            Event::WarmupEnded => {
                s.ctx.warm = true;
                s.monitor.on_warmup_ended(&s.ctx, &s.mem, &s.paging.io);
                if let Some(z) = &s.paging.zswap {
                    s.paging.zswap_warm = z.c;
                }
                if let Some(ra) = s.paging.readahead.as_mut() {
                    ra.warm_up();
                }
                for u in &mut s.users {
                    u.t_txn = 0;
                    u.t_resp = 0.0;
                    u.t_cpu_ns = 0;
                    u.t_faults = 0;
                    u.t_reads = 0;
                    u.t_vios = 0;
                    u.t_drops = 0;
                }
            }
        }
        Ok(Flow::Continue)
    }

    /// Stops once a guest benchmark is over (`done_at`).
    fn settle(&mut self) -> Result<Flow, SysError> {
        let s = &mut self.sys;
        s.sample_on_cycles();
        s.periodic()?;
        if s.guest.done_at.is_some() {
            return Ok(Flow::Stop);
        }
        if s.next_time() != s.ctx.now {
            s.dispatch()?;
        }
        Ok(Flow::Continue)
    }

    fn progress(&self) -> f64 {
        self.sys.ctx.now.as_secs_f64() / self.sys.ctx.end.as_secs_f64()
    }

    fn finish(self) -> Result<Report, SysError> {
        let mut s = self.sys;
        let stop = s.guest.done_at.unwrap_or(s.ctx.end);
        s.advance(stop);
        let last = s.snapshot();
        if s.monitor.samples.last().map(|x| x.time_s) != Some(last.time_s) {
            s.monitor.samples.push(last);
        }
        Ok(s.report(last))
    }
}
