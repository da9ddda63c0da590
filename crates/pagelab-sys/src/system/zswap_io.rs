//! The compressed page pool in the event loop ([`crate::zswap`]): SELECT's page-outs stored
//! in the pool, faults served from it, and its oldest pages written back when it is full. The
//! pool's rules are zswap's, shared with the trace replay of Linux
//! (`pagelab_trace::linux::zswap`); what they cost in time and I/O is here, in handlers on
//! [`Paging`] (which owns the pool) called with the context and memory. The fault path asks
//! them between its steps (paging.rs).

use super::ctx::Ctx;
use super::paging_io::Paging;
use super::reclaim::Reclaim;
use crate::device::{IoOp, PageIo, SlotAddr};
use crate::error::SysError;
use crate::memory::{FrameState, Memory, NONE};
use crate::monitor::{put_metric, Metric};
use crate::zswap::{StoreVerdict, Zswap};
use std::collections::BTreeMap;

impl Paging {
    /// Stores the page of victim frame `f` in the pool instead of writing it: the page takes
    /// its swap slot now (Linux's `add_to_swap` before `zswap_store`) and its frame is free at
    /// once. `false` (nothing done) without a pool, or when the pool refuses: at its cap or
    /// not yet back to its threshold (then the shrink worker writes back), the page larger
    /// than a page compressed, or no free frame for the pool to grow (`reject_alloc_fail`).
    /// `seed` is the run's, which draws the pages' compressed lengths.
    pub(super) fn zswap_store(
        &mut self,
        ctx: &mut Ctx,
        mem: &mut Memory,
        seed: u64,
        f: u32,
    ) -> Result<bool, SysError> {
        let fr = mem.frames[f as usize];
        let Some(z) = self.zswap.as_mut() else {
            return Ok(false);
        };
        let len = z.length_of(seed, fr.owner, fr.page);
        match z.admit(len) {
            StoreVerdict::Store => {}
            StoreVerdict::Full { shrink } => {
                z.c.rejects += 1;
                if shrink {
                    self.zswap_shrink_worker(ctx, mem)?;
                }
                return Ok(false);
            }
            StoreVerdict::Poor => {
                z.c.rejects_poor += 1;
                return Ok(false);
            }
        }
        if z.frames_with(len) as usize > z.frames.len() {
            match mem.take_for_pool() {
                Some(pf) => z.frames.push(pf),
                None => {
                    z.c.rejects_alloc += 1;
                    return Ok(false);
                }
            }
        }
        let pte = *mem.pte_mut(fr.owner, fr.page);
        if pte.slot != NONE {
            self.io.release_slot(SlotAddr {
                dev: pte.dev,
                slot: pte.slot,
            });
        }
        let (addr, _) = self.page_out_slot()?;
        self.give_slot(mem, fr.owner, fr.page, addr);
        let z = self.zswap_mut();
        z.insert(fr.owner, fr.page, len);
        z.c.stores += 1;
        z.c.zero_filled += u64::from(len == 0);
        let cost = (z.spec.compress_us * 1e3).round() as u64;
        ctx.sup_debt_ns += cost;
        mem.unmap(f);
        mem.put_free(f);
        Ok(true)
    }

    /// Serves a fault on `(owner, idx)` from the pool into frame `f` (mapped already, page-in
    /// state): resident at once and changed, the entry gone, the frames the pool no longer
    /// needs freed. `false` when the page is not in the pool; when `true`, the fault is
    /// resolved (System makes its waiter ready).
    pub(super) fn zswap_load(
        &mut self,
        ctx: &mut Ctx,
        mem: &mut Memory,
        reclaim: &mut Reclaim,
        (owner, idx): (u32, u32),
        f: u32,
    ) -> bool {
        let Some(z) = self.zswap.as_mut() else {
            return false;
        };
        if !z.remove(owner, idx) {
            return false;
        }
        z.c.loads += 1;
        ctx.sup_debt_ns += (z.spec.decompress_us * 1e3).round() as u64;
        self.zswap_shrink(mem);
        mem.set_state(f, FrameState::Resident);
        mem.frames[f as usize].changed = true;
        reclaim.steal.reused(f);
        true
    }

    /// The shrink worker (`shrink_worker`): the pool's oldest pages written back to the slots
    /// they kept at store, decompressed, one page-out each, until the pool is at or below its
    /// accept threshold or holds no page with bytes.
    fn zswap_shrink_worker(&mut self, ctx: &mut Ctx, mem: &mut Memory) -> Result<(), SysError> {
        while let Some((owner, page)) = self.zswap_mut().next_writeback() {
            let z = self.zswap_mut();
            z.c.writebacks += 1;
            let cost = (z.spec.decompress_us * 1e3).round() as u64;
            ctx.sup_debt_ns += cost + ctx.cost.page;
            let pte = *mem.pte_mut(owner, page);
            let addr = if pte.slot == NONE {
                let (addr, _) = self.page_out_slot()?;
                self.give_slot(mem, owner, page, addr);
                addr
            } else {
                SlotAddr {
                    dev: pte.dev,
                    slot: pte.slot,
                }
            };
            ctx.c.page_writes += 1.0;
            let mut one = vec![PageIo {
                op: IoOp::Write,
                slot: addr.slot,
                frame: NONE,
                queued: ctx.now,
            }];
            self.submit_group(ctx, addr.dev as usize, &mut one);
        }
        self.zswap_shrink(mem);
        Ok(())
    }

    /// Returns to the free list the frames the pool's pages no longer need.
    fn zswap_shrink(&mut self, mem: &mut Memory) {
        let Some(z) = self.zswap.as_mut() else {
            return;
        };
        let need = z.frames_needed() as usize;
        while z.frames.len() > need {
            let pf = z.frames.pop().expect("more frames than needed");
            mem.put_free(pf);
        }
    }

    fn zswap_mut(&mut self) -> &mut Zswap {
        self.zswap.as_mut().expect("the pool is configured")
    }

    /// The pool's books against storage: its frames are the frames in pool state.
    pub(super) fn check_zswap(&self, mem: &Memory) -> Result<(), String> {
        let held = mem.pool_len();
        match &self.zswap {
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

    /// The pool's metrics since the warm-up (none without a pool), over `time_s` [s] on
    /// `frames` of storage.
    pub(super) fn zswap_metrics(&self, m: &mut BTreeMap<String, Metric>, time_s: f64, frames: u32) {
        let Some(z) = &self.zswap else { return };
        let w = self.zswap_warm;
        let t = time_s.max(f64::MIN_POSITIVE);
        let frames = f64::from(frames);
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
            let (ctx, mem) = (&mut sys.ctx, &mut sys.mem);
            let stored = sys.paging.zswap_store(ctx, mem, sys.seed, f).unwrap();
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
