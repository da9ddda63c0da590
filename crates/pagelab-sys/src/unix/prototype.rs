//! Running a process from its current step: Chanson's synthetic prototype (§2.D) and the
//! dispatch of every role's steps.
//!
//! The prototype's loop: a compute stretch (exponential, mean PC), one file-system block
//! access through the buffer cache (a read, or a read then a delayed write with probability
//! `write_fraction`), with some probability a `sleep(n)` call (sys2.c `sslep`, on `tout`),
//! with some probability terminal output (`ttwrite`), forever. System calls' CPU (`syscall_us`,
//! `bio_us`) is charged to the next compute stretch.

use super::machine::*;
use super::process::*;
use pagelab_core::random::exponential;
use pagelab_core::Tick;
use rand::Rng as _;

/// A process's own event clock (§2.D, `unix-sleeps-apart`): started at its first pass with an
/// exponential gap of mean `mean_s`; fires at the first pass at or after `next`, which then
/// moves an exponential gap on from now.
fn clock_fires(rng: &mut pagelab_core::random::Rng, next: &mut u64, now: u64, mean_s: f64) -> bool {
    let gap = |rng: &mut pagelab_core::random::Rng| (exponential(rng, mean_s) * 1e9).round() as u64;
    if *next == 0 {
        *next = now + gap(rng).max(1);
        return false;
    }
    if now < *next {
        return false;
    }
    *next = now + gap(rng).max(1);
    true
}

/// Whether a loop's sleep (or terminal write) comes now: on the process's own clock when
/// `every_s` > 0 ([`clock_fires`]), else with probability `probability` per loop.
fn event_due(
    rng: &mut pagelab_core::random::Rng,
    next: &mut u64,
    now: u64,
    every_s: f64,
    probability: f64,
) -> bool {
    if every_s > 0.0 {
        clock_fires(rng, next, now, every_s)
    } else {
        rng.gen::<f64>() < probability
    }
}

impl Machine {
    /// Runs process `i`, which holds the CPU, until it computes or sleeps.
    pub(super) fn proceed(&mut self, i: usize) {
        loop {
            if !self.kernel_steps(i) {
                return;
            }
            let w = &self.spec.workload;
            match self.procs[i].step {
                Step::Compute => {
                    let p = &mut self.procs[i];
                    if p.left_ns == 0 && p.role == Role::Prototype {
                        p.left_ns = (exponential(&mut p.rng, w.cpu_ms.get()) * 1e6)
                            .round()
                            .max(1.0) as u64;
                    }
                    p.left_ns = p.left_ns.max(1);
                    self.compute_start = self.now;
                    self.cpu_end = self.now + Tick(p.left_ns + p.overhead_ns);
                    return;
                }
                Step::Disk => {
                    let kind = if self.procs[i].rng.gen::<f64>() < w.write_fraction {
                        BioKind::DelayedWrite
                    } else {
                        BioKind::Read
                    };
                    let (blk, ahead) = self.file_block(i, kind);
                    let p = &mut self.procs[i];
                    p.overhead_ns += self.syscall_ns;
                    p.disk_ios += 1;
                    p.bio = Some(Bio {
                        ahead,
                        ..Bio::new(blk, kind, Step::SleepCall)
                    });
                    p.step = Step::Bio;
                }
                Step::SleepCall => self.sleep_call(i),
                Step::TtyStart => self.tty_start(i),
                Step::TtyWrite => {
                    if !self.tty_write(i) {
                        return;
                    }
                    self.procs[i].step = self.after_tty(i);
                }
                Step::Idle | Step::Sync(_) | Step::ConsoleWait | Step::ConsoleRead(_) => {
                    if !self.system_step(i) {
                        return;
                    }
                }
                Step::Bio | Step::Slept(_) => unreachable!("kernel steps are taken first"),
            }
        }
    }

    /// After the block access: a `sleep(n)` call once per loop with `sleep_probability`, or
    /// when the process's own sleep clock has fired (`sleep_every_s`).
    fn sleep_call(&mut self, i: usize) {
        let w = &self.spec.workload;
        let now = self.now.as_ns();
        let p = &mut self.procs[i];
        p.step = Step::TtyStart;
        if event_due(
            &mut p.rng,
            &mut p.next_sleep_ns,
            now,
            w.sleep_every_s.get(),
            w.sleep_probability,
        ) {
            p.overhead_ns += self.syscall_ns;
            let n = p.rng.gen_range(w.sleep_min_s..=w.sleep_max_s);
            p.step = Step::Slept(now / 1_000_000_000 + u64::from(n));
        }
    }

    /// Terminal output (`ttwrite`) of a geometric number of characters, once per loop with
    /// `tty_probability`, or when the process's own terminal clock has fired (`tty_every_s`).
    fn tty_start(&mut self, i: usize) {
        let w = &self.spec.workload;
        let now = self.now.as_ns();
        let p = &mut self.procs[i];
        p.step = Step::Compute;
        if event_due(
            &mut p.rng,
            &mut p.next_tty_ns,
            now,
            w.tty_every_s.get(),
            w.tty_probability,
        ) {
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

    /// The kernel steps of process `i`: a block access under way, `sslep`'s loop. `false`
    /// when the process sleeps.
    pub(super) fn kernel_steps(&mut self, i: usize) -> bool {
        loop {
            match self.procs[i].step {
                Step::Bio => {
                    if !self.bio_step(i) {
                        return false;
                    }
                }
                Step::Slept(d) => {
                    let sec = self.now.as_ns() / 1_000_000_000;
                    if sec < d {
                        self.tout.arm(sec, d);
                        self.sleep(i, PSLEP);
                        return false;
                    }
                    self.procs[i].step = self.after_sleep(i);
                }
                _ => return true,
            }
        }
    }

    /// What follows a compute stretch, by role.
    pub(super) fn after_compute(&self, i: usize) -> Step {
        match self.procs[i].role {
            Role::Prototype => Step::Disk,
            Role::Update => Step::Sync(self.spec.system_processes.sync_blocks),
            Role::Shell => Step::ConsoleRead(self.spec.system_processes.console_blocks),
            Role::Init | Role::Getty => Step::Idle,
        }
    }

    /// What follows terminal output, by role.
    pub(super) fn after_tty(&self, i: usize) -> Step {
        match self.procs[i].role {
            Role::Shell => Step::ConsoleWait,
            _ => Step::Compute,
        }
    }

    /// What follows a completed `sleep(n)`, by role.
    pub(super) fn after_sleep(&self, i: usize) -> Step {
        match self.procs[i].role {
            Role::Prototype => Step::TtyStart,
            Role::Update => Step::Compute,
            _ => Step::Idle,
        }
    }
}
