//! Frame supply: which resident frame is freed next. The replacement seam of the system model.
//!
//! ```text
//!   dispatcher ── on_reference(owner, page, count) ──►┐
//!   page-in / swap-in ── on_load(owner, page, frame) ─►│ FrameSupply ── select_victim ──► SELECT
//!   trim, swap-out, logoff (frame left otherwise) ────►│  (ranks; the system writes back, frees)
//!   load controller ── reclaim(n) ────────────────────►┘
//! ```
//!
//! Lifecycle, in the order the system calls the hooks:
//! 1. *Fault*: the system takes a free frame and maps the page in state `PageIn` (the read is
//!    queued; the fault completes asynchronously when the read ends, or at once for a zero fill
//!    or a reclaim from a page-out), then calls [`FrameSupply::on_load`] — which counts as the
//!    page's first reference and returns the page's *refault distance* when the supply keeps
//!    shadow entries of reclaimed pages (Linux `workingset_refault`: reclaims since this page
//!    was reclaimed).
//! 2. *Reference*: each reference run of a resident page calls [`FrameSupply::on_reference`]
//!    once, with the run's length; the hardware reference and change bits are set by the
//!    system as well, so supplies that work from bits (the core-table scan) ignore it.
//! 3. *Reclaim*: when the free list is short, SELECT takes the flush list first, then (page
//!    swapping) a physical swap-out, then [`FrameSupply::select_victim`]; the returned frame is
//!    `Resident` and the system carries out the decision (page-out if changed, else free).
//!    Frames in transit (`PageIn`, `PageOut`) are never returned. A load controller may call
//!    [`FrameSupply::reclaim`] to take several at once.
//! 4. *Other departures*: a page that leaves for another reason is reported by
//!    [`FrameSupply::on_free`]: SELECT taking a trimmed or queue-drop-flushed page from the
//!    flush list, and each page of a physical swap-out (HPO). A policy supply tells its policy
//!    to forget the page (LRU, SIEVE, ARC, LFU and Linux's two can; one that cannot keeps
//!    counting the page until it reclaims it, and SELECT skips it then;
//!    `supply_forgotten`/`supply_unforgettable`).
//!
//! Two supplies exist. [`CoreTableScan`] is VM's global one-bit clock over the frame table
//! (tetzlaff "Background"; bard §2), the default (`memory.replacement = "clock"`). Any other
//! online policy of the trace lab's registry (`fifo`, `lru`, `arc`, `lirs`, `sieve`, `lfu`, `ar`,
//! `ws`, `random`, `clock-pro`, `linux-lru`, `mglru`) runs through [`PolicySupply`]: the
//! trace-lab policy keeps at most `frames − memory.replacement_reserve` pages; the pages it
//! reclaims when full queue up (an inactive list) and SELECT takes them from there, skipping
//! any the policy has taken back since. The reserve keeps frames free while changed victims are written, as VM's free-list
//! target does. Linux's active/inactive lists with refault activation (`linux-lru`, keeping
//! its own shadow entries) and its multi-generational LRU (`mglru`, per-page generations) are
//! such policies; a supply that needs the system's own signals (the refault distance of
//! `on_load`, the reclaim hook) is a further `FrameSupply`. The trait is generic over the frame
//! table a supply ranks: the M44 (`m44/supply.rs`) runs FIFO, BIFO and AR on it over its store.

use std::collections::VecDeque;

use pagelab_core::Frames;
use pagelab_trace::policy::driven::Driven;
use pagelab_trace::policy::PolicySpec;

use crate::memory::{FrameState, Memory, NONE};

/// The replacement seam: ranks resident frames; the system carries out what it returns.
/// `M` is the frame table the supply reads to choose: the demand-paging system's [`Memory`],
/// or a machine's own (the M44's store, `m44/supply.rs`).
pub trait FrameSupply<M: ?Sized = Memory> {
    /// `(owner, page)` was mapped into `frame` (state `PageIn` or `Resident`) at reference
    /// time `now` [references]. Returns its refault distance [reclaims] if it had been
    /// reclaimed before and the supply remembers it.
    fn on_load(&mut self, owner: u32, page: u32, frame: u32, now: u64) -> Option<u64>;
    /// A run of `count` references to resident `(owner, page)` began at `now` [references].
    fn on_reference(&mut self, owner: u32, page: u32, count: u32, now: u64);
    /// `(owner, page)` left its frame for a reason other than this supply's choice.
    fn on_free(&mut self, _owner: u32, _page: u32) {}
    /// The next frame to free, `Resident` in `mem`; `None` if the supply has none now.
    fn select_victim(&mut self, mem: &mut M) -> Option<u32>;
    /// Up to `n` victims at once, appended to `out` (the hook a load controller calls).
    fn reclaim(&mut self, mem: &mut M, n: usize, out: &mut Vec<u32>) {
        for _ in 0..n {
            match self.select_victim(mem) {
                Some(f) => out.push(f),
                None => break,
            }
        }
    }
}

