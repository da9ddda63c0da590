//! The two in-queue classes of VM/370's scheduler (Tetzlaff et al. 1987, "Background"; the
//! CP-67 interactive and non-interactive queues of Bard 1975 §2): shared by load control, the
//! dispatcher, the guests' SCHEDULE records and the monitor.

/// The two in-queue classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum Queue {
    /// Interactive stay.
    Q1,
    /// Long-running stay.
    Q2,
}
