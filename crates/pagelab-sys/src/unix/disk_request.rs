//! A request on the RK11 controller's queue (rk.c `rkstrategy`; disk.rs serves the queue).

use pagelab_core::Tick;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ReqKind {
    /// A block read into buffer `.0` (`bread`).
    Read(usize),
    /// A read-ahead into buffer `.0` (`breada`'s asynchronous read), released when done.
    ReadAhead(usize),
    /// Buffer `.0` written; `.1` the process waiting for it (`bwrite`), none if asynchronous
    /// (`bawrite`, `bdwrite` pushed out, `bflush`).
    Write(usize, Option<usize>),
    /// A swap transfer through the swapper's buffer.
    Swap,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Req {
    pub(super) kind: ReqKind,
    pub(super) drive: u32,
    pub(super) block: u32,
    pub(super) sectors: u32,
    pub(super) queued: Tick,
}
