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
