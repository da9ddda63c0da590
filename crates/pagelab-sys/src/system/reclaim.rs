//! Reclaim: which frame SELECT frees next (the flush list, else the frame supply's victim),
//! the free list's target, and the books of Bard's survival measure and of steals. Handlers
//! take the context and memory; whether a victim's owner is in queue (a steal) the system
//! tells them.

use super::ctx::Ctx;
use crate::memory::Memory;
use crate::spec::SystemSpec;
use crate::steal::StealBooks;
use crate::supply::{FrameSupply, Supply};
use crate::survival::SurvivalBooks;

/// Frame supply and reclaim: which resident frame SELECT frees next, the free-list targets,
/// and the books of Bard's survival measure and of steals.
pub(super) struct Reclaim {
    /// Frame supply: which resident frame SELECT frees next.
    pub(super) supply: Supply,
    /// References reported to the supply [references].
    pub(super) supply_refs: u64,
    pub(super) free_extra: u32,
    pub(super) free_min: u32,
    /// Bard's eq. 4 books: essential interruptions per user, last-reference marks per frame.
    pub(super) survival: SurvivalBooks,
    pub(super) steal: StealBooks,
}

impl Reclaim {
    pub(super) fn build(spec: &SystemSpec, supply: Supply, n_all: u32) -> Reclaim {
        let frames = spec.memory.frames;
        Reclaim {
            supply,
            supply_refs: 0,
            free_extra: spec.memory.free_target_extra,
            free_min: spec.memory.free_target_min,
            survival: SurvivalBooks::of_kind(n_all, frames, spec.monitor.essential),
            steal: StealBooks::new(frames.get() as usize),
        }
    }
}

impl Reclaim {
    /// The free list's target with `mpl` users in queue: MPL plus the extra, at least the
    /// minimum [frames].
    pub(super) fn free_target(&self, mpl: u32) -> usize {
        (mpl + self.free_extra).max(self.free_min) as usize
    }

    /// The flush list's oldest frame, if any. Post: it is no longer the supply's to rank, and
    /// its page is marked as flushed out.
    pub(super) fn take_flushed(&mut self, mem: &mut Memory) -> Option<u32> {
        let f = mem.pop_flush()?;
        // Trimmed or flushed at queue-drop: not the supply's choice.
        let fr = mem.frames[f as usize];
        self.supply.on_free(fr.owner, fr.page);
        mem.pte_mut(fr.owner, fr.page).flushed_out = true;
        Some(f)
    }

    /// The frame supply's victim, counted; `None` when it has none.
    pub(super) fn select_victim(&mut self, ctx: &mut Ctx, mem: &mut Memory) -> Option<u32> {
        let f = self.supply.select_victim(mem)?;
        ctx.c.supply_victims += 1.0;
        Some(f)
    }

    /// Counts frame `f` taken by SELECT (`stolen`: its owner is in queue) and its page's
    /// survival in interruptions (bard eq. 4).
    pub(super) fn count_victim(&mut self, ctx: &mut Ctx, f: u32, stolen: bool) {
        ctx.c.victims += 1.0;
        if stolen {
            ctx.c.steals += 1.0;
        }
        self.steal.replaced(f, stolen);
        if let Some(n) = self.survival.replaced(f) {
            if ctx.warm {
                self.survival.tally(f, n);
            }
            ctx.c.psi_interruptions += n as f64;
            ctx.c.psi_replaced += 1.0;
            if stolen {
                ctx.c.psi_stolen_interruptions += n as f64;
            }
        }
    }
}
