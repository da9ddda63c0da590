//! Paging: a fault, the frame it waits for, the page-in it starts, SELECT replenishing the
//! free list through the frame supply ([`crate::supply`]), and the paging devices' completions.

use super::*;

impl System<'_> {
    pub(super) fn handle_fault(&mut self, u: u32, page: u32) -> Result<(), SysError> {
        // A guest task's fault taken enabled, with the Accelerator on: a pseudo fault.
        let w = if self.pseudo_fault_applies(u, page) {
            u | PSEUDO
        } else {
            u
        };
        let (owner, idx) = self.owner_of(u, page);
        self.ctx.c.faults += 1.0;
        if self.ctx.warm {
            self.users[u as usize].t_faults += 1;
        }
        self.ctx.sup_debt_ns += self.ctx.cost.fault;
        let f = self.mem.pte_mut(owner, idx).frame;
        if f != NONE {
            match self.mem.frames[f as usize].state {
                FrameState::Resident => {
                    // Made valid meanwhile (a shared page another user brought in).
                    self.fault_done(w, true);
                }
                FrameState::PageOut => {
                    self.mem.set_state(f, FrameState::Resident);
                    self.mem.frames[f as usize].referenced = true;
                    self.ctx.c.reclaims += 1.0;
                    self.mem.pte_mut(owner, idx).flushed_out = false;
                    self.fault_done(w, true);
                }
                FrameState::PageIn => {
                    // A fault found a read-ahead page still being read: it is referenced.
                    if self.paging.read_ahead(f) {
                        self.reclaim.survival.referenced(f, u);
                    }
                    self.paging.page_waiters.push((f, w));
                    self.fault_wait(w, UState::PageWait);
                }
                FrameState::Free | FrameState::Pool => {
                    unreachable!("a mapped frame is never free or the pool's")
                }
            }
            return Ok(());
        }
        self.paging.frame_waiters.push_back((w, page));
        self.fault_wait(w, UState::FrameWait);
        self.pump_memory()?;
        // Waiters are served first come, first served: one left means this fault waits.
        if !self.paging.frame_waiters.is_empty() {
            self.ctx.c.frame_waits += 1.0;
        }
        Ok(())
    }

    pub(super) fn owner_of(&self, u: u32, page: u32) -> (u32, u32) {
        if page < self.shared_pages {
            (self.shared_owner, page)
        } else {
            (u, page)
        }
    }

    /// Serves users waiting for a frame and keeps the free list at its target.
    pub(super) fn pump_memory(&mut self) -> Result<(), SysError> {
        loop {
            while !self.paging.frame_waiters.is_empty() {
                let Some(f) = self.mem.take_free() else { break };
                let (w, page) = self
                    .paging
                    .frame_waiters
                    .pop_front()
                    .expect("checked non-empty");
                self.users[(w & !PSEUDO) as usize].fault_page = page;
                self.start_page_in(w, f);
            }
            self.replenish()?;
            if self.paging.frame_waiters.is_empty() || self.mem.free_len() == 0 {
                return Ok(());
            }
        }
    }

    /// Waiter `w` faulted on `(owner, idx)`, which is already in frame `cur`: it waits for the
    /// read under way, takes the page back from a page-out, or finds it resident.
    fn join_page_in(&mut self, w: u32, cur: u32, owner: u32, idx: u32) {
        let st = self.mem.frames[cur as usize].state;
        if st == FrameState::PageIn {
            self.paging.page_waiters.push((cur, w));
            self.fault_still_waits(w);
        } else {
            if st == FrameState::PageOut {
                self.mem.set_state(cur, FrameState::Resident);
                self.ctx.c.reclaims += 1.0;
                self.mem.pte_mut(owner, idx).flushed_out = false;
            }
            self.fault_done(w, true);
        }
    }

    pub(super) fn start_page_in(&mut self, w: u32, f: u32) {
        let u = w & !PSEUDO;
        let page = self.users[u as usize].fault_page;
        let (owner, idx) = self.owner_of(u, page);
        // Another waiter may have brought the same shared page in meanwhile.
        let cur = self.mem.pte_mut(owner, idx).frame;
        if cur != NONE {
            self.mem.put_free(f);
            self.join_page_in(w, cur, owner, idx);
            return;
        }
        let flushed_out = self.mem.pte_mut(owner, idx).flushed_out;
        self.mem.map(owner, idx, f, FrameState::PageIn);
        self.reclaim
            .supply
            .on_load(owner, idx, f, self.reclaim.supply_refs);
        self.reclaim.survival.referenced(f, u);
        self.paging.readahead_forget(f);
        if self.zswap_load(w, owner, idx, f) {
            return;
        }
        let pte = *self.mem.pte_mut(owner, idx);
        if pte.slot == NONE {
            // First reference: a cleared frame, no I/O; it has no slot copy, so it is changed.
            self.mem.set_state(f, FrameState::Resident);
            self.mem.frames[f as usize].changed = true;
            self.ctx.c.zero_fills += 1.0;
            self.reclaim.steal.reused(f);
            self.fault_done(w, true);
            return;
        }
        if owner == u {
            if let Some(id) = self.paging.swap.as_ref().and_then(|ps| ps.set_of(u, idx)) {
                self.ctx.c.swap_faults += 1.0;
                self.reclaim.steal.reused(f);
                self.paging.page_waiters.push((f, w));
                self.fault_still_waits(w);
                let (ctx, mem) = (&mut self.ctx, &mut self.mem);
                self.paging
                    .swap_in(ctx, mem, &mut self.reclaim, u, id, Some((idx, f)));
                return;
            }
        }
        self.ctx.c.page_reads += 1.0;
        if flushed_out {
            self.ctx.c.flush_rereads += 1.0;
        }
        if self.reclaim.steal.read_into(f) {
            self.ctx.c.stolen_reads += 1.0;
        }
        let resident = self.mem.resident[u as usize];
        let usr = &mut self.users[u as usize];
        usr.stay.page_reads += 1;
        usr.stay.resident_at_reads += u64::from(resident);
        if self.ctx.warm {
            usr.t_reads += 1;
        }
        self.ctx.sup_debt_ns += self.ctx.cost.sio + self.ctx.cost.page;
        self.paging.page_waiters.push((f, w));
        self.fault_still_waits(w);
        let io = PageIo {
            op: IoOp::Read,
            slot: pte.slot,
            frame: f,
            queued: self.ctx.now,
        };
        let reads = self.reads_with_readahead(owner, idx, pte.dev, io);
        if reads.len() == 1 {
            self.paging.submit_one(&mut self.ctx, pte.dev as usize, io);
        } else {
            self.paging.submit_reads(&mut self.ctx, reads);
        }
    }

    /// SELECT until the free list plus pending page-outs reach MPL + extra. Page-outs given to
    /// one device in a row (a round-turkey group) are written together as one batch when the
    /// group closes; while a group is open SELECT goes on, a bounded number of frames past the
    /// target, to fill it.
    pub(super) fn replenish(&mut self) -> Result<(), SysError> {
        let target = self.reclaim.free_target(self.sched.mpl());
        let mut group: Vec<PageIo> = Vec::new();
        let mut group_dev = 0usize;
        let mut overshoot = 0u32;
        loop {
            let short = self.mem.free_len() + (self.paging.pending_outs as usize) < target;
            if !short {
                if group.is_empty() || overshoot >= 2 * self.paging.round_turkey_run {
                    break;
                }
                overshoot += 1;
            }
            // Frame supply order: flush list, then physical swap-out, then the scan.
            let f = match self.reclaim.take_flushed(&mut self.mem) {
                Some(f) => f,
                None => {
                    let (ctx, mem, users) = (&mut self.ctx, &mut self.mem, &self.users);
                    let swap = self.paging.swap.is_some();
                    if swap && self.paging.swap_out(ctx, mem, &mut self.reclaim, users)? {
                        continue;
                    }
                    match self.reclaim.select_victim(&mut self.ctx, &mut self.mem) {
                        Some(f) => {
                            let owner = self.mem.frames[f as usize].owner;
                            if owner != self.shared_owner
                                && self.users[owner as usize].queue.is_some()
                            {
                                self.ctx.c.supply_steals += 1.0;
                            }
                            f
                        }
                        None => break,
                    }
                }
            };
            self.count_victim(f);
            let fr = self.mem.frames[f as usize];
            let pte = *self.mem.pte_mut(fr.owner, fr.page);
            let rewrite = self.paging.write_unchanged && fr.owner != self.shared_owner;
            if fr.changed || pte.slot == NONE || rewrite {
                if self.zswap_store(f)? {
                    continue;
                }
                let (addr, closed) = self.page_out(f, fr, pte)?;
                if !group.is_empty() && group_dev != addr.dev as usize {
                    self.paging
                        .submit_group(&mut self.ctx, group_dev, &mut group);
                }
                group_dev = addr.dev as usize;
                group.push(PageIo {
                    op: IoOp::Write,
                    slot: addr.slot,
                    frame: f,
                    queued: self.ctx.now,
                });
                if closed {
                    self.paging
                        .submit_group(&mut self.ctx, group_dev, &mut group);
                }
            } else {
                self.mem.unmap(f);
                self.mem.put_free(f);
            }
        }
        if !group.is_empty() {
            self.paging
                .submit_group(&mut self.ctx, group_dev, &mut group);
        }
        Ok(())
    }

    /// Frame `f` (holding `fr`'s page, whose table entry is `pte`) goes out: its old slot is
    /// released, a new one given, the frame marked `PageOut`. Returns the slot and whether its
    /// round-turkey group closed with it.
    fn page_out(
        &mut self,
        f: u32,
        fr: crate::memory::Frame,
        pte: crate::memory::Pte,
    ) -> Result<(SlotAddr, bool), SysError> {
        if pte.slot != NONE {
            self.paging.io.release_slot(SlotAddr {
                dev: pte.dev,
                slot: pte.slot,
            });
            if fr.owner != self.shared_owner {
                if let Some(ps) = self.paging.swap.as_mut() {
                    ps.detach(fr.owner, fr.page);
                }
            }
        }
        let (addr, closed) = self.paging.page_out_slot()?;
        self.paging
            .give_slot(&mut self.mem, fr.owner, fr.page, addr);
        self.mem.set_state(f, FrameState::PageOut);
        let frm = &mut self.mem.frames[f as usize];
        frm.changed = false;
        frm.referenced = false;
        self.paging.pending_outs += 1;
        self.ctx.c.page_writes += 1.0;
        self.ctx.sup_debt_ns += self.ctx.cost.page;
        Ok((addr, closed))
    }

    /// Counts frame `f` taken by SELECT: a steal if its owner is in queue, and its page's
    /// survival in interruptions (bard eq. 4).
    pub(super) fn count_victim(&mut self, f: u32) {
        self.paging.readahead_taken(&self.reclaim.survival.marks, f);
        let owner = self.mem.frames[f as usize].owner;
        let stolen = owner != self.shared_owner && self.users[owner as usize].queue.is_some();
        self.reclaim.count_victim(&mut self.ctx, f, stolen);
    }
}
