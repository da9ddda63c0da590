//! CLOCK at up to 64 sizes in one pass over the runs.
//!
//! As in [`super::fifo`], bit j of a page's masks is its state with the j-th number of
//! frames: resident, reference bit, changed. The reference bit belongs to the page's frame, and
//! a resident page has exactly one frame, so it can be kept per page. A run whose page is
//! resident at every size sets its bit at every size with one load and one store; only the
//! sizes where it is not resident take a fault, each sweeping its own ring of frames exactly as
//! [`super::clock::Clock`] does (the bit of a page just loaded is `bit_on_load`, or set by the
//! run's second reference).

use crate::policy::{Outcome, PolicySpec};
use crate::Run;

/// CLOCK at several sizes at once.
#[derive(Clone, Debug)]
pub(super) struct ClockSizes {
    frames: Vec<u32>,
    rings: Vec<Vec<u32>>,
    hands: Vec<u32>,
    resident: Vec<u64>,
    bit: Vec<u64>,
    dirty: Vec<u64>,
    all: u64,
    bit_on_load: bool,
    faults: Vec<u64>,
    pushes: Vec<u64>,
    references: u64,
}

impl ClockSizes {
    /// Largest number of sizes one pass carries (bits of a mask).
    pub const MAX_SIZES: usize = 64;

    /// CLOCK at each of `frames` [frames] (at most [`ClockSizes::MAX_SIZES`]) for pages
    /// `0..page_bound`.
    pub fn new(frames: &[u32], page_bound: u32, bit_on_load: bool) -> Self {
        debug_assert!(!frames.is_empty() && frames.len() <= Self::MAX_SIZES);
        let n = frames.len();
        ClockSizes {
            frames: frames.to_vec(),
            rings: frames
                .iter()
                .map(|&f| Vec::with_capacity(f.min(page_bound) as usize))
                .collect(),
            hands: vec![0; n],
            resident: vec![0; page_bound as usize],
            bit: vec![0; page_bound as usize],
            dirty: vec![0; page_bound as usize],
            all: if n == 64 { u64::MAX } else { (1u64 << n) - 1 },
            bit_on_load,
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
            let here = self.resident[p];
            self.bit[p] |= here;
            let missing = self.all & !here;
            if missing != 0 {
                self.fault(r.page, r.count, missing);
            }
            self.references += u64::from(r.count);
        }
    }

    /// A fault on a run of `count` references to `page` at each size whose bit is set in
    /// `missing`.
    #[cold]
    fn fault(&mut self, page: u32, count: u32, mut missing: u64) {
        let set_bit = self.bit_on_load || count > 1;
        while missing != 0 {
            let j = missing.trailing_zeros() as usize;
            missing &= missing - 1;
            let b = 1u64 << j;
            self.faults[j] += 1;
            let ring = &mut self.rings[j];
            let f = if (ring.len() as u32) < self.frames[j] {
                ring.push(page);
                ring.len() - 1
            } else {
                let cap = ring.len();
                let mut h = self.hands[j] as usize;
                while self.bit[ring[h] as usize] & b != 0 {
                    self.bit[ring[h] as usize] &= !b;
                    h = if h + 1 == cap { 0 } else { h + 1 };
                }
                let victim = ring[h] as usize;
                self.resident[victim] &= !b;
                if self.dirty[victim] & b != 0 {
                    self.pushes[j] += 1;
                    self.dirty[victim] &= !b;
                }
                self.hands[j] = if h + 1 == cap { 0 } else { h as u32 + 1 };
                h
            };
            ring[f] = page;
            self.resident[page as usize] |= b;
            if set_bit {
                self.bit[page as usize] |= b;
            } else {
                self.bit[page as usize] &= !b;
            }
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
            bit_on_load in any::<bool>(),
        ) {
            let runs: Vec<Run> = v
                .into_iter()
                .map(|(p, c, k)| Run::new(p, c, AccessKind::from_code(k).unwrap()))
                .collect();
            let bound = runs.iter().map(|r| r.page + 1).max().unwrap();
            let spec: PolicySpec = serde_json::from_str(&format!(
                r#"{{"kind": "clock", "bit_on_load": {bit_on_load}}}"#
            ))
            .unwrap();
            let mut out = Vec::new();
            for group in sizes.chunks(ClockSizes::MAX_SIZES) {
                let mut c = ClockSizes::new(group, bound, bit_on_load);
                c.feed(&runs[..runs.len() / 2]);
                c.feed(&runs[runs.len() / 2..]);
                c.outcomes(&spec, &mut out);
            }
            prop_assert_eq!(out, simulate_sizes(&spec, &runs, &sizes, 0).unwrap());
        }
    }
}
