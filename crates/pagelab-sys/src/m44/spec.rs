//! The M44/44X machine spec: TOML in, typed structs out, through the same override and error
//! machinery as [`crate::spec`] (`origin: key.path: what was expected`, one line).
//!
//! Sections: `[machine]` (the 44X's memory and mapping cycles, the time slice), `[memory]` (the
//! word-addressed paged store), `[disk]` (the two IBM 1301s), `[replacement]` (FIFO, BIFO,
//! AR), `[leveler]` (the load leveler) and `[workload]` (identical background jobs, each one of
//! the study's programs). Numbers and their sources are in `presets/m44.toml` and
//! `docs/presets/m44.md`.

use crate::error::SysError;
use crate::spec::PresetInfo;
use pagelab_core::{Secs, Us};
use pagelab_trace::gen::{M44Params, M44Program};
use serde::{Deserialize, Serialize};

/// The value of `machine.model`: the one machine this system models.
pub const MODEL: &str = "m44-44x";

/// An M44/44X run: the machine and its batch of background jobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct M44Spec {
    /// What the preset is and where its numbers come from -- metadata.
    #[serde(default)]
    pub preset: PresetInfo,
    /// Which system: must be `m44` -- parameter.
    #[serde(default = "crate::kind::SystemSection::m44")]
    pub system: crate::kind::SystemSection,
    /// The 44X's cycles and the time slice -- parameter.
    pub machine: MachineSpec,
    /// The paged real store -- parameter.
    pub memory: MemorySpec,
    /// The backing store -- parameter.
    pub disk: DiskSpec,
    /// Global page replacement -- parameter.
    pub replacement: ReplacementSpec,
    /// The load leveler -- parameter.
    #[serde(default)]
    pub leveler: LevelerSpec,
    /// The background jobs -- parameter.
    pub workload: WorkloadSpec,
}

/// The 44X's timing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineSpec {
    /// The machine: must be `m44-44x` (the system is chosen by `[system] kind = "m44"`).
    pub model: String,
    /// Cycle of the 8 µs paged store [µs].
    pub memory_us: Us,
    /// Mapping cycle added to every memory cycle [µs].
    pub mapping_us: Us,
    /// Time slice of the round-robin CPU queue [s].
    pub time_slice_s: Secs,
}

impl MachineSpec {
    /// Effective time of one reference [µs]: the memory cycle plus the mapping cycle (B&G,
    /// "The virtual machine": "8 µsec store and a 2 µsec mapping cycle", 10 µs).
    pub fn reference_us(&self) -> Us {
        Us(self.memory_us.get() + self.mapping_us.get())
    }
}

/// The word-addressed paged store.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemorySpec {
    /// Words per page [words].
    pub page_words: u32,
    /// Paged real store available to the 44Xs [words]; a whole number of pages.
    pub store_words: u64,
}

impl MemorySpec {
    /// Page frames [frames].
    pub fn frames(&self) -> u32 {
        (self.store_words / u64::from(self.page_words.max(1))) as u32
    }
}

/// The paging disks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiskSpec {
    /// Disks holding the pages, each serving one page at a time [count].
    pub count: u32,
    /// Time to seek and transmit one page into core [s].
    pub pull_s: Secs,
    /// Disk time of writing a changed page back before its frame is reused [s]; 0 when the
    /// measured pull time already carries the pushes' share.
    #[serde(default)]
    pub push_s: Secs,
}

/// Which page to overwrite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PolicyKind {
    /// The page in core longest.
    Fifo,
    /// FIFO sparing the pages of one favoured 44X, chosen round robin, for an interval.
    Bifo,
    /// A page not recently referenced, by the hardware use bits.
    Ar,
}