/// VM's core-table scan: the frame table's reference bits, cleared by a cursor (memory.rs).
#[derive(Clone, Debug, Default)]
pub struct CoreTableScan;

impl FrameSupply for CoreTableScan {
    fn on_load(&mut self, _owner: u32, _page: u32, _frame: u32, _now: u64) -> Option<u64> {
        None
    }
    fn on_reference(&mut self, _owner: u32, _page: u32, _count: u32, _now: u64) {}
    fn select_victim(&mut self, mem: &mut Memory) -> Option<u32> {
        mem.scan_victim()
    }
}

/// A trace-lab policy ranking the system's pages (see the module essay).
#[derive(Clone, Debug)]
pub struct PolicySupply {
    policy: Driven,
    /// Dense key of each `(owner, page)`, [`NONE`] before its first load.
    keys: Vec<Vec<u32>>,
    /// `(owner, page)` and last frame of each key.
    pages: Vec<(u32, u32, u32)>,
    /// Reclaim count at each key's last reclaim (its shadow entry), [`u64::MAX`] for none.
    shadow: Vec<u64>,
    /// Keys the policy reclaimed, oldest first, not yet taken by SELECT.
    inactive: VecDeque<u32>,
    scratch: Vec<u32>,
    /// Pages reclaimed through this supply [pages].
    pub n_reclaimed: u64,
    /// Loads of pages with a shadow entry [pages].
    pub n_refaults: u64,
    /// Sum of refault distances [reclaims].
    pub refault_distance_sum: u64,
    /// Victims the scan gave because the policy had none while no frame was free [frames].
    pub n_fallbacks: u64,
    /// Pages that left otherwise (trim, swap-out) and the policy forgot [pages].
    pub n_forgotten: u64,
    /// Pages that left otherwise but the policy cannot forget: it counts them until it
    /// reclaims them itself, and SELECT skips them then [pages].
    pub n_unforgettable: u64,
}

impl PolicySupply {
    /// The policy of `spec` over `frames − reserve` pages, for `owners` address spaces.
    pub fn new(
        spec: &PolicySpec,
        frames: u32,
        reserve: u32,
        owners: usize,
    ) -> Result<PolicySupply, pagelab_trace::TraceError> {
        Ok(PolicySupply {
            policy: Driven::new(spec, frames.saturating_sub(reserve).max(1), frames)?,
            keys: vec![Vec::new(); owners],
            pages: Vec::new(),
            shadow: Vec::new(),
            inactive: VecDeque::new(),
            scratch: Vec::new(),
            n_reclaimed: 0,
            n_refaults: 0,
            refault_distance_sum: 0,
            n_fallbacks: 0,
            n_forgotten: 0,
            n_unforgettable: 0,
        })
    }

    fn key(&mut self, owner: u32, page: u32) -> u32 {
        let t = &mut self.keys[owner as usize];
        if page as usize >= t.len() {
            t.resize(page as usize + 1, NONE);
        }
        if t[page as usize] == NONE {
            t[page as usize] = self.pages.len() as u32;
            self.pages.push((owner, page, NONE));
            self.shadow.push(u64::MAX);
        }
        t[page as usize]
    }

    fn reference(&mut self, key: u32, count: u32, now: u64) {
        if !self.policy.reference(key, count, now) {
            self.policy.take_reclaimed(&mut self.scratch);
            self.inactive.extend(self.scratch.drain(..));
        }
    }
}

impl FrameSupply for PolicySupply {
    fn on_load(&mut self, owner: u32, page: u32, frame: u32, now: u64) -> Option<u64> {
        let key = self.key(owner, page);
        self.pages[key as usize].2 = frame;
        self.reference(key, 1, now);
        let shadow = std::mem::replace(&mut self.shadow[key as usize], u64::MAX);
        (shadow != u64::MAX).then(|| {
            let d = self.n_reclaimed - shadow;
            self.n_refaults += 1;
            self.refault_distance_sum += d;
            d
        })
    }

