//! Curves: faults against memory size, in one pass where the policy allows it.
//!
//! ```text
//!                 one pass over the string                     output
//!   LRU   Mattson stack distances (Fenwick tree), pushes  ──►  Curve at every size 1..=pages
//!   MIN   OPT stack with next-use priorities              ──►  Curve at every size 1..=pages
//!   WS    histogram of backward inter-reference distances ──►  WsCurve: s(tau), m(tau)
//!   other policies: one simulation per size, spread over the cores (curve_by_simulation)
//! ```
//!
//! LRU and MIN are *stack algorithms* (Mattson, Gecsei, Slutz & Traiger 1970): at every time the
//! pages resident with C frames are the top C of one stack, so a reference at stack distance d
//! faults exactly at the sizes C < d, and one pass yields the faults at every size. FIFO and
//! CLOCK are not (FIFO shows Belady's anomaly) and are simulated size by size.
//!
//! The M44 run-time model of Brawn & Gustavson (1968) turns a curve into run time against real
//! core size ([`RunTimeModel`]): run time = references x reference time + pulls x page time.

use crate::policy::{simulate_sizes, simulate_stream_sizes, Outcome, PolicySpec};
use crate::{ReferenceSource, Run, TraceError};
use serde::{Deserialize, Serialize};

pub mod lru;
pub mod opt;
pub mod psi;
pub mod ws;

pub use lru::{lru_curve, LruStack};
pub use opt::{opt_curve, opt_curve_trace, opt_curve_upto};
pub use psi::{predict, psi_curve, realize, Prediction, PsiCurve, PsiModel, PsiPoint};
pub use ws::{ws_curve, WsCurve, WsHistogram, WsPoint};

/// Faults of one policy at one size.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// Memory size [frames].
    pub frames: u32,
    /// References counted (after the warm-up) [references].
    pub references: u64,
    /// Faults (pulls) [pages].
    pub faults: u64,
    /// Pushes [pages]; `None` where the method does not give them (the OPT stack).
    pub pushes: Option<u64>,
    /// Faults per reference [1].
    pub fault_rate: f64,
}

impl CurvePoint {
    /// A point; the fault rate is computed (0 for no references).
    pub fn new(frames: u32, references: u64, faults: u64, pushes: Option<u64>) -> Self {
        let fault_rate = if references == 0 {
            0.0
        } else {
            faults as f64 / references as f64
        };
        CurvePoint {
            frames,
            references,
            faults,
            pushes,
            fault_rate,
        }
    }
}

/// Faults of one policy at many sizes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// Policy name (registry name).
    pub policy: String,
    /// References excluded from the counts at the start [references].
    pub warmup: u64,
    /// One point per size, by increasing size for one-pass curves, in the order asked
    /// otherwise.
    pub points: Vec<CurvePoint>,
}

impl Curve {
    /// The point at `frames`, if the curve has it.
    pub fn at(&self, frames: u32) -> Option<&CurvePoint> {
        self.points.iter().find(|p| p.frames == frames)
    }

    /// The curve restricted to `sizes` (in that order); sizes beyond the largest point take its
    /// counts (more frames than pages change nothing for a stack algorithm).
    pub fn select(&self, sizes: &[u32]) -> Curve {
        let points = sizes
            .iter()
            .filter_map(|&s| {
                let p = self
                    .at(s)
                    .or_else(|| self.points.last().filter(|l| s > l.frames))?;
                Some(CurvePoint { frames: s, ..*p })
            })
            .collect();
        Curve {
            policy: self.policy.clone(),
            warmup: self.warmup,
            points,
        }
    }
}

impl From<&Outcome> for CurvePoint {
    fn from(o: &Outcome) -> Self {
        CurvePoint::new(
            o.frames,
            o.measured.references,
            o.measured.faults,
            Some(o.measured.pushes),
        )
    }
}

