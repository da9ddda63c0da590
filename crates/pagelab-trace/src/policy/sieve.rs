//! SIEVE (Zhang, Yang, Yue, Vigfusson & Rashmi 2024).
//!
//! Resident pages form a FIFO queue (new pages at the head) with a visited bit each, set by a
//! hit. At a fault with full memory a hand, starting from where it stopped (the tail the first
//! time), moves from older to newer pages: a visited page has its bit cleared and is passed, the
//! first unvisited page is reclaimed; past the head the hand wraps to the tail. Unlike CLOCK,
//! survivors are not moved, so new pages are examined before old survivors ("lazy promotion,
//! quick demotion"). A page just loaded has its bit clear; a run's second reference sets it.
//!
//! Parameters: none. Deviations: none.

use super::list::{Links, List};
use super::{Memory, ParamInfo, PolicyState, Replacement, SpecParams, NIL};
use crate::{Run, TraceError};
use serde::{Deserialize, Serialize};

/// SIEVE has no parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SieveSpec {}

impl SpecParams for SieveSpec {
    const PARAMS: &'static [ParamInfo] = &[];
}

/// SIEVE state: the queue, visited and residency flags per page, and the hand.
#[derive(Clone, Debug)]
pub struct Sieve {
    links: Links,
    q: List,
    visited: Vec<bool>,
    resident: Vec<bool>,
    hand: u32,
    cap: u32,
}

impl Sieve {
    /// SIEVE over `frames` frames [frames] for pages `0..page_bound`.
    pub fn new(_spec: &SieveSpec, frames: u32, page_bound: u32) -> Result<Self, TraceError> {
        Ok(Sieve {
            links: Links::new(page_bound),
            q: List::default(),
            visited: vec![false; page_bound as usize],
            resident: vec![false; page_bound as usize],
            hand: NIL,
            cap: frames,
        })
    }
}

impl Sieve {
    /// The hand's choice: visited pages passed (bits cleared), the first unvisited reclaimed.
    #[inline(never)]
    fn evict(&mut self) -> u32 {
        let mut o = if self.hand != NIL {
            self.hand
        } else {
            self.q.tail
        };
        while self.visited[o as usize] {
            self.visited[o as usize] = false;
            o = self.links.prev(o);
            if o == NIL {
                o = self.q.tail;
            }
        }
        self.hand = self.links.prev(o);
        self.links.remove(&mut self.q, o);
        self.resident[o as usize] = false;
        o
    }

    /// A page loaded at the head, its bit set if its run has a second reference.
    #[inline(always)]
    fn insert(&mut self, page: u32, count: u32) {
        self.links.push_front(&mut self.q, page);
        self.resident[page as usize] = true;
        self.visited[page as usize] = count > 1;
    }
}

impl Replacement for Sieve {
    fn reserve_pages(&mut self, page_bound: u32) {
        self.links.reserve_pages(page_bound);
        if self.visited.len() < page_bound as usize {
            self.visited.resize(page_bound as usize, false);
            self.resident.resize(page_bound as usize, false);
        }
    }

    #[inline(always)]
    fn reference(&mut self, page: u32, count: u32, _now: u64, mem: &mut Memory) -> bool {
        let p = page as usize;
        if self.resident[p] {
            self.visited[p] = true;
            return true;
        }
        if self.q.len == self.cap {
            mem.reclaim(self.evict());
        }
        self.insert(page, count);
        false
    }

    /// The loop of [`Sieve::reference`] with the flags borrowed once: a hit is one store. A
    /// fault's run followed by a run of the same page (another kind) sets the bit by that
    /// run's hit, as one collapsed run of both would by its count.
    fn run_block(&mut self, runs: &[Run], _now: u64, mem: &mut Memory) -> u64 {
        let mut m = mem.hot();
        let mut faults = 0u64;
        for r in runs {
            let p = r.page as usize;
            m.dirty[p] |= r.kind.is_write();
            if self.resident[p] {
                self.visited[p] = true;
                continue;
            }
            faults += 1;
            if self.q.len == self.cap {
                m.reclaim(self.evict());
            }
            self.insert(r.page, r.count);
        }
        m.finish();
        faults
    }

    fn is_resident(&self, page: u32) -> bool {
        self.resident.get(page as usize).copied().unwrap_or(false)
    }

    fn forget(&mut self, page: u32) -> bool {
        if self.is_resident(page) {
            if self.hand == page {
                self.hand = self.links.prev(page); // the hand moves on as at an eviction
            }
            self.links.remove(&mut self.q, page);
            self.resident[page as usize] = false;
            self.visited[page as usize] = false;
        }
        true
    }

    fn resident(&self) -> u32 {
        self.q.len
    }

    fn state(&self) -> PolicyState {
        let q = self.links.collect(&self.q);
        let visited: Vec<u32> = q
            .iter()
            .copied()
            .filter(|&p| self.visited[p as usize])
            .collect();
        PolicyState {
            lists: vec![
                ("queue (newest first)".into(), q),
                ("visited".into(), visited),
                (
                    "hand".into(),
                    if self.hand == NIL {
                        vec![]
                    } else {
                        vec![self.hand]
                    },
                ),
            ],
            ..PolicyState::default()
        }
    }
}
