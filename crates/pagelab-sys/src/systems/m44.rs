//! The M44/44X of Brawn & Gustavson 1968 wired from an [`M44Spec`]: the jobs' reference
//! strings, the global replacement policy, the load leveler and the disks, and the machine
//! that runs the jobs over them ([`crate::m44`]).
//!
//! ```text
//!  workload.program, copies ─► 44X reference strings (pagelab_trace::gen), an input a copy ─┐
//!  replacement.policy ─► M44Supply (global FIFO, BIFO, AR on the frame-supply seam) ────────┤
//!  leveler ─► Leveler (paging rate and CPU use each period), when enabled ──────────────────┤
//!  disk ─► IBM 1301 × count (the device catalogue's, the paper's page time), FIFO queues ───┤
//!                                                                                           ▼
//!  Machine::assemble: the frames, the jobs ready in order, BIFO's rotation, the first sample
//! ```
//!
//! The CPU's reference time and slice are read from the same spec by the machine as it runs
//! (`m44/machine.rs`).

use std::sync::Arc;

use pagelab_trace::gen::{generate, M44Program};

use crate::device::{Disk, FifoBacklog};
use crate::error::SysError;
use crate::m44::leveler::Leveler;
use crate::m44::machine::{copy_seed, JobStrings, Machine, Parts};
use crate::m44::supply::M44Supply;
use crate::m44::M44Spec;

impl Machine {
    /// Generates the program's reference string and sets up the jobs.
    pub fn build(spec: &M44Spec, seed: u64) -> Result<Self, SysError> {
        let (strings, total_refs) = job_strings(spec, seed)?;
        let parts = Parts {
            strings,
            total_refs,
            supply: M44Supply::build(&spec.replacement, spec.memory.frames()),
            leveler: spec
                .leveler
                .enabled
                .then(|| Leveler::new(&spec.leveler, spec.disk.count, spec.disk.pull_s)),
            disks: vec![FifoBacklog::new(); spec.disk.count as usize],
            // The disks are the device catalogue's IBM 1301, timed by the paper's measured
            // page time (device/geometry.rs, `Disk::Ibm1301`).
            pull_ns: Disk::Ibm1301
                .timing(0, spec.disk.pull_s.get())
                .measured_page_ns()
                .expect("the 1301 is a measured device"),
            push_ns: spec.disk.push_s.ns(),
        };
        Ok(Machine::assemble(spec, seed, parts))
    }
}

/// The reference string of each job of `spec` (copies reading the same input share one), and
/// the references of all of them.
fn job_strings(spec: &M44Spec, seed: u64) -> Result<(JobStrings, u64), SysError> {
    let program = M44Program::from_name(&spec.workload.program)?;
    let n = spec.workload.copies as usize;
    let mut strings: JobStrings = Vec::with_capacity(n);
    let mut total_refs = 0;
    for j in 0..n {
        let s = if spec.workload.distinct_inputs {
            copy_seed(seed, j as u64)
        } else {
            seed
        };
        if s == seed && !strings.is_empty() {
            let first = strings[0].clone();
            total_refs += first.0.iter().map(|r| u64::from(r.count)).sum::<u64>();
            strings.push(first);
            continue;
        }
        let g = generate(program, &spec.workload.params, s)?;
        total_refs += g.n_references;
        let pages = g.n_pages() as usize;
        strings.push((Arc::new(g.runs), pages));
    }
    Ok((strings, total_refs))
}
