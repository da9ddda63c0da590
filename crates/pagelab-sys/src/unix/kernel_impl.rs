//! The V6 machine on the one run loop ([`pagelab_core::kernel`]): the running process's
//! compute stretch is the engine's own step (it moves with every interrupt that steals the
//! CPU), the clock, the disk, terminals and samples are queued [`Ev`]s. After each, `settle`
//! runs the swapper, preempts and switches, and (debug builds) checks the books.

use super::machine::{Ev, Machine};
use crate::monitor::Report;
use crate::SysError;
use pagelab_core::kernel::{Engine, Flow};
use pagelab_core::{EventQueue, Tick};

/// A [`Machine`] being run.
struct UnixRun(Machine);

impl Machine {
    /// Runs to the end and returns the report; `progress` gets the fraction done.
    pub fn run(mut self, progress: &mut dyn FnMut(f64)) -> Result<Report, SysError> {
        self.settle()?;
        pagelab_core::kernel::run(UnixRun(self), progress)
    }
}

impl Engine for UnixRun {
    type Event = Ev;
    type Output = Report;
    type Error = SysError;

    fn queue(&mut self) -> &mut EventQueue<Ev> {
        &mut self.0.q
    }

    /// The end of the running process's compute stretch.
    fn next_step(&mut self) -> Tick {
        self.0.cpu_end
    }

    fn step(&mut self, _t: Tick) -> Result<(), SysError> {
        self.0.compute_done();
        Ok(())
    }

    fn advance(&mut self, t: Tick) {
        self.0.advance(t);
        self.0.n_events += 1;
    }

    fn handle(&mut self, _t: Tick, ev: Ev) -> Result<Flow, SysError> {
        let m = &mut self.0;
        match ev {
            Ev::End => return Ok(Flow::Stop),
            Ev::Clock(k) => m.clock(k),
            Ev::DiskDone => m.disk_done()?,
            Ev::TtyWake(p) => m.tty_wake(p as usize),
            Ev::IntrDone => {}
            Ev::ConsoleLine => m.console_line(),
            Ev::Login => m.login(),
            Ev::Sample => {
                m.samples.push(m.st);
                let interval = m.spec.monitor.interval_s.tick().max(Tick(1));
                if m.now + interval < m.end {
                    m.q.schedule(m.now + interval, Ev::Sample);
                }
            }
            Ev::WarmupEnded => {
                m.warm = true;
                m.warm_st = m.st;
                m.reactions.clear();
                for p in &mut m.procs {
                    p.loops = 0;
                    p.cpu_ns = 0;
                    p.disk_ios = 0;
                    p.swap_outs = 0;
                    p.reaction_ms = 0.0;
                    p.reactions = 0;
                }
            }
        }
        Ok(Flow::Continue)
    }

    fn settle(&mut self) -> Result<Flow, SysError> {
        let m = &mut self.0;
        m.settle()?;
        #[cfg(debug_assertions)]
        if m.n_events.is_multiple_of(m.check_every) {
            m.check_invariants().map_err(|e| SysError::Invalid {
                origin: "engine".into(),
                path: format!("t={}", m.now.as_secs_f64()),
                what: format!("invariant broken: {e}"),
            })?;
        }
        Ok(Flow::Continue)
    }

    fn progress(&self) -> f64 {
        self.0.now.as_secs_f64() / self.0.end.as_secs_f64()
    }

    fn finish(self) -> Result<Report, SysError> {
        let mut m = self.0;
        m.advance(m.end);
        if m.samples.last().map(|s| s.time_s) != Some(m.st.time_s) {
            m.samples.push(m.st);
        }
        Ok(m.report())
    }
}
