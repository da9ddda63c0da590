//! The M44/44X on the one run loop ([`pagelab_core::kernel`]): a time slice of the next ready
//! job is the engine's own step, due now whenever a job is ready (so it goes before any
//! event due at the same instant); pulls, leveler samples and BIFO's rotation are queued
//! [`Ev`]s, handled by the loop while the CPU is idle. A slice is atomic in the model: the
//! events falling due during it are handled at its end, at their own times, before what
//! ended it (`Machine::slice`, "catch up").

use super::machine::{Ev, Machine};
use crate::monitor::Report;
use crate::SysError;
use pagelab_core::kernel::{Engine, Flow};
use pagelab_core::{EventQueue, Tick};

/// The M44's duration bound [ns]: its jobs run to their end, with no horizon of their own, so
/// a run is stopped (as an error) when its clock passes 1,000 simulated days, far beyond any
/// batch of the study and far inside the clock's range.
pub(super) const MAX_RUN_NS: u64 = 1_000 * 86_400_000_000_000;

/// A [`Machine`] being run, with the slices run so far.
pub(super) struct M44Run {
    m: Machine,
    slices: u64,
}

impl Machine {
    /// Runs every job to completion.
    pub fn run(self, progress: &mut dyn FnMut(f64)) -> Result<Report, SysError> {
        pagelab_core::kernel::run(M44Run { m: self, slices: 0 }, progress)
    }
}

impl Engine for M44Run {
    type Event = Ev;
    type Output = Report;
    type Error = SysError;

    fn queue(&mut self) -> &mut EventQueue<Ev> {
        &mut self.m.events
    }

    fn next_step(&mut self) -> Tick {
        match self.m.peek_ready() {
            Some(_) => Tick(self.m.now),
            None => Tick::NEVER,
        }
    }

    fn step(&mut self, _t: Tick) -> Result<(), SysError> {
        let j = self.m.take_ready().expect("next_step found a ready job");
        self.m.slice(j);
        self.slices += 1;
        Ok(())
    }

    /// The CPU is idle until `t` (slices move the clock themselves).
    fn advance(&mut self, t: Tick) {
        self.m.now = self.m.now.max(t.0);
    }

    fn handle(&mut self, t: Tick, ev: Ev) -> Result<Flow, SysError> {
        self.m.handle_at(t.0, ev);
        Ok(Flow::Continue)
    }

    /// Every job has run to its end; or the run has gone past [`MAX_RUN_NS`].
    fn settle(&mut self) -> Result<Flow, SysError> {
        if self.m.done as usize >= self.m.jobs.len() {
            return Ok(Flow::Stop);
        }
        if self.m.now > MAX_RUN_NS {
            return Err(SysError::Invalid {
                origin: "m44".into(),
                path: "workload".into(),
                what: format!(
                    "the jobs had not ended after {} simulated days (the batches the study \
                     ran took minutes): expected disk and machine times that let them end",
                    MAX_RUN_NS / 86_400_000_000_000
                ),
            });
        }
        Ok(Flow::Continue)
    }

    fn drained(&mut self) -> Result<(), SysError> {
        Err(SysError::Invalid {
            origin: "m44".into(),
            path: "leveler".into(),
            what: "no job can run and nothing is pending".into(),
        })
    }

    fn progress(&self) -> f64 {
        self.m.refs_done as f64 / self.m.total_refs.max(1) as f64
    }

    fn finish(self) -> Result<Report, SysError> {
        Ok(self.m.report(self.slices))
    }
}
