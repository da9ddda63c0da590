//! ARC: adaptive replacement cache (Megiddo & Modha 2003, figure 4).
//!
//! With c frames, ARC keeps four LRU lists: T1 (resident, seen once recently), T2 (resident,
//! seen at least twice), and the ghost lists B1, B2 (pages recently reclaimed from T1, T2; no
//! frame). A target p for |T1| adapts: a fault on a page in B1 raises p by
//! max(1, |B2|/|B1|), one in B2 lowers it by max(1, |B1|/|B2|). REPLACE reclaims the LRU page
//! of T1 into B1 if |T1| > p (or |T1| = p and the fault was in B2), otherwise the LRU page of
//! T2 into B2. A page new to all lists enters T1, evicting from B1 or T1 when |T1|+|B1| = c and
//! from B2 when all four lists hold 2c pages (the paper's cases IV.A and IV.B). A hit moves the
//! page to the head of T2; so does the second reference of a run.
//!
//! Deviation: the adaptation steps use integer division (p is a whole number of pages); the
//! paper's figure writes the ratios without saying (section "ARC", figure 4). Pages forgotten
//! from outside (`forget`: the system simulator's trims and swap-outs) leave ARC holding fewer
//! than c pages with its directory full; REPLACE then evicts nothing, since there is room.
//!
//! Parameters: none.

use super::list::{self, Links, List};
use super::{Memory, ParamInfo, PolicyState, Replacement, SpecParams};
use crate::{Run, TraceError};
use serde::{Deserialize, Serialize};

/// ARC has no parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArcSpec {}

impl SpecParams for ArcSpec {
    const PARAMS: &'static [ParamInfo] = &[];
}

const NONE: u8 = 0;
const T1: u8 = 1;
const T2: u8 = 2;
const B1: u8 = 3;
const B2: u8 = 4;

/// ARC state: the four lists sharing one set of links, and the target p.
#[derive(Clone, Debug)]
pub struct Arc {
    links: Links,
    lists: [List; 5],
    place: Vec<u8>,
    p: u32,
    c: u32,
}

impl Arc {
    /// ARC over `frames` frames [frames] for pages `0..page_bound`.
    pub fn new(_spec: &ArcSpec, frames: u32, page_bound: u32) -> Result<Self, TraceError> {
        Ok(Arc {
            links: Links::new(page_bound),
            lists: [List::default(); 5],
            place: vec![NONE; page_bound as usize],
            p: 0,
            c: frames,
        })
    }

    #[inline]
    fn len(&self, l: u8) -> u32 {
        self.lists[l as usize].len
    }

    #[inline]
    fn unlink(&mut self, x: u32) {
        let l = self.place[x as usize];
        self.links.remove(&mut self.lists[l as usize], x);
        self.place[x as usize] = NONE;
    }

    #[inline]
    fn push(&mut self, l: u8, x: u32) {
        self.links.push_front(&mut self.lists[l as usize], x);
        self.place[x as usize] = l;
    }

    fn pop_lru(&mut self, l: u8) -> u32 {
        let x = self.links.pop_back(&mut self.lists[l as usize]);
        self.place[x as usize] = NONE;
        x
    }

    fn replace(&mut self, in_b2: bool, mem: &mut Memory) {
        // ARC keeps |T1| + |T2| = c once |L1| + |L2| ≥ c (Megiddo & Modha's invariant), so
        // REPLACE always finds a page. Pages forgotten from outside (a system's trims and
        // swap-outs, `forget`) break it: then there is room, and nothing is evicted.
        if self.len(T1) + self.len(T2) < self.c {
            return;
        }
        let t1 = self.len(T1);
        let from_t1 = (in_b2 && t1 == self.p) || t1 > self.p || self.len(T2) == 0;
        if t1 >= 1 && from_t1 {
            let v = self.pop_lru(T1);
            mem.reclaim(v);
            self.push(B1, v);
        } else {
            let v = self.pop_lru(T2);
            mem.reclaim(v);
            self.push(B2, v);
        }
    }

