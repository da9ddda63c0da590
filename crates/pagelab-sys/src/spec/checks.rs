//! Cross-field checks of a VM-family spec that serde cannot make: each section's check gives
//! the key path and what was expected; [`SystemSpec::validate`] names the spec in the error.

use super::*;

/// Most processors a VM-family machine may have: the tightly coupled machines modelled have
/// 1 to 4; the dispatcher scans every processor at each dispatch, so 100,000 would take hours
/// of simulation per simulated second.
const MAX_CPUS: u32 = 64;

/// A failed check: (key path, what was expected).
type Bad = (String, String);

fn bad<T>(path: &str, what: &str) -> Result<T, Bad> {
    Err((path.to_string(), what.to_string()))
}

fn finite_nonneg(x: f64) -> bool {
    x.is_finite() && x >= 0.0
}

impl SystemSpec {
    /// The sections that check themselves (`swapping`, `vmsp`): (key path, what was expected).
    fn section_checks(&self) -> Result<(), (String, &'static str)> {
        self.swapping
            .check()
            .map_err(|(k, w)| (format!("swapping.{k}"), w))?;
        if let Some(z) = &self.memory.zswap {
            z.check()
                .map_err(|(k, w)| (format!("memory.zswap.{k}"), w))?;
            if self.memory.residency == ResidencyKind::PageSwapping {
                return Err((
                    "memory.zswap".into(),
                    "the pool takes SELECT's page-outs, page swapping writes swap sets: expected \
                     no [memory.zswap] with memory.residency = \"page-swapping\"",
                ));
            }
        }
        self.vmsp.check().map_err(|(k, w)| (format!("vmsp.{k}"), w))
    }

    /// Cross-field checks serde cannot make. `origin` names the spec in errors.
    pub fn validate(&self, origin: &str) -> Result<(), SysError> {
        let named = |(path, what): Bad| SysError::Invalid {
            origin: origin.into(),
            path,
            what,
        };
        self.check_run_cpu().map_err(named)?;
        crate::kind::SystemKind::Vm.expect(&self.system, origin)?;
        self.check_memory().map_err(named)?;
        self.check_devices().map_err(named)?;
        self.check_vio_load_monitor().map_err(named)?;
        self.check_workload().map_err(named)?;
        for (i, c) in self.workload.classes.iter().enumerate() {
            self.check_class(i, c).map_err(named)?;
        }
        Ok(())
    }

    /// `run` and `cpu`.
    fn check_run_cpu(&self) -> Result<(), Bad> {
        if !self.run.duration_s.is_positive() {
            return bad("run.duration_s", "expected a positive number of seconds");
        }
        if !self.run.warmup_s.is_nonneg() || self.run.warmup_s >= self.run.duration_s {
            return bad(
                "run.warmup_s",
                "expected seconds ≥ 0 and below run.duration_s",
            );
        }
        if self.cpu.count == 0 || self.cpu.count > MAX_CPUS {
            return bad(
                "cpu.count",
                &format!("expected 1 to {MAX_CPUS} processors (every dispatch scans them all)"),
            );
        }
        if !(self.cpu.reference_ns.is_finite() && self.cpu.reference_ns > 0.0) {
            return bad(
                "cpu.reference_ns",
                "expected a positive time per reference [ns]",
            );
        }
        if !self.cpu.dispatch_slice_ms.is_positive() {
            return bad("cpu.dispatch_slice_ms", "expected a positive slice [ms]");
        }
        let s = &self.cpu.supervisor;
        for (k, v) in [
            ("fault_us", s.fault_us),
            ("sio_us", s.sio_us),
            ("interrupt_us", s.interrupt_us),
            ("dispatch_us", s.dispatch_us),
            ("page_moved_us", s.page_moved_us),
            ("vio_sio_us", s.vio_sio_us.unwrap_or(s.sio_us)),
            (
                "vio_interrupt_us",
                s.vio_interrupt_us.unwrap_or(s.interrupt_us),
            ),
        ] {
            if !v.is_nonneg() {
                return bad(&format!("cpu.supervisor.{k}"), "expected a cost ≥ 0 [µs]");
            }
        }
        Ok(())
    }

