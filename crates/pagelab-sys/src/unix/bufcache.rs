//! The block buffer cache between processes and the disk (V6 bio.c; Lions ch. 17-18).
//!
//! ```text
//!  bread(blk) ──► getblk ──► cached, free ──► hit: notavail, use, brelse (to the LRU tail)
//!                   │   └──► cached, busy ──► sleep on the buffer (B_WANTED) until iodone
//!                   └──────► not cached ──► take the av-list head (least recently released);
//!                                           B_DELWRI? bawrite it (async) and take the next;
//!                                           none free: sleep on the av-list; else read, iowait
//!  bdwrite(buf): B_DELWRI | B_DONE, brelse: written later when it reaches the head, or by sync
//!  bflush (update's sync every 30 s): bawrite every delayed-write buffer on the av-list
//! ```
//!
//! `NBUF` buffers of 512 bytes (param.h: 15) in kernel space: they are not part of the
//! swappable core MM. The av-list is LRU: `brelse` appends at the tail, `getblk` reuses
//! the head. This module is the bookkeeping only; the machine starts the transfers the
//! verdicts ask for and calls [`BufCache::io_done`] when they finish.
//!
//! Read-ahead (`breada`) starts an asynchronous read into a buffer nobody waits for; `iodone`
//! releases it, valid, to the av-list tail. Deviations: no `B_AGE`; blocks are named by
//! (drive, block) without a hash chain (V6 scans a device's list linearly).

use std::collections::VecDeque;

/// A block on a drive: `(drive, block number)`.
pub type Blk = (u32, u32);

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Buf {
    blk: Option<Blk>,
    /// Holds valid data (`B_DONE`).
    valid: bool,
    /// Delayed write pending (`B_DELWRI`).
    dirty: bool,
    /// Taken off the av-list: in use by a process or under I/O (`B_BUSY`).
    busy: bool,
    /// A transfer is under way.
    io: bool,
}

/// What `getblk` found for a block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GetBlk {
    /// Cached and free: now busy for the caller, no I/O. Buffer index.
    Hit(usize),
    /// Cached but busy (in use or under I/O): the caller sleeps until it is released.
    Busy(usize),
    /// Not cached: buffer `buf` now holds the block, busy and invalid; the caller reads it.
    /// `flushed` are delayed-write buffers pushed out on the way (`bawrite`, async).
    Miss {
        /// Buffer index.
        buf: usize,
        /// Delayed writes started to free it: (buffer, block).
        flushed: Vec<(usize, Blk)>,
    },
    /// Every buffer busy: the caller sleeps until any is released (`bfreelist` B_WANTED).
    /// `flushed` as for `Miss`.
    NoneFree {
        /// Delayed writes started while looking.
        flushed: Vec<(usize, Blk)>,
    },
}

/// The buffer pool and its av-list.
#[derive(Clone, Debug)]
pub struct BufCache {
    bufs: Vec<Buf>,
    av: VecDeque<usize>,
}

impl BufCache {
    /// `n` empty buffers (V6 `binit`), all on the av-list.
    pub fn new(n: usize) -> BufCache {
        BufCache {
            bufs: vec![Buf::default(); n],
            av: (0..n).collect(),
        }
    }

    /// Buffers in the pool.
    pub fn len(&self) -> usize {
        self.bufs.len()
    }

    /// True for a pool of no buffers.
    pub fn is_empty(&self) -> bool {
        self.bufs.is_empty()
    }

    fn find(&self, blk: Blk) -> Option<usize> {
        self.bufs.iter().position(|b| b.blk == Some(blk))
    }

    /// `incore`: whether a buffer names `blk`, free or busy.
    pub fn incore(&self, blk: Blk) -> bool {
        self.find(blk).is_some()
    }

    fn notavail(&mut self, i: usize) {
        if let Some(k) = self.av.iter().position(|&j| j == i) {
            self.av.remove(k);
        }
        self.bufs[i].busy = true;
    }

