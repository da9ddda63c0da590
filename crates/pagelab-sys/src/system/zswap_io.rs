//! The compressed page pool in the event loop ([`crate::zswap`]): SELECT's page-outs stored
//! in the pool, faults served from it, and its oldest pages written back when it is full. The
//! pool's rules are zswap's, shared with the trace replay of Linux
//! (`pagelab_trace::linux::zswap`); what they cost in time and I/O is here.

use super::*;
use crate::device::{IoOp, PageIo, SlotAddr};
use crate::monitor::{put_metric, Metric};
use crate::zswap::StoreVerdict;

impl System<'_> {
    /// Stores the page of victim frame `f` in the pool instead of writing it: the page takes
    /// its swap slot now (Linux's `add_to_swap` before `zswap_store`) and its frame is free at
    /// once. `false` (nothing done) without a pool, or when the pool refuses: at its cap or
    /// not yet back to its threshold (then the shrink worker writes back), the page larger
    /// than a page compressed, or no free frame for the pool to grow (`reject_alloc_fail`).
    pub(super) fn zswap_store(&mut self, f: u32) -> Result<bool, SysError> {
        let fr = self.mem.frames[f as usize];
        let seed = self.seed;
        let Some(z) = self.paging.zswap.as_mut() else {
            return Ok(false);
        };
        let len = z.length_of(seed, fr.owner, fr.page);
        match z.admit(len) {
            StoreVerdict::Store => {}
            StoreVerdict::Full { shrink } => {
                z.c.rejects += 1;
                if shrink {
                    self.zswap_shrink_worker()?;
                }
                return Ok(false);
            }
            StoreVerdict::Poor => {
                z.c.rejects_poor += 1;
                return Ok(false);
            }
        }
        if z.frames_with(len) as usize > z.frames.len() {
            match self.mem.take_for_pool() {
                Some(pf) => self.zswap_mut().frames.push(pf),
                None => {
                    self.zswap_mut().c.rejects_alloc += 1;
                    return Ok(false);
                }
            }
        }
        let pte = *self.mem.pte_mut(fr.owner, fr.page);
        if pte.slot != NONE {
            self.paging.io.release_slot(SlotAddr {
                dev: pte.dev,
                slot: pte.slot,
            });
        }
        let (addr, _) = self.paging.page_out_slot()?;
        self.paging
            .give_slot(&mut self.mem, fr.owner, fr.page, addr);
        let z = self.zswap_mut();
        z.insert(fr.owner, fr.page, len);
        z.c.stores += 1;
        z.c.zero_filled += u64::from(len == 0);
        let cost = (z.spec.compress_us * 1e3).round() as u64;
        self.ctx.sup_debt_ns += cost;
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
        self.ctx.sup_debt_ns += (z.spec.decompress_us * 1e3).round() as u64;
        self.zswap_shrink();
        self.mem.set_state(f, FrameState::Resident);
        self.mem.frames[f as usize].changed = true;
        self.reclaim.steal.reused(f);
        self.fault_done(w, true);
        true
    }

    /// The shrink worker (`shrink_worker`): the pool's oldest pages written back to the slots
    /// they kept at store, decompressed, one page-out each, until the pool is at or below its
    /// accept threshold or holds no page with bytes.
    fn zswap_shrink_worker(&mut self) -> Result<(), SysError> {
        while let Some((owner, page)) = self.zswap_mut().next_writeback() {
            let z = self.zswap_mut();
            z.c.writebacks += 1;
            let cost = (z.spec.decompress_us * 1e3).round() as u64;
            self.ctx.sup_debt_ns += cost + self.ctx.cost.page;
            let pte = *self.mem.pte_mut(owner, page);
            let addr = if pte.slot == NONE {
                let (addr, _) = self.paging.page_out_slot()?;
                self.paging.give_slot(&mut self.mem, owner, page, addr);
                addr
            } else {
                SlotAddr {
                    dev: pte.dev,
                    slot: pte.slot,
                }
            };
            self.ctx.c.page_writes += 1.0;
            let mut one = vec![PageIo {
                op: IoOp::Write,
                slot: addr.slot,
                frame: NONE,
                queued: self.ctx.now,
            }];
            self.paging
                .submit_group(&mut self.ctx, addr.dev as usize, &mut one);
        }
        self.zswap_shrink();
        Ok(())
    }

    /// Returns to the free list the frames the pool's pages no longer need.
    fn zswap_shrink(&mut self) {
        let Some(z) = self.paging.zswap.as_mut() else {
            return;
        };
        let need = z.frames_needed() as usize;
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
        let frames = f64::from(self.monitor.frames);
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
                "Page-outs the zswap pool refused at its cap or above its accept threshold, per second.",
            ),
            (
                "zswap_reject_poor_rate",
                rate(z.c.rejects_poor, w.rejects_poor),
                "pages/s",
                "Page-outs the zswap pool refused because they compressed to more than a page, per second.",
            ),
            (
                "zswap_reject_alloc_rate",
                rate(z.c.rejects_alloc, w.rejects_alloc),
                "pages/s",
                "Page-outs the zswap pool refused for want of a free frame to grow, per second.",
            ),
            (
                "zswap_zero_filled_pct",
                100.0 * (z.c.zero_filled - w.zero_filled) as f64
                    / (z.c.stores - w.stores).max(1) as f64,
                "%",
                "Stores of zero-filled pages (no bytes in the pool), per store.",
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

#[cfg(test)]
mod tests {
    use crate::memory::{FrameState, NONE};
    use crate::{load_spec, System};

    /// VM/370 on 64 frames with a pool of 6 (10 %) at a page per frame: 5 at the threshold.
    fn pooled_system() -> System<'static> {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../presets/vm370.toml"
        ))
        .unwrap();
        let o = [
            ("workload.users", "6"),
            ("memory.frames", "64"),
            ("memory.zswap.max_pool_percent", "10"),
            ("memory.zswap.compression_ratio", "1"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()));
        let spec = load_spec(&text, "vm370.toml", &o).unwrap();
        System::build(&spec, 1, None).unwrap()
    }

    #[test]
    fn a_stored_page_keeps_its_slot_and_is_written_back_to_it() {
        let mut sys = pooled_system();
        let mut slots = Vec::new();
        for page in 0..7 {
            let f = sys.mem.take_free().unwrap();
            sys.mem.map(0, page, f, FrameState::Resident);
            sys.mem.frames[f as usize].changed = true;
            let stored = sys.zswap_store(f).unwrap();
            assert_eq!(stored, page < 6, "page {page}: the pool's cap is 6 frames");
            if stored {
                let pte = *sys.mem.pte_mut(0, page);
                assert_ne!(pte.slot, NONE, "the slot is taken at store and kept");
                slots.push((pte.dev, pte.slot));
            }
        }
        // The seventh store found the pool at its cap: refused, and the oldest page written
        // back, to the slot it kept, until the pool is at 5 frames.
        let z = sys.paging.zswap.as_ref().unwrap();
        assert_eq!((z.c.stores, z.c.rejects, z.c.writebacks), (6, 1, 1));
        assert!(!z.holds(0, 0) && z.holds(0, 1));
        let pte = *sys.mem.pte_mut(0, 0);
        assert_eq!((pte.dev, pte.slot), slots[0]);
        assert_eq!(sys.ctx.c.page_writes, 1.0);
        sys.check_invariants().unwrap();
    }
}
