//! Chanson's synthetic prototype process (§2.D): compute, one disk I/O, perhaps a `sleep(n)`,
//! perhaps terminal output, forever.

use super::machine::*;
use pagelab_core::random::exponential;
use pagelab_core::Tick;
use rand::Rng as _;

impl Machine {
    /// The prototype loop, from the running process's current step until it computes or sleeps.
    pub(super) fn do_user(&mut self, i: usize) {
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
}
