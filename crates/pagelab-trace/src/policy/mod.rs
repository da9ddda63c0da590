//! Replacement policies for a fixed number of frames, and the working set.
//!
//! ```text
//!   runs ──► driver (counts references, faults, pushes; splits the warm-up)
//!              │  reference(page, count, now, &mut Memory) -> hit?
//!              ▼
//!            policy (owns its per-page / per-frame state, decides the victim)
//!              │  Memory::reclaim(victim)
//!              ▼
//!            Memory (change bits; a push when a changed page is reclaimed)
//! ```
//!
//! **Runs, not references.** A [`Run`] of `count` references to one page is `count` single
//! references: the first may fault, the rest hit. A policy sees the whole run in one call and
//! must leave the state that `count` single references would have left. The driver also
//! collapses adjacent runs of one page that differ only in kind (a load then a store) into one
//! call whose count is their sum, with the change bit set first if any of them writes; this is
//! exact because the page referenced is never its own victim, so its change bit is not read
//! before the run ends (MIN reads it only for pages never referenced again, and the page of a
//! run is referenced in it). Why one call per run is exact, policy by policy (`r` = the page,
//! "repeat" = references 2..count):
//!
//! - FIFO, Random: a hit changes no state (Random draws only at a fault), so a repeat is a
//!   no-op: one step.
//! - LRU: a hit makes `r` the most recent page (an entry appended to the reference log); after
//!   the first reference `r` is the most recent, so a repeat is a no-op: one step.
//! - MIN: a hit re-keys `r` with its next use; no repeat faults, so the keys set between the
//!   first and last reference of the run are overwritten before any victim is chosen: one step
//!   with the next use taken after the run.
//! - CLOCK, SIEVE, CLOCK-Pro: a hit only sets `r`'s reference (visited) bit. After the first
//!   reference the bit is set (a hit, or CLOCK's `bit_on_load`) or clear (a page just loaded);
//!   the second reference sets it and later ones find it set: at most two steps, applied as
//!   `bit = hit || bit_on_load || count > 1`.
//! - ARC: after the first reference `r` is at the head of T1 (a miss) or of T2 (a hit). A hit
//!   at the head of T2 is a no-op (case I does not adapt p); a hit in T1 moves `r` to the head of
//!   T2: at most two steps, the second only if `r` is in T1.
//! - LIRS: after the first reference `r` is at the top of S. A hit on an LIR page at the top is
//!   a no-op; a hit on an HIR page in S makes it LIR (demoting the bottom LIR page and pruning):
//!   at most two steps, the second only if `r` is not yet LIR.
//! - AR, working set: the state is a time stamp of the last reference (and AR's reset epoch),
//!   computed for the run's last reference in closed form.
//!
//! `run_collapsed_simulation_agrees_with_per_reference_steps` in the tests checks every policy
//! against the per-reference [`Stepper`] on random strings.
//!
//! The mechanism/policy split follows STYLE.md: a policy ranks and returns decisions (the victim
//! it reclaims through [`Memory::reclaim`]); [`Memory`] keeps the change bits and counts pushes.
//! A *pull* is a fault (a page read in), a *push* a changed page written out when it is
//! reclaimed (Brawn & Gustavson 1968, "Each reference to a page not currently residing in real
//! core requires ... a pull and often also ... a push"). Changed pages still resident at the end
//! of the string are reported apart ([`Outcome::dirty_resident`]), never as pushes.
//!
//! All policies are listed once, in the `replacement_policies!` table below, which generates the
//! serde-tagged [`PolicySpec`], the dispatch enum [`Online`] and the [`INFO`] table. MIN is the
//! one *offline* policy: [`min::Min`] is built only from a [`NextUse`], which pagelab computes
//! itself in a backward pass over a whole string held in memory, so MIN cannot run on a stream
//! without its future.
//!
//! Dispatch is by enum + match once per batch of runs; the loop over runs is monomorphic for
//! each policy, with no allocation or virtual call per reference.

use crate::{Run, TraceError};
use serde::{Deserialize, Serialize};

pub mod ar;
pub mod arc;
pub mod clock;
pub mod clock_pro;
pub(crate) mod drive;
pub mod driven;
pub mod fifo;
pub mod kernel;
pub mod lfu;
pub mod linux_lru;
pub mod linux_mglru;
pub mod linux_mglru_walk;
pub mod linux_two_list;
pub mod lirs;
pub(crate) mod list;
pub mod lru;
pub mod mglru;
pub mod min;
mod next_use;
pub mod random;
pub mod sieve;
pub mod step;
pub mod ws;

