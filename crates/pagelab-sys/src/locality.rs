//! The locality model: the reference string of a CMS-like or long-running user.
//!
//! **The CMS-like user.** The tetzlaff paper's premise ("Working set considerations") is that an
//! interactive user's working set is largely repeatable across transactions. The model keeps a
//! per-user *set* of `set_pages` private pages drawn from an address space of `address_pages`.
//! At each transaction start a fraction `1 − overlap` of the set is replaced by pages not in it,
//! so consecutive transactions draw on sets sharing `overlap` of their pages. Within a
//! transaction the program runs in *phases* of `runs_per_phase` runs inside a *locality* of
//! `locality_pages` pages, a window of the set; each phase draws its window afresh, or, in a
//! transaction that replays (probability `repeat`), takes the previous transaction's windows in
//! order, so that the pages a queue-stay references are the last one's but for the replaced
//! share (TETZ "Working set considerations": CMS users "have a repeatable working set ... that
//! goes across transactions"); each run is a visit of geometrically many references (mean `refs_per_run`) to
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
//!
//! **Draws.** The model seeds its own Xoshiro256++ from the user's stream. A run takes one
//! 64-bit draw for shared-or-private and load-or-store (32 bits each, so each fraction is exact
//! to 2⁻³²), one for the page (Lemire's bounded integer) and one ziggurat exponential E, the
//! run being ⌊E / −ln q⌋ + 1 references, q = 1 − 1/`refs_per_run`: geometric, no logarithm.

use crate::spec::LocalitySpec;
use pagelab_core::Rng;
use pagelab_trace::{AccessKind, ReferenceSource, Run, TraceError};
use rand::{Rng as _, RngCore, SeedableRng};
use rand_distr::{Distribution, Exp1};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The model's own generator, seeded from the user's stream: the reference string takes most
/// of a run's draws, and Xoshiro256++ is several times cheaper than ChaCha8.
type FastRng = Xoshiro256PlusPlus;

/// Runs per batch.
const BATCH: usize = 256;

/// `f` as a threshold on a uniform 32-bit integer: `x < cut` with probability `f` rounded to a
/// multiple of 2⁻³².
fn cut32(f: f64) -> u64 {
    (f.clamp(0.0, 1.0) * 4_294_967_296.0).round() as u64
}

/// A uniform integer in `0..n` (`n > 0`): Lemire's multiply-and-reject, exact.
#[inline]
fn below(rng: &mut FastRng, n: u32) -> u32 {
    let n = u64::from(n);
    let mut m = u128::from(rng.next_u64()) * u128::from(n);
    if (m as u64) < n {
        let t = n.wrapping_neg() % n;
        while (m as u64) < t {
            m = u128::from(rng.next_u64()) * u128::from(n);
        }
    }
    (m >> 64) as u32
}

/// The locality model of a CMS-like or long-running user.
pub struct LocalityModel {
    p: LocalitySpec,
    shared: u32,
    set: Vec<u32>,
    in_set: Vec<bool>,
    locality: Vec<u32>,
    active: usize,
    /// The window starts of this transaction's phases, in order (kept only when `repeat > 0`).
    starts: Vec<u32>,
    /// The previous transaction's window starts, replayed when `replaying`.
    replay: Vec<u32>,
    replay_at: usize,
    replaying: bool,
    runs_left: u32,
    rng: FastRng,
    /// `shared_fraction` and `write_fraction` as [`cut32`] thresholds (0 without a shared
    /// segment).
    shared_cut: u64,
    write_cut: u64,
    /// 1 / −ln(q) with q = 1 − 1/refs_per_run (0 when every run is one reference): a run is
    /// ⌊E / −ln q⌋ + 1 references for E ~ Exp(1), geometric with mean `refs_per_run`.
    run_scale: f64,
}

impl LocalityModel {
    /// A model with parameters `p`, shared segment of `shared` pages, seeded from `rng`.
    pub fn new(p: &LocalitySpec, shared: u32, mut rng: Rng) -> LocalityModel {
        let mut rng = FastRng::from_seed(rng.gen());
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
            starts: Vec::new(),
            replay: Vec::new(),
            replay_at: 0,
            replaying: false,
            runs_left: 0,
            rng,
            shared_cut: if shared > 0 {
                cut32(p.shared_fraction)
            } else {
                0
            },
            write_cut: cut32(p.write_fraction),
            // A huge finite scale when q rounds to 1: every run is then the longest.
            run_scale: if geo_q > 0.0 {
                1.0 / (-geo_q.ln()).max(f64::MIN_POSITIVE)
            } else {
                0.0
            },
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
        // localities overlap from phase to phase. A replaying transaction takes the previous
        // one's windows, in order, while they last.
        let start = match self.replay.get(self.replay_at) {
            Some(&s) if self.replaying => {
                self.replay_at += 1;
                s as usize % n
            }
            _ => self.rng.gen_range(0..n),
        };
        if self.p.repeat > 0.0 {
            self.starts.push(start as u32);
        }
        for j in 0..k {
            self.locality.push(self.set[(start + j) % n]);
        }
        self.runs_left = self.p.runs_per_phase;
    }

