//! Cross-field checks of the UNIX spec, one function per group of sections: run, machine and
//! memory; disk and swapper; terminal and workload; login control; interrupt costs, the buffer
//! cache and the system processes. Errors name the key path and what was expected.

use super::spec::UnixSpec;
use crate::error::SysError;
use crate::spec::ResidencyKind;

impl UnixSpec {
    pub(super) fn bad(origin: &str, path: &str, what: String) -> Result<(), SysError> {
        Err(SysError::Invalid {
            origin: origin.into(),
            path: path.into(),
            what,
        })
    }

    /// Login control (Chanson §4.3).
    pub(super) fn validate_login(&self, origin: &str) -> Result<(), SysError> {
        let bad = |path: &str, what: String| Self::bad(origin, path, what);
        let w = &self.workload;
        if let Some(l) = &self.login {
            if !l.arrival_s.is_positive() {
                return bad("login.arrival_s", "expected a positive interval [s]".into());
            }
            if !l.threshold_ms.is_nonneg() {
                return bad("login.threshold_ms", "expected a threshold ≥ 0 [ms]".into());
            }
            if !l.window_s.is_positive() {
                return bad("login.window_s", "expected a positive window [s]".into());
            }
            if let Some(m) = &l.model {
                if !m.intercept_ms.is_finite() {
                    return bad("login.model.intercept_ms", "expected a number [ms]".into());
                }
                if !(m.slope_ms.is_finite() && m.slope_ms <= 0.0) {
                    return bad(
                        "login.model.slope_ms",
                        "expected a slope ≤ 0: reaction time falls as PCTRMM rises [ms/%]".into(),
                    );
                }
            }
            if l.max_processes > 49 || l.max_processes < w.processes {
                return bad(
                    "login.max_processes",
                    format!("expected workload.processes = {} to 49", w.processes),
                );
            }
        }
        Ok(())
    }

    /// Interrupt costs, the buffer cache, the file size and the system processes.
    pub(super) fn validate_kernel(&self, origin: &str) -> Result<(), SysError> {
        let bad = |path: &str, what: String| Self::bad(origin, path, what);
        let m = &self.machine;
        for (k, v) in [
            ("machine.clock_intr_us", m.clock_intr_us),
            ("machine.disk_intr_us", m.disk_intr_us),
            ("machine.tty_intr_us", m.tty_intr_us),
            ("machine.bio_us", m.bio_us),
        ] {
            if !v.is_nonneg() {
                return bad(k, "expected a cost ≥ 0 [µs]".into());
            }
        }
        if 1e6 / f64::from(m.clock_hz) <= m.clock_intr_us.get() {
            return bad(
                "machine.clock_intr_us",
                "expected less than one clock period [µs]".into(),
            );
        }
        if self.buffers.count == 0 {
            return bad("buffers.count", "expected at least one buffer".into());
        }
        let fs_blocks = self.disk.blocks_per_drive - self.swapper.swap_blocks;
        if self.workload.file_blocks == 0 || self.workload.file_blocks > fs_blocks {
            return bad(
                "workload.file_blocks",
                format!("expected 1 to {fs_blocks} blocks (the file system outside swap)"),
            );
        }
        self.validate_system_processes(origin)
    }

