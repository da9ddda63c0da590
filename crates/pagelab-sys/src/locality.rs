//! The locality model: the reference string of a CMS-like or long-running user.
//!
//! **The CMS-like user.** The tetzlaff paper's premise ("Working set considerations") is that an
//! interactive user's working set is largely repeatable across transactions. The model keeps a
//! per-user *set* of `set_pages` private pages drawn from an address space of `address_pages`.
//! At each transaction start a fraction `1 − overlap` of the set is replaced by pages not in it,
//! so consecutive transactions share `overlap` of their pages. Within a transaction the program
//! runs in *phases* of `runs_per_phase` runs inside a *locality* of `locality_pages` pages drawn
//! from the set; each run is a visit of geometrically many references (mean `refs_per_run`) to
//! one page, a write with probability `write_fraction`, and to the shared segment (pages
//! `0..shared_pages`, owned by no user) with probability `shared_fraction`.
//!
//! A command may use only part of the set (`set_fraction`): its localities are then drawn
//! from the first pages of the set, the ones a user keeps longest, so a trivial command touches
//! a subset of what a nontrivial one does.
//!
//! **The long-running user** is the same model with a larger set and `drift > 0`: at each phase
//! change that fraction of the set is replaced, so the working set wanders through the address
//! space.

use crate::spec::LocalitySpec;
use pagelab_core::Rng;
use pagelab_trace::{AccessKind, ReferenceSource, Run, TraceError};
use rand::Rng as _;

/// The locality model of a CMS-like or long-running user.
pub struct LocalityModel {
    p: LocalitySpec,
    shared: u32,
    set: Vec<u32>,
    in_set: Vec<bool>,
    locality: Vec<u32>,
    active: usize,
    runs_left: u32,
    rng: Rng,
    geo_q: f64,
    /// ln(geo_q), computed once: run lengths draw one logarithm each, not two.
    ln_q: f64,
}

impl LocalityModel {
    /// A model with parameters `p`, shared segment of `shared` pages, random stream `rng`.
    pub fn new(p: &LocalitySpec, shared: u32, mut rng: Rng) -> LocalityModel {
        let mut in_set = vec![false; p.address_pages as usize];
        let mut set = Vec::with_capacity(p.set_pages as usize);
        while set.len() < p.set_pages as usize {
            let q = rng.gen_range(0..p.address_pages);
            if !in_set[q as usize] {
                in_set[q as usize] = true;
                set.push(q);
            }
        }
        let geo_q = 1.0 - 1.0 / p.refs_per_run;
        let mut m = LocalityModel {
            p: p.clone(),
            shared,
            set,
            in_set,
            locality: Vec::new(),
            active: p.set_pages as usize,
            runs_left: 0,
            rng,
            geo_q,
            ln_q: geo_q.ln(),
        };
        m.new_phase();
        m
    }

    /// The current page set (private page numbers).
    pub fn set(&self) -> &[u32] {
        &self.set
    }

    /// Replaces `frac` of the set with pages from outside it.
    fn replace(&mut self, frac: f64) {
        let n = self.set.len();
        let k = (frac * n as f64).round() as usize;
        if k == 0 || self.p.address_pages as usize <= n {
            return;
        }
        for _ in 0..k {
            let i = self.rng.gen_range(0..n);
            let new = loop {
                let q = self.rng.gen_range(0..self.p.address_pages);
                if !self.in_set[q as usize] {
                    break q;
                }
            };
            self.in_set[self.set[i] as usize] = false;
            self.in_set[new as usize] = true;
            self.set[i] = new;
        }
    }

    fn new_phase(&mut self) {
        if self.p.drift > 0.0 {
            self.replace(self.p.drift);
        }
        self.locality.clear();
        let n = self.active.clamp(1, self.set.len());
        let k = (self.p.locality_pages as usize).min(n);
        // A window of the set (the set's order is its order of acquisition): contiguous
        // localities overlap from phase to phase.
        let start = self.rng.gen_range(0..n);
        for j in 0..k {
            self.locality.push(self.set[(start + j) % n]);
        }
        self.runs_left = self.p.runs_per_phase;
    }

