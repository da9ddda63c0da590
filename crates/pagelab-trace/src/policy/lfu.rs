//! LFU: reclaim the resident page referenced least often since it was loaded.
//!
//! Each resident page carries a reference count, set to the references of the run that loaded
//! it and raised by every later reference. At a fault with full memory the page with the
//! smallest count goes; among equal counts the one referenced longest ago (LRU order). Counts
//! are forgotten when a page leaves (in-memory LFU, no history), so a page that comes back
//! starts again from its own run. The candidates are kept ordered by `(count, last reference,
//! page)` in a B-tree: a hit and a fault are each O(log frames).
//!
//! A run of `count` references leaves what `count` single references would: the count rises by
//! `count` and the last reference is the run's last (`now + count - 1`).
//!
//! Parameters: none. Deviations: ties by least recent reference (the textbook leaves them
//! open; Aho, Denning & Ullman 1971 §4 treat LFU as a frequency ranking only).

use std::collections::BTreeSet;

use super::{Memory, ParamInfo, PolicyState, Replacement, SpecParams};
use crate::TraceError;
use serde::{Deserialize, Serialize};

/// LFU has no parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LfuSpec {}

impl SpecParams for LfuSpec {
    const PARAMS: &'static [ParamInfo] = &[];
}

/// LFU state: per page its count and last reference, and the resident pages in victim order.
#[derive(Clone, Debug)]
pub struct Lfu {
    count: Vec<u64>,
    last: Vec<u64>,
    resident: Vec<bool>,
    order: BTreeSet<(u64, u64, u32)>,
    cap: u32,
}

impl Lfu {
    /// LFU over `frames` frames [frames] for pages `0..page_bound`.
    pub fn new(_spec: &LfuSpec, frames: u32, page_bound: u32) -> Result<Self, TraceError> {
        Ok(Lfu {
            count: vec![0; page_bound as usize],
            last: vec![0; page_bound as usize],
            resident: vec![false; page_bound as usize],
            order: BTreeSet::new(),
            cap: frames,
        })
    }

    fn key(&self, page: u32) -> (u64, u64, u32) {
        (self.count[page as usize], self.last[page as usize], page)
    }
}

impl Replacement for Lfu {
    fn reserve_pages(&mut self, page_bound: u32) {
        if self.resident.len() < page_bound as usize {
            self.count.resize(page_bound as usize, 0);
            self.last.resize(page_bound as usize, 0);
            self.resident.resize(page_bound as usize, false);
        }
    }

    #[inline]
    fn reference(&mut self, page: u32, count: u32, now: u64, mem: &mut Memory) -> bool {
        let p = page as usize;
        let last = now + u64::from(count.max(1)) - 1;
        if self.resident[p] {
            let old = self.key(page);
            self.order.remove(&old);
            self.count[p] += u64::from(count);
            self.last[p] = last;
            self.order.insert(self.key(page));
            return true;
        }
        if self.order.len() as u32 == self.cap {
            if let Some((_, _, victim)) = self.order.pop_first() {
                self.resident[victim as usize] = false;
                mem.reclaim(victim);
            }
        }
        self.count[p] = u64::from(count);
        self.last[p] = last;
        self.resident[p] = true;
        self.order.insert(self.key(page));
        false
    }

    fn is_resident(&self, page: u32) -> bool {
        self.resident.get(page as usize).copied().unwrap_or(false)
    }

    fn forget(&mut self, page: u32) -> bool {
        if self.is_resident(page) {
            let key = self.key(page);
            self.order.remove(&key);
            self.resident[page as usize] = false;
        }
        true
    }

    fn resident(&self) -> u32 {
        self.order.len() as u32
    }

    fn state(&self) -> PolicyState {
        PolicyState {
            lists: vec![(
                "victim order (least frequent first)".into(),
                self.order.iter().map(|&(_, _, p)| p).collect(),
            )],
            ..PolicyState::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn faults(refs: &[u32], frames: u32) -> (u32, Vec<u32>) {
        let mut p = Lfu::new(&LfuSpec {}, frames, 16).unwrap();
        let mut mem = Memory::new(16);
        mem.set_recording(true);
        let mut n = 0;
        for (t, &r) in refs.iter().enumerate() {
            if !p.reference(r, 1, t as u64, &mut mem) {
                n += 1;
            }
        }
        (n, mem.take_reclaimed().iter().map(|v| v.page).collect())
    }

    #[test]
    fn least_frequent_goes_ties_by_least_recent() {
        // 1 is referenced three times, 2 twice, 3 once: 4 evicts 3; 5 evicts 4 (count 1, newer
        // than nothing else with count 1); 2 stays.
        let (n, victims) = faults(&[1, 1, 1, 2, 2, 3, 4, 5, 2, 1], 3);
        assert_eq!(victims, vec![3, 4]);
        assert_eq!(n, 5);
    }

    #[test]
    fn a_run_counts_as_its_references() {
        let mut p = Lfu::new(&LfuSpec {}, 2, 8).unwrap();
        let mut mem = Memory::new(8);
        mem.set_recording(true);
        p.reference(1, 5, 0, &mut mem);
        p.reference(2, 1, 5, &mut mem);
        p.reference(2, 1, 6, &mut mem);
        p.reference(3, 1, 7, &mut mem);
        assert_eq!(
            mem.take_reclaimed()[0].page,
            2,
            "page 1's run of 5 outweighs 2's two"
        );
    }
}
