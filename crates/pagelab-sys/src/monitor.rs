//! The monitor: counters sampled every interval, and the summary in the papers' terms.
//!
//! Every counter is cumulative from time zero; a sample is a copy, an interval's row the
//! difference of two samples, and the run's totals the difference between the last sample and
//! the one taken at the end of the warm-up. The summary speaks VMMAP's language as the
//! tetzlaff paper's Table 2 does (VIO rate, paging SIO rate, percent page wait, page I/O time,
//! Q1 seconds, Q1 and Q2 drop rates, page reads per Q1 stay, users in Q1 and Q2, demand and
//! swap paging rates) and Bard's (problem-state percent, steal ratio, and the system page
//! survival index estimate of his eq. 5):
//!
//! ```text
//!   Ψs* = 1.5 (ΔP + ΔV) ΔT / (ΔM ΔW)
//! ```
//!
//! with P page exceptions, V virtual I/Os, W core-table scan cycles and M = ∫ MPL dt.
//!
//! Definitions we had to choose: *Q1 seconds* is the mean response of trivial transactions
//! (those that never left Q1), *Q2 seconds* that of the others; *percent page wait* is the share
//! of processor time idle while at least one in-queue user waits for a page (VM's CPU-state
//! split), and *users in page wait* the share of in-queue user time spent waiting for a page
//! (the monitor's user-state sampling: the reading of tetzlaff Table 2's "percent page wait"
//! that agrees with its 100 % CPU busy, see docs/presets/hpo.md); *page I/O time* is a page request's mean time from queueing to completion.

pub mod benchmark;
mod summary;

pub use summary::summary_metrics;

use serde::Serialize;
use std::collections::BTreeMap;

/// Declares a struct of cumulative counters, each with its unit and description (STYLE.md,
/// principle 7): the VM machine's [`Counters`], UNIX V6's and the M44's. All are `f64` so that
/// rows are uniform; counts stay exact below 2^53.
macro_rules! counters {
    ($(#[$meta:meta])* $vis:vis struct $ty:ident {
        $($name:ident : $unit:literal, $desc:literal;)*
    }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        $vis struct $ty { $(#[doc = $desc] pub $name: f64,)* }
        // Not every machine reads every helper.
        #[allow(dead_code)]
        impl $ty {
            /// (name, unit, description) of each counter, in column order.
            pub const COLUMNS: &'static [(&'static str, &'static str, &'static str)] =
                &[$((stringify!($name), $unit, $desc)),*];
            /// Values in column order.
            pub fn values(&self) -> Vec<f64> { vec![$(self.$name),*] }
            /// `self − earlier`, counter by counter.
            pub fn since(&self, earlier: &Self) -> Self {
                Self { $($name: self.$name - earlier.$name,)* }
            }
            /// `self + later`, counter by counter (intervals joined into one).
            pub fn plus(&self, later: &Self) -> Self {
                Self { $($name: self.$name + later.$name,)* }
            }
            /// The unit and description of counter `name` (`None`: no such counter).
            pub fn column(name: &str) -> Option<(&'static str, &'static str)> {
                Self::COLUMNS.iter().find(|c| c.0 == name).map(|c| (c.1, c.2))
            }
        }
    };
}
pub(crate) use counters;