    #[inline(never)]
    fn touch(&mut self, x: u32, mem: &mut Memory) -> bool {
        match self.place[x as usize] {
            T1 | T2 => {
                self.unlink(x);
                self.push(T2, x);
                true
            }
            B1 => {
                let d = (self.len(B2) / self.len(B1)).max(1);
                self.p = (self.p + d).min(self.c);
                self.replace(false, mem);
                self.unlink(x);
                self.push(T2, x);
                false
            }
            B2 => {
                let d = (self.len(B1) / self.len(B2)).max(1);
                self.p = self.p.saturating_sub(d);
                self.replace(true, mem);
                self.unlink(x);
                self.push(T2, x);
                false
            }
            _ => {
                let l1 = self.len(T1) + self.len(B1);
                let total = l1 + self.len(T2) + self.len(B2);
                if l1 == self.c {
                    if self.len(T1) < self.c {
                        self.pop_lru(B1);
                        self.replace(false, mem);
                    } else {
                        let v = self.pop_lru(T1);
                        mem.reclaim(v);
                    }
                } else if total >= self.c {
                    if total == 2 * self.c {
                        self.pop_lru(B2);
                    }
                    self.replace(false, mem);
                }
                self.push(T1, x);
                false
            }
        }
    }
}

impl Replacement for Arc {
    fn reserve_pages(&mut self, page_bound: u32) {
        self.links.reserve_pages(page_bound);
        if self.place.len() < page_bound as usize {
            self.place.resize(page_bound as usize, NONE);
        }
    }

    #[inline(always)]
    fn reference(&mut self, page: u32, count: u32, _now: u64, mem: &mut Memory) -> bool {
        // A hit (case I) ends at the head of T2, whatever the run's length: done here, with
        // no move when the page is already there.
        match self.place[page as usize] {
            T2 => {
                self.links.move_front(&mut self.lists[T2 as usize], page);
                return true;
            }
            T1 => {
                self.unlink(page);
                self.push(T2, page);
                return true;
            }
            _ => {}
        }
        let hit = self.touch(page, mem);
        if count > 1 && self.place[page as usize] == T1 {
            self.touch(page, mem);
        }
        hit
    }

    /// Hits (case I) in a loop over tables borrowed once; each miss through
    /// [`Arc::reference`] with the lists written back.
    fn run_block(&mut self, runs: &[Run], now: u64, mem: &mut Memory) -> u64 {
        let (mut faults, mut now, mut i) = (0u64, now, 0usize);
        while i < runs.len() {
            let mut lists = self.lists;
            let (place, link) = (&mut self.place[..], self.links.as_mut_slice());
            while let Some(r) = runs.get(i) {
                let x = r.page;
                mem.dirty[x as usize] |= r.kind.is_write();
                match place[x as usize] {
                    T2 => {
                        let t2 = &mut lists[T2 as usize];
                        if t2.head != x {
                            list::remove(link, t2, x);
                            list::push_front(link, t2, x);
                        }
                    }
                    T1 => {
                        list::remove(link, &mut lists[T1 as usize], x);
                        list::push_front(link, &mut lists[T2 as usize], x);
                        place[x as usize] = T2;
                    }
                    _ => break,
                }
                now += u64::from(r.count);
                i += 1;
            }
            self.lists = lists;
            if let Some(r) = runs.get(i) {
                faults += u64::from(!self.reference(r.page, r.count, now, mem));
                now += u64::from(r.count);
                i += 1;
            }
        }
        faults
    }

    fn is_resident(&self, page: u32) -> bool {
        matches!(self.place.get(page as usize), Some(&T1) | Some(&T2))
    }

    /// Out of T1 or T2 with no ghost entry: ARC did not choose it, so it adapts nothing.
    fn forget(&mut self, page: u32) -> bool {
        if self.is_resident(page) {
            self.unlink(page);
        }
        true
    }

    fn resident(&self) -> u32 {
        self.len(T1) + self.len(T2)
    }

    fn state(&self) -> PolicyState {
        let names = ["", "T1", "T2", "B1", "B2"];
        PolicyState {
            lists: (1..5)
                .map(|l| (names[l].to_string(), self.links.collect(&self.lists[l])))
                .collect(),
            values: vec![("p".into(), f64::from(self.p))],
            ..PolicyState::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Pages forgotten now and then (a system's trims): ARC never holds more than c pages,
        /// and a miss while it holds fewer evicts nothing.
        #[test]
        fn forgotten_pages_leave_room(
            pages in prop::collection::vec(0u32..40, 200..3000),
            cap in 1u32..24,
            forget_every in 2usize..40,
        ) {
            let mut arc = Arc::new(&ArcSpec {}, cap, 40).unwrap();
            let mut mem = Memory::new(40);
            for (i, &p) in pages.iter().enumerate() {
                let before = arc.resident();
                let hit = arc.reference(p, 1, 0, &mut mem);
                prop_assert!(arc.resident() <= cap);
                if !hit && before < cap {
                    prop_assert_eq!(arc.resident(), before + 1);
                }
                let q = pages[i / 2];
                if i % forget_every == 0 && arc.is_resident(q) {
                    prop_assert!(arc.forget(q));
                    prop_assert!(!arc.is_resident(q));
                }
            }
        }
    }
}
