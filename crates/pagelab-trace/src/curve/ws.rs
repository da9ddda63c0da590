//! The working-set curve in one pass: mean working-set size and fault rate against tau.
//!
//! Denning & Schwartz (1972): with b_t the backward inter-reference distance of reference t
//! (t minus the time of the previous reference to its page; infinite for a first reference),
//! a reference misses the working set of window tau iff b_t > tau, so
//!
//! ```text
//!   m(tau) = #{t : b_t > tau} / n          (first references count as misses)
//!   s(tau) = sum_{k=0}^{tau-1} m(k)        (their asymptotic mean working-set size)
//! ```
//!
//! We report both m(tau) and s(tau), and also the exact time average of |W(t, tau)| over the
//! string, which is what a direct simulation ([`crate::policy::simulate`] with `ws`) measures.
//! They differ only at the end of the string: reference s stays in the working set for
//! min(tau, f_s, n - s) references, f_s its forward distance; forward and backward distances
//! pair up, so
//!
//! ```text
//!   sum_t |W(t, tau)| = sum_{finite b} min(tau, b) + sum_{pages} min(tau, n - last_p)
//! ```
//!
//! where last_p is the time of the page's last reference (times from 0), while s(tau) counts
//! tau for every page instead of the last term. Both come from two histograms capped at the
//! largest tau asked: O(1) a run, O(tau_max) memory.

use crate::{ReferenceSource, Run, TraceError};
use serde::{Deserialize, Serialize};

/// One point of the working-set curve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WsPoint {
    /// Window [references].
    pub tau: u64,
    /// References [references].
    pub references: u64,
    /// Faults (misses) [pages].
    pub faults: u64,
    /// Miss rate m(tau) [1].
    pub fault_rate: f64,
    /// Mean working-set size over the string, exact [pages] (equals the `ws` simulation).
    pub mean_size: f64,
    /// Denning & Schwartz's s(tau) = sum_{k<tau} m(k) [pages].
    pub mean_size_ds: f64,
}

/// The working-set curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WsCurve {
    /// Distinct pages [pages].
    pub pages: u32,
    /// One point per window asked, in that order.
    pub points: Vec<WsPoint>,
}

/// Histograms of backward distances, built in one pass; evaluate at any tau up to the cap.
#[derive(Clone, Debug)]
pub struct WsHistogram {
    cap: u64,
    last_end: Vec<u64>,
    seen: Vec<bool>,
    /// hist[b] for b in 1..=cap; hist[cap + 1] counts all b > cap.
    hist: Vec<u64>,
    distinct: u32,
    time: u64,
}

impl WsHistogram {
    /// A histogram resolving windows up to `tau_max` [references] (8 bytes each).
    pub fn new(tau_max: u64) -> Result<Self, TraceError> {
        if tau_max == 0 || tau_max > 1 << 32 {
            return Err(TraceError::invalid(format!(
                "tau: largest window {tau_max}; expected 1 ..= 2^32 references"
            )));
        }
        Ok(WsHistogram {
            cap: tau_max,
            last_end: Vec::new(),
            seen: Vec::new(),
            hist: vec![0; tau_max as usize + 2],
            distinct: 0,
            time: 0,
        })
    }

    /// Feeds runs.
    pub fn push_runs(&mut self, runs: &[Run]) {
        for r in runs {
            let p = r.page as usize;
            if p >= self.seen.len() {
                let n = (p + 1).max(self.seen.len() * 2);
                self.seen.resize(n, false);
                self.last_end.resize(n, 0);
            }
            if self.seen[p] {
                let b = self.time - self.last_end[p];
                self.hist[b.min(self.cap + 1) as usize] += 1;
            } else {
                self.seen[p] = true;
                self.distinct += 1;
            }
            self.hist[1] += u64::from(r.count - 1);
            self.time += u64::from(r.count);
            self.last_end[p] = self.time - 1;
        }
    }

    /// Feeds a whole source.
    pub fn push_source<S: ReferenceSource + ?Sized>(
        &mut self,
        src: &mut S,
    ) -> Result<(), TraceError> {
        let mut batch = Vec::with_capacity(1 << 14);
        loop {
            batch.clear();
            if !src.next_batch(&mut batch)? {
                return Ok(());
            }
            self.push_runs(&batch);
        }
    }

    /// The curve at the windows `taus` [references], each in 1..=tau_max.
    pub fn finish(&self, taus: &[u64]) -> Result<WsCurve, TraceError> {
        if let Some(&t) = taus.iter().find(|&&t| t == 0 || t > self.cap) {
            return Err(TraceError::invalid(format!(
                "tau: {t}; expected 1 ..= {} references",
                self.cap
            )));
        }
        let cap = self.cap as usize;
        let n = self.time;
        // Tail terms: n - last_p for each page, capped like the distances.
        let mut tail = vec![0u64; cap + 2];
        for (p, &s) in self.seen.iter().enumerate() {
            if s {
                tail[((n - self.last_end[p]).min(self.cap + 1)) as usize] += 1;
            }
        }
        // Prefix sums: count and sum of values <= k.
        let prefix = |h: &[u64]| {
            let mut cnt = vec![0u64; cap + 2];
            let mut sum = vec![0u128; cap + 2];
            for k in 1..=cap + 1 {
                cnt[k] = cnt[k - 1] + h[k];
                sum[k] = sum[k - 1] + u128::from(h[k]) * k as u128;
            }
            (cnt, sum)
        };
        let (hc, hs) = prefix(&self.hist);
        let (tc, ts) = prefix(&tail);
        let finite = hc[cap + 1];
        let pages = tc[cap + 1];
        let points = taus
            .iter()
            .map(|&tau| {
                let k = tau as usize;
                let beyond = finite - hc[k];
                let faults = u64::from(self.distinct) + beyond;
                let finite_sum = hs[k] + u128::from(beyond) * u128::from(tau);
                let exact = finite_sum + ts[k] + u128::from(pages - tc[k]) * u128::from(tau);
                let ds = finite_sum + u128::from(self.distinct) * u128::from(tau);
                let per = |x: u128| if n == 0 { 0.0 } else { x as f64 / n as f64 };
                WsPoint {
                    tau,
                    references: n,
                    faults,
                    fault_rate: per(u128::from(faults)),
                    mean_size: per(exact),
                    mean_size_ds: per(ds),
                }
            })
            .collect();
        Ok(WsCurve {
            pages: self.distinct,
            points,
        })
    }
}

/// The working-set curve of `runs` at the windows `taus` [references], in one pass.
///
/// ```
/// use pagelab_trace::curve::ws_curve;
/// use pagelab_trace::VecSource;
/// let s = VecSource::from_pages(&[1, 2, 3, 1, 4, 1, 2]);
/// let c = ws_curve(s.runs(), &[3]).unwrap();
/// assert_eq!(c.points[0].faults, 5);
/// assert_eq!(c.points[0].mean_size, 17.0 / 7.0);
/// ```
pub fn ws_curve(runs: &[Run], taus: &[u64]) -> Result<WsCurve, TraceError> {
    let mut h = WsHistogram::new(taus.iter().copied().max().unwrap_or(1))?;
    h.push_runs(runs);
    h.finish(taus)
}
