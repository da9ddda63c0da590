//! The two-level benchmark's sections of the report (Young 1979, VM/370 with an OS/MFT
//! guest): the guests' jobs, streams and tasks, the terminal-driver sessions and SCHEDULE
//! records. The guest machinery ([`crate::guest`]) fills them in.

use super::Metric;
use serde::Serialize;
use std::collections::BTreeMap;

/// A finished job.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobRow {
    /// Stream name.
    pub stream: String,
    /// Job name.
    pub job: String,
    /// Partition that ran it.
    pub partition: String,
    /// Arrival [s].
    pub arrived_s: f64,
    /// Start [s].
    pub started_s: f64,
    /// End [s].
    pub ended_s: f64,
}

/// A job stream's outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StreamRow {
    /// Stream name.
    pub name: String,
    /// Jobs in the stream [count].
    pub jobs: u32,
    /// Jobs finished [count].
    pub done: u32,
    /// When its last job ended, if all did: the resident time of a stream loaded at 0 [s].
    pub completed_s: Option<f64>,
    /// Mean arrival-to-end time of its finished jobs [s].
    pub mean_turnaround_s: f64,
}

/// A partition's totals.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskRow {
    /// Partition name.
    pub name: String,
    /// CPU time [s].
    pub cpu_s: f64,
    /// Jobs finished [count].
    pub jobs: u32,
    /// Pseudo page faults [count].
    pub pseudo_faults: u64,
    /// Time in pseudo page wait [s].
    pub page_wait_s: f64,
}

/// A guest's section of the report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GuestReport {
    /// Guest name.
    pub name: String,
    /// Accelerator on.
    pub accelerator: bool,
    /// Reserved frames [frames].
    pub reserved_frames: u32,
    /// PAGEMON on.
    pub pagemon: bool,
    /// Guest metrics.
    pub metrics: BTreeMap<String, Metric>,
    /// Streams.
    pub streams: Vec<StreamRow>,
    /// Partitions.
    pub tasks: Vec<TaskRow>,
    /// Finished jobs.
    pub jobs: Vec<JobRow>,
    /// PAGEMON decisions: (time [s], measure, allowed tasks).
    pub pagemon_trace: Vec<(f64, f64, u32)>,
}

/// A terminal-driver session's outcome (young ch. I §4).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SessionRow {
    /// User index.
    pub user: u32,
    /// Class name.
    pub class: String,
    /// Release [s].
    pub released_s: f64,
    /// Sign-off [s], if reached.
    pub signed_off_s: Option<f64>,
    /// Response index: release to sign-off [s].
    pub response_index_s: Option<f64>,
}

/// A SCHEDULE record: one queue-drop (young ch. II §4).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScheduleRow {
    /// Time [s].
    pub t_s: f64,
    /// User index.
    pub user: u32,
    /// `Q1` or `Q2`.
    pub queue: crate::queue::Queue,
    /// CPU in the stay [s].
    pub cpu_s: f64,
    /// Resident pages at the drop [pages].
    pub resident: u32,
    /// Pages read in the stay [pages].
    pub page_reads: u64,
    /// New projected working set [pages].
    pub projected_ws: f64,
}

/// The two-level benchmark's sections of the report: guests, sessions, SCHEDULE records.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BenchmarkReport {
    /// Guest operating systems.
    pub guests: Vec<GuestReport>,
    /// Terminal-driver sessions.
    pub sessions: Vec<SessionRow>,
    /// SCHEDULE records.
    pub schedule: Vec<ScheduleRow>,
    /// When the run ended [s].
    pub ended_s: f64,
}
