//! The fault path: a fault on a page not valid in storage, the frame it waits for, the page-in
//! it starts (with swap readahead's neighbours), and SELECT keeping the free list at its target
//! through the frame supply ([`crate::supply`]), writing changed victims out.
//!
//! ```text
//!  fault ─► resident meanwhile / taken back from a page-out ─► Resolved
//!        ├► its read under way ─► AwaitsRead
//!        └► no frame ─► AwaitsFrame ─► a free frame ─► page_in ─► pool? (System) ─► fetch
//!              fetch: first reference ─► a cleared frame, Resolved
//!                     page of a swap set ─► the whole set read, AwaitsRead
//!                     else ─► its read (and the readahead's) queued, AwaitsRead
//!  SELECT: flush list, else physical swap-out, else the scan ─► clean: freed
//!          changed (or no slot copy) ─► the pool? (System) ─► page-out to a new slot
//! ```
//!
//! [`Faults`] owns the users waiting for a frame, the shared segment's bounds and SELECT's open
//! round-turkey group. Its handlers take the context, storage ([`Storage`]: memory, paging I/O
//! and reclaim's books) and the user concerned, and say what becomes of the waiter
//! ([`FaultVerdict`], [`PageIn`]); [`System`](super::System) carries that out on the user, the
//! dispatcher or a guest, and asks the compressed pool between the steps (paging.rs).

use super::ctx::Ctx;
use super::paging_io::Paging;
use super::reclaim::Reclaim;
use super::users::User;
use super::PSEUDO;
use crate::device::{IoOp, PageIo, SlotAddr};
use crate::error::SysError;
use crate::memory::{Frame, FrameState, Memory, Pte, NONE};
use crate::supply::FrameSupply;
use crate::survival::Mark;
use std::collections::VecDeque;

/// Storage as the fault path (and the spool writer, cp_spool.rs) sees it: frames and page
/// tables, paging I/O, reclaim's books.
pub(super) struct Storage<'a> {
    pub(super) mem: &'a mut Memory,
    pub(super) paging: &'a mut Paging,
    pub(super) reclaim: &'a mut Reclaim,
}

/// The fault path's books.
pub(super) struct Faults {
    /// The shared segment: pages `0..shared_pages` of every user are owner `shared_owner`'s
    /// [pages] (`workload.shared_pages`).
    pub(super) shared_owner: u32,
    pub(super) shared_pages: u32,
    /// Users waiting for a frame, first come first served, with the page (a guest's may be
    /// tagged [`PSEUDO`]).
    pub(super) frame_waiters: VecDeque<(u32, u32)>,
    /// SELECT's open round-turkey group of page-outs and its device.
    group: Vec<PageIo>,
    group_dev: usize,
    /// A fault's reads, the faulting page's first (kept to reuse the buffer).
    reads: Vec<(u16, PageIo)>,
}

/// What becomes of a fault's waiter.
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FaultVerdict {
    /// The page is valid in storage (brought in meanwhile or taken back from a page-out): the
    /// waiter runs again, first on its ready list.
    Resolved,
    /// The waiter is listed on the read of its page under way (`PageWait`).
    AwaitsRead,
    /// No frame holds the page: the waiter is listed for one (`FrameWait`), and the free list
    /// is to be served ([`System::pump_memory`](super::System::pump_memory)).
    AwaitsFrame,
}

/// What becomes of a frame waiter once given its frame.
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PageIn {
    /// The page is valid in storage: the waiter runs again, first on its ready list.
    Resolved,
    /// The waiter is listed on a read of its page, its own or one under way (`PageWait`).
    AwaitsRead,
}

/// What giving a frame waiter its frame did.
#[must_use]
#[derive(Clone, Copy, Debug)]
pub(super) enum Given {
    /// The page is mapped into the frame; its copy is still to fetch.
    Mapped(Mapped),
    /// Another waiter brought the same page in meanwhile: the frame went back to the free
    /// list, and this is what becomes of the waiter.
    Joined(PageIn),
}

