//! Page swapping in the event loop (tetzlaff, "Prepage prototype" and "Contiguous block page
//! prototype"): working-set identification and trimming at queue-drop, logical swap-in and
//! prepaging at queue-add, swap-set reads and writes, and the garbage collector. The books
//! (swap sets, swap lists, the ranking decisions) are [`crate::page_swap`]'s; these handlers,
//! on [`Paging`] and called with the context, memory and reclaim's books (and the users, where
//! a user's being in queue decides), move frames and queue the I/O.

use super::ctx::Ctx;
use super::paging_io::Paging;
use super::reclaim::Reclaim;
use super::users::User;
use crate::device::{IoOp, PageIo, SlotAddr};
use crate::error::SysError;
use crate::load_control::Queue;
use crate::memory::{FrameState, Memory, NONE};
use crate::page_swap::{identify_working_set, SwapList, SwapSet};
use crate::supply::FrameSupply;

impl Paging {
    /// Queue-drop under page swapping: the working set is the private pages referenced in the
    /// stay (bits reset now), the rest are trimmed to the flush list, unreferenced prepaged
    /// pages are counted as prepage errors, and the user joins the Q1 or Q2 swap list.
    pub(super) fn swap_queue_drop(&mut self, ctx: &mut Ctx, mem: &mut Memory, u: u32, q: Queue) {
        let Some(ps) = self.swap.as_mut() else {
            return;
        };
        let mut pages: Vec<u32> = Vec::new();
        let mut refs: Vec<bool> = Vec::new();
        for (i, pte) in mem.tables[u as usize].iter().enumerate() {
            let f = pte.frame;
            if f == NONE {
                continue;
            }
            let fr = mem.frames[f as usize];
            if fr.state != FrameState::Resident || fr.flushed {
                continue;
            }
            if std::mem::take(&mut ps.prepaged[f as usize]) && !fr.referenced {
                ctx.c.prepage_errors += 1.0;
            }
            pages.push(i as u32);
            refs.push(fr.referenced);
        }
        let ws = identify_working_set(&refs, ps.min_ws_pages());
        for &k in &ws.keep {
            let f = mem.tables[u as usize][pages[k] as usize].frame;
            mem.frames[f as usize].referenced = false;
        }
        for &k in &ws.trim {
            let f = mem.tables[u as usize][pages[k] as usize].frame;
            mem.frames[f as usize].referenced = false;
            mem.push_flush(f);
            ctx.c.trimmed += 1.0;
        }
        if !ws.keep.is_empty() {
            let list = match q {
                Queue::Q1 => SwapList::Q1,
                Queue::Q2 => SwapList::Q2,
            };
            ps.enlist(u, list);
        }
    }

    /// Queue-add under page swapping: logical swap-in (off the swap list; trimmed pages still
    /// in storage reclaimed from the flush list), then prepaging: `prepage_sets` swap sets for
    /// an interactive (Q1) user, none for a long-running one, every set with `full_prepage`.
    pub(super) fn swap_queue_add(
        &mut self,
        ctx: &mut Ctx,
        mem: &mut Memory,
        reclaim: &mut Reclaim,
        u: u32,
        queue: Queue,
    ) {
        let Some(ps) = self.swap.as_mut() else {
            return;
        };
        ps.delist(u);
        for pte in &mem.tables[u as usize] {
            if pte.frame != NONE {
                mem.frames[pte.frame as usize].flushed = false;
            }
        }
        let n = if ps.spec.full_prepage {
            usize::MAX
        } else if queue == Queue::Q1 {
            ps.spec.prepage_sets as usize
        } else {
            0
        };
        let ids: Vec<u32> = ps.sets_of(u).iter().take(n).copied().collect();
        for id in ids {
            if mem.free_len() == 0 {
                break;
            }
            self.swap_in(ctx, mem, reclaim, u, id, None);
        }
    }

    /// Reads swap set `id` of user `u` with one SIO into free frames (the faulting page, if
    /// any, into the frame given); the set is dissolved and its slots freed. Pages for which
    /// no free frame remains stay on their slots as ordinary pages.
    pub(super) fn swap_in(
        &mut self,
        ctx: &mut Ctx,
        mem: &mut Memory,
        reclaim: &mut Reclaim,
        u: u32,
        id: u32,
        faulting: Option<(u32, u32)>,
    ) {
        let Some(ps) = self.swap.as_mut() else {
            return;
        };
        let Some(set) = ps.take(id) else { return };
        let mut batch: Vec<PageIo> = Vec::new();
        for (i, &p) in set.pages.iter().enumerate() {
            if p == NONE {
                continue;
            }
            let slot = set.first_slot + i as u32;
            let pte = *mem.pte_mut(u, p);
            if pte.slot != slot || pte.dev != set.dev {
                continue;
            }
            let f = match faulting {
                Some((fp, ff)) if fp == p => ff,
                _ => {
                    if pte.frame != NONE {
                        // Reclaimed while its swap-out was under way: resident already.
                        continue;
                    }
                    let Some(f) = mem.take_free() else {
                        ctx.c.prepage_short += 1.0;
                        continue;
                    };
                    mem.map(u, p, f, FrameState::PageIn);
                    reclaim.supply.on_load(u, p, f, reclaim.supply_refs);
                    reclaim.steal.reused(f);
                    f
                }
            };
            self.io.release_slot(SlotAddr { dev: set.dev, slot });
            mem.pte_mut(u, p).slot = NONE;
            let is_faulting = matches!(faulting, Some((fp, _)) if fp == p);
            ps.prepaged[f as usize] = !is_faulting;
            ps.in_swap_io[f as usize] = true;
            batch.push(PageIo {
                op: IoOp::Read,
                slot,
                frame: f,
                queued: ctx.now,
            });
        }
        if batch.is_empty() {
            return;
        }
        ctx.c.swap_reads += batch.len() as f64;
        ctx.c.swap_sets_in += 1.0;
        ctx.sup_debt_ns += ctx.cost.sio + ctx.cost.page * batch.len() as u64;
        self.submit(ctx, set.dev as usize, &batch);
    }

