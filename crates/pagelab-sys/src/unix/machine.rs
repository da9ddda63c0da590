//! The V6 machine: processes, the clock, `swtch`, the swapper, the RK11 disk queue, terminals.
//!
//! **Processes** run Chanson's prototype loop (§2.D): a compute stretch (exponential, mean
//! PC), one 512-byte file-system block (sleep at `PRIBIO` = −50 until done), with some
//! probability a `sleep(n)` call (`PSLEP` = 90, woken by the clock at a whole second), with
//! some probability a terminal write (a writer whose output queue exceeds `TTHIWAT` sleeps at
//! `TTOPRI` = 20 until it drains to `TTLOWAT`).
//!
//! **CPU** (fidelity-notes §1.5). `swtch` takes the `SRUN ∧ SLOAD` process with the lowest
//! `p_pri`, scanning circularly from the slot after the last one chosen, and sets
//! `curpri` to that priority. On return to user mode `setpri` makes
//! `p_pri = min(127, PUSER + p_cpu/16)` and sets `runrun` if that exceeds `curpri`; a process
//! woken from a sleep therefore keeps its sleep priority until selected, then yields once
//! (Chanson §3.1: "retain for a short period ... the priority of a disk request"). Preemption
//! happens only on return to user mode with `runrun` set: after any interrupt that finds the
//! running process in user mode. The clock (`HZ` = 60) charges `p_cpu += 1` per tick to the
//! running process; once a second every process gets `p_time += 1` (≤ 127),
//! `p_cpu −= SCHMAG` (≥ 0), `setpri` if `p_pri > PUSER`, the running one `setpri`; `runin`
//! is woken, and every fourth second `runrun` is forced.
//!
//! **Swapper** (§1.2-1.4): [`super::swapper::decide`] over the table; its I/O is synchronous
//! (one request at a time through one buffer) and queued FIFO with file I/O. A swap-in reads
//! the text (if it must come in) then the image and frees the image's swap copy; a swap-out
//! allocates swap first fit, drops the text's in-core count, writes the image and frees core
//! when the write is done. The swapper sleeps on `runout` (woken when a process out of core
//! becomes ready) or on `runin` (woken each second and whenever a process sleeps at
//! priority ≥ 0).
//!
//! **Disk.** One controller queue, FIFO, shared by every drive; one request in service at a
//! time (no overlapped seeks, Chanson §2.A). Service = seek + rotational latency + transfer:
//! seek(d) = min + (max − min)·√((d − 1)/(C − 2)) for d ≥ 1 cylinders (fidelity-notes §1.7,
//! [I]); latency uniform over one revolution; transfer one revolution per track of sectors.
//!
//! Deviations: the swapper's decisions take no CPU time and are made as soon as it is woken
//! (V6 would run it at the next return to user mode, within one clock tick); a multi-track
//! swap transfer is timed as continuous sectors (no head-switch or cylinder-crossing delay);
//! system calls cost `syscall_us` of CPU each, charged to the following compute stretch.
//! Metrics are the ones named in the module essay of [`crate::unix`].

use super::map::ResourceMap;
use super::spec::UnixSpec;
use super::swapper::{decide, ProcView, Stat, SwapperParams, TextView, Verdict};
use crate::monitor::{put_metric, IntervalTable, Percentiles, Report, UserRow};
use crate::SysError;
use pagelab_core::random::exponential;
use pagelab_core::{EventQueue, Rng, RngStreams, Tick};
use rand::Rng as _;
use std::collections::{BTreeMap, VecDeque};

/// V6 sleep priority of a disk wait (`PRIBIO`).
pub const PRIBIO: i32 = -50;
/// V6 sleep priority of terminal output (`TTOPRI`).
pub const TTOPRI: i32 = 20;
/// V6 sleep priority of the `sleep` system call (`PSLEP`).
pub const PSLEP: i32 = 90;
/// Clicks of the per-process u-area, swapped with the image (`USIZE`) [clicks].
pub const USIZE: u32 = 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    Clock(u64),
    DiskDone,
    TtyWake(u32),
    Login,
    Sample,
    WarmupEnded,
    End,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Compute,
    Disk,
    SleepCall,
    TtyStart,
    TtyWrite,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SchedState {
    /// Sleeping on `runout`.
    Runout,
    /// Sleeping on `runin`.
    Runin,
    /// Woken: decides at the next settle.
    Ready,
    /// Waiting for its swap I/O.
    Io,
}

struct Proc {
    stat: Stat,
    loaded: bool,
    locked: bool,
    time: u8,
    cpu: u32,
    pri: i32,
    size: u32,
    core: Option<u32>,
    swap: Option<u32>,
    text: Option<usize>,
    step: Step,
    left_ns: u64,
    overhead_ns: u64,
    sleep_pri: i32,
    woke_at: Option<Tick>,
    from_sleep: bool,
    ready_since: Tick,
    timer_s: u64,
    tty_q: f64,
    tty_t: Tick,
    tty_left: u32,
    rng: Rng,
    loops: u64,
    cpu_ns: u64,
    disk_ios: u64,
    swap_outs: u64,
    reaction_ms: f64,
    reactions: u64,
}

