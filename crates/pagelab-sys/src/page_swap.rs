//! Page swapping: the VM/SP HPO prepage and contiguous-block prototypes (tetzlaff, "Prepage
//! prototype" and "Contiguous block page prototype"; fidelity notes §3.2–3.3).
//!
//! ```text
//!  queue-drop ──► working set = private pages referenced in the stay (bits reset here)
//!      │            ├─ the rest trimmed to the flush list (not below MIN_WS = 2 swap sets)
//!      │            └─ logical swap: frames kept, user appended to the Q1 or Q2 swap list
//!  frame shortage: 1 flush list ─► 2 physical swap-out ─► 3 core-table scan (steals)
//!      physical swap-out: head of the Q2 list, else of Q1; its working-set pages in virtual
//!      address order, SWAP_SET pages at a time, written with one SIO each (a swap set);
//!      the same user is drained before the next is taken (partial swaps are normal)
//!  fault on a page of a swap set (a swap fault) ─► the whole set read with one SIO,
//!      its slots freed, its reference bits reset; unreferenced pages are prepage errors
//!  queue-add ──► logical swap-in (all resident pages back); interactive users prepage two
//!      swap sets, long-running users none; full prepaging (every set) is an experiment
//!  garbage collector (contiguous-block prototype): every 4 s, 1/8 of the frames: pages of
//!      no working set (the shared segment, users out of queue and off the swap lists) have
//!      their bits reset, unreferenced ones go to the flush list
//! ```
//!
//! This module keeps the books of swap sets and swap lists and makes the ranking decisions
//! (which pages form the working set, which user gives up frames next); the system moves
//! frames and queues the I/O.
//!
//! Readings where the paper is silent (each a parameter of [`SwappingSpec`]):
//! - The minimum working set keeps, of the unreferenced pages, those lowest in virtual address
//!   (the paper gives the size, not the choice; fidelity notes §3.2 **[A]**).
//! - "Page tables invalidated" at logical swap has no visible effect in the model (a user out of
//!   queue makes no references); at queue-add the user's trimmed pages still in storage are
//!   reclaimed from the flush list, as a fault on them would (our reading).
//! - When a swap fault finds fewer free frames than the set has pages, the set is read as far
//!   as frames allow and the rest stays on its slots as ordinary pages (the paper does not say).
//! - The fixed Q2 limit's value was "set experimentally" and not given (fidelity notes §3.2
//!   **[A]**): no default; presets choose.

