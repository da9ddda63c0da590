//! The M44/44X as a discrete-event model: one CPU shared round robin in 0.1 s slices by the
//! background 44X jobs, one global paged store, two disks serving page pulls in order, and the
//! load leveler's periodic samples.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use pagelab_core::{EventQueue, Tick};
use pagelab_trace::Run;

use super::leveler::{Action, Leveler, Sample};
use super::spec::{M44Spec, PolicyKind};
use super::supply::{Frame, M44Supply};
use crate::device::FifoBacklog;
use crate::monitor::{counters, put_metric, IntervalTable, Report, UserRow};
use crate::supply::FrameSupply;

const NONE: u32 = u32::MAX;
const NS: f64 = 1e9;

counters! {
    /// The machine's cumulative counters, each reported as a metric of its name.
    pub struct M44Counters {
        pulls: "pages", "Pages read from the disks.";
        pushes: "pages", "Changed pages written back when their frame was taken.";
        set_asides: "count", "Times the load leveler set a job aside.";
        restores: "count", "Times the load leveler restored a job.";
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Ready,
    Waiting,
    Done,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ev {
    /// The pull for `job` into `frame` is complete.
    PullDone { job: u16, frame: u32 },
    /// The load leveler samples.
    Sample,
    /// BIFO's favour moves on.
    Rotate,
}

pub(super) struct Job {
    /// The job's reference string (its own input data: see [`copy_seed`]).
    runs: Arc<Vec<Run>>,
    /// Position in the reference string: run index and references left of it (0: all).
    pos: usize,
    left: u32,
    /// Frame of each dense page, or `NONE`.
    table: Vec<u32>,
    state: State,
    set_aside: bool,
    /// When the job was last started or restored (order of events).
    activated: u64,
    cpu_ns: u64,
    pulls: u64,
    pushes: u64,
    set_asides: u64,
    finish_ns: u64,
}

/// The input-data seed of copy `copy` of the program: copy 0 reads the run's own seed (so one
/// job alone is the single-programmed run), the others data of their own, so that identical
/// background jobs do not run in lockstep (B&G 1968, "The effects of programming style":
/// "multiple copies of a given program", each sorting its own input tape).
pub fn copy_seed(seed: u64, copy: u64) -> u64 {
    if copy == 0 {
        return seed;
    }
    use rand::RngCore;
    pagelab_core::RngStreams::new(seed)
        .stream("m44-copy-input", copy)
        .next_u64()
}

/// Each job's reference string (copies reading the same input share one) with the pages it
/// spans.
pub(crate) type JobStrings = Vec<(Arc<Vec<Run>>, usize)>;

/// The job records, one per reference string, started together in order.
fn jobs(strings: JobStrings) -> Vec<Job> {
    strings
        .into_iter()
        .enumerate()
        .map(|(j, (runs, pages))| Job {
            runs,
            pos: 0,
            left: 0,
            table: vec![NONE; pages],
            state: State::Ready,
            set_aside: false,
            activated: j as u64,
            cpu_ns: 0,
            pulls: 0,
            pushes: 0,
            set_asides: 0,
            finish_ns: 0,
        })
        .collect()
}

/// One run of the machine.
pub struct Machine {
    spec: M44Spec,
    seed: u64,
    pub(super) total_refs: u64,
    pub(super) jobs: Vec<Job>,
    frames: Vec<Frame>,
    free: Vec<u32>,
    supply: M44Supply,
    leveler: Option<Leveler>,
    ready: VecDeque<u16>,
    set_aside_queue: VecDeque<u16>,
    pub(super) events: EventQueue<Ev>,
    /// Order of restores (larger is later).
    stamp: u64,
    /// The disks' queues, each in arrival order (the shared device queue's closed form).
    disks: Vec<FifoBacklog>,
    pub(super) now: u64,
    ref_ns: u64,
    slice_ns: u64,
    pull_ns: u64,
    push_ns: u64,
    /// CPU busy time so far, and the last slice (start, end).
    busy_ns: u64,
    last_slice: (u64, u64),
    pub(super) refs_done: u64,
    counters: M44Counters,
    pub(super) done: u32,
    /// The last leveler sample: time, CPU busy time and pulls so far.
    last_sample: (u64, u64, f64),
    samples: Vec<Vec<f64>>,
}

/// The components [`Machine::build`] wires from the spec ([`crate::systems::m44`]), which
/// [`Machine::assemble`] puts into the machine.
pub(crate) struct Parts {
    /// Each job's reference string and pages, and the references of all of them.
    pub(crate) strings: JobStrings,
    pub(crate) total_refs: u64,
    /// The global replacement policy (FIFO, BIFO, AR) on the frame-supply seam.
    pub(crate) supply: M44Supply,
    /// The load leveler, when enabled.
    pub(crate) leveler: Option<Leveler>,
    /// The disks' queues, each in arrival order.
    pub(crate) disks: Vec<FifoBacklog>,
    /// Time to pull a page and to push one [ns].
    pub(crate) pull_ns: u64,
    pub(crate) push_ns: u64,
}

impl Machine {
    /// The machine of `spec` made of `parts`, every frame free, every job ready, the first
    /// events scheduled.
    pub(crate) fn assemble(spec: &M44Spec, seed: u64, parts: Parts) -> Self {
        let jobs = jobs(parts.strings);
        let n = jobs.len();
        let frames = spec.memory.frames() as usize;
        let ns = |s: f64| (s * NS).round() as u64;
        let mut m = Machine {
            seed,
            total_refs: parts.total_refs,
            jobs,
            frames: vec![Frame::default(); frames],
            free: (0..frames as u32).rev().collect(),
            supply: parts.supply,
            leveler: parts.leveler,
            // The jobs are started together from the input tape, in order (B&G, "Measurement
            // techniques").
            ready: (0..n as u16).collect(),
            set_aside_queue: VecDeque::new(),
            events: EventQueue::new(),
            stamp: n as u64,
            disks: parts.disks,
            now: 0,
            ref_ns: ns(spec.machine.reference_us().get() * 1e-6),
            slice_ns: spec.machine.time_slice_s.ns(),
            pull_ns: parts.pull_ns,
            push_ns: parts.push_ns,
            busy_ns: 0,
            last_slice: (0, 0),
            refs_done: 0,
            counters: M44Counters::default(),
            done: 0,
            last_sample: (0, 0, 0.0),
            samples: Vec::new(),
            spec: spec.clone(),
        };
        if m.spec.replacement.policy == PolicyKind::Bifo {
            m.rotate();
            m.schedule(m.spec.replacement.bifo_interval_s.ns(), Ev::Rotate);
        }
        if m.leveler.is_some() {
            m.schedule(m.spec.leveler.period_s.ns(), Ev::Sample);
        }
        m
    }

    fn schedule(&mut self, at: u64, ev: Ev) {
        self.events.schedule(Tick(at), ev);
    }

    /// The next job on the CPU queue still ready and not set aside (dropping the others).
    pub(super) fn peek_ready(&mut self) -> Option<u16> {
        while let Some(&j) = self.ready.front() {
            let job = &self.jobs[j as usize];
            if job.state == State::Ready && !job.set_aside {
                return Some(j);
            }
            self.ready.pop_front();
        }
        None
    }

    /// Takes the job [`Machine::peek_ready`] found off the CPU queue.
    pub(super) fn take_ready(&mut self) -> Option<u16> {
        self.peek_ready()?;
        self.ready.pop_front()
    }

    /// Handles every event due by `now`, in time order.
    fn catch_up(&mut self) {
        while self.events.peek_time().is_some_and(|at| at.0 <= self.now) {
            let (at, ev) = self.events.pop().expect("peeked");
            self.handle_at(at.0, ev);
        }
    }

    pub(super) fn handle_at(&mut self, at: u64, ev: Ev) {
        match ev {
            Ev::PullDone { job, frame } => {
                let f = &mut self.frames[frame as usize];
                f.busy = false;
                let (_, page) = f.owner.expect("a frame being filled has its page");
                // The supply ranks the page from now (AR: the faulting reference, about to be
                // retried, sets its usage bit).
                self.supply
                    .on_load(u32::from(job), page, frame, self.refs_done);
                let jb = &mut self.jobs[job as usize];
                jb.state = State::Ready;
                if !jb.set_aside {
                    self.ready.push_back(job);
                }
            }
            Ev::Rotate => {
                self.rotate();
                if self.done < self.jobs.len() as u32 {
                    let next = at + self.spec.replacement.bifo_interval_s.ns();
                    self.schedule(next, Ev::Rotate);
                }
            }
            Ev::Sample => {
                self.sample(at);
                if self.done < self.jobs.len() as u32 {
                    let next = at + self.spec.leveler.period_s.ns();
                    self.schedule(next, Ev::Sample);
                }
            }
        }
    }

    /// BIFO favours the next job still running and not set aside.
    fn rotate(&mut self) {
        let eligible: Vec<bool> = self
            .jobs
            .iter()
            .map(|j| j.state != State::Done && !j.set_aside)
            .collect();
        self.supply.rotate(&eligible);
    }

    /// CPU busy time up to `t`, which is not before the last slice's start.
    fn busy_at(&self, t: u64) -> u64 {
        let (start, end) = self.last_slice;
        if t >= end {
            self.busy_ns
        } else {
            self.busy_ns - (end - t.max(start))
        }
    }

    fn sample(&mut self, at: u64) {
        let (t0, busy0, pulls0) = self.last_sample;
        let busy = self.busy_at(at);
        let period = (at - t0).max(1) as f64 / NS;
        let active = self
            .jobs
            .iter()
            .filter(|j| j.state != State::Done && !j.set_aside)
            .count() as u32;
        let s = Sample {
            cpu: (busy - busy0) as f64 / NS / period,
            pulls_per_s: (self.counters.pulls - pulls0) / period,
            active,
            set_aside: self.set_aside_queue.len() as u32,
        };
        self.last_sample = (at, busy, self.counters.pulls);
        let action = self.leveler.as_ref().map_or(Action::Hold, |l| l.decide(&s));
        match action {
            Action::SetAside => {
                let victim = super::leveler::set_aside_choice(
                    self.jobs
                        .iter()
                        .enumerate()
                        .filter(|(_, j)| j.state != State::Done && !j.set_aside)
                        .map(|(i, j)| (i, j.activated)),
                );
                if let Some(j) = victim {
                    self.jobs[j].set_aside = true;
                    self.jobs[j].set_asides += 1;
                    self.set_aside_queue.push_back(j as u16);
                    self.counters.set_asides += 1.0;
                    // A job off the CPU queue is not worth sparing: BIFO's favour moves on.
                    if self.supply.favoured() == Some(j as u16) {
                        self.rotate();
                    }
                }
            }
            Action::Restore => {
                // First set aside, first restored (fidelity-notes §6.3).
                if let Some(j) = self.set_aside_queue.pop_front() {
                    self.stamp += 1;
                    let jb = &mut self.jobs[j as usize];
                    jb.set_aside = false;
                    jb.activated = self.stamp;
                    if jb.state == State::Ready {
                        self.ready.push_back(j);
                    }
                    self.counters.restores += 1.0;
                }
            }
            Action::Hold => {}
        }
        self.samples.push(vec![
            at as f64 / NS,
            s.cpu * 100.0,
            s.pulls_per_s,
            f64::from(s.active),
            f64::from(s.set_aside),
            match action {
                Action::SetAside => -1.0,
                Action::Restore => 1.0,
                Action::Hold => 0.0,
            },
        ]);
    }

    /// Runs job `j` until its slice ends, it faults, or it finishes.
    pub(super) fn slice(&mut self, j: u16) {
        let start = self.now;
        let end = start + self.slice_ns;
        let ji = j as usize;
        let runs = Arc::clone(&self.jobs[ji].runs);
        let outcome = loop {
            let job = &mut self.jobs[ji];
            let Some(run) = runs.get(job.pos) else {
                break State::Done;
            };
            let frame = job.table[run.page as usize];
            if frame == NONE {
                break State::Waiting;
            }
            if job.left == 0 {
                job.left = run.count;
            }
            let avail = (end - self.now) / self.ref_ns;
            if avail == 0 {
                break State::Ready;
            }
            let k = u64::from(job.left).min(avail);
            self.frames[frame as usize].dirty |= run.is_write();
            self.supply
                .on_reference(u32::from(j), run.page, k as u32, self.refs_done);
            self.now += k * self.ref_ns;
            self.refs_done += k;
            job.left -= k as u32;
            if job.left == 0 {
                job.pos += 1;
            }
        };
        let ran = self.now - start;
        self.jobs[ji].cpu_ns += ran;
        self.busy_ns += ran;
        self.last_slice = (start, self.now);
        // Pulls and samples due during the slice happen before what ends it.
        self.catch_up();
        match outcome {
            State::Ready => {
                if !self.jobs[ji].set_aside {
                    self.ready.push_back(j);
                }
            }
            State::Waiting => self.fault(j),
            State::Done => self.finish(j),
        }
    }

    /// Job `j` referenced a page not in core: a frame (free, or the replacement algorithm's
    /// victim, pushed if changed) is reserved and the page pulled from its disk.
    fn fault(&mut self, j: u16) {
        let ji = j as usize;
        let page = self.jobs[ji].runs[self.jobs[ji].pos].page;
        let (frame, push_disk) = match self.free.pop() {
            Some(f) => (f, None),
            None => {
                let v = self
                    .supply
                    .select_victim(&mut self.frames)
                    .expect("more frames than jobs, each with at most one pull in flight");
                let old = self.frames[v as usize];
                let (vj, vp) = old.owner.expect("a victim holds a page");
                self.jobs[vj as usize].table[vp as usize] = NONE;
                let pushed = old.dirty.then(|| {
                    self.counters.pushes += 1.0;
                    self.jobs[vj as usize].pushes += 1;
                    self.home_disk(vj, vp)
                });
                (v, pushed)
            }
        };
        self.frames[frame as usize] = Frame {
            owner: Some((j, page)),
            dirty: false,
            busy: true,
        };
        let job = &mut self.jobs[ji];
        job.table[page as usize] = frame;
        job.state = State::Waiting;
        job.pulls += 1;
        self.counters.pulls += 1.0;
        // Each disk serves its requests one at a time in arrival order; a changed victim is
        // written before the frame is refilled, and the pull keeps its place on its own disk
        // meanwhile. Service times are known on arrival, so each disk is the shared FIFO queue
        // in closed form (`device::FifoBacklog`) and a pull's completion is scheduled at its
        // fault. The event-driven form (UNIX's RK11) gives the same times but schedules a
        // completion when service starts: the two disks, finishing in step at 0.21 s a page,
        // then tie in another order, and m44-multi's smoke record moves in 29 of 173 rows.
        let mut ready = self.now;
        if let Some(d) = push_disk {
            if self.push_ns > 0 {
                ready = self.disks[d].book(self.now, self.push_ns);
            }
        }
        let d = self.home_disk(j, page);
        let at = self.disks[d].book(ready, self.pull_ns);
        self.schedule(at, Ev::PullDone { job: j, frame });
    }

    /// The disk a job's page lives on: pages of each job alternate over the disks.
    fn home_disk(&self, job: u16, page: u32) -> usize {
        (u64::from(page) + u64::from(job)) as usize % self.disks.len()
    }

    fn finish(&mut self, j: u16) {
        let job = &mut self.jobs[j as usize];
        job.state = State::Done;
        job.finish_ns = self.now;
        self.done += 1;
        for (page, f) in job.table.iter_mut().enumerate() {
            if *f != NONE {
                // A frame still being filled for the job cannot exist: it is not waiting.
                self.supply.on_free(u32::from(j), page as u32);
                self.frames[*f as usize] = Frame::default();
                self.free.push(*f);
                *f = NONE;
            }
        }
        if let Some(pos) = self.set_aside_queue.iter().position(|&x| x == j) {
            self.set_aside_queue.remove(pos);
        }
    }

    pub(super) fn report(&self, slices: u64) -> Report {
        let users = self
            .jobs
            .iter()
            .enumerate()
            .map(|(i, j)| UserRow {
                user: i as u32,
                class: self.spec.workload.program.clone(),
                transactions: 1,
                response_mean_s: j.finish_ns as f64 / NS,
                cpu_s: j.cpu_ns as f64 / NS,
                faults: j.pulls,
                page_reads: j.pulls,
                vios: 0,
                drops: j.set_asides,
                projected_ws: 0.0,
                psi_s: None,
            })
            .collect();
        let mut engine = BTreeMap::new();
        engine.insert("slices".into(), slices);
        engine.insert(
            "runs".into(),
            self.jobs.iter().map(|j| j.runs.len() as u64).sum(),
        );
        Report {
            version: env!("CARGO_PKG_VERSION").to_string(),
            seed: self.seed,
            spec: serde_json::to_value(&self.spec).unwrap_or(serde_json::Value::Null),
            metrics: self.metrics(),
            intervals: IntervalTable {
                columns: [
                    "t",
                    "cpu_busy_pct",
                    "pulls_per_s",
                    "active",
                    "set_aside",
                    "action",
                ]
                .map(String::from)
                .to_vec(),
                units: ["s", "%", "1/s", "jobs", "jobs", "-1 set aside, +1 restore"]
                    .map(String::from)
                    .to_vec(),
                rows: self.samples.clone(),
            },
            users,
            classes: Vec::new(),
            response: BTreeMap::new(),
            engine,
            devices: Vec::new(),
            benchmark: None,
        }
    }

    /// The run's metrics in the paper's terms.
    fn metrics(&self) -> BTreeMap<String, crate::monitor::Metric> {
        let n = self.jobs.len() as f64;
        let elapsed = self.now as f64 / NS;
        let mut m = BTreeMap::new();
        let mut put = |name: &str, value: f64, unit: &str, desc: &str| {
            put_metric(&mut m, name, value, unit, desc)
        };
        put(
            "elapsed_s",
            elapsed,
            "s",
            "Time from the start of the jobs until the last one ends.",
        );
        put(
            "time_per_job_s",
            elapsed / n,
            "s",
            "Elapsed time divided by the number of jobs (B&G Figures 10-13, 'Time/Job').",
        );
        put(
            "jobs",
            n,
            "jobs",
            "Jobs run at once: the multiprogramming level.",
        );
        put(
            "frames",
            f64::from(self.spec.memory.frames()),
            "frames",
            "Page frames of the paged store.",
        );
        put(
            "references",
            self.refs_done as f64,
            "refs",
            "References executed by all jobs.",
        );
        put(
            "pulls_per_job",
            self.counters.pulls / n,
            "pages",
            "Pulls divided by the number of jobs.",
        );
        put(
            "cpu_busy_pct",
            100.0 * self.busy_ns as f64 / (self.now.max(1) as f64),
            "%",
            "CPU busy over the run.",
        );
        for (&(name, unit, desc), value) in M44Counters::COLUMNS.iter().zip(self.counters.values())
        {
            put(name, value, unit, desc);
        }
        m
    }
}
