//! What the kernel-rule engines share: the kernel series and the workingset counters they keep
//! (mm/workingset.c, `WORKINGSET_REFAULT_ANON`, `_ACTIVATE_ANON`, `_RESTORE_ANON`).

use crate::TraceError;
use serde::{Deserialize, Serialize};

/// The kernel series whose rules are followed (Debian's packages).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kernel {
    /// Debian's 6.1 (6.1.192).
    #[serde(rename = "6.1")]
    V6_1,
    /// Debian's 6.12 (6.12.117).
    #[serde(rename = "6.12")]
    V6_12,
}

impl Kernel {
    /// The series named `s` ("6.1" or "6.12").
    pub fn parse(s: &str) -> Result<Kernel, TraceError> {
        match s {
            "6.1" => Ok(Kernel::V6_1),
            "6.12" => Ok(Kernel::V6_12),
            _ => Err(TraceError::invalid(format!(
                "kernel `{s}`: unknown; expected 6.1 or 6.12"
            ))),
        }
    }
}

/// One step of a cgroup reclaim, as the kernel's vmscan tracepoints report it
/// (include/trace/events/vmscan.h: `mm_vmscan_memcg_reclaim_begin`/`_end`,
/// `mm_vmscan_lru_shrink_inactive`, `mm_vmscan_lru_shrink_active`), so that a replay can be set
/// beside a kernel run step by step (`pagelab linux predict --reclaim-events`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum ReclaimEvent {
    /// `try_to_free_mem_cgroup_pages` begins.
    ReclaimBegin,
    /// One `shrink_inactive_list` that isolated pages: scanned, freed, activated, and kept
    /// (young, back on the inactive list: `nr_ref_keep`).
    ShrinkInactive {
        priority: u32,
        scanned: u32,
        reclaimed: u32,
        activated: u32,
        kept: u32,
    },
    /// One `shrink_active_list`: pages taken from the active list and deactivated.
    ShrinkActive {
        priority: u32,
        taken: u32,
        deactivated: u32,
    },
    /// The reclaim ends, with the pages it freed.
    ReclaimEnd { reclaimed: u32 },
}

/// A reclaim's steps, kept only once recording is asked for (`pagelab linux predict
/// --reclaim-events`): the two lists and MGLRU push theirs here.
#[derive(Clone, Debug, Default)]
pub struct EventLog(Option<Vec<ReclaimEvent>>);

impl EventLog {
    /// From now on each step pushed is kept.
    pub fn record(&mut self) {
        self.0.get_or_insert_with(Vec::new);
    }

    /// The steps kept so far, oldest first (empty unless recording).
    pub fn take(&mut self) -> Vec<ReclaimEvent> {
        self.0.as_mut().map(std::mem::take).unwrap_or_default()
    }

    pub fn push(&mut self, e: ReclaimEvent) {
        if let Some(v) = self.0.as_mut() {
            v.push(e);
        }
    }
}

/// The anon workingset counters of memory.stat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workingset {
    /// `workingset_refault_anon`.
    pub refault: u64,
    /// `workingset_activate_anon`.
    pub activate: u64,
    /// `workingset_restore_anon`.
    pub restore: u64,
}
