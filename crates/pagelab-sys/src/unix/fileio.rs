//! The file-system path of a process through the buffer cache (bufcache.rs) to the disk.
//!
//! A block access is a small state machine kept in the process (`Proc::bio`), so that a
//! process that sleeps in it (a miss, a busy buffer, no free buffer) resumes where it was:
//!
//! ```text
//!  Start ── getblk ──► Hit ───────────────────────► finish
//!    ▲           ├──► Miss: read started ─► Reading ─(iodone wakes)─► finish
//!    └─(woken)───┴──► Busy / NoneFree: sleep at PRIBIO on the buffer or the av-list
//!  finish: Read ─► brelse │ DelayedWrite ─► bdwrite │ SyncWrite ─► bwrite, sleep until done
//! ```
//!
//! V6 rdwri.c `readi` (`bread`, or `breada` when the block follows the last one read),
//! `writei` (a partial block: `bread` then `bdwrite`), iget.c `iupdat` (`bread` then `bwrite`,
//! used by `update`). Which block: a prototype's uniformly random block of its own file
//! (`workload.file_blocks` [A]), or its next block (`workload.file_access = "sequential"`);
//! update's i-node blocks (blocks 2.. of the root file system on drive 0, the i-list); the
//! console's commands, random blocks of drive 0's file system. Blocks of the swap drive skip
//! its swap area.
//!
//! Read-ahead (`breada`): once the access's own `getblk` is through, the block after it, if
//! no buffer names it, gets a buffer and an asynchronous read that nobody waits for. When
//! every buffer is busy V6's `getblk` would put the reader to sleep for it; here the
//! read-ahead is skipped instead.

use super::bufcache::{Blk, GetBlk};
use super::disk_request::{Req, ReqKind};
use super::machine::*;
use super::process::*;
use super::spec::FileAccess;
use rand::Rng as _;

impl Machine {
    /// Blocks of the file system on `drive` (the swap drive's less its swap area).
    fn fs_blocks(&self, drive: u32) -> u32 {
        let (d, s) = (&self.spec.disk, &self.spec.swapper);
        if drive == s.swap_drive {
            d.blocks_per_drive - s.swap_blocks
        } else {
            d.blocks_per_drive
        }
    }

    /// The physical block of file-system block `b` of `drive`.
    fn fs_to_disk(&self, drive: u32, b: u32) -> Blk {
        let s = &self.spec.swapper;
        if drive == s.swap_drive && b >= s.swap_base {
            (drive, b + s.swap_blocks)
        } else {
            (drive, b)
        }
    }

    /// A contiguous file of `n` blocks at a random place: (drive, first fs block).
    pub(super) fn place_file(&self, rng: &mut pagelab_core::Rng, n: u32) -> (u32, u32) {
        let drive = rng.gen_range(0..self.spec.disk.drives);
        let room = self.fs_blocks(drive).saturating_sub(n);
        (drive, rng.gen_range(0..=room))
    }

    /// The block of process `i`'s file that its next access of `kind` takes, and the block
    /// to read ahead: in a sequential walk, the next one when this read follows a read of the
    /// block before it (`readi`: `i_lastr + 1 == lbn`) and the file goes on. (A random access
    /// that happens to follow the last read, one in `file_blocks`, reads nothing ahead.)
    pub(super) fn file_block(&mut self, i: usize, kind: BioKind) -> (Blk, Option<Blk>) {
        let (drive, first) = self.procs[i].file;
        let n = self.spec.workload.file_blocks;
        let p = &mut self.procs[i];
        let k = match self.spec.workload.file_access {
            FileAccess::Random => {
                let k = p.rng.gen_range(0..n);
                return (self.fs_to_disk(drive, first + k), None);
            }
            FileAccess::Sequential => {
                let k = p.file_next;
                p.file_next = (k + 1) % n;
                k
            }
        };
        let mut ahead = None;
        if kind == BioKind::Read {
            let follows = k > 0 && p.last_read == Some(k - 1);
            p.last_read = Some(k);
            if follows && k + 1 < n {
                ahead = Some(self.fs_to_disk(drive, first + k + 1));
            }
        }
        (self.fs_to_disk(drive, first + k), ahead)
    }

    /// `breada`'s second half for process `i`'s access: the read-ahead block, unless a buffer
    /// already names it, is read asynchronously into a free buffer (none free: skipped).
    fn start_read_ahead(&mut self, i: usize) {
        let Some(ra) = self.procs[i].bio.as_mut().and_then(|b| b.ahead.take()) else {
            return;
        };
        if self.cache.incore(ra) {
            return;
        }
        match self.cache.getblk(ra) {
            GetBlk::Miss { buf, flushed } => {
                self.start_writes(flushed);
                self.cache.start_read(buf);
                self.st.read_aheads += 1.0;
                self.submit(Req {
                    kind: ReqKind::ReadAhead(buf),
                    drive: ra.0,
                    block: ra.1,
                    sectors: 1,
                    queued: self.now,
                });
            }
            GetBlk::NoneFree { flushed } => self.start_writes(flushed),
            // Not reached after `incore`; V6 releases a buffer found valid.
            GetBlk::Hit(k) => self.cache.brelse(k),
            GetBlk::Busy(_) => {}
        }
    }

