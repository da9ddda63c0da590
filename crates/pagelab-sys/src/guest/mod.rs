//! A multiprogrammed guest operating system inside one virtual machine: OS/MFT with fixed
//! partitions, its own priority dispatcher and a HASP-like spooler (young ch. I §2), run by the
//! host as one user whose program is the guest.
//!
//! ```text
//!  host: VM user ─dispatch─► guest dispatcher: highest-priority ready, active task
//!        burst: the task's runs (+ nucleus runs) ─► segment end ─► task I/O (VIO server) / step end
//!        fault on a task page, Accelerator on ──► 1st external interrupt: task page-waits, VM runs on
//!                                     page in ──► 2nd external interrupt: EVERY page-waiting task ready
//!        fault otherwise (Accelerator off, or a disabled nucleus fault) ─► the whole VM page-waits
//!  PAGEMON: host load measure ─► allowed tasks ─► lowest-priority busy partitions deactivated
//! ```
//!
//! The virtual machine's address space (after the host's shared segment): the nucleus first,
//! then the partitions in order. A task's program runs in its partition; each of its runs is
//! preceded, with probability `nucleus.fraction`, by a supervisor run in the nucleus, which the
//! guest executes disabled for interruptions (so the Accelerator never applies there).
//!
//! The two interrupts (young ch. II §3; fidelity notes §5.2): one pseudo fault per fault taken
//! enabled, one completion per page read; since neither names a task or page, a completion
//! readies every page-waiting task, and those whose page is still coming re-fault.

pub mod pagemon;
mod report;

pub use crate::monitor::benchmark::{
    BenchmarkReport, GuestReport, JobRow, ScheduleRow, SessionRow, StreamRow, TaskRow,
};

use crate::locality::LocalityModel;
use crate::spec::guest::{GuestSpec, NucleusSpec};
use crate::spec::{LocalitySpec, ProgramSpec};
use pagelab_core::{Rng, RngStreams, Tick};
use pagelab_trace::{AccessKind, ReferenceSource, Run, TraceError};
use rand::Rng as _;
use std::collections::VecDeque;

/// A guest task's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskState {
    /// No work: an empty partition.
    Idle,
    /// Dispatchable (unless deactivated).
    Ready,
    /// Waiting after a pseudo page fault.
    PageWait,
    /// Waiting for its own I/O.
    IoWait,
    /// The spooler waiting for work.
    TimerWait,
}

/// What the host must do after a guest decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing.
    Continue,
    /// Start an I/O for task `0` and wake it when done.
    Io(usize),
    /// Wake task `0` after `1` ns.
    Timer(usize, u64),
}

#[derive(Clone, Copy, Debug)]
struct JobRef {
    stream: usize,
    job: usize,
    arrived: Tick,
}

/// A partition and the task running in it.
pub struct Task {
    /// Partition name.
    pub name: String,
    /// State.
    pub state: TaskState,
    /// Stopped by PAGEMON.
    pub deactivated: bool,
    base: u32,
    queue: Option<usize>,
    spooler: Option<(u64, u64)>,
    spool_phase_io: bool,
    program: Option<Box<LocalityModel>>,
    runs: Vec<Run>,
    pos: usize,
    left: u32,
    fresh: bool,
    seg_left_ns: u64,
    seg_ns: u64,
    ios_left: u32,
    job: Option<JobRef>,
    job_started: Tick,
    step: usize,
    /// CPU time used [ns].
    pub cpu_ns: u64,
    /// Jobs finished [count].
    pub jobs_done: u32,
    /// Pseudo page faults taken [count].
    pub pseudo_faults: u64,
    page_wait_s: f64,
}

