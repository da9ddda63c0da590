//! What the kernel-rule engines share: the kernel series and the workingset counters they keep
//! (mm/workingset.c, `WORKINGSET_REFAULT_ANON`, `_ACTIVATE_ANON`, `_RESTORE_ANON`).

use crate::TraceError;
use serde::{Deserialize, Serialize};

/// The kernel series whose rules are followed (Debian's packages).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kernel {
    /// Debian's 6.1 (6.1.192).
    #[serde(rename = "6.1")]
    V6_1,
    /// Debian's 6.12 (6.12.117).
    #[serde(rename = "6.12")]
    V6_12,
}

impl Kernel {
    /// The series named `s` ("6.1" or "6.12").
    pub fn parse(s: &str) -> Result<Kernel, TraceError> {
        match s {
            "6.1" => Ok(Kernel::V6_1),
            "6.12" => Ok(Kernel::V6_12),
            _ => Err(TraceError::invalid(format!(
                "kernel `{s}`: unknown; expected 6.1 or 6.12"
            ))),
        }
    }
}

/// The anon workingset counters of memory.stat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workingset {
    /// `workingset_refault_anon`.
    pub refault: u64,
    /// `workingset_activate_anon`.
    pub activate: u64,
    /// `workingset_restore_anon`.
    pub restore: u64,
}
