//! Linux's two-list LRU with refault distance, for mapped pages: the active and inactive lists
//! of `mm/vmscan.c` (the split LRU, Riel et al., 2.6.28, 2008) and the shadow entries of
//! `mm/workingset.c` (Weiner, "thrash detection-based file cache sizing", 3.15, 2014).
//!
//! ```text
//!   fault ──► inactive head ─── tail: young? ──yes, PG_referenced set──► active head
//!                  ▲                 │      └─yes, first time: mark it, back to the head
//!                  │                 └no──► evicted: shadow entry = age
//!   active tail ───┘ (deactivated while inactive × ratio < active; young bit cleared)
//!   refault: distance = age − shadow ≤ |active| ──► straight to the active head
//! ```
//!
//! **References.** A reference sets the page's hardware reference bit (the PTE's young bit)
//! and moves nothing: the kernel sees a mapped page's use only when reclaim tests and clears
//! the bit (`page_referenced`). So every reference of a run leaves the same state as its first.
//!
//! **Faults.** A page faulted in goes to the head of the inactive list with its young bit set:
//! "all mapped pages start out with page table references from the instantiating fault", so a
//! page must be used again after its fault before reclaim activates it.
//!
//! **Reclaim** (one victim, when every frame is used). First, while the inactive list is low
//! (`inactive × inactive_ratio < active`, or empty) the active list's tail is deactivated: its
//! young bit is cleared unread (only executable file pages earn a second trip on the active
//! list, and the lab's pages are data) and it goes to the inactive head, keeping its
//! `PG_referenced` mark. Then the inactive tail is examined as `page_check_references` does:
//! its mark and young bit are tested and cleared; young and marked (used twice, or used again
//! after a deactivation) → activated to the active head, marked; young and unmarked → marked
//! and rotated to the inactive head; not young → evicted.
//!
//! **Refault distance.** A counter, the *age* (the inactive list's `nonresident_age`), counts
//! the pages that left the inactive list, by eviction or activation. An evicted page keeps a
//! shadow entry holding the age; when it faults again the distance `age − shadow` is how far
//! the inactive list moved meanwhile: had the list been longer by that much, the page would
//! have stayed. If the distance is at most the active list's size (the workingset the active
//! list could give up), the refaulting page goes straight to the active head (and counts as
//! an activation). Shadow entries are never pruned here: the kernel's shrinker drops old ones,
//! whose distance exceeds any list, so pruning could not change a decision.
//!
//! Parameters: `inactive_ratio` [1], default 1 (the kernel's value below 1 GB of memory;
//! √(10·GB) above it); `refault` (bool), default true; false gives the plain two-list LRU.
//! Deviations: one list for all pages (no anon/file split, no swappiness); reclaim takes one
//! victim at a time rather than batches of 32; no memory cgroups, no MGLRU.

use super::kernel::{Kernel, Workingset};
use super::linux_two_list::TwoList;
use super::list::{Links, List};
use super::{Memory, ParamInfo, PolicyState, Replacement, SpecParams};
use crate::TraceError;
use serde::{Deserialize, Serialize};

/// Parameters of the two-list LRU.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LinuxLruSpec {
    /// The inactive list is low while `inactive × inactive_ratio < active` [1] -- parameter,
    /// default 1 (source: `inactive_is_low`, mm/vmscan.c: 1 below 1 GB, else √(10·GB)).
    pub inactive_ratio: u32,
    /// Refaulting pages whose refault distance is at most the active list's size go straight
    /// to the active list -- parameter, default true (source: `workingset_refault`).
    pub refault: bool,
    /// The kernel whose rules to follow ("6.1" or "6.12"; absent: the textbook lists above).
    /// With a kernel, `inactive_ratio` and `refault` are the kernel's own and reclaim frees
    /// pages in the batches of a memory cgroup's reclaim (`crate::policy::linux_two_list`).
    pub kernel: Option<Kernel>,
    /// `vm.swappiness` [0-200] with a kernel (default 60).
    pub swappiness: u32,
}

impl Default for LinuxLruSpec {
    fn default() -> Self {
        LinuxLruSpec {
            inactive_ratio: 1,
            refault: true,
            kernel: None,
            swappiness: 60,
        }
    }
}

