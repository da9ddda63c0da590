//! A processor's burst: the user's reference runs applied in one tight loop until a fault or
//! the budget's end.

use super::*;
use crate::memory::Frame;
use crate::survival::Mark;

/// What the reference loop may touch, borrowed apart from the user.
pub(super) struct Refs<'a> {
    /// Resident frame per page ([`Memory::live`]) of the user and of the shared segment.
    own: &'a [u32],
    shared: &'a [u32],
    shared_pages: u32,
    shared_owner: u32,
    frames: &'a mut [Frame],
    marks: &'a mut [Mark],
    /// The mark a reference leaves (the user and its essential interruptions).
    mark: Mark,
    /// The frame supply, when it ranks references, and its reference clock.
    supply: Option<(&'a mut Supply, &'a mut u64)>,
    reference_ps: u64,
}

/// How the runs in hand ended.
enum Stop {
    /// Every run in the buffer was applied.
    Drained,
    /// The budget was spent.
    Spent,
    /// A reference to a page not valid in storage.
    Fault(u32),
}

impl Refs<'_> {
    /// Applies `usr`'s runs from `usr.pos` on while `*used_ps` stays within `avail_ps`;
    /// counts the whole runs applied in `*done`.
    #[inline]
    fn apply(&mut self, usr: &mut User, avail_ps: u64, used_ps: &mut u64, done: &mut u64) -> Stop {
        let runs = &usr.runs[..];
        let (mut pos, mut left, mut used) = (usr.pos, usr.left, *used_ps);
        let rps = self.reference_ps;
        let stop = loop {
            let r = runs[pos];
            let shared = r.page < self.shared_pages;
            let table = if shared { self.shared } else { self.own };
            let f = match table.get(r.page as usize) {
                Some(&f) if f != NONE => f as usize,
                _ => break Stop::Fault(r.page),
            };
            if let Some((supply, clock)) = self.supply.as_mut() {
                if left == r.count {
                    let owner = if shared {
                        self.shared_owner
                    } else {
                        self.mark.user
                    };
                    supply.on_reference(owner, r.page, r.count, **clock);
                    **clock += u64::from(r.count);
                }
            }
            let fr = &mut self.frames[f];
            // Unconditional stores: a store is cheaper than a mispredicted coin toss.
            fr.referenced = true;
            fr.changed |= r.kind.is_write();
            self.marks[f] = self.mark;
            let cost = u64::from(left) * rps;
            if used + cost > avail_ps {
                let n = (avail_ps - used) / rps;
                left -= n as u32;
                used += n * rps;
                break Stop::Spent;
            }
            used += cost;
            pos += 1;
            *done += 1;
            match runs.get(pos) {
                Some(next) => left = next.count,
                None => break Stop::Drained,
            }
        };
        (usr.pos, usr.left, *used_ps) = (pos, left, used);
        stop
    }
}

impl<'a> Refs<'a> {
    /// User `u`'s view for a burst: its frames and the shared segment's in memory, the
    /// survival marks and, when it ranks references, the frame supply (reclaim's books).
    #[inline]
    pub(super) fn of(
        mem: &'a mut Memory,
        reclaim: &'a mut Reclaim,
        faults: &Faults,
        u: u32,
        reference_ps: u64,
    ) -> Refs<'a> {
        let tell_supply = reclaim.supply.wants_references();
        Refs {
            own: &mem.live[u as usize],
            shared: &mem.live[faults.shared_owner as usize],
            shared_pages: faults.shared_pages,
            shared_owner: faults.shared_owner,
            frames: &mut mem.frames,
            mark: Mark {
                user: u,
                at: reclaim.survival.essential[u as usize],
            },
            marks: &mut reclaim.survival.marks,
            supply: tell_supply.then_some((&mut reclaim.supply, &mut reclaim.supply_refs)),
            reference_ps,
        }
    }
}

impl Dispatcher {
    /// Processor `ci` runs `usr` (the user `refs` marks): the supervisor's debt and, unless
    /// the burst continues one cut short, the dispatch cost are paid first; then its runs are
    /// applied until a fault or the budget's end (the segment, the dispatch slice, the
    /// in-queue `slice`, the next queued event). Post: the processor is busy with the burst,
    /// its end and outcome recorded ([`Dispatcher::end_burst`] hands them back).
    #[inline]
    pub(super) fn run_burst(
        &mut self,
        ctx: &mut Ctx,
        ci: usize,
        slice: u64,
        usr: &mut User,
        mut refs: Refs<'_>,
        opener: Option<&TraceOpener>,
    ) -> Result<(), SysError> {
        let u = refs.mark.user;
        // A burst cut short by an event continues without a new dispatch.
        let dispatch_cost = if std::mem::take(&mut usr.cont) {
            0
        } else {
            ctx.c.dispatches += 1.0;
            ctx.cost.dispatch
        };
        let sup = dispatch_cost + std::mem::take(&mut ctx.sup_debt_ns);
        ctx.c.cpu_supervisor_s += sup as f64 / 1e9;
        let start = ctx.now.as_ns() + sup;
        let next_ev = ctx.q.peek_time().unwrap_or(ctx.end).as_ns();
        if usr.minor_left_ns == 0 {
            usr.minor_left_ns = self.dispatch_ns;
        }
        let budget_ns = usr
            .seg_left_ns
            .min(usr.minor_left_ns)
            .min(slice - usr.stay_cpu_ns)
            .min(next_ev.saturating_sub(start));
        let avail_ps = budget_ns * 1000 + usr.carry_ps;
        let mut used_ps = 0u64;
        let mut runs_done = 0u64;
        let outcome = loop {
            if usr.pos >= usr.runs.len() {
                usr.refill_runs(opener)?;
            }
            match refs.apply(usr, avail_ps, &mut used_ps, &mut runs_done) {
                Stop::Drained => continue,
                Stop::Spent => break Outcome::Spent,
                Stop::Fault(page) => break Outcome::Fault(page),
            }
        };
        let elapsed = match outcome {
            Outcome::Spent => {
                usr.carry_ps = avail_ps - used_ps;
                budget_ns
            }
            Outcome::Fault(_) => {
                usr.carry_ps = 0;
                used_ps.div_ceil(1000).min(budget_ns)
            }
        };
        self.n_runs += runs_done;
        ctx.c.cpu_problem_s += elapsed as f64 / 1e9;
        usr.enter(UState::Running, Tick(start));
        self.cpus[ci] = Cpu {
            user: u,
            busy: true,
            outcome,
            elapsed_ns: elapsed,
            burst_end: Tick(start + elapsed),
        };
        self.n_idle_cpus -= 1;
        Ok(())
    }
}
