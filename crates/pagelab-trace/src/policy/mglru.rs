//! The multi-generational LRU of Linux (Zhao, `mm/vmscan.c` with `CONFIG_LRU_GEN`, 6.1, 2022;
//! Documentation/mm/multigen_lru.rst), for mapped pages, without its tiers.
//!
//! ```text
//!   generations  min_seq (oldest) ... max_seq (youngest): two to four of them
//!   fault ───────────────────────────────► max_seq − 1 (second youngest), accessed bit set
//!   aging: walk every resident page, oldest first; accessed → bit cleared, into max_seq;
//!          then max_seq + 1 (a new, empty youngest)
//!   eviction: from the oldest generation's tail; accessed → bit cleared, into max_seq
//!          (the rmap look-around's promotion); not accessed → evicted
//! ```
//!
//! **References** set the page's accessed bit (the PTE's young bit) and move nothing, so every
//! reference of a run leaves the state of its first.
//!
//! **Reclaim** (one victim, when every frame is used), as the kernel's `should_run_aging`
//! decides: at two generations the youngest two are protected ("completely out of cold
//! folios"), so the system ages first; at three it ages too when the pages are spread badly
//! (more than half in the youngest, or less than a quarter in the oldest); at four it does
//! not. An empty oldest generation is retired (`min_seq + 1`). Then the oldest generation's
//! tail is examined as above.
//!
//! Parameters: none (two to four generations, as the kernel's `MIN_NR_GENS` and
//! `MAX_NR_GENS`; it starts with four, `max_seq = 3`). Deviations: no tiers, refault tracking
//! or PID controller (they steer file pages read through descriptors; mapped pages are
//! promoted by their accessed bits alone); one list for all pages (no anonymous/file split);
//! aging walks every resident page, from the oldest generation's tail to the youngest's head
//! (the kernel walks page tables in address order and skips those its Bloom filters mark
//! sparse; the lab's page numbers are labels, renumbered in trace files, so the walk takes the
//! generations' own order); reclaim takes one victim at a time; no look-around of
//! neighbouring PTEs.

use super::list::{Links, List};
use super::{Memory, ParamInfo, PolicyState, Replacement, SpecParams, NIL};
use crate::TraceError;
use serde::{Deserialize, Serialize};

/// The multi-generational LRU has no parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MglruSpec {}

impl SpecParams for MglruSpec {
    const PARAMS: &'static [ParamInfo] = &[];
}

/// Fewest and most generations (the kernel's `MIN_NR_GENS`, `MAX_NR_GENS`).
const MIN_GENS: u64 = 2;
const MAX_GENS: u64 = 4;
/// Not resident.
const ABSENT: u8 = u8::MAX;

/// Generations over one set of links (list `seq % 4` holds generation `seq`).
#[derive(Clone, Debug)]
pub struct Mglru {
    links: Links,
    gens: [List; MAX_GENS as usize],
    /// `seq % 4` of each resident page's generation, [`ABSENT`] otherwise.
    gen_of: Vec<u8>,
    accessed: Vec<bool>,
    min_seq: u64,
    max_seq: u64,
    resident: u32,
    cap: u32,
    scratch: Vec<u32>,
    /// Agings (new generations) so far.
    pub n_agings: u64,
}

impl Mglru {
    /// The multi-generational LRU over `frames` frames [frames] for pages `0..page_bound`.
    pub fn new(_spec: &MglruSpec, frames: u32, page_bound: u32) -> Result<Self, TraceError> {
        Ok(Mglru {
            links: Links::new(page_bound),
            gens: [List::default(); MAX_GENS as usize],
            gen_of: vec![ABSENT; page_bound as usize],
            accessed: vec![false; page_bound as usize],
            min_seq: 0,
            max_seq: MAX_GENS - 1,
            resident: 0,
            cap: frames,
            scratch: Vec::new(),
            n_agings: 0,
        })
    }

    fn slot(seq: u64) -> u8 {
        (seq % MAX_GENS) as u8
    }

    fn nr_gens(&self) -> u64 {
        self.max_seq - self.min_seq + 1
    }

    /// Moves resident `x` to the head of generation `seq`.
    fn move_to(&mut self, x: u32, seq: u64) {
        let from = self.gen_of[x as usize];
        self.links.remove(&mut self.gens[from as usize], x);
        self.push(x, seq);
    }

