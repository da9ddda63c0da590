//! Counters and the report: Chanson's measures (§2.B-C, §3) from the machine's counters.

use super::machine::*;
use super::stats::{ratio, Stats};
use crate::monitor::{put_metric, IntervalTable, Percentiles, Report, UserRow};
use std::collections::BTreeMap;

impl Machine {
    /// Chanson's measures and the machine's counters since the warm-up.
    fn metrics(&self) -> BTreeMap<String, crate::monitor::Metric> {
        let d = self.st.since(&self.warm_st);
        let w = &self.spec.workload;
        let t = d.time_s.max(f64::MIN_POSITIVE);
        let swaps = d.swap_ins + d.swap_outs;
        let mut m = BTreeMap::new();
        let rows: Vec<(&str, f64, &str, &str)> = vec![
            ("reaction_time_ms", ratio(d.reaction_ms, d.reaction_n), "ms", "Mean priority-based reaction time: wake-up to selection, sleeps at TTIPRI or lower (Chanson §2.B)."),
            ("reactions", d.reaction_n, "count", "Reaction times observed."),
            ("reaction_swapped_pct", 100.0 * ratio(d.reaction_out_n, d.reaction_n), "%", "Reactions of processes woken while swapped out (the wait includes a swap-in)."),
            ("reaction_swapped_ms", ratio(d.reaction_out_ms, d.reaction_out_n), "ms", "Mean reaction time of processes woken while swapped out."),
            ("reaction_min_ms", self.reactions.iter().copied().fold(f64::INFINITY, f64::min), "ms", "Least reaction time observed after the warm-up."),
            ("swap_rate", swaps / t, "1/s", "Swap operations (in and out) per second."),
            ("swap_ins", d.swap_ins, "count", "Images swapped in."),
            ("swap_outs", d.swap_outs, "count", "Images swapped out."),
            ("swap_out_io_pct", 100.0 * ratio(d.swap_outs_io, d.swap_outs), "%", "Swap-outs that took a process asleep in a block access of its own (Chanson §3.1)."),
            ("swap_out_easy_pct", 100.0 * ratio(d.swap_outs_easy, d.swap_outs), "%", "Swap-outs chosen by sched's easy-core rule: asleep at low priority or stopped (Chanson Appendix)."),
            ("swap_interval_s", if swaps > 0.0 { t / swaps } else { f64::NAN }, "s", "Real time between successive swaps (Chanson Figure 1)."),
            ("swap_wait_ms", ratio(d.swap_ops_ms, swaps), "ms", "Mean swap wait: queue plus transfer per swap operation (Chanson §2.C)."),
            ("swap_kb_per_s", d.swap_clicks * f64::from(self.spec.memory.click_bytes) / 1024.0 / t, "KB/s", "Swap traffic."),
            ("disk_queue_length", d.disk_len_s / t, "requests", "Time-average requests at the disk controller (queued and in service)."),
            ("disk_wait_ms", ratio(d.file_wait_ms, d.file_ios), "ms", "Mean file-system I/O wait: queue plus service."),
            ("disk_queue_wait_ms", ratio(d.disk_queue_wait_ms, d.disk_reqs), "ms", "Mean wait in the disk queue before service, every request."),
            ("disk_io_rate", d.file_ios / t, "1/s", "File-system block transfers at the disk controller per second (buffer-cache misses, delayed and synchronous writes)."),
            ("fs_access_rate", d.fs_accesses / t, "1/s", "File-system block accesses by processes through the buffer cache per second (the I/O operations of Chanson's PC)."),
            ("fs_accesses_per_swap", if swaps > 0.0 { d.fs_accesses / swaps } else { f64::NAN }, "ratio", "File-system block accesses per swap operation (Chanson §2.C: the swap rate \"at least an order of magnitude less than the disk I/O rate\")."),
            ("cache_hit_pct", 100.0 * ratio(d.cache_hits, d.fs_accesses), "%", "Block accesses found in the buffer cache (getblk hits)."),
            ("read_ahead_rate", d.read_aheads / t, "1/s", "Read-aheads started per second (breada's asynchronous reads; a sequential file walk only)."),
            ("fs_write_rate", d.fs_writes / t, "1/s", "File-system block writes started per second (bdwrite pushed out, bflush, bwrite)."),
            ("syncs", d.syncs, "count", "sync calls by update."),
            ("interrupt_pct", 100.0 * d.intr_s / t, "%", "CPU in clock, disk and terminal interrupt handlers."),
            ("tty_char_rate", d.tty_chars / t, "1/s", "Terminal characters sent and received per second."),
            ("disk_request_rate", d.disk_reqs / t, "1/s", "Requests served by the disk controller, file-system blocks and swap transfers (Chanson's disk waits)."),
            ("disk_busy_pct", 100.0 * d.disk_busy_s / t, "%", "Disk controller busy."),
            ("cpu_interval_ms", ratio(d.cpu_busy_s * 1e3, d.stretches), "ms", "Mean CPU interval: time a process holds the CPU between context switches."),
            ("cpu_wait_ms", ratio(d.cpu_wait_ms, d.cpu_waits), "ms", "Mean wait of a ready process in core for the CPU."),
            ("cpu_busy_pct", 100.0 * d.cpu_busy_s / t, "%", "CPU busy."),
            ("in_core", d.in_core_s / t, "processes", "Mean processes in core."),
            ("processes_mean", d.procs_s / t, "processes", "Mean processes in the table (logins add them)."),
            ("processes_end", self.procs.len() as f64, "processes", "Processes at the end of the run."),
            ("logins_admitted", d.logins_admitted, "count", "Login attempts admitted (Chanson §4.3)."),
            ("logins_refused", d.logins_refused, "count", "Login attempts refused: reaction time over the threshold."),
            ("logins_full", d.logins_full, "count", "Login attempts refused: process table or swap space full."),
            ("loop_rate", d.loops / t, "1/s", "Prototype loops completed per second."),
            ("pctrmm", self.spec.pctrmm(), "%", "PCTRMM = 100 (MM − PN·PS)/MM (Chanson §3)."),
            ("pn", f64::from(w.processes), "processes", "PN."),
            ("ps", f64::from(w.size_clicks), "clicks", "PS, mean process size."),
            ("pc_ms", w.cpu_ms.get(), "ms", "PC, mean CPU time between disk I/Os."),
            ("mm", f64::from(self.spec.memory.core_clicks), "clicks", "MM, swappable main memory."),
        ];
        for (name, value, unit, desc) in rows {
            put_metric(&mut m, name, value, unit, desc);
        }
        m
    }