struct Text {
    size: u32,
    core: Option<u32>,
    in_core: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReqKind {
    File(u32),
    Swap,
}

#[derive(Clone, Copy, Debug)]
struct Req {
    kind: ReqKind,
    drive: u32,
    block: u32,
    sectors: u32,
    queued: Tick,
}

/// A swap operation under way: its remaining transfers and what to do at the end.
#[derive(Clone, Copy, Debug)]
enum SwapJob {
    In {
        proc: usize,
        text_first: Option<u32>,
        started: Tick,
    },
    Out {
        proc: usize,
        started: Tick,
    },
}

#[derive(Clone, Copy, Debug, Default)]
struct Stats {
    time_s: f64,
    reaction_n: f64,
    reaction_ms: f64,
    swap_ins: f64,
    swap_outs: f64,
    swap_ops_ms: f64,
    swap_clicks: f64,
    file_ios: f64,
    file_wait_ms: f64,
    disk_reqs: f64,
    disk_queue_wait_ms: f64,
    disk_len_s: f64,
    disk_busy_s: f64,
    cpu_busy_s: f64,
    stretches: f64,
    cpu_waits: f64,
    cpu_wait_ms: f64,
    in_core_s: f64,
    loops: f64,
    sched_wait_runin: f64,
    procs_s: f64,
    logins_admitted: f64,
    logins_refused: f64,
    logins_full: f64,
}

impl Stats {
    fn since(&self, e: &Stats) -> Stats {
        Stats {
            time_s: self.time_s - e.time_s,
            reaction_n: self.reaction_n - e.reaction_n,
            reaction_ms: self.reaction_ms - e.reaction_ms,
            swap_ins: self.swap_ins - e.swap_ins,
            swap_outs: self.swap_outs - e.swap_outs,
            swap_ops_ms: self.swap_ops_ms - e.swap_ops_ms,
            swap_clicks: self.swap_clicks - e.swap_clicks,
            file_ios: self.file_ios - e.file_ios,
            file_wait_ms: self.file_wait_ms - e.file_wait_ms,
            disk_reqs: self.disk_reqs - e.disk_reqs,
            disk_queue_wait_ms: self.disk_queue_wait_ms - e.disk_queue_wait_ms,
            disk_len_s: self.disk_len_s - e.disk_len_s,
            disk_busy_s: self.disk_busy_s - e.disk_busy_s,
            cpu_busy_s: self.cpu_busy_s - e.cpu_busy_s,
            stretches: self.stretches - e.stretches,
            cpu_waits: self.cpu_waits - e.cpu_waits,
            cpu_wait_ms: self.cpu_wait_ms - e.cpu_wait_ms,
            in_core_s: self.in_core_s - e.in_core_s,
            loops: self.loops - e.loops,
            sched_wait_runin: self.sched_wait_runin - e.sched_wait_runin,
            procs_s: self.procs_s - e.procs_s,
            logins_admitted: self.logins_admitted - e.logins_admitted,
            logins_refused: self.logins_refused - e.logins_refused,
            logins_full: self.logins_full - e.logins_full,
        }
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

fn ms(t: Tick) -> f64 {
    t.as_ns() as f64 / 1e6
}

/// The machine built from a [`UnixSpec`], ready to run.
pub struct Machine {
    spec: UnixSpec,
    seed: u64,
    now: Tick,
    last_t: Tick,
    end: Tick,
    warm: bool,
    q: EventQueue<Ev>,
    procs: Vec<Proc>,
    texts: Vec<Text>,
    core: ResourceMap,
    swapmap: ResourceMap,
    cur: Option<usize>,
    kernel: bool,
    cpu_end: Tick,
    compute_start: Tick,
    stretch_start: Tick,
    last_slot: usize,
    curpri: i32,
    runrun: bool,
    sched: SchedState,
    job: Option<SwapJob>,
    disk_q: VecDeque<Req>,
    disk_busy: Option<Req>,
    arm: Vec<u32>,
    disk_rng: Rng,
    tick_hz: u64,
    switch_ns: u64,
    syscall_ns: u64,
    st: Stats,
    warm_st: Stats,
    samples: Vec<Stats>,
    reactions: Vec<f64>,
    recent: VecDeque<(Tick, f64)>,
    n_events: u64,
    check_every: u64,
}

impl Machine {
    /// Builds the machine of `spec` with random streams from `seed`: processes are created in
    /// table order and placed in core first fit while they fit; the rest start swapped out.
    pub fn build(spec: &UnixSpec, seed: u64) -> Result<Machine, SysError> {
        spec.validate("spec")?;
        let streams = RngStreams::new(seed);
        let w = &spec.workload;
        let core = ResourceMap::new(0, spec.memory.core_clicks);
        let mut swapmap = ResourceMap::new(spec.swapper.swap_base, spec.swapper.swap_blocks);
        let mut texts = Vec::new();
        if w.text_clicks > 0 {
            // The text's permanent swap copy (xalloc).
            swapmap
                .alloc(w.text_clicks.div_ceil(8))
                .ok_or_else(|| no_swap("the shared text"))?;
            texts.push(Text {
                size: w.text_clicks,
                core: None,
                in_core: 0,
            });
        }
        let end = Tick::from_secs_f64(spec.run.duration_s);
        let mut m = Machine {
            spec: spec.clone(),
            seed,
            now: Tick::ZERO,
            last_t: Tick::ZERO,
            end,
            warm: spec.run.warmup_s <= 0.0,
            q: EventQueue::new(),
            procs: Vec::with_capacity(w.processes as usize),
            texts,
            core,
            swapmap,
            cur: None,
            kernel: false,
            cpu_end: Tick::NEVER,
            compute_start: Tick::ZERO,
            stretch_start: Tick::ZERO,
            last_slot: 0,
            curpri: spec.scheduler.puser,
            runrun: false,
            sched: SchedState::Ready,
            job: None,
            disk_q: VecDeque::new(),
            disk_busy: None,
            arm: vec![0; spec.disk.drives as usize],
            disk_rng: streams.stream("v6-disk", 0),
            tick_hz: u64::from(spec.machine.clock_hz),
            switch_ns: (spec.machine.switch_us * 1e3).round() as u64,
            syscall_ns: (spec.machine.syscall_us * 1e3).round() as u64,
            st: Stats::default(),
            warm_st: Stats::default(),
            samples: Vec::new(),
            reactions: Vec::new(),
            recent: VecDeque::new(),
            n_events: 0,
            check_every: 64,
        };
        for _ in 0..w.processes {
            m.spawn().map_err(|_| no_swap("the initial processes"))?;
        }
        if let Some(l) = &spec.login {
            m.q.schedule(Tick::from_secs_f64(l.arrival_s), Ev::Login);
        }
        m.q.schedule(m.tick_time(1), Ev::Clock(1));
        let interval = Tick::from_secs_f64(spec.monitor.interval_s).max(Tick(1));
        m.q.schedule(interval.min(end), Ev::Sample);
        if !m.warm {
            m.q.schedule(Tick::from_secs_f64(spec.run.warmup_s), Ev::WarmupEnded);
        }
        m.q.schedule(end, Ev::End);
        Ok(m)
    }

    /// `fork` of a new prototype process at the end of the table: in core first fit if there
    /// is room (with its text if none of the text's users is in core), else its image goes to
    /// swap (V6 `newproc`, fidelity-notes §1.3). `Err` when swap space is exhausted.
    fn spawn(&mut self) -> Result<(), ()> {
        let w = &self.spec.workload;
        let i = self.procs.len();
        let mut rng = RngStreams::new(self.seed).stream("v6-proc", i as u64);
        let u: f64 = rng.gen();
        let size = (f64::from(w.size_clicks) * (1.0 + w.size_spread * (2.0 * u - 1.0)))
            .round()
            .max(f64::from(USIZE + 1)) as u32;
        let text = (w.text_clicks > 0).then_some(0);
        let mut p = Proc {
            stat: Stat::Run,
            loaded: false,
            locked: false,
            time: 0,
            cpu: 0,
            pri: self.spec.scheduler.puser,
            size,
            core: None,
            swap: None,
            text,
            step: Step::Compute,
            left_ns: 0,
            overhead_ns: 0,
            sleep_pri: 0,
            woke_at: None,
            from_sleep: false,
            ready_since: self.now,
            timer_s: u64::MAX,
            tty_q: 0.0,
            tty_t: self.now,
            tty_left: 0,
            rng,
            loops: 0,
            cpu_ns: 0,
            disk_ios: 0,
            swap_outs: 0,
            reaction_ms: 0.0,
            reactions: 0,
        };
        let text_need = match text {
            Some(t) if self.texts[t].in_core == 0 => self.texts[t].size,
            _ => 0,
        };
        if let Some(a) = self.core.alloc(size + text_need) {
            if let Some(t) = text {
                if text_need > 0 {
                    self.texts[t].core = Some(a);
                }
                self.texts[t].in_core += 1;
            }
            p.core = Some(a + text_need);
            p.loaded = true;
        } else {
            p.swap = Some(self.swapmap.alloc(size.div_ceil(8)).ok_or(())?);
            if self.sched == SchedState::Runout {
                self.sched = SchedState::Ready;
            }
        }
        self.procs.push(p);
        Ok(())
    }

    /// A login attempt (Chanson §4.3): admitted while fewer than `max_processes` exist and the
    /// mean reaction time over the last `window_s` is at most `threshold_ms` (no reaction in
    /// the window counts as responsive) and, with `login.model`, the model's reaction time with
    /// the newcomer counted is at most the threshold too.
    fn login(&mut self) {
        let Some(l) = self.spec.login.clone() else {
            return;
        };
        let from = self.now.saturating_sub(Tick::from_secs_f64(l.window_s));
        while self.recent.front().is_some_and(|r| r.0 < from) {
            self.recent.pop_front();
        }
        let n = self.recent.len() as f64;
        let measured = ratio(self.recent.iter().map(|r| r.1).sum(), n);
        if self.procs.len() as u32 >= l.max_processes {
            self.st.logins_full += 1.0;
        } else if measured > l.threshold_ms
            || l.model.as_ref().is_some_and(|m| {
                m.intercept_ms + m.slope_ms * self.pctrmm_with_newcomer() > l.threshold_ms
            })
        {
            self.st.logins_refused += 1.0;
        } else if self.spawn().is_ok() {
            self.st.logins_admitted += 1.0;
        } else {
            self.st.logins_full += 1.0;
        }
        let next = self.now + Tick::from_secs_f64(l.arrival_s).max(Tick(1));
        if next < self.end {
            self.q.schedule(next, Ev::Login);
        }
    }

    /// PCTRMM (Chanson §3) of the processes now in the table plus one more of mean size.
    fn pctrmm_with_newcomer(&self) -> f64 {
        let mm = f64::from(self.spec.memory.core_clicks);
        let total: f64 = self.procs.iter().map(|p| f64::from(p.size)).sum::<f64>()
            + f64::from(self.spec.workload.size_clicks);
        100.0 * (mm - total) / mm
    }

    /// In debug builds, check conservation every `n` events (default 64; 1 checks after
    /// every event). Release builds never check.
    pub fn set_check_every(&mut self, n: u64) {
        self.check_every = n.max(1);
    }

    fn tick_time(&self, k: u64) -> Tick {
        Tick((u128::from(k) * 1_000_000_000 / u128::from(self.tick_hz)) as u64)
    }

    /// Runs to the end and returns the report; `progress` gets the fraction done.
    pub fn run(mut self, progress: &mut dyn FnMut(f64)) -> Result<Report, SysError> {
        self.settle()?;
        let interval = Tick::from_secs_f64(self.spec.monitor.interval_s).max(Tick(1));
        loop {
            if self.n_events & 0x3ff == 0 {
                pagelab_core::interrupt::check()?; // Ctrl-C/SIGTERM: every 1024 events
            }
            let tq = self.q.peek_time().unwrap_or(Tick::NEVER);
            if self.cpu_end != Tick::NEVER && self.cpu_end <= tq {
                self.advance(self.cpu_end);
                self.n_events += 1;
                self.compute_done();
            } else {
                let Some((t, ev)) = self.q.pop() else { break };
                self.advance(t);
                self.n_events += 1;
                match ev {
                    Ev::End => break,
                    Ev::Clock(k) => self.clock(k),
                    Ev::DiskDone => self.disk_done()?,
                    Ev::TtyWake(p) => self.wakeup(p as usize),
                    Ev::Login => self.login(),
                    Ev::Sample => {
                        self.samples.push(self.st);
                        if self.now + interval < self.end {
                            self.q.schedule(self.now + interval, Ev::Sample);
                        }
                        progress(self.now.as_secs_f64() / self.end.as_secs_f64());
                    }
                    Ev::WarmupEnded => {
                        self.warm = true;
                        self.warm_st = self.st;
                        self.reactions.clear();
                        for p in &mut self.procs {
                            p.loops = 0;
                            p.cpu_ns = 0;
                            p.disk_ios = 0;
                            p.swap_outs = 0;
                            p.reaction_ms = 0.0;
                            p.reactions = 0;
                        }
                    }
                }
            }
            self.settle()?;
            #[cfg(debug_assertions)]
            if self.n_events.is_multiple_of(self.check_every) {
                self.check_invariants().map_err(|e| SysError::Invalid {
                    origin: "engine".into(),
                    path: format!("t={}", self.now.as_secs_f64()),
                    what: format!("invariant broken: {e}"),
                })?;
            }
        }
        self.advance(self.end);
        if self.samples.last().map(|s| s.time_s) != Some(self.st.time_s) {
            self.samples.push(self.st);
        }
        progress(1.0);
        Ok(self.report())
    }

    fn advance(&mut self, t: Tick) {
        if t > self.last_t {
            let dt = (t - self.last_t).as_secs_f64();
            self.st.time_s += dt;
            let in_disk = self.disk_q.len() + usize::from(self.disk_busy.is_some());
            self.st.disk_len_s += in_disk as f64 * dt;
            if self.disk_busy.is_some() {
                self.st.disk_busy_s += dt;
            }
            if self.cur.is_some() {
                self.st.cpu_busy_s += dt;
            }
            let loaded = self.procs.iter().filter(|p| p.loaded).count();
            self.st.in_core_s += loaded as f64 * dt;
            self.st.procs_s += self.procs.len() as f64 * dt;
            self.last_t = t;
        }
        self.now = self.now.max(t);
    }

    /// Runs the swapper if woken, preempts on `runrun`, and switches while the CPU is free.
    fn settle(&mut self) -> Result<(), SysError> {
        for _ in 0..100_000 {
            if self.sched == SchedState::Ready {
                self.run_sched()?;
                continue;
            }
            if let Some(c) = self.cur {
                if self.runrun && !self.kernel {
                    self.preempt(c);
                    continue;
                }
                return Ok(());
            }
            if !self.swtch() {
                return Ok(());
            }
        }
        Err(SysError::Invalid {
            origin: "engine".into(),
            path: format!("t={}", self.now.as_secs_f64()),
            what: "the scheduler did not settle: expected a finite number of switches".into(),
        })
    }

    /// `swtch`: selects a process; `false` when none is runnable (the CPU idles).
    fn swtch(&mut self) -> bool {
        self.runrun = false;
        let n = self.procs.len();
        let mut best: Option<usize> = None;
        for k in 1..=n {
            let i = (self.last_slot + k) % n;
            let p = &self.procs[i];
            if p.stat == Stat::Run && p.loaded && !p.locked {
                match best {
                    Some(b) if self.procs[b].pri <= p.pri => {}
                    _ => best = Some(i),
                }
            }
        }
        let Some(i) = best else {
            return false;
        };
        self.last_slot = i;
        let now = self.now;
        let warm = self.warm;
        let min_pri = self.spec.scheduler.reaction_min_pri;
        let p = &mut self.procs[i];
        if let Some(w) = p.woke_at.take() {
            if p.sleep_pri >= min_pri {
                let r = ms(now - w);
                self.st.reaction_n += 1.0;
                self.st.reaction_ms += r;
                if self.spec.login.is_some() {
                    self.recent.push_back((now, r));
                }
                if warm {
                    p.reaction_ms += r;
                    p.reactions += 1;
                    self.reactions.push(r);
                }
            }
        }
        self.st.cpu_waits += 1.0;
        self.st.cpu_wait_ms += ms(now - p.ready_since);
        p.overhead_ns += self.switch_ns;
        let from_sleep = std::mem::take(&mut p.from_sleep);
        self.curpri = p.pri;
        self.cur = Some(i);
        self.stretch_start = now;
        self.st.stretches += 1.0;
        if from_sleep && self.syscall_ns > 0 {
            // The rest of the system call, in kernel mode: not preemptible.
            self.kernel = true;
            self.compute_start = now;
            self.cpu_end = now + Tick(self.syscall_ns);
            return true;
        }
        self.return_to_user(i);
        true
    }

    /// Return to user mode: `setpri`, then switch if `runrun`, else the program continues.
    fn return_to_user(&mut self, i: usize) {
        self.setpri(i);
        if self.runrun {
            self.preempt(i);
        } else {
            self.do_user(i);
        }
    }

    fn setpri(&mut self, i: usize) {
        let s = &self.spec.scheduler;
        let p = &mut self.procs[i];
        let pri = (s.puser + (p.cpu / 16) as i32).min(127);
        if pri > self.curpri {
            self.runrun = true;
        }
        p.pri = pri;
    }

    fn preempt(&mut self, i: usize) {
        self.stop_cpu(i);
        self.procs[i].ready_since = self.now;
    }

    /// Takes process `i` off the CPU, saving what is left of its compute stretch.
    fn stop_cpu(&mut self, i: usize) {
        if self.cur != Some(i) {
            return;
        }
        let now = self.now;
        let p = &mut self.procs[i];
        if self.kernel {
            self.kernel = false;
            p.cpu_ns += (now - self.compute_start).as_ns();
        } else if self.cpu_end != Tick::NEVER {
            let mut used = (now - self.compute_start).as_ns();
            let o = used.min(p.overhead_ns);
            p.overhead_ns -= o;
            used -= o;
            p.left_ns = p.left_ns.saturating_sub(used);
            p.cpu_ns += (now - self.compute_start).as_ns();
        }
        self.cur = None;
        self.cpu_end = Tick::NEVER;
    }

    fn compute_done(&mut self) {
        let Some(i) = self.cur else { return };
        if self.kernel {
            self.kernel = false;
            self.procs[i].cpu_ns += (self.now - self.compute_start).as_ns();
            self.cpu_end = Tick::NEVER;
            self.return_to_user(i);
            return;
        }
        let p = &mut self.procs[i];
        p.cpu_ns += (self.now - self.compute_start).as_ns();
        p.left_ns = 0;
        p.overhead_ns = 0;
        p.step = Step::Disk;
        self.cpu_end = Tick::NEVER;
        self.do_user(i);
    }

    /// The prototype loop, from the running process's current step until it computes or sleeps.
    fn do_user(&mut self, i: usize) {
        let w = self.spec.workload.clone();
        loop {
            match self.procs[i].step {
                Step::Compute => {
                    let p = &mut self.procs[i];
                    if p.left_ns == 0 {
                        p.left_ns =
                            (exponential(&mut p.rng, w.cpu_ms) * 1e6).round().max(1.0) as u64;
                    }
                    self.compute_start = self.now;
                    self.cpu_end = self.now + Tick(p.left_ns + p.overhead_ns);
                    return;
                }
                Step::Disk => {
                    let p = &mut self.procs[i];
                    p.overhead_ns += self.syscall_ns;
                    p.step = Step::SleepCall;
                    p.disk_ios += 1;
                    p.loops += 1;
                    self.st.loops += 1.0;
                    let req = self.file_request(i);
                    self.submit(req);
                    self.sleep(i, PRIBIO);
                    return;
                }
                Step::SleepCall => {
                    let p = &mut self.procs[i];
                    p.step = Step::TtyStart;
                    if p.rng.gen::<f64>() < w.sleep_probability {
                        p.overhead_ns += self.syscall_ns;
                        let n = p.rng.gen_range(w.sleep_min_s..=w.sleep_max_s);
                        p.timer_s = self.now.as_ns() / 1_000_000_000 + u64::from(n);
                        self.sleep(i, PSLEP);
                        return;
                    }
                }
                Step::TtyStart => {
                    let p = &mut self.procs[i];
                    p.step = Step::Compute;
                    if p.rng.gen::<f64>() < w.tty_probability {
                        p.overhead_ns += self.syscall_ns;
                        let q = 1.0 - 1.0 / w.tty_chars_mean;
                        let u: f64 = p.rng.gen_range(f64::MIN_POSITIVE..1.0);
                        let k = if q <= 0.0 {
                            1.0
                        } else {
                            1.0 + (u.ln() / q.ln()).floor()
                        };
                        p.tty_left = k.min(1e6) as u32;
                        p.step = Step::TtyWrite;
                    }
                }
                Step::TtyWrite => {
                    let t = &self.spec.terminal;
                    let (cps, hi, lo) = (
                        t.chars_per_s,
                        f64::from(t.high_water),
                        f64::from(t.low_water),
                    );
                    let now = self.now;
                    let p = &mut self.procs[i];
                    let drained = (now - p.tty_t).as_secs_f64() * cps;
                    p.tty_q = (p.tty_q - drained).max(0.0);
                    p.tty_t = now;
                    let room = (hi + 1.0 - p.tty_q).max(0.0);
                    if f64::from(p.tty_left) <= room {
                        p.tty_q += f64::from(p.tty_left);
                        p.tty_left = 0;
                        p.step = Step::Compute;
                    } else {
                        p.tty_left -= room.floor() as u32;
                        p.tty_q += room.floor();
                        let wait = ((p.tty_q - lo) / cps).max(0.0);
                        self.q
                            .schedule(now + Tick::from_secs_f64(wait), Ev::TtyWake(i as u32));
                        self.sleep(i, TTOPRI);
                        return;
                    }
                }
            }
        }
    }

    fn sleep(&mut self, i: usize, pri: i32) {
        self.stop_cpu(i);
        let p = &mut self.procs[i];
        p.stat = if pri < 0 {
            Stat::SleepHigh
        } else {
            Stat::SleepLow
        };
        p.pri = pri;
        p.sleep_pri = pri;
        if pri >= 0 && self.sched == SchedState::Runin {
            self.sched = SchedState::Ready;
        }
    }

    /// `wakeup` / `setrun`.
    fn wakeup(&mut self, i: usize) {
        let now = self.now;
        let p = &mut self.procs[i];
        if !matches!(p.stat, Stat::SleepHigh | Stat::SleepLow) {
            return;
        }
        p.stat = Stat::Run;
        p.from_sleep = true;
        p.woke_at = Some(now);
        p.ready_since = now;
        if p.pri < self.curpri {
            self.runrun = true;
        }
        if !p.loaded && self.sched == SchedState::Runout {
            self.sched = SchedState::Ready;
        }
    }

    fn clock(&mut self, k: u64) {
        if let Some(c) = self.cur {
            let p = &mut self.procs[c];
            p.cpu = (p.cpu + 1).min(255);
        }
        if k.is_multiple_of(self.tick_hz) {
            let sec = k / self.tick_hz;
            let s = self.spec.scheduler.clone();
            for i in 0..self.procs.len() {
                let p = &mut self.procs[i];
                if p.stat == Stat::Gone {
                    continue;
                }
                p.time = p.time.saturating_add(1).min(127);
                p.cpu = p.cpu.saturating_sub(s.schmag);
                if p.pri > s.puser {
                    self.setpri(i);
                }
            }
            for i in 0..self.procs.len() {
                let p = &self.procs[i];
                if p.stat == Stat::SleepLow && p.sleep_pri == PSLEP && p.timer_s <= sec {
                    self.procs[i].timer_s = u64::MAX;
                    self.wakeup(i);
                }
            }
            if self.sched == SchedState::Runin {
                self.sched = SchedState::Ready;
            }
            if s.forced_switch_s > 0 && sec.is_multiple_of(u64::from(s.forced_switch_s)) {
                self.runrun = true;
            }
            if let Some(c) = self.cur {
                if !self.kernel {
                    self.setpri(c);
                }
            }
        }
        let next = self.tick_time(k + 1);
        if next < self.end {
            self.q.schedule(next, Ev::Clock(k + 1));
        }
    }

    fn views(&self) -> (Vec<ProcView>, Vec<TextView>) {
        let procs = self
            .procs
            .iter()
            .map(|p| ProcView {
                stat: p.stat,
                loaded: p.loaded,
                locked: p.locked,
                time: p.time,
                size: p.size,
                text: p.text,
            })
            .collect();
        let texts = self
            .texts
            .iter()
            .map(|t| TextView {
                size: t.size,
                in_core: t.in_core,
            })
            .collect();
        (procs, texts)
    }

    /// One decision of the swapper, carried out.
    fn run_sched(&mut self) -> Result<(), SysError> {
        let (procs, texts) = self.views();
        let params = SwapperParams {
            out_min_s: self.spec.swapper.out_min_s,
            in_min_s: self.spec.swapper.in_min_s,
        };
        match decide(&procs, &texts, &self.core, params) {
            Verdict::Idle => self.sched = SchedState::Runout,
            Verdict::Wait { .. } => {
                self.sched = SchedState::Runin;
                self.st.sched_wait_runin += 1.0;
            }
            Verdict::SwapIn {
                proc,
                need,
                with_text,
                ..
            } => {
                let a = self
                    .core
                    .alloc(need)
                    .ok_or_else(|| self.engine_err("swap-in"))?;
                let mut text_first = None;
                let mut image_at = a;
                if let Some(t) = self.procs[proc].text {
                    if with_text {
                        self.texts[t].core = Some(a);
                        image_at = a + self.texts[t].size;
                        text_first = Some(self.texts[t].size);
                    }
                    self.texts[t].in_core += 1;
                }
                let p = &mut self.procs[proc];
                p.core = Some(image_at);
                p.locked = true;
                let clicks = text_first.unwrap_or(p.size);
                let block = p.swap.unwrap_or(self.spec.swapper.swap_base);
                self.job = Some(SwapJob::In {
                    proc,
                    text_first,
                    started: self.now,
                });
                self.sched = SchedState::Io;
                let req = self.swap_request(block, clicks);
                self.submit(req);
            }
            Verdict::SwapOut { victim, .. } => {
                self.stop_cpu(victim);
                let swap_blocks = self.procs[victim].size.div_ceil(8);
                let s = self
                    .swapmap
                    .alloc(swap_blocks)
                    .ok_or_else(|| no_swap("a swap-out"))?;
                if let Some(t) = self.procs[victim].text {
                    let tx = &mut self.texts[t];
                    tx.in_core -= 1;
                    if tx.in_core == 0 {
                        if let Some(a) = tx.core.take() {
                            self.core
                                .free(tx.size, a)
                                .map_err(|e| self.engine_err(&e))?;
                        }
                    }
                }
                let p = &mut self.procs[victim];
                p.loaded = false;
                p.locked = true;
                p.swap = Some(s);
                let size = p.size;
                self.job = Some(SwapJob::Out {
                    proc: victim,
                    started: self.now,
                });
                self.sched = SchedState::Io;
                let req = self.swap_request(s, size);
                self.submit(req);
            }
        }
        Ok(())
    }

    fn engine_err(&self, what: &str) -> SysError {
        SysError::Invalid {
            origin: "engine".into(),
            path: format!("t={}", self.now.as_secs_f64()),
            what: format!("core map inconsistent at {what}: expected the swapper's hole"),
        }
    }

    fn swap_request(&self, block: u32, clicks: u32) -> Req {
        let bytes = u64::from(clicks) * u64::from(self.spec.memory.click_bytes);
        Req {
            kind: ReqKind::Swap,
            drive: self.spec.swapper.swap_drive,
            block,
            sectors: bytes.div_ceil(512).max(1) as u32,
            queued: self.now,
        }
    }

    fn file_request(&mut self, i: usize) -> Req {
        let d = &self.spec.disk;
        let s = &self.spec.swapper;
        let drive = self.disk_rng.gen_range(0..d.drives);
        let block = if drive == s.swap_drive {
            // The file system lies outside the swap area.
            let outside = d.blocks_per_drive - s.swap_blocks;
            let b = self.disk_rng.gen_range(0..outside.max(1));
            if b >= s.swap_base {
                b + s.swap_blocks
            } else {
                b
            }
        } else {
            self.disk_rng.gen_range(0..d.blocks_per_drive)
        };
        Req {
            kind: ReqKind::File(i as u32),
            drive,
            block,
            sectors: 1,
            queued: self.now,
        }
    }

    fn submit(&mut self, r: Req) {
        self.disk_q.push_back(r);
        if self.disk_busy.is_none() {
            self.start_disk();
        }
    }

    fn start_disk(&mut self) {
        let Some(r) = self.disk_q.pop_front() else {
            return;
        };
        let d = &self.spec.disk;
        let cyl = r.block / d.blocks_per_cylinder;
        let cyls = d.blocks_per_drive.div_ceil(d.blocks_per_cylinder);
        let dist = cyl.abs_diff(self.arm[r.drive as usize]);
        let seek_ms = if dist == 0 {
            0.0
        } else {
            let span = f64::from(cyls.saturating_sub(2).max(1));
            d.seek_min_ms
                + (d.seek_max_ms - d.seek_min_ms) * (f64::from(dist - 1) / span).sqrt().min(1.0)
        };
        let latency_ms = self.disk_rng.gen::<f64>() * d.rotation_ms;
        let transfer_ms = f64::from(r.sectors) * d.rotation_ms / f64::from(d.sectors_per_track);
        let last_block = (r.block + r.sectors.saturating_sub(1)).min(d.blocks_per_drive - 1);
        self.arm[r.drive as usize] = last_block / d.blocks_per_cylinder;
        self.st.disk_reqs += 1.0;
        self.st.disk_queue_wait_ms += ms(self.now - r.queued);
        let t = Tick::from_secs_f64((seek_ms + latency_ms + transfer_ms) / 1e3).max(Tick(1));
        self.disk_busy = Some(r);
        self.q.schedule(self.now + t, Ev::DiskDone);
    }

    fn disk_done(&mut self) -> Result<(), SysError> {
        let Some(r) = self.disk_busy.take() else {
            return Ok(());
        };
        self.start_disk();
        match r.kind {
            ReqKind::File(p) => {
                self.st.file_ios += 1.0;
                self.st.file_wait_ms += ms(self.now - r.queued);
                self.wakeup(p as usize);
            }
            ReqKind::Swap => self.swap_io_done()?,
        }
        Ok(())
    }

    fn swap_io_done(&mut self) -> Result<(), SysError> {
        match self.job.take() {
            Some(SwapJob::In {
                proc,
                text_first: Some(_),
                started,
            }) => {
                // The text is in; now the image.
                let p = &self.procs[proc];
                let req = self.swap_request(p.swap.unwrap_or(self.spec.swapper.swap_base), p.size);
                self.job = Some(SwapJob::In {
                    proc,
                    text_first: None,
                    started,
                });
                self.submit(req);
            }
            Some(SwapJob::In {
                proc,
                text_first: None,
                started,
            }) => {
                let now = self.now;
                let p = &mut self.procs[proc];
                if let Some(s) = p.swap.take() {
                    self.swapmap
                        .free(p.size.div_ceil(8), s)
                        .map_err(|e| SysError::Invalid {
                            origin: "engine".into(),
                            path: "swapper".into(),
                            what: format!("swap map: {e}"),
                        })?;
                }
                p.loaded = true;
                p.locked = false;
                p.time = 0;
                p.ready_since = now;
                let size = p.size;
                if p.stat == Stat::Run && p.pri < self.curpri {
                    self.runrun = true;
                }
                self.st.swap_ins += 1.0;
                self.st.swap_clicks += f64::from(size);
                self.st.swap_ops_ms += ms(now - started);
                self.sched = SchedState::Ready;
            }
            Some(SwapJob::Out { proc, started }) => {
                let p = &mut self.procs[proc];
                if let Some(a) = p.core.take() {
                    self.core.free(p.size, a).map_err(|e| SysError::Invalid {
                        origin: "engine".into(),
                        path: "swapper".into(),
                        what: format!("core map: {e}"),
                    })?;
                }
                p.locked = false;
                p.time = 0;
                p.swap_outs += 1;
                let size = p.size;
                self.st.swap_outs += 1.0;
                self.st.swap_clicks += f64::from(size);
                self.st.swap_ops_ms += ms(self.now - started);
                self.sched = SchedState::Ready;
            }
            None => {}
        }
        Ok(())
    }

    /// Conservation of core: the clicks held by images and texts plus the free clicks equal
    /// the swappable core, and no two holdings overlap; likewise for swap space.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut held: Vec<(u32, u32)> = Vec::new();
        for (i, p) in self.procs.iter().enumerate() {
            if p.loaded && p.core.is_none() {
                return Err(format!("process {i} is loaded but holds no core"));
            }
            if p.stat == Stat::Run && p.loaded && p.locked && self.cur == Some(i) {
                return Err(format!("process {i} runs while locked"));
            }
            if let Some(a) = p.core {
                held.push((a, p.size));
            }
        }
        for t in &self.texts {
            if let Some(a) = t.core {
                held.push((a, t.size));
            }
        }
        held.extend_from_slice(self.core.extents());
        held.sort_unstable();
        let mut at = 0;
        for &(a, n) in &held {
            if a < at {
                return Err(format!("core extent ({a}, {n}) overlaps another"));
            }
            at = a + n;
        }
        let total: u32 = held.iter().map(|h| h.1).sum();
        if total != self.core.capacity() {
            return Err(format!(
                "core: {total} clicks accounted for, {} in the map",
                self.core.capacity()
            ));
        }
        let text_blocks: u32 = self.texts.iter().map(|t| t.size.div_ceil(8)).sum();
        let swap_held: u32 = self
            .procs
            .iter()
            .filter(|p| p.swap.is_some())
            .map(|p| p.size.div_ceil(8))
            .sum();
        if swap_held + text_blocks + self.swapmap.free_total() != self.swapmap.capacity() {
            return Err(format!(
                "swap: {} blocks held, {} free, {} in the map",
                swap_held + text_blocks,
                self.swapmap.free_total(),
                self.swapmap.capacity()
            ));
        }
        if let Some(c) = self.cur {
            let p = &self.procs[c];
            if p.stat != Stat::Run || !p.loaded {
                return Err(format!("running process {c} is not ready in core"));
            }
        }
        Ok(())
    }

    fn report(&mut self) -> Report {
        let d = self.st.since(&self.warm_st);
        let w = &self.spec.workload;
        let t = d.time_s.max(f64::MIN_POSITIVE);
        let swaps = d.swap_ins + d.swap_outs;
        let mut m = BTreeMap::new();
        let mut put = |name: &str, value: f64, unit: &str, desc: &str| {
            put_metric(&mut m, name, value, unit, desc)
        };
        put(
            "reaction_time_ms",
            ratio(d.reaction_ms, d.reaction_n),
            "ms",
            "Mean priority-based reaction time: wake-up to selection, sleeps at TTIPRI or lower (Chanson §2.B).",
        );
        put(
            "reactions",
            d.reaction_n,
            "count",
            "Reaction times observed.",
        );
        put(
            "swap_rate",
            swaps / t,
            "1/s",
            "Swap operations (in and out) per second.",
        );
        put("swap_ins", d.swap_ins, "count", "Images swapped in.");
        put("swap_outs", d.swap_outs, "count", "Images swapped out.");
        put(
            "swap_interval_s",
            if swaps > 0.0 { t / swaps } else { f64::NAN },
            "s",
            "Real time between successive swaps (Chanson Figure 1).",
        );
        put(
            "swap_wait_ms",
            ratio(d.swap_ops_ms, swaps),
            "ms",
            "Mean swap wait: queue plus transfer per swap operation (Chanson §2.C).",
        );
        put(
            "swap_kb_per_s",
            d.swap_clicks * f64::from(self.spec.memory.click_bytes) / 1024.0 / t,
            "KB/s",
            "Swap traffic.",
        );
        put(
            "disk_queue_length",
            d.disk_len_s / t,
            "requests",
            "Time-average requests at the disk controller (queued and in service).",
        );
        put(
            "disk_wait_ms",
            ratio(d.file_wait_ms, d.file_ios),
            "ms",
            "Mean file-system I/O wait: queue plus service.",
        );
        put(
            "disk_queue_wait_ms",
            ratio(d.disk_queue_wait_ms, d.disk_reqs),
            "ms",
            "Mean wait in the disk queue before service, every request.",
        );
        put(
            "disk_io_rate",
            d.file_ios / t,
            "1/s",
            "File-system block I/Os per second.",
        );
        put(
            "disk_request_rate",
            d.disk_reqs / t,
            "1/s",
            "Requests served by the disk controller, file-system blocks and swap transfers (Chanson's disk waits).",
        );
        put(
            "disk_busy_pct",
            100.0 * d.disk_busy_s / t,
            "%",
            "Disk controller busy.",
        );
        put(
            "cpu_interval_ms",
            ratio(d.cpu_busy_s * 1e3, d.stretches),
            "ms",
            "Mean CPU interval: time a process holds the CPU between context switches.",
        );
        put(
            "cpu_wait_ms",
            ratio(d.cpu_wait_ms, d.cpu_waits),
            "ms",
            "Mean wait of a ready process in core for the CPU.",
        );
        put("cpu_busy_pct", 100.0 * d.cpu_busy_s / t, "%", "CPU busy.");
        put(
            "in_core",
            d.in_core_s / t,
            "processes",
            "Mean processes in core.",
        );
        put(
            "processes_mean",
            d.procs_s / t,
            "processes",
            "Mean processes in the table (logins add them).",
        );
        put(
            "processes_end",
            self.procs.len() as f64,
            "processes",
            "Processes at the end of the run.",
        );
        put(
            "logins_admitted",
            d.logins_admitted,
            "count",
            "Login attempts admitted (Chanson §4.3).",
        );
        put(
            "logins_refused",
            d.logins_refused,
            "count",
            "Login attempts refused: reaction time over the threshold.",
        );
        put(
            "logins_full",
            d.logins_full,
            "count",
            "Login attempts refused: process table or swap space full.",
        );
        put(
            "loop_rate",
            d.loops / t,
            "1/s",
            "Prototype loops completed per second.",
        );
        put(
            "pctrmm",
            self.spec.pctrmm(),
            "%",
            "PCTRMM = 100 (MM − PN·PS)/MM (Chanson §3).",
        );
        put("pn", f64::from(w.processes), "processes", "PN.");
        put(
            "ps",
            f64::from(w.size_clicks),
            "clicks",
            "PS, mean process size.",
        );
        put(
            "pc_ms",
            w.cpu_ms,
            "ms",
            "PC, mean CPU time between disk I/Os.",
        );
        put(
            "mm",
            f64::from(self.spec.memory.core_clicks),
            "clicks",
            "MM, swappable main memory.",
        );
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
            "s", "count", "ms", "count", "count", "count", "%", "requests",
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
            metrics: m,
            intervals: IntervalTable {
                columns,
                units,
                rows,
            },
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

fn no_swap(what: &str) -> SysError {
    SysError::Invalid {
        origin: "spec".into(),
        path: "swapper.swap_blocks".into(),
        what: format!("out of swap space for {what}: expected a larger swap area"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine(overrides: &[(&str, &str)]) -> Machine {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../presets/unix-v6.toml");
        let text = std::fs::read_to_string(path).unwrap();
        let o: Vec<(String, String)> = overrides
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let spec = super::super::load_spec(&text, "unix-v6.toml", &o).unwrap();
        Machine::build(&spec, 1).unwrap()
    }

    #[test]
    fn initial_placement_is_first_fit_and_the_rest_start_on_swap() {
        // 1024 clicks hold five 200-click images; three go to swap at 25 blocks each.
        let m = machine(&[]);
        let loaded: Vec<Option<u32>> = m.procs.iter().map(|p| p.core).collect();
        assert_eq!(
            loaded,
            vec![
                Some(0),
                Some(200),
                Some(400),
                Some(600),
                Some(800),
                None,
                None,
                None
            ]
        );
        assert_eq!(m.core.free_total(), 24);
        assert_eq!(m.swapmap.free_total(), 872 - 3 * 25);
        m.check_invariants().unwrap();
    }

    #[test]
    fn the_login_model_refuses_the_process_that_would_cross_the_threshold() {
        // 1024 clicks, eight 200-click processes: PCTRMM with a ninth is 100 (1024 − 1800)/1024
        // = −75.8 %. Eq. 1 (588 − 16.9 P) predicts 1869 ms: refused at 1800 ms, admitted at 1900.
        for (threshold, admitted) in [("1800.0", 0.0), ("1900.0", 1.0)] {
            let mut m = machine(&[
                ("login.arrival_s", "30.0"),
                ("login.threshold_ms", threshold),
                ("login.window_s", "60.0"),
                ("login.model", "{ intercept_ms = 588.0, slope_ms = -16.9 }"),
                ("login.max_processes", "9"),
            ]);
            assert!((m.pctrmm_with_newcomer() - 100.0 * (1024.0 - 1800.0) / 1024.0).abs() < 1e-9);
            m.login();
            assert_eq!(m.st.logins_admitted, admitted, "threshold {threshold}");
            assert_eq!(m.st.logins_refused, 1.0 - admitted, "threshold {threshold}");
        }
    }

    #[test]
    fn setpri_is_puser_plus_cpu_over_16_capped_at_127() {
        let mut m = machine(&[]);
        m.curpri = 200;
        m.procs[0].cpu = 160;
        m.setpri(0);
        assert_eq!(m.procs[0].pri, 110);
        m.procs[0].cpu = 255;
        m.setpri(0);
        assert_eq!(m.procs[0].pri, 115);
        assert!(!m.runrun);
        // A priority worse than the running one's asks for a switch.
        m.curpri = 100;
        m.setpri(0);
        assert!(m.runrun);
    }

    #[test]
    fn swtch_takes_the_lowest_priority_number_then_round_robin() {
        let mut m = machine(&[("machine.syscall_us", "0.0")]);
        for p in &mut m.procs {
            p.pri = 105;
        }
        m.procs[3].pri = PRIBIO;
        m.last_slot = 0;
        assert!(m.swtch());
        // The disk waiter is selected; on return to user its priority drops to 100 > −50,
        // so it yields at once (runrun) and the next in circular order after slot 3 among
        // the best priorities (itself at 100) runs.
        assert_eq!(m.last_slot, 3);
        assert_eq!(m.procs[3].pri, 100);
        assert!(m.runrun);
        assert_eq!(m.cur, None);
        assert!(m.swtch());
        assert_eq!(m.cur, Some(3));
        // Only loaded processes run: slots 5..8 are out.
        for p in &mut m.procs[..5] {
            p.stat = Stat::SleepLow;
        }
        m.cur = None;
        assert!(!m.swtch());
    }

    #[test]
    fn a_low_priority_sleep_wakes_the_swapper_on_runin() {
        let mut m = machine(&[]);
        m.sched = SchedState::Runin;
        m.sleep(0, PRIBIO);
        assert_eq!(m.sched, SchedState::Runin);
        m.sleep(1, TTOPRI);
        assert_eq!(m.sched, SchedState::Ready);
    }
}