    /// `memory`, its frame supply, and `paging`.
    fn check_memory(&self) -> Result<(), Bad> {
        if self.memory.residency == ResidencyKind::WholeProcessSwapping {
            return bad(
                "memory.residency",
                "whole-process swapping is the UNIX V6 system: expected [system] kind = \"unix\"",
            );
        }
        if self.memory.frames.get() == 0 {
            return bad("memory.frames", "expected at least one pageable frame");
        }
        match crate::supply::Supply::build(
            &self.memory.replacement,
            self.memory.frames,
            self.memory.replacement_reserve,
            1,
        ) {
            Err(e) => return bad("memory.replacement", &e.to_string()),
            Ok(s) if !s.wants_references() => {}
            Ok(_) if self.memory.replacement_reserve < self.memory.frames => {}
            Ok(_) => {
                return bad(
                    "memory.replacement_reserve",
                    "expected fewer frames than memory.frames",
                )
            }
        }
        if self.memory.page_bytes.get() == 0 {
            return bad("memory.page_bytes", "expected a positive page size [bytes]");
        }
        if !self.paging.sio_overhead_ms.is_nonneg() {
            return bad("paging.sio_overhead_ms", "expected a time ≥ 0 [ms]");
        }
        if self.paging.page_cluster > 6 {
            return bad(
                "paging.page_cluster",
                "expected 0 to 6 (clusters of 1 to 64 slots)",
            );
        }
        if self.paging.page_cluster > 0 && self.memory.residency == ResidencyKind::PageSwapping {
            return bad(
                "paging.page_cluster",
                "page swapping reads whole swap sets: expected 0 with memory.residency = \
                 \"page-swapping\"",
            );
        }
        Ok(())
    }

    /// `[[channel]]`, `[[device]]` and the sections that check themselves.
    fn check_devices(&self) -> Result<(), Bad> {
        if self.devices.is_empty() {
            return bad("device", "expected at least one [[device]]");
        }
        for (i, ch) in self.channels.iter().enumerate() {
            if self.channels[..i].iter().any(|c| c.name == ch.name) {
                return bad(
                    &format!("channel.{i}.name"),
                    "expected a name not used by another channel",
                );
            }
        }
        for (i, d) in self.devices.iter().enumerate() {
            if !self.channels.iter().any(|c| c.name == d.channel) {
                return bad(
                    &format!("device.{i}.channel"),
                    &format!(
                        "no [[channel]] named `{}`: expected one of the channel names",
                        d.channel
                    ),
                );
            }
            if d.count == 0 {
                return bad(&format!("device.{i}.count"), "expected at least one device");
            }
            let cyl = crate::device::Geometry::of(d.model, self.memory.page_bytes.get()).cylinders;
            if d.exposures == 0 || d.exposures > 8 || (d.exposures > 1 && cyl != 1) {
                return bad(
                    &format!("device.{i}.exposures"),
                    "expected 1 to 8, and more than 1 only on a fixed-head device (2301, 2305)",
                );
            }
            if let Some([a, b]) = d.paging_cylinders {
                if a > b || b >= cyl {
                    return bad(
                        &format!("device.{i}.paging_cylinders"),
                        &format!("expected [first, last] with first ≤ last < {cyl}"),
                    );
                }
            }
        }
        if let Err((k, what)) = self.section_checks() {
            return bad(&k, what);
        }
        if self.devices.iter().any(|d| d.swap_area) && self.devices.iter().all(|d| d.swap_area) {
            return bad(
                "device",
                "every device is a swap area: expected at least one for ordinary page-outs",
            );
        }
        Ok(())
    }