counters! {
    /// Cumulative counters of a running system.
    pub struct Counters {
        time_s: "s", "Simulated time.";
        transactions: "count", "Transactions completed.";
        trivial_transactions: "count", "Transactions completed without leaving Q1.";
        response_sum_s: "s", "Sum of response times of completed transactions.";
        trivial_response_sum_s: "s", "Sum of response times of trivial transactions.";
        trivial_eligible_s: "s", "Of trivial responses: time on the eligible list.";
        trivial_ready_s: "s", "Of trivial responses: time ready, waiting for a processor.";
        trivial_running_s: "s", "Of trivial responses: time on a processor.";
        trivial_page_wait_s: "s", "Of trivial responses: time waiting for a page or a swap set.";
        trivial_frame_wait_s: "s", "Of trivial responses: time waiting for a free frame.";
        trivial_vio_wait_s: "s", "Of trivial responses: time waiting for minidisk I/O (VIO).";
        trivial_console_s: "s", "Of trivial responses: time writing to the terminal.";
        thinks: "count", "Think periods completed.";
        think_sum_s: "s", "Sum of completed think periods.";
        faults: "count", "Page exceptions (Bard's P): references to a page not valid in storage.";
        page_reads: "count", "Pages read from paging devices (demand paging).";
        page_writes: "count", "Pages written to paging devices.";
        page_out_groups: "count", "Groups of page-outs queued together (one per device run).";
        swap_reads: "count", "Pages read by swap-ins (swap faults and prepaging).";
        swap_writes: "count", "Pages written by physical swap-outs.";
        swap_io_sum_s: "s", "Sum over pages swapped of queue-to-completion time.";
        swap_read_sum_s: "s", "Sum over pages swapped in of queue-to-completion time.";
        page_read_sum_s: "s", "Sum over demand page reads of queue-to-completion time.";
        swap_faults: "count", "Faults on a page of a swap set (the whole set read).";
        swap_sets_in: "count", "Swap sets read (swap faults and prepaging).";
        swap_sets_out: "count", "Swap sets written.";
        prepage_errors: "count", "Pages swapped in and not referenced before the next queue-drop.";
        trimmed: "count", "Pages trimmed to the flush list at queue-drop.";
        gc_flushed: "count", "Pages the garbage collector put on the flush list.";
        frame_waits: "count", "Faults that found no free frame and waited for a page-out or swap-out (tetzlaff \"Free list replenishment\").";
        flush_rereads: "count", "Demand page reads of pages that had left storage from the flush list (trimmed, flushed at queue-drop or collected).";
        supply_victims: "count", "Frames the frame supply chose (the core-table scan in VM), not the flush list or a swap-out.";
        supply_steals: "count", "Frames the frame supply took from users in queue.";
        prepage_short: "count", "Pages of a swap set left on their slots at swap-in for want of a free frame.";
        zero_fills: "count", "First references served with a cleared frame, no I/O.";
        reclaims: "count", "Faults served by reclaiming a frame whose page-out was under way.";
        paging_sios: "count", "Paging SIOs (channel programs; several pages when chained).";
        page_io_sum_s: "s", "Sum over pages moved of queue-to-completion time.";
        rps_misses: "count", "Reconnects that found the channel busy.";
        vios: "count", "Virtual I/Os (Bard's V).";
        steals: "count", "Frames taken from users in queue.";
        stolen_reads: "count", "Page reads that replaced a page of a user in queue (bard §6 steal ratio numerator).";
        victims: "count", "Frames taken by SELECT (flush list or scan).";
        scan_cycles: "count", "Core-table scan cycles (Bard's W).";
        psi_interruptions: "count", "Sum over replaced pages of the owner's essential interruptions since the page's last reference (Bard's eq. 4 numerator).";
        psi_replaced: "count", "Replaced pages counted in eq. 4 (Bard's m).";
        psi_stolen_interruptions: "count", "The eq. 4 numerator over stolen pages only (owner in queue at replacement).";
        deactivations: "count", "Users taken out of the multiprogramming set by load-control feedback.";
        frames_scanned: "count", "Core-table entries examined.";
        q1_drops: "count", "Queue-drops from Q1 (transaction end, terminal write, Q1 slice end).";
        q2_drops: "count", "Queue-drops from Q2.";
        false_drops: "count", "Queue-drops at intra-transaction terminal writes.";
        q1_stay_page_reads: "count", "Page reads during Q1 stays.";
        mpl_user_s: "user·s", "Integral of the multiprogramming level (Bard's M).";
        q1_user_s: "user·s", "Integral of users in Q1.";
        q2_user_s: "user·s", "Integral of users in Q2.";
        eligible_user_s: "user·s", "Integral of users on the eligible list.";
        cpu_problem_s: "cpu·s", "Processor time in problem state.";
        cpu_supervisor_s: "cpu·s", "Processor time in supervisor state.";
        page_wait_cpu_s: "cpu·s", "Idle processor time while an in-queue user waits for a page.";
        page_wait_user_s: "user·s", "Integral of in-queue users waiting for a page or a frame.";
        pressure_some_s: "s", "Linux PSI memory \"some\" time: at least one user stalled on memory (waiting for a page read back or a frame), in psi.c's share of the processors when there are several (crate::pressure).";
        pressure_full_s: "s", "Linux PSI memory \"full\" time: users stalled on memory and no runnable user outside a stall (I/O waiters do not count as running), in psi.c's share of the processors when there are several (crate::pressure).";
        dispatches: "count", "Users given a processor (a burst continued after an event not counted).";
        io_interrupts: "count", "I/O interrupts taken (paging and virtual I/O completions).";
    }
}

