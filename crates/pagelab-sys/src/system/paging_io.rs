//! Paging I/O: its books ([`Paging`]: the paging devices, the users waiting for a read, swap
//! sets, zswap, readahead) and its own handlers, called with the context: submitting page reads and
//! writes to the paging devices, the devices' events, and the pages of a finished channel
//! program. Making the waiters of those pages ready is the dispatcher's and the guests'
//! business: the handlers name them in an [`IoVerdict`] and [`System`](super::System) carries it
//! out (paging.rs).

use super::ctx::Ctx;
use super::{readahead, Event};
use crate::device::{DeviceStep, IoOp, PageIo, PagingIo, SlotAddr};
use crate::memory::{FrameState, Memory, NONE};
use crate::page_swap::PageSwap;
use crate::spec::SystemSpec;
use crate::survival::Mark;
use crate::zswap::{Zswap, ZswapCounters};
use pagelab_core::Tick;

/// Paging I/O: the paging devices and their queues, the users waiting for a page's read,
/// page swapping's swap sets, the compressed pool and swap readahead.
pub(super) struct Paging {
    pub(super) io: PagingIo,
    pub(super) pending_outs: u32,
    pub(super) done_io: Vec<PageIo>,
    /// Reads waited for: the frame being read and its waiter (a guest's may be tagged
    /// [`PSEUDO`](super::PSEUDO)).
    pub(super) page_waiters: Vec<(u32, u32)>,
    /// The page waiters a finished channel program wakes, in order ([`paging_io::IoVerdict`]).
    pub(super) wakes: Vec<u32>,
    pub(super) write_unchanged: bool,
    /// Frames SELECT may take past its target to fill an open round-turkey group, halved
    /// [frames] (`paging.round_turkey_run`).
    pub(super) round_turkey_run: u32,
    /// The garbage collector's period (`swapping.gc_period_s`; none without one).
    pub(super) gc_period: Option<Tick>,
    /// Page swapping books (residency `page-swapping`).
    pub(super) swap: Option<PageSwap>,
    /// The compressed page pool (`[memory.zswap]`), and its counters at the warm-up's end.
    pub(super) zswap: Option<Zswap>,
    pub(super) zswap_warm: ZswapCounters,
    /// Swap readahead's books (`paging.page_cluster` > 0).
    pub(super) readahead: Option<readahead::Readahead>,
}

impl Paging {
    pub(super) fn build(spec: &SystemSpec, io: PagingIo, swap: Option<PageSwap>) -> Paging {
        let frames = spec.memory.frames.get();
        let readahead = (spec.paging.page_cluster > 0).then(|| {
            let p = &spec.paging;
            readahead::Readahead::new(p.page_cluster, p.readahead, p.readahead_window, &io, frames)
        });
        Paging {
            pending_outs: 0,
            done_io: Vec::new(),
            page_waiters: Vec::new(),
            wakes: Vec::new(),
            write_unchanged: spec.paging.write_unchanged,
            round_turkey_run: spec.paging.round_turkey_run,
            gc_period: (swap.is_some() && spec.swapping.garbage_collector)
                .then(|| Tick::from_secs_f64(spec.swapping.gc_period_s)),
            swap,
            zswap: spec.memory.zswap.clone().map(|z| Zswap::new(z, frames)),
            zswap_warm: ZswapCounters::default(),
            readahead,
            io,
        }
    }
}

/// What a paging device's event leaves for the system to do.
#[must_use]
pub(super) enum IoVerdict {
    /// A step of a channel program on a spare exposure: the program goes on, storage is as
    /// it was.
    Pending,
    /// A channel program ended (its interrupt charged and counted): its reads are resident, the
    /// frames it wrote are free, and [`Paging::wakes`] holds, in order, the fault waiters whose
    /// page came in. The system makes them ready, then serves the users waiting for a frame.
    Finished,
}

