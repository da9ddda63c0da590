//! The spec of a guest operating system (`[[workload.guest]]`) and of a terminal-driver
//! session (`workload.class.session`).

use super::LocalitySpec;
use serde::{Deserialize, Serialize};

fn yes() -> bool {
    true
}

/// An OS/MFT guest in one virtual machine (young ch. I §2, ch. II §3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GuestSpec {
    /// Name in the reports.
    pub name: String,
    /// The Accelerator: a page fault taken enabled becomes a pseudo fault (young ch. II §3).
    #[serde(default)]
    pub accelerator: bool,
    /// Real frames reserved to this virtual machine (VM/370 `SET RESERVE`, young ch. II §7)
    /// [frames].
    #[serde(default)]
    pub reserved_frames: u32,
    /// The OS nucleus: fixed supervisor pages, referenced with interruptions disabled.
    pub nucleus: NucleusSpec,
    /// CP's cost of one guest task switch (privileged operations it simulates) [µs].
    #[serde(default)]
    pub switch_us: f64,
    /// Stop the run when every finite job stream is done and every session signed off.
    #[serde(default = "yes")]
    pub end_when_done: bool,
    /// Window over which the tasks that ran are counted (effective multiprogramming) [s].
    #[serde(default = "one_s")]
    pub mpl_window_s: f64,
    /// Partitions in priority order, highest first.
    #[serde(rename = "partition")]
    pub partitions: Vec<PartitionSpec>,
    /// Job streams feeding the partitions' queues.
    #[serde(rename = "stream", default)]
    pub streams: Vec<StreamSpec>,
    /// PAGEMON: the host's bound on the guest's active tasks.
    #[serde(default)]
    pub pagemon: Option<PagemonSpec>,
}

fn one_s() -> f64 {
    1.0
}

/// The nucleus of the guest OS.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NucleusSpec {
    /// Pages of the nucleus, the first of the virtual machine's address space [pages].
    pub pages: u32,
    /// Fraction of runs that are supervisor references to the nucleus [fraction].
    pub fraction: f64,
    /// Mean references per nucleus run [references].
    #[serde(default = "hundred")]
    pub refs_per_run: f64,
    /// Fraction of nucleus runs that write (control blocks) [fraction].
    #[serde(default)]
    pub write_fraction: f64,
}

fn hundred() -> f64 {
    100.0
}

/// A fixed partition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartitionSpec {
    /// Name in the reports.
    pub name: String,
    /// Size: virtual pages of the partition [pages].
    pub pages: u32,
    /// The job queue it serves (a stream's `queue`), or none for a system task.
    #[serde(default)]
    pub queue: Option<String>,
    /// A resident system task (the spooler) that cycles forever instead of serving jobs.
    #[serde(default)]
    pub spooler: Option<SpoolerSpec>,
}

/// HASP-like spooling: a high-priority resident task cycling CPU, one I/O, and a timer wait.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpoolerSpec {
    /// CPU per cycle [ms].
    pub cpu_ms: f64,
    /// Wait for work after each cycle's I/O [ms].
    pub wait_ms: f64,
    /// What it references.
    pub program: LocalitySpec,
}

/// A job stream: copies of a list of jobs, arriving at once or one every `every_s`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamSpec {
    /// Name in the reports.
    pub name: String,
    /// The queue (partitions naming it serve it).
    pub queue: String,
    /// Copies of the job list [count].
    #[serde(default = "one_u")]
    pub copies: u32,
    /// Arrival of the first job [s].
    #[serde(default)]
    pub first_s: f64,
    /// Time between arrivals; 0 loads every job at `first_s` [s].
    #[serde(default)]
    pub every_s: f64,
    /// The jobs, in order.
    #[serde(rename = "job")]
    pub jobs: Vec<JobSpec>,
}

fn one_u() -> u32 {
    1
}

/// A job: a sequence of steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobSpec {
    /// Name in the reports.
    pub name: String,
    /// The job steps, in order.
    pub steps: Vec<StepSpec>,
}

/// A job step: a program with a CPU and an I/O demand.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepSpec {
    /// CPU demand [s].
    pub cpu_s: f64,
    /// I/O operations, spread evenly over the CPU demand [count].
    #[serde(default)]
    pub ios: u32,
    /// What it references (a locality program inside the partition).
    pub program: super::ProgramSpec,
}