/// The curve of any policy at `sizes` [frames] by one simulation per size (spread over the
/// cores by rayon; points in the order of `sizes`).
pub fn curve_by_simulation(
    spec: &PolicySpec,
    runs: &[Run],
    sizes: &[u32],
    warmup: u64,
) -> Result<Curve, TraceError> {
    let outs = simulate_sizes(spec, runs, sizes, warmup)?;
    Ok(Curve {
        policy: spec.name().to_string(),
        warmup,
        points: outs.iter().map(CurvePoint::from).collect(),
    })
}

/// Sizes from which the one-pass LRU curve is cheaper than one simulation per size.
const ONE_PASS_FROM: usize = 4;

/// The curve of `spec` at `sizes` [frames] (in that order), by the fastest exact method: the
/// one-pass LRU stack for `lru` at several sizes, one simulation per size otherwise (MIN
/// included, so that its pushes are counted). Results do not depend on the method.
pub fn curve(
    spec: &PolicySpec,
    runs: &[Run],
    sizes: &[u32],
    warmup: u64,
) -> Result<Curve, TraceError> {
    if let (PolicySpec::Lru(_), true) = (spec, sizes.len() >= ONE_PASS_FROM) {
        if let Some(i) = sizes.iter().position(|&s| s == 0) {
            return Err(TraceError::invalid(format!(
                "sizes[{i}]: 0 frames; expected at least 1 frame"
            )));
        }
        return Ok(lru_curve(runs, warmup).select(sizes));
    }
    curve_by_simulation(spec, runs, sizes, warmup)
}

/// The curve of an online policy at `sizes` [frames] in one read of `source` (a trace file
/// read once, every size fed from the same batches); `lru` at several sizes uses the one-pass
/// stack. MIN is refused (it needs the whole string: load it and use [`curve`]).
pub fn curve_stream<S: ReferenceSource + ?Sized>(
    spec: &PolicySpec,
    source: &mut S,
    sizes: &[u32],
    warmup: u64,
) -> Result<Curve, TraceError> {
    if let (PolicySpec::Lru(_), true) = (spec, sizes.len() >= ONE_PASS_FROM) {
        if let Some(i) = sizes.iter().position(|&s| s == 0) {
            return Err(TraceError::invalid(format!(
                "sizes[{i}]: 0 frames; expected at least 1 frame"
            )));
        }
        let mut st = LruStack::new(source.page_bound().unwrap_or(0), warmup);
        st.push_source(source)?;
        return Ok(st.into_curve().select(sizes));
    }
    let outs = simulate_stream_sizes(spec, source, sizes, warmup)?;
    Ok(Curve {
        policy: spec.name().to_string(),
        warmup,
        points: outs.iter().map(CurvePoint::from).collect(),
    })
}

/// The M44/44X run-time model (Brawn & Gustavson 1968): a program's run time on a paging
/// machine is its references at the effective reference time plus its pulls at the time to
/// bring one page from the paging disk; the CPU waits for every pull (single-programmed).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunTimeModel {
    /// Effective time of one reference [s] -- parameter, default 10 us (source: B&G, "effective
    /// 10 usec memory cycle" of the 44X).
    pub reference_time: f64,
    /// Time to seek and transmit one 1024-word page from the IBM 1301 disks [s] -- parameter,
    /// default 0.21 s (source: B&G, "computed from our data").
    pub page_time: f64,
}

impl Default for RunTimeModel {
    fn default() -> Self {
        RunTimeModel {
            reference_time: 10e-6,
            page_time: 0.21,
        }
    }
}

/// Run time at one size.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunTimePoint {
    /// Memory size [frames].
    pub frames: u32,
    /// Run time [s].
    pub run_time: f64,
}

impl RunTimeModel {
    /// Run time [s] of `references` references with `pulls` pulls.
    pub fn run_time(&self, references: u64, pulls: u64) -> f64 {
        references as f64 * self.reference_time + pulls as f64 * self.page_time
    }

    /// Run time against memory size for every point of `curve`.
    pub fn apply(&self, curve: &Curve) -> Vec<RunTimePoint> {
        curve
            .points
            .iter()
            .map(|p| RunTimePoint {
                frames: p.frames,
                run_time: self.run_time(p.references, p.faults),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