/// The guest operating system.
pub struct GuestOs {
    /// Its spec.
    pub spec: GuestSpec,
    /// Partitions in priority order.
    pub tasks: Vec<Task>,
    current: usize,
    queues: Vec<VecDeque<JobRef>>,
    stream_queue: Vec<usize>,
    next_k: Vec<u32>,
    nucleus: LocalityModel,
    shift: u32,
    nucleus_end: u32,
    rng: Rng,
    streams: RngStreams,
    n_programs: u64,
    scratch: Vec<Run>,
    /// Tasks PAGEMON allows active [tasks].
    pub allowed: u32,
    /// Finished jobs.
    pub jobs: Vec<JobRow>,
    /// Pseudo page faults (first interrupts) [count].
    pub n_pseudo: u64,
    /// Completion interrupts (second interrupts) [count].
    pub n_completions: u64,
    /// Tasks readied by completion interrupts [count].
    pub n_readied: u64,
    /// Task switches [count].
    pub n_switches: u64,
    /// Deactivations and reactivations by PAGEMON [count].
    pub n_deactivations: u64,
    /// Reactivations [count].
    pub n_reactivations: u64,
    /// PAGEMON's decisions: (time, measure, allowed).
    pub pagemon_trace: Vec<(f64, f64, u32)>,
    ran: u64,
    win_end: Tick,
    win: Tick,
    win_sum: f64,
    win_n: u64,
    time_s: f64,
    active_s: f64,
    vm_page_wait_s: f64,
    vm_wait_s: f64,
}

fn nucleus_locality(s: &NucleusSpec) -> LocalitySpec {
    LocalitySpec {
        set_pages: s.pages,
        address_pages: s.pages,
        overlap: 1.0,
        drift: 0.0,
        repeat: 0.0,
        locality_pages: s.pages,
        runs_per_phase: 1 << 20,
        refs_per_run: s.refs_per_run,
        write_fraction: s.write_fraction,
        shared_fraction: 0.0,
    }
}

impl Task {
    /// A partition's task with no job yet, its pages from `base`, reading job `queue`.
    fn idle(name: String, base: u32, queue: Option<usize>) -> Task {
        Task {
            name,
            state: TaskState::Idle,
            deactivated: false,
            base,
            queue,
            spooler: None,
            spool_phase_io: false,
            program: None,
            runs: Vec::new(),
            pos: 0,
            left: 0,
            fresh: true,
            seg_left_ns: 0,
            seg_ns: 0,
            ios_left: 0,
            job: None,
            job_started: Tick::ZERO,
            step: 0,
            cpu_ns: 0,
            jobs_done: 0,
            pseudo_faults: 0,
            page_wait_s: 0.0,
        }
    }
}

impl GuestOs {
    /// The guest of `spec`, its pages after a host shared segment of `shift` pages; random
    /// streams from `streams` under `index`.
    pub fn new(spec: &GuestSpec, shift: u32, streams: &RngStreams, index: u64) -> GuestOs {
        let sub = RngStreams::new(streams.stream("guest", index).gen());
        let mut names: Vec<String> = Vec::new();
        let mut base = shift + spec.nucleus.pages;
        let mut tasks = Vec::new();
        for (i, p) in spec.partitions.iter().enumerate() {
            let queue = p.queue.as_ref().map(|q| {
                names.iter().position(|n| n == q).unwrap_or_else(|| {
                    names.push(q.clone());
                    names.len() - 1
                })
            });
            let mut t = Task::idle(p.name.clone(), base, queue);
            if let Some(s) = &p.spooler {
                let cpu = ((s.cpu_ms * 1e6).round() as u64).max(1);
                t.spooler = Some((cpu, (s.wait_ms * 1e6).round() as u64));
                t.program = Some(Box::new(LocalityModel::new(
                    &s.program,
                    0,
                    sub.stream("spooler", i as u64),
                )));
                t.state = TaskState::Ready;
                t.seg_left_ns = cpu;
            }
            tasks.push(t);
            base += p.pages;
        }
        let queues = vec![VecDeque::new(); names.len()];
        let stream_queue: Vec<usize> = spec
            .streams
            .iter()
            .map(|s| names.iter().position(|n| *n == s.queue).unwrap_or(0))
            .collect();
        let win = Tick::from_secs_f64(spec.mpl_window_s).max(Tick(1));
        let mut g = GuestOs {
            tasks,
            current: usize::MAX,
            queues,
            stream_queue: Vec::new(),
            next_k: vec![0; spec.streams.len()],
            nucleus: LocalityModel::new(
                &nucleus_locality(&spec.nucleus),
                0,
                sub.stream("nucleus", 0),
            ),
            shift,
            nucleus_end: shift + spec.nucleus.pages,
            rng: sub.stream("mix", 0),
            streams: sub,
            n_programs: 0,
            scratch: Vec::with_capacity(256),
            allowed: u32::MAX,
            jobs: Vec::new(),
            n_pseudo: 0,
            n_completions: 0,
            n_readied: 0,
            n_switches: 0,
            n_deactivations: 0,
            n_reactivations: 0,
            pagemon_trace: Vec::new(),
            ran: 0,
            win_end: win,
            win,
            win_sum: 0.0,
            win_n: 0,
            time_s: 0.0,
            active_s: 0.0,
            vm_page_wait_s: 0.0,
            vm_wait_s: 0.0,
            spec: spec.clone(),
        };
        g.stream_queue = stream_queue;
        g
    }