    fn push(&mut self, x: u32, seq: u64) {
        let g = Self::slot(seq);
        self.links.push_front(&mut self.gens[g as usize], x);
        self.gen_of[x as usize] = g;
    }

    /// A new generation: every accessed page, oldest first, has its bit cleared and goes to
    /// the youngest; then the youngest is `max_seq + 1`, empty. Called at two or three
    /// generations only, so never past four.
    fn age(&mut self) {
        let mut walk = std::mem::take(&mut self.scratch);
        walk.clear();
        for seq in self.min_seq..=self.max_seq {
            let mut x = self.gens[Self::slot(seq) as usize].tail;
            while x != NIL {
                if self.accessed[x as usize] {
                    walk.push(x);
                }
                x = self.links.prev(x);
            }
        }
        for &x in &walk {
            self.accessed[x as usize] = false;
            self.move_to(x, self.max_seq);
        }
        self.scratch = walk;
        self.max_seq += 1;
        self.n_agings += 1;
    }

    /// The kernel's `should_run_aging` at three generations: pages are spread badly when the
    /// youngest holds more than half of them or the oldest less than a quarter.
    fn unbalanced(&self) -> bool {
        let young = u64::from(self.gens[Self::slot(self.max_seq) as usize].len);
        let old = u64::from(self.gens[Self::slot(self.max_seq - MIN_GENS) as usize].len);
        let total = u64::from(self.resident);
        young * MIN_GENS > total || old * (MIN_GENS + 2) < total
    }

    /// Reclaim's choice (see the module essay).
    fn evict(&mut self) -> u32 {
        loop {
            let n = self.nr_gens();
            if n <= MIN_GENS || (n == MIN_GENS + 1 && self.unbalanced()) {
                self.age();
                continue;
            }
            let old = Self::slot(self.min_seq) as usize;
            if self.gens[old].len == 0 {
                self.min_seq += 1;
                continue;
            }
            let x = self.gens[old].tail;
            if std::mem::take(&mut self.accessed[x as usize]) {
                self.move_to(x, self.max_seq);
                continue;
            }
            self.links.remove(&mut self.gens[old], x);
            self.gen_of[x as usize] = ABSENT;
            self.resident -= 1;
            return x;
        }
    }
}

impl Replacement for Mglru {
    fn reserve_pages(&mut self, page_bound: u32) {
        let n = page_bound as usize;
        self.links.reserve_pages(page_bound);
        if self.gen_of.len() < n {
            self.gen_of.resize(n, ABSENT);
            self.accessed.resize(n, false);
        }
    }

    fn reference(&mut self, page: u32, _count: u32, _now: u64, mem: &mut Memory) -> bool {
        let i = page as usize;
        if self.gen_of[i] != ABSENT {
            self.accessed[i] = true;
            return true;
        }
        if self.resident == self.cap {
            let v = self.evict();
            mem.reclaim(v);
        }
        self.push(page, self.max_seq - 1);
        self.accessed[i] = true;
        self.resident += 1;
        false
    }

    fn is_resident(&self, page: u32) -> bool {
        self.gen_of.get(page as usize).is_some_and(|&g| g != ABSENT)
    }

    fn forget(&mut self, page: u32) -> bool {
        let i = page as usize;
        if self.is_resident(page) {
            let g = self.gen_of[i];
            self.links.remove(&mut self.gens[g as usize], page);
            self.gen_of[i] = ABSENT;
            self.accessed[i] = false;
            self.resident -= 1;
        }
        true
    }

    fn resident(&self) -> u32 {
        self.resident
    }

    fn state(&self) -> PolicyState {
        let mut lists: Vec<(String, Vec<u32>)> = (self.min_seq..=self.max_seq)
            .rev()
            .map(|seq| {
                let g = &self.gens[Self::slot(seq) as usize];
                (
                    format!("generation {seq} (newest first)"),
                    self.links.collect(g),
                )
            })
            .collect();
        let accessed = (0..self.gen_of.len() as u32)
            .filter(|&p| self.is_resident(p) && self.accessed[p as usize])
            .collect();
        lists.push(("accessed".into(), accessed));
        PolicyState {
            lists,
            values: vec![
                ("min_seq".into(), self.min_seq as f64),
                ("max_seq".into(), self.max_seq as f64),
            ],
            ..PolicyState::default()
        }
    }
}