impl SpecParams for LinuxLruSpec {
    const PARAMS: &'static [ParamInfo] = &[
        ParamInfo {
            name: "inactive_ratio",
            unit: "[1]",
            default: "1",
            doc: "deactivate while inactive x ratio < active (kernel: 1 below 1 GB)",
        },
        ParamInfo {
            name: "refault",
            unit: "[bool]",
            default: "true",
            doc: "activate a refault whose distance is at most the active list's size",
        },
        ParamInfo {
            name: "kernel",
            unit: "[version]",
            default: "none",
            doc: "follow Linux 6.1 or 6.12 rule by rule (a memory cgroup's batched reclaim)",
        },
        ParamInfo {
            name: "swappiness",
            unit: "[0-200]",
            default: "60",
            doc: "vm.swappiness, with a kernel",
        },
    ];
}

const ABSENT: u8 = 0;
const INACTIVE: u8 = 1;
const ACTIVE: u8 = 2;

/// No shadow entry.
const NO_SHADOW: u64 = u64::MAX;

/// Two-list state: both lists over one set of links, per-page flags and shadow entries.
#[derive(Clone, Debug)]
pub struct LinuxLru {
    links: Links,
    /// Indexed by `INACTIVE` and `ACTIVE` (0 unused).
    lists: [List; 3],
    place: Vec<u8>,
    young: Vec<bool>,
    marked: Vec<bool>,
    shadow: Vec<u64>,
    age: u64,
    ratio: u32,
    refault: bool,
    cap: u32,
    /// Refaults activated by their distance [pages].
    pub n_refault_activations: u64,
    /// The kernel's own lists, when a kernel is named.
    kernel: Option<Box<(TwoList, Workingset)>>,
}

impl LinuxLru {
    /// The two-list LRU over `frames` frames [frames] for pages `0..page_bound`.
    pub fn new(spec: &LinuxLruSpec, frames: u32, page_bound: u32) -> Result<Self, TraceError> {
        if spec.inactive_ratio == 0 {
            return Err(TraceError::invalid(
                "linux-lru.inactive_ratio: 0; expected a whole number of at least 1".to_string(),
            ));
        }
        if spec.swappiness > 200 || (spec.kernel.is_some() && spec.swappiness == 0) {
            return Err(TraceError::invalid(format!(
                "linux-lru.swappiness: {}; expected 1 to 200 (0 never reclaims anonymous pages)",
                spec.swappiness
            )));
        }
        let n = page_bound as usize;
        Ok(LinuxLru {
            kernel: spec.kernel.map(|k| {
                Box::new((
                    TwoList::new(k, page_bound, spec.swappiness),
                    Workingset::default(),
                ))
            }),
            links: Links::new(page_bound),
            lists: [List::default(); 3],
            place: vec![ABSENT; n],
            young: vec![false; n],
            marked: vec![false; n],
            shadow: vec![NO_SHADOW; n],
            age: 0,
            ratio: spec.inactive_ratio,
            refault: spec.refault,
            cap: frames,
            n_refault_activations: 0,
        })
    }

    fn len(&self, l: u8) -> u32 {
        self.lists[l as usize].len
    }

    fn move_to(&mut self, x: u32, l: u8) {
        let from = self.place[x as usize];
        if from != ABSENT {
            self.links.remove(&mut self.lists[from as usize], x);
        }
        self.links.push_front(&mut self.lists[l as usize], x);
        self.place[x as usize] = l;
    }

    fn activate(&mut self, x: u32) {
        self.move_to(x, ACTIVE);
        self.age += 1;
    }

    /// Deactivates active tails while the inactive list is low.
    fn balance(&mut self) {
        while self.len(ACTIVE) > 0
            && (self.len(INACTIVE) == 0
                || u64::from(self.len(INACTIVE)) * u64::from(self.ratio)
                    < u64::from(self.len(ACTIVE)))
        {
            let x = self.lists[ACTIVE as usize].tail;
            self.young[x as usize] = false;
            self.move_to(x, INACTIVE);
        }
    }

    /// Reclaim's choice: the first inactive tail found neither young nor activated.
    fn evict(&mut self) -> u32 {
        loop {
            self.balance();
            let x = self.lists[INACTIVE as usize].tail;
            let i = x as usize;
            let was_marked = std::mem::take(&mut self.marked[i]);
            if std::mem::take(&mut self.young[i]) {
                self.marked[i] = true;
                if was_marked {
                    self.activate(x);
                } else {
                    self.move_to(x, INACTIVE);
                }
                continue;
            }
            self.links.remove(&mut self.lists[INACTIVE as usize], x);
            self.place[i] = ABSENT;
            self.shadow[i] = self.age;
            self.age += 1;
            return x;
        }
    }

