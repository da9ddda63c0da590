//! LRU: reclaim the page referenced longest ago.
//!
//! The recency order is kept as a *log* of references, oldest first, in which only each
//! resident page's latest entry counts: a hit appends the page (one store, no pointer
//! chasing), and a fault with full memory reclaims the page of the first entry that is still
//! its page's latest. That page is the one whose last reference is oldest, the tail of the
//! textbook list with a move-to-front per hit: both orders are "by last reference", so the two
//! reclaim the same page every time (the recency list in step mode is read off the log).
//! Entries that are no longer a page's latest are skipped at the front and dropped when the log
//! is compacted, which happens when it has grown to [`LOG_SLACK`] times the resident pages it
//! held after the last compaction (at least [`LOG_MIN`]): each compaction either drops most of
//! the log or the resident set has grown fourfold, so each entry costs O(1) amortized and the
//! log stays O(resident pages). A hit on the page referenced last changes
//! nothing and appends nothing.
//!
//! LRU is a stack algorithm (Mattson, Gecsei, Slutz & Traiger 1970): its faults at every size
//! come out of one pass in [`crate::curve::lru`].
//!
//! Parameters: none. Deviations: none.

use super::{Memory, ParamInfo, PolicyState, Replacement, SpecParams, NIL};
use crate::{Run, TraceError};
use serde::{Deserialize, Serialize};

/// The log is compacted when it holds this many entries per resident page (at least
/// [`LOG_MIN`]).
const LOG_SLACK: usize = 16;
/// The smallest log before compaction [entries].
const LOG_MIN: usize = 1 << 16;

/// LRU has no parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LruSpec {}

impl SpecParams for LruSpec {
    const PARAMS: &'static [ParamInfo] = &[];
}

/// LRU state: the reference log and, per page, the index of its latest entry.
#[derive(Clone, Debug)]
pub struct Lru {
    /// Pages in order of reference: `log[front..end]`; entries before `front` are spent. Its
    /// length is where it is compacted next.
    log: Vec<u32>,
    front: usize,
    end: usize,
    /// Per page: index in `log` of its latest entry, `NIL` if not resident.
    at: Vec<u32>,
    len: u32,
    cap: u32,
}

impl Lru {
    /// LRU over `frames` frames [frames] for pages `0..page_bound`.
    pub fn new(_spec: &LruSpec, frames: u32, page_bound: u32) -> Result<Self, TraceError> {
        Ok(Lru {
            log: vec![0; LOG_MIN],
            front: 0,
            end: 0,
            at: vec![NIL; page_bound as usize],
            len: 0,
            cap: frames,
        })
    }

    /// Removes and returns the least recently referenced resident page.
    #[inline]
    fn pop_oldest(&mut self) -> u32 {
        self.len -= 1;
        pop_oldest(&self.log, &mut self.at, &mut self.front)
    }

    /// Appends `page` as the most recent reference.
    #[inline(always)]
    fn append(&mut self, page: u32) {
        if self.end == self.log.len() {
            compact(&mut self.log, &mut self.at, &mut self.front, &mut self.end);
        }
        self.at[page as usize] = self.end as u32;
        self.log[self.end] = page;
        self.end += 1;
    }
}

/// Removes the least recently referenced resident page from `log[*front..]` and returns it.
#[inline(always)]
fn pop_oldest(log: &[u32], at: &mut [u32], front: &mut usize) -> u32 {
    loop {
        let p = log[*front];
        let live = at[p as usize] == *front as u32;
        *front += 1;
        if live {
            at[p as usize] = NIL;
            return p;
        }
    }
}

/// Drops the entries that are no longer their page's latest, renumbers the rest and sizes the
/// log for the next compaction.
#[cold]
#[inline(never)]
fn compact(log: &mut Vec<u32>, at: &mut [u32], front: &mut usize, end: &mut usize) {
    let mut k = 0;
    for i in *front..*end {
        let p = log[i];
        if at[p as usize] == i as u32 {
            log[k] = p;
            at[p as usize] = k as u32;
            k += 1;
        }
    }
    *front = 0;
    *end = k;
    log.resize(
        k.saturating_mul(LOG_SLACK).clamp(LOG_MIN, NIL as usize - 1),
        0,
    );
}

impl Replacement for Lru {
    fn reserve_pages(&mut self, page_bound: u32) {
        if self.at.len() < page_bound as usize {
            self.at.resize(page_bound as usize, NIL);
        }
    }