/// A named value with unit and meaning.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Metric {
    /// The value.
    pub value: f64,
    /// Its unit.
    pub unit: String,
    /// What it is.
    pub description: String,
}

/// Inserts metric `name` into `m`: every engine's report is built with it.
pub fn put_metric(
    m: &mut BTreeMap<String, Metric>,
    name: &str,
    value: f64,
    unit: &str,
    description: &str,
) {
    m.insert(
        name.to_string(),
        Metric {
            value,
            unit: unit.into(),
            description: description.into(),
        },
    );
}

/// Rows of counters per monitor interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IntervalTable {
    /// Column names (the counters, then `t_end_s`, `psi_s_star`, `psi_s`, `psi_s_stolen`, `mpl`, `cpu_busy_pct`, then bard §6: `problem_state_pct`, `page_read_rate`, `steal_ratio`, `a_star`).
    pub columns: Vec<String>,
    /// Column units.
    pub units: Vec<String>,
    /// One row per interval; counters are the interval's differences.
    pub rows: Vec<Vec<f64>>,
}

/// One user's totals after the warm-up.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UserRow {
    /// User index.
    pub user: u32,
    /// Class name.
    pub class: String,
    /// Transactions completed [count].
    pub transactions: u64,
    /// Mean response time [s].
    pub response_mean_s: f64,
    /// Problem-state CPU time [s].
    pub cpu_s: f64,
    /// Page exceptions [count].
    pub faults: u64,
    /// Page reads [count].
    pub page_reads: u64,
    /// Virtual I/Os [count].
    pub vios: u64,
    /// Queue-drops [count].
    pub drops: u64,
    /// Projected working set at the end [pages].
    pub projected_ws: f64,
    /// Eq. 4 over this user's replaced pages after the warm-up (bard §5), if any [interruptions].
    pub psi_s: Option<f64>,
}

/// One class's totals after the warm-up.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassRow {
    /// Class name.
    pub class: String,
    /// Users [count].
    pub users: u32,
    /// Transactions completed [count].
    pub transactions: u64,
    /// Trivial transactions completed [count].
    pub trivial: u64,
    /// Throughput [1/s].
    pub throughput: f64,
    /// Mean response time [s].
    pub response_mean_s: f64,
    /// Mean think time [s].
    pub think_mean_s: f64,
    /// Response-time percentiles.
    pub response: Percentiles,
}

/// Response-time percentiles [s].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Percentiles {
    /// Observations [count].
    pub n: u64,
    /// Median [s].
    pub p50: f64,
    /// 90th percentile [s].
    pub p90: f64,
    /// 95th percentile [s].
    pub p95: f64,
    /// 99th percentile [s].
    pub p99: f64,
    /// Largest [s].
    pub max: f64,
}

impl Percentiles {
    /// Percentiles of `xs` (sorted in place; nearest-rank definition).
    pub fn of(xs: &mut [f64]) -> Percentiles {
        if xs.is_empty() {
            return Percentiles::default();
        }
        xs.sort_by(f64::total_cmp);
        let n = xs.len();
        let at = |q: f64| xs[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
        Percentiles {
            n: n as u64,
            p50: at(0.5),
            p90: at(0.9),
            p95: at(0.95),
            p99: at(0.99),
            max: xs[n - 1],
        }
    }
}

/// Everything a run produces. Serializes to the `summary.json` layout of DESIGN.md.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// pagelab-sys version.
    pub version: String,
    /// The seed.
    pub seed: u64,
    /// The resolved spec (a [`crate::SystemSpec`] or a [`crate::unix::UnixSpec`]).
    pub spec: serde_json::Value,
    /// Named metrics after the warm-up.
    pub metrics: BTreeMap<String, Metric>,
    /// Interval time series.
    pub intervals: IntervalTable,
    /// Per-user table.
    pub users: Vec<UserRow>,
    /// Per-class table.
    pub classes: Vec<ClassRow>,
    /// Response-time percentiles: `all`, `trivial`, `nontrivial`.
    pub response: BTreeMap<String, Percentiles>,
    /// Engine figures: events handled, reference runs executed.
    pub engine: BTreeMap<String, u64>,
    /// Paging devices at the end of the run, with slot occupancy by cylinder.
    pub devices: Vec<DeviceRow>,
    /// Guests, terminal-driver sessions and SCHEDULE records, when the run has them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub benchmark: Option<benchmark::BenchmarkReport>,
}

