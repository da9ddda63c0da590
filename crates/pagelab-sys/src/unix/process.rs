//! A V6 process table entry (`struct proc`, proc.h, with what the model keeps of its
//! `user` area): its role, the step of its loop it is in, its scheduling fields and the block
//! access it is inside (fileio.rs carries the access out).

use super::bufcache::Blk;
use super::swapper::Stat;
use pagelab_core::{Rng, Tick};

/// V6 sleep priority of a disk wait (`PRIBIO`).
pub const PRIBIO: i32 = -50;
/// V6 sleep priority of terminal output (`TTOPRI`).
pub const TTOPRI: i32 = 20;
/// V6 sleep priority of terminal input (`TTIPRI`).
pub const TTIPRI: i32 = 10;
/// V6 sleep priority of `wait` (`PWAIT`).
pub const PWAIT: i32 = 40;
/// V6 sleep priority of the `sleep` system call (`PSLEP`).
pub const PSLEP: i32 = 90;
/// Clicks of the per-process u-area, swapped with the image (`USIZE`) [clicks].
pub const USIZE: u32 = 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// A compute stretch in user mode; what follows depends on the role.
    Compute,
    /// Prototype: its file I/O system call begins.
    Disk,
    /// Prototype: perhaps a `sleep(n)` call.
    SleepCall,
    /// Prototype: perhaps terminal output.
    TtyStart,
    /// Writing characters to the terminal (`ttwrite`).
    TtyWrite,
    /// Inside a block access through the buffer cache (fileio.rs).
    Bio,
    /// Inside `sslep` until the given second (callout.rs).
    Slept(u64),
    /// Asleep for good: init in `wait`, a getty with no input.
    Idle,
    /// update: `sync`'s synchronous writes, this many left.
    Sync(u32),
    /// Console shell: waiting for a command line at `TTIPRI`.
    ConsoleWait,
    /// Console shell: blocks left to read for the command.
    ConsoleRead(u32),
}

/// What a process is: one of Chanson's prototypes or one of the system's own (sysproc.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    Prototype,
    Init,
    Update,
    Getty,
    Shell,
}

pub(super) struct Proc {
    pub(super) role: Role,
    pub(super) bio: Option<Bio>,
    pub(super) file: (u32, u32),
    /// The next block of the file a sequential walk takes, and the last block read
    /// (the i-node's `i_lastr`).
    pub(super) file_next: u32,
    pub(super) last_read: Option<u32>,
    pub(super) stat: Stat,
    pub(super) loaded: bool,
    pub(super) locked: bool,
    pub(super) time: u8,
    pub(super) cpu: u32,
    pub(super) pri: i32,
    pub(super) size: u32,
    pub(super) core: Option<u32>,
    pub(super) swap: Option<u32>,
    pub(super) text: Option<usize>,
    pub(super) step: Step,
    pub(super) left_ns: u64,
    pub(super) overhead_ns: u64,
    pub(super) sleep_pri: i32,
    pub(super) woke_at: Option<Tick>,
    /// Woken while swapped out: its reaction waits for a swap-in.
    pub(super) woke_out: bool,
    pub(super) from_sleep: bool,
    pub(super) ready_since: Tick,
    pub(super) tty_q: f64,
    pub(super) tty_t: Tick,
    /// When this process's own sleep and terminal clocks next fire [ns]; 0: not started
    /// (`workload.sleep_every_s`, `tty_every_s`).
    pub(super) next_sleep_ns: u64,
    pub(super) next_tty_ns: u64,
    pub(super) tty_left: u32,
    pub(super) rng: Rng,
    pub(super) loops: u64,
    pub(super) cpu_ns: u64,
    pub(super) disk_ios: u64,
    pub(super) swap_outs: u64,
    pub(super) reaction_ms: f64,
    pub(super) reactions: u64,
}

pub(super) struct Text {
    pub(super) size: u32,
    pub(super) core: Option<u32>,
    pub(super) in_core: u32,
}

/// How a block is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BioKind {
    /// `bread`, then `brelse`.
    Read,
    /// `bread`, then `bdwrite` (a partial-block write).
    DelayedWrite,
    /// `bread`, then `bwrite`: the caller waits for the write.
    SyncWrite,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    Start,
    Reading(usize),
    Writing(usize),
}

/// A block access under way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Bio {
    pub(super) blk: Blk,
    pub(super) kind: BioKind,
    pub(super) phase: Phase,
    /// The step that follows it.
    pub(super) then: Step,
    /// The block to read ahead (`breada`'s `rablkno`), until it is started.
    pub(super) ahead: Option<Blk>,
}

impl Bio {
    pub(super) fn new(blk: Blk, kind: BioKind, then: Step) -> Bio {
        Bio {
            blk,
            kind,
            phase: Phase::Start,
            then,
            ahead: None,
        }
    }
}
