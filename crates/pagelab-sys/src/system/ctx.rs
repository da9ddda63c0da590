//! What every handler shares: the clock, the event queue, the monitor's counters and the
//! supervisor's debt. A component's handler takes `&mut Ctx` beside its own state (never the
//! whole machine), and hands back a decision for [`System`](super::System) to carry out where
//! another component must act.

use super::{Event, SupCost};
use crate::monitor::Counters;
use pagelab_core::{EventQueue, Tick};

/// The run's shared context.
pub(super) struct Ctx {
    /// The simulated clock [ns].
    pub(super) now: Tick,
    /// The end of the run [ns] -- parameter (`run.duration_s`).
    pub(super) end: Tick,
    /// Past the warm-up: per-user and per-class books count.
    pub(super) warm: bool,
    /// The pending events, `(time, seq)` ordered.
    pub(super) q: EventQueue<Event>,
    /// The monitor's counters (sampled by [`MonitorBooks`](super::MonitorBooks)).
    pub(super) c: Counters,
    /// The supervisor's costs [ns] -- parameters (`cpu.supervisor`).
    pub(super) cost: SupCost,
    /// Supervisor time the next dispatch pays before running its user [ns].
    pub(super) sup_debt_ns: u64,
}

impl Ctx {
    pub(super) fn new(end: Tick, warm: bool, cost: SupCost) -> Ctx {
        Ctx {
            now: Tick::ZERO,
            end,
            warm,
            q: EventQueue::new(),
            c: Counters::default(),
            cost,
            sup_debt_ns: 0,
        }
    }
}