    /// Pages of the virtual machine's address space, after the shared segment [pages].
    pub fn address_pages(&self) -> u32 {
        self.spec.nucleus.pages + self.spec.partitions.iter().map(|p| p.pages).sum::<u32>()
    }

    /// When stream `s` next delivers a job, if it has one left.
    pub fn next_arrival(&self, s: usize) -> Option<Tick> {
        let st = &self.spec.streams[s];
        let total = st.copies * st.jobs.len() as u32;
        let k = self.next_k[s];
        (k < total).then(|| Tick::from_secs_f64(st.first_s + st.every_s * f64::from(k)))
    }

    /// Delivers every job of stream `s` due by `now` to its queue and starts idle partitions.
    pub fn arrive(&mut self, s: usize, now: Tick) {
        let q = self.stream_queue[s];
        while let Some(t) = self.next_arrival(s) {
            if t > now {
                break;
            }
            let k = self.next_k[s] as usize;
            let job = k % self.spec.streams[s].jobs.len();
            self.queues[q].push_back(JobRef {
                stream: s,
                job,
                arrived: t,
            });
            self.next_k[s] += 1;
        }
        for i in 0..self.tasks.len() {
            if self.tasks[i].state == TaskState::Idle && self.tasks[i].queue == Some(q) {
                self.start_next_job(i, now);
            }
        }
        self.reapply();
    }

    /// Every finite stream has delivered and finished all its jobs.
    pub fn streams_done(&self) -> bool {
        (0..self.spec.streams.len()).all(|s| self.next_arrival(s).is_none())
            && self.queues.iter().all(|q| q.is_empty())
            && self.tasks.iter().all(|t| t.job.is_none())
    }

    fn start_next_job(&mut self, i: usize, now: Tick) {
        let Some(q) = self.tasks[i].queue else { return };
        match self.queues[q].pop_front() {
            Some(j) => {
                let t = &mut self.tasks[i];
                t.job = Some(j);
                t.job_started = now;
                t.step = 0;
                self.start_step(i);
            }
            None => {
                let t = &mut self.tasks[i];
                t.job = None;
                t.state = TaskState::Idle;
                t.program = None;
            }
        }
    }

    fn start_step(&mut self, i: usize) {
        let j = self.tasks[i].job.expect("a step belongs to a job");
        let step = &self.spec.streams[j.stream].jobs[j.job].steps[self.tasks[i].step];
        let l = match &step.program {
            ProgramSpec::Cms(l) | ProgramSpec::Drifting(l) => l,
            ProgramSpec::Trace(_) => unreachable!("validated: guest steps are locality programs"),
        };
        let rng = self.streams.stream("step", self.n_programs);
        self.n_programs += 1;
        let cpu = ((step.cpu_s * 1e9).round() as u64).max(1);
        let seg = (cpu / (u64::from(step.ios) + 1)).max(1);
        let t = &mut self.tasks[i];
        t.program = Some(Box::new(LocalityModel::new(l, 0, rng)));
        t.ios_left = step.ios;
        t.seg_ns = seg;
        t.seg_left_ns = seg;
        t.runs.clear();
        t.pos = 0;
        t.left = 0;
        t.fresh = true;
        t.state = TaskState::Ready;
    }

    /// The highest-priority ready task that PAGEMON allows, if any.
    pub fn select(&self) -> Option<usize> {
        self.tasks
            .iter()
            .position(|t| t.state == TaskState::Ready && !t.deactivated)
    }