/// One paging actuator at the end of a run. `used_by_cylinder` is the allocation density by
/// cylinder of the tetzlaff paper's Figure 4.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeviceRow {
    /// Actuator name (from the spec, suffixed when `count > 1`).
    pub name: String,
    /// Whether the area is a swap area.
    pub swap_area: bool,
    /// First cylinder of the paging area.
    pub first_cylinder: u32,
    /// Slots per cylinder [slots].
    pub slots_per_cylinder: u32,
    /// Slots in use on each cylinder of the paging area, from the first [slots].
    pub used_by_cylinder: Vec<u32>,
    /// SIOs over the whole run [count].
    pub sios: u64,
    /// Pages read over the whole run [pages].
    pub reads: u64,
    /// Pages written over the whole run [pages].
    pub writes: u64,
    /// Time busy with SIOs over the whole run [s].
    pub busy_s: f64,
    /// Mean queue-to-completion time of a page read [ms].
    pub read_ms: f64,
    /// Mean queue-to-completion time of a page written [ms].
    pub write_ms: f64,
    /// Reconnects that found the channel busy [count].
    pub rps_misses: u64,
}

/// The interval table of cumulative `samples` (each row the difference from the previous
/// sample), on `cpus` processors with `frames` pageable frames.
pub fn interval_table(samples: &[Counters], cpus: u32, frames: u32) -> IntervalTable {
    let mut columns: Vec<String> = Counters::COLUMNS.iter().map(|c| c.0.to_string()).collect();
    let mut units: Vec<String> = Counters::COLUMNS.iter().map(|c| c.1.to_string()).collect();
    for (n, un) in [
        ("t_end_s", "s"),
        ("psi_s_star", "interruptions"),
        ("psi_s", "interruptions"),
        ("psi_s_stolen", "interruptions"),
        ("mpl", "users"),
        ("cpu_busy_pct", "%"),
        ("problem_state_pct", "%"),
        ("page_read_rate", "1/s"),
        ("steal_ratio", "fraction"),
        ("a_star", "pages"),
    ] {
        columns.push(n.into());
        units.push(un.into());
    }
    let mut rows = Vec::new();
    let mut prev = Counters::default();
    for s in samples {
        let di = s.since(&prev);
        let mut row = di.values();
        let t = di.time_s.max(f64::MIN_POSITIVE);
        row.push(s.time_s);
        row.push(psi_s_star(&di).unwrap_or(f64::NAN));
        row.push(psi_s(&di).unwrap_or(f64::NAN));
        row.push(psi_s_stolen(&di).unwrap_or(f64::NAN));
        row.push(di.mpl_user_s / t);
        row.push(100.0 * (di.cpu_problem_s + di.cpu_supervisor_s) / (t * f64::from(cpus)));
        let b = bard_quantities(&di, cpus, frames);
        row.push(b.problem_state_pct);
        row.push(b.page_read_rate);
        row.push(b.steal_ratio);
        row.push(b.a_star.unwrap_or(f64::NAN));
        rows.push(row);
        prev = *s;
    }
    IntervalTable {
        columns,
        units,
        rows,
    }
}

/// Bard's eq. 5 over an interval; `None` without a scan cycle or MPL.
pub fn psi_s_star(d: &Counters) -> Option<f64> {
    if d.scan_cycles <= 0.0 || d.mpl_user_s <= 0.0 {
        return None;
    }
    Some(1.5 * (d.faults + d.vios) * d.time_s / (d.mpl_user_s * d.scan_cycles))
}

/// Bard's eq. 4 over an interval; `None` without a replaced page.
pub fn psi_s(d: &Counters) -> Option<f64> {
    (d.psi_replaced > 0.0).then(|| d.psi_interruptions / d.psi_replaced)
}

/// Eq. 4 over the pages stolen from users in queue; `None` without a steal.
pub fn psi_s_stolen(d: &Counters) -> Option<f64> {
    (d.steals > 0.0).then(|| d.psi_stolen_interruptions / d.steals)
}

/// Bard's page steal ratio over an interval (bard §6, key variable 5): the fraction of pages
/// read that replaced pages of active users; 0 without a page read. At most 1 by construction
/// ([`crate::steal`]).
pub fn steal_ratio(d: &Counters) -> f64 {
    if d.page_reads > 0.0 {
        d.stolen_reads / d.page_reads
    } else {
        0.0
    }
}