    /// Per monitor interval: reactions, swaps, disk I/O, CPU, disk queue, processes.
    fn intervals(&self) -> IntervalTable {
        let columns: Vec<String> = [
            "t_end_s",
            "reactions",
            "reaction_time_ms",
            "swap_ins",
            "swap_outs",
            "disk_ios",
            "cpu_busy_pct",
            "disk_queue_length",
            "processes",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let units = [
            "s",
            "count",
            "ms",
            "count",
            "count",
            "count",
            "%",
            "requests",
            "processes",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut rows = Vec::new();
        let mut prev = Stats::default();
        for s in &self.samples {
            let di = s.since(&prev);
            let ti = di.time_s.max(f64::MIN_POSITIVE);
            rows.push(vec![
                s.time_s,
                di.reaction_n,
                ratio(di.reaction_ms, di.reaction_n),
                di.swap_ins,
                di.swap_outs,
                di.file_ios,
                100.0 * di.cpu_busy_s / ti,
                di.disk_len_s / ti,
                di.procs_s / ti,
            ]);
            prev = *s;
        }
        IntervalTable {
            columns,
            units,
            rows,
        }
    }

    pub(super) fn report(&mut self) -> Report {
        let users = self
            .procs
            .iter()
            .enumerate()
            .map(|(i, p)| UserRow {
                user: i as u32,
                class: "prototype".into(),
                transactions: p.loops,
                response_mean_s: ratio(p.reaction_ms, p.reactions as f64) / 1e3,
                cpu_s: p.cpu_ns as f64 / 1e9,
                faults: 0,
                page_reads: 0,
                vios: p.disk_ios,
                drops: p.swap_outs,
                projected_ws: f64::from(p.size),
                psi_s: None,
            })
            .collect();
        let mut response = BTreeMap::new();
        let mut rs: Vec<f64> = self.reactions.iter().map(|r| r / 1e3).collect();
        response.insert("reaction".to_string(), Percentiles::of(&mut rs));
        let mut engine = BTreeMap::new();
        engine.insert("events".to_string(), self.n_events);
        Report {
            version: env!("CARGO_PKG_VERSION").to_string(),
            seed: self.seed,
            spec: serde_json::to_value(&self.spec).unwrap_or(serde_json::Value::Null),
            metrics: self.metrics(),
            intervals: self.intervals(),
            users,
            classes: Vec::new(),
            response,
            engine,
            // Swap space is the swap map, not paging devices with slots.
            devices: Vec::new(),
            benchmark: None,
        }
    }
}