    /// A random block of drive 0's file system (the console's commands).
    pub(super) fn system_block(&mut self) -> Blk {
        let n = self.fs_blocks(0);
        let b = self.sys_rng.gen_range(0..n);
        self.fs_to_disk(0, b)
    }

    /// The `k`-th i-node block of the root file system (the i-list starts at block 2).
    pub(super) fn inode_block(&self, k: u32) -> Blk {
        self.fs_to_disk(0, 2 + k)
    }

    fn start_write(&mut self, buf: usize, blk: Blk, by: Option<usize>) {
        self.st.fs_writes += 1.0;
        self.submit(Req {
            kind: ReqKind::Write(buf, by),
            drive: blk.0,
            block: blk.1,
            sectors: 1,
            queued: self.now,
        });
    }

    /// Delayed writes pushed out by `getblk` or `bflush` (`bawrite`).
    pub(super) fn start_writes(&mut self, flushed: Vec<(usize, Blk)>) {
        for (buf, blk) in flushed {
            self.start_write(buf, blk, None);
        }
    }

    /// One step of process `i`'s block access; `true` when it is complete (the process's
    /// step is then the access's `then`), `false` when the process sleeps.
    pub(super) fn bio_step(&mut self, i: usize) -> bool {
        let b = self.procs[i].bio.expect("a block access under way");
        match b.phase {
            Phase::Start => match self.cache.getblk(b.blk) {
                GetBlk::Hit(k) => {
                    self.st.cache_hits += 1.0;
                    self.start_read_ahead(i);
                    self.bio_finish(i, k)
                }
                GetBlk::Miss { buf, flushed } => {
                    self.start_writes(flushed);
                    self.cache.start_read(buf);
                    self.submit(Req {
                        kind: ReqKind::Read(buf),
                        drive: b.blk.0,
                        block: b.blk.1,
                        sectors: 1,
                        queued: self.now,
                    });
                    self.start_read_ahead(i);
                    self.buf_waiters[buf].push(i);
                    self.set_phase(i, Phase::Reading(buf));
                    self.sleep(i, PRIBIO);
                    false
                }
                GetBlk::Busy(k) => {
                    self.start_read_ahead(i);
                    self.buf_waiters[k].push(i);
                    self.sleep(i, PRIBIO);
                    false
                }
                GetBlk::NoneFree { flushed } => {
                    self.start_writes(flushed);
                    self.av_waiters.push(i);
                    self.sleep(i, PRIBIO);
                    false
                }
            },
            Phase::Reading(k) => self.bio_finish(i, k),
            Phase::Writing(_) => self.bio_done(i),
        }
    }

    fn set_phase(&mut self, i: usize, phase: Phase) {
        if let Some(b) = self.procs[i].bio.as_mut() {
            b.phase = phase;
        }
    }

    /// The buffer holds the block: use it and give it back (or write it and wait).
    fn bio_finish(&mut self, i: usize, k: usize) -> bool {
        let b = self.procs[i].bio.expect("a block access under way");
        self.procs[i].overhead_ns += self.spec.machine.bio_us.ns();
        match b.kind {
            BioKind::Read => self.cache.brelse(k),
            BioKind::DelayedWrite => self.cache.bdwrite(k),
            BioKind::SyncWrite => {
                self.cache.start_write(k);
                self.start_write(k, b.blk, Some(i));
                self.set_phase(i, Phase::Writing(k));
                self.sleep(i, PRIBIO);
                return false;
            }
        }
        self.wake_buffer(k);
        self.bio_done(i)
    }

    fn bio_done(&mut self, i: usize) -> bool {
        let b = self.procs[i].bio.take().expect("a block access under way");
        self.st.fs_accesses += 1.0;
        let p = &mut self.procs[i];
        p.step = b.then;
        if p.role == Role::Prototype {
            p.loops += 1;
            self.st.loops += 1.0;
        }
        true
    }

    /// `brelse`'s wake-ups: whoever waits for buffer `k` or for any free buffer.
    fn wake_buffer(&mut self, k: usize) {
        let mut w = std::mem::take(&mut self.buf_waiters[k]);
        w.append(&mut self.av_waiters);
        for j in w {
            self.wakeup(j);
        }
    }

    /// `iodone` of buffer `b`: a read leaves it busy for its reader; a write releases it
    /// (after waking a `bwrite` caller).
    pub(super) fn buffer_io_done(&mut self, kind: ReqKind, b: usize) {
        match kind {
            ReqKind::Read(_) => {
                self.cache.io_done(b, false);
                for j in std::mem::take(&mut self.buf_waiters[b]) {
                    self.wakeup(j);
                }
            }
            ReqKind::ReadAhead(_) => {
                self.cache.io_done(b, true);
                self.wake_buffer(b);
            }
            ReqKind::Write(_, by) => {
                self.cache.io_done(b, true);
                if let Some(p) = by {
                    self.wakeup(p);
                }
                self.wake_buffer(b);
            }
            ReqKind::Swap => {}
        }
    }
}