/// A frame waiter's page, mapped into its frame in page-in state, its copy still to fetch.
#[derive(Clone, Copy, Debug)]
pub(super) struct Mapped {
    pub(super) waiter: u32,
    pub(super) frame: u32,
    pub(super) owner: u32,
    pub(super) page: u32,
    /// The page last left storage from the flush list (its read is a flush re-read).
    flushed_out: bool,
}

/// A frame SELECT took whose page must be written out (changed, with no copy on a slot, or
/// rewritten anyway: `paging.write_unchanged`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Victim {
    pub(super) frame: u32,
    fr: Frame,
    pte: Pte,
}

/// One SELECT pass's target and how far past it an open group has gone [frames].
pub(super) struct Select {
    target: usize,
    overshoot: u32,
}

impl Faults {
    pub(super) fn new(shared_owner: u32, shared_pages: u32) -> Faults {
        Faults {
            shared_owner,
            shared_pages,
            frame_waiters: VecDeque::new(),
            group: Vec::new(),
            group_dev: 0,
            reads: Vec::new(),
        }
    }

    /// The owner and index of user `u`'s `page`: the shared segment's pages are its owner's.
    pub(super) fn owner_of(&self, u: u32, page: u32) -> (u32, u32) {
        if page < self.shared_pages {
            (self.shared_owner, page)
        } else {
            (u, page)
        }
    }

    /// Waiter `w` (user `usr`, a guest's maybe tagged [`PSEUDO`]) faulted on `page`: the
    /// fault is counted and its supervisor time charged. A page read ahead and still being
    /// read is referenced by it.
    pub(super) fn on_fault(
        &mut self,
        ctx: &mut Ctx,
        st: &mut Storage<'_>,
        usr: &mut User,
        w: u32,
        page: u32,
    ) -> FaultVerdict {
        let u = w & !PSEUDO;
        let (owner, idx) = self.owner_of(u, page);
        ctx.c.faults += 1.0;
        if ctx.warm {
            usr.t_faults += 1;
        }
        ctx.sup_debt_ns += ctx.cost.fault;
        let f = st.mem.pte_mut(owner, idx).frame;
        if f == NONE {
            self.frame_waiters.push_back((w, page));
            return FaultVerdict::AwaitsFrame;
        }
        match st.mem.frames[f as usize].state {
            // Made valid meanwhile (a shared page another user brought in).
            FrameState::Resident => FaultVerdict::Resolved,
            FrameState::PageOut => {
                reclaim_page_out(ctx, st.mem, f, owner, idx);
                st.mem.frames[f as usize].referenced = true;
                FaultVerdict::Resolved
            }
            FrameState::PageIn => {
                // A fault found a read-ahead page still being read: it is referenced.
                if st.paging.read_ahead(f) {
                    st.reclaim.survival.referenced(f, u);
                }
                st.paging.page_waiters.push((f, w));
                FaultVerdict::AwaitsRead
            }
            FrameState::Free | FrameState::Pool => {
                unreachable!("a mapped frame is never free or the pool's")
            }
        }
    }

    /// The next frame waiter a free frame serves, with the frame; its user's faulting page is
    /// noted. `None` when nobody waits or no frame is free.
    pub(super) fn serve_next(
        &mut self,
        mem: &mut Memory,
        users: &mut [User],
    ) -> Option<(u32, u32)> {
        if self.frame_waiters.is_empty() {
            return None;
        }
        let f = mem.take_free()?;
        let (w, page) = self.frame_waiters.pop_front().expect("checked non-empty");
        users[(w & !PSEUDO) as usize].fault_page = page;
        Some((w, f))
    }

    /// Whether users still wait for a frame while one is free (the free list is served again).
    pub(super) fn frame_free_for_waiter(&self, mem: &Memory) -> bool {
        !self.frame_waiters.is_empty() && mem.free_len() > 0
    }

