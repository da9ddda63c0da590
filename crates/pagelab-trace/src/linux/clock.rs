//! The guest's clock: how long the replay takes in the guest, by a law fitted to the kernel's
//! replay times, which places the memcg counters' periodic flusher and the replayer's context
//! switches.

use super::LinuxCounters;
use serde::{Deserialize, Serialize};

/// Period of the memcg counters' flusher (`FLUSH_TIME`, mm/memcontrol.c `flush_memcg_stats_dwork`,
/// 2 × HZ in both series) [s].
pub const FLUSH_PERIOD_S: f64 = 2.0;

/// How long the guest takes over the replay, as a linear law of what the replay does (fitted to
/// the kernel's measured replay times: `pagelab.linux.prediction`), and where in its period the
/// flusher first runs. It places the periodic flush of the memcg counters, which 6.12's reclaim
/// and refault reads rely on (`mem_cgroup_flush_stats_ratelimited` flushes nothing while that
/// flusher keeps time).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct GuestClock {
    /// Per touch of the touch list [s].
    pub per_touch_s: f64,
    /// Per major fault [s].
    pub per_major_fault_s: f64,
    /// Per page written to the swap device [s].
    pub per_swapout_s: f64,
    /// When the flusher first runs after the replay starts [s], in `0..FLUSH_PERIOD_S`.
    pub phase_s: f64,
}

impl GuestClock {
    /// The guest's time since the replay began [s], by the law of what the replay did so far.
    pub(super) fn elapsed_s(&self, c: &LinuxCounters) -> f64 {
        self.per_touch_s * c.references as f64
            + self.per_major_fault_s * c.major_faults as f64
            + self.per_swapout_s * c.pswpout as f64
    }
}
