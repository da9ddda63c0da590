//! Memory pressure stall information (PSI) as Linux's `kernel/sched/psi.c` computes it, for
//! the system simulator (docs/system.md, "Memory pressure (Linux PSI)").
//!
//! The rules, each from the kernel source (Debian's 6.1 and 6.12 agree on all of them; the facts
//! are the kernel's, the code is ours):
//!
//! - **Task states.** psi.c counts, per CPU, tasks in `NR_IOWAIT`, `NR_MEMSTALL`, `NR_RUNNING`
//!   and `NR_MEMSTALL_RUNNING`. A task is in a memory stall between `psi_memstall_enter` and
//!   `psi_memstall_leave`; going to sleep inside one clears `TSK_RUNNING` and
//!   `TSK_MEMSTALL_RUNNING` but keeps `TSK_MEMSTALL` (`psi_task_switch`), so a stalled task that
//!   sleeps on its page still counts in `NR_MEMSTALL`. [`MemTasks`] holds these counts.
//! - **some / full** (`test_state` in 6.1, `test_states` in 6.12): memory "some" while
//!   `NR_MEMSTALL > 0`; "full" while `NR_MEMSTALL > 0` and `NR_RUNNING == NR_MEMSTALL_RUNNING`
//!   (no runnable task outside a stall). Tasks waiting for I/O count in neither `NR_RUNNING` nor
//!   `NR_MEMSTALL`, so they never keep "full" false. [`MemTasks::some`], [`MemTasks::full`].
//! - **Several CPUs.** psi.c's header comment ("Multiple CPUs") defines the pressure of a machine
//!   as `threads = min(nr_nonidle_tasks, nr_cpus)`, `SOME = min(nr_delayed / threads, 1)`,
//!   `FULL = (threads - min(nr_productive, threads)) / threads`, productive meaning, for memory,
//!   "a running task that isn't a reclaimer"; the kernel approximates it by tracking each CPU's
//!   own tasks and weighting CPUs by non-idle time (`collect_percpu_times`). The simulator's users
//!   share one ready queue and belong to no CPU, so [`MemTasks::shares`] computes the model's
//!   formula itself; ours: FULL counts at most `nr_delayed` threads, so that full ≤ some as it
//!   is on every kernel CPU. On one CPU the shares are exactly `test_state`'s 0 or 1.
//! - **Averages** (`calc_avgs`, `update_averages`, `psi_avgs_work`): every `PSI_FREQ` =
//!   `2*HZ+1` jiffies (2.004 s at Debian's `CONFIG_HZ=250`, [`PERIOD_NS`]) the period's stall
//!   time, at most the period, becomes a whole percentage `time * 100 / period` (integer
//!   division), times `FIXED_1` = 2048, folded into avg10, avg60 and avg300 by `calc_load`
//!   (`include/linux/sched/loadavg.h`) with `EXP_10s` = 1677, `EXP_60s` = 1981, `EXP_300s` =
//!   2034. The clock starts at time zero (`group_init`: the first update one period after).
//!   `psi_show` prints an average as `LOAD_INT.LOAD_FRAC`, two truncated decimals
//!   ([`reading`]); totals as microseconds.

/// Bits of fixed-point precision (`FSHIFT`, include/linux/sched/loadavg.h).
pub const FSHIFT: u32 = 11;
/// 1.0 in fixed point (`FIXED_1`).
pub const FIXED_1: u64 = 1 << FSHIFT;
/// `EXP_10s`, `EXP_60s`, `EXP_300s` of psi.c: 1/exp(2 s / window) in fixed point.
pub const EXP: [u64; 3] = [1677, 1981, 2034];
/// psi.c's `psi_period`: `jiffies_to_nsecs(PSI_FREQ)`, `PSI_FREQ = 2*HZ+1`, at `HZ = 250` (the
/// `CONFIG_HZ` of Debian's 6.1 and 6.12 amd64 kernels): 501 jiffies of 4 ms [ns].
pub const PERIOD_NS: u64 = 2_004_000_000;

/// A memory stall "some" or "full" (psi.c's `PSI_MEM_SOME`, `PSI_MEM_FULL`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stall {
    /// At least one task stalls.
    Some = 0,
    /// Every non-stalled task is idle or waiting for I/O.
    Full = 1,
}

/// The task counts psi.c keeps for memory (`struct psi_group_cpu`'s `tasks[]`), for the whole
/// machine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemTasks {
    /// Tasks inside a memory stall, running or sleeping (`NR_MEMSTALL`).
    pub memstall: u32,
    /// Runnable tasks, on a CPU or waiting for one (`NR_RUNNING`).
    pub running: u32,
    /// Runnable tasks inside a memory stall, e.g. reclaiming (`NR_MEMSTALL_RUNNING`); counted in
    /// both `memstall` and `running`.
    pub memstall_running: u32,
    /// Tasks sleeping on I/O outside a memory stall (`NR_IOWAIT` less the stalled ones).
    pub iowait: u32,
}

impl MemTasks {
    /// Memory "some" on one CPU (`test_state`, `PSI_MEM_SOME`).
    pub fn some(&self) -> bool {
        self.memstall > 0
    }

    /// Memory "full" on one CPU (`test_state`, `PSI_MEM_FULL`).
    pub fn full(&self) -> bool {
        self.memstall > 0 && self.running == self.memstall_running
    }

