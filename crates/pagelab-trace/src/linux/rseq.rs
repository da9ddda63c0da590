//! The kernel's writes to the task's rseq area. glibc (2.35 and later) registers each thread's
//! `struct rseq` in its thread control block, one of the program's own anonymous pages. Each
//! time the task is switched out, `prepare_task_switch` marks it (kernel/sched/core.c
//! `rseq_preempt`), and on its return to user space the kernel writes the CPU ids into that
//! area (kernel/rseq.c `__rseq_handle_notify_resume` → `rseq_update_cpu_id` in 6.1,
//! `rseq_update_cpu_node_id` in 6.12: `put_user` to the user page). The write walks the page
//! table, setting the accessed and dirty bits, and faults the page back if it was swapped out
//! (a major fault of the task's). So a program that never touches that page itself keeps it
//! in use for as long as it is switched.

use serde::{Deserialize, Serialize};

use super::GuestClock;
use crate::TraceError;

/// Where the task's rseq area is and how often the kernel writes it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RseqWrites {
    /// The page that holds the rseq area.
    pub page: u32,
    /// The task's context switches per second of its run (measured in the guest).
    pub switches_per_s: f64,
    /// The guest's clock, which places the switches on the replay's time (`phase_s` unused).
    pub clock: GuestClock,
    /// Whether a write walks the page table only when the page's translation is not cached
    /// for the kernel: the first write after the page was mapped, none after it until the page
    /// is unmapped (docs/readings.md `linux-rseq-tlb-again`); off: every write walks.
    #[serde(default)]
    pub through_tlb: bool,
}

impl RseqWrites {
    pub(super) fn check(&self) -> Result<(), TraceError> {
        if !(self.switches_per_s.is_finite() && self.switches_per_s > 0.0) {
            return Err(TraceError::invalid(format!(
                "rseq switches_per_s {}: expected a positive rate",
                self.switches_per_s
            )));
        }
        Ok(())
    }
}

/// The switches still to come: the first one period into the replay, then one a period.
#[derive(Clone, Copy, Debug)]
pub(super) struct Switches {
    pub w: RseqWrites,
    next_s: f64,
    /// The page's translation cached for the kernel's writes since its last walk.
    pub cached: bool,
}

impl Switches {
    pub fn new(w: RseqWrites) -> Switches {
        Switches {
            w,
            next_s: 1.0 / w.switches_per_s,
            cached: false,
        }
    }

    /// Whether a switch has come by `now_s` since the last call (several count as one: the
    /// area is written once on each return, and nothing runs in between).
    pub fn due(&mut self, now_s: f64) -> bool {
        if now_s < self.next_s {
            return false;
        }
        let period = 1.0 / self.w.switches_per_s;
        self.next_s += period * ((now_s - self.next_s) / period).floor() + period;
        true
    }
}