    /// A fault is done being handled: counted as a frame wait if someone still waits for one
    /// (first come, first served: this fault is among them).
    pub(super) fn count_frame_wait(&self, ctx: &mut Ctx) {
        if !self.frame_waiters.is_empty() {
            ctx.c.frame_waits += 1.0;
        }
    }

    /// Waiter `w` (user `usr`) is given frame `f` for its faulting page: the page is mapped
    /// into it in page-in state, its copy to be fetched (from the pool, else by
    /// [`Faults::fetch`]), unless another waiter brought the same shared page in meanwhile
    /// (then `f` goes back to the free list).
    pub(super) fn page_in(
        &mut self,
        ctx: &mut Ctx,
        st: &mut Storage<'_>,
        usr: &User,
        w: u32,
        f: u32,
    ) -> Given {
        let u = w & !PSEUDO;
        let (owner, page) = self.owner_of(u, usr.fault_page);
        let pte = *st.mem.pte_mut(owner, page);
        if pte.frame != NONE {
            st.mem.put_free(f);
            return Given::Joined(join_page_in(ctx, st, w, pte.frame, owner, page));
        }
        st.mem.map(owner, page, f, FrameState::PageIn);
        let refs = st.reclaim.supply_refs;
        st.reclaim.supply.on_load(owner, page, f, refs);
        st.reclaim.survival.referenced(f, u);
        st.paging.readahead_forget(f);
        Given::Mapped(Mapped {
            waiter: w,
            frame: f,
            owner,
            page,
            flushed_out: pte.flushed_out,
        })
    }

    /// The copy of page `m`, not in the pool (user `usr` waits for it): a first reference is a
    /// cleared frame, changed as it has no slot copy; a page of a swap set brings the whole
    /// set; else its read is queued, with the readahead's.
    pub(super) fn fetch(
        &mut self,
        ctx: &mut Ctx,
        st: &mut Storage<'_>,
        usr: &mut User,
        m: Mapped,
    ) -> PageIn {
        let (w, f, owner, idx) = (m.waiter, m.frame, m.owner, m.page);
        let u = w & !PSEUDO;
        let pte = *st.mem.pte_mut(owner, idx);
        if pte.slot == NONE {
            st.mem.set_state(f, FrameState::Resident);
            st.mem.frames[f as usize].changed = true;
            ctx.c.zero_fills += 1.0;
            st.reclaim.steal.reused(f);
            return PageIn::Resolved;
        }
        if owner == u {
            if let Some(id) = st.paging.swap.as_ref().and_then(|ps| ps.set_of(u, idx)) {
                ctx.c.swap_faults += 1.0;
                st.reclaim.steal.reused(f);
                st.paging.page_waiters.push((f, w));
                let (mem, reclaim) = (&mut *st.mem, &mut *st.reclaim);
                st.paging.swap_in(ctx, mem, reclaim, u, id, Some((idx, f)));
                return PageIn::AwaitsRead;
            }
        }
        ctx.c.page_reads += 1.0;
        if m.flushed_out {
            ctx.c.flush_rereads += 1.0;
        }
        if st.reclaim.steal.read_into(f) {
            ctx.c.stolen_reads += 1.0;
        }
        usr.stay.page_reads += 1;
        usr.stay.resident_at_reads += u64::from(st.mem.resident[u as usize]);
        if ctx.warm {
            usr.t_reads += 1;
        }
        ctx.sup_debt_ns += ctx.cost.sio + ctx.cost.page;
        st.paging.page_waiters.push((f, w));
        let io = PageIo {
            op: IoOp::Read,
            slot: pte.slot,
            frame: f,
            queued: ctx.now,
        };
        self.read(ctx, st, owner, idx, pte.dev, io);
        PageIn::AwaitsRead
    }

