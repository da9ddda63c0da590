//! The `[vmsp]` section: VM/SP mechanisms that the VM/370 model lacks (Tetzlaff et al. 1987,
//! "Background" and "Garbage collector"; fidelity notes §2.4, from the VM/SP System
//! Programmer's Guide, Rel. 3, pp. 40, 42, 56). Every key defaults to the VM/370 behaviour,
//! so a preset without the section runs as before.
//!
//! - `dispatch = "deadline"`: fair-share scheduling. A user joining the eligible list gets a
//!   deadline = now + `bias` x the in-queue slice it waits for; admission offers eligible users
//!   earliest deadline first, Q1 and Q2 waiters interleaved (VM/370 offers every Q1 waiter
//!   before any Q2 waiter). Dispatching (Q1 before Q2) is unchanged.
//! - Q3: a user who ends `q3_after` consecutive Q2 slices without a Q1 interaction joins Q3 and
//!   gets `q3_slices` Q2 slices per stay (bias scaled alike). Q3 counts as Q2 in the monitor
//!   (tetzlaff note 8: "those in Q1 and Q2 (including Q3)").
//! - CP spool pages: each transaction leaves `spool_pages_per_txn` pages of spool buffers owned
//!   by CP, written once and referenced no more until their file is printed; `spool_ring_pages`
//!   spool pages stay live (in storage or on paging slots), the oldest replaced by the newest.
//!   They are what VM's core-table scan, and the prototype's garbage collector, dispose of.

use serde::{Deserialize, Serialize};

/// Order in which eligible users are offered for admission.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VmspDispatch {
    /// VM/370: every Q1 waiter before any Q2 waiter.
    #[default]
    QueueOrder,
    /// VM/SP fair share: earliest deadline first over Q1, Q2 and Q3 waiters.
    Deadline,
}

/// VM/SP keys -- parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VmspSpec {
    /// Eligible-list order -- parameter (fidelity notes §2.4, VMSP-SPG p.40).
    #[serde(default)]
    pub dispatch: VmspDispatch,
    /// Deadline bias: the deadline is this many in-queue slices after queue-add [slices]
    /// -- parameter (VMSP-SPG p.42 "scaled bias"; the scale is not given, 1 [A]).
    #[serde(default = "one")]
    pub bias: f64,
    /// Consecutive Q2 slices without a Q1 interaction after which a user joins Q3 [slices]
    /// -- parameter (VMSP-SPG p.56: eight). 0: no Q3.
    #[serde(default)]
    pub q3_after: u32,
    /// Q2 slices per Q3 stay [slices] -- parameter (VMSP-SPG p.56: eight).
    #[serde(default = "eight")]
    pub q3_slices: u32,
    /// CP spool pages written per transaction [pages] -- parameter (not given; 0: none).
    #[serde(default)]
    pub spool_pages_per_txn: f64,
    /// Spool pages live at once, in storage or on slots [pages] -- parameter (not given).
    #[serde(default = "spool_ring")]
    pub spool_ring_pages: u32,
}

fn one() -> f64 {
    1.0
}
fn eight() -> u32 {
    8
}
fn spool_ring() -> u32 {
    1024
}

impl Default for VmspSpec {
    fn default() -> Self {
        VmspSpec {
            dispatch: VmspDispatch::QueueOrder,
            bias: 1.0,
            q3_after: 0,
            q3_slices: 8,
            spool_pages_per_txn: 0.0,
            spool_ring_pages: 1024,
        }
    }
}

impl VmspSpec {
    /// Checks the values; the error is (key below `vmsp`, what was expected).
    pub fn check(&self) -> Result<(), (&'static str, &'static str)> {
        if !(self.bias.is_finite() && self.bias > 0.0) {
            return Err(("bias", "expected a positive number of slices"));
        }
        if self.q3_slices == 0 {
            return Err(("q3_slices", "expected at least 1 slice"));
        }
        let s = self.spool_pages_per_txn;
        if !(s.is_finite() && (0.0..=64.0).contains(&s)) {
            return Err(("spool_pages_per_txn", "expected 0 to 64 pages"));
        }
        if self.spool_ring_pages == 0 {
            return Err(("spool_ring_pages", "expected at least 1 page"));
        }
        Ok(())
    }
}
