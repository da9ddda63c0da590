//! The system's own processes, which Chanson's PCTRMM does not count but his machine ran:
//! `/etc/init` (waits for its children at `PWAIT`), `/etc/update` (`sync` then `sleep(30)`,
//! forever), a getty on each idle terminal (waits for input at `TTIPRI`), and the console
//! shell, which reads command lines typed at the console (tty.rs), runs each (CPU, blocks
//! read through the buffer cache, output to the terminal) and waits at `TTIPRI` again.
//!
//! They are created first, in that table order, and placed in core first fit like any
//! process; sleeping at low priority they are the swapper's first "easy core". update's
//! `sleep` is on the one `tout` (callout.rs), so it wakes at every prototype's deadline too,
//! and must be swapped in to go back to sleep.
//!
//! Deviations: the console shell runs its commands itself (no `fork`/`exec`: no child image
//! and no text to load); `sync` writes `sync_blocks` i-node/super-blocks synchronously, then
//! starts every delayed write (`bflush`), all of it from update's context.

use super::machine::*;
use super::process::*;
use pagelab_core::random::exponential;
use pagelab_core::{RngStreams, Tick};

impl Machine {
    /// Creates init, update, the gettys and the console shell, in that order.
    pub(super) fn spawn_system(&mut self) -> Result<(), ()> {
        let s = self.spec.system_processes.clone();
        let mut roles = Vec::new();
        if s.init_clicks > 0 {
            roles.push((Role::Init, s.init_clicks));
        }
        if s.update_clicks > 0 {
            roles.push((Role::Update, s.update_clicks));
        }
        roles.extend(std::iter::repeat_n(
            (Role::Getty, s.getty_clicks),
            s.gettys as usize,
        ));
        if s.shell_clicks > 0 {
            roles.push((Role::Shell, s.shell_clicks));
        }
        for (k, (role, size)) in roles.into_iter().enumerate() {
            let rng = RngStreams::new(self.seed).stream("v6-sysproc", k as u64);
            let mut p = self.new_proc(role, size.max(super::process::USIZE), None, rng, (0, 0));
            match role {
                Role::Init | Role::Getty => {
                    let pri = if role == Role::Init { PWAIT } else { TTIPRI };
                    p.stat = super::swapper::Stat::SleepLow;
                    p.pri = pri;
                    p.sleep_pri = pri;
                    p.step = Step::Idle;
                }
                Role::Update => p.step = Step::Compute,
                Role::Shell => {
                    p.stat = super::swapper::Stat::SleepLow;
                    p.pri = TTIPRI;
                    p.sleep_pri = TTIPRI;
                    p.step = Step::ConsoleWait;
                    self.console = Some(self.procs.len());
                    let first = exponential(&mut self.sys_rng, s.console_line_s.get());
                    self.q
                        .schedule(Tick::from_secs_f64(first.max(1e-3)), Ev::ConsoleLine);
                }
                Role::Prototype => unreachable!("system roles only"),
            }
            self.place(p)?;
        }
        Ok(())
    }

    /// One step of a system process's program; `false` when it sleeps.
    pub(super) fn system_step(&mut self, i: usize) -> bool {
        let s = self.spec.system_processes.clone();
        match self.procs[i].step {
            Step::Idle => {
                let pri = if self.procs[i].role == Role::Init {
                    PWAIT
                } else {
                    TTIPRI
                };
                self.sleep(i, pri);
                false
            }
            Step::Sync(0) => {
                // bflush, then /etc/update's sleep(30).
                let flushed = self.cache.bflush();
                self.start_writes(flushed);
                self.st.syncs += 1.0;
                let sec = self.now.as_ns() / 1_000_000_000;
                self.procs[i].step = Step::Slept(sec + u64::from(s.update_s));
                true
            }
            Step::Sync(k) => {
                let blk = self.inode_block(k - 1);
                let p = &mut self.procs[i];
                p.bio = Some(Bio::new(blk, BioKind::SyncWrite, Step::Sync(k - 1)));
                p.step = Step::Bio;
                true
            }
            Step::ConsoleWait => {
                if self.lines_pending == 0 {
                    self.sleep(i, TTIPRI);
                    return false;
                }
                self.lines_pending -= 1;
                let cpu = s.console_cpu_ms.ns();
                let p = &mut self.procs[i];
                p.overhead_ns += self.syscall_ns;
                p.left_ns = cpu.max(1);
                p.step = Step::Compute;
                true
            }
            Step::ConsoleRead(0) => {
                let p = &mut self.procs[i];
                p.tty_left = s.console_output_chars;
                p.step = if p.tty_left > 0 {
                    Step::TtyWrite
                } else {
                    Step::ConsoleWait
                };
                true
            }
            Step::ConsoleRead(k) => {
                let blk = self.system_block();
                let p = &mut self.procs[i];
                p.overhead_ns += self.syscall_ns;
                p.bio = Some(Bio::new(blk, BioKind::Read, Step::ConsoleRead(k - 1)));
                p.step = Step::Bio;
                true
            }
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::unix::swapper::Stat;

    fn machine(overrides: &[(&str, &str)]) -> Machine {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../presets/unix-v6.toml");
        let text = std::fs::read_to_string(path).unwrap();
        let o: Vec<(String, String)> = overrides
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let spec = crate::unix::load_spec(&text, "unix-v6.toml", &o).unwrap();
        Machine::build(&spec, 1).unwrap()
    }

    fn metric(r: &crate::Report, name: &str) -> f64 {
        r.metrics[name].value
    }

    #[test]
    fn the_system_processes_come_first_in_table_order() {
        let m = machine(&[]);
        let roles: Vec<Role> = m.procs.iter().take(6).map(|p| p.role).collect();
        assert_eq!(
            roles,
            [
                Role::Init,
                Role::Update,
                Role::Getty,
                Role::Getty,
                Role::Getty,
                Role::Shell
            ]
        );
        assert_eq!(m.console, Some(5));
        assert_eq!(m.procs[0].stat, Stat::SleepLow);
    }

    #[test]
    fn tout_wakes_every_sleep_caller_at_the_earliest_deadline() {
        let mut m = machine(&[("system_processes.update_clicks", "0")]);
        let base = m.procs.len() - 8;
        for (k, d) in [(0usize, 5u64), (1, 9)] {
            let i = base + k;
            m.procs[i].step = Step::Slept(d);
            m.tout.arm(0, d);
            m.sleep(i, PSLEP);
        }
        assert_eq!(m.tout.at(), 5);
        m.clock(5 * m.tick_hz);
        assert_eq!(m.procs[base].stat, Stat::Run);
        // The later sleeper is woken too: it will go back to sleep when it runs.
        assert_eq!(m.procs[base + 1].stat, Stat::Run);
        assert!(m.procs[base + 1].woke_at.is_some());
    }

    #[test]
    fn update_syncs_every_30_s_and_reaction_time_is_never_zero_in_core() {
        // Everything fits: PCTRMM > 0 and the system's own processes fit too.
        let m = machine(&[
            ("memory.core_clicks", "3000"),
            ("run.duration_s", "310"),
            ("run.warmup_s", "10"),
        ]);
        let r = m.run(&mut |_| {}).unwrap();
        assert_eq!(metric(&r, "swap_rate"), 0.0);
        let syncs = metric(&r, "syncs");
        assert!((9.0..=11.0).contains(&syncs), "{syncs} syncs in 300 s");
        let rt = metric(&r, "reaction_time_ms");
        assert!(rt > 0.05, "reaction time {rt} ms");
        assert!(metric(&r, "reaction_min_ms") > 0.0);
    }
}