    /// A task is ready to run.
    pub fn has_ready(&self) -> bool {
        self.select().is_some()
    }

    /// Some task waits for an event the host will deliver (its I/O, its page, its timer).
    pub fn has_pending(&self) -> bool {
        self.tasks.iter().any(|t| {
            matches!(
                t.state,
                TaskState::PageWait | TaskState::IoWait | TaskState::TimerWait
            )
        })
    }

    /// The task whose references the virtual machine runs now.
    pub fn current(&self) -> Option<usize> {
        (self.current < self.tasks.len()).then_some(self.current)
    }

    /// Dispatches the highest-priority ready task: its reference cursor and CPU segment go into
    /// the host user's (`runs`, `pos`, `left`, `seg_left`), the previous task's are saved.
    /// `false` when no task is ready.
    pub fn dispatch(
        &mut self,
        runs: &mut Vec<Run>,
        pos: &mut usize,
        left: &mut u32,
        seg_left: &mut u64,
    ) -> bool {
        let Some(t) = self.select() else { return false };
        if t != self.current {
            if let Some(c) = self.current() {
                let old = &mut self.tasks[c];
                std::mem::swap(&mut old.runs, runs);
                old.pos = *pos;
                old.left = *left;
            }
            let new = &mut self.tasks[t];
            std::mem::swap(&mut new.runs, runs);
            new.runs.clear();
            *pos = new.pos;
            *left = new.left;
            self.current = t;
            self.n_switches += 1;
        }
        let new = &mut self.tasks[t];
        if std::mem::take(&mut new.fresh) {
            runs.clear();
            *pos = 0;
            *left = 0;
        }
        *seg_left = new.seg_left_ns;
        self.ran |= 1 << t;
        true
    }

    /// After a burst of the current task: its CPU time and what is left of its segment.
    pub fn ran(&mut self, elapsed_ns: u64, seg_left: u64) {
        if let Some(c) = self.current() {
            let t = &mut self.tasks[c];
            t.cpu_ns += elapsed_ns;
            t.seg_left_ns = seg_left;
        }
    }

    /// Whether a fault on system page `page` is taken with interruptions enabled (a task's
    /// page) rather than disabled (the nucleus).
    pub fn enabled_at(&self, page: u32) -> bool {
        page >= self.nucleus_end
    }

    /// First external interrupt: the current task waits for its page.
    pub fn pseudo_fault(&mut self) {
        if let Some(c) = self.current() {
            let t = &mut self.tasks[c];
            t.state = TaskState::PageWait;
            t.pseudo_faults += 1;
        }
        self.n_pseudo += 1;
    }

    /// Second external interrupt: a page came in; every page-waiting task becomes ready.
    pub fn page_arrived(&mut self) {
        self.n_completions += 1;
        for t in &mut self.tasks {
            if t.state == TaskState::PageWait {
                t.state = TaskState::Ready;
                self.n_readied += 1;
            }
        }
    }

    /// The current task's CPU segment is spent: an I/O, the next step, or the job's end.
    pub fn segment_ended(&mut self, now: Tick) -> Verdict {
        let Some(c) = self.current() else {
            return Verdict::Continue;
        };
        let t = &mut self.tasks[c];
        if t.spooler.is_some() {
            t.spool_phase_io = true;
            t.state = TaskState::IoWait;
            return Verdict::Io(c);
        }
        if t.ios_left > 0 {
            t.ios_left -= 1;
            t.state = TaskState::IoWait;
            return Verdict::Io(c);
        }
        let j = t.job.expect("a running partition has a job");
        t.step += 1;
        if t.step < self.spec.streams[j.stream].jobs[j.job].steps.len() {
            self.start_step(c);
            return Verdict::Continue;
        }
        self.jobs.push(JobRow {
            stream: self.spec.streams[j.stream].name.clone(),
            job: self.spec.streams[j.stream].jobs[j.job].name.clone(),
            partition: t.name.clone(),
            arrived_s: j.arrived.as_secs_f64(),
            started_s: t.job_started.as_secs_f64(),
            ended_s: now.as_secs_f64(),
        });
        t.jobs_done += 1;
        self.start_next_job(c, now);
        self.reapply();
        Verdict::Continue
    }