    #[inline(always)]
    fn reference(&mut self, page: u32, _count: u32, _now: u64, mem: &mut Memory) -> bool {
        if self.at[page as usize] != NIL {
            if self.end == 0 || self.log[self.end - 1] != page {
                self.append(page);
            }
            return true;
        }
        if self.len == self.cap {
            let victim = self.pop_oldest();
            mem.reclaim(victim);
        }
        self.append(page);
        self.len += 1;
        false
    }

    /// The loop of [`Lru::reference`] over tables borrowed once, the log's state in locals.
    fn run_block(&mut self, runs: &[Run], _now: u64, mem: &mut Memory) -> u64 {
        let mut m = mem.hot();
        let (log, at) = (&mut self.log, &mut self.at[..]);
        let (mut front, mut end, mut len) = (self.front, self.end, self.len);
        let mut last = if end > 0 { log[end - 1] } else { NIL };
        let mut faults = 0u64;
        for r in runs {
            let x = r.page;
            m.dirty[x as usize] |= r.kind.is_write();
            if at[x as usize] != NIL {
                if x == last {
                    continue;
                }
            } else {
                faults += 1;
                if len == self.cap {
                    m.reclaim(pop_oldest(log, at, &mut front));
                } else {
                    len += 1;
                }
            }
            if end == log.len() {
                compact(log, at, &mut front, &mut end);
            }
            at[x as usize] = end as u32;
            log[end] = x;
            end += 1;
            last = x;
        }
        (self.front, self.end, self.len) = (front, end, len);
        m.finish();
        faults
    }

    fn is_resident(&self, page: u32) -> bool {
        self.at.get(page as usize).is_some_and(|&i| i != NIL)
    }

    fn forget(&mut self, page: u32) -> bool {
        if self.is_resident(page) {
            // Its entries are no page's latest now: skipped or compacted away.
            self.at[page as usize] = NIL;
            self.len -= 1;
        }
        true
    }

    fn resident(&self) -> u32 {
        self.len
    }

    fn state(&self) -> PolicyState {
        let recency = (self.front..self.end)
            .rev()
            .map(|i| (i, self.log[i]))
            .filter(|&(i, p)| self.at[p as usize] == i as u32)
            .map(|(_, p)| p)
            .collect();
        PolicyState {
            lists: vec![("recency (most recent first)".into(), recency)],
            ..PolicyState::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AccessKind;
    use proptest::prelude::*;

    /// The textbook list: most recent last; a fault with full memory drops the first.
    fn naive(order: &mut Vec<u32>, page: u32, cap: usize) -> (bool, Option<u32>) {
        if let Some(i) = order.iter().position(|&p| p == page) {
            order.remove(i);
            order.push(page);
            return (true, None);
        }
        let victim = (order.len() == cap).then(|| order.remove(0));
        order.push(page);
        (false, victim)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        /// Long enough strings that the log is compacted many times, with pages forgotten on
        /// the way (a system's trims): the same hits, residents and recency as the list, in
        /// both the per-run and the block loop.
        #[test]
        fn the_log_reclaims_what_the_list_does(
            pages in prop::collection::vec(0u32..48, 12_000..20_000),
            cap in 1u32..40,
            forget_every in 50usize..400,
            block in 1usize..700,
        ) {
            let mut lru = Lru::new(&LruSpec {}, cap, 48).unwrap();
            let mut mem = Memory::new(48);
            let mut order = Vec::new();
            for (i, chunk) in pages.chunks(block).enumerate() {
                if i % 2 == 0 {
                    for &p in chunk {
                        let hit = lru.reference(p, 1, 0, &mut mem);
                        prop_assert_eq!(hit, naive(&mut order, p, cap as usize).0);
                    }
                } else {
                    let runs: Vec<Run> = chunk
                        .iter()
                        .map(|&page| Run { page, count: 1, kind: AccessKind::Load })
                        .collect();
                    let want = chunk
                        .iter()
                        .filter(|&&p| !naive(&mut order, p, cap as usize).0)
                        .count() as u64;
                    prop_assert_eq!(lru.run_block(&runs, 0, &mut mem), want);
                }
                if i % forget_every.div_ceil(block).max(1) == 0 {
                    if let Some(&p) = order.first() {
                        order.remove(0);
                        prop_assert!(lru.forget(p));
                    }
                }
                prop_assert_eq!(lru.resident() as usize, order.len());
                prop_assert!(lru.end <= lru.log.len() && lru.log.len() <= LOG_MIN.max(LOG_SLACK * 48));
            }
            let recency: Vec<u32> = order.iter().rev().copied().collect();
            prop_assert_eq!(&lru.state().lists[0].1, &recency);
        }
    }
}
