//! The compressed page pool in the event loop ([`crate::zswap`]): SELECT's page-outs stored
//! in the pool, faults served from it, and its oldest pages written back when it is full.

use super::*;
use crate::device::{IoOp, PageIo, SlotAddr};
use crate::monitor::{put_metric, Metric};

impl System<'_> {
    /// Stores the page of victim frame `f` in the pool instead of writing it: the frame is
    /// free at once. `false` (nothing done) without a pool, or when the pool cannot grow.
    pub(super) fn zswap_store(&mut self, f: u32) -> Result<bool, SysError> {
        let cap = match &self.paging.zswap {
            Some(z) => z.cap_frames as usize,
            None => return Ok(false),
        };
        // Room for one more page: write back the oldest while the pool is at its cap, take a
        // free frame when its pages need one more.
        while self.zswap_mut().needs_frame() {
            if self.zswap_mut().frames.len() < cap {
                match self.mem.take_for_pool() {
                    Some(pf) => self.zswap_mut().frames.push(pf),
                    None => {
                        self.zswap_mut().c.rejects += 1;
                        return Ok(false);
                    }
                }
            } else if !self.zswap_writeback()? {
                self.zswap_mut().c.rejects += 1;
                return Ok(false);
            }
        }
        let fr = self.mem.frames[f as usize];
        let pte = *self.mem.pte_mut(fr.owner, fr.page);
        if pte.slot != NONE {
            self.paging.io.release_slot(SlotAddr {
                dev: pte.dev,
                slot: pte.slot,
            });
            self.mem.pte_mut(fr.owner, fr.page).slot = NONE;
        }
        let z = self.zswap_mut();
        z.insert(fr.owner, fr.page);
        z.c.stores += 1;
        let cost = (z.spec.compress_us * 1e3).round() as u64;
        self.dispatch.sup_debt_ns += cost;
        self.mem.unmap(f);
        self.mem.put_free(f);
        Ok(true)
    }

    /// Serves the fault of waiter `w` on `(owner, idx)` from the pool into frame `f` (mapped
    /// already, page-in state): resident at once and changed, the entry gone, the frames the
    /// pool no longer needs freed. `false` when the page is not in the pool.
    pub(super) fn zswap_load(&mut self, w: u32, owner: u32, idx: u32, f: u32) -> bool {
        let Some(z) = self.paging.zswap.as_mut() else {
            return false;
        };
        if !z.remove(owner, idx) {
            return false;
        }
        z.c.loads += 1;
        self.dispatch.sup_debt_ns += (z.spec.decompress_us * 1e3).round() as u64;
        self.zswap_shrink();
        self.mem.set_state(f, FrameState::Resident);
        self.mem.frames[f as usize].changed = true;
        self.reclaim.steal.reused(f);
        self.fault_done(w, true);
        true
    }

    /// Writes the pool's oldest page back to a paging slot (decompressed, one page-out of
    /// its own). `false` when the pool is empty.
    fn zswap_writeback(&mut self) -> Result<bool, SysError> {
        let Some((owner, page)) = self.zswap_mut().pop_oldest() else {
            return Ok(false);
        };
        let z = self.zswap_mut();
        z.c.writebacks += 1;
        let cost = (z.spec.decompress_us * 1e3).round() as u64;
        self.dispatch.sup_debt_ns += cost + self.dispatch.cost.page;
        let (addr, _) = self.page_out_slot()?;
        self.give_slot(owner, page, addr);
        self.monitor.c.page_writes += 1.0;
        let mut one = vec![PageIo {
            op: IoOp::Write,
            slot: addr.slot,
            frame: NONE,
            queued: self.now,
        }];
        self.submit_group(addr.dev as usize, &mut one);
        self.zswap_shrink();
        Ok(true)
    }

    /// Returns to the free list the frames the pool's pages no longer need.
    fn zswap_shrink(&mut self) {
        let Some(z) = self.paging.zswap.as_mut() else {
            return;
        };
        let need = z.frames_for(z.len()) as usize;
        while z.frames.len() > need {
            let pf = z.frames.pop().expect("more frames than needed");
            self.mem.put_free(pf);
        }
    }

    fn zswap_mut(&mut self) -> &mut Zswap {
        self.paging.zswap.as_mut().expect("the pool is configured")
    }

    /// The pool's books against storage: its frames are the frames in pool state.
    pub(super) fn check_zswap(&self) -> Result<(), String> {
        let held = self.mem.pool_len();
        match &self.paging.zswap {
            None if held == 0 => Ok(()),
            None => Err(format!("{held} frames in pool state without a pool")),
            Some(z) => {
                z.check()?;
                if held != z.frames.len() {
                    return Err(format!(
                        "{held} frames in pool state, the pool lists {}",
                        z.frames.len()
                    ));
                }
                Ok(())
            }
        }
    }

    /// The pool's metrics since the warm-up (none without a pool).
    pub(super) fn zswap_metrics(&self, m: &mut BTreeMap<String, Metric>, time_s: f64) {
        let Some(z) = &self.paging.zswap else { return };
        let w = self.paging.zswap_warm;
        let t = time_s.max(f64::MIN_POSITIVE);
        let frames = f64::from(self.spec.memory.frames.get());
        let rate = |now: u64, then: u64| (now - then) as f64 / t;
        for (name, value, unit, what) in [
            (
                "zswap_store_rate",
                rate(z.c.stores, w.stores),
                "pages/s",
                "Page-outs compressed into the zswap pool instead of written, per second.",
            ),
            (
                "zswap_load_rate",
                rate(z.c.loads, w.loads),
                "pages/s",
                "Faults served by decompressing from the zswap pool, per second.",
            ),
            (
                "zswap_writeback_rate",
                rate(z.c.writebacks, w.writebacks),
                "pages/s",
                "Pages the full zswap pool wrote back to a paging device, per second.",
            ),
            (
                "zswap_reject_rate",
                rate(z.c.rejects, w.rejects),
                "pages/s",
                "Page-outs the zswap pool refused (no free frame to grow), per second.",
            ),
            (
                "zswap_pool_pct",
                100.0 * (z.c.frame_s - w.frame_s) / t / frames,
                "%",
                "Mean share of storage the zswap pool held.",
            ),
        ] {
            put_metric(m, name, value, unit, what);
        }
    }
}