    /// Queues the read `io` of `(owner, page)` on device `dev` and, with swap readahead, its
    /// neighbours' reads into free frames (the readahead chooses them, readahead.rs).
    fn read(
        &mut self,
        ctx: &mut Ctx,
        st: &mut Storage<'_>,
        owner: u32,
        page: u32,
        dev: u16,
        io: PageIo,
    ) {
        let Some(ra) = st.paging.readahead.as_mut() else {
            return st.paging.submit_one(ctx, dev as usize, io);
        };
        let marks = &st.reclaim.survival.marks;
        let neighbours = ra.neighbours(st.mem, owner, page, dev, io.slot, marks);
        self.reads.clear();
        self.reads.push((dev, io));
        for (o, p) in neighbours {
            let Some(pte) = st.mem.pte(o, p).copied() else {
                continue;
            };
            // A page the compressed pool holds keeps its slot, but its copy is the pool's.
            let pooled = st.paging.zswap.as_ref().is_some_and(|z| z.holds(o, p));
            if pte.frame != NONE || pte.slot == NONE || pooled {
                continue;
            }
            let Some(f) = st.mem.take_free() else { break };
            st.mem.map(o, p, f, FrameState::PageIn);
            let refs = st.reclaim.supply_refs;
            st.reclaim.supply.on_load(o, p, f, refs);
            st.reclaim.steal.reused(f);
            st.reclaim.survival.marks[f as usize] = Mark { user: NONE, at: 0 };
            ctx.sup_debt_ns += ctx.cost.page;
            if let Some(ra) = st.paging.readahead.as_mut() {
                ra.filled(f, o);
            }
            let read = PageIo {
                op: IoOp::Read,
                slot: pte.slot,
                frame: f,
                queued: ctx.now,
            };
            self.reads.push((pte.dev, read));
        }
        if self.reads.len() == 1 {
            st.paging.submit_one(ctx, dev as usize, io);
        } else {
            st.paging.submit_reads(ctx, &self.reads);
        }
    }
}

/// Waiter `w` faulted on `(owner, idx)`, which is already in frame `cur`: it waits for the
/// read under way, takes the page back from a page-out, or finds it resident.
fn join_page_in(
    ctx: &mut Ctx,
    st: &mut Storage<'_>,
    w: u32,
    cur: u32,
    owner: u32,
    idx: u32,
) -> PageIn {
    match st.mem.frames[cur as usize].state {
        FrameState::PageIn => {
            st.paging.page_waiters.push((cur, w));
            PageIn::AwaitsRead
        }
        FrameState::PageOut => {
            reclaim_page_out(ctx, st.mem, cur, owner, idx);
            PageIn::Resolved
        }
        _ => PageIn::Resolved,
    }
}

/// Frame `f`, holding `(owner, idx)` and being written out, is taken back: resident again,
/// counted as a reclaim.
fn reclaim_page_out(ctx: &mut Ctx, mem: &mut Memory, f: u32, owner: u32, idx: u32) {
    mem.set_state(f, FrameState::Resident);
    ctx.c.reclaims += 1.0;
    mem.pte_mut(owner, idx).flushed_out = false;
}

/// SELECT: the frames it takes, freed at once or written out in round-turkey groups.
impl Faults {
    /// A SELECT pass towards the free list's `target` [frames].
    pub(super) fn select(target: usize) -> Select {
        Select {
            target,
            overshoot: 0,
        }
    }

