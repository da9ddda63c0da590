//! FIFO at up to 64 sizes in one pass over the runs.
//!
//! Bit j of a page's residency mask says whether the page is resident with the j-th number of
//! frames, bit j of its change mask whether it is changed there. A FIFO hit changes no state
//! (see "Runs, not references" in the module above), so a run whose page is resident at every
//! size costs one load and one compare for all the sizes together; only the sizes where it is
//! not resident take a fault, each on its own ring of frames exactly as [`super::fifo::Fifo`]
//! does. FIFO has no inclusion property (Belady's anomaly), so the sizes cannot share a stack,
//! but they can share the walk over the runs.

use crate::policy::{Outcome, PolicySpec};
use crate::Run;

/// FIFO at several sizes at once.
#[derive(Clone, Debug)]
pub(super) struct FifoSizes {
    frames: Vec<u32>,
    rings: Vec<Vec<u32>>,
    hands: Vec<u32>,
    resident: Vec<u64>,
    dirty: Vec<u64>,
    all: u64,
    faults: Vec<u64>,
    pushes: Vec<u64>,
    references: u64,
}

impl FifoSizes {
    /// Largest number of sizes one pass carries (bits of a mask).
    pub const MAX_SIZES: usize = 64;

    /// FIFO at each of `frames` [frames] (at most [`FifoSizes::MAX_SIZES`]) for pages
    /// `0..page_bound`.
    pub fn new(frames: &[u32], page_bound: u32) -> Self {
        debug_assert!(!frames.is_empty() && frames.len() <= Self::MAX_SIZES);
        let n = frames.len();
        FifoSizes {
            frames: frames.to_vec(),
            rings: frames
                .iter()
                .map(|&f| Vec::with_capacity(f.min(page_bound) as usize))
                .collect(),
            hands: vec![0; n],
            resident: vec![0; page_bound as usize],
            dirty: vec![0; page_bound as usize],
            all: if n == 64 { u64::MAX } else { (1u64 << n) - 1 },
            faults: vec![0; n],
            pushes: vec![0; n],
            references: 0,
        }
    }

    /// Feeds runs.
    pub fn feed(&mut self, block: &[Run]) {
        for &r in block {
            let p = r.page as usize;
            if r.is_write() {
                self.dirty[p] |= self.all;
            }
            let missing = self.all & !self.resident[p];
            if missing != 0 {
                self.fault(r.page, missing);
            }
            self.references += u64::from(r.count);
        }
    }

    /// A fault on `page` at each size whose bit is set in `missing`.
    #[cold]
    fn fault(&mut self, page: u32, mut missing: u64) {
        while missing != 0 {
            let j = missing.trailing_zeros() as usize;
            missing &= missing - 1;
            let bit = 1u64 << j;
            self.faults[j] += 1;
            let ring = &mut self.rings[j];
            if (ring.len() as u32) < self.frames[j] {
                ring.push(page);
            } else {
                let h = self.hands[j] as usize;
                let victim = ring[h] as usize;
                self.resident[victim] &= !bit;
                if self.dirty[victim] & bit != 0 {
                    self.pushes[j] += 1;
                    self.dirty[victim] &= !bit;
                }
                ring[h] = page;
                self.hands[j] = if h + 1 == ring.len() { 0 } else { h as u32 + 1 };
            }
            self.resident[page as usize] |= bit;
        }
    }

    /// One outcome per size, in the order given (no warm-up).
    pub fn outcomes(self, spec: &PolicySpec, out: &mut Vec<Outcome>) {
        let counts = (self.references, &self.faults[..], &self.pushes[..]);
        super::mask_outcomes(
            spec,
            &self.frames,
            counts,
            (&self.resident, &self.dirty),
            out,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::simulate_sizes;
    use crate::AccessKind;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn one_walk_equals_one_simulation_per_size(
            v in prop::collection::vec((0u32..30, 1u32..4, 0u8..4), 1..400),
            sizes in prop::collection::vec(1u32..40, 1..70),
        ) {
            let runs: Vec<Run> = v
                .into_iter()
                .map(|(p, c, k)| Run::new(p, c, AccessKind::from_code(k).unwrap()))
                .collect();
            let bound = runs.iter().map(|r| r.page + 1).max().unwrap();
            let spec = PolicySpec::by_name("fifo").unwrap();
            let mut out = Vec::new();
            for group in sizes.chunks(FifoSizes::MAX_SIZES) {
                let mut f = FifoSizes::new(group, bound);
                f.feed(&runs[..runs.len() / 2]);
                f.feed(&runs[runs.len() / 2..]);
                f.outcomes(&spec, &mut out);
            }
            prop_assert_eq!(out, simulate_sizes(&spec, &runs, &sizes, 0).unwrap());
        }
    }
}