    /// `getblk`: the buffer for `blk`, per the verdicts of [`GetBlk`].
    pub fn getblk(&mut self, blk: Blk) -> GetBlk {
        if let Some(i) = self.find(blk) {
            if self.bufs[i].busy {
                return GetBlk::Busy(i);
            }
            self.notavail(i);
            return if self.bufs[i].valid {
                GetBlk::Hit(i)
            } else {
                GetBlk::Miss {
                    buf: i,
                    flushed: Vec::new(),
                }
            };
        }
        let mut flushed = Vec::new();
        while let Some(i) = self.av.pop_front() {
            let b = &mut self.bufs[i];
            b.busy = true;
            if b.dirty {
                // bawrite: written asynchronously, released when the write completes.
                b.dirty = false;
                b.io = true;
                flushed.push((i, b.blk.expect("a dirty buffer names its block")));
                continue;
            }
            *b = Buf {
                blk: Some(blk),
                valid: false,
                dirty: false,
                busy: true,
                io: false,
            };
            return GetBlk::Miss { buf: i, flushed };
        }
        GetBlk::NoneFree { flushed }
    }

    /// A read is started into buffer `i` (after a `Miss`).
    pub fn start_read(&mut self, i: usize) {
        self.bufs[i].io = true;
    }

    /// A write of buffer `i` (busy, held by the caller) is started (`bwrite`).
    pub fn start_write(&mut self, i: usize) {
        let b = &mut self.bufs[i];
        b.io = true;
        b.valid = true;
        b.dirty = false;
    }

    /// `iodone`: the transfer of buffer `i` finished; its data is valid. An asynchronous
    /// transfer (`B_ASYNC`: a write pushed out, a read-ahead) releases the buffer; a read
    /// stays busy for the process that waits.
    pub fn io_done(&mut self, i: usize, asynchronous: bool) {
        let b = &mut self.bufs[i];
        b.io = false;
        b.valid = true;
        if asynchronous {
            self.brelse(i);
        }
    }

    /// `brelse`: back on the av-list tail; `dirty` makes it a delayed write (`bdwrite`).
    pub fn brelse(&mut self, i: usize) {
        let b = &mut self.bufs[i];
        if !b.busy {
            return;
        }
        b.busy = false;
        self.av.push_back(i);
    }

    /// `bdwrite`: marks buffer `i` (busy, valid) for a delayed write and releases it.
    pub fn bdwrite(&mut self, i: usize) {
        self.bufs[i].dirty = true;
        self.bufs[i].valid = true;
        self.brelse(i);
    }

    /// `bflush`: every delayed-write buffer on the av-list is written asynchronously.
    pub fn bflush(&mut self) -> Vec<(usize, Blk)> {
        let dirty: Vec<usize> = self
            .av
            .iter()
            .copied()
            .filter(|&i| self.bufs[i].dirty)
            .collect();
        let mut out = Vec::with_capacity(dirty.len());
        for i in dirty {
            self.notavail(i);
            let b = &mut self.bufs[i];
            b.dirty = false;
            b.io = true;
            out.push((i, b.blk.expect("a dirty buffer names its block")));
        }
        out
    }

    /// Whether buffer `i` is busy.
    pub fn is_busy(&self, i: usize) -> bool {
        self.bufs[i].busy
    }

    /// Delayed-write buffers not yet written.
    pub fn dirty(&self) -> usize {
        self.bufs.iter().filter(|b| b.dirty).count()
    }

