//! The V6 machine's counters (Chanson's measures are ratios of them, report.rs), on the
//! shared counters macro with units, and the two conversions the report uses.

use crate::monitor::counters;
use pagelab_core::Tick;

counters! {
    /// Cumulative counters of the V6 machine (each interval's row and the run's totals are
    /// differences of two copies, as in the VM monitor).
    pub(super) struct Stats {
        time_s: "s", "Simulated time.";
        reaction_n: "count", "Reaction times observed (Chanson §2.B).";
        reaction_ms: "ms", "Sum of reaction times: wake-up to selection.";
        reaction_out_n: "count", "Reactions of processes woken while swapped out.";
        reaction_out_ms: "ms", "Sum of reaction times of processes woken while swapped out.";
        swap_ins: "count", "Images swapped in.";
        swap_outs: "count", "Images swapped out.";
        swap_outs_io: "count", "Swap-outs of a process asleep in a block access of its own (Chanson §3.1).";
        swap_outs_easy: "count", "Swap-outs chosen by sched's easy-core rule.";
        swap_ops_ms: "ms", "Sum over swap operations of queue plus transfer time (Chanson §2.C).";
        swap_clicks: "clicks", "Core clicks moved by swaps, in and out.";
        file_ios: "count", "File-system block transfers completed at the disk controller.";
        file_wait_ms: "ms", "Sum over file-system transfers of queue plus service time.";
        disk_reqs: "count", "Requests started by the disk controller, file blocks and swaps.";
        disk_queue_wait_ms: "ms", "Sum over disk requests of the wait before service.";
        disk_len_s: "request·s", "Integral of requests at the disk controller (queued and in service).";
        disk_busy_s: "s", "Time the disk controller is busy.";
        cpu_busy_s: "cpu·s", "Processor time busy (processes and interrupt handlers).";
        stretches: "count", "Times a process was given the CPU (context switches in).";
        cpu_waits: "count", "Waits of a ready process in core for the CPU.";
        cpu_wait_ms: "ms", "Sum of waits of ready processes in core for the CPU.";
        in_core_s: "process·s", "Integral of processes in core.";
        loops: "count", "Prototype loops completed.";
        sched_wait_runin: "count", "Times sched found no room and no process to swap out and slept on runin.";
        procs_s: "process·s", "Integral of processes in the process table.";
        logins_admitted: "count", "Login attempts admitted (Chanson §4.3).";
        logins_refused: "count", "Login attempts refused: reaction time over the threshold.";
        logins_full: "count", "Login attempts refused: process table or swap space full.";
        interrupts: "count", "Clock, disk and terminal interrupts taken.";
        intr_s: "cpu·s", "Processor time in interrupt handlers.";
        tty_chars: "chars", "Terminal characters sent and received.";
        cache_hits: "count", "Block accesses found in the buffer cache (getblk hits).";
        read_aheads: "count", "Read-aheads started (breada).";
        fs_accesses: "count", "File-system block accesses by processes through the buffer cache.";
        fs_writes: "count", "File-system block writes started (bdwrite pushed out, bflush, bwrite).";
        syncs: "count", "sync calls by update.";
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
