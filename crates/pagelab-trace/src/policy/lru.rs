//! LRU: reclaim the page referenced longest ago.
//!
//! The resident pages form a list ordered by last reference (head = most recent); a hit moves
//! the page to the head, a fault with full memory reclaims the tail. The list is intrusive over
//! dense page numbers ([`super::list`]), so a hit is a handful of stores. LRU is a stack
//! algorithm (Mattson, Gecsei, Slutz & Traiger 1970): its faults at every size come out of one
//! pass in [`crate::curve::lru`].
//!
//! Parameters: none. Deviations: none.

use super::list::{self, Links, List};
use super::{Memory, ParamInfo, PolicyState, Replacement, SpecParams};
use crate::{Run, TraceError};
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

    /// The loop of [`Lru::reference`] over tables borrowed once (the default's grouping of
    /// adjacent runs of one page is left out: a repeat of the head is a no-op here anyway).
    fn run_block(&mut self, runs: &[Run], _now: u64, mem: &mut Memory) -> u64 {
        let mut m = mem.hot();
        let (link, resident) = (self.links.as_mut_slice(), &mut self.resident[..]);
        let mut l = self.list;
        let mut faults = 0u64;
        for r in runs {
            let (x, xu) = (r.page, r.page as usize);
            m.dirty[xu] |= r.kind.is_write();
            if resident[xu] {
                if l.head != x {
                    list::remove(link, &mut l, x);
                    list::push_front(link, &mut l, x);
                }
                continue;
            }
            faults += 1;
            if l.len == self.cap {
                let victim = l.tail;
                list::remove(link, &mut l, victim);
                resident[victim as usize] = false;
                m.reclaim(victim);
            }
            list::push_front(link, &mut l, x);
            resident[xu] = true;
        }
        self.list = l;
        m.finish();
        faults
    }

    fn is_resident(&self, page: u32) -> bool {
        self.resident.get(page as usize).copied().unwrap_or(false)
    }

    fn forget(&mut self, page: u32) -> bool {
        if self.is_resident(page) {
            self.links.remove(&mut self.list, page);
            self.resident[page as usize] = false;
        }
        true
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
