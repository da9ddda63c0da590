//! The run's summary: every metric of a VM-family run from its counters, in the papers' terms,
//! each with its unit and meaning ([`put_metric`]).

use super::*;

/// What the summary's metrics are computed from: the counters of a run and its extent.
#[derive(Clone, Copy)]
struct Basis<'a> {
    d: &'a Counters,
    /// Seconds covered (never 0).
    t: f64,
    /// Processor-seconds available.
    cap: f64,
    /// Transactions that reached Q2.
    nontrivial: f64,
    /// Throughput [1/s], mean response [s], mean think [s].
    x: f64,
    r: f64,
    z: f64,
    users: u32,
}

/// `a / b`, 0 when `b` is not positive.
fn div(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

/// The summary metrics of a run from its totals `d` on `cpus` processors.
pub fn summary_metrics(d: &Counters, cpus: u32, users: u32) -> BTreeMap<String, Metric> {
    let t = d.time_s.max(f64::MIN_POSITIVE);
    let b = Basis {
        d,
        t,
        cap: t * f64::from(cpus),
        nontrivial: d.transactions - d.trivial_transactions,
        x: div(d.transactions, t),
        r: div(d.response_sum_s, d.transactions),
        z: div(d.think_sum_s, d.thinks),
        users,
    };
    let mut m = BTreeMap::new();
    io_metrics(&b, &mut m);
    queue_metrics(&b, &mut m);
    trivial_split_metrics(&b, &mut m);
    pressure_metrics(&b, &mut m);
    paging_metrics(&b, &mut m);
    frame_supply_metrics(&b, &mut m);
    processor_metrics(&b, &mut m);
    rate_and_response_metrics(&b, &mut m);
    m
}

/// Memory pressure as Linux's pressure stall information reads it ([`crate::pressure`],
/// docs/system.md): the totals' shares of time; the averages come from the run's end.
fn pressure_metrics(b: &Basis, m: &mut BTreeMap<String, Metric>) {
    let d = b.d;
    put_metric(
        m,
        "pressure_some_pct",
        100.0 * div(d.pressure_some_s, d.time_s),
        "%",
        "Share of time with at least one user stalled on memory, waiting for a page read back or a frame (Linux PSI memory \"some\", kernel/sched/psi.c test_state; several processors: psi.c's per-thread share).",
    );
    put_metric(
        m,
        "pressure_full_pct",
        100.0 * div(d.pressure_full_s, d.time_s),
        "%",
        "Share of time with users stalled on memory and none runnable outside a stall (Linux PSI memory \"full\", kernel/sched/psi.c test_state: users waiting for I/O do not keep it false; several processors: psi.c's per-thread share).",
    );
}

/// The I/O rates and page waits.
fn io_metrics(b: &Basis, m: &mut BTreeMap<String, Metric>) {
    let Basis { d, t, cap, .. } = *b;
    let mut put = |name: &str, value: f64, unit: &str, description: &str| {
        put_metric(m, name, value, unit, description)
    };
    put(
        "vio_rate",
        d.vios / t,
        "1/s",
        "Virtual I/Os per second (VMMAP VIO rate).",
    );
    put(
        "paging_sio_rate",
        d.paging_sios / t,
        "1/s",
        "Paging SIOs per second.",
    );
    put(
        "page_wait_pct",
        100.0 * d.page_wait_cpu_s / cap,
        "%",
        "Processor time idle in page wait.",
    );
    put(
        "users_page_wait_pct",
        100.0 * div(d.page_wait_user_s, d.mpl_user_s),
        "%",
        "In-queue user time spent waiting for a page (VM monitor user-state sampling).",
    );
    put(
        "page_io_time_ms",
        1e3 * div(
            d.page_io_sum_s - d.swap_io_sum_s,
            d.page_reads + d.page_writes,
        ),
        "ms",
        "Mean page request time, queue to completion.",
    );
}

/// The response times, queue-drops and the scheduler's queues.
fn queue_metrics(b: &Basis, m: &mut BTreeMap<String, Metric>) {
    let Basis {
        d, t, nontrivial, ..
    } = *b;
    let mut put = |name: &str, value: f64, unit: &str, description: &str| {
        put_metric(m, name, value, unit, description)
    };
    put(
        "q1_seconds",
        div(d.trivial_response_sum_s, d.trivial_transactions),
        "s",
        "Mean trivial (Q1-only) response time (VMMAP Q1SECS).",
    );
    put(
        "q2_seconds",
        div(d.response_sum_s - d.trivial_response_sum_s, nontrivial),
        "s",
        "Mean response time of transactions that reached Q2.",
    );
    put(
        "q1_drop_rate",
        d.q1_drops / t,
        "1/s",
        "Queue-drops from Q1 per second.",
    );
    put(
        "q2_drop_rate",
        d.q2_drops / t,
        "1/s",
        "Queue-drops from Q2 per second.",
    );
    put(
        "page_reads_per_q1",
        div(d.q1_stay_page_reads, d.q1_drops),
        "pages",
        "Page reads per Q1 stay.",
    );
    put("users_in_q1", d.q1_user_s / t, "users", "Mean users in Q1.");
    put("users_in_q2", d.q2_user_s / t, "users", "Mean users in Q2.");
    put(
        "eligible",
        d.eligible_user_s / t,
        "users",
        "Mean users on the eligible list.",
    );
    put(
        "mpl",
        d.mpl_user_s / t,
        "users",
        "Mean multiprogramming level.",
    );
    put(
        "demand_paging_rate",
        d.page_reads / t,
        "pages/s",
        "Pages read on demand per second.",
    );
}

/// Where a trivial response goes, by the state its time was spent in: the parts add up to
/// q1_seconds.
fn trivial_split_metrics(b: &Basis, m: &mut BTreeMap<String, Metric>) {
    let d = b.d;
    for (name, sum, what) in [
        (
            "q1_eligible_s",
            d.trivial_eligible_s,
            "on the eligible list",
        ),
        (
            "q1_ready_s",
            d.trivial_ready_s,
            "ready, waiting for a processor",
        ),
        ("q1_running_s", d.trivial_running_s, "on a processor"),
        (
            "q1_page_wait_s",
            d.trivial_page_wait_s,
            "waiting for a page or a swap set",
        ),
        (
            "q1_frame_wait_s",
            d.trivial_frame_wait_s,
            "waiting for a free frame",
        ),
        (
            "q1_vio_wait_s",
            d.trivial_vio_wait_s,
            "waiting for minidisk I/O",
        ),
        (
            "q1_console_s",
            d.trivial_console_s,
            "writing to the terminal",
        ),
    ] {
        let desc = format!("Of the mean trivial response (q1_seconds): time {what}.");
        put_metric(m, name, div(sum, d.trivial_transactions), "s", &desc);
    }
}

/// Page and swap traffic and its timing.
fn paging_metrics(b: &Basis, m: &mut BTreeMap<String, Metric>) {
    let Basis { d, t, cap, .. } = *b;
    let mut put = |name: &str, value: f64, unit: &str, description: &str| {
        put_metric(m, name, value, unit, description)
    };
    put(
        "swap_paging_rate",
        (d.swap_reads + d.swap_writes) / t,
        "pages/s",
        "Pages moved by swapping (swap sets in and out) per second.",
    );
    put(
        "total_paging_rate",
        (d.page_reads + d.page_writes + d.swap_reads + d.swap_writes) / t,
        "pages/s",
        "Pages moved per second, demand and swap, in and out.",
    );
    put(
        "page_read_time_ms",
        1e3 * div(d.page_read_sum_s, d.page_reads),
        "ms",
        "Mean demand page read time, queue to completion (what a faulting user waits).",
    );
    put(
        "swap_read_time_ms",
        1e3 * div(d.swap_read_sum_s, d.swap_reads),
        "ms",
        "Mean swap-in page time, queue to completion (a swap set's read SIO).",
    );
    put(
        "swap_io_time_ms",
        1e3 * div(d.swap_io_sum_s, d.swap_reads + d.swap_writes),
        "ms",
        "Mean swap page request time, queue to completion (a swap set's SIO).",
    );
    put(
        "swap_fault_rate",
        d.swap_faults / t,
        "1/s",
        "Swap faults per second.",
    );
    put(
        "prepage_error_ratio",
        div(d.prepage_errors, d.swap_reads),
        "fraction",
        "Pages swapped in but not referenced, per page swapped in.",
    );
    put(
        "page_write_rate",
        d.page_writes / t,
        "pages/s",
        "Pages written per second.",
    );
    put(
        "pages_per_write_group",
        div(d.page_writes, d.page_out_groups),
        "pages",
        "Pages per group of page-outs queued together (round turkey: up to eight).",
    );
    put(
        "problem_state_pct",
        100.0 * d.cpu_problem_s / cap,
        "%",
        "Processor time in problem state.",
    );
    put(
        "supervisor_pct",
        100.0 * d.cpu_supervisor_s / cap,
        "%",
        "Processor time in supervisor state.",
    );
}

/// Where the free list's frames came from: the flush list (trim, garbage collector), the
/// scan (steals), and how often a fault or a swap-in found none.
fn frame_supply_metrics(b: &Basis, m: &mut BTreeMap<String, Metric>) {
    let Basis { d, t, .. } = *b;
    let mut put = |name: &str, value: f64, unit: &str, description: &str| {
        put_metric(m, name, value, unit, description)
    };
    put(
        "trim_rate",
        d.trimmed / t,
        "pages/s",
        "Pages trimmed to the flush list at queue-drop per second.",
    );
    put(
        "gc_flush_rate",
        d.gc_flushed / t,
        "pages/s",
        "Pages flushed by the garbage collector per second.",
    );
    put(
        "frame_wait_pct",
        100.0 * div(d.frame_waits, d.faults),
        "%",
        "Faults that found the free list empty and waited for a frame, per fault.",
    );
    // Frames supplied: SELECT's victims (flush list and scan) and the pages swap-outs freed.
    let supplied = d.victims + d.swap_writes;
    put(
        "scan_take_pct",
        100.0 * div(d.supply_victims, supplied),
        "%",
        "Frames the core-table scan (the frame supply) took, per frame supplied (tetzlaff's VMMAP steal rate).",
    );
    put(
        "scan_steal_pct",
        100.0 * div(d.supply_steals, supplied),
        "%",
        "Frames the core-table scan took from users in queue, per frame supplied.",
    );
    put(
        "flush_reread_pct",
        100.0 * div(d.flush_rereads, d.page_reads),
        "%",
        "Demand page reads of pages that had left from the flush list (trimmed, flushed or collected), per page read.",
    );
    put(
        "prepage_short_rate",
        d.prepage_short / t,
        "pages/s",
        "Pages a swap-in left on their slots for want of a free frame, per second.",
    );
    put(
        "steal_rate",
        d.steals / t,
        "1/s",
        "Frames taken from in-queue users per second.",
    );
    put(
        "steal_ratio",
        steal_ratio(d),
        "fraction",
        "Fraction of pages read that replaced pages of active users (bard §6).",
    );
}

/// Processor use, Bard's indexes and the core-table scan's cycle.
fn processor_metrics(b: &Basis, m: &mut BTreeMap<String, Metric>) {
    let Basis { d, t, cap, .. } = *b;
    let mut put = |name: &str, value: f64, unit: &str, description: &str| {
        put_metric(m, name, value, unit, description)
    };
    put(
        "cpu_busy_pct",
        100.0 * (d.cpu_problem_s + d.cpu_supervisor_s) / cap,
        "%",
        "Processor busy, per processor.",
    );
    put(
        "psi_s_star",
        psi_s_star(d).unwrap_or(f64::NAN),
        "interruptions",
        "Bard's system PSI estimate, eq. 5.",
    );
    put(
        "psi_s",
        psi_s(d).unwrap_or(f64::NAN),
        "interruptions",
        "Bard's exact system PSI, eq. 4.",
    );
    put(
        "psi_s_stolen",
        psi_s_stolen(d).unwrap_or(f64::NAN),
        "interruptions",
        "Eq. 4 over pages stolen from users in queue.",
    );
    put(
        "scan_cycle_s",
        div(t, d.scan_cycles),
        "s",
        "Mean core-table scan cycle.",
    );
}

/// Event rates, throughput, response and Little's law.
fn rate_and_response_metrics(b: &Basis, m: &mut BTreeMap<String, Metric>) {
    let Basis {
        d,
        t,
        x,
        r,
        z,
        users,
        ..
    } = *b;
    let mut put = |name: &str, value: f64, unit: &str, description: &str| {
        put_metric(m, name, value, unit, description)
    };
    put(
        "fault_rate",
        d.faults / t,
        "1/s",
        "Page exceptions per second.",
    );
    put(
        "rps_miss_rate",
        d.rps_misses / t,
        "1/s",
        "RPS misses per second.",
    );
    put(
        "false_drop_rate",
        d.false_drops / t,
        "1/s",
        "Queue-drops at terminal writes per second.",
    );
    put(
        "dispatch_rate",
        d.dispatches / t,
        "1/s",
        "Dispatches per second.",
    );
    put(
        "io_interrupt_rate",
        d.io_interrupts / t,
        "1/s",
        "I/O interrupts per second.",
    );
    put(
        "trivial_rate",
        d.trivial_transactions / t,
        "1/s",
        "Trivial transactions completed per second.",
    );
    put("throughput", x, "1/s", "Transactions completed per second.");
    put("response_mean_s", r, "s", "Mean response time.");
    put("think_mean_s", z, "s", "Mean completed think time.");
    put("users", f64::from(users), "users", "Logged-on users.");
    put(
        "little_users",
        x * (r + z),
        "users",
        "X (R + Z): equals the users by Little's law.",
    );
}