pub(crate) use drive::check_frames;
use drive::Driver;
pub use drive::{
    simulate, simulate_min, simulate_min_trace, simulate_sizes, simulate_stream,
    simulate_stream_sizes,
};
pub use min::NextUse;
pub use step::{Step, Stepper};

/// No page / no frame.
pub(crate) const NIL: u32 = u32::MAX;

/// The mechanism side of replacement: change (dirty) bits per page and the push counter.
#[derive(Clone, Debug, Default)]
pub struct Memory {
    dirty: Vec<bool>,
    n_pushes: u64,
    size_sum: u64,
    record: Option<Vec<Victim>>,
}

impl Memory {
    /// Memory for pages `0..page_bound`.
    pub fn new(page_bound: u32) -> Self {
        Memory {
            dirty: vec![false; page_bound as usize],
            ..Memory::default()
        }
    }

    /// Grows the change-bit table to `page_bound` pages.
    pub fn reserve_pages(&mut self, page_bound: u32) {
        if self.dirty.len() < page_bound as usize {
            self.dirty.resize(page_bound as usize, false);
        }
    }

    /// Reclaims `page` (it leaves memory): a push if it was changed since it was loaded.
    #[inline]
    pub fn reclaim(&mut self, page: u32) {
        let d = &mut self.dirty[page as usize];
        let was_dirty = *d;
        if was_dirty {
            self.n_pushes += 1;
            *d = false;
        }
        if let Some(r) = &mut self.record {
            r.push(Victim {
                page,
                pushed: was_dirty,
            });
        }
    }

    /// True if `page` was changed since it was loaded.
    #[inline]
    pub fn is_dirty(&self, page: u32) -> bool {
        self.dirty[page as usize]
    }

    /// Sets the change bit of `page`.
    #[inline]
    pub fn mark_dirty(&mut self, page: u32) {
        self.dirty[page as usize] = true;
    }

    /// Pushes so far.
    pub fn n_pushes(&self) -> u64 {
        self.n_pushes
    }

    /// Adds `sum` [page x references] to the resident-size integral (variable-space policies).
    #[inline]
    pub fn add_size_sum(&mut self, sum: u64) {
        self.size_sum += sum;
    }

    /// Starts (or stops) recording reclaimed pages, for step mode.
    pub(crate) fn set_recording(&mut self, on: bool) {
        self.record = if on { Some(Vec::new()) } else { None };
    }

    /// Takes the pages reclaimed since the last call, each with whether it was pushed.
    pub(crate) fn take_reclaimed(&mut self) -> Vec<Victim> {
        self.record.as_mut().map(std::mem::take).unwrap_or_default()
    }
}

/// [`Memory`] borrowed for a block of runs: the change bits as a slice and the push count as a
/// local, so that a policy's loop keeps both in registers (see [`Replacement::run_block`]).
/// [`HotMemory::finish`] writes the count back.
pub(crate) struct HotMemory<'a> {
    pub dirty: &'a mut [bool],
    pushes: u64,
    total: &'a mut u64,
    record: Option<&'a mut Vec<Victim>>,
}

impl Memory {
    /// The memory borrowed for a block of runs.
    pub(crate) fn hot(&mut self) -> HotMemory<'_> {
        HotMemory {
            dirty: &mut self.dirty,
            pushes: self.n_pushes,
            total: &mut self.n_pushes,
            record: self.record.as_mut(),
        }
    }
}

impl HotMemory<'_> {
    /// As [`Memory::reclaim`].
    #[inline(always)]
    pub fn reclaim(&mut self, page: u32) {
        let d = &mut self.dirty[page as usize];
        let was_dirty = *d;
        self.pushes += u64::from(was_dirty);
        *d = false;
        if let Some(r) = &mut self.record {
            r.push(Victim {
                page,
                pushed: was_dirty,
            });
        }
    }

    /// Ends the block: the push count goes back to the memory.
    pub fn finish(self) {
        *self.total = self.pushes;
    }
}

/// A page reclaimed, as step mode reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Victim {
    /// The page reclaimed.
    pub page: u32,
    /// True if it was changed, so written back (a push).
    pub pushed: bool,
}

/// The frame table (frame -> page) of a policy that keeps one with [`NIL`] for a free frame.
pub(crate) fn frame_table_of(frame_page: &[u32]) -> Vec<Option<u32>> {
    frame_page
        .iter()
        .map(|&p| (p != NIL).then_some(p))
        .collect()
}

/// True if `page` has a frame in a page -> frame map with [`NIL`] for none.
#[inline]
pub(crate) fn has_frame(page_frame: &[u32], page: u32) -> bool {
    page_frame.get(page as usize).is_some_and(|&f| f != NIL)
}