    /// A transaction begins: `1 − overlap` of the set is replaced, and the transaction's
    /// localities are drawn from the first `fraction` of the set (a command's share of the
    /// user's working set).
    pub fn on_transaction_start(&mut self, fraction: f64) {
        self.replace(1.0 - self.p.overlap);
        self.active = ((fraction * self.set.len() as f64).ceil() as usize).clamp(1, self.set.len());
        self.new_phase();
    }

    fn run_len(&mut self) -> u32 {
        if self.geo_q <= 0.0 {
            return 1;
        }
        let u: f64 = self.rng.gen_range(f64::MIN_POSITIVE..1.0);
        let x = u.ln() / self.ln_q; // >= 0: both logarithms are negative
        if x < 2_147_483_646.0 {
            // floor(x) + 1 by truncation (x >= 0): a conversion instead of a call to floor.
            x as u32 + 1
        } else {
            (1.0 + x.floor()).min(u32::MAX as f64 / 2.0) as u32
        }
    }
}

impl ReferenceSource for LocalityModel {
    fn next_batch(&mut self, out: &mut Vec<Run>) -> Result<bool, TraceError> {
        for _ in 0..256 {
            if self.runs_left == 0 {
                self.new_phase();
            }
            self.runs_left -= 1;
            let page = if self.shared > 0 && self.rng.gen::<f64>() < self.p.shared_fraction {
                self.rng.gen_range(0..self.shared)
            } else {
                let i = self.rng.gen_range(0..self.locality.len());
                self.shared + self.locality[i]
            };
            let kind = if self.rng.gen::<f64>() < self.p.write_fraction {
                AccessKind::Store
            } else {
                AccessKind::Load
            };
            let count = self.run_len();
            out.push(Run { page, count, kind });
        }
        Ok(true)
    }

    fn page_bound(&self) -> Option<u32> {
        Some(self.shared + self.p.address_pages)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pagelab_core::RngStreams;

    fn spec(overlap: f64) -> LocalitySpec {
        LocalitySpec {
            set_pages: 40,
            address_pages: 400,
            overlap,
            drift: 0.0,
            locality_pages: 10,
            runs_per_phase: 50,
            refs_per_run: 100.0,
            write_fraction: 0.2,
            shared_fraction: 0.0,
        }
    }

    #[test]
    fn overlap_between_consecutive_transactions_is_as_set() {
        let mut m = LocalityModel::new(&spec(0.75), 0, RngStreams::new(3).stream("p", 0));
        let before: std::collections::BTreeSet<u32> = m.set().iter().copied().collect();
        m.on_transaction_start(1.0);
        let after: std::collections::BTreeSet<u32> = m.set().iter().copied().collect();
        let kept = before.intersection(&after).count();
        // Ten replacements drawn with repetition: between 30 and 40 pages kept.
        assert!((30..40).contains(&kept), "kept {kept}");
        assert_eq!(after.len(), 40);
    }

    #[test]
    fn runs_stay_in_the_set_and_have_the_mean_length() {
        let mut m = LocalityModel::new(&spec(1.0), 0, RngStreams::new(4).stream("p", 0));
        let set: std::collections::BTreeSet<u32> = m.set().iter().copied().collect();
        let mut out = Vec::new();
        for _ in 0..200 {
            m.next_batch(&mut out).unwrap();
        }
        assert!(out.iter().all(|r| set.contains(&r.page)));
        let mean = out.iter().map(|r| r.count as f64).sum::<f64>() / out.len() as f64;
        assert!((mean / 100.0 - 1.0).abs() < 0.03, "mean run {mean}");
        let w = out.iter().filter(|r| r.is_write()).count() as f64 / out.len() as f64;
        assert!((w - 0.2).abs() < 0.01);
    }

    #[test]
    fn a_command_with_a_set_fraction_touches_only_that_share() {
        let mut m = LocalityModel::new(&spec(1.0), 0, RngStreams::new(5).stream("p", 0));
        m.on_transaction_start(0.25);
        let share: std::collections::BTreeSet<u32> = m.set()[..10].iter().copied().collect();
        let mut out = Vec::new();
        for _ in 0..50 {
            m.next_batch(&mut out).unwrap();
        }
        let touched: std::collections::BTreeSet<u32> = out.iter().map(|r| r.page).collect();
        assert!(touched.is_subset(&share));
        assert_eq!(touched.len(), 10);
    }
}
