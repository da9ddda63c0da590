//! Step mode: one reference at a time, with the frame table after each, for teaching.
//!
//! A [`Stepper`] takes the whole string (so MIN can see the future), expands runs into single
//! references, and drives the same policy code as [`super::simulate`]. After each reference it
//! reports the page, hit or fault, the victims (with whether each was pushed), the frame table
//! (frame -> page) and the policy's own state (hand, reference bits, lists). Policies with a
//! frame table of their own (FIFO, CLOCK, AR, Random) show it as it is; for the others a page
//! takes the frame its victim left, or the lowest free one.

use super::min::{Min, NextUse};
use super::{Memory, Online, PolicySpec, PolicyState, Victim};
use crate::{Run, TraceError};
use serde::Serialize;

/// What happened at one reference.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Step {
    /// Time of the reference [references, from 0].
    pub time: u64,
    /// The page referenced.
    pub page: u32,
    /// True if the reference changes the page.
    pub written: bool,
    /// True if the page was resident.
    pub hit: bool,
    /// Pages reclaimed at this reference (a working set may reclaim several, or one on a hit).
    pub victims: Vec<Victim>,
    /// The frame table after the reference: frame -> page.
    pub frames: Vec<Option<u32>>,
    /// Policy state after the reference.
    pub state: PolicyState,
}

#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // one per stepper
enum Engine {
    Online(Online),
    Min(Min),
}

/// Page numbers step mode accepts are below this [pages]: its tables are indexed by the page
/// numbers as written, and a string to follow reference by reference is short.
pub const MAX_STEP_PAGE: u64 = 1 << 20;

/// Walks a reference string one reference at a time.
///
/// ```
/// use pagelab_trace::policy::{PolicySpec, Stepper};
/// use pagelab_trace::VecSource;
/// let s = VecSource::from_pages(&[1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5]);
/// let spec = PolicySpec::by_name("fifo").unwrap();
/// let steps: Vec<_> = Stepper::new(&spec, 3, s.runs()).unwrap().collect();
/// assert_eq!(steps.iter().filter(|s| !s.hit).count(), 9);
/// assert_eq!(steps[3].victims[0].page, 1);
/// assert_eq!(steps[3].frames, vec![Some(4), Some(2), Some(3)]);
/// ```
#[derive(Debug)]
pub struct Stepper {
    engine: Engine,
    mem: Memory,
    refs: Vec<Run>,
    next: Vec<u64>,
    table: Vec<Option<u32>>,
    i: usize,
    n_faults: u64,
}

impl Stepper {
    /// A stepper for `spec` with `frames` frames [frames] over the whole string `runs`.
    pub fn new(spec: &PolicySpec, frames: u32, runs: &[Run]) -> Result<Self, TraceError> {
        super::check_frames(frames)?;
        let refs: Vec<Run> = runs
            .iter()
            .flat_map(|r| std::iter::repeat_n(Run { count: 1, ..*r }, r.count as usize))
            .collect();
        let top = refs.iter().map(|r| r.page as u64).max().unwrap_or(0);
        if top >= MAX_STEP_PAGE {
            // Step mode indexes its tables by the user's own page numbers (no densifying).
            return Err(TraceError::invalid(format!(
                "step: page {top}: step mode shows pages by their own numbers; expected pages \
                 below {MAX_STEP_PAGE}"
            )));
        }
        let bound = top as u32 + u32::from(!refs.is_empty());
        let (engine, next) = match Online::build(spec, frames, bound)? {
            Some(o) => (Engine::Online(o), Vec::new()),
            None => {
                let nu = NextUse::compute(&refs);
                let next = (0..refs.len()).map(|i| nu.next(i)).collect();
                (Engine::Min(Min::new(frames, &nu)), next)
            }
        };
        let mut mem = Memory::new(bound);
        mem.set_recording(true);
        Ok(Stepper {
            engine,
            mem,
            refs,
            next,
            // Frames beyond the pages of the string are never used: not shown.
            table: vec![None; frames.min(bound.max(1)) as usize],
            i: 0,
            n_faults: 0,
        })
    }

    /// Faults so far [pages].
    pub fn n_faults(&self) -> u64 {
        self.n_faults
    }

    /// Pushes so far [pages].
    pub fn n_pushes(&self) -> u64 {
        self.mem.n_pushes()
    }

    fn is_resident(&self, page: u32) -> bool {
        match &self.engine {
            Engine::Online(o) => o.is_resident(page),
            Engine::Min(m) => m.is_resident(page),
        }
    }
}

impl Iterator for Stepper {
    type Item = Step;

    fn next(&mut self) -> Option<Step> {
        let r = *self.refs.get(self.i)?;
        let time = self.i as u64;
        if r.kind.is_write() {
            self.mem.mark_dirty(r.page);
        }
        let hit = match &mut self.engine {
            Engine::Online(o) => o.reference(r.page, 1, time, &mut self.mem),
            Engine::Min(m) => m.reference(r.page, self.next[self.i], time, &mut self.mem),
        };
        self.i += 1;
        self.n_faults += u64::from(!hit);
        let victims = self.mem.take_reclaimed();
        for &Victim { page: v, .. } in &victims {
            if let Some(slot) = self.table.iter_mut().find(|s| **s == Some(v)) {
                *slot = None;
            }
        }
        if !hit && self.is_resident(r.page) {
            match self.table.iter_mut().find(|s| s.is_none()) {
                Some(slot) => *slot = Some(r.page),
                None => self.table.push(Some(r.page)),
            }
        }
        let (mut frames, state) = match &self.engine {
            Engine::Online(o) => (
                o.frame_table().unwrap_or_else(|| self.table.clone()),
                o.state(),
            ),
            Engine::Min(m) => (self.table.clone(), m.state()),
        };
        if frames.len() < self.table.len() {
            frames.resize(self.table.len(), None);
        }
        Some(Step {
            time,
            page: r.page,
            written: r.kind.is_write(),
            hit,
            victims,
            frames,
            state,
        })
    }
}