/// What a policy exposes for step mode: its hand, reference bits and ordered lists.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PolicyState {
    /// Position of the hand or pointer (a frame index), if the policy has one.
    pub hand: Option<u32>,
    /// Reference (usage / visited) bit per frame, if the policy keeps one per frame.
    pub frame_bits: Option<Vec<bool>>,
    /// Named page lists, each from its head (newest / most recent) to its tail.
    pub lists: Vec<(String, Vec<u32>)>,
    /// Named scalar values (ARC's target p [pages], ...).
    pub values: Vec<(String, f64)>,
}

/// An online replacement policy: decides from the past only.
///
/// Lifecycle of one call to [`reference`](Replacement::reference): the driver has set the
/// page's change bit if the run writes; the policy looks the page up; on a hit it updates its
/// ranking; on a fault it chooses victims (none while frames are free), calls
/// [`Memory::reclaim`] for each, loads the page and returns `false`.
pub trait Replacement {
    /// Grows per-page tables so that pages `0..page_bound` can be referenced.
    fn reserve_pages(&mut self, page_bound: u32);
    /// `count` references to `page`, the first at virtual time `now` [references since the
    /// start]. Returns `true` if the first reference hit.
    fn reference(&mut self, page: u32, count: u32, now: u64, mem: &mut Memory) -> bool;
    /// Runs `runs`, all past the warm-up, the first at virtual time `now`; returns the faults.
    /// The default takes each group of adjacent runs of one page in one call to
    /// [`reference`](Replacement::reference). A policy whose step is a few loads and stores
    /// overrides it with a loop over tables borrowed once (see [`hot`]): reached through `self`
    /// on every run, a table's address is reloaded after every store.
    fn run_block(&mut self, runs: &[Run], now: u64, mem: &mut Memory) -> u64
    where
        Self: Sized,
    {
        drive::run_each(self, runs, now, mem)
    }
    /// True if `page` is resident.
    fn is_resident(&self, page: u32) -> bool;
    /// `page` left memory without this policy's choice (a system trimmed or swapped it out):
    /// forget it, freeing its place. Returns `false` if the policy cannot (it then keeps
    /// counting the page until it reclaims it itself).
    fn forget(&mut self, _page: u32) -> bool {
        false
    }
    /// Pages resident now [pages].
    fn resident(&self) -> u32;
    /// The frame table (frame -> page) of the frames used so far, if the policy keeps one; step
    /// mode assigns frames itself otherwise.
    fn frame_table(&self) -> Option<Vec<Option<u32>>> {
        None
    }
    /// Hand, bits and lists for step mode.
    fn state(&self) -> PolicyState {
        PolicyState::default()
    }
}

/// One parameter of a policy, for `pagelab list policies`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ParamInfo {
    /// Key in the spec.
    pub name: &'static str,
    /// Unit, in brackets as in the doc comments (`[references]`).
    pub unit: &'static str,
    /// Default value as written in a spec.
    pub default: &'static str,
    /// One-line description.
    pub doc: &'static str,
}

/// Parameters of a policy spec.
pub trait SpecParams {
    /// The parameters, in declaration order.
    const PARAMS: &'static [ParamInfo];
}

/// A registry entry: what `pagelab list policies` prints.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct PolicyInfo {
    /// Name in specs (`kind = "clock"`).
    pub name: &'static str,
    /// Other accepted names.
    pub aliases: &'static [&'static str],
    /// One-line summary.
    pub summary: &'static str,
    /// Where the algorithm comes from.
    pub citation: &'static str,
    /// Parameters with units and defaults.
    pub params: &'static [ParamInfo],
    /// True if the policy needs the whole string (next-use), so no streaming form.
    pub needs_future: bool,
    /// True if the resident set varies (the `frames` argument is not used).
    pub variable_space: bool,
}

