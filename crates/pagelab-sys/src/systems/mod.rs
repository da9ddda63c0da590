//! The systems: which components each one is built from and how they are connected. A spec's
//! `[system] kind` ([`SystemKind`]) names one, and nothing else of the spec does.
//!
//! ```text
//!  resolved spec tree ─► [system] kind ─┬─ vm   ─► SystemSpec ─► vm::   ─► System   (VM/370 family)
//!                                       ├─ unix ─► UnixSpec   ─► unix:: ─► Machine  (UNIX V6)
//!                                       └─ m44  ─► M44Spec    ─► m44::  ─► Machine  (M44/44X)
//!                                                                          │ pagelab_core::kernel::run
//!                                                                          ▼
//!                                                                        Report
//! ```
//!
//! Each file here is a wiring diagram: it reads its system's spec into components (load control,
//! dispatching, frame supply, devices, the workload's programs) and hands them to the machine
//! that runs them. The components themselves live in their own modules, the machines'
//! runtimes in [`crate::system`], [`crate::unix`] and [`crate::m44`].

pub mod m44;
pub mod unix;
pub mod vm;

use crate::kind::{SystemKind, SystemSection};
use crate::m44::M44Spec;
use crate::monitor::Report;
use crate::spec::{self, SystemSpec};
use crate::unix::UnixSpec;
use crate::workload::TraceOpener;
use crate::SysError;

/// A resolved spec tree read as the system its `[system] kind` names: typed and checked, ready
/// to build.
#[derive(Clone, Debug)]
pub enum AnySpec {
    /// The VM/370 family.
    Vm(Box<SystemSpec>),
    /// UNIX V6.
    Unix(Box<UnixSpec>),
    /// The M44/44X.
    M44(Box<M44Spec>),
}

impl AnySpec {
    /// Reads `value` as the system its `[system] kind` names, with every check made before a
    /// build (serde's, then the system's cross-field checks). `origin` names the spec in errors.
    pub fn from_value(value: toml::Value, origin: &str) -> Result<AnySpec, SysError> {
        Ok(match system_kind(&value, origin)? {
            SystemKind::M44 => AnySpec::M44(Box::new(crate::m44::spec::from_value(value, origin)?)),
            SystemKind::Unix => {
                AnySpec::Unix(Box::new(crate::unix::spec::from_value(value, origin)?))
            }
            SystemKind::Vm => {
                let spec: SystemSpec = spec::typed(value, origin)?;
                spec.validate(origin)?;
                AnySpec::Vm(Box::new(spec))
            }
        })
    }

    /// The system this spec describes.
    pub fn kind(&self) -> SystemKind {
        match self {
            AnySpec::Vm(_) => SystemKind::Vm,
            AnySpec::Unix(_) => SystemKind::Unix,
            AnySpec::M44(_) => SystemKind::M44,
        }
    }

    /// Builds the system with random streams from `seed` and runs it; trace programs (VM
    /// family only) are opened with `opener`, and `progress` gets the fraction done.
    pub fn run(
        &self,
        seed: u64,
        opener: Option<&TraceOpener>,
        progress: &mut dyn FnMut(f64),
    ) -> Result<Report, SysError> {
        match self {
            AnySpec::Vm(spec) => crate::System::build(spec, seed, opener)?.run(progress),
            AnySpec::Unix(spec) => crate::unix::run(spec, seed, progress),
            AnySpec::M44(spec) => crate::m44::run(spec, seed, progress),
        }
    }
}

/// The kind a resolved spec tree names in `[system] kind`; `vm` when it has no `[system]`.
pub fn system_kind(value: &toml::Value, origin: &str) -> Result<SystemKind, SysError> {
    #[derive(serde::Deserialize)]
    struct Head {
        #[serde(default)]
        system: SystemSection,
    }
    let head: Head = spec::typed(value.clone(), origin)?;
    Ok(head.system.kind)
}