    #[inline]
    fn on_reference(&mut self, owner: u32, page: u32, count: u32, now: u64) {
        let key = self.key(owner, page);
        self.reference(key, count, now);
    }

    fn on_free(&mut self, owner: u32, page: u32) {
        let known = self.keys[owner as usize].get(page as usize).copied();
        let Some(key) = known.filter(|&k| k != NONE) else {
            return;
        };
        if self.pages[key as usize].2 == NONE || !self.policy.is_resident(key) {
            return; // not held, or the policy's own reclaim on its way through SELECT
        }
        self.pages[key as usize].2 = NONE;
        if self.policy.forget(key) {
            self.n_forgotten += 1;
        } else {
            self.n_unforgettable += 1;
        }
    }

    fn select_victim(&mut self, mem: &mut Memory) -> Option<u32> {
        while let Some(key) = self.inactive.pop_front() {
            if self.policy.is_resident(key) {
                continue; // referenced again since the policy reclaimed it
            }
            let (owner, page, f) = self.pages[key as usize];
            let holds = f != NONE && {
                let fr = &mem.frames[f as usize];
                fr.owner == owner && fr.page == page && fr.state == FrameState::Resident
            };
            if holds {
                self.n_reclaimed += 1;
                self.shadow[key as usize] = self.n_reclaimed;
                return Some(f);
            }
        }
        if mem.free_len() == 0 {
            // Pages the policy still counts left otherwise (trim, swap-out); or a
            // variable-space policy (ws) holds more than memory: the scan gives one.
            let f = mem.scan_victim()?;
            self.n_fallbacks += 1;
            return Some(f);
        }
        None
    }
}

/// The supply a system runs with: enum dispatch keeps the hot path monomorphic.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // one per system
pub enum Supply {
    /// VM's core-table scan (`memory.replacement = "clock"`).
    Scan(CoreTableScan),
    /// Any other online policy of the trace lab's registry.
    Policy(PolicySupply),
}

impl Supply {
    /// The supply `name` names (`clock` and `core-table-scan` are the scan), reserving
    /// `reserve` frames [frames] outside the policy.
    pub fn build(
        name: &str,
        frames: Frames,
        reserve: Frames,
        owners: usize,
    ) -> Result<Supply, pagelab_trace::TraceError> {
        let spec = PolicySpec::by_name(name)?;
        if matches!(spec, PolicySpec::Clock(_)) {
            return Ok(Supply::Scan(CoreTableScan));
        }
        Ok(Supply::Policy(PolicySupply::new(
            &spec,
            frames.get(),
            reserve.get(),
            owners,
        )?))
    }

    /// True if references must be reported (a policy other than the scan).
    #[inline]
    pub fn wants_references(&self) -> bool {
        matches!(self, Supply::Policy(_))
    }

    /// Figures for the report's engine table (none for the scan).
    pub fn figures(&self) -> Vec<(&'static str, u64)> {
        match self {
            Supply::Scan(_) => Vec::new(),
            Supply::Policy(p) => vec![
                ("supply_reclaimed", p.n_reclaimed),
                ("supply_refaults", p.n_refaults),
                ("supply_refault_distance_sum", p.refault_distance_sum),
                ("supply_scan_fallbacks", p.n_fallbacks),
                ("supply_forgotten", p.n_forgotten),
                ("supply_unforgettable", p.n_unforgettable),
            ],
        }
    }
}