macro_rules! replacement_policies {
    (
        online {
            $( $ov:ident = $oty:ty, $ospec:ty, $oname:literal, [$($oalias:literal),*],
               $ovar:literal, $osum:literal, $ocite:literal; )*
        }
        offline {
            $( $fv:ident = $fspec:ty, $fname:literal, [$($falias:literal),*],
               $fsum:literal, $fcite:literal; )*
        }
    ) => {
        /// A replacement policy with its parameters, as written in a spec (`kind` names it).
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "kind")]
        pub enum PolicySpec {
            $(
                #[doc = $osum]
                #[serde(rename = $oname $(, alias = $oalias)*)]
                $ov($ospec),
            )*
            $(
                #[doc = $fsum]
                #[serde(rename = $fname $(, alias = $falias)*)]
                $fv($fspec),
            )*
        }

        impl PolicySpec {
            /// The registry name.
            pub fn name(&self) -> &'static str {
                match self {
                    $( PolicySpec::$ov(_) => $oname, )*
                    $( PolicySpec::$fv(_) => $fname, )*
                }
            }

            /// The policy `name` (or an alias) with default parameters.
            pub fn by_name(name: &str) -> Result<PolicySpec, TraceError> {
                $( if name == $oname $(|| name == $oalias)* {
                    return Ok(PolicySpec::$ov(<$ospec>::default()));
                } )*
                $( if name == $fname $(|| name == $falias)* {
                    return Ok(PolicySpec::$fv(<$fspec>::default()));
                } )*
                Err(TraceError::invalid(format!(
                    "policy `{name}`: unknown; expected one of {}",
                    INFO.iter().map(|i| i.name).collect::<Vec<_>>().join(", ")
                )))
            }
        }

        /// An online policy, built from its spec; dispatched by `match`.
        #[derive(Clone, Debug)]
        #[allow(clippy::large_enum_variant)] // built once per run; boxing would add an indirection
        pub enum Online {
            $( #[doc = $osum] $ov($oty), )*
        }

        impl Online {
            /// Builds the policy of `spec` for `frames` frames and pages `0..page_bound`;
            /// `Ok(None)` for an offline policy (MIN).
            pub fn build(spec: &PolicySpec, frames: u32, page_bound: u32)
                -> Result<Option<Online>, TraceError> {
                match spec {
                    $( PolicySpec::$ov(s) => Ok(Some(Online::$ov(<$oty>::new(s, frames, page_bound)?))), )*
                    #[allow(unreachable_patterns)]
                    _ => Ok(None),
                }
            }

            /// Runs `runs` through the policy (monomorphic loop per policy).
            pub(crate) fn drive(&mut self, runs: &[Run], d: &mut Driver, refs: Option<u64>) {
                match self { $( Online::$ov(p) => d.drive(p, runs, refs), )* }
            }

            /// Makes room for pages `0..page_bound`.
            fn reserve_pages(&mut self, page_bound: u32) {
                match self { $( Online::$ov(p) => p.reserve_pages(page_bound), )* }
            }

            /// One run, through the trait (step mode).
            pub(crate) fn reference(&mut self, page: u32, count: u32, now: u64, mem: &mut Memory) -> bool {
                match self { $( Online::$ov(p) => p.reference(page, count, now, mem), )* }
            }

            /// True if `page` is resident.
            pub fn is_resident(&self, page: u32) -> bool {
                match self { $( Online::$ov(p) => p.is_resident(page), )* }
            }

            /// Forgets `page`, left memory otherwise; `false` if the policy cannot.
            pub fn forget(&mut self, page: u32) -> bool {
                match self { $( Online::$ov(p) => p.forget(page), )* }
            }

            /// Frame table, if the policy keeps one.
            pub fn frame_table(&self) -> Option<Vec<Option<u32>>> {
                match self { $( Online::$ov(p) => p.frame_table(), )* }
            }

            /// Step-mode state.
            pub fn state(&self) -> PolicyState {
                match self { $( Online::$ov(p) => p.state(), )* }
            }
        }

        /// The registry: every policy with its aliases, summary, citation and parameters.
        pub const INFO: &[PolicyInfo] = &[
            $( PolicyInfo { name: $oname, aliases: &[$($oalias),*], summary: $osum,
                            citation: $ocite, params: <$ospec as SpecParams>::PARAMS,
                            needs_future: false, variable_space: $ovar }, )*
            $( PolicyInfo { name: $fname, aliases: &[$($falias),*], summary: $fsum,
                            citation: $fcite, params: <$fspec as SpecParams>::PARAMS,
                            needs_future: true, variable_space: false }, )*
        ];
    };
}