    /// A transaction begins: `1 − overlap` of the set is replaced, and the transaction's
    /// localities are drawn from the first `fraction` of the set (a command's share of the
    /// user's working set); with probability `repeat` its phases replay the previous
    /// transaction's windows.
    pub fn on_transaction_start(&mut self, fraction: f64) {
        self.replace(1.0 - self.p.overlap);
        if self.p.repeat > 0.0 {
            self.replay = std::mem::take(&mut self.starts);
            self.replay_at = 0;
            self.replaying = self.p.repeat >= 1.0 || self.rng.gen_bool(self.p.repeat);
        }
        self.active = ((fraction * self.set.len() as f64).ceil() as usize).clamp(1, self.set.len());
        self.new_phase();
    }
}

/// One run's length: ⌊E · `scale`⌋ + 1 references for E ~ Exp(1) (1 when `scale` is 0).
#[inline]
fn run_len(rng: &mut FastRng, scale: f64) -> u32 {
    if scale == 0.0 {
        return 1;
    }
    let e: f64 = Exp1.sample(rng);
    let x = e * scale;
    if x < 2_147_483_646.0 {
        // floor(x) + 1 by truncation (x >= 0).
        x as u32 + 1
    } else {
        (1.0 + x.floor()).min(u32::MAX as f64 / 2.0) as u32
    }
}