    /// Loads `x`: to the active list if its refault distance is short enough, else inactive.
    fn load(&mut self, x: u32) {
        let i = x as usize;
        let shadow = std::mem::replace(&mut self.shadow[i], NO_SHADOW);
        let near = shadow != NO_SHADOW && self.age - shadow <= u64::from(self.len(ACTIVE));
        if self.refault && near {
            self.n_refault_activations += 1;
            self.activate(x);
        } else {
            self.move_to(x, INACTIVE);
        }
        self.young[i] = true;
        self.marked[i] = false;
    }
}

impl Replacement for LinuxLru {
    fn reserve_pages(&mut self, page_bound: u32) {
        let n = page_bound as usize;
        if let Some(k) = &mut self.kernel {
            k.0.reserve(page_bound);
        }
        self.links.reserve_pages(page_bound);
        if self.place.len() < n {
            self.place.resize(n, ABSENT);
            self.young.resize(n, false);
            self.marked.resize(n, false);
            self.shadow.resize(n, NO_SHADOW);
        }
    }

    fn reference(&mut self, page: u32, _count: u32, _now: u64, mem: &mut Memory) -> bool {
        if let Some(k) = &mut self.kernel {
            return kernel_reference(&mut k.0, &mut k.1, self.cap, page, mem);
        }
        let i = page as usize;
        if self.place[i] != ABSENT {
            self.young[i] = true;
            return true;
        }
        if self.resident() == self.cap {
            let v = self.evict();
            mem.reclaim(v);
        }
        self.load(page);
        false
    }

    fn is_resident(&self, page: u32) -> bool {
        if let Some(k) = &self.kernel {
            return (page as usize) < k.0.bound() && k.0.is_resident(page);
        }
        self.place.get(page as usize).is_some_and(|&p| p != ABSENT)
    }

    /// Out of either list with no shadow entry: reclaim did not choose it.
    fn forget(&mut self, page: u32) -> bool {
        if let Some(k) = &mut self.kernel {
            k.0.forget(page);
            return true;
        }
        let i = page as usize;
        if self.is_resident(page) {
            let l = self.place[i];
            self.links.remove(&mut self.lists[l as usize], page);
            self.place[i] = ABSENT;
            self.young[i] = false;
            self.marked[i] = false;
        }
        true
    }

    fn resident(&self) -> u32 {
        if let Some(k) = &self.kernel {
            return k.0.resident();
        }
        self.len(INACTIVE) + self.len(ACTIVE)
    }

    fn state(&self) -> PolicyState {
        if let Some(k) = &self.kernel {
            let (active, inactive) = k.0.lists();
            return PolicyState {
                lists: vec![
                    ("active (newest first)".into(), active),
                    ("inactive (newest first)".into(), inactive),
                    ("lru_add batch (oldest first)".into(), k.0.batch()),
                ],
                values: vec![
                    ("workingset_refault".into(), k.1.refault as f64),
                    ("workingset_activate".into(), k.1.activate as f64),
                    ("workingset_restore".into(), k.1.restore as f64),
                ],
                ..PolicyState::default()
            };
        }
        let flagged = |l: u8, f: &[bool]| -> Vec<u32> {
            self.links
                .collect(&self.lists[l as usize])
                .into_iter()
                .filter(|&p| f[p as usize])
                .collect()
        };
        PolicyState {
            lists: vec![
                (
                    "active (newest first)".into(),
                    self.links.collect(&self.lists[ACTIVE as usize]),
                ),
                (
                    "inactive (newest first)".into(),
                    self.links.collect(&self.lists[INACTIVE as usize]),
                ),
                ("young, inactive".into(), flagged(INACTIVE, &self.young)),
                ("marked, inactive".into(), flagged(INACTIVE, &self.marked)),
            ],
            values: vec![("age".into(), self.age as f64)],
            ..PolicyState::default()
        }
    }
}

/// One run under a kernel's lists: a hit sets the accessed bit; a fault with every frame used
/// first runs a memory cgroup's reclaim (`try_to_free_mem_cgroup_pages`: at least
/// `SWAP_CLUSTER_MAX` = 32 pages), each page freed reclaimed through `mem`; then the page is
/// added (a refault if it left a shadow).
fn kernel_reference(
    lists: &mut TwoList,
    ws: &mut Workingset,
    cap: u32,
    page: u32,
    mem: &mut Memory,
) -> bool {
    if lists.is_resident(page) {
        lists.touch(page);
        return true;
    }
    // try_charge_memcg retries the reclaim up to MAX_RECLAIM_RETRIES (16) times.
    let mut out = Vec::new();
    for _ in 0..16 {
        if lists.resident() < cap {
            break;
        }
        lists.reclaim(32, &mut out, ws);
        for v in out.drain(..) {
            mem.reclaim(v);
        }
    }
    lists.add(page, ws);
    false
}