use crate::memory::NONE;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Parameters of page swapping (used with `memory.residency = "page-swapping"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwappingSpec {
    /// Pages per swap set [pages] (tetzlaff: an adjustable parameter; 8 in the text).
    #[serde(default = "eight")]
    pub swap_set_pages: u32,
    /// Minimum working set kept at trimming and swapped at physical swap-out [swap sets]
    /// (tetzlaff "Minimum working set": two).
    #[serde(default = "two")]
    pub min_ws_sets: u32,
    /// Swap sets prepaged at queue-add for interactive (Q1) users [swap sets] (tetzlaff
    /// "Prepaging at queue-add": two; none for long-running users).
    #[serde(default = "two")]
    pub prepage_sets: u32,
    /// Prepage every swap set of every user at queue-add (tetzlaff's failed "full prepaging"
    /// experiment).
    #[serde(default)]
    pub full_prepage: bool,
    /// Most users in Q2 at once, the prototype's fixed Q2 MPL limit [users] (tetzlaff
    /// "Multiprogramming level control"; value not given). Absent: no limit.
    #[serde(default)]
    pub q2_mpl_limit: Option<u32>,
    /// Run the garbage collector (tetzlaff, contiguous-block prototype).
    #[serde(default)]
    pub garbage_collector: bool,
    /// Period of the garbage collector [s] (tetzlaff: every four seconds).
    #[serde(default = "four")]
    pub gc_period_s: f64,
    /// Share of the frames the garbage collector examines per period [fraction] (tetzlaff:
    /// one eighth).
    #[serde(default = "eighth")]
    pub gc_fraction: f64,
}

fn eight() -> u32 {
    8
}
fn two() -> u32 {
    2
}
fn four() -> f64 {
    4.0
}
fn eighth() -> f64 {
    0.125
}

impl Default for SwappingSpec {
    fn default() -> Self {
        SwappingSpec {
            swap_set_pages: 8,
            min_ws_sets: 2,
            prepage_sets: 2,
            full_prepage: false,
            q2_mpl_limit: None,
            garbage_collector: false,
            gc_period_s: 4.0,
            gc_fraction: 0.125,
        }
    }
}

impl SwappingSpec {
    /// Checks the values; the error is (key below `swapping`, what was expected).
    pub fn check(&self) -> Result<(), (&'static str, &'static str)> {
        if self.swap_set_pages == 0 || self.swap_set_pages > 64 {
            return Err(("swap_set_pages", "expected 1 to 64 pages"));
        }
        if !(self.gc_period_s.is_finite() && self.gc_period_s > 0.0) {
            return Err(("gc_period_s", "expected a positive period [s]"));
        }
        if !(self.gc_fraction.is_finite() && self.gc_fraction > 0.0 && self.gc_fraction <= 1.0) {
            return Err(("gc_fraction", "expected a fraction in (0, 1]"));
        }
        Ok(())
    }
}

/// A swap set on its slots: pages of one user, in virtual-address order, on consecutive slots
/// `first_slot ..` of device `dev`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwapSet {
    /// Owning user.
    pub owner: u32,
    /// Device holding it.
    pub dev: u16,
    /// Slot of its first page [slot number].
    pub first_slot: u32,
    /// Its pages, ascending, page `i` on slot `first_slot + i` [page numbers]; a page that
    /// left the set (rewritten elsewhere) leaves a hole, [`NONE`].
    pub pages: Vec<u32>,
}

/// The working set found at a queue-drop: indices into the candidate list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkingSet {
    /// Pages kept (logically swapped).
    pub keep: Vec<usize>,
    /// Pages trimmed to the flush list.
    pub trim: Vec<usize>,
}

/// Splits a user's resident private pages, given as reference bits in virtual-address order,
/// into the working set (referenced during the stay) and the pages to trim; unreferenced pages
/// are kept, lowest address first, until the working set reaches `min_ws` pages.
pub fn identify_working_set(referenced: &[bool], min_ws: usize) -> WorkingSet {
    let mut ws = WorkingSet::default();
    let n_ref = referenced.iter().filter(|&&r| r).count();
    let mut extra = min_ws.saturating_sub(n_ref);
    for (i, &r) in referenced.iter().enumerate() {
        if r {
            ws.keep.push(i);
        } else if extra > 0 {
            extra -= 1;
            ws.keep.push(i);
        } else {
            ws.trim.push(i);
        }
    }
    ws
}

/// Swap sets, swap lists and per-frame prepage marks.
#[derive(Clone, Debug)]
pub struct PageSwap {
    /// Parameters.
    pub spec: SwappingSpec,
    sets: Vec<Option<SwapSet>>,
    free_ids: Vec<u32>,
    set_of: Vec<Vec<u32>>,
    user_sets: Vec<Vec<u32>>,
    q1_list: VecDeque<u32>,
    q2_list: VecDeque<u32>,
    on_list: Vec<bool>,
    /// Frames read by a swap-in and not yet found referenced.
    pub prepaged: Vec<bool>,
    /// Frames with a swap read or write under way (for the swap I/O time).
    pub in_swap_io: Vec<bool>,
    /// Next frame the garbage collector examines.
    pub gc_cursor: u32,
}

/// Which swap list a user joins: the class of the stay just ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwapList {
    /// Users dropped from Q1 (interactive).
    Q1,
    /// Users dropped from Q2; swapped out first.
    Q2,
}

impl PageSwap {
    /// Books for `users` users and `frames` frames.
    pub fn new(spec: SwappingSpec, users: usize, frames: usize) -> PageSwap {
        PageSwap {
            spec,
            sets: Vec::new(),
            free_ids: Vec::new(),
            set_of: vec![Vec::new(); users],
            user_sets: vec![Vec::new(); users],
            q1_list: VecDeque::new(),
            q2_list: VecDeque::new(),
            on_list: vec![false; users],
            prepaged: vec![false; frames],
            in_swap_io: vec![false; frames],
            gc_cursor: 0,
        }
    }

    /// Minimum working set [pages].
    pub fn min_ws_pages(&self) -> usize {
        (self.spec.min_ws_sets * self.spec.swap_set_pages) as usize
    }

    /// Appends `user` to the back of swap list `list` (FIFO by drop), if not already listed.
    pub fn enlist(&mut self, user: u32, list: SwapList) {
        if self.on_list[user as usize] {
            return;
        }
        self.on_list[user as usize] = true;
        match list {
            SwapList::Q1 => self.q1_list.push_back(user),
            SwapList::Q2 => self.q2_list.push_back(user),
        }
    }

    /// Takes `user` off the swap lists (queue-add).
    pub fn delist(&mut self, user: u32) {
        if std::mem::take(&mut self.on_list[user as usize]) {
            self.q1_list.retain(|&u| u != user);
            self.q2_list.retain(|&u| u != user);
        }
    }

    /// Whether `user` is on a swap list.
    pub fn is_listed(&self, user: u32) -> bool {
        self.on_list[user as usize]
    }

    /// The user to swap out next: the head of the Q2 list, else of the Q1 list. Heads for
    /// which `has_pages` is false (nothing left to swap) leave the lists.
    pub fn next_victim_user(&mut self, mut has_pages: impl FnMut(u32) -> bool) -> Option<u32> {
        for list in [&mut self.q2_list, &mut self.q1_list] {
            while let Some(&u) = list.front() {
                if has_pages(u) {
                    return Some(u);
                }
                list.pop_front();
                self.on_list[u as usize] = false;
            }
        }
        None
    }

    /// Records a swap set written to `first_slot ..` of `dev`; returns its id.
    pub fn record(&mut self, set: SwapSet) -> u32 {
        let owner = set.owner as usize;
        let id = match self.free_ids.pop() {
            Some(id) => id,
            None => {
                self.sets.push(None);
                (self.sets.len() - 1) as u32
            }
        };
        let table = &mut self.set_of[owner];
        for &p in &set.pages {
            if table.len() <= p as usize {
                table.resize(p as usize + 1, NONE);
            }
            table[p as usize] = id;
        }
        self.user_sets[owner].push(id);
        self.sets[id as usize] = Some(set);
        id
    }

    /// The swap set holding `user`'s `page`, if any.
    pub fn set_of(&self, user: u32, page: u32) -> Option<u32> {
        match self.set_of[user as usize].get(page as usize) {
            Some(&id) if id != NONE => Some(id),
            _ => None,
        }
    }

    /// Swap sets of `user`, oldest first.
    pub fn sets_of(&self, user: u32) -> &[u32] {
        &self.user_sets[user as usize]
    }

    /// The set `id`.
    pub fn get(&self, id: u32) -> Option<&SwapSet> {
        self.sets.get(id as usize).and_then(|s| s.as_ref())
    }

    /// Dissolves set `id` (swapped in: "the affinity of the pages is lost") and returns it.
    pub fn take(&mut self, id: u32) -> Option<SwapSet> {
        let set = self.sets.get_mut(id as usize)?.take()?;
        let owner = set.owner as usize;
        for &p in set.pages.iter().filter(|&&p| p != NONE) {
            if let Some(x) = self.set_of[owner].get_mut(p as usize) {
                if *x == id {
                    *x = NONE;
                }
            }
        }
        self.user_sets[owner].retain(|&i| i != id);
        self.free_ids.push(id);
        Some(set)
    }

    /// Removes `page` from its swap set (it left its slot some other way).
    pub fn detach(&mut self, user: u32, page: u32) {
        let Some(id) = self.set_of(user, page) else {
            return;
        };
        self.set_of[user as usize][page as usize] = NONE;
        // A hole keeps the other pages on their slots (page i on `first_slot + i`).
        let emptied = match self.sets[id as usize].as_mut() {
            Some(s) => {
                for p in s.pages.iter_mut().filter(|p| **p == page) {
                    *p = NONE;
                }
                s.pages.iter().all(|&p| p == NONE)
            }
            None => false,
        };
        if emptied {
            self.take(id);
        }
    }

    /// Swap sets on slots [count].
    pub fn n_sets(&self) -> usize {
        self.sets.iter().filter(|s| s.is_some()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn working_set_is_the_referenced_pages() {
        let ws = identify_working_set(&[true, false, true, false, false], 0);
        assert_eq!(ws.keep, vec![0, 2]);
        assert_eq!(ws.trim, vec![1, 3, 4]);
    }

    #[test]
    fn minimum_working_set_keeps_low_addresses() {
        // Two referenced, minimum four: the two lowest unreferenced pages are kept as well.
        let ws = identify_working_set(&[false, true, false, false, true, false], 4);
        assert_eq!(ws.keep, vec![0, 1, 2, 4]);
        assert_eq!(ws.trim, vec![3, 5]);
        // Fewer pages than the minimum: nothing trimmed.
        let ws = identify_working_set(&[false, false], 16);
        assert_eq!(ws.trim, Vec::<usize>::new());
    }

    #[test]
    fn q2_users_are_swapped_before_q1() {
        let mut ps = PageSwap::new(SwappingSpec::default(), 4, 8);
        ps.enlist(0, SwapList::Q1);
        ps.enlist(1, SwapList::Q2);
        ps.enlist(2, SwapList::Q1);
        ps.enlist(3, SwapList::Q2);
        assert_eq!(ps.next_victim_user(|_| true), Some(1));
        // User 1 has nothing left: it leaves, and user 3 (next on Q2) comes before any Q1 user.
        assert_eq!(ps.next_victim_user(|u| u != 1), Some(3));
        assert_eq!(ps.next_victim_user(|u| u != 1 && u != 3), Some(0));
        assert!(!ps.is_listed(1) && !ps.is_listed(3) && ps.is_listed(0));
        // Queue-add takes a user off; FIFO order of the rest is kept.
        ps.delist(0);
        assert_eq!(ps.next_victim_user(|_| true), Some(2));
    }

    #[test]
    fn sets_are_found_by_page_and_dissolved_on_swap_in() {
        let mut ps = PageSwap::new(SwappingSpec::default(), 2, 8);
        let a = ps.record(SwapSet {
            owner: 1,
            dev: 0,
            first_slot: 40,
            pages: vec![10, 11, 14],
        });
        let c = ps.record(SwapSet {
            owner: 1,
            dev: 0,
            first_slot: 50,
            pages: vec![30, 31],
        });
        // A page leaving a set leaves a hole: the others stay on their slots.
        ps.detach(1, 30);
        assert_eq!(ps.get(c).unwrap().pages, vec![NONE, 31]);
        ps.detach(1, 31);
        assert!(ps.get(c).is_none(), "an empty set is dissolved");
        let b = ps.record(SwapSet {
            owner: 1,
            dev: 0,
            first_slot: 43,
            pages: vec![20],
        });
        assert_eq!(ps.set_of(1, 14), Some(a));
        assert_eq!(ps.set_of(1, 12), None);
        assert_eq!(ps.set_of(0, 10), None);
        assert_eq!(ps.sets_of(1), &[a, b]);
        let s = ps.take(a).unwrap();
        assert_eq!(s.pages, vec![10, 11, 14]);
        assert_eq!(ps.set_of(1, 11), None);
        assert_eq!(ps.sets_of(1), &[b]);
        ps.detach(1, 20);
        assert_eq!(ps.n_sets(), 0);
    }
}