replacement_policies! {
    online {
        Fifo = fifo::Fifo, fifo::FifoSpec, "fifo", [], false,
            "First-in first-out: reclaim the page resident longest",
            "Belady 1966; Brawn & Gustavson 1968 (M44/44X)";
        Lru = lru::Lru, lru::LruSpec, "lru", [], false,
            "Least recently used: reclaim the page referenced longest ago",
            "Mattson, Gecsei, Slutz & Traiger 1970";
        Clock = clock::Clock, clock::ClockSpec, "clock", ["core-table-scan"], false,
            "One-bit core-table scan: the hand clears reference bits, takes the first frame with bit 0",
            "Corbato 1968; Bard 1975 section 2 (CP-67)";
        ClockPro = clock_pro::ClockPro, clock_pro::ClockProSpec, "clock-pro", [], false,
            "CLOCK-Pro: hot and cold pages on one clock, with a reuse-distance test period",
            "Jiang, Chen & Zhang 2005 (USENIX ATC)";
        Ar = ar::Ar, ar::ArSpec, "ar", [], false,
            "M44 AR: reclaim a page not recently referenced; usage bits cleared periodically",
            "Brawn & Gustavson 1968; fidelity-notes section 6.2";
        Random = random::Random, random::RandomSpec, "random", [], false,
            "Reclaim a uniformly chosen frame (seeded)",
            "Belady 1966";
        Ws = ws::Ws, ws::WsSpec, "ws", ["working-set"], true,
            "Working set: keep the pages referenced in the last tau references",
            "Denning 1968; Denning & Schwartz 1972";
        Arc = arc::Arc, arc::ArcSpec, "arc", [], false,
            "Adaptive replacement cache: recency and frequency lists with ghost lists",
            "Megiddo & Modha 2003 (FAST), figure 4";
        Lirs = lirs::Lirs, lirs::LirsSpec, "lirs", [], false,
            "Low inter-reference recency set: LIR pages stay, HIR pages cycle through a small queue",
            "Jiang & Zhang 2002 (SIGMETRICS)";
        Sieve = sieve::Sieve, sieve::SieveSpec, "sieve", [], false,
            "SIEVE: FIFO queue with visited bits and a hand that moves from old to new",
            "Zhang, Yang, Yue, Vigfusson & Rashmi 2024 (NSDI)";
        Lfu = lfu::Lfu, lfu::LfuSpec, "lfu", [], false,
            "Least frequently used: reclaim the resident page with the fewest references, ties by LRU",
            "Aho, Denning & Ullman 1971";
        LinuxLru = linux_lru::LinuxLru, linux_lru::LinuxLruSpec, "linux-lru", ["active-inactive"], false,
            "Linux's active and inactive lists for mapped pages, with refault-distance activation",
            "Linux mm/vmscan.c (split LRU, 2.6.28) and mm/workingset.c (Weiner 2014, 3.15)";
        Mglru = mglru::Mglru, mglru::MglruSpec, "mglru", ["multi-gen-lru"], false,
            "Linux's multi-generational LRU for mapped pages: generations aged by accessed bits",
            "Linux mm/vmscan.c, CONFIG_LRU_GEN (Zhao, 6.1, 2022); Documentation/mm/multigen_lru.rst";
    }
    offline {
        Min = min::MinSpec, "min", ["opt", "belady"],
            "Belady's MIN: reclaim the page referenced farthest in the future (clean pages first on ties)",
            "Belady 1966; Brawn & Gustavson 1968; Mattson et al. 1970";
    }
}

/// References, faults and pushes of one phase (warm-up or measured).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    /// References [references].
    pub references: u64,
    /// Faults (pulls) [pages].
    pub faults: u64,
    /// Pushes: changed pages written back when reclaimed [pages].
    pub pushes: u64,
    /// Integral of the resident-set size over references [page x references] (for the mean).
    pub resident_sum: u64,
}

impl Counts {
    /// Hits [references]: references - faults.
    pub fn hits(&self) -> u64 {
        self.references - self.faults
    }

    /// Faults per reference [1]; 0 for no references.
    pub fn fault_rate(&self) -> f64 {
        if self.references == 0 {
            0.0
        } else {
            self.faults as f64 / self.references as f64
        }
    }

    /// Mean resident-set size [pages] (working set only).
    pub fn mean_resident(&self) -> f64 {
        if self.references == 0 {
            0.0
        } else {
            self.resident_sum as f64 / self.references as f64
        }
    }
}

/// The result of running a policy over a string at one size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The policy and its parameters.
    pub policy: PolicySpec,
    /// Frames [frames] (not used by variable-space policies).
    pub frames: u32,
    /// Counts after the warm-up.
    pub measured: Counts,
    /// Counts of the warm-up alone.
    pub warmup: Counts,
    /// Changed pages still resident at the end (never written back) [pages].
    pub dirty_resident: u64,
    /// Fault rate of the measured part [faults / reference].
    pub fault_rate: f64,
    /// Mean resident-set size of the measured part [pages]; working set only.
    pub mean_resident: Option<f64>,
}

#[cfg(test)]
mod linux_lru_tests;
#[cfg(test)]
mod mglru_tests;
#[cfg(test)]
mod min_tests;
#[cfg(test)]
mod tests;