    /// Physical swap-out: the next user on the swap lists (Q2 before Q1) writes swap sets of
    /// its working-set pages, in virtual-address order, each to consecutive slots with one
    /// SIO, at least the minimum working set's worth unless drained. `false` when no user on
    /// the lists has a page to give.
    pub(super) fn swap_out(
        &mut self,
        ctx: &mut Ctx,
        mem: &mut Memory,
        reclaim: &mut Reclaim,
        users: &[User],
    ) -> Result<bool, SysError> {
        let Some(ps) = self.swap.as_mut() else {
            return Ok(false);
        };
        let m = &*mem;
        let swappable = |u: u32| {
            users[u as usize].queue.is_none()
                && m.tables[u as usize].iter().any(|p| {
                    p.frame != NONE && {
                        let fr = &m.frames[p.frame as usize];
                        fr.state == FrameState::Resident && !fr.flushed
                    }
                })
        };
        let Some(u) = ps.next_victim_user(swappable) else {
            return Ok(false);
        };
        let size = ps.spec.swap_set_pages as usize;
        let sets = ps.spec.min_ws_sets.max(1);
        let mut wrote = false;
        for _ in 0..sets {
            let pages: Vec<u32> = mem.tables[u as usize]
                .iter()
                .enumerate()
                .filter(|(_, p)| {
                    p.frame != NONE && {
                        let fr = &mem.frames[p.frame as usize];
                        fr.state == FrameState::Resident && !fr.flushed
                    }
                })
                .map(|(i, _)| i as u32)
                .take(size)
                .collect();
            if pages.is_empty() {
                break;
            }
            if !self.write_swap_set(ctx, mem, reclaim, u, pages) {
                return Ok(wrote);
            }
            wrote = true;
        }
        Ok(wrote)
    }

    /// Writes user `u`'s `pages` as one swap set with one SIO; `false` (nothing written) when
    /// the swap area has no slot left.
    fn write_swap_set(
        &mut self,
        ctx: &mut Ctx,
        mem: &mut Memory,
        reclaim: &mut Reclaim,
        u: u32,
        pages: Vec<u32>,
    ) -> bool {
        // A fragmented area may lack a run of the full size: the set shrinks to the
        // longest run found (the rest of the pages wait for the next swap set); with no
        // slot left at all swap-out stops and SELECT goes on to the scan.
        let mut pages = pages;
        let Some(addr) = self.swap_set_slots(&mut pages) else {
            return false;
        };
        let ps = self.swap.as_mut().expect("page swapping");
        let mut batch = Vec::with_capacity(pages.len());
        for (i, &p) in pages.iter().enumerate() {
            let pte = *mem.pte_mut(u, p);
            if pte.slot != NONE {
                self.io.release_slot(SlotAddr {
                    dev: pte.dev,
                    slot: pte.slot,
                });
                ps.detach(u, p);
            }
            let slot = addr.slot + i as u32;
            let e = mem.pte_mut(u, p);
            e.slot = slot;
            e.dev = addr.dev;
            let f = pte.frame;
            mem.set_state(f, FrameState::PageOut);
            let fr = &mut mem.frames[f as usize];
            fr.changed = false;
            fr.referenced = false;
            ps.prepaged[f as usize] = false;
            ps.in_swap_io[f as usize] = true;
            reclaim.supply.on_free(u, p);
            batch.push(PageIo {
                op: IoOp::Write,
                slot,
                frame: f,
                queued: ctx.now,
            });
        }
        ps.record(SwapSet {
            owner: u,
            dev: addr.dev,
            first_slot: addr.slot,
            pages,
        });
        self.pending_outs += batch.len() as u32;
        ctx.c.swap_writes += batch.len() as f64;
        ctx.c.swap_sets_out += 1.0;
        ctx.sup_debt_ns += ctx.cost.sio + ctx.cost.page * batch.len() as u64;
        self.submit(ctx, addr.dev as usize, &batch);
        true
    }

    /// The garbage collector (contiguous-block prototype): examines the next `gc_fraction` of
    /// the frames; pages of no working set (the shared segment; users out of queue and off the
    /// swap lists) have their reference bits reset, and unreferenced ones go to the flush list.
    pub(super) fn collect_garbage(
        &mut self,
        ctx: &mut Ctx,
        mem: &mut Memory,
        users: &[User],
        shared_owner: u32,
    ) {
        let Some(ps) = self.swap.as_mut() else {
            return;
        };
        let n = mem.frames.len() as u32;
        let k = ((f64::from(n) * ps.spec.gc_fraction).ceil() as u32).min(n);
        for _ in 0..k {
            let f = ps.gc_cursor;
            ps.gc_cursor = (ps.gc_cursor + 1) % n;
            let fr = mem.frames[f as usize];
            if fr.state != FrameState::Resident || fr.flushed {
                continue;
            }
            let disposable = fr.owner == shared_owner
                || (users[fr.owner as usize].queue.is_none() && !ps.is_listed(fr.owner));
            if !disposable {
                continue;
            }
            if fr.referenced {
                mem.frames[f as usize].referenced = false;
            } else {
                mem.push_flush(f);
                ctx.c.gc_flushed += 1.0;
            }
        }
    }
}
