//! The machine's books: core and swap conserved, no overlapping holdings.

use super::machine::*;
use super::swapper::Stat;

impl Machine {
    /// Conservation of core: the clicks held by images and texts plus the free clicks equal
    /// the swappable core, and no two holdings overlap; likewise for swap space.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut held: Vec<(u32, u32)> = Vec::new();
        for (i, p) in self.procs.iter().enumerate() {
            if p.loaded && p.core.is_none() {
                return Err(format!("process {i} is loaded but holds no core"));
            }
            if p.stat == Stat::Run && p.loaded && p.locked && self.cur == Some(i) {
                return Err(format!("process {i} runs while locked"));
            }
            if let Some(a) = p.core {
                held.push((a, p.size));
            }
        }
        for t in &self.texts {
            if let Some(a) = t.core {
                held.push((a, t.size));
            }
        }
        held.extend_from_slice(self.core.extents());
        held.sort_unstable();
        let mut at = 0;
        for &(a, n) in &held {
            if a < at {
                return Err(format!("core extent ({a}, {n}) overlaps another"));
            }
            at = a + n;
        }
        let total: u32 = held.iter().map(|h| h.1).sum();
        if total != self.core.capacity() {
            return Err(format!(
                "core: {total} clicks accounted for, {} in the map",
                self.core.capacity()
            ));
        }
        let text_blocks: u32 = self.texts.iter().map(|t| t.size.div_ceil(8)).sum();
        let swap_held: u32 = self
            .procs
            .iter()
            .filter(|p| p.swap.is_some())
            .map(|p| p.size.div_ceil(8))
            .sum();
        if swap_held + text_blocks + self.swapmap.free_total() != self.swapmap.capacity() {
            return Err(format!(
                "swap: {} blocks held, {} free, {} in the map",
                swap_held + text_blocks,
                self.swapmap.free_total(),
                self.swapmap.capacity()
            ));
        }
        self.cache.check()?;
        if let Some(c) = self.cur {
            let p = &self.procs[c];
            if p.stat != Stat::Run || !p.loaded {
                return Err(format!("running process {c} is not ready in core"));
            }
        }
        Ok(())
    }
}
