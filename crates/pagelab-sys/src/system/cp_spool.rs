//! CP spool pages: pageable pages that belong to no virtual machine (Tetzlaff et al. 1987,
//! "Garbage collector": "control-program-owned pages", "spool buffer pages"). Each transaction
//! leaves `vmsp.spool_pages_per_txn` pages of spool buffers (a fraction is drawn), written once
//! and not referenced again. They live in the system owner's page table, beyond the shared
//! segment, on a ring of `vmsp.spool_ring_pages`: the oldest spool page is replaced by the
//! newest (its file printed or purged), so the ring bounds the storage and slots they hold.
//!
//! Nobody faults on them, so only SELECT disposes of them: in VM the core-table scan, which
//! takes them within two cycles; in the page-swapping prototype, whose frames come from the
//! flush list and swap-outs first, the scan is a last resort and they would stay in storage
//! but for the garbage collector
//! ([`Paging::collect_garbage`](super::paging_io::Paging::collect_garbage)). Changed pages are
//! written to paging slots at replacement, so they also occupy paging space.

use super::System;
use crate::device::SlotAddr;
use crate::memory::{FrameState, NONE};
use crate::supply::FrameSupply;
use rand::Rng as _;

impl System<'_> {
    /// CP writes the spool buffers of a transaction that has just begun.
    pub(super) fn write_spool_pages(&mut self) {
        let x = self.dispatch.vmsp.settings.spool_pages_per_txn;
        if x <= 0.0 {
            return;
        }
        let whole = x.floor();
        let extra = self.dispatch.vmsp.spool_rng.gen::<f64>() < x - whole;
        let n = whole as u32 + u32::from(extra);
        let ring = u64::from(self.dispatch.vmsp.settings.spool_ring_pages);
        let owner = self.faults.shared_owner;
        for _ in 0..n {
            let idx = self.faults.shared_pages + (self.dispatch.vmsp.spool_next % ring) as u32;
            self.dispatch.vmsp.spool_next += 1;
            let pte = *self.mem.pte_mut(owner, idx);
            if pte.frame != NONE {
                // The ring came round to a page still in storage: its frame is reused.
                if self.mem.frames[pte.frame as usize].state == FrameState::PageOut {
                    self.mem.set_state(pte.frame, FrameState::Resident);
                    self.ctx.c.reclaims += 1.0;
                }
                let fr = &mut self.mem.frames[pte.frame as usize];
                fr.referenced = true;
                fr.changed = true;
                continue;
            }
            if pte.slot != NONE {
                // The old spool file is gone: its slot is free again.
                self.paging.io.release_slot(SlotAddr {
                    dev: pte.dev,
                    slot: pte.slot,
                });
                self.mem.pte_mut(owner, idx).slot = NONE;
            }
            // Without a free frame the buffer is not kept (CP's own frames are not modelled).
            let Some(f) = self.mem.take_free() else {
                continue;
            };
            self.mem.map(owner, idx, f, FrameState::Resident);
            self.reclaim
                .supply
                .on_load(owner, idx, f, self.reclaim.supply_refs);
            self.reclaim.steal.reused(f);
            let fr = &mut self.mem.frames[f as usize];
            fr.referenced = true;
            fr.changed = true;
            self.ctx.sup_debt_ns += self.ctx.cost.page;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::spec::load_spec;
    use crate::system::System;

    fn run(extra: &str) -> std::collections::BTreeMap<String, f64> {
        let text = format!(
            "[run]\nduration_s = 200.0\nwarmup_s = 40.0\n[cpu]\ncount = 1\nreference_ns = 200.0\n\
             dispatch_slice_ms = 50.0\n[memory]\nframes = 300\npage_bytes = 4096\n\
             residency = \"page-swapping\"\nfree_target_extra = 17\n\
             [[channel]]\nname = \"c\"\n[[device]]\nname = \"d\"\nmodel = \"2305-2\"\nchannel = \"c\"\n\
             count = 2\n[load_control]\nkind = \"vm370\"\nprojection = \"damped\"\ninitial_ws_pages = 10.0\n\
             q1_slice_s = 0.25\nq2_slice_s = 2.0\n\
             [workload]\nusers = 20\n[[workload.class]]\nname = \"cms\"\nfraction = 1.0\n\
             think = {{ kind = \"exponential\", mean_s = 4.0 }}\n\
             commands = [{{ name = \"t\", cpu_ms = 20.0, vio = 2 }}]\n\
             program = {{ kind = \"cms\", set_pages = 10, address_pages = 14, overlap = 0.85, locality_pages = 6, runs_per_phase = 20, refs_per_run = 500.0 }}\n{extra}"
        );
        let spec = load_spec(&text, "t.toml", &[]).unwrap();
        let r = System::build(&spec, 5, None)
            .unwrap()
            .run(&mut |_| {})
            .unwrap();
        r.metrics.into_iter().map(|(k, m)| (k, m.value)).collect()
    }

    #[test]
    fn the_garbage_collector_disposes_of_spool_pages() {
        let spool = "[vmsp]\nspool_pages_per_txn = 2.0\nspool_ring_pages = 2000\n";
        let gc = "[swapping]\ngarbage_collector = true\n";
        let none = run(gc);
        let with_spool = run(&format!("{spool}{gc}"));
        let without_gc = run(spool);
        // Spool pages give the collector work it does not have without them.
        assert!(
            with_spool["gc_flush_rate"] > none["gc_flush_rate"] + 0.5,
            "{} {}",
            with_spool["gc_flush_rate"],
            none["gc_flush_rate"]
        );
        assert_eq!(without_gc["gc_flush_rate"], 0.0);
    }
}