    /// `vio`, `load_control` and `monitor`.
    fn check_vio_load_monitor(&self) -> Result<(), Bad> {
        if self.vio.devices == 0 {
            return bad("vio.devices", "expected at least one minidisk device");
        }
        if !self.vio.service_ms.is_nonneg() {
            return bad("vio.service_ms", "expected a time ≥ 0 [ms]");
        }
        if let Err((k, what)) = self.load_control.check_params() {
            return bad(&format!("load_control.{k}"), what);
        }
        if let Some(lc) = self.load_control.params() {
            if !(lc.q1_slice_s.is_finite() && lc.q1_slice_s > 0.0) {
                return bad(
                    "load_control.q1_slice_s",
                    "expected a positive CPU time [s]",
                );
            }
            if !(lc.q2_slice_s.is_finite() && lc.q2_slice_s > 0.0) {
                return bad(
                    "load_control.q2_slice_s",
                    "expected a positive CPU time [s]",
                );
            }
            if !(lc.q1_overcommit.is_finite() && lc.q1_overcommit >= 1.0) {
                return bad("load_control.q1_overcommit", "expected a factor ≥ 1");
            }
            if !finite_nonneg(lc.initial_ws_pages) {
                return bad("load_control.initial_ws_pages", "expected pages ≥ 0");
            }
        }
        if !self.monitor.interval_s.is_positive() {
            return bad("monitor.interval_s", "expected a positive interval [s]");
        }
        if self.monitor.cycles == Some(0) {
            return bad("monitor.cycles", "expected at least one scan cycle");
        }
        Ok(())
    }

    /// `workload`: users, guests, the class fractions.
    fn check_workload(&self) -> Result<(), Bad> {
        if self.workload.users == 0 && self.workload.guests.is_empty() {
            return bad("workload.users", "expected at least one user");
        }
        for (i, g) in self.workload.guests.iter().enumerate() {
            if let Err((path, what)) = g.validate(&format!("workload.guest.{i}")) {
                return bad(&path, &what);
            }
        }
        if self.workload.classes.is_empty() {
            return bad("workload.class", "expected at least one [[workload.class]]");
        }
        let classes = &self.workload.classes;
        let fixed: u64 = classes.iter().filter_map(|c| c.users).map(u64::from).sum();
        if fixed > u64::from(self.workload.users) {
            return bad(
                "workload.class",
                &format!(
                    "expected the classes' fixed users ({fixed}) within workload.users ({})",
                    self.workload.users
                ),
            );
        }
        let shared = classes.iter().filter(|c| c.users.is_none());
        let total: f64 = shared.map(|c| c.fraction.unwrap_or(0.0)).sum();
        if fixed < u64::from(self.workload.users) && !(total.is_finite() && total > 0.0) {
            return bad(
                "workload.class",
                "expected fractions summing to a positive number among the classes without \
                 fixed users",
            );
        }
        Ok(())
    }

    /// Class `i`: its session and think law, then its commands and program.
    fn check_class(&self, i: usize, c: &ClassSpec) -> Result<(), Bad> {
        let p = format!("workload.class.{i}");
        if let Some(ss) = &c.session {
            if c.order != ScriptOrder::Cycle {
                return bad(
                    &format!("{p}.order"),
                    "a session runs its script in order: expected \"cycle\"",
                );
            }
            if !(ss.every_s.is_finite() && ss.every_s >= 0.0) {
                return bad(&format!("{p}.session.every_s"), "expected a time ≥ 0 [s]");
            }
            if !(ss.first_s.is_finite() && ss.first_s >= 0.0) {
                return bad(&format!("{p}.session.first_s"), "expected a time ≥ 0 [s]");
            }
        }
        match (c.fraction, c.users) {
            (None, None) => {
                return bad(
                    &format!("{p}.fraction"),
                    "expected a fraction ≥ 0, or users = N",
                );
            }
            (Some(f), _) if !finite_nonneg(f) => {
                return bad(&format!("{p}.fraction"), "expected a fraction ≥ 0");
            }
            _ => {}
        }
        match &c.think {
            ThinkSpec::Exponential { mean_s } if !finite_nonneg(*mean_s) => {
                return bad(
                    &format!("{p}.think.mean_s"),
                    "expected a think time ≥ 0 [s]",
                )
            }
            ThinkSpec::Fixed { s } if !finite_nonneg(*s) => {
                return bad(&format!("{p}.think.s"), "expected a think time ≥ 0 [s]")
            }
            ThinkSpec::Scripted { s } => {
                if s.is_empty() {
                    return bad(&format!("{p}.think.s"), "expected at least one think time");
                }
                if let Some(j) = s.iter().position(|x| !finite_nonneg(*x)) {
                    return bad(&format!("{p}.think.s.{j}"), "expected a think time ≥ 0 [s]");
                }
            }
            _ => {}
        }
        self.check_commands(&p, c)?;
        self.check_program(&p, c)?;
        Ok(())
    }

