//! The V6 machine's counters (Chanson's measures are ratios of them, report.rs), and the
//! two conversions the report uses.

use pagelab_core::Tick;

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Stats {
    pub(super) time_s: f64,
    pub(super) reaction_n: f64,
    pub(super) reaction_ms: f64,
    pub(super) reaction_out_n: f64,
    pub(super) reaction_out_ms: f64,
    pub(super) swap_ins: f64,
    pub(super) swap_outs: f64,
    pub(super) swap_outs_io: f64,
    pub(super) swap_outs_easy: f64,
    pub(super) swap_ops_ms: f64,
    pub(super) swap_clicks: f64,
    pub(super) file_ios: f64,
    pub(super) file_wait_ms: f64,
    pub(super) disk_reqs: f64,
    pub(super) disk_queue_wait_ms: f64,
    pub(super) disk_len_s: f64,
    pub(super) disk_busy_s: f64,
    pub(super) cpu_busy_s: f64,
    pub(super) stretches: f64,
    pub(super) cpu_waits: f64,
    pub(super) cpu_wait_ms: f64,
    pub(super) in_core_s: f64,
    pub(super) loops: f64,
    pub(super) sched_wait_runin: f64,
    pub(super) procs_s: f64,
    pub(super) logins_admitted: f64,
    pub(super) logins_refused: f64,
    pub(super) logins_full: f64,
    pub(super) interrupts: f64,
    pub(super) intr_s: f64,
    pub(super) tty_chars: f64,
    pub(super) cache_hits: f64,
    pub(super) read_aheads: f64,
    pub(super) fs_accesses: f64,
    pub(super) fs_writes: f64,
    pub(super) syncs: f64,
}

impl Stats {
    pub(super) fn since(&self, e: &Stats) -> Stats {
        Stats {
            time_s: self.time_s - e.time_s,
            reaction_n: self.reaction_n - e.reaction_n,
            reaction_ms: self.reaction_ms - e.reaction_ms,
            reaction_out_n: self.reaction_out_n - e.reaction_out_n,
            reaction_out_ms: self.reaction_out_ms - e.reaction_out_ms,
            swap_ins: self.swap_ins - e.swap_ins,
            swap_outs: self.swap_outs - e.swap_outs,
            swap_outs_io: self.swap_outs_io - e.swap_outs_io,
            swap_outs_easy: self.swap_outs_easy - e.swap_outs_easy,
            swap_ops_ms: self.swap_ops_ms - e.swap_ops_ms,
            swap_clicks: self.swap_clicks - e.swap_clicks,
            file_ios: self.file_ios - e.file_ios,
            file_wait_ms: self.file_wait_ms - e.file_wait_ms,
            disk_reqs: self.disk_reqs - e.disk_reqs,
            disk_queue_wait_ms: self.disk_queue_wait_ms - e.disk_queue_wait_ms,
            disk_len_s: self.disk_len_s - e.disk_len_s,
            disk_busy_s: self.disk_busy_s - e.disk_busy_s,
            cpu_busy_s: self.cpu_busy_s - e.cpu_busy_s,
            stretches: self.stretches - e.stretches,
            cpu_waits: self.cpu_waits - e.cpu_waits,
            cpu_wait_ms: self.cpu_wait_ms - e.cpu_wait_ms,
            in_core_s: self.in_core_s - e.in_core_s,
            loops: self.loops - e.loops,
            sched_wait_runin: self.sched_wait_runin - e.sched_wait_runin,
            procs_s: self.procs_s - e.procs_s,
            logins_admitted: self.logins_admitted - e.logins_admitted,
            logins_refused: self.logins_refused - e.logins_refused,
            logins_full: self.logins_full - e.logins_full,
            interrupts: self.interrupts - e.interrupts,
            intr_s: self.intr_s - e.intr_s,
            tty_chars: self.tty_chars - e.tty_chars,
            cache_hits: self.cache_hits - e.cache_hits,
            read_aheads: self.read_aheads - e.read_aheads,
            fs_accesses: self.fs_accesses - e.fs_accesses,
            fs_writes: self.fs_writes - e.fs_writes,
            syncs: self.syncs - e.syncs,
        }
    }
}

pub(super) fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

pub(super) fn ms(t: Tick) -> f64 {
    t.as_ns() as f64 / 1e6
}