    /// The system processes' parameters, and room for them with the prototypes in the swap
    /// area, in memory and in the process table (`NPROC` = 50 with the swapper).
    fn validate_system_processes(&self, origin: &str) -> Result<(), SysError> {
        let bad = |path: &str, what: String| Self::bad(origin, path, what);
        let s = &self.system_processes;
        if s.update_s == 0 {
            return bad("system_processes.update_s", "expected ≥ 1 [s]".into());
        }
        if !s.console_line_s.is_positive() {
            return bad(
                "system_processes.console_line_s",
                "expected a positive mean [s]".into(),
            );
        }
        if !s.console_cpu_ms.is_nonneg() {
            return bad(
                "system_processes.console_cpu_ms",
                "expected a CPU time ≥ 0 [ms]".into(),
            );
        }
        let sizes = self.system_sizes();
        if sizes.iter().any(|&c| c < super::process::USIZE) {
            return bad(
                "system_processes",
                format!(
                    "expected images of at least the {}-click u-area (getty_clicks with gettys > 0)",
                    super::process::USIZE
                ),
            );
        }
        let w = &self.workload;
        let largest = (f64::from(w.size_clicks) * (1.0 + w.size_spread)).ceil() as u32;
        let n_protos = self
            .login
            .as_ref()
            .map_or(w.processes, |l| l.max_processes.max(w.processes));
        let need: u32 = sizes.iter().map(|c| c.div_ceil(8)).sum::<u32>()
            + n_protos * largest.div_ceil(8)
            + w.text_clicks.div_ceil(8);
        if need > self.swapper.swap_blocks {
            return bad(
                "swapper.swap_blocks",
                format!("expected at least {need} blocks for every process with the system's own"),
            );
        }
        if let Some(&big) = sizes.iter().max() {
            if big > self.memory.core_clicks {
                return bad(
                    "system_processes",
                    format!(
                        "a system process of {big} clicks cannot fit in memory.core_clicks = {}",
                        self.memory.core_clicks
                    ),
                );
            }
        }
        let procs = sizes.len() as u32 + self.workload.processes;
        let n_max = self.login.as_ref().map_or(procs, |l| {
            l.max_processes.max(self.workload.processes) + sizes.len() as u32
        });
        if n_max > 49 {
            return bad(
                "system_processes",
                format!("expected at most 49 processes with the system's own, not {n_max}"),
            );
        }
        Ok(())
    }

    /// Image sizes of the system processes in table order: init, update, gettys, shell [clicks].
    pub fn system_sizes(&self) -> Vec<u32> {
        let s = &self.system_processes;
        let mut v = Vec::new();
        if s.init_clicks > 0 {
            v.push(s.init_clicks);
        }
        if s.update_clicks > 0 {
            v.push(s.update_clicks);
        }
        v.extend(std::iter::repeat_n(s.getty_clicks, s.gettys as usize));
        if s.shell_clicks > 0 {
            v.push(s.shell_clicks);
        }
        v
    }

    /// `run`, `machine` and `memory`.
    pub(super) fn validate_machine(&self, origin: &str) -> Result<(), SysError> {
        let bad = |path: &str, what: String| Self::bad(origin, path, what);
        if !self.run.duration_s.is_positive() {
            return bad(
                "run.duration_s",
                "expected a positive number of seconds".into(),
            );
        }
        if !self.run.warmup_s.is_nonneg() || self.run.warmup_s >= self.run.duration_s {
            return bad(
                "run.warmup_s",
                "expected seconds ≥ 0 and below run.duration_s".into(),
            );
        }
        if self.machine.clock_hz == 0 {
            return bad(
                "machine.clock_hz",
                "expected a positive clock rate [1/s]".into(),
            );
        }
        for (k, v) in [
            ("machine.switch_us", self.machine.switch_us),
            ("machine.syscall_us", self.machine.syscall_us),
        ] {
            if !v.is_nonneg() {
                return bad(k, "expected a cost ≥ 0 [µs]".into());
            }
        }
        if self.memory.residency != ResidencyKind::WholeProcessSwapping {
            return bad(
                "memory.residency",
                "expected \"whole-process-swapping\" for a UNIX V6 machine".into(),
            );
        }
        if self.memory.core_clicks == 0 || self.memory.click_bytes == 0 {
            return bad(
                "memory.core_clicks",
                "expected positive swappable core [clicks] and click size [bytes]".into(),
            );
        }
        Ok(())
    }

    /// `disk` and `swapper`: the swap area fits its drive and the processes.
    pub(super) fn validate_disk(&self, origin: &str) -> Result<(), SysError> {
        let bad = |path: &str, what: String| Self::bad(origin, path, what);
        let d = &self.disk;
        if d.drives == 0 || d.blocks_per_drive == 0 || d.blocks_per_cylinder == 0 {
            return bad(
                "disk",
                "expected drives, blocks_per_drive and blocks_per_cylinder > 0".into(),
            );
        }
        if d.sectors_per_track == 0 || !d.rotation_ms.is_positive() {
            return bad(
                "disk.rotation_ms",
                "expected a positive revolution time and sectors per track".into(),
            );
        }
        if !(d.seek_min_ms.is_nonneg()
            && d.seek_max_ms.get().is_finite()
            && d.seek_max_ms >= d.seek_min_ms)
        {
            return bad(
                "disk.seek_max_ms",
                "expected 0 ≤ seek_min_ms ≤ seek_max_ms [ms]".into(),
            );
        }
        let s = &self.swapper;
        if s.swap_drive >= d.drives {
            return bad(
                "swapper.swap_drive",
                format!("expected a drive index below disk.drives = {}", d.drives),
            );
        }
        if s.swap_blocks == 0
            || s.swap_base.checked_add(s.swap_blocks).is_none()
            || s.swap_base + s.swap_blocks > d.blocks_per_drive
        {
            return bad(
                "swapper.swap_blocks",
                format!(
                    "expected a swap area of > 0 blocks ending within the drive's {} blocks",
                    d.blocks_per_drive
                ),
            );
        }
        if s.swap_base == 0 && s.swap_blocks >= d.blocks_per_drive && d.drives == 1 {
            return bad(
                "swapper.swap_base",
                "expected room for a file system beside the swap area".into(),
            );
        }
        Ok(())
    }

