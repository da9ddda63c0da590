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

use super::kernel::{Kernel, Workingset};
use super::linux_mglru;
use super::list::{Links, List};
use super::{Memory, ParamInfo, PolicyState, Replacement, SpecParams, NIL};
use crate::TraceError;
use serde::{Deserialize, Serialize};

/// Parameters of the multi-generational LRU.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MglruSpec {
    /// The kernel whose rules to follow ("6.1" or "6.12"; absent: the tierless model above),
    /// with a memory cgroup's batched reclaim (`crate::policy::linux_mglru`).
    pub kernel: Option<Kernel>,
}

impl SpecParams for MglruSpec {
    const PARAMS: &'static [ParamInfo] = &[ParamInfo {
        name: "kernel",
        unit: "[version]",
        default: "none",
        doc: "follow Linux 6.1 or 6.12 rule by rule (tiers, PID, look-around, batches)",
    }];
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
    /// The kernel's own generations, when a kernel is named.
    kernel: Option<Box<(linux_mglru::Mglru, Workingset)>>,
}

impl Mglru {
    /// The multi-generational LRU over `frames` frames [frames] for pages `0..page_bound`.
    pub fn new(spec: &MglruSpec, frames: u32, page_bound: u32) -> Result<Self, TraceError> {
        Ok(Mglru {
            kernel: spec.kernel.map(|k| {
                Box::new((
                    linux_mglru::Mglru::new(k, page_bound),
                    Workingset::default(),
                ))
            }),
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
        if let Some(k) = &mut self.kernel {
            k.0.reserve(page_bound);
        }
        self.links.reserve_pages(page_bound);
        if self.gen_of.len() < n {
            self.gen_of.resize(n, ABSENT);
            self.accessed.resize(n, false);
        }
    }

    fn reference(&mut self, page: u32, _count: u32, _now: u64, mem: &mut Memory) -> bool {
        if let Some(k) = &mut self.kernel {
            let (gens, ws) = &mut **k;
            if gens.is_resident(page) {
                gens.touch(page);
                return true;
            }
            // try_charge_memcg: a cgroup reclaim of at least 32 pages, retried up to 16 times.
            let mut out = Vec::new();
            for _ in 0..16 {
                if gens.resident() < self.cap {
                    break;
                }
                gens.reclaim(32, &mut out, ws);
                for v in out.drain(..) {
                    mem.reclaim(v);
                }
            }
            gens.add(page, ws);
            return false;
        }
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
        if let Some(k) = &self.kernel {
            return (page as usize) < k.0.bound() && k.0.is_resident(page);
        }
        self.gen_of.get(page as usize).is_some_and(|&g| g != ABSENT)
    }

    fn forget(&mut self, page: u32) -> bool {
        if let Some(k) = &mut self.kernel {
            k.0.forget(page);
            return true;
        }
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
        if let Some(k) = &self.kernel {
            return k.0.resident();
        }
        self.resident
    }

    fn state(&self) -> PolicyState {
        if let Some(k) = &self.kernel {
            let lists =
                k.0.generations()
                    .into_iter()
                    .map(|(s, l)| (format!("generation {s} (newest first)"), l))
                    .collect();
            return PolicyState {
                lists,
                values: vec![
                    ("workingset_refault".into(), k.1.refault as f64),
                    ("workingset_restore".into(), k.1.restore as f64),
                ],
                ..PolicyState::default()
            };
        }
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
