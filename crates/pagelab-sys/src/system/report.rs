//! The monitor's side of the machine: counter snapshots, interval samples (by time, or by
//! core-table scan cycles, Bard §5) and the final report.

use super::*;

impl System<'_> {
    /// Ends a monitor interval: records the counters and gives load control its feedback.
    pub(super) fn take_sample(&mut self) {
        let d = self
            .monitor
            .sample(&mut self.ctx, &self.mem, &self.paging.io);
        let evict = self.sched.on_interval(&d);
        self.deactivate(evict);
        self.admit();
    }

    /// bard §5: an interval also ends after `monitor.cycles` core-table scan cycles.
    pub(super) fn sample_on_cycles(&mut self) {
        if self.monitor.cycles_due(&self.ctx, &self.mem) {
            self.take_sample();
        }
    }

    pub(super) fn snapshot(&self) -> Counters {
        MonitorBooks::snapshot(&self.ctx, &self.mem, &self.paging.io)
    }

    pub(super) fn report(&mut self, last: Counters) -> Report {
        let d = last.since(&self.monitor.warm_sample);
        let cpus = self.monitor.cpus;
        let mut metrics = monitor::summary_metrics(&d, cpus, self.monitor.users);
        self.paging
            .zswap_metrics(&mut metrics, d.time_s, self.monitor.frames);
        pressure_average_metrics(&self.monitor.pressure, &mut metrics);
        if let Some(ra) = &self.paging.readahead {
            ra.metrics(&mut metrics, d.time_s);
        }
        let intervals = monitor::interval_table(&self.monitor.samples, cpus, self.monitor.frames);
        let users = self.user_rows();
        let mut all = Vec::new();
        let mut trivial = Vec::new();
        let mut nontrivial = Vec::new();
        let t = d.time_s.max(f64::MIN_POSITIVE);
        let classes = self
            .classes
            .iter_mut()
            .map(|c| {
                all.extend_from_slice(&c.resp);
                trivial.extend_from_slice(&c.resp_trivial);
                nontrivial.extend_from_slice(&c.resp_nontrivial);
                let n = c.resp.len() as u64;
                let mean = if n > 0 {
                    c.resp.iter().sum::<f64>() / n as f64
                } else {
                    0.0
                };
                ClassRow {
                    class: c.spec.name.clone(),
                    users: c.users,
                    transactions: n,
                    trivial: c.trivial,
                    throughput: n as f64 / t,
                    response_mean_s: mean,
                    think_mean_s: if c.thinks > 0 {
                        c.think_sum / c.thinks as f64
                    } else {
                        0.0
                    },
                    response: Percentiles::of(&mut c.resp),
                }
            })
            .collect();
        let mut response = BTreeMap::new();
        response.insert("all".to_string(), Percentiles::of(&mut all));
        response.insert("trivial".to_string(), Percentiles::of(&mut trivial));
        response.insert("nontrivial".to_string(), Percentiles::of(&mut nontrivial));
        let devices = self.device_rows();
        let mut engine = BTreeMap::new();
        engine.insert("events".to_string(), self.n_events);
        engine.insert("reference_runs".to_string(), self.dispatch.n_runs);
        for (k, v) in self.reclaim.supply.figures() {
            engine.insert(k.to_string(), v);
        }
        Report {
            version: env!("CARGO_PKG_VERSION").to_string(),
            seed: self.seed,
            spec: std::mem::take(&mut self.monitor.resolved),
            metrics,
            intervals,
            users,
            classes,
            response,
            engine,
            devices,
            benchmark: self.guest.report(&self.ctx, &self.users),
        }
    }

    /// Each user's totals since the warm-up.
    fn user_rows(&self) -> Vec<UserRow> {
        self.users
            .iter()
            .enumerate()
            .map(|(i, u)| UserRow {
                user: i as u32,
                class: self.classes[u.class as usize].spec.name.clone(),
                transactions: u.t_txn,
                response_mean_s: if u.t_txn > 0 {
                    u.t_resp / u.t_txn as f64
                } else {
                    0.0
                },
                cpu_s: u.t_cpu_ns as f64 / 1e9,
                faults: u.t_faults,
                page_reads: u.t_reads,
                vios: u.t_vios,
                drops: u.t_drops,
                projected_ws: u.proj.p,
                psi_s: self.reclaim.survival.owner_psi(i as u32),
            })
            .collect()
    }

    /// Each paging device's books.
    fn device_rows(&self) -> Vec<monitor::DeviceRow> {
        self.monitor
            .devices
            .iter()
            .enumerate()
            .map(|(d, (name, swap_area))| {
                let map = self.paging.io.slots(d);
                let c = self.paging.io.counters[d];
                monitor::DeviceRow {
                    name: name.clone(),
                    swap_area: *swap_area,
                    first_cylinder: map.first_cylinder(),
                    slots_per_cylinder: map.slots_per_cyl(),
                    used_by_cylinder: map.used_by_cylinder(),
                    sios: c.n_sios,
                    reads: c.n_reads,
                    writes: c.n_writes,
                    busy_s: c.busy_ns as f64 * 1e-9,
                    read_ms: c.read_response_ns as f64 * 1e-6 / c.n_reads.max(1) as f64,
                    write_ms: (c.page_response_ns - c.read_response_ns) as f64 * 1e-6
                        / c.n_writes.max(1) as f64,
                    rps_misses: c.n_rps_misses,
                }
            })
            .collect()
    }
}

/// The memory PSI averages at the end of the run and their largest values after the warm-up as
/// metrics: `pressure_{some,full}_avg{10,60,300}` and the same with `_max` (docs/system.md).
fn pressure_average_metrics(
    p: &crate::pressure::Pressure,
    m: &mut BTreeMap<String, monitor::Metric>,
) {
    use crate::pressure::Stall;
    for (s, name, what) in [
        (Stall::Some, "some", "at least one user stalled on memory"),
        (
            Stall::Full,
            "full",
            "no runnable user outside a memory stall",
        ),
    ] {
        let now = p.averages(s);
        let max = p.max_averages(s);
        for (k, window) in [10, 60, 300].into_iter().enumerate() {
            monitor::put_metric(
                m,
                &format!("pressure_{name}_avg{window}"),
                now[k],
                "%",
                &format!(
                    "Linux PSI memory \"{name}\" avg{window} at the end of the run: the \
                     {window}-s decaying average of the share of time with {what} \
                     (kernel/sched/psi.c calc_avgs, two decimals as memory.pressure shows)."
                ),
            );
            monitor::put_metric(
                m,
                &format!("pressure_{name}_avg{window}_max"),
                max[k],
                "%",
                &format!(
                    "Largest Linux PSI memory \"{name}\" avg{window} after the warm-up \
                     (its value at the warm-up's end or after any later 2.004-s update)."
                ),
            );
        }
    }
}
