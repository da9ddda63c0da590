//! Paging as System carries it out: a fault, the frame it waits for, the page-in it starts,
//! SELECT replenishing the free list, and the paging devices' events ([`IoVerdict`]). The fault path's books and handlers are
//! [`Faults`]'s (faults.rs); here its verdicts become the waiter's state (a guest's pseudo
//! fault its own, guest_hooks.rs), and the compressed pool (zswap_io.rs) is asked between its
//! steps: for a faulting page's copy before it is read, for a victim's page before it is
//! written.

use super::faults::{FaultVerdict, Faults, Given, PageIn, Storage};
use super::paging_io::IoVerdict;
use super::*;

impl System<'_> {
    /// The fault path's parts, borrowed apart: its books, the context, storage and the users.
    fn fault_parts(&mut self) -> (&mut Faults, &mut Ctx, Storage<'_>, &mut [User]) {
        let st = Storage {
            mem: &mut self.mem,
            paging: &mut self.paging,
            reclaim: &mut self.reclaim,
        };
        (&mut self.faults, &mut self.ctx, st, &mut self.users)
    }

    pub(super) fn handle_fault(&mut self, u: u32, page: u32) -> Result<(), SysError> {
        // A guest task's fault taken enabled, with the Accelerator on: a pseudo fault.
        let w = if self.guest.takes_pseudo_fault(&self.users[u as usize], page) {
            u | PSEUDO
        } else {
            u
        };
        let (faults, ctx, mut st, users) = self.fault_parts();
        match faults.on_fault(ctx, &mut st, &mut users[u as usize], w, page) {
            FaultVerdict::Resolved => self.fault_done(w, true),
            FaultVerdict::AwaitsRead => self.fault_wait(w, UState::PageWait),
            FaultVerdict::AwaitsFrame => {
                self.fault_wait(w, UState::FrameWait);
                self.pump_memory()?;
                self.faults.count_frame_wait(&mut self.ctx);
            }
        }
        Ok(())
    }

    /// Serves users waiting for a frame and keeps the free list at its target.
    pub(super) fn pump_memory(&mut self) -> Result<(), SysError> {
        loop {
            while let Some((w, f)) = self.faults.serve_next(&mut self.mem, &mut self.users) {
                self.start_page_in(w, f);
            }
            self.replenish()?;
            if !self.faults.frame_free_for_waiter(&self.mem) {
                return Ok(());
            }
        }
    }

    /// Frame waiter `w` is given frame `f`: its page is mapped and fetched, from the pool if
    /// it holds the page, else from its slot.
    pub(super) fn start_page_in(&mut self, w: u32, f: u32) {
        let u = (w & !PSEUDO) as usize;
        let (faults, ctx, mut st, users) = self.fault_parts();
        let v = match faults.page_in(ctx, &mut st, &users[u], w, f) {
            Given::Joined(v) => v,
            Given::Mapped(m) => {
                let (ctx, mem, reclaim) = (&mut self.ctx, &mut self.mem, &mut self.reclaim);
                if self
                    .paging
                    .zswap_load(ctx, mem, reclaim, (m.owner, m.page), m.frame)
                {
                    return self.fault_done(w, true);
                }
                let (faults, ctx, mut st, users) = self.fault_parts();
                faults.fetch(ctx, &mut st, &mut users[u], m)
            }
        };
        match v {
            PageIn::Resolved => self.fault_done(w, true),
            PageIn::AwaitsRead => self.fault_still_waits(w),
        }
    }

    /// SELECT until the free list plus pending page-outs reach MPL + extra ([`Faults`]
    /// chooses and frees the frames); a victim's page that must be written goes to the pool
    /// if it takes it, else to a paging slot.
    pub(super) fn replenish(&mut self) -> Result<(), SysError> {
        let mut sel = Faults::select(self.reclaim.free_target(self.sched.mpl()));
        loop {
            let (faults, ctx, mut st, users) = self.fault_parts();
            let Some(v) = faults.next_victim(ctx, &mut st, users, &mut sel)? else {
                break;
            };
            if self
                .paging
                .zswap_store(&mut self.ctx, &mut self.mem, self.seed, v.frame)?
            {
                continue;
            }
            let (faults, ctx, mut st, _) = self.fault_parts();
            faults.page_out(ctx, &mut st, v)?;
        }
        self.faults.close_group(&mut self.ctx, &mut self.paging);
        Ok(())
    }

    /// A fault must wait. Ordinarily the user waits in `state`; a pseudo fault instead raises
    /// the first external interrupt (the guest's to handle).
    pub(super) fn fault_wait(&mut self, w: u32, state: UState) {
        if w & PSEUDO == 0 {
            return self.set_state(w, state);
        }
        let u = w & !PSEUDO;
        let mv = self
            .guest
            .on_pseudo_fault(&mut self.ctx, &mut self.users[u as usize]);
        self.guest_moves(u, mv);
    }

    /// A waiting fault moves from the frame wait to the page read.
    pub(super) fn fault_still_waits(&mut self, w: u32) {
        if w & PSEUDO == 0 {
            self.set_state(w, UState::PageWait);
        }
    }

    /// A fault is resolved: its user runs again (`front`: first on its list); a pseudo
    /// fault's page arriving is the guest's second external interrupt.
    pub(super) fn fault_done(&mut self, w: u32, front: bool) {
        if w & PSEUDO == 0 {
            return self.make_ready(w, front);
        }
        let u = w & !PSEUDO;
        let on_cpu = self.dispatch.cpus.iter().any(|c| c.user == u);
        let usr = &mut self.users[u as usize];
        let mv = self
            .guest
            .on_pseudo_page_arrived(&mut self.ctx, usr, on_cpu, front);
        self.guest_moves(u, mv);
    }

    /// Device `d`'s channel program is done: its pages, then their waiters.
    pub(super) fn handle_io_complete(&mut self, d: usize) -> Result<(), SysError> {
        let marks = &self.reclaim.survival.marks;
        let v = self
            .paging
            .on_io_complete(&mut self.ctx, &mut self.mem, marks, d);
        self.carry_out_io(v)
    }

    /// A step of the channel program on exposure `k` of device `d`.
    pub(super) fn handle_exposure(&mut self, d: usize, k: usize) -> Result<(), SysError> {
        let marks = &self.reclaim.survival.marks;
        let v = self
            .paging
            .on_exposure(&mut self.ctx, &mut self.mem, marks, d, k);
        self.carry_out_io(v)
    }

    /// Carries out a device event's verdict: the waiters of the pages that came in run (a
    /// guest's pseudo fault ends), then the users waiting for a frame are served.
    fn carry_out_io(&mut self, v: IoVerdict) -> Result<(), SysError> {
        match v {
            IoVerdict::Pending => Ok(()),
            IoVerdict::Finished => {
                let wakes = std::mem::take(&mut self.paging.wakes);
                for &w in &wakes {
                    self.fault_done(w, false);
                }
                self.paging.wakes = wakes;
                self.pump_memory()
            }
        }
    }
}