    /// A class's script of commands (`p` its key path).
    fn check_commands(&self, p: &str, c: &ClassSpec) -> Result<(), Bad> {
        if c.commands.is_empty() {
            return bad(&format!("{p}.commands"), "expected at least one command");
        }
        for (j, cmd) in c.commands.iter().enumerate() {
            let q = format!("{p}.commands.{j}");
            if !(cmd.cpu_ms.is_finite() && cmd.cpu_ms > 0.0) {
                return bad(
                    &format!("{q}.cpu_ms"),
                    "expected a positive CPU demand [ms]",
                );
            }
            if !finite_nonneg(cmd.weight) {
                return bad(&format!("{q}.weight"), "expected a weight ≥ 0");
            }
            if !(cmd.set_fraction.is_finite() && cmd.set_fraction > 0.0 && cmd.set_fraction <= 1.0)
            {
                return bad(
                    &format!("{q}.set_fraction"),
                    "expected a fraction in (0, 1]",
                );
            }
            if !finite_nonneg(cmd.console_write_ms) {
                return bad(&format!("{q}.console_write_ms"), "expected a time ≥ 0 [ms]");
            }
        }
        if !c.commands.iter().any(|c| c.weight > 0.0) {
            return bad(
                &format!("{p}.commands"),
                "expected a command with positive weight",
            );
        }
        Ok(())
    }

    /// A class's program (`p` its key path).
    fn check_program(&self, p: &str, c: &ClassSpec) -> Result<(), Bad> {
        match &c.program {
            ProgramSpec::Cms(l) | ProgramSpec::Drifting(l) => {
                let q = format!("{p}.program");
                if l.set_pages == 0 || l.set_pages > l.address_pages {
                    return bad(
                        &format!("{q}.set_pages"),
                        "expected 1 ≤ set_pages ≤ address_pages",
                    );
                }
                if l.locality_pages == 0 || l.locality_pages > l.set_pages {
                    return bad(
                        &format!("{q}.locality_pages"),
                        "expected 1 ≤ locality_pages ≤ set_pages",
                    );
                }
                if l.runs_per_phase == 0 {
                    return bad(&format!("{q}.runs_per_phase"), "expected at least one run");
                }
                if !(l.refs_per_run.is_finite() && l.refs_per_run >= 1.0) {
                    return bad(
                        &format!("{q}.refs_per_run"),
                        "expected a mean ≥ 1 [references]",
                    );
                }
                for (k, v) in [
                    ("overlap", l.overlap),
                    ("drift", l.drift),
                    ("repeat", l.repeat),
                    ("write_fraction", l.write_fraction),
                    ("shared_fraction", l.shared_fraction),
                ] {
                    if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                        return bad(&format!("{q}.{k}"), "expected a fraction in [0, 1]");
                    }
                }
                if l.shared_fraction > 0.0 && self.workload.shared_pages == 0 {
                    return bad(
                        &format!("{q}.shared_fraction"),
                        "references to the shared segment need workload.shared_pages > 0",
                    );
                }
            }
            ProgramSpec::Trace(t) => {
                if !std::path::Path::new(&t.path).is_file() {
                    return bad(
                        &format!("{p}.program.path"),
                        &format!(
                            "trace file `{}` does not exist: expected a readable file",
                            t.path
                        ),
                    );
                }
            }
        }
        Ok(())
    }
}