impl FrameSupply for Supply {
    fn on_load(&mut self, owner: u32, page: u32, frame: u32, now: u64) -> Option<u64> {
        match self {
            Supply::Scan(s) => s.on_load(owner, page, frame, now),
            Supply::Policy(p) => p.on_load(owner, page, frame, now),
        }
    }
    #[inline]
    fn on_reference(&mut self, owner: u32, page: u32, count: u32, now: u64) {
        match self {
            Supply::Scan(s) => s.on_reference(owner, page, count, now),
            Supply::Policy(p) => p.on_reference(owner, page, count, now),
        }
    }
    fn on_free(&mut self, owner: u32, page: u32) {
        match self {
            Supply::Scan(s) => s.on_free(owner, page),
            Supply::Policy(p) => p.on_free(owner, page),
        }
    }
    fn select_victim(&mut self, mem: &mut Memory) -> Option<u32> {
        match self {
            Supply::Scan(s) => s.select_victim(mem),
            Supply::Policy(p) => p.select_victim(mem),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(m: &mut Memory, s: &mut Supply, page: u32, now: u64) -> u32 {
        let f = m.take_free().unwrap();
        m.map(0, page, f, FrameState::Resident);
        s.on_load(0, page, f, now);
        f
    }

    #[test]
    fn lru_supply_gives_the_least_recent_page_and_skips_pages_taken_back() {
        let mut m = Memory::new(Frames(6), 1);
        // Policy over 6 - 2 = 4 pages.
        let mut s = Supply::build("lru", Frames(6), Frames(2), 1).unwrap();
        for p in 0..4 {
            load(&mut m, &mut s, p, u64::from(p));
        }
        s.on_reference(0, 0, 1, 10); // 1 is now least recent
        load(&mut m, &mut s, 4, 11); // the policy reclaims 1
        s.on_reference(0, 1, 1, 12); // ... which is referenced again before SELECT
        let v = s.select_victim(&mut m).expect("a victim");
        // Page 1 was taken back (and the policy reclaimed 2 for it): 2 goes.
        assert_eq!(m.frames[v as usize].page, 2);
        m.check().unwrap();
    }

    /// A page trimmed by the system leaves the policy's count: with LRU the next load fills
    /// its place and nothing is reclaimed; a policy that cannot forget (FIFO) keeps counting it.
    #[test]
    fn a_page_that_left_otherwise_frees_its_place_in_the_policy() {
        let cases = [
            ("lru", true),
            ("sieve", true),
            ("arc", true),
            ("lfu", true),
            ("linux-lru", true),
            ("mglru", true),
            ("fifo", false),
        ];
        for (name, forgets) in cases {
            let mut m = Memory::new(Frames(6), 1);
            let mut s = Supply::build(name, Frames(6), Frames(2), 1).unwrap();
            let frames: Vec<u32> = (0..4)
                .map(|p| load(&mut m, &mut s, p, u64::from(p)))
                .collect();
            // The system trims page 1 (say, to the flush list) and frees its frame.
            s.on_free(0, 1);
            m.unmap(frames[1]);
            m.put_free(frames[1]);
            load(&mut m, &mut s, 4, 10);
            let Supply::Policy(p) = &s else {
                panic!("{name}: a policy supply")
            };
            assert_eq!(p.n_forgotten, u64::from(forgets), "{name}");
            assert_eq!(p.n_unforgettable, u64::from(!forgets), "{name}");
            // The policy holds 0, 2, 3, 4 within its 4 pages: no victim is queued.
            let queued = !p.inactive.is_empty();
            assert_eq!(queued, !forgets, "{name}: a victim queued");
            // A page not held is ignored.
            s.on_free(0, 1);
            m.check().unwrap();
        }
    }

    #[test]
    fn refault_distance_counts_reclaims_since_the_page_left() {
        let mut m = Memory::new(Frames(4), 1);
        let mut s = Supply::build("fifo", Frames(4), Frames(1), 1).unwrap();
        for p in 0..4 {
            load(&mut m, &mut s, p, u64::from(p));
        }
        // FIFO over 3 pages: loading 3 reclaimed 0.
        let v = s.select_victim(&mut m).unwrap();
        assert_eq!(m.frames[v as usize].page, 0);
        m.unmap(v);
        m.put_free(v);
        let f = m.take_free().unwrap();
        m.map(0, 0, f, FrameState::Resident);
        assert_eq!(
            s.on_load(0, 0, f, 9),
            Some(0),
            "no reclaim since page 0 left"
        );
    }

    #[test]
    fn clock_is_the_core_table_scan_and_min_is_refused() {
        assert!(matches!(
            Supply::build("clock", Frames(8), Frames(1), 1),
            Ok(Supply::Scan(_))
        ));
        assert!(matches!(
            Supply::build("core-table-scan", Frames(8), Frames(1), 1),
            Ok(Supply::Scan(_))
        ));
        let e = Supply::build("min", Frames(8), Frames(1), 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("future"), "{e}");
        let e = Supply::build("nope", Frames(8), Frames(1), 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("lfu") && e.contains("arc"), "{e}");
    }
}
