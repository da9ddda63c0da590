//! A guest's section of the report: its metrics, job streams and partitions (young ch. I §4,
//! ch. II §4), and the two-level benchmark's sections.

use super::{GuestOs, GuestReport, JobRow, StreamRow, TaskRow};
use crate::monitor::{put_metric, Metric};
use std::collections::BTreeMap;

impl GuestOs {
    /// The guest's section of the report.
    pub fn report(&self) -> GuestReport {
        GuestReport {
            name: self.spec.name.clone(),
            accelerator: self.spec.accelerator,
            reserved_frames: self.spec.reserved_frames,
            pagemon: self.spec.pagemon.as_ref().is_some_and(|p| p.enabled),
            metrics: self.metrics(),
            streams: self.stream_rows(),
            tasks: self.task_rows(),
            jobs: self.jobs.clone(),
            pagemon_trace: self.pagemon_trace.clone(),
        }
    }

    fn metrics(&self) -> BTreeMap<String, Metric> {
        let t = self.time_s.max(f64::MIN_POSITIVE);
        let effective_mpl = if self.win_n > 0 {
            self.win_sum / self.win_n as f64
        } else {
            0.0
        };
        let rows: [(&str, f64, &str, &str); 5] = [
            (
                "effective_mpl",
                effective_mpl,
                "tasks",
                "Mean number of guest tasks that ran in each window of mpl_window_s.",
            ),
            (
                "active_tasks",
                self.active_s / t,
                "tasks",
                "Time-average busy partitions not deactivated.",
            ),
            (
                "task_page_wait_s",
                self.tasks.iter().map(|x| x.page_wait_s).sum(),
                "task-s",
                "Task time in pseudo page wait (Accelerator).",
            ),
            (
                "vm_page_wait_pct",
                100.0 * self.vm_page_wait_s / t,
                "%",
                "Share of time the whole virtual machine was blocked in host page wait.",
            ),
            (
                "vm_wait_pct",
                100.0 * self.vm_wait_s / t,
                "%",
                "Share of time the virtual machine was in an enabled wait (all tasks waiting).",
            ),
        ];
        let mut m = BTreeMap::new();
        for (name, value, unit, description) in rows.into_iter().chain(self.count_rows()) {
            put_metric(&mut m, name, value, unit, description);
        }
        m
    }

    /// The interrupts, readied tasks, switches and PAGEMON's decisions counted.
    fn count_rows(&self) -> [(&'static str, f64, &'static str, &'static str); 6] {
        [
            (
                "pseudo_faults",
                self.n_pseudo as f64,
                "interrupts",
                "First external interrupts.",
            ),
            (
                "completions",
                self.n_completions as f64,
                "interrupts",
                "Second external interrupts.",
            ),
            (
                "tasks_readied",
                self.n_readied as f64,
                "tasks",
                "Tasks made ready by completion interrupts.",
            ),
            (
                "task_switches",
                self.n_switches as f64,
                "switches",
                "Guest dispatches of a different task.",
            ),
            (
                "deactivations",
                self.n_deactivations as f64,
                "tasks",
                "PAGEMON deactivations.",
            ),
            (
                "reactivations",
                self.n_reactivations as f64,
                "tasks",
                "PAGEMON reactivations.",
            ),
        ]
    }

    fn stream_rows(&self) -> Vec<StreamRow> {
        self.spec
            .streams
            .iter()
            .map(|st| {
                let rows: Vec<&JobRow> = self.jobs.iter().filter(|j| j.stream == st.name).collect();
                let total = st.copies * st.jobs.len() as u32;
                let done = rows.len() as u32;
                StreamRow {
                    name: st.name.clone(),
                    jobs: total,
                    done,
                    completed_s: (done == total)
                        .then(|| rows.iter().map(|j| j.ended_s).fold(0.0, f64::max)),
                    mean_turnaround_s: if done > 0 {
                        rows.iter().map(|j| j.ended_s - j.arrived_s).sum::<f64>() / f64::from(done)
                    } else {
                        0.0
                    },
                }
            })
            .collect()
    }

    fn task_rows(&self) -> Vec<TaskRow> {
        self.tasks
            .iter()
            .map(|t| TaskRow {
                name: t.name.clone(),
                cpu_s: t.cpu_ns as f64 / 1e9,
                jobs: t.jobs_done,
                pseudo_faults: t.pseudo_faults,
                page_wait_s: t.page_wait_s,
            })
            .collect()
    }
}