impl ReferenceSource for LocalityModel {
    fn next_batch(&mut self, out: &mut Vec<Run>) -> Result<bool, TraceError> {
        out.reserve(BATCH);
        let mut n = 0;
        while n < BATCH {
            if self.runs_left == 0 {
                self.new_phase();
            }
            // The rest of the phase, or of the batch, with the generator in a local.
            let k = (self.runs_left as usize).min(BATCH - n);
            self.runs_left -= k as u32;
            n += k;
            let mut rng = self.rng.clone();
            let (shared, shared_cut, write_cut) = (self.shared, self.shared_cut, self.write_cut);
            let (scale, locality) = (self.run_scale, &self.locality[..]);
            // `new_phase` leaves at least one page in the locality.
            let last = locality.len() - 1;
            // A trusted-length iterator: the buffer is reserved once, no check per run.
            out.extend((0..k).map(|_| {
                // One draw decides shared or private (high half) and load or store (low half).
                // Both outcomes are computed and one chosen, so that the choice, a coin toss,
                // costs no mispredicted branch; the draws are the same either way.
                let d = rng.next_u64();
                let is_shared = (d >> 32) < shared_cut;
                let bound = if is_shared {
                    shared
                } else {
                    locality.len() as u32
                };
                let i = below(&mut rng, bound);
                let private = shared + locality[(i as usize).min(last)];
                let page = if is_shared { i } else { private };
                let kind = if (d & 0xffff_ffff) < write_cut {
                    AccessKind::Store
                } else {
                    AccessKind::Load
                };
                let count = run_len(&mut rng, scale);
                Run { page, count, kind }
            }));
            self.rng = rng;
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
            repeat: 0.0,
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

    /// The windows of a transaction's first `phases` phases.
    fn windows(m: &mut LocalityModel, phases: usize) -> Vec<Vec<u32>> {
        let mut out = vec![m.locality.clone()];
        for _ in 1..phases {
            m.new_phase();
            out.push(m.locality.clone());
        }
        out
    }

    #[test]
    fn a_replaying_transaction_runs_in_the_last_ones_windows() {
        let p = LocalitySpec {
            repeat: 1.0,
            ..spec(1.0)
        };
        let mut m = LocalityModel::new(&p, 0, RngStreams::new(8).stream("p", 0));
        m.on_transaction_start(1.0);
        let first = windows(&mut m, 4);
        m.on_transaction_start(1.0);
        assert_eq!(windows(&mut m, 6)[..4], first[..]);
        // Without repeat each transaction draws other windows.
        let mut fresh = LocalityModel::new(&spec(1.0), 0, RngStreams::new(8).stream("p", 0));
        fresh.on_transaction_start(1.0);
        let one = windows(&mut fresh, 4);
        fresh.on_transaction_start(1.0);
        assert_ne!(windows(&mut fresh, 4), one);
        // With part of the set replaced, the replayed windows keep their places in the set.
        let p = LocalitySpec {
            repeat: 1.0,
            ..spec(0.75)
        };
        let mut m = LocalityModel::new(&p, 0, RngStreams::new(9).stream("p", 0));
        m.on_transaction_start(0.5);
        let before = (windows(&mut m, 3), m.set().to_vec());
        m.on_transaction_start(0.5);
        let after = (windows(&mut m, 3), m.set().to_vec());
        for (w0, w1) in before.0.iter().zip(&after.0) {
            for (a, b) in w0.iter().zip(w1) {
                let (i, j) = (
                    before.1.iter().position(|x| x == a).unwrap(),
                    after.1.iter().position(|x| x == b).unwrap(),
                );
                assert_eq!(i, j, "the same slot of the set");
            }
        }
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

    /// Mean, variance and shape of the run lengths, the shared and write fractions, and the
    /// spread over the shared pages, over a million runs (each within about four standard
    /// errors of the specified value).
    #[test]
    fn run_statistics_are_as_specified() {
        let p = LocalitySpec {
            refs_per_run: 800.0,
            write_fraction: 0.3,
            shared_fraction: 0.2,
            ..spec(1.0)
        };
        let mut m = LocalityModel::new(&p, 40, RngStreams::new(6).stream("p", 0));
        let mut out = Vec::new();
        for _ in 0..4000 {
            m.next_batch(&mut out).unwrap();
        }
        let n = out.len() as f64;
        let frac = |f: &dyn Fn(&Run) -> bool| out.iter().filter(|r| f(r)).count() as f64 / n;
        let mean = out.iter().map(|r| r.count as f64).sum::<f64>() / n;
        let var = out
            .iter()
            .map(|r| (r.count as f64 - mean).powi(2))
            .sum::<f64>()
            / n;
        let q: f64 = 1.0 - 1.0 / 800.0;
        assert!((mean - 800.0).abs() < 3.2, "mean {mean}");
        assert!(
            (var / (q / (1.0 - q).powi(2)) - 1.0).abs() < 0.015,
            "variance {var}"
        );
        let ones = frac(&|r| r.count == 1);
        assert!((ones - 1.0 / 800.0).abs() < 1.5e-4, "P(1) {ones}");
        let long = frac(&|r| r.count > 800);
        assert!((long - q.powi(800)).abs() < 2e-3, "P(>800) {long}");
        let shared = frac(&|r| r.page < 40);
        assert!((shared - 0.2).abs() < 2e-3, "shared {shared}");
        let writes = frac(&|r| r.is_write());
        assert!((writes - 0.3).abs() < 2e-3, "writes {writes}");
        let mut per_page = [0u32; 40];
        for r in out.iter().filter(|r| r.page < 40) {
            per_page[r.page as usize] += 1;
        }
        let each = shared * n / 40.0;
        assert!(per_page
            .iter()
            .all(|&k| (k as f64 / each - 1.0).abs() < 0.06));
    }

    #[test]
    fn the_same_stream_gives_the_same_runs() {
        let runs = |index| {
            let mut m = LocalityModel::new(&spec(0.8), 5, RngStreams::new(7).stream("p", index));
            let mut out = Vec::new();
            for _ in 0..20 {
                m.next_batch(&mut out).unwrap();
                m.on_transaction_start(0.5);
            }
            out
        };
        assert_eq!(runs(0), runs(0));
        assert_ne!(runs(0), runs(1));
    }

    #[test]
    fn bounded_draws_are_uniform_and_thresholds_exact() {
        let mut r = FastRng::seed_from_u64(8);
        let mut k = [0u32; 7];
        for _ in 0..70_000 {
            k[below(&mut r, 7) as usize] += 1;
        }
        assert!(
            k.iter().all(|&c| (c as f64 / 10_000.0 - 1.0).abs() < 0.05),
            "{k:?}"
        );
        assert!((0..100).all(|_| below(&mut r, 1) == 0));
        assert_eq!(cut32(0.0), 0);
        assert_eq!(cut32(1.0), 1 << 32);
        assert_eq!(cut32(0.25), 1 << 30);
    }
}