    /// Task `i`'s I/O or timer is over.
    pub fn wake(&mut self, i: usize) -> Verdict {
        let t = &mut self.tasks[i];
        if let Some((cpu, wait)) = t.spooler {
            if std::mem::take(&mut t.spool_phase_io) && wait > 0 {
                t.state = TaskState::TimerWait;
                return Verdict::Timer(i, wait);
            }
            t.seg_left_ns = cpu;
            t.state = TaskState::Ready;
            return Verdict::Continue;
        }
        t.seg_left_ns = t.seg_ns;
        t.state = TaskState::Ready;
        Verdict::Continue
    }

    /// PAGEMON's bound: at most `n` busy partitions stay active, the highest-priority ones;
    /// system tasks (the spooler) are never deactivated.
    pub fn set_allowed(&mut self, n: u32) {
        self.allowed = n;
        self.reapply();
    }

    fn reapply(&mut self) {
        let mut k = 0u32;
        for t in &mut self.tasks {
            let off = if t.spooler.is_some() || t.state == TaskState::Idle {
                false
            } else {
                k += 1;
                k > self.allowed
            };
            if off && !t.deactivated {
                self.n_deactivations += 1;
            } else if !off && t.deactivated {
                self.n_reactivations += 1;
            }
            t.deactivated = off;
        }
    }

    /// Partitions that serve job queues [count].
    pub fn job_partitions(&self) -> u32 {
        self.tasks.iter().filter(|t| t.spooler.is_none()).count() as u32
    }

    /// Time passes: `dt` seconds up to `now`; `vm_page_wait` when the virtual machine is blocked
    /// in host page wait, `vm_waiting` when it is in an enabled wait.
    pub fn accumulate(&mut self, dt: f64, now: Tick, vm_page_wait: bool, vm_waiting: bool) {
        self.time_s += dt;
        let mut active = 0u32;
        for t in &mut self.tasks {
            if t.spooler.is_none() && t.state != TaskState::Idle && !t.deactivated {
                active += 1;
            }
            if t.state == TaskState::PageWait {
                t.page_wait_s += dt;
            }
        }
        self.active_s += f64::from(active) * dt;
        if vm_page_wait {
            self.vm_page_wait_s += dt;
        }
        if vm_waiting {
            self.vm_wait_s += dt;
        }
        while now >= self.win_end {
            self.win_sum += f64::from(self.ran.count_ones());
            self.win_n += 1;
            self.ran = 0;
            self.win_end += self.win;
        }
    }
}

impl GuestOs {
    /// Appends the current task's runs (page numbers in the host's numbering), each preceded
    /// with probability `nucleus.fraction` by a nucleus run.
    pub fn next_batch(&mut self, out: &mut Vec<Run>) -> Result<bool, TraceError> {
        let Some(c) = self.current() else {
            // No task: the wait loop in the nucleus.
            self.nucleus.next_batch(out)?;
            for r in out.iter_mut() {
                r.page += self.shift;
            }
            return Ok(true);
        };
        self.scratch.clear();
        let base = self.tasks[c].base;
        match self.tasks[c].program.as_mut() {
            Some(p) => {
                p.next_batch(&mut self.scratch)?;
            }
            None => self.scratch.push(Run {
                page: 0,
                count: 1,
                kind: AccessKind::Load,
            }),
        }
        let frac = self.spec.nucleus.fraction;
        let mut nuc: Vec<Run> = Vec::new();
        for r in std::mem::take(&mut self.scratch) {
            if frac > 0.0 && self.rng.gen::<f64>() < frac {
                if nuc.is_empty() {
                    self.nucleus.next_batch(&mut nuc)?;
                }
                let mut n = nuc.pop().expect("a batch has runs");
                n.page += self.shift;
                out.push(n);
            }
            out.push(Run {
                page: r.page + base,
                ..r
            });
            self.scratch.push(r);
        }
        self.scratch.clear();
        Ok(true)
    }

    /// Marks the guest as having no current task (used by tests).
    pub fn clear_current(&mut self) {
        self.current = usize::MAX;
    }
}

#[cfg(test)]
pub(crate) mod tests;