/// The variables of bard §6 for one observation period, with eq. 6's A*.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BardQuantities {
    /// 1. Percent problem state time: user-program CPU time per processor-second [%].
    pub problem_state_pct: f64,
    /// 2. Average multiprogramming level ΔM/ΔT [users].
    pub mpl: f64,
    /// 3. Ψs* (eq. 5); `None` without a scan cycle or MPL [interruptions].
    pub psi_s_star: Option<f64>,
    /// 4. Average paging rate [page reads/s].
    pub page_read_rate: f64,
    /// 5. Page steal ratio [fraction].
    pub steal_ratio: f64,
    /// Eq. 6: A* = N/X, the average program's resident set [pages]; `None` at MPL 0.
    pub a_star: Option<f64>,
}

/// Bard's §6 variables of an interval's counter differences `d`, on `cpus` processors with
/// `frames` pageable frames (N of eq. 6).
pub fn bard_quantities(d: &Counters, cpus: u32, frames: u32) -> BardQuantities {
    let t = d.time_s.max(f64::MIN_POSITIVE);
    let mpl = d.mpl_user_s / t;
    BardQuantities {
        problem_state_pct: 100.0 * d.cpu_problem_s / (t * f64::from(cpus.max(1))),
        mpl,
        psi_s_star: psi_s_star(d),
        page_read_rate: d.page_reads / t,
        steal_ratio: steal_ratio(d),
        a_star: (mpl > 0.0).then(|| f64::from(frames) / mpl),
    }
}

impl Report {
    /// The summary as a plain-text table in the papers' terms.
    pub fn summary_table(&self) -> String {
        let mut s = format!("{:<22} {:>12}  {}\n", "metric", "value", "unit");
        for (k, m) in &self.metrics {
            s.push_str(&format!("{:<22} {:>12.4}  {}\n", k, m.value, m.unit));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn psi_of_hand_worked_counters() {
        // 100 s, 600 faults + 300 VIOs, MPL 3 (M = 300), 10 cycles: 1.5 × 900 × 100 / 3000 = 45.
        let d = Counters {
            time_s: 100.0,
            faults: 600.0,
            vios: 300.0,
            mpl_user_s: 300.0,
            scan_cycles: 10.0,
            ..Default::default()
        };
        assert_eq!(psi_s_star(&d), Some(45.0));
    }

    /// One 30-s interval worked by hand: 1 CPU, 130 frames, 12 s problem state, MPL 4 on
    /// average (M = 120), 600 page exceptions of which 540 read a page, 120 virtual I/Os,
    /// 5 scan cycles; SELECT took 700 frames, 450 from active users, of which 405 received
    /// a page read (the others went to zero fills or await a read).
    #[test]
    fn bard_quantities_of_a_hand_worked_interval() {
        let d = Counters {
            time_s: 30.0,
            cpu_problem_s: 12.0,
            mpl_user_s: 120.0,
            faults: 600.0,
            page_reads: 540.0,
            vios: 120.0,
            scan_cycles: 5.0,
            victims: 700.0,
            steals: 450.0,
            stolen_reads: 405.0,
            ..Default::default()
        };
        let q = bard_quantities(&d, 1, 130);
        // 1. 12 / 30 = 40 %.
        assert_eq!(q.problem_state_pct, 40.0);
        // 2. 120 / 30 = 4 users.
        assert_eq!(q.mpl, 4.0);
        // 3. 1.5 × 720 × 30 / (120 × 5) = 54.
        assert_eq!(q.psi_s_star, Some(54.0));
        // 4. 540 / 30 = 18 page reads/s.
        assert_eq!(q.page_read_rate, 18.0);
        // 5. 405 / 540 = 0.75 (steals per page read would say 450 / 540 = 0.83).
        assert_eq!(q.steal_ratio, 0.75);
        // Eq. 6: 130 / 4 = 32.5 pages.
        assert_eq!(q.a_star, Some(32.5));
        // Two CPUs halve the percentage; an idle interval has no A* and no ratio.
        assert_eq!(bard_quantities(&d, 2, 130).problem_state_pct, 20.0);
        let idle = bard_quantities(
            &Counters {
                time_s: 30.0,
                ..Default::default()
            },
            1,
            130,
        );
        assert_eq!(
            (idle.a_star, idle.steal_ratio, idle.psi_s_star),
            (None, 0.0, None)
        );
    }

    #[test]
    fn nearest_rank_percentiles() {
        let mut xs: Vec<f64> = (1..=100).map(f64::from).collect();
        let p = Percentiles::of(&mut xs);
        assert_eq!((p.p50, p.p90, p.p99, p.max), (50.0, 90.0, 99.0, 100.0));
    }
}