/// What the host measures for PAGEMON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PagemonMeasure {
    /// Page reads per second over the last period.
    PagingRate,
    /// Steals per page read over the last period.
    StealRatio,
    /// SUMWSS plus the eligible users' projections, over APAGES.
    Storage,
    /// Bard's system PSI Ψs* (eq. 5) over the period. Few interruptions survived means
    /// pressure, so the roles of the thresholds turn: below `low` the allowed count falls,
    /// above `high` it rises; a period without a full scan cycle counts as room.
    SystemPsi,
}

/// PAGEMON parameters (our reconstruction: the thesis's Table 4 is lost; fidelity notes §5.3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PagemonSpec {
    /// On or off.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// The load measure.
    pub measure: PagemonMeasure,
    /// Sampling period [s].
    pub period_s: f64,
    /// Above this the allowed task count falls by one (rises, for `system-psi`) [measure's unit].
    pub high: f64,
    /// Below this it rises by one (falls, for `system-psi`) [measure's unit].
    pub low: f64,
    /// The allowed count never falls below this [tasks].
    #[serde(default = "one_u")]
    pub min_tasks: u32,
}

/// A terminal-driver session (TPSIM, young ch. I §4): users released one every `every_s`, each
/// running the class's script once in order, then signing off.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionSpec {
    /// Release of the first user [s].
    #[serde(default)]
    pub first_s: f64,
    /// Time between releases [s].
    pub every_s: f64,
}

impl GuestSpec {
    /// Cross-field checks; `p` is the key path of this guest.
    pub fn validate(&self, p: &str) -> Result<(), (String, String)> {
        let bad = |k: String, w: &str| Err((k, w.to_string()));
        let frac = |x: f64| x.is_finite() && (0.0..=1.0).contains(&x);
        if !frac(self.nucleus.fraction) {
            return bad(
                format!("{p}.nucleus.fraction"),
                "expected a fraction in [0, 1]",
            );
        }
        if !frac(self.nucleus.write_fraction) {
            return bad(
                format!("{p}.nucleus.write_fraction"),
                "expected a fraction in [0, 1]",
            );
        }
        if self.nucleus.pages == 0 {
            return bad(format!("{p}.nucleus.pages"), "expected at least one page");
        }
        if !(self.nucleus.refs_per_run.is_finite() && self.nucleus.refs_per_run >= 1.0) {
            return bad(format!("{p}.nucleus.refs_per_run"), "expected a mean ≥ 1");
        }
        if !(self.switch_us.is_finite() && self.switch_us >= 0.0) {
            return bad(format!("{p}.switch_us"), "expected a time ≥ 0 [µs]");
        }
        if !(self.mpl_window_s.is_finite() && self.mpl_window_s > 0.0) {
            return bad(format!("{p}.mpl_window_s"), "expected a positive time [s]");
        }
        if self.partitions.is_empty() || self.partitions.len() > 64 {
            return bad(format!("{p}.partition"), "expected 1 to 64 partitions");
        }
        self.check_partitions(p)?;
        self.check_streams(p)?;
        if let Some(m) = &self.pagemon {
            let q = format!("{p}.pagemon");
            if !(m.period_s.is_finite() && m.period_s > 0.0) {
                return bad(format!("{q}.period_s"), "expected a positive period [s]");
            }
            if !(m.low.is_finite() && m.high.is_finite() && m.low <= m.high) {
                return bad(
                    format!("{q}.low"),
                    "expected finite thresholds with low ≤ high",
                );
            }
        }
        Ok(())
    }

    /// The partitions: a queue or a spooler each (`p` the guest's key path).
    fn check_partitions(&self, p: &str) -> Result<(), (String, String)> {
        let bad = |k: String, w: &str| Err((k, w.to_string()));
        for (i, t) in self.partitions.iter().enumerate() {
            let q = format!("{p}.partition.{i}");
            if t.pages == 0 {
                return bad(format!("{q}.pages"), "expected at least one page");
            }
            match (&t.queue, &t.spooler) {
                (Some(_), None) | (None, Some(_)) => {}
                _ => return bad(q, "expected exactly one of `queue` and `spooler`"),
            }
            if let Some(s) = &t.spooler {
                if !(s.cpu_ms.is_finite() && s.cpu_ms > 0.0) {
                    return bad(format!("{q}.spooler.cpu_ms"), "expected a positive time");
                }
                if !(s.wait_ms.is_finite() && s.wait_ms >= 0.0) {
                    return bad(format!("{q}.spooler.wait_ms"), "expected a time ≥ 0");
                }
                check_locality(&s.program, &format!("{q}.spooler.program"))?;
                if s.program.address_pages > t.pages {
                    return bad(
                        format!("{q}.spooler.program.address_pages"),
                        "expected no more than the partition's pages",
                    );
                }
            }
        }
        Ok(())
    }

