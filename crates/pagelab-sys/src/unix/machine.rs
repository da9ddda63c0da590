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

use super::bufcache::BufCache;
use super::callout::Tout;
use super::disk_request::Req;
use super::map::ResourceMap;
use super::process::{Proc, Role, Step, Text, USIZE};
use super::spec::UnixSpec;
use super::stats::{ratio, Stats};
use super::swapper::Stat;
use super::swapper::SwapJob;
use crate::device::{FifoQueue, Geometry};
use crate::SysError;
use pagelab_core::{EventQueue, Rng, RngStreams, Tick};
use rand::Rng as _;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ev {
    Clock(u64),
    DiskDone,
    TtyWake(u32),
    /// The handlers of the interrupts taken so far have finished.
    IntrDone,
    /// A command line typed at the console is complete.
    ConsoleLine,
    Login,
    Sample,
    WarmupEnded,
    End,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SchedState {
    /// Sleeping on `runout`.
    Runout,
    /// Sleeping on `runin`.
    Runin,
    /// Woken: decides at the next settle.
    Ready,
    /// Waiting for its swap I/O.
    Io,
}

/// The machine built from a [`UnixSpec`], ready to run.
pub struct Machine {
    pub(super) spec: UnixSpec,
    pub(super) seed: u64,
    pub(super) now: Tick,
    pub(super) last_t: Tick,
    pub(super) end: Tick,
    pub(super) warm: bool,
    pub(super) q: EventQueue<Ev>,
    pub(super) procs: Vec<Proc>,
    pub(super) texts: Vec<Text>,
    pub(super) core: ResourceMap,
    pub(super) swapmap: ResourceMap,
    pub(super) cur: Option<usize>,
    pub(super) kernel: bool,
    pub(super) cpu_end: Tick,
    pub(super) compute_start: Tick,
    pub(super) stretch_start: Tick,
    pub(super) last_slot: usize,
    pub(super) curpri: i32,
    pub(super) runrun: bool,
    pub(super) sched: SchedState,
    pub(super) job: Option<SwapJob>,
    /// The RK11's request queue (disk.rs).
    pub(super) disk: FifoQueue<Req>,
    pub(super) arm: Vec<u32>,
    /// The drives' seek law, rotation and sector transfer (the device catalogue's RK05).
    pub(super) disk_geom: Geometry,
    pub(super) disk_rng: Rng,
    pub(super) tick_hz: u64,
    pub(super) switch_ns: u64,
    pub(super) syscall_ns: u64,
    pub(super) st: Stats,
    pub(super) warm_st: Stats,
    pub(super) samples: Vec<Stats>,
    pub(super) reactions: Vec<f64>,
    pub(super) recent: VecDeque<(Tick, f64)>,
    pub(super) n_events: u64,
    pub(super) check_every: u64,
    pub(super) cache: BufCache,
    pub(super) buf_waiters: Vec<Vec<usize>>,
    pub(super) av_waiters: Vec<usize>,
    pub(super) tout: Tout,
    pub(super) intr_until: Tick,
    pub(super) intr_ev: Tick,
    pub(super) lines_pending: u32,
    pub(super) console: Option<usize>,
    pub(super) n_protos: u64,
    pub(super) sys_rng: Rng,
}

/// The components [`Machine::build`] wires from the spec ([`crate::systems::unix`]), which
/// [`Machine::assemble`] puts into the machine.
pub(crate) struct Parts {
    /// Core, in 64-byte clicks (`coremap`).
    pub(crate) core: ResourceMap,
    /// The swap area, in 512-byte blocks (`swapmap`).
    pub(crate) swapmap: ResourceMap,
    /// The drives' seek law, rotation and sector transfer, and their random stream.
    pub(crate) disk_geom: Geometry,
    pub(crate) disk_rng: Rng,
    /// The drives on the RK11's one queue.
    pub(crate) drives: usize,
    /// The block buffer cache (bio.c).
    pub(crate) cache: BufCache,
    /// The system processes' random stream.
    pub(crate) sys_rng: Rng,
}

impl Machine {
    /// The machine of `spec` made of `parts`: the shared text's swap copy allocated, processes
    /// created in table order and placed in core first fit while they fit (the rest start
    /// swapped out), the first events scheduled.
    pub(crate) fn assemble(spec: &UnixSpec, seed: u64, parts: Parts) -> Result<Machine, SysError> {
        let w = &spec.workload;
        let mut swapmap = parts.swapmap;
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
        let end = spec.run.duration_s.tick();
        let mut m = Machine {
            spec: spec.clone(),
            seed,
            now: Tick::ZERO,
            last_t: Tick::ZERO,
            end,
            warm: spec.run.warmup_s.get() <= 0.0,
            q: EventQueue::new(),
            procs: Vec::with_capacity(w.processes as usize),
            texts,
            core: parts.core,
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
            disk: FifoQueue::new(),
            arm: vec![0; parts.drives],
            disk_geom: parts.disk_geom,
            disk_rng: parts.disk_rng,
            tick_hz: u64::from(spec.machine.clock_hz),
            switch_ns: spec.machine.switch_us.ns(),
            syscall_ns: spec.machine.syscall_us.ns(),
            st: Stats::default(),
            warm_st: Stats::default(),
            samples: Vec::new(),
            reactions: Vec::new(),
            recent: VecDeque::new(),
            n_events: 0,
            check_every: 64,
            cache: parts.cache,
            buf_waiters: vec![Vec::new(); spec.buffers.count as usize],
            av_waiters: Vec::new(),
            tout: Tout::default(),
            intr_until: Tick::ZERO,
            intr_ev: Tick::ZERO,
            lines_pending: 0,
            console: None,
            n_protos: 0,
            sys_rng: parts.sys_rng,
        };
        m.start()?;
        Ok(m)
    }

    /// The system processes and the first prototypes, and the first events of the run.
    fn start(&mut self) -> Result<(), SysError> {
        let end = self.end;
        let login = self.spec.login.as_ref().map(|l| l.arrival_s);
        let interval = self.spec.monitor.interval_s.tick().max(Tick(1));
        let warmup = self.spec.run.warmup_s.tick();
        self.spawn_system()
            .map_err(|_| no_swap("the system processes"))?;
        for _ in 0..self.spec.workload.processes {
            self.spawn().map_err(|_| no_swap("the initial processes"))?;
        }
        if let Some(at) = login {
            self.q.schedule(at.tick(), Ev::Login);
        }
        self.q.schedule(self.tick_time(1), Ev::Clock(1));
        self.q.schedule(interval.min(end), Ev::Sample);
        if !self.warm {
            self.q.schedule(warmup, Ev::WarmupEnded);
        }
        self.q.schedule(end, Ev::End);
        Ok(())
    }

    /// `fork` of a new prototype process at the end of the table (see [`Machine::place`]).
    /// Its random stream is keyed by its number among the prototypes, its file lies at a
    /// random place in the file system (outside the swap area) of a random drive.
    pub(super) fn spawn(&mut self) -> Result<(), ()> {
        let w = &self.spec.workload;
        let mut rng = RngStreams::new(self.seed).stream("v6-proc", self.n_protos);
        self.n_protos += 1;
        let u: f64 = rng.gen();
        let size = (f64::from(w.size_clicks) * (1.0 + w.size_spread * (2.0 * u - 1.0)))
            .round()
            .max(f64::from(USIZE + 1)) as u32;
        let text = (w.text_clicks > 0).then_some(0);
        let file = self.place_file(&mut rng, w.file_blocks);
        let p = self.new_proc(Role::Prototype, size, text, rng, file);
        self.place(p)
    }

    /// A process-table entry, ready to run, not yet placed.
    pub(super) fn new_proc(
        &self,
        role: Role,
        size: u32,
        text: Option<usize>,
        rng: Rng,
        file: (u32, u32),
    ) -> Proc {
        Proc {
            role,
            bio: None,
            file,
            file_next: 0,
            last_read: None,
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
            woke_out: false,
            from_sleep: false,
            ready_since: self.now,
            tty_q: 0.0,
            tty_t: self.now,
            tty_left: 0,
            next_sleep_ns: 0,
            next_tty_ns: 0,
            rng,
            loops: 0,
            cpu_ns: 0,
            disk_ios: 0,
            swap_outs: 0,
            reaction_ms: 0.0,
            reactions: 0,
        }
    }

    /// Places a new process: in core first fit if there is room (with its text if none of
    /// the text's users is in core), else its image goes to swap (V6 `newproc`,
    /// fidelity-notes §1.3). `Err` when swap space is exhausted.
    pub(super) fn place(&mut self, mut p: Proc) -> Result<(), ()> {
        let (size, text) = (p.size, p.text);
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
    pub(super) fn login(&mut self) {
        let Some(l) = self.spec.login.clone() else {
            return;
        };
        let from = self.now.saturating_sub(l.window_s.tick());
        while self.recent.front().is_some_and(|r| r.0 < from) {
            self.recent.pop_front();
        }
        let n = self.recent.len() as f64;
        let measured = ratio(self.recent.iter().map(|r| r.1).sum(), n);
        let protos = self
            .procs
            .iter()
            .filter(|p| p.role == Role::Prototype)
            .count();
        if protos as u32 >= l.max_processes {
            self.st.logins_full += 1.0;
        } else if measured > l.threshold_ms.get()
            || l.model.as_ref().is_some_and(|m| {
                m.intercept_ms + m.slope_ms * self.pctrmm_with_newcomer() > l.threshold_ms.get()
            })
        {
            self.st.logins_refused += 1.0;
        } else if self.spawn().is_ok() {
            self.st.logins_admitted += 1.0;
        } else {
            self.st.logins_full += 1.0;
        }
        let next = self.now + l.arrival_s.tick().max(Tick(1));
        if next < self.end {
            self.q.schedule(next, Ev::Login);
        }
    }

    /// PCTRMM (Chanson §3) of the processes now in the table plus one more of mean size.
    pub(super) fn pctrmm_with_newcomer(&self) -> f64 {
        let mm = f64::from(self.spec.memory.core_clicks);
        let total: f64 = self
            .procs
            .iter()
            .filter(|p| p.role == Role::Prototype)
            .map(|p| f64::from(p.size))
            .sum::<f64>()
            + f64::from(self.spec.workload.size_clicks);
        100.0 * (mm - total) / mm
    }

    /// In debug builds, check conservation every `n` events (default 64; 1 checks after
    /// every event). Release builds never check.
    pub fn set_check_every(&mut self, n: u64) {
        self.check_every = n.max(1);
    }

    pub(super) fn tick_time(&self, k: u64) -> Tick {
        Tick((u128::from(k) * 1_000_000_000 / u128::from(self.tick_hz)) as u64)
    }

    pub(super) fn advance(&mut self, t: Tick) {
        if t > self.last_t {
            let dt = (t - self.last_t).as_secs_f64();
            self.st.time_s += dt;
            let in_disk = self.disk.len();
            self.st.disk_len_s += in_disk as f64 * dt;
            if self.disk.is_busy() {
                self.st.disk_busy_s += dt;
            }
            if self.cur.is_some() {
                self.st.cpu_busy_s += dt;
            } else if self.intr_until > self.last_t {
                self.st.cpu_busy_s += (self.intr_until.min(t) - self.last_t).as_secs_f64();
            }
            let loaded = self.procs.iter().filter(|p| p.loaded).count();
            self.st.in_core_s += loaded as f64 * dt;
            self.st.procs_s += self.procs.len() as f64 * dt;
            self.last_t = t;
        }
        self.now = self.now.max(t);
    }

    /// Runs the swapper if woken, preempts on `runrun`, and switches while the CPU is free.
    pub(super) fn settle(&mut self) -> Result<(), SysError> {
        for _ in 0..100_000 {
            if self.now < self.intr_until {
                // Nothing is selected while an interrupt handler runs (cpu.rs `interrupt`).
                if self.intr_ev != self.intr_until {
                    self.intr_ev = self.intr_until;
                    self.q.schedule(self.intr_until, Ev::IntrDone);
                }
                return Ok(());
            }
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
}

pub(super) fn no_swap(what: &str) -> SysError {
    SysError::Invalid {
        origin: "spec".into(),
        path: "swapper.swap_blocks".into(),
        what: format!("out of swap space for {what}: expected a larger swap area"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::unix::process::{PRIBIO, TTOPRI};

    pub(super) fn machine(overrides: &[(&str, &str)]) -> Machine {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../presets/unix-v6.toml");
        let text = std::fs::read_to_string(path).unwrap();
        // The prototypes alone unless a test adds the system's processes.
        let bare = [
            ("system_processes.init_clicks", "0"),
            ("system_processes.update_clicks", "0"),
            ("system_processes.gettys", "0"),
            ("system_processes.shell_clicks", "0"),
        ];
        let o: Vec<(String, String)> = bare
            .iter()
            .chain(overrides.iter())
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let spec = super::super::load_spec(&text, "unix-v6.toml", &o).unwrap();
        Machine::build(&spec, 1).unwrap()
    }

    #[test]
    pub(super) fn initial_placement_is_first_fit_and_the_rest_start_on_swap() {
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
    pub(super) fn the_login_model_refuses_the_process_that_would_cross_the_threshold() {
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
    fn the_presets_drives_are_the_catalogues_rk05() {
        use crate::device::{Disk, Timing};
        let m = machine(&[]);
        assert_eq!(
            Disk::Rk05.timing(512, 0.0),
            Timing::Mechanical(m.disk_geom),
            "presets/unix-v6.toml [disk] and the catalogue's RK05 differ"
        );
    }

    #[test]
    pub(super) fn setpri_is_puser_plus_cpu_over_16_capped_at_127() {
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
    pub(super) fn a_wakeup_preempts_only_under_the_v6_reading() {
        for (preempts, want) in [("true", true), ("false", false)] {
            let mut m = machine(&[("scheduler.wakeup_preempts", preempts)]);
            m.curpri = 105;
            m.procs[0].stat = Stat::SleepLow;
            m.procs[0].pri = 90;
            m.wakeup(0);
            assert_eq!(m.procs[0].stat, Stat::Run);
            // V6 `setrun`: a better priority than the running one's sets `runrun`; CHANSON
            // §3.1's reading leaves the running request alone.
            assert_eq!(m.runrun, want, "wakeup_preempts = {preempts}");
        }
    }

    #[test]
    pub(super) fn swtch_takes_the_lowest_priority_number_then_round_robin() {
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
    pub(super) fn a_low_priority_sleep_wakes_the_swapper_on_runin() {
        let mut m = machine(&[]);
        m.sched = SchedState::Runin;
        m.sleep(0, PRIBIO);
        assert_eq!(m.sched, SchedState::Runin);
        m.sleep(1, TTOPRI);
        assert_eq!(m.sched, SchedState::Ready);
    }
}