    /// Non-idle tasks (`PSI_NONIDLE`: in iowait, in a memory stall or runnable), each once.
    pub fn nonidle(&self) -> u32 {
        self.running + (self.memstall - self.memstall_running) + self.iowait
    }

    /// The shares of `cpus` processors' time in "some" and "full" (psi.c's "Multiple CPUs"
    /// model; see the module's documentation).
    pub fn shares(&self, cpus: u32) -> (f64, f64) {
        let threads = self.nonidle().min(cpus);
        if self.memstall == 0 || threads == 0 {
            return (0.0, 0.0);
        }
        let productive = self.running - self.memstall_running;
        let some = self.memstall.min(threads);
        let full = self.memstall.min(threads - productive.min(threads));
        let t = f64::from(threads);
        (f64::from(some) / t, f64::from(full) / t)
    }
}

/// `calc_load` (include/linux/sched/loadavg.h): `load` decayed by `exp` towards `active`, in
/// fixed point, rounded up while rising.
pub fn calc_load(load: u64, exp: u64, active: u64) -> u64 {
    let mut new = load * exp + active * (FIXED_1 - exp);
    if active >= load {
        new += FIXED_1 - 1;
    }
    new / FIXED_1
}

/// A fixed-point average as `psi_show` prints it: `LOAD_INT` plus `LOAD_FRAC` hundredths.
pub fn reading(avg: u64) -> f64 {
    let int = avg >> FSHIFT;
    let frac = ((avg & (FIXED_1 - 1)) * 100) >> FSHIFT;
    int as f64 + frac as f64 / 100.0
}

/// The memory PSI of a run: totals, the current period's stall time, the running averages and
/// their largest values since [`Pressure::start_max`].
#[derive(Clone, Debug)]
pub struct Pressure {
    /// When the next period ends [ns].
    next_fold_ns: u64,
    /// Stall time in the current period, by [`Stall`] [ns].
    window_ns: [f64; 2],
    /// Stall time since time zero, by [`Stall`] [ns].
    total_ns: [f64; 2],
    /// avg10, avg60, avg300 in `FIXED_1` fixed point (percent × 2048), by [`Stall`].
    avg: [[u64; 3]; 2],
    /// The largest of each average since [`Pressure::start_max`], if started.
    max: Option<[[u64; 3]; 2]>,
}

impl Default for Pressure {
    fn default() -> Self {
        Pressure::new()
    }
}

impl Pressure {
    /// No stall yet; the first period ends at [`PERIOD_NS`].
    pub fn new() -> Pressure {
        Pressure {
            next_fold_ns: PERIOD_NS,
            window_ns: [0.0; 2],
            total_ns: [0.0; 2],
            avg: [[0; 3]; 2],
            max: None,
        }
    }

    /// Time from `from_ns` to `to_ns` passed with the shares `(some, full)` of
    /// [`MemTasks::shares`]; the periods ending inside are folded into the averages.
    pub fn advance(&mut self, from_ns: u64, to_ns: u64, (some, full): (f64, f64)) {
        let mut t = from_ns;
        while self.next_fold_ns <= to_ns {
            self.add((self.next_fold_ns - t) as f64, some, full);
            t = self.next_fold_ns;
            self.fold();
            self.next_fold_ns += PERIOD_NS;
        }
        self.add((to_ns - t) as f64, some, full);
    }

    fn add(&mut self, dt: f64, some: f64, full: f64) {
        for (s, share) in [(Stall::Some, some), (Stall::Full, full)] {
            self.window_ns[s as usize] += share * dt;
            self.total_ns[s as usize] += share * dt;
        }
    }

    /// The end of a period (`update_averages` then `calc_avgs`, no missed periods: the
    /// simulator's clock never stops).
    fn fold(&mut self) {
        for s in [Stall::Some, Stall::Full] {
            // update_averages: a sample never exceeds its period (a share is at most 1).
            let sample = (self.window_ns[s as usize] as u64).min(PERIOD_NS);
            self.window_ns[s as usize] = 0.0;
            let active = sample * 100 / PERIOD_NS * FIXED_1;
            let avg = &mut self.avg[s as usize];
            for (a, exp) in avg.iter_mut().zip(EXP) {
                *a = calc_load(*a, exp, active);
            }
            if let Some(m) = self.max.as_mut() {
                for (m, a) in m[s as usize].iter_mut().zip(*avg) {
                    *m = (*m).max(a);
                }
            }
        }
    }

    /// From now on the largest averages are kept, starting from the current ones.
    pub fn start_max(&mut self) {
        self.max = Some(self.avg);
    }

    /// Stall time since time zero as `memory.pressure`'s `total=` prints it [µs].
    pub fn total_us(&self, s: Stall) -> u64 {
        (self.total_ns[s as usize] / 1e3) as u64
    }

    /// avg10, avg60, avg300 as `psi_show` prints them [%].
    pub fn averages(&self, s: Stall) -> [f64; 3] {
        self.avg[s as usize].map(reading)
    }

    /// The largest avg10, avg60, avg300 since [`Pressure::start_max`] (the current ones if it
    /// was never called) [%].
    pub fn max_averages(&self, s: Stall) -> [f64; 3] {
        self.max.unwrap_or(self.avg)[s as usize].map(reading)
    }
}

#[cfg(test)]
mod tests;
