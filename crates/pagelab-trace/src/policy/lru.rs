//! LRU: reclaim the page referenced longest ago.
//!
//! The recency order is a log of references (`recency_log.rs`): a hit appends the page (one store, no pointer
//! chasing), and a fault with full memory reclaims the page of the first entry that is still
//! its page's latest, the tail of the textbook list with a move-to-front per hit (both orders
//! are "by last reference", so the two reclaim the same page every time). A hit on the page
//! referenced last changes nothing and appends nothing.
//!
//! LRU is a stack algorithm (Mattson, Gecsei, Slutz & Traiger 1970): its faults at every size
//! come out of one pass in [`crate::curve::lru`].
//!
//! Parameters: none. Deviations: none.

use super::recency_log::{compact, pop_oldest, RecencyLog};
use super::{Memory, ParamInfo, PolicyState, Replacement, SpecParams, NIL};
use crate::{Run, TraceError};
use serde::{Deserialize, Serialize};

/// LRU has no parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LruSpec {}

impl SpecParams for LruSpec {
    const PARAMS: &'static [ParamInfo] = &[];
}

/// LRU state: the recency order, and how many pages it holds of how many frames.
#[derive(Clone, Debug)]
pub struct Lru {
    rec: RecencyLog,
    len: u32,
    cap: u32,
}

impl Lru {
    /// LRU over `frames` frames [frames] for pages `0..page_bound`.
    pub fn new(_spec: &LruSpec, frames: u32, page_bound: u32) -> Result<Self, TraceError> {
        Ok(Lru {
            rec: RecencyLog::new(page_bound),
            len: 0,
            cap: frames,
        })
    }
}

impl Replacement for Lru {
    fn reserve_pages(&mut self, page_bound: u32) {
        self.rec.reserve_pages(page_bound);
    }

    #[inline(always)]
    fn reference(&mut self, page: u32, _count: u32, _now: u64, mem: &mut Memory) -> bool {
        if self.rec.contains(page) {
            if self.rec.last() != page {
                self.rec.append(page);
            }
            return true;
        }
        if self.len == self.cap {
            let victim = self.rec.pop_oldest();
            mem.reclaim(victim);
        } else {
            self.len += 1;
        }
        self.rec.append(page);
        false
    }

    /// The loop of [`Lru::reference`] over tables borrowed once, the log's state in locals.
    fn run_block(&mut self, runs: &[Run], _now: u64, mem: &mut Memory) -> u64 {
        let mut m = mem.hot();
        let RecencyLog {
            log,
            front,
            end,
            at,
        } = &mut self.rec;
        let at = &mut at[..];
        let (mut front, mut end, mut len) = (*front, *end, self.len);
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
        (self.rec.front, self.rec.end, self.len) = (front, end, len);
        m.finish();
        faults
    }

    fn is_resident(&self, page: u32) -> bool {
        self.rec.at.get(page as usize).is_some_and(|&i| i != NIL)
    }

    fn forget(&mut self, page: u32) -> bool {
        if self.is_resident(page) {
            // Its entries are no page's latest now: skipped or compacted away.
            self.rec.remove(page);
            self.len -= 1;
        }
        true
    }

    fn resident(&self) -> u32 {
        self.len
    }

    fn state(&self) -> PolicyState {
        PolicyState {
            lists: vec![(
                "recency (most recent first)".into(),
                self.rec.recent_first(),
            )],
            ..PolicyState::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::recency_log::{LOG_MIN, LOG_SLACK};
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
                let rec = &lru.rec;
                prop_assert!(rec.end <= rec.log.len() && rec.log.len() <= LOG_MIN.max(LOG_SLACK * 48));
            }
            let recency: Vec<u32> = order.iter().rev().copied().collect();
            prop_assert_eq!(&lru.state().lists[0].1, &recency);
        }
    }
}