/// Global replacement across the jobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplacementSpec {
    /// The algorithm.
    pub policy: PolicyKind,
    /// How long BIFO favours one 44X before moving to the next [s].
    #[serde(default = "one_second")]
    pub bifo_interval_s: Secs,
    /// References executed between two clearings of all AR use bits [references]; 0: bits
    /// are cleared only when every candidate's is on. Default: the trace lab's AR
    /// (`pagelab_trace::policy::ar::ArSpec`), one 0.1 s time slice at 10 µs a reference.
    #[serde(default = "ar_reset_default")]
    pub ar_reset_interval: u64,
}

fn ar_reset_default() -> u64 {
    pagelab_trace::policy::ar::ArSpec::default().reset_interval
}

fn one_second() -> Secs {
    Secs(1.0)
}

/// The load leveler (B&G, "The effects of load leveling"; criteria from fidelity-notes §6.3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelerSpec {
    /// Whether the leveler runs.
    #[serde(default)]
    pub enabled: bool,
    /// Sampling period [s].
    #[serde(default = "one_second")]
    pub period_s: Secs,
    /// Overload needs page pulls at least this fraction of the disks' capacity
    /// (`count / pull_s` pulls per second) [fraction].
    #[serde(default = "f08")]
    pub overload_paging: f64,
    /// ... and CPU utilisation below this [fraction].
    #[serde(default = "f05")]
    pub overload_cpu: f64,
    /// Underload: CPU utilisation above this [fraction] ...
    #[serde(default = "f08")]
    pub underload_cpu: f64,
    /// ... or page pulls below this fraction of the overload rate [fraction].
    #[serde(default = "f05")]
    pub underload_paging: f64,
    /// The leveler never sets aside a job when only this many remain active [jobs].
    #[serde(default = "one")]
    pub min_active: u32,
}

fn f08() -> f64 {
    0.8
}
fn f05() -> f64 {
    0.5
}
fn one() -> u32 {
    1
}

impl Default for LevelerSpec {
    fn default() -> Self {
        LevelerSpec {
            enabled: false,
            period_s: Secs(1.0),
            overload_paging: 0.8,
            overload_cpu: 0.5,
            underload_cpu: 0.8,
            underload_paging: 0.5,
            min_active: 1,
        }
    }
}

/// Identical background jobs started together, each running one program to completion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    /// The program (`t4-1xq`, `t4-1xqr-star`, ...; see docs/m44-programs.md).
    pub program: String,
    /// Copies run at once: the multiprogramming level [jobs].
    pub copies: u32,
    /// The program's sizes (defaults: the paper's).
    #[serde(default)]
    pub params: M44Params,
    /// Each copy reads input data of its own (seeded from the run's seed and its number); false:
    /// every copy reads the same data and makes the same reference string.
    #[serde(default = "yes")]
    pub distinct_inputs: bool,
}

fn yes() -> bool {
    true
}

/// Loads `toml_text` with overrides into a validated [`M44Spec`].
pub fn load_spec(
    toml_text: &str,
    origin: &str,
    overrides: &[(String, String)],
) -> Result<M44Spec, SysError> {
    from_value(
        crate::spec::toml_with_overrides(toml_text, origin, overrides)?,
        origin,
    )
}

/// A validated [`M44Spec`] from an already merged TOML value.
pub fn from_value(value: toml::Value, origin: &str) -> Result<M44Spec, SysError> {
    let spec: M44Spec = crate::spec::typed(value, origin)?;
    crate::kind::SystemKind::M44.expect(&spec.system, origin)?;
    spec.validate(origin)?;
    Ok(spec)
}

impl M44Spec {
    /// Cross-field checks serde cannot make. `origin` names the spec in errors.
    pub fn validate(&self, origin: &str) -> Result<(), SysError> {
        self.validate_store_and_workload(origin)?;
        self.validate_disk_and_leveler(origin)
    }

