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
    /// The pages on the lists as the reclaim begins (the kernel's, read by kprobes at its first
    /// look at them after `lru_add_drain`: `pagelab.linux.lru_kprobes`).
    LruPages { pages: u32 },
    /// 6.12's MGLRU generations where its reclaim reads or moves them, as the kprobes of
    /// `pagelab.linux.lru_kprobes` read the kernel's: `at` is `shrink` (each
    /// `try_to_shrink_lruvec`, at `priority`), `age` (`try_to_inc_max_seq`) or `evict`
    /// (`evict_folios`); `sizes` holds the pages of each generation, min_seq to max_seq.
    Generations {
        at: GenerationsAt,
        priority: u32,
        min_seq: u64,
        max_seq: u64,
        sizes: Vec<u64>,
    },
}

/// Where a [`ReclaimEvent::Generations`] was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GenerationsAt {
    Shrink,
    Age,
    Evict,
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

    /// Whether steps are being kept.
    pub fn recording(&self) -> bool {
        self.0.is_some()
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

/// The cgroup's vmpressure window (mm/vmpressure.c), as far as it switches the reclaiming task
/// out. `do_try_to_free_pages` calls `vmpressure_prio` at each pass of its priority loop: at
/// priority `vmpressure_level_critical_prio` (ilog2(100 / 10) = 3) or below it adds
/// `vmpressure_win` (`SWAP_CLUSTER_MAX` × 16 = 512) to `tree_scanned`; after the pass,
/// `shrink_node` adds the pages that went through `shrink_folio_list`. Whenever the sum reaches
/// the window, `vmpressure` queues `vmpressure_work_fn` on the system workqueue; on one CPU the
/// woken kworker preempts the reclaiming task at its next `cond_resched`, and the work sets the
/// sum back to 0. So each such work is a context switch of the task.
#[derive(Clone, Debug, Default)]
pub struct Vmpressure {
    tree_scanned: u64,
    /// Pages through `shrink_folio_list` in the pass under way.
    pass_scanned: u64,
    /// Works queued (and run) so far: each one switched the task out.
    pub works: u64,
}

/// `vmpressure_win`.
const VMPRESSURE_WIN: u64 = 512;
/// `vmpressure_level_critical_prio`.
const CRITICAL_PRIO: u32 = 3;

impl Vmpressure {
    /// A pass of the priority loop begins (`vmpressure_prio`).
    pub fn pass(&mut self, priority: u32) {
        self.pass_scanned = 0;
        if priority <= CRITICAL_PRIO {
            self.add(VMPRESSURE_WIN);
        }
    }

    /// `n` pages went through `shrink_folio_list` in this pass.
    pub fn scanned(&mut self, n: u64) {
        self.pass_scanned += n;
    }

    /// The pass ends: `shrink_node`'s call with its scanned pages.
    pub fn pass_end(&mut self) {
        let n = std::mem::take(&mut self.pass_scanned);
        self.add(n);
    }

    fn add(&mut self, n: u64) {
        if n == 0 {
            return;
        }
        self.tree_scanned += n;
        if self.tree_scanned >= VMPRESSURE_WIN {
            self.tree_scanned = 0;
            self.works += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Vmpressure;

    /// One pass of the priority loop at `priority` that put `scanned` pages through
    /// `shrink_folio_list`.
    fn pass(v: &mut Vmpressure, priority: u32, scanned: u64) {
        v.pass(priority);
        v.scanned(scanned);
        v.pass_end();
    }

    #[test]
    fn vmpressure_works_at_the_critical_priority_or_a_full_window() {
        let mut v = Vmpressure::default();
        // Priorities 12 to 4 queue nothing; 300 + 211 pages scanned stay below the window.
        for p in (4..=12).rev() {
            pass(&mut v, p, if p == 5 { 300 } else { 0 });
        }
        pass(&mut v, 4, 211);
        assert_eq!(v.works, 0);
        // One more page fills it, and the work empties it.
        pass(&mut v, 4, 1);
        assert_eq!(v.works, 1);
        // Each pass at priority 3 or below queues one, whatever was scanned.
        for p in [3, 2, 1, 0] {
            pass(&mut v, p, 0);
        }
        assert_eq!(v.works, 5);
        // A work empties the window: 511 pages after one are not enough.
        pass(&mut v, 3, 511);
        assert_eq!(v.works, 6);
    }
}