    /// SELECT's next frame that must be written out, taking frames until the free list plus
    /// pending page-outs reach the target; while a round-turkey group is open SELECT goes on,
    /// a bounded number of frames past the target, to fill it. Frames are taken in the frame
    /// supply's order: flush list, then physical swap-out, then the scan. A taken frame whose
    /// slot copy is good is freed at once. `None` when the pass is over.
    pub(super) fn next_victim(
        &mut self,
        ctx: &mut Ctx,
        st: &mut Storage<'_>,
        users: &[User],
        sel: &mut Select,
    ) -> Result<Option<Victim>, SysError> {
        loop {
            let short = st.mem.free_len() + (st.paging.pending_outs as usize) < sel.target;
            if !short {
                if self.group.is_empty() || sel.overshoot >= 2 * st.paging.round_turkey_run {
                    return Ok(None);
                }
                sel.overshoot += 1;
            }
            let f = match st.reclaim.take_flushed(st.mem) {
                Some(f) => f,
                None => {
                    let (mem, reclaim) = (&mut *st.mem, &mut *st.reclaim);
                    let swap = st.paging.swap.is_some();
                    if swap && st.paging.swap_out(ctx, mem, reclaim, users)? {
                        continue;
                    }
                    match st.reclaim.select_victim(ctx, st.mem) {
                        Some(f) => {
                            if self.in_queue(users, st.mem.frames[f as usize].owner) {
                                ctx.c.supply_steals += 1.0;
                            }
                            f
                        }
                        None => return Ok(None),
                    }
                }
            };
            self.count_victim(ctx, st, users, f);
            let fr = st.mem.frames[f as usize];
            let pte = *st.mem.pte_mut(fr.owner, fr.page);
            let rewrite = st.paging.write_unchanged && fr.owner != self.shared_owner;
            if fr.changed || pte.slot == NONE || rewrite {
                return Ok(Some(Victim { frame: f, fr, pte }));
            }
            st.mem.unmap(f);
            st.mem.put_free(f);
        }
    }

    /// Whether `owner` is a user in queue (a frame taken from it is a steal).
    fn in_queue(&self, users: &[User], owner: u32) -> bool {
        owner != self.shared_owner && users[owner as usize].queue.is_some()
    }

    /// Counts frame `f` taken by SELECT: a steal if its owner is in queue, and its page's
    /// survival in interruptions (bard eq. 4).
    fn count_victim(&self, ctx: &mut Ctx, st: &mut Storage<'_>, users: &[User], f: u32) {
        st.paging.readahead_taken(&st.reclaim.survival.marks, f);
        let stolen = self.in_queue(users, st.mem.frames[f as usize].owner);
        st.reclaim.count_victim(ctx, f, stolen);
    }

    /// `v`'s page goes out: its old slot is released, a new one given, the frame marked
    /// `PageOut`, and the write joins the open group (a group on another device is submitted
    /// first; the group is submitted when it closes).
    pub(super) fn page_out(
        &mut self,
        ctx: &mut Ctx,
        st: &mut Storage<'_>,
        v: Victim,
    ) -> Result<(), SysError> {
        let (f, fr, pte) = (v.frame, v.fr, v.pte);
        if pte.slot != NONE {
            st.paging.io.release_slot(SlotAddr {
                dev: pte.dev,
                slot: pte.slot,
            });
            if fr.owner != self.shared_owner {
                if let Some(ps) = st.paging.swap.as_mut() {
                    ps.detach(fr.owner, fr.page);
                }
            }
        }
        let (addr, closed) = st.paging.page_out_slot()?;
        st.paging.give_slot(st.mem, fr.owner, fr.page, addr);
        st.mem.set_state(f, FrameState::PageOut);
        let frm = &mut st.mem.frames[f as usize];
        frm.changed = false;
        frm.referenced = false;
        st.paging.pending_outs += 1;
        ctx.c.page_writes += 1.0;
        ctx.sup_debt_ns += ctx.cost.page;
        if !self.group.is_empty() && self.group_dev != addr.dev as usize {
            self.close_group(ctx, st.paging);
        }
        self.group_dev = addr.dev as usize;
        self.group.push(PageIo {
            op: IoOp::Write,
            slot: addr.slot,
            frame: f,
            queued: ctx.now,
        });
        if closed {
            self.close_group(ctx, st.paging);
        }
        Ok(())
    }

    /// Submits the open group of page-outs, if any (one SIO when they share a cylinder).
    pub(super) fn close_group(&mut self, ctx: &mut Ctx, paging: &mut Paging) {
        if !self.group.is_empty() {
            paging.submit_group(ctx, self.group_dev, &mut self.group);
        }
    }
}