    /// The job streams: a served queue, times, and jobs whose steps fit their partitions.
    fn check_streams(&self, p: &str) -> Result<(), (String, String)> {
        let bad = |k: String, w: &str| Err((k, w.to_string()));
        for (i, s) in self.streams.iter().enumerate() {
            let q = format!("{p}.stream.{i}");
            if !self
                .partitions
                .iter()
                .any(|t| t.queue.as_ref() == Some(&s.queue))
            {
                return bad(
                    format!("{q}.queue"),
                    "expected a queue some partition serves",
                );
            }
            if !(s.first_s.is_finite() && s.first_s >= 0.0) {
                return bad(format!("{q}.first_s"), "expected a time ≥ 0 [s]");
            }
            if !(s.every_s.is_finite() && s.every_s >= 0.0) {
                return bad(format!("{q}.every_s"), "expected a time ≥ 0 [s]");
            }
            if s.jobs.is_empty() {
                return bad(format!("{q}.job"), "expected at least one job");
            }
            let smallest = self
                .partitions
                .iter()
                .filter(|t| t.queue.as_ref() == Some(&s.queue))
                .map(|t| t.pages)
                .min()
                .unwrap_or(0);
            for (j, job) in s.jobs.iter().enumerate() {
                if job.steps.is_empty() {
                    return bad(format!("{q}.job.{j}.steps"), "expected at least one step");
                }
                for (k, st) in job.steps.iter().enumerate() {
                    let r = format!("{q}.job.{j}.steps.{k}");
                    if !(st.cpu_s.is_finite() && st.cpu_s > 0.0) {
                        return bad(format!("{r}.cpu_s"), "expected a positive CPU demand [s]");
                    }
                    match &st.program {
                        super::ProgramSpec::Cms(l) | super::ProgramSpec::Drifting(l) => {
                            check_locality(l, &format!("{r}.program"))?;
                            if l.address_pages > smallest {
                                return bad(
                                    format!("{r}.program.address_pages"),
                                    "expected no more than the serving partitions' pages",
                                );
                            }
                            if l.shared_fraction > 0.0 {
                                return bad(
                                    format!("{r}.program.shared_fraction"),
                                    "expected 0: a guest task has no CMS shared segment",
                                );
                            }
                        }
                        super::ProgramSpec::Trace(_) => {
                            return bad(
                                format!("{r}.program.kind"),
                                "expected `cms` or `drifting` (a guest step is a locality program)",
                            )
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// The locality model's own bounds (a set larger than its address space never fills).
pub(crate) fn check_locality(l: &LocalitySpec, q: &str) -> Result<(), (String, String)> {
    let bad = |k: &str, w: &str| Err((format!("{q}.{k}"), w.to_string()));
    if l.set_pages == 0 || l.set_pages > l.address_pages {
        return bad("set_pages", "expected 1 ≤ set_pages ≤ address_pages");
    }
    if l.locality_pages == 0 || l.locality_pages > l.set_pages {
        return bad("locality_pages", "expected 1 ≤ locality_pages ≤ set_pages");
    }
    if l.runs_per_phase == 0 {
        return bad("runs_per_phase", "expected at least one run");
    }
    if !(l.refs_per_run.is_finite() && l.refs_per_run >= 1.0) {
        return bad("refs_per_run", "expected a mean ≥ 1 [references]");
    }
    for (k, v) in [
        ("overlap", l.overlap),
        ("drift", l.drift),
        ("repeat", l.repeat),
        ("write_fraction", l.write_fraction),
    ] {
        if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
            return bad(k, "expected a fraction in [0, 1]");
        }
    }
    Ok(())
}
