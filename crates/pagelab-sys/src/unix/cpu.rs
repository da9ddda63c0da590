//! CPU scheduling: `swtch`, `setpri`, `sleep`/`wakeup` and the clock (V6 slp.c, clock.c;
//! fidelity-notes §1.4-1.5). Preemption only on return to user mode with `runrun` set (m45.s).

use super::machine::*;
use super::process::*;
use super::stats::ms;
use super::swapper::Stat;
use pagelab_core::Tick;

impl Machine {
    /// `swtch`: selects a process; `false` when none is runnable (the CPU idles).
    pub(super) fn swtch(&mut self) -> bool {
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
                if p.woke_out {
                    self.st.reaction_out_n += 1.0;
                    self.st.reaction_out_ms += r;
                }
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
        self.resume(i);
        true
    }

    /// The kernel half of a system call the process slept in (a block access, `sslep`'s
    /// loop), then the return to user mode if it does not sleep again.
    pub(super) fn resume(&mut self, i: usize) {
        if self.kernel_steps(i) {
            self.return_to_user(i);
        }
    }

    /// Return to user mode: `setpri`, then switch if `runrun`, else the program continues.
    pub(super) fn return_to_user(&mut self, i: usize) {
        self.setpri(i);
        if self.runrun {
            self.preempt(i);
        } else {
            self.proceed(i);
        }
    }

    pub(super) fn setpri(&mut self, i: usize) {
        let s = &self.spec.scheduler;
        let p = &mut self.procs[i];
        let pri = (s.puser + (p.cpu / 16) as i32).min(127);
        if pri > self.curpri {
            self.runrun = true;
        }
        p.pri = pri;
    }

    pub(super) fn preempt(&mut self, i: usize) {
        self.stop_cpu(i);
        self.procs[i].ready_since = self.now;
    }

    /// Takes process `i` off the CPU, saving what is left of its compute stretch.
    pub(super) fn stop_cpu(&mut self, i: usize) {
        if self.cur != Some(i) {
            return;
        }
        let now = self.now;
        let p = &mut self.procs[i];
        if self.kernel {
            self.kernel = false;
            p.cpu_ns += now.saturating_sub(self.compute_start).as_ns();
        } else if self.cpu_end != Tick::NEVER {
            let mut used = now.saturating_sub(self.compute_start).as_ns();
            let o = used.min(p.overhead_ns);
            p.overhead_ns -= o;
            used -= o;
            p.left_ns = p.left_ns.saturating_sub(used);
            p.cpu_ns += now.saturating_sub(self.compute_start).as_ns();
        }
        self.cur = None;
        self.cpu_end = Tick::NEVER;
    }

    pub(super) fn compute_done(&mut self) {
        let Some(i) = self.cur else { return };
        if self.kernel {
            self.kernel = false;
            self.procs[i].cpu_ns += self.now.saturating_sub(self.compute_start).as_ns();
            self.cpu_end = Tick::NEVER;
            self.resume(i);
            return;
        }
        let p = &mut self.procs[i];
        p.cpu_ns += self.now.saturating_sub(self.compute_start).as_ns();
        p.left_ns = 0;
        p.overhead_ns = 0;
        p.step = Step::Compute;
        self.procs[i].step = self.after_compute(i);
        self.cpu_end = Tick::NEVER;
        self.proceed(i);
    }

    /// An interrupt of `cost_ns` taken now: its handler runs before anything else is selected
    /// (wake-ups it makes take effect when it returns; m45.s `call`), and the time is taken
    /// from the process it interrupts.
    pub(super) fn interrupt(&mut self, cost_ns: u64) {
        if cost_ns == 0 {
            return;
        }
        self.steal(cost_ns);
        self.intr_until = self.intr_until.max(self.now) + Tick(cost_ns);
        self.st.interrupts += 1.0;
    }

    /// Interrupt time that delays nothing but the process it interrupts: handlers of
    /// characters sent while the machine was busy elsewhere (charged when it learns of them).
    pub(super) fn steal(&mut self, cost_ns: u64) {
        match self.cur {
            Some(_) if self.cpu_end != Tick::NEVER => {
                self.cpu_end += Tick(cost_ns);
                self.compute_start += Tick(cost_ns);
            }
            Some(c) => self.procs[c].overhead_ns += cost_ns,
            None => self.st.cpu_busy_s += cost_ns as f64 / 1e9,
        }
        self.st.intr_s += cost_ns as f64 / 1e9;
    }

    pub(super) fn sleep(&mut self, i: usize, pri: i32) {
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
    pub(super) fn wakeup(&mut self, i: usize) {
        let now = self.now;
        let p = &mut self.procs[i];
        if !matches!(p.stat, Stat::SleepHigh | Stat::SleepLow) {
            return;
        }
        p.stat = Stat::Run;
        p.from_sleep = true;
        p.woke_at = Some(now);
        p.woke_out = !p.loaded;
        p.ready_since = now;
        if p.pri < self.curpri && self.spec.scheduler.wakeup_preempts {
            self.runrun = true;
        }
        if !p.loaded && self.sched == SchedState::Runout {
            self.sched = SchedState::Ready;
        }
    }

    pub(super) fn clock(&mut self, k: u64) {
        self.interrupt(self.spec.machine.clock_intr_us.ns());
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
            if self.tout.due(sec) {
                // wakeup(tout): every sleeper of sslep, due or not (callout.rs).
                for i in 0..self.procs.len() {
                    let p = &self.procs[i];
                    if p.stat == Stat::SleepLow && matches!(p.step, Step::Slept(_)) {
                        self.wakeup(i);
                    }
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
}
