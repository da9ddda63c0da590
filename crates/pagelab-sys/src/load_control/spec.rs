//! The load controller's section of a spec: which controller, and its parameters.

use serde::{Deserialize, Serialize};

/// Load controllers of the base systems.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum LoadControlSpec {
    /// CP-67's scheduler, the baseline of Bard's tables (bard ref. [6]).
    Cp67(super::cp67_scheduler::Cp67Spec),
    /// VM/370's SUMWSS ≤ APAGES scheduler.
    Vm370(StorageTestSpec),
    /// Bard's Ψ-scheduler (bard §8–10).
    Psi(super::psi_scheduler::PsiSchedulerSpec),
}

impl LoadControlSpec {
    /// The parameters of VM/370's storage-test scheduler; `None` for the others.
    pub fn params(&self) -> Option<&StorageTestSpec> {
        match self {
            LoadControlSpec::Vm370(p) => Some(p),
            LoadControlSpec::Cp67(_) | LoadControlSpec::Psi(_) => None,
        }
    }
}

/// For an error inside `[load_control]`, whose tagged form hides the key: the table read again
/// as the controller its `kind` names. Returns the key under `load_control` and the message, or
/// `None` when the table reads cleanly that way (the error was the kind itself).
pub fn locate_error(table: &toml::Value) -> Option<(String, String)> {
    fn as_<T: serde::de::DeserializeOwned>(v: toml::Value) -> Option<(String, String)> {
        let e = serde_path_to_error::deserialize::<_, T>(v).err()?;
        Some((e.path().to_string(), e.into_inner().to_string()))
    }
    let kind = table.get("kind")?.as_str()?.to_owned();
    let mut rest = table.clone();
    rest.as_table_mut()?.remove("kind");
    match kind.as_str() {
        "cp67" => as_::<super::cp67_scheduler::Cp67Spec>(rest),
        "vm370" => as_::<StorageTestSpec>(rest),
        "psi" => as_::<super::psi_scheduler::PsiSchedulerSpec>(rest),
        _ => None,
    }
}

/// Parameters of a storage-test scheduler (admit while the projected working sets fit).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageTestSpec {
    /// Q1 in-queue time slice [s of CPU] (default: bard §9, 0.25 s on CP-67).
    #[serde(default = "default_q1_slice")]
    pub q1_slice_s: f64,
    /// Q2 in-queue time slice [s of CPU] (default: bard §9, 2.5 s on CP-67).
    #[serde(default = "default_q2_slice")]
    pub q2_slice_s: f64,
    /// Q1 candidates are admitted while SUMWSS + P ≤ APAGES × this (tetzlaff: 1.25 on VM).
    #[serde(default = "one_f")]
    pub q1_overcommit: f64,
    /// How a user's working set is projected at queue-drop.
    pub projection: ProjectionKind,
    /// Projected working set of a user never dropped yet [pages].
    pub initial_ws_pages: f64,
    /// Keep the user in queue across intra-transaction terminal writes (tetzlaff's false drops).
    #[serde(default)]
    pub eliminate_false_drops: bool,
    /// Memory-pressure feedback on the storage test (ours; absent: VM/370's rule alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pressure: Option<PressureFeedback>,
}

/// Admission throttled by memory pressure, as Linux's pressure stall information drives
/// userspace reclaim: after each monitor interval the storage test's APAGES is scaled by a
/// factor, lowered by `step` when the share of the interval with a user waiting for a page
/// ("some", `pressure_some_pct`) exceeded `target_some_pct`, raised by `step` otherwise, and
/// kept within [`min_factor`, 1]. Nobody in queue is deactivated; the factor only holds back
/// admissions. Ours: no system of the papers has it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PressureFeedback {
    /// Pressure above which admission is throttled [% of the interval].
    pub target_some_pct: f64,
    /// Change of the factor per interval [1] (default 0.05).
    #[serde(default = "default_step")]
    pub step: f64,
    /// Lowest factor [1] (default 0.5).
    #[serde(default = "default_min_factor")]
    pub min_factor: f64,
}

fn default_step() -> f64 {
    0.05
}
fn default_min_factor() -> f64 {
    0.5
}

impl PressureFeedback {
    /// The first parameter out of range: (key under `load_control`, what was expected).
    pub fn check(&self) -> Result<(), (&'static str, &'static str)> {
        if !(self.target_some_pct.is_finite()
            && self.target_some_pct >= 0.0
            && self.target_some_pct <= 100.0)
        {
            return Err((
                "pressure.target_some_pct",
                "expected a share of time 0-100 [%]",
            ));
        }
        if !(self.step.is_finite() && self.step > 0.0 && self.step < 1.0) {
            return Err(("pressure.step", "expected a factor step between 0 and 1"));
        }
        if !(self.min_factor.is_finite() && self.min_factor > 0.0 && self.min_factor <= 1.0) {
            return Err(("pressure.min_factor", "expected a factor in (0, 1]"));
        }
        Ok(())
    }

    /// The next factor after an interval of `d.time_s` with `d.pressure_some_s` under pressure.
    pub fn next_factor(&self, factor: f64, d: &crate::monitor::Counters) -> f64 {
        if d.time_s <= 0.0 {
            return factor;
        }
        if 100.0 * d.pressure_some_s / d.time_s > self.target_some_pct {
            (factor - self.step).max(self.min_factor)
        } else {
            (factor + self.step).min(1.0)
        }
    }
}

fn default_q1_slice() -> f64 {
    0.25
}
fn default_q2_slice() -> f64 {
    2.5
}

/// Working-set projection at queue-drop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProjectionKind {
    /// P = A, the last stay's mean resident set at page reads (bard §9 S/Q).
    Last,
    /// VM/370's damped rule: P = (A + P)/2 when the trend reverses, else A (fidelity §2.2).
    Damped,
}
fn one_f() -> f64 {
    1.0
}