    /// The books: every buffer is on the av-list exactly when it is not busy; a buffer under
    /// I/O is busy; a dirty buffer holds valid data.
    pub fn check(&self) -> Result<(), String> {
        for (i, b) in self.bufs.iter().enumerate() {
            let on_av = self.av.iter().filter(|&&j| j == i).count();
            if on_av > 1 || (on_av == 1) == b.busy {
                return Err(format!(
                    "buffer {i}: busy {} but {on_av} on the av-list",
                    b.busy
                ));
            }
            if b.io && !b.busy {
                return Err(format!("buffer {i}: under I/O but free"));
            }
            if b.dirty && !b.valid {
                return Err(format!("buffer {i}: delayed write of invalid data"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(c: &mut BufCache, blk: Blk) -> GetBlk {
        let v = c.getblk(blk);
        if let GetBlk::Miss { buf, .. } = v {
            c.start_read(buf);
            c.io_done(buf, false);
        }
        v
    }

    #[test]
    fn a_read_ahead_is_incore_while_under_io_and_free_and_valid_after() {
        let mut c = BufCache::new(2);
        let GetBlk::Miss { buf, .. } = c.getblk((0, 7)) else {
            panic!("miss expected")
        };
        c.start_read(buf);
        assert!(c.incore((0, 7)) && !c.incore((0, 8)));
        // Under I/O nobody holds it, yet it is busy: a reader sleeps on it.
        assert_eq!(c.getblk((0, 7)), GetBlk::Busy(buf));
        c.io_done(buf, true);
        c.check().unwrap();
        assert_eq!(c.getblk((0, 7)), GetBlk::Hit(buf));
    }

    #[test]
    fn a_released_block_hits_and_the_least_recently_released_is_reused() {
        let mut c = BufCache::new(2);
        for b in [1, 2] {
            let GetBlk::Miss { buf, .. } = read(&mut c, (0, b)) else {
                panic!("miss expected")
            };
            c.brelse(buf);
        }
        // Block 1 again: a hit; released, it becomes the most recent.
        let GetBlk::Hit(i) = c.getblk((0, 1)) else {
            panic!("hit expected")
        };
        c.brelse(i);
        // Block 3 takes the buffer of block 2, the least recently released.
        let GetBlk::Miss { buf, flushed } = read(&mut c, (0, 3)) else {
            panic!("miss expected")
        };
        assert!(flushed.is_empty());
        c.brelse(buf);
        assert!(matches!(c.getblk((0, 1)), GetBlk::Hit(_)));
        // Block 2 takes the one free buffer (block 3's); then none is left.
        assert!(matches!(c.getblk((0, 2)), GetBlk::Miss { .. }));
        assert!(matches!(c.getblk((0, 4)), GetBlk::NoneFree { .. }));
        c.check().unwrap();
    }

    #[test]
    fn a_delayed_write_is_pushed_out_when_its_buffer_is_reused() {
        let mut c = BufCache::new(2);
        let GetBlk::Miss { buf: a, .. } = read(&mut c, (0, 1)) else {
            panic!()
        };
        c.bdwrite(a);
        let GetBlk::Miss { buf: b, .. } = read(&mut c, (0, 2)) else {
            panic!()
        };
        c.brelse(b);
        assert_eq!(c.dirty(), 1);
        // Block 3: the head is the dirty block 1, written async; block 2's buffer is taken.
        let GetBlk::Miss { buf, flushed } = c.getblk((0, 3)) else {
            panic!()
        };
        assert_eq!(flushed, vec![(a, (0, 1))]);
        assert_eq!(buf, b);
        assert!(c.is_busy(a));
        c.io_done(a, true);
        assert!(!c.is_busy(a));
        assert_eq!(c.dirty(), 0);
        c.check().unwrap();
    }

    #[test]
    fn bflush_writes_every_delayed_buffer_and_a_busy_block_makes_the_caller_wait() {
        let mut c = BufCache::new(3);
        for b in [1, 2] {
            let GetBlk::Miss { buf, .. } = read(&mut c, (1, b)) else {
                panic!()
            };
            c.bdwrite(buf);
        }
        let flushed = c.bflush();
        assert_eq!(flushed.len(), 2);
        assert!(matches!(c.getblk((1, 1)), GetBlk::Busy(_)));
        for (i, _) in flushed {
            c.io_done(i, true);
        }
        assert!(matches!(c.getblk((1, 1)), GetBlk::Hit(_)));
        c.check().unwrap();
    }
}