    /// `terminal` and `workload`: sizes that fit in core and swap, times and rates.
    pub(super) fn validate_workload(&self, origin: &str) -> Result<(), SysError> {
        let bad = |path: &str, what: String| Self::bad(origin, path, what);
        let pos = |x: f64| x.is_finite() && x > 0.0;
        let t = &self.terminal;
        let s = &self.swapper;
        if !pos(t.chars_per_s) || t.low_water >= t.high_water {
            return bad(
                "terminal",
                "expected chars_per_s > 0 and low_water < high_water".into(),
            );
        }
        let w = &self.workload;
        if w.processes == 0 || w.processes > 49 {
            return bad(
                "workload.processes",
                "expected 1 to 49 processes (NPROC 50 less the swapper)".into(),
            );
        }
        if w.size_clicks == 0 {
            return bad(
                "workload.size_clicks",
                "expected a positive size [clicks]".into(),
            );
        }
        if !(w.size_spread.is_finite() && (0.0..1.0).contains(&w.size_spread)) {
            return bad(
                "workload.size_spread",
                "expected a fraction in [0, 1)".into(),
            );
        }
        let largest = (f64::from(w.size_clicks) * (1.0 + w.size_spread)).ceil() as u64
            + u64::from(w.text_clicks);
        if largest > u64::from(self.memory.core_clicks) {
            return bad(
                "workload.size_clicks",
                format!(
                    "a process of up to {largest} clicks (with text) cannot fit in memory.core_clicks = {}",
                    self.memory.core_clicks
                ),
            );
        }
        let n_max = self
            .login
            .as_ref()
            .map_or(w.processes, |l| l.max_processes.max(w.processes));
        let swap_need: u64 =
            u64::from(n_max) * largest.div_ceil(8) + u64::from(w.text_clicks.div_ceil(8));
        if swap_need > u64::from(s.swap_blocks) {
            return bad(
                "swapper.swap_blocks",
                format!(
                    "expected at least {swap_need} blocks for {n_max} processes of up to {largest} clicks"
                ),
            );
        }
        self.validate_prototype_loop(origin)
    }

    /// The prototype loop's compute mean, probabilities, sleeps and terminal output.
    fn validate_prototype_loop(&self, origin: &str) -> Result<(), SysError> {
        let bad = |path: &str, what: String| Self::bad(origin, path, what);
        let frac = |x: f64| (0.0..=1.0).contains(&x);
        let w = &self.workload;
        if !w.cpu_ms.is_positive() {
            return bad("workload.cpu_ms", "expected a positive mean [ms]".into());
        }
        for (k, v) in [
            ("workload.sleep_probability", w.sleep_probability),
            ("workload.tty_probability", w.tty_probability),
            ("workload.write_fraction", w.write_fraction),
        ] {
            if !frac(v) {
                return bad(k, "expected a probability in [0, 1]".into());
            }
        }
        for (k, v) in [
            ("workload.sleep_every_s", w.sleep_every_s.get()),
            ("workload.tty_every_s", w.tty_every_s.get()),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return bad(k, "expected a mean gap ≥ 0 (0: once per loop) [s]".into());
            }
        }
        if w.sleep_min_s == 0 || w.sleep_max_s < w.sleep_min_s {
            return bad(
                "workload.sleep_max_s",
                "expected 1 ≤ sleep_min_s ≤ sleep_max_s [s]".into(),
            );
        }
        if !(w.tty_chars_mean.is_finite() && w.tty_chars_mean >= 1.0) {
            return bad(
                "workload.tty_chars_mean",
                "expected a mean ≥ 1 [characters]".into(),
            );
        }
        Ok(())
    }
}
