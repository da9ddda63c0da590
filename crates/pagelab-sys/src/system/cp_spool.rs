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
//!
//! [`CpSpool`] owns the ring and its random stream; its handler takes the context and storage
//! ([`Storage`]) and needs nothing carried out by [`System`](super::System).

use super::ctx::Ctx;
use super::faults::Storage;
use crate::device::SlotAddr;
use crate::memory::{FrameState, NONE};
use crate::supply::FrameSupply;
use crate::vmsp_spec::VmspSpec;
use pagelab_core::Rng;
use rand::Rng as _;

/// The spool writer: its ring of pages in the system owner's page table, and its settings.
pub(super) struct CpSpool {
    /// Spool pages a transaction leaves, on average [pages] -- parameter
    /// (`vmsp.spool_pages_per_txn`).
    pages_per_txn: f64,
    /// Spool pages live at once [pages] -- parameter (`vmsp.spool_ring_pages`).
    ring_pages: u64,
    /// The system owner, whose page table holds the ring (the shared segment's owner).
    owner: u32,
    /// The ring's first page: past the shared segment [page index].
    first: u32,
    /// Spool pages written so far (the ring's next page is this modulo its size).
    written: u64,
    /// Random stream of the spool writer.
    rng: Rng,
}

impl CpSpool {
    pub(super) fn build(vmsp: &VmspSpec, owner: u32, shared_pages: u32, rng: Rng) -> CpSpool {
        CpSpool {
            pages_per_txn: vmsp.spool_pages_per_txn,
            ring_pages: u64::from(vmsp.spool_ring_pages),
            owner,
            first: shared_pages,
            written: 0,
            rng,
        }
    }

    /// A transaction has just begun: CP writes its spool buffers, each over the ring's oldest
    /// page. Post: each is referenced and changed in storage, in its old frame or a free one
    /// (none free: not kept, as CP's own frames are not modelled); a page given a free frame
    /// costs the supervisor a page moved.
    pub(super) fn on_transaction_started(&mut self, ctx: &mut Ctx, st: &mut Storage<'_>) {
        if self.pages_per_txn <= 0.0 {
            return;
        }
        let whole = self.pages_per_txn.floor();
        let extra = self.rng.gen::<f64>() < self.pages_per_txn - whole;
        let n = whole as u32 + u32::from(extra);
        for _ in 0..n {
            let idx = self.first + (self.written % self.ring_pages) as u32;
            self.written += 1;
            self.write_page(ctx, st, idx);
        }
    }

    /// Spool page `idx` of the ring is written anew.
    fn write_page(&self, ctx: &mut Ctx, st: &mut Storage<'_>, idx: u32) {
        let (mem, owner) = (&mut *st.mem, self.owner);
        let pte = *mem.pte_mut(owner, idx);
        if pte.frame != NONE {
            // The ring came round to a page still in storage: its frame is reused.
            if mem.frames[pte.frame as usize].state == FrameState::PageOut {
                mem.set_state(pte.frame, FrameState::Resident);
                ctx.c.reclaims += 1.0;
            }
            let fr = &mut mem.frames[pte.frame as usize];
            fr.referenced = true;
            fr.changed = true;
            return;
        }
        if pte.slot != NONE {
            // The old spool file is gone: its slot is free again.
            let (dev, slot) = (pte.dev, pte.slot);
            st.paging.io.release_slot(SlotAddr { dev, slot });
            mem.pte_mut(owner, idx).slot = NONE;
        }
        let Some(f) = mem.take_free() else {
            return;
        };
        mem.map(owner, idx, f, FrameState::Resident);
        let refs = st.reclaim.supply_refs;
        st.reclaim.supply.on_load(owner, idx, f, refs);
        st.reclaim.steal.reused(f);
        let fr = &mut mem.frames[f as usize];
        fr.referenced = true;
        fr.changed = true;
        ctx.sup_debt_ns += ctx.cost.page;
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
