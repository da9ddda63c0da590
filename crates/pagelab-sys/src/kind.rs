//! Which system a spec describes: `[system] kind = "vm" | "unix" | "m44"`.
//!
//! The kind is read once, at the configuration boundary, and selects the system's components:
//! the VM/370 family (CP-67, VM/370, VM/SP and HPO: demand paging or page swapping under a
//! queue-based load controller), UNIX V6 (whole-process swapping under `sched`, Chanson 1982) or
//! the M44/44X (batch 44X jobs under global replacement, Brawn & Gustavson 1968). No other key
//! of the spec decides which system runs.

use serde::{Deserialize, Serialize};

use crate::error::SysError;

/// The system a spec describes -- parameter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SystemKind {
    /// The VM/370 family: CP-67, VM/370, VM/SP, VM/SP HPO (the default when `[system]` is absent).
    #[default]
    Vm,
    /// UNIX Sixth Edition: whole-process swapping.
    Unix,
    /// The IBM M44/44X: multiprogrammed batch 44X jobs.
    M44,
}

impl SystemKind {
    /// The kind's name in a spec.
    pub fn name(self) -> &'static str {
        match self {
            SystemKind::Vm => "vm",
            SystemKind::Unix => "unix",
            SystemKind::M44 => "m44",
        }
    }

    /// An error unless `section` names `self` (a spec loaded by another system's loader).
    pub fn expect(self, section: &SystemSection, origin: &str) -> Result<(), SysError> {
        if section.kind == self {
            return Ok(());
        }
        Err(SysError::Invalid {
            origin: origin.into(),
            path: "system.kind".into(),
            what: format!(
                "this loader reads \"{}\" specs, the spec says \"{}\": expected it run with run_toml",
                self.name(),
                section.kind.name()
            ),
        })
    }
}

/// The `[system]` table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SystemSection {
    /// Which system: `vm`, `unix` or `m44` -- parameter.
    #[serde(default)]
    pub kind: SystemKind,
}

impl SystemSection {
    /// `[system] kind = "unix"`.
    pub fn unix() -> SystemSection {
        SystemSection {
            kind: SystemKind::Unix,
        }
    }

    /// `[system] kind = "m44"`.
    pub fn m44() -> SystemSection {
        SystemSection {
            kind: SystemKind::M44,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> Result<SystemKind, String> {
        let v: toml::Value = toml::from_str(text).unwrap();
        crate::system_kind(&v, "x.toml").map_err(|e| e.to_string())
    }

    #[test]
    fn kinds_parse_and_default_to_vm() {
        assert_eq!(kind("[system]\nkind = \"unix\"").unwrap(), SystemKind::Unix);
        assert_eq!(kind("[system]\nkind = \"m44\"").unwrap(), SystemKind::M44);
        assert_eq!(kind("[memory]\nframes = 3").unwrap(), SystemKind::Vm);
    }

    #[test]
    fn unknown_kind_is_one_line_naming_the_key() {
        let e = kind("[system]\nkind = \"vax\"").unwrap_err();
        assert!(!e.contains('\n'), "{e}");
        assert!(e.starts_with("x.toml: system.kind"), "{e}");
        assert!(
            e.contains("vax") && e.contains("vm") && e.contains("m44"),
            "{e}"
        );
    }

    #[test]
    fn unknown_key_in_system_table_is_an_error() {
        let e = kind("[system]\nkind = \"vm\"\nengine = 1").unwrap_err();
        assert!(e.contains("system") && e.contains("engine"), "{e}");
    }
}
