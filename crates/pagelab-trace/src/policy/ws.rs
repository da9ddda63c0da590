//! WS: Denning's working set, a variable-space policy.
//!
//! The working set W(t, tau) is the set of pages referenced among the last tau references, the
//! one at time t included (Denning 1968). A reference at t faults when its page is not in
//! W(t-1, tau), that is when its backward distance (t minus the time of the previous reference
//! to the page) exceeds tau; a page leaves memory, and is pushed if changed, as soon as it
//! drops out of the window: after reference L + tau, where L is its last reference.
//!
//! Resident pages are kept in order of last reference (an intrusive list; the tail is the page
//! to leave next). Within a run the window slides by one reference at a time, so pages at the
//! tail leave part-way through a long run; the size integral sum_t |W(t, tau)| is accumulated
//! exactly, piece by piece between those departures, and the mean resident-set size is that
//! integral over the references. Times run from 0. The `frames` argument is not used.
//!
//! Parameters: `tau` [references], default 10 000 (one M44 time slice of 0.1 s at 10 us a
//! reference, Brawn & Gustavson 1968, as for AR).

use super::list::{Links, List};
use super::{Memory, ParamInfo, PolicyState, Replacement, SpecParams};
use crate::TraceError;
use serde::{Deserialize, Serialize};

/// Parameters of the working set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WsSpec {
    /// Window [references] -- parameter, default 10 000 (one 0.1 s M44 slice at 10 us a
    /// reference); at least 1.
    pub tau: u64,
}

impl Default for WsSpec {
    fn default() -> Self {
        WsSpec { tau: 10_000 }
    }
}

impl SpecParams for WsSpec {
    const PARAMS: &'static [ParamInfo] = &[ParamInfo {
        name: "tau",
        unit: "[references]",
        default: "10000",
        doc: "window: pages referenced in the last tau references stay resident",
    }];
}

/// Working-set state: resident pages in order of last reference, with those times.
#[derive(Clone, Debug)]
pub struct Ws {
    links: Links,
    list: List,
    last: Vec<u64>,
    resident: Vec<bool>,
    tau: u64,
}

impl Ws {
    /// Working set with window `spec.tau` for pages `0..page_bound`; `frames` is not used.
    pub fn new(spec: &WsSpec, _frames: u32, page_bound: u32) -> Result<Self, TraceError> {
        if spec.tau == 0 {
            return Err(TraceError::invalid(
                "ws.tau: 0; expected a window of at least 1 reference",
            ));
        }
        Ok(Ws {
            links: Links::new(page_bound),
            list: List::default(),
            last: vec![0; page_bound as usize],
            resident: vec![false; page_bound as usize],
            tau: spec.tau,
        })
    }
}

impl Replacement for Ws {
    fn reserve_pages(&mut self, page_bound: u32) {
        self.links.reserve_pages(page_bound);
        if self.last.len() < page_bound as usize {
            self.last.resize(page_bound as usize, 0);
            self.resident.resize(page_bound as usize, false);
        }
    }

    #[inline]
    fn reference(&mut self, page: u32, count: u32, now: u64, mem: &mut Memory) -> bool {
        let p = page as usize;
        let hit = self.resident[p];
        let end = now + u64::from(count) - 1;
        if hit {
            self.links.move_front(&mut self.list, page);
        } else {
            self.links.push_front(&mut self.list, page);
            self.resident[p] = true;
        }
        self.last[p] = end;
        // Sizes |W(t)| for t = now..=end; the tail leaves after reference last + tau.
        let mut size = u64::from(self.list.len);
        let mut cur = now;
        let mut sum: u64 = 0;
        loop {
            let t = self.list.tail;
            let leave = self.last[t as usize] + self.tau;
            if leave > end {
                break;
            }
            sum += size * (leave - cur);
            cur = leave;
            self.links.remove(&mut self.list, t);
            self.resident[t as usize] = false;
            mem.reclaim(t);
            size -= 1;
        }
        sum += size * (end + 1 - cur);
        mem.add_size_sum(sum);
        hit
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
                "working set (most recent first)".into(),
                self.links.collect(&self.list),
            )],
            ..PolicyState::default()
        }
    }
}