    /// `machine`, `memory` and `workload`: the M44's store and the program.
    fn validate_store_and_workload(&self, origin: &str) -> Result<(), SysError> {
        let bad = |path: &str, what: String| {
            Err(SysError::Invalid {
                origin: origin.into(),
                path: path.into(),
                what,
            })
        };
        let m = &self.machine;
        if m.model != MODEL {
            return bad("machine.model", format!("expected \"{MODEL}\""));
        }
        if !(m.memory_us.is_positive() && m.mapping_us.is_nonneg()) {
            return bad(
                "machine.memory_us",
                "expected a positive memory cycle and a mapping cycle ≥ 0 [µs]".into(),
            );
        }
        if !(m.time_slice_s.is_positive() && m.time_slice_s.get() * 1e6 >= m.reference_us().get()) {
            return bad(
                "machine.time_slice_s",
                format!(
                    "expected a slice of at least one reference ({:e} s) [s]",
                    m.reference_us().get() / 1e6
                ),
            );
        }
        let mem = &self.memory;
        if mem.page_words == 0 {
            return bad("memory.page_words", "expected at least 1 word".into());
        }
        if !mem.store_words.is_multiple_of(u64::from(mem.page_words)) {
            return bad(
                "memory.store_words",
                format!(
                    "expected a whole number of {}-word pages, got {}",
                    mem.page_words, mem.store_words
                ),
            );
        }
        let w = &self.workload;
        if w.copies == 0 {
            return bad("workload.copies", "expected at least 1 job".into());
        }
        if w.copies > u32::from(u16::MAX) {
            return bad("workload.copies", "expected at most 65535 jobs".into());
        }
        // Every job has at most one pull in flight; more frames than jobs leave a frame to
        // replace at every fault.
        if mem.frames() <= w.copies {
            return bad(
                "memory.store_words",
                format!(
                    "expected more page frames than jobs ({} frames for {} jobs)",
                    mem.frames(),
                    w.copies
                ),
            );
        }
        if let Err(e) = M44Program::from_name(&w.program) {
            return bad("workload.program", e.to_string());
        }
        if w.params.page_words != mem.page_words {
            return bad(
                "workload.params.page_words",
                format!(
                    "expected the machine's page size memory.page_words = {}",
                    mem.page_words
                ),
            );
        }
        Ok(())
    }

    /// `disk`, `replacement` and `leveler`.
    fn validate_disk_and_leveler(&self, origin: &str) -> Result<(), SysError> {
        let bad = |path: &str, what: String| {
            Err(SysError::Invalid {
                origin: origin.into(),
                path: path.into(),
                what,
            })
        };
        let pos = |x: f64| x.is_finite() && x > 0.0;
        let frac = |x: f64| (0.0..=1.0).contains(&x);
        let d = &self.disk;
        if d.count == 0 {
            return bad("disk.count", "expected at least one disk".into());
        }
        if !d.pull_s.is_positive() {
            return bad(
                "disk.pull_s",
                "expected a positive number of seconds".into(),
            );
        }
        if !d.push_s.is_nonneg() {
            return bad("disk.push_s", "expected seconds ≥ 0".into());
        }
        if !self.replacement.bifo_interval_s.is_positive() {
            return bad(
                "replacement.bifo_interval_s",
                "expected a positive number of seconds".into(),
            );
        }
        let l = &self.leveler;
        if !l.period_s.is_positive() {
            return bad(
                "leveler.period_s",
                "expected a positive number of seconds".into(),
            );
        }
        for (key, v) in [
            ("leveler.overload_cpu", l.overload_cpu),
            ("leveler.underload_cpu", l.underload_cpu),
            ("leveler.underload_paging", l.underload_paging),
        ] {
            if !frac(v) {
                return bad(key, format!("expected a fraction in [0, 1], got {v}"));
            }
        }
        if !pos(l.overload_paging) {
            return bad(
                "leveler.overload_paging",
                "expected a positive fraction of the disks' capacity".into(),
            );
        }
        if l.min_active == 0 {
            return bad("leveler.min_active", "expected at least 1 job".into());
        }
        Ok(())
    }
}
