//! LRU: reclaim the page referenced longest ago.
//!
//! The resident pages form a list ordered by last reference (head = most recent); a hit moves
//! the page to the head, a fault with full memory reclaims the tail. The list is intrusive over
//! dense page numbers ([`super::list`]), so a hit is a handful of stores. LRU is a stack
//! algorithm (Mattson, Gecsei, Slutz & Traiger 1970): its faults at every size come out of one
//! pass in [`crate::curve::lru`].
//!
//! Parameters: none. Deviations: none.

use super::list::{Links, List};
use super::{Memory, ParamInfo, PolicyState, Replacement, SpecParams};
use crate::TraceError;
use serde::{Deserialize, Serialize};

/// LRU has no parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LruSpec {}

impl SpecParams for LruSpec {
    const PARAMS: &'static [ParamInfo] = &[];
}

/// LRU state: the recency list and a residency flag per page.
#[derive(Clone, Debug)]
pub struct Lru {
    links: Links,
    list: List,
    resident: Vec<bool>,
    cap: u32,
}

impl Lru {
    /// LRU over `frames` frames [frames] for pages `0..page_bound`.
    pub fn new(_spec: &LruSpec, frames: u32, page_bound: u32) -> Result<Self, TraceError> {
        Ok(Lru {
            links: Links::new(page_bound),
            list: List::default(),
            resident: vec![false; page_bound as usize],
            cap: frames,
        })
    }
}

impl Replacement for Lru {
    fn reserve_pages(&mut self, page_bound: u32) {
        self.links.reserve_pages(page_bound);
        if self.resident.len() < page_bound as usize {
            self.resident.resize(page_bound as usize, false);
        }
    }

    #[inline(always)]
    fn reference(&mut self, page: u32, _count: u32, _now: u64, mem: &mut Memory) -> bool {
        if self.resident[page as usize] {
            self.links.move_front(&mut self.list, page);
            return true;
        }
        if self.list.len == self.cap {
            let victim = self.links.pop_back(&mut self.list);
            self.resident[victim as usize] = false;
            mem.reclaim(victim);
        }
        self.links.push_front(&mut self.list, page);
        self.resident[page as usize] = true;
        false
    }

    fn is_resident(&self, page: u32) -> bool {
        self.resident.get(page as usize).copied().unwrap_or(false)
    }

    fn resident(&self) -> u32 {
        self.list.len
    }

    fn state(&self) -> PolicyState {
        PolicyState {
            lists: vec![(
                "recency (most recent first)".into(),
                self.links.collect(&self.list),
            )],
            ..PolicyState::default()
        }
    }
}
