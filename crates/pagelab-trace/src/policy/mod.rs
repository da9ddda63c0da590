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
//! A [`Run`] of `count` references to one page is `count` single references: the first may
//! fault, the rest hit. A policy sees the whole run in one call and must leave the state that
//! `count` single references would have left (for most policies the second reference is a
//! no-op; for ARC and LIRS it promotes the page, and they apply it).
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

use crate::{ReferenceSource, Run, TraceError};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

pub mod ar;
pub mod arc;
pub mod clock;
pub mod clock_pro;
pub mod driven;
pub mod fifo;
pub mod lfu;
pub mod lirs;
mod list;
pub mod lru;
pub mod min;
pub mod random;
pub mod sieve;
pub mod step;
pub mod ws;

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
    /// True if `page` is resident.
    fn is_resident(&self, page: u32) -> bool;
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
            fn drive(&mut self, runs: &[Run], d: &mut Driver) {
                match self { $( Online::$ov(p) => d.drive(p, runs), )* }
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

/// The loop over runs shared by every policy: counts, warm-up split, change bits.
struct Driver {
    now: u64,
    warmup: u64,
    bound: u32,
    mem: Memory,
    faults: [u64; 2],
    /// Memory counters when the warm-up ended: pushes, size integral.
    at_warmup_end: Option<(u64, u64)>,
}

impl Driver {
    fn new(page_bound: u32, warmup: u64) -> Self {
        let mut d = Driver {
            now: 0,
            warmup,
            bound: page_bound,
            mem: Memory::new(page_bound),
            faults: [0; 2],
            at_warmup_end: None,
        };
        d.maybe_end_warmup();
        d
    }

    fn maybe_end_warmup(&mut self) {
        if self.at_warmup_end.is_none() && self.now >= self.warmup {
            self.at_warmup_end = Some((self.mem.n_pushes, self.mem.size_sum));
        }
    }

    #[inline(always)]
    fn one<P: Replacement>(&mut self, p: &mut P, run: Run, phase: usize) {
        // Branch-free: a quarter of runs write, at random.
        self.mem.dirty[run.page as usize] |= run.kind.is_write();
        let hit = p.reference(run.page, run.count, self.now, &mut self.mem);
        self.faults[phase] += u64::from(!hit);
        self.now += u64::from(run.count);
    }

    fn drive<P: Replacement>(&mut self, p: &mut P, runs: &[Run]) {
        let mut rest = runs;
        // Warm-up part: runs may be split at the boundary.
        while self.at_warmup_end.is_none() {
            let Some((&r, tail)) = rest.split_first() else {
                return;
            };
            rest = tail;
            let left = self.warmup - self.now;
            if u64::from(r.count) <= left {
                self.one(p, r, 0);
            } else {
                self.one(
                    p,
                    Run {
                        count: left as u32,
                        ..r
                    },
                    0,
                );
                self.maybe_end_warmup();
                self.one(
                    p,
                    Run {
                        count: r.count - left as u32,
                        ..r
                    },
                    1,
                );
            }
            self.maybe_end_warmup();
        }
        for &r in rest {
            self.one(p, r, 1);
        }
    }

    /// Makes sure pages of `runs` fit the tables (streams of unknown page bound).
    fn grow_for(&mut self, runs: &[Run]) -> Option<u32> {
        let m = runs.iter().map(|r| r.page).max()?;
        if m >= self.bound {
            self.bound = (m + 1).max(self.bound.saturating_mul(2)).max(1024);
            self.mem.reserve_pages(self.bound);
            return Some(self.bound);
        }
        None
    }

    fn outcome(
        mut self,
        policy: &PolicySpec,
        frames: u32,
        is_resident: impl Fn(u32) -> bool,
    ) -> Outcome {
        self.maybe_end_warmup();
        let (pushes_w, size_w) = self
            .at_warmup_end
            .unwrap_or((self.mem.n_pushes, self.mem.size_sum));
        let warm_refs = self.warmup.min(self.now);
        let warmup = Counts {
            references: warm_refs,
            faults: self.faults[0],
            pushes: pushes_w,
            resident_sum: size_w,
        };
        let measured = Counts {
            references: self.now - warm_refs,
            faults: self.faults[1],
            pushes: self.mem.n_pushes - pushes_w,
            resident_sum: self.mem.size_sum - size_w,
        };
        let dirty_resident = (0..self.mem.dirty.len() as u32)
            .filter(|&pg| self.mem.dirty[pg as usize] && is_resident(pg))
            .count() as u64;
        let variable = INFO
            .iter()
            .any(|i| i.name == policy.name() && i.variable_space);
        Outcome {
            policy: policy.clone(),
            frames,
            measured,
            warmup,
            dirty_resident,
            fault_rate: measured.fault_rate(),
            mean_resident: variable.then(|| measured.mean_resident()),
        }
    }
}

fn check_frames(frames: u32) -> Result<(), TraceError> {
    if frames == 0 {
        return Err(TraceError::invalid("frames: 0; expected at least 1 frame"));
    }
    Ok(())
}

fn page_bound_of(runs: &[Run]) -> u32 {
    runs.iter().map(|r| r.page + 1).max().unwrap_or(0)
}

/// Runs the policy `spec` over `runs` with `frames` frames; the first `warmup` references are
/// counted apart. MIN computes next-use itself (a backward pass over `runs`).
///
/// ```
/// use pagelab_trace::policy::{simulate, PolicySpec};
/// use pagelab_trace::VecSource;
/// let s = VecSource::from_pages(&[1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5]);
/// let fifo = PolicySpec::by_name("fifo").unwrap();
/// assert_eq!(simulate(&fifo, s.runs(), 3, 0).unwrap().measured.faults, 9);
/// assert_eq!(simulate(&fifo, s.runs(), 4, 0).unwrap().measured.faults, 10);
/// ```
pub fn simulate(
    spec: &PolicySpec,
    runs: &[Run],
    frames: u32,
    warmup: u64,
) -> Result<Outcome, TraceError> {
    check_frames(frames)?;
    let bound = page_bound_of(runs);
    match Online::build(spec, frames, bound)? {
        Some(mut p) => {
            let mut d = Driver::new(bound, warmup);
            p.drive(runs, &mut d);
            Ok(d.outcome(spec, frames, |pg| p.is_resident(pg)))
        }
        None => simulate_min(spec, &NextUse::compute(runs), frames, warmup),
    }
}

/// MIN over an annotated string (next-use already computed).
pub fn simulate_min(
    spec: &PolicySpec,
    nu: &NextUse<'_>,
    frames: u32,
    warmup: u64,
) -> Result<Outcome, TraceError> {
    check_frames(frames)?;
    let mut m = min::Min::new(frames, nu);
    let mut d = Driver::new(nu.page_bound(), warmup);
    for (i, &r) in nu.runs().iter().enumerate() {
        min_run(&mut d, &mut m, r, nu.next(i));
    }
    Ok(d.outcome(spec, frames, |pg| m.is_resident(pg)))
}

/// Runs MIN over a pagelab trace file at `frames` [frames], decoding its chunks as it goes:
/// with `nu` from [`min::TraceNextUse::compute`] on the same file, memory is 4 bytes a run.
pub fn simulate_min_trace(
    spec: &PolicySpec,
    reader: &mut crate::format::TraceReader,
    nu: &min::TraceNextUse,
    frames: u32,
    warmup: u64,
) -> Result<Outcome, TraceError> {
    check_frames(frames)?;
    if reader.runs() != nu.len() as u64 {
        return Err(TraceError::invalid(format!(
            "{}: next-use annotates {} runs, the trace has {}",
            reader.path().display(),
            nu.len(),
            reader.runs()
        )));
    }
    let mut m = min::Min::for_trace(frames, nu);
    let mut d = Driver::new(nu.page_bound(), warmup);
    let mut buf = Vec::new();
    let mut i = 0usize;
    for c in 0..reader.chunk_count() {
        buf.clear();
        reader.read_chunk(c, &mut buf)?;
        for &r in &buf {
            min_run(&mut d, &mut m, r, nu.next(i));
            i += 1;
        }
    }
    Ok(d.outcome(spec, frames, |pg| m.is_resident(pg)))
}

/// MIN at every size of `sizes` [frames] over the trace file at `path`: one backward pass for
/// next-use, then one forward pass per size, the sizes spread over the cores.
pub fn simulate_min_trace_sizes(
    spec: &PolicySpec,
    path: &std::path::Path,
    sizes: &[u32],
    warmup: u64,
) -> Result<Vec<Outcome>, TraceError> {
    check_sizes(sizes)?;
    let nu = min::TraceNextUse::compute(&mut crate::format::TraceReader::open(path)?)?;
    sizes
        .par_iter()
        .map(|&f| {
            let mut reader = crate::format::TraceReader::open(path)?;
            simulate_min_trace(spec, &mut reader, &nu, f, warmup)
        })
        .collect()
}

/// One run through MIN, splitting it at the end of the warm-up.
#[inline(always)]
fn min_run(d: &mut Driver, m: &mut min::Min, r: Run, next: u64) {
    if r.kind.is_write() {
        d.mem.mark_dirty(r.page);
    }
    if d.at_warmup_end.is_none() && d.now + u64::from(r.count) > d.warmup {
        let left = (d.warmup - d.now) as u32;
        for (part, phase) in [(left, 0usize), (r.count - left, 1)] {
            let hit = m.reference(r.page, next, &mut d.mem);
            d.faults[phase] += u64::from(!hit);
            d.now += u64::from(part);
            d.maybe_end_warmup();
        }
        return;
    }
    let phase = usize::from(d.at_warmup_end.is_some());
    let hit = m.reference(r.page, next, &mut d.mem);
    d.faults[phase] += u64::from(!hit);
    d.now += u64::from(r.count);
    d.maybe_end_warmup();
}

/// Runs an online policy over any [`ReferenceSource`] in constant memory (apart from per-page
/// tables). MIN is refused: it needs the whole string (use [`simulate`]).
pub fn simulate_stream<S: ReferenceSource + ?Sized>(
    spec: &PolicySpec,
    source: &mut S,
    frames: u32,
    warmup: u64,
) -> Result<Outcome, TraceError> {
    check_frames(frames)?;
    let bound = source.page_bound().unwrap_or(0);
    let Some(mut p) = Online::build(spec, frames, bound)? else {
        return Err(TraceError::invalid(format!(
            "policy `{}`: needs the whole reference string (next-use), so it cannot run on a \
             stream; expected an in-memory string",
            spec.name()
        )));
    };
    let mut d = Driver::new(bound, warmup);
    let mut batch = Vec::with_capacity(1 << 14);
    loop {
        batch.clear();
        if !source.next_batch(&mut batch)? {
            break;
        }
        if let Some(b) = d.grow_for(&batch) {
            p.reserve_pages(b);
        }
        p.drive(&batch, &mut d);
    }
    Ok(d.outcome(spec, frames, |pg| p.is_resident(pg)))
}

/// Runs an online policy at every size of `sizes` [frames] in one read of `source`: each batch
/// of runs goes to every size, the sizes spread over the cores. Results in the order of `sizes`.
pub fn simulate_stream_sizes<S: ReferenceSource + ?Sized>(
    spec: &PolicySpec,
    source: &mut S,
    sizes: &[u32],
    warmup: u64,
) -> Result<Vec<Outcome>, TraceError> {
    check_sizes(sizes)?;
    let bound = source.page_bound().unwrap_or(0);
    let mut sims = Vec::with_capacity(sizes.len());
    for &f in sizes {
        let Some(p) = Online::build(spec, f, bound)? else {
            return Err(TraceError::invalid(format!(
                "policy `{}`: needs the whole reference string (next-use), so it cannot run on \
                 a stream; expected an in-memory string",
                spec.name()
            )));
        };
        sims.push((p, Driver::new(bound, warmup)));
    }
    let mut batch = Vec::with_capacity(1 << 14);
    loop {
        batch.clear();
        if !source.next_batch(&mut batch)? {
            break;
        }
        sims.par_iter_mut().for_each(|(p, d)| {
            if let Some(b) = d.grow_for(&batch) {
                p.reserve_pages(b);
            }
            p.drive(&batch, d);
        });
    }
    Ok(sims
        .into_iter()
        .zip(sizes)
        .map(|((p, d), &f)| d.outcome(spec, f, |pg| p.is_resident(pg)))
        .collect())
}

fn check_sizes(sizes: &[u32]) -> Result<(), TraceError> {
    if let Some(i) = sizes.iter().position(|&s| s == 0) {
        return Err(TraceError::invalid(format!(
            "sizes[{i}]: 0 frames; expected at least 1 frame"
        )));
    }
    Ok(())
}

/// Runs `spec` at every size of `sizes` [frames], spread over the cores; results are in the
/// order of `sizes` and do not depend on the number of threads.
pub fn simulate_sizes(
    spec: &PolicySpec,
    runs: &[Run],
    sizes: &[u32],
    warmup: u64,
) -> Result<Vec<Outcome>, TraceError> {
    check_sizes(sizes)?;
    if let PolicySpec::Min(_) = spec {
        let nu = NextUse::compute(runs);
        return sizes
            .par_iter()
            .map(|&f| simulate_min(spec, &nu, f, warmup))
            .collect();
    }
    sizes
        .par_iter()
        .map(|&f| simulate(spec, runs, f, warmup))
        .collect()
}

#[cfg(test)]
mod tests;