impl Ctx {
    /// Queues device `d`'s next step.
    pub(super) fn schedule_device(&mut self, d: usize, step: DeviceStep) {
        match step {
            DeviceStep::Reconnect(t) => self.q.schedule(t, Event::Reconnect(d as u16)),
            DeviceStep::Complete(t) => self.q.schedule(t, Event::IoComplete(d as u16)),
            DeviceStep::Exposure(t, k) => self.q.schedule(t, Event::Exposure(d as u16, k)),
        };
    }
}

impl Paging {
    /// Queues `batch` on device `dev` (one channel program when they share a cylinder).
    pub(super) fn submit(&mut self, ctx: &mut Ctx, dev: usize, batch: &[PageIo]) {
        if let Some(s) = self.io.submit_batch(dev, batch, ctx.now) {
            ctx.schedule_device(dev, s);
        }
    }

    /// Queues one page read or write on device `dev`.
    pub(super) fn submit_one(&mut self, ctx: &mut Ctx, dev: usize, io: PageIo) {
        if let Some(s) = self.io.submit(dev, io, ctx.now) {
            ctx.schedule_device(dev, s);
        }
    }

    /// Queues a group of page-outs on `dev` at once (one SIO when they share a cylinder).
    pub(super) fn submit_group(&mut self, ctx: &mut Ctx, dev: usize, group: &mut Vec<PageIo>) {
        ctx.sup_debt_ns += ctx.cost.sio;
        ctx.c.page_out_groups += 1.0;
        self.submit(ctx, dev, group);
        group.clear();
    }

    /// Device `d` reconnects to its channel (or misses it).
    pub(super) fn on_reconnect(&mut self, ctx: &mut Ctx, d: usize) {
        let step = self.io.reconnect(d, ctx.now);
        ctx.schedule_device(d, step);
    }

    /// Device `d`'s channel program is done; `marks` are the frames' last references.
    pub(super) fn on_io_complete(
        &mut self,
        ctx: &mut Ctx,
        mem: &mut Memory,
        marks: &[Mark],
        d: usize,
    ) -> IoVerdict {
        let mut done = std::mem::take(&mut self.done_io);
        done.clear();
        if let Some(s) = self.io.complete(d, ctx.now, &mut done) {
            ctx.schedule_device(d, s);
        }
        self.finish_ios(ctx, mem, marks, done)
    }

    /// A step of the channel program on exposure `k` of device `d`; its page, when done.
    pub(super) fn on_exposure(
        &mut self,
        ctx: &mut Ctx,
        mem: &mut Memory,
        marks: &[Mark],
        d: usize,
        k: usize,
    ) -> IoVerdict {
        let mut done = std::mem::take(&mut self.done_io);
        done.clear();
        match self.io.exposure_step(d, k, ctx.now, &mut done) {
            Some(t) => {
                ctx.schedule_device(d, DeviceStep::Exposure(t, k as u16));
                self.done_io = done;
                IoVerdict::Pending
            }
            None => self.finish_ios(ctx, mem, marks, done),
        }
    }

    /// The I/O interrupt of a finished channel program, and its pages: reads made resident
    /// (their waiters go to [`Paging::wakes`]), written frames freed.
    fn finish_ios(
        &mut self,
        ctx: &mut Ctx,
        mem: &mut Memory,
        marks: &[Mark],
        done: Vec<PageIo>,
    ) -> IoVerdict {
        ctx.sup_debt_ns += ctx.cost.interrupt;
        ctx.c.io_interrupts += 1.0;
        self.wakes.clear();
        for io in &done {
            match io.op {
                IoOp::Read => self.read_done(ctx, mem, marks, io),
                IoOp::Write if io.frame == NONE => {} // a zswap writeback: no frame waits on it
                IoOp::Write => self.write_done(ctx, mem, io),
            }
        }
        self.done_io = done;
        IoVerdict::Finished
    }

