//! Terminals (V6 tty.c, kl.c): output through a character queue drained at line speed, one
//! transmit interrupt per character; the console's input path, one receive and one echo
//! interrupt per character typed, the shell woken at `TTIPRI` by the line's last.
//!
//! `ttwrite` puts characters on the output queue; a writer whose queue passes `TTHIWAT`
//! sleeps at `TTOPRI` until the transmit interrupt drains it to `TTLOWAT` and wakes it. The
//! queue drains as a fluid at `chars_per_s`; the transmit interrupts of characters sent
//! while the machine was elsewhere are charged when the machine next looks at the queue
//! (as stolen time), and the one interrupt that wakes a writer delays its selection by its
//! handler (cpu.rs `interrupt`): so even on a machine where everything fits in core, a
//! wake-up from terminal output takes time before the process runs.

use super::machine::*;
use super::process::*;
use super::swapper::Stat;
use pagelab_core::random::exponential;
use pagelab_core::Tick;

impl Machine {
    /// Characters of process `i`'s queue sent since it was last looked at: the queue is
    /// drained and their interrupts are charged, all but `keep` as stolen time.
    fn drain(&mut self, i: usize, keep: u64) {
        let cps = self.spec.terminal.chars_per_s;
        let now = self.now;
        let p = &mut self.procs[i];
        let sent = ((now - p.tty_t).as_secs_f64() * cps).min(p.tty_q);
        p.tty_q -= sent;
        p.tty_t = now;
        let chars = sent.round() as u64;
        self.st.tty_chars += sent;
        let cost = self.spec.machine.tty_intr_us.ns();
        self.steal(chars.saturating_sub(keep) * cost);
    }

    /// `ttwrite` of process `i`'s `tty_left` characters; `true` when all are queued, `false`
    /// when it sleeps at `TTOPRI` for the queue to drain.
    pub(super) fn tty_write(&mut self, i: usize) -> bool {
        self.drain(i, 0);
        let t = &self.spec.terminal;
        let (cps, hi, lo) = (
            t.chars_per_s,
            f64::from(t.high_water),
            f64::from(t.low_water),
        );
        let now = self.now;
        let p = &mut self.procs[i];
        let room = (hi + 1.0 - p.tty_q).max(0.0);
        if f64::from(p.tty_left) <= room {
            p.tty_q += f64::from(p.tty_left);
            p.tty_left = 0;
            return true;
        }
        p.tty_left -= room.floor() as u32;
        p.tty_q += room.floor();
        let wait = ((p.tty_q - lo) / cps).max(0.0);
        self.q
            .schedule(now + Tick::from_secs_f64(wait), Ev::TtyWake(i as u32));
        self.sleep(i, TTOPRI);
        false
    }

    /// The transmit interrupt that drains process `i`'s queue to `TTLOWAT` wakes it.
    pub(super) fn tty_wake(&mut self, i: usize) {
        self.drain(i, 1);
        self.interrupt(self.spec.machine.tty_intr_us.ns());
        self.wakeup(i);
    }

    /// A command line has been typed at the console: its characters' receive and echo
    /// interrupts, the last of which wakes the shell if it waits for input; the next line
    /// is drawn (exponential gaps, `console_line_s`).
    pub(super) fn console_line(&mut self) {
        let s = &self.spec.system_processes;
        let chars = u64::from(s.console_line_chars.max(1));
        let mean = s.console_line_s.get();
        let cost = self.spec.machine.tty_intr_us.ns();
        self.steal((2 * chars - 1) * cost);
        self.interrupt(cost);
        self.st.tty_chars += chars as f64;
        self.lines_pending += 1;
        if let Some(c) = self.console {
            let p = &self.procs[c];
            if p.stat == Stat::SleepLow && p.step == Step::ConsoleWait {
                self.wakeup(c);
            }
        }
        let gap = exponential(&mut self.sys_rng, mean).max(1e-3);
        let next = self.now + Tick::from_secs_f64(gap);
        if next < self.end {
            self.q.schedule(next, Ev::ConsoleLine);
        }
    }
}
