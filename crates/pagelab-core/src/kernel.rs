//! The one run loop of every timed engine: pop the earliest thing due, advance the clock,
//! handle it, let the engine settle, and between events look for a stop request and report
//! progress.
//!
//! ```text
//!  ┌──► every step: interrupt::check()         every 64: progress(fraction) if it moved ≥ 1 %
//!  │        │
//!  │   own step due (a CPU burst end, a slice to run) ≤ earliest queued event?
//!  │        ├─ yes ─► advance(t) ─► step(t)
//!  │        └─ no ──► pop (t, ev) ─► advance(t) ─► handle(t, ev) ── Stop (horizon) ──┐
//!  │        │                                 (queue empty: drained()) ─────────────┤
//!  │   settle() (dispatch, swapper, invariant checks) ── Stop (all done) ────────────┤
//!  └── Continue                                                                      ▼
//!                                                  progress(1.0) ─► finish() ─► output
//! ```
//!
//! An engine keeps in its [`EventQueue`] what is due at a known time (I/O completions, clock
//! ticks, samples, the horizon) and outside it the one activity that advances at every
//! instruction (a processor's burst, a time slice): [`Engine::next_step`]. Ties go to that step,
//! then to queued events in `(time, seq)` order, so a run is a pure function of spec and seed.

use crate::event::EventQueue;
use crate::interrupt::{self, Interrupted};
use crate::time::Tick;

/// What the loop does after an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Settle and go on.
    Continue,
    /// Stop now, without settling (the horizon was reached).
    Stop,
}

/// A timed engine driven by [`run`]. Lifecycle per iteration: either
/// [`next_step`](Engine::next_step) → [`advance`](Engine::advance) → [`step`](Engine::step), or
/// a queued event → [`advance`](Engine::advance) → [`handle`](Engine::handle); then
/// [`settle`](Engine::settle). At the end [`finish`](Engine::finish).
pub trait Engine {
    /// The engine's queued events.
    type Event;
    /// What a finished run returns.
    type Output;
    /// The engine's error; a stop request becomes one.
    type Error: From<Interrupted>;

    /// The future-event list.
    fn queue(&mut self) -> &mut EventQueue<Self::Event>;

    /// Time of the engine's own next step kept out of the queue, [`Tick::NEVER`] if none. It
    /// goes before queued events due at the same instant.
    fn next_step(&mut self) -> Tick {
        Tick::NEVER
    }

    /// Runs the own step due at `t` (after [`advance`](Engine::advance)`(t)`).
    fn step(&mut self, _t: Tick) -> Result<(), Self::Error> {
        Ok(())
    }

    /// Moves the clock to `t` (once per step or event, before it is handled), accruing the
    /// time integrals.
    fn advance(&mut self, t: Tick);

    /// Handles `ev`, due at `t`.
    fn handle(&mut self, t: Tick, ev: Self::Event) -> Result<Flow, Self::Error>;

    /// After each step or event (not after [`Flow::Stop`]): dispatch, wake, check;
    /// [`Flow::Stop`] when the run is over before its horizon (every job done, a stop
    /// condition met).
    fn settle(&mut self) -> Result<Flow, Self::Error> {
        Ok(Flow::Continue)
    }

    /// Called when neither an own step nor an event is pending: `Ok` ends the run.
    fn drained(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }

    /// Fraction of the run done, 0 to 1 (for progress reports only).
    fn progress(&self) -> f64;

    /// Closes the books and returns the result.
    fn finish(self) -> Result<Self::Output, Self::Error>;
}

/// Progress is computed every this many steps and reported when it moved by [`PROGRESS_STEP`].
const PROGRESS_MASK: u64 = 0x3f;
const PROGRESS_STEP: f64 = 0.01;

/// Runs `engine` to its end; `progress` gets the fraction done, non-decreasing, last 1.0.
pub fn run<E: Engine>(mut engine: E, progress: &mut dyn FnMut(f64)) -> Result<E::Output, E::Error> {
    let mut n: u64 = 0;
    let mut reported = 0.0f64;
    loop {
        // Ctrl-C/SIGTERM, at every step: one relaxed atomic load, cheaper than reading a
        // clock, so the stop comes within one event whatever an event costs (a count of events
        // between checks made the delay grow with the cost of each: 40 s after 30 s of a run
        // with 100,000 processors).
        interrupt::check()?;
        if n & PROGRESS_MASK == 0 {
            let f = engine.progress().clamp(0.0, 1.0);
            if f - reported >= PROGRESS_STEP {
                reported = f;
                progress(f);
            }
        }
        n += 1;
        let own = engine.next_step();
        let queued = engine.queue().peek_time().unwrap_or(Tick::NEVER);
        if own != Tick::NEVER && own <= queued {
            engine.advance(own);
            engine.step(own)?;
        } else {
            let Some((t, ev)) = engine.queue().pop() else {
                engine.drained()?;
                break;
            };
            engine.advance(t);
            if engine.handle(t, ev)? == Flow::Stop {
                break;
            }
        }
        if engine.settle()? == Flow::Stop {
            break;
        }
    }
    progress(1.0);
    engine.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A counter that ticks every 3 ns by its own step and logs queued events.
    struct Toy {
        q: EventQueue<char>,
        now: Tick,
        next: Tick,
        log: Vec<(u64, char)>,
        steps: u32,
    }

    impl Engine for Toy {
        type Event = char;
        type Output = Vec<(u64, char)>;
        type Error = Interrupted;
        fn queue(&mut self) -> &mut EventQueue<char> {
            &mut self.q
        }
        fn next_step(&mut self) -> Tick {
            if self.steps < 4 {
                self.next
            } else {
                Tick::NEVER
            }
        }
        fn step(&mut self, t: Tick) -> Result<(), Interrupted> {
            self.log.push((t.0, 's'));
            self.steps += 1;
            self.next = t + Tick(3);
            Ok(())
        }
        fn advance(&mut self, t: Tick) {
            assert!(t >= self.now, "time runs backwards");
            self.now = t;
        }
        fn handle(&mut self, t: Tick, ev: char) -> Result<Flow, Interrupted> {
            self.log.push((t.0, ev));
            Ok(if ev == 'E' {
                Flow::Stop
            } else {
                Flow::Continue
            })
        }
        fn progress(&self) -> f64 {
            self.now.0 as f64 / 20.0
        }
        fn finish(self) -> Result<Self::Output, Interrupted> {
            Ok(self.log)
        }
    }

    #[test]
    fn own_steps_go_before_events_due_at_the_same_time_and_the_horizon_stops() {
        let mut q = EventQueue::new();
        q.schedule(Tick(3), 'a');
        q.schedule(Tick(3), 'b');
        q.schedule(Tick(20), 'E');
        q.schedule(Tick(30), 'z');
        let toy = Toy {
            q,
            now: Tick::ZERO,
            next: Tick(0),
            log: Vec::new(),
            steps: 0,
        };
        let mut seen = Vec::new();
        let log = run(toy, &mut |f| seen.push(f)).unwrap();
        let want = [
            (0, 's'),
            (3, 's'),
            (3, 'a'),
            (3, 'b'),
            (6, 's'),
            (9, 's'),
            (20, 'E'),
        ];
        assert_eq!(log, want);
        assert_eq!(seen.last(), Some(&1.0));
    }
}