    fn read_done(&mut self, ctx: &mut Ctx, mem: &mut Memory, marks: &[Mark], io: &PageIo) {
        let f = io.frame;
        debug_assert_eq!(mem.frames[f as usize].state, FrameState::PageIn);
        mem.set_state(f, FrameState::Resident);
        let referenced = self.read_referenced(marks, f);
        let fr = &mut mem.frames[f as usize];
        fr.referenced = referenced;
        fr.changed = false;
        let waited = (ctx.now - io.queued).as_secs_f64();
        let mut swapped = false;
        if let Some(ps) = self.swap.as_mut() {
            if std::mem::take(&mut ps.in_swap_io[f as usize]) {
                swapped = true;
                ctx.c.swap_io_sum_s += waited;
                ctx.c.swap_read_sum_s += waited;
                // Reset after a swap-in so that prepage errors show (tetzlaff).
                if ps.prepaged[f as usize] {
                    fr.referenced = false;
                }
            }
        }
        if !swapped && !self.read_ahead(f) {
            ctx.c.page_read_sum_s += waited;
        }
        let mut i = 0;
        while i < self.page_waiters.len() {
            if self.page_waiters[i].0 == f {
                let (_, w) = self.page_waiters.swap_remove(i);
                self.wakes.push(w);
            } else {
                i += 1;
            }
        }
    }

    fn write_done(&mut self, ctx: &mut Ctx, mem: &mut Memory, io: &PageIo) {
        let f = io.frame;
        self.pending_outs -= 1;
        if let Some(ps) = self.swap.as_mut() {
            if std::mem::take(&mut ps.in_swap_io[f as usize]) {
                ctx.c.swap_io_sum_s += (ctx.now - io.queued).as_secs_f64();
            }
        }
        if mem.frames[f as usize].state == FrameState::PageOut {
            mem.unmap(f);
            mem.put_free(f);
        }
    }
}

/// Submitting a fault's reads and the readahead's view of a frame.
impl Paging {
    /// Gives `(owner, page)` the slot at `addr` (page table and, with readahead, its map).
    pub(super) fn give_slot(&mut self, mem: &mut Memory, owner: u32, page: u32, addr: SlotAddr) {
        let p = mem.pte_mut(owner, page);
        p.slot = addr.slot;
        p.dev = addr.dev;
        if let Some(ra) = self.readahead.as_mut() {
            ra.note_slot(addr, owner, page);
        }
    }

    /// Frame `f` now holds a demanded page.
    pub(super) fn readahead_forget(&mut self, f: u32) {
        if let Some(ra) = self.readahead.as_mut() {
            ra.forget(f);
        }
    }

    /// Frame `f` is taken back (`marks`: the frames' last references): a read-ahead page in
    /// it was a hit if it was referenced.
    pub(super) fn readahead_taken(&mut self, marks: &[Mark], f: u32) {
        if let Some(ra) = self.readahead.as_mut() {
            ra.taken(marks, f);
        }
    }

    /// Queues `reads` (device, page read) as one batch per device, in the order given: the
    /// faulting page's device first, its read-ahead pages in the same channel program.
    pub(super) fn submit_reads(&mut self, ctx: &mut Ctx, reads: &[(u16, PageIo)]) {
        let mut devs: Vec<u16> = Vec::new();
        for &(d, _) in reads {
            if !devs.contains(&d) {
                devs.push(d);
            }
        }
        for d in devs {
            let batch: Vec<PageIo> = reads.iter().filter(|r| r.0 == d).map(|r| r.1).collect();
            ctx.sup_debt_ns += if d == reads[0].0 { 0 } else { ctx.cost.sio };
            self.submit(ctx, d as usize, &batch);
        }
    }

    /// A read into frame `f` completed: whether its page counts as referenced (`false` for a
    /// page read ahead that no fault has asked for).
    pub(super) fn read_referenced(&self, marks: &[Mark], f: u32) -> bool {
        !self.read_ahead(f) || marks[f as usize].user != NONE
    }

    /// Whether frame `f` holds (or is reading) a page read ahead.
    pub(super) fn read_ahead(&self, f: u32) -> bool {
        self.readahead.as_ref().is_some_and(|ra| ra.is_ahead(f))
    }
}
