//! Bard's program characterization: the Ψ-realization of a reference string and the prediction
//! of a round-robin active set (Bard 1975, sections 3, 4 and 7, which summarize Bard 1973).
//!
//! The program runs alone under a global reference-bit replacement in which an unreferenced
//! resident page survives exactly Ψ of the program's *interruptions* before it is replaced
//! (section 3). Interruptions are the program's page exceptions and its I/O requests (section 5
//! counts both, ΔP + ΔV). A reference string carries no I/O, so we place one after every
//! `refs_per_io`-th reference (0: none), and CPU time is references x `reference_time`.
//!
//! ```text
//!   interruption count K: +1 at each page exception (before the faulting reference runs)
//!                         +1 at each I/O (after every refs_per_io-th reference)
//!   page last referenced at count k:  resident  while K - k <= Ψ
//!                                     replaced  when  K reaches k + Ψ + 1
//!   reference to a page last referenced at count k:  exception  iff  K - k > Ψ
//! ```
//!
//! Equivalently the resident set during an execution interval is the set of distinct pages
//! referenced in that interval and the Ψ before it: a working set whose window is counted in
//! interruptions. It changes only at interruptions, so its time average is a sum over intervals.
//!
//! Statistics per Ψ over a string of n references with E exceptions and V I/Os; an execution
//! interval ends at every interruption and at the end of the string, so there are E + V + 1:
//!
//! ```text
//!   A(Ψ) = (1/n) sum_refs |resident set|                 [pages]
//!   R(Ψ) = E / (n reference_time)                         [exceptions per CPU second]
//!   t(Ψ) = n reference_time / (E + V + 1)                 [CPU seconds]
//!   f(Ψ) = E / (E + V + 1)                                [1]       (so f = R t, section 4)
//! ```
//!
//! *All Ψ in one pass.* The gap of a reference (interruptions since the previous reference to
//! its page) decides the exception: fault iff Ψ < gap. A histogram of gaps would give every Ψ at
//! once if the interruption clock were the same for every Ψ; it is not, because the program's
//! own exceptions tick it and they depend on Ψ. The clocks are nested, though: by induction on
//! the references, the exceptions at Ψ + 1 are a subset of those at Ψ, so the Ψ + 1 clock has a
//! subset of the interruptions, its window of Ψ + 2 intervals reaches at least as far back, and
//! its resident set contains that of Ψ at every reference. Hence A is nondecreasing and R
//! nonincreasing in Ψ, and each reference has a critical value g (its gap measured on the
//! clocks themselves) with an exception exactly for Ψ < g. We run one lane per Ψ asked over a
//! single read of the string: per page the lanes' last-reference counts lie side by side, per
//! lane a ring of Ψ + 2 counters holds how many resident pages were last referenced at each
//! recent count, so an interruption removes exactly the expiring bucket, and the time average of
//! the resident set is accumulated interval by interval. A reference visits the lanes by
//! increasing Ψ and stops at the first with no interruption since the page's last reference
//! (by nesting, none of the larger Ψ has one either). Cost: O(lanes) per run at worst, O(pages
//! x lanes) memory. [`realize`] is the direct simulation (resident set kept explicitly, one
//! reference at a time) that checks it.
//!
//! *Ψ_c and β* (section 7: A grows about as Ψ up to a critical Ψ_c "between 7 and 10", then
//! as Ψ^β with β between 0 and 0.25). The paper gives no fitting rule; we take the continuous
//! two-segment least-squares fit of ln A against ln Ψ over the points with Ψ >= 1, the knot at
//! one of the Ψ asked ([`fit_break`]): Ψ_c is the knot, β the slope past it. Ask a dense
//! range (1..=30, say) for a meaningful knot.
//!
//! *Prediction* (section 4): under round robin all active programs see one Ψ*, with
//! `sum_i A_i(Ψ*) = N` (eq. 1), and the system paging rate is
//! `P = sum_i f_i(Ψ*) / sum_i t_i(Ψ*)` (eq. 2, equal to eq. 3 since f = R t). Between the Ψ
//! asked the characteristics are interpolated linearly, so eq. 1 is solved exactly on the
//! piecewise-linear sum ([`predict`]).
//!
//! Deviations: the paper's realizations used the programs' real I/O; ours is a fixed rate. The
//! first interval, which ends at the program's first exception, has length zero and counts.

use crate::{ReferenceSource, Run, TraceError};
use serde::{Deserialize, Serialize};

/// How a reference string is turned into a timed program for the Ψ-realization.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PsiModel {
    /// CPU time of one reference [s] -- parameter, default 2 us (source: presets/cp67.toml,
    /// `cpu.reference_ns`, about 0.5 MIPS at one reference per instruction).
    pub reference_time: f64,
    /// References between two I/O interruptions [references] -- parameter, default 0 = no I/O
    /// (a reference string records none; Bard counts I/O among the interruptions, section 5).
    pub refs_per_io: u64,
}

impl Default for PsiModel {
    fn default() -> Self {
        PsiModel {
            reference_time: 2e-6,
            refs_per_io: 0,
        }
    }
}

impl PsiModel {
    fn validate(&self) -> Result<(), TraceError> {
        if !(self.reference_time.is_finite() && self.reference_time > 0.0) {
            return Err(TraceError::invalid(format!(
                "reference_time: {}; expected a finite time > 0 s",
                self.reference_time
            )));
        }
        Ok(())
    }
}

/// The Ψ-realization's statistics at one Ψ.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PsiPoint {
    /// Page survival index Ψ [interruptions].
    pub psi: u32,
    /// References of the string [references].
    pub references: u64,
    /// Page exceptions [exceptions].
    pub faults: u64,
    /// I/O interruptions [interruptions].
    pub ios: u64,
    /// A(Ψ): mean resident set over CPU time [pages].
    pub a: f64,
    /// R(Ψ): page exceptions per CPU second [1/s].
    pub r: f64,
    /// t(Ψ): mean execution interval [s of CPU].
    pub t: f64,
    /// f(Ψ): fraction of execution intervals ending in a page exception [1].
    pub f: f64,
}

impl PsiPoint {
    fn new(psi: u32, references: u64, faults: u64, ios: u64, area: u128, m: &PsiModel) -> Self {
        let n = references as f64;
        let cpu = n * m.reference_time;
        let intervals = (faults + ios + 1) as f64;
        PsiPoint {
            psi,
            references,
            faults,
            ios,
            a: area as f64 / n,
            r: faults as f64 / cpu,
            t: cpu / intervals,
            f: faults as f64 / intervals,
        }
    }
}

/// A program's characteristics: its Ψ-realization at each Ψ asked, and the break of A(Ψ).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PsiCurve {
    /// The timing model used.
    pub model: PsiModel,
    /// Distinct pages of the string [pages].
    pub pages: u32,
    /// One point per Ψ asked, by increasing Ψ.
    pub points: Vec<PsiPoint>,
    /// Ψ_c, the knot of the two-segment fit of ln A against ln Ψ [interruptions]; `None` with
    /// fewer than four points at Ψ >= 1.
    pub psi_c: Option<f64>,
    /// β, the exponent of A(Ψ) past Ψ_c [1].
    pub beta: Option<f64>,
    /// The exponent of A(Ψ) below Ψ_c [1] (the paper: about 1).
    pub slope_below: Option<f64>,
}

impl PsiCurve {
    /// The point at `psi`, if it was asked.
    pub fn at(&self, psi: u32) -> Option<&PsiPoint> {
        self.points.iter().find(|p| p.psi == psi)
    }
}

/// Largest Ψ accepted [interruptions] (ring memory grows with it).
pub const PSI_MAX: u32 = 4095;
/// Most Ψ values in one pass [lanes].
pub const LANES_MAX: usize = 256;

#[derive(Clone, Debug)]
struct Lane {
    psi: u32,
    /// Interruption count (offset so that a never-referenced page, count 0, always faults).
    k: u32,
    /// Resident pages.
    res: u64,
    /// Resident pages x references, up to `t_last`.
    area: u128,
    t_last: u64,
    faults: u64,
}

/// The Ψ-realizations of one string at many Ψ, fed in one pass ([`psi_curve`] for a string in
/// memory, [`PsiRealizer::push_source`] for a trace read once).
#[derive(Clone, Debug)]
pub struct PsiRealizer {
    model: PsiModel,
    lanes: Vec<Lane>,
    /// Per page, the lanes' last-reference counts side by side.
    last: Vec<u32>,
    /// Per lane, `ring_len` buckets: resident pages last referenced at count c (index c & mask).
    ring: Vec<u32>,
    mask: u32,
    seen: Vec<bool>,
    pages: u32,
    now: u64,
    ios: u64,
    next_io: u64,
}

impl PsiRealizer {
    /// A realizer at the Ψ values `psis` [interruptions], strictly increasing, each <= [`PSI_MAX`].
    pub fn new(psis: &[u32], model: PsiModel) -> Result<Self, TraceError> {
        model.validate()?;
        if psis.is_empty() || psis.len() > LANES_MAX {
            return Err(TraceError::invalid(format!(
                "psi: {} values; expected 1 ..= {LANES_MAX}",
                psis.len()
            )));
        }
        for (i, w) in psis.windows(2).enumerate() {
            if w[1] <= w[0] {
                return Err(TraceError::invalid(format!(
                    "psi[{}]: {} after {}; expected strictly increasing values",
                    i + 1,
                    w[1],
                    w[0]
                )));
            }
        }
        let top = *psis.last().unwrap_or(&0);
        if top > PSI_MAX {
            return Err(TraceError::invalid(format!(
                "psi: {top}; expected at most {PSI_MAX} interruptions"
            )));
        }
        let ring_len = (top + 2).next_power_of_two();
        let lanes = psis
            .iter()
            .map(|&psi| Lane {
                psi,
                k: top + 1,
                res: 0,
                area: 0,
                t_last: 0,
                faults: 0,
            })
            .collect();
        Ok(PsiRealizer {
            model,
            lanes,
            last: Vec::new(),
            ring: vec![0; ring_len as usize * psis.len()],
            mask: ring_len - 1,
            seen: Vec::new(),
            pages: 0,
            now: 0,
            ios: 0,
            next_io: model.refs_per_io,
        })
    }

    fn grow(&mut self, p: usize) {
        let n = (p + 1).max(self.seen.len() * 2);
        self.seen.resize(n, false);
        self.last.resize(n * self.lanes.len(), 0);
    }

    /// An interruption of `lane` at time `now` [references]: close the interval, expire the
    /// oldest bucket.
    #[inline]
    fn interrupt(lane: &mut Lane, ring: &mut [u32], mask: u32, now: u64) {
        lane.area += u128::from(lane.res) * u128::from(now - lane.t_last);
        lane.t_last = now;
        let slot = ((lane.k - lane.psi) & mask) as usize;
        lane.res -= u64::from(ring[slot]);
        ring[slot] = 0;
        lane.k += 1;
    }

    /// The first reference of a segment to page `p` at time `self.now`, in every lane.
    #[inline]
    fn reference(&mut self, p: usize) {
        let nl = self.lanes.len();
        let rl = self.mask as usize + 1;
        let mask = self.mask;
        let now = self.now;
        let block = &mut self.last[p * nl..(p + 1) * nl];
        for ((lane, last), ring) in self
            .lanes
            .iter_mut()
            .zip(block.iter_mut())
            .zip(self.ring.chunks_exact_mut(rl))
        {
            let gap = lane.k - *last;
            if gap > lane.psi {
                Self::interrupt(lane, ring, mask, now);
                lane.faults += 1;
                lane.res += 1;
                *last = lane.k;
                ring[(lane.k & mask) as usize] += 1;
            } else if gap > 0 {
                ring[(*last & mask) as usize] -= 1;
                ring[(lane.k & mask) as usize] += 1;
                *last = lane.k;
            } else {
                // No interruption since the page's last reference in this lane, hence none in
                // the lanes of larger Ψ (their interruptions are a subset): nothing to do.
                break;
            }
        }
    }

    fn io(&mut self) {
        let rl = self.mask as usize + 1;
        for (lane, ring) in self.lanes.iter_mut().zip(self.ring.chunks_exact_mut(rl)) {
            Self::interrupt(lane, ring, self.mask, self.now);
        }
        self.ios += 1;
        self.next_io += self.model.refs_per_io;
    }

    /// Feeds runs.
    pub fn push_runs(&mut self, runs: &[Run]) -> Result<(), TraceError> {
        // Counts are u32: each run and each I/O advances a lane's count by at most one.
        let refs: u64 = runs.iter().map(|r| u64::from(r.count)).sum();
        let ios = match self.model.refs_per_io {
            0 => 0,
            k => refs / k + 1,
        };
        let top = self.lanes.iter().map(|l| l.k).max().unwrap_or(0);
        if u64::from(top) + runs.len() as u64 + ios >= u64::from(u32::MAX) {
            return Err(TraceError::invalid(format!(
                "reference {}: more than {} interruptions; expected fewer (split the string)",
                self.now,
                u32::MAX - PSI_MAX - 2
            )));
        }
        let every = self.model.refs_per_io;
        for r in runs {
            let p = r.page as usize;
            if p >= self.seen.len() {
                self.grow(p);
            }
            if !self.seen[p] {
                self.seen[p] = true;
                self.pages += 1;
            }
            let mut left = u64::from(r.count);
            while left > 0 {
                if every > 0 && self.now == self.next_io {
                    self.io();
                }
                let seg = if every > 0 {
                    left.min(self.next_io - self.now)
                } else {
                    left
                };
                self.reference(p);
                self.now += seg;
                left -= seg;
            }
        }
        Ok(())
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
            self.push_runs(&batch)?;
        }
    }

    /// The characteristics; an I/O due after the last reference is not counted (the program
    /// has ended).
    pub fn finish(&self) -> Result<PsiCurve, TraceError> {
        if self.now == 0 {
            return Err(TraceError::invalid(
                "reference string: empty; expected at least one reference",
            ));
        }
        let points: Vec<PsiPoint> = self
            .lanes
            .iter()
            .map(|l| {
                let area = l.area + u128::from(l.res) * u128::from(self.now - l.t_last);
                PsiPoint::new(l.psi, self.now, l.faults, self.ios, area, &self.model)
            })
            .collect();
        let brk = fit_break(&points);
        Ok(PsiCurve {
            model: self.model,
            pages: self.pages,
            points,
            psi_c: brk.map(|b| b.psi_c),
            beta: brk.map(|b| b.beta),
            slope_below: brk.map(|b| b.slope_below),
        })
    }
}

/// The program characteristics of `runs` at the Ψ values `psis` [interruptions] (strictly
/// increasing), in one pass.
///
/// ```
/// use pagelab_trace::curve::{psi_curve, PsiModel};
/// use pagelab_trace::VecSource;
/// let s = VecSource::from_pages(&[0, 1, 2, 0, 3, 1]);
/// let c = psi_curve(s.runs(), &[0, 1, 2], PsiModel::default()).unwrap();
/// let faults: Vec<u64> = c.points.iter().map(|p| p.faults).collect();
/// assert_eq!(faults, [6, 6, 4]);
/// assert_eq!(c.points[2].a, 17.0 / 6.0);
/// ```
pub fn psi_curve(runs: &[Run], psis: &[u32], model: PsiModel) -> Result<PsiCurve, TraceError> {
    let mut r = PsiRealizer::new(psis, model)?;
    r.push_runs(runs)?;
    r.finish()
}

/// One Ψ-realization simulated directly, reference by reference, with its trace.
#[derive(Clone, Debug, PartialEq)]
pub struct PsiRealization {
    /// The statistics.
    pub point: PsiPoint,
    /// Index of each reference that raised a page exception [references from 0].
    pub fault_at: Vec<u64>,
    /// The resident set just after each reference, pages in increasing order [pages].
    pub resident: Vec<Vec<u32>>,
}

/// The Ψ-realization of `runs` at one Ψ by direct simulation: the resident set is kept
/// explicitly and scanned at every interruption. O(n x resident) time and memory: for small
/// strings and for checking [`psi_curve`].
pub fn realize(runs: &[Run], psi: u32, model: PsiModel) -> Result<PsiRealization, TraceError> {
    model.validate()?;
    let mut resident: std::collections::BTreeMap<u32, u64> = Default::default();
    let (mut k, mut i, mut ios, mut area) = (0u64, 0u64, 0u64, 0u128);
    let mut fault_at = Vec::new();
    let mut sets = Vec::new();
    let survives = |k: u64, last: u64| k - last <= u64::from(psi);
    for r in runs {
        for _ in 0..r.count {
            if model.refs_per_io > 0 && i > 0 && i % model.refs_per_io == 0 {
                k += 1;
                ios += 1;
                resident.retain(|_, last| survives(k, *last));
            }
            if let Some(last) = resident.get_mut(&r.page) {
                *last = k;
            } else {
                k += 1;
                fault_at.push(i);
                resident.retain(|_, last| survives(k, *last));
                resident.insert(r.page, k);
            }
            area += resident.len() as u128;
            sets.push(resident.keys().copied().collect());
            i += 1;
        }
    }
    if i == 0 {
        return Err(TraceError::invalid(
            "reference string: empty; expected at least one reference",
        ));
    }
    Ok(PsiRealization {
        point: PsiPoint::new(psi, i, fault_at.len() as u64, ios, area, &model),
        fault_at,
        resident: sets,
    })
}

/// The two-segment fit of ln A(Ψ) against ln Ψ.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Break {
    /// The knot Ψ_c [interruptions].
    pub psi_c: f64,
    /// Slope past the knot, β [1].
    pub beta: f64,
    /// Slope up to the knot [1].
    pub slope_below: f64,
    /// Residual sum of squares of ln A [1].
    pub sse: f64,
}

/// Ψ_c and β from a curve's points: the continuous two-segment least-squares fit of ln A
/// against ln Ψ (points with Ψ >= 1 and A > 0), the knot at one of those points with at least
/// one on each side; the smallest residual wins, ties to the smaller Ψ. `None` with fewer than
/// four usable points. Bard 1975 section 7 names the break but not how to find it.
pub fn fit_break(points: &[PsiPoint]) -> Option<Break> {
    let xy: Vec<(f64, f64, u32)> = points
        .iter()
        .filter(|p| p.psi >= 1 && p.a > 0.0)
        .map(|p| (f64::from(p.psi).ln(), p.a.ln(), p.psi))
        .collect();
    if xy.len() < 4 {
        return None;
    }
    let mut best: Option<Break> = None;
    for &(xc, _, knot) in &xy[1..xy.len() - 1] {
        // Normal equations for y = c0 + c1 min(x - xc, 0) + c2 max(x - xc, 0).
        let mut m = [[0.0f64; 4]; 3];
        for &(x, y, _) in &xy {
            let row = [1.0, (x - xc).min(0.0), (x - xc).max(0.0)];
            for a in 0..3 {
                for b in 0..3 {
                    m[a][b] += row[a] * row[b];
                }
                m[a][3] += row[a] * y;
            }
        }
        let Some(c) = solve3(m) else { continue };
        let sse: f64 = xy
            .iter()
            .map(|&(x, y, _)| {
                let e = y - (c[0] + c[1] * (x - xc).min(0.0) + c[2] * (x - xc).max(0.0));
                e * e
            })
            .sum();
        if best.is_none_or(|b| sse < b.sse) {
            best = Some(Break {
                psi_c: f64::from(knot),
                beta: c[2],
                slope_below: c[1],
                sse,
            });
        }
    }
    best
}

/// Gaussian elimination with partial pivoting on an augmented 3 x 4 matrix.
fn solve3(mut m: [[f64; 4]; 3]) -> Option<[f64; 3]> {
    for col in 0..3 {
        let piv = (col..3).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[piv][col].abs() < 1e-12 {
            return None;
        }
        m.swap(col, piv);
        let pivot = m[col];
        for (r, row) in m.iter_mut().enumerate() {
            if r != col {
                let q = row[col] / pivot[col];
                for (x, p) in row.iter_mut().zip(pivot).skip(col) {
                    *x -= q * p;
                }
            }
        }
    }
    Some([m[0][3] / m[0][0], m[1][3] / m[1][1], m[2][3] / m[2][2]])
}

/// Where Ψ* fell in the range the characteristics cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PsiStarBound {
    /// Eq. 1 holds at Ψ*.
    Solved,
    /// Even the smallest common Ψ overcommits the frames; Ψ* is that Ψ.
    BelowRange,
    /// Even the largest common Ψ leaves frames over; Ψ* is that Ψ.
    AboveRange,
}

/// One program's characteristics at Ψ* (linear between the Ψ of its curve).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgramPrediction {
    /// A_i(Ψ*): mean resident set [pages].
    pub a: f64,
    /// R_i(Ψ*): page exceptions per CPU second [1/s].
    pub r: f64,
    /// t_i(Ψ*): mean execution interval [s of CPU].
    pub t: f64,
    /// f_i(Ψ*): fraction of intervals ending in a page exception [1].
    pub f: f64,
}

/// The predicted behaviour of a set of programs run together under round robin.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// Ψ*, the common page survival index (eq. 1) [interruptions].
    pub psi_star: f64,
    /// Whether eq. 1 was solved or Ψ* was held at an end of the range.
    pub bound: PsiStarBound,
    /// System paging rate P(Ψ*) = sum f_i / sum t_i (eq. 2) [exceptions per CPU second].
    pub paging_rate: f64,
    /// Each program at Ψ*, in the order given.
    pub per_program: Vec<ProgramPrediction>,
}

fn interpolate(c: &PsiCurve, x: f64) -> ProgramPrediction {
    let pts = &c.points;
    let hi = pts
        .partition_point(|p| f64::from(p.psi) < x)
        .min(pts.len() - 1);
    let at = |p: &PsiPoint| ProgramPrediction {
        a: p.a,
        r: p.r,
        t: p.t,
        f: p.f,
    };
    if hi == 0 || f64::from(pts[hi].psi) == x {
        return at(&pts[hi]);
    }
    let (p0, p1) = (&pts[hi - 1], &pts[hi]);
    let w = (x - f64::from(p0.psi)) / f64::from(p1.psi - p0.psi);
    let lerp = |a: f64, b: f64| a + w * (b - a);
    ProgramPrediction {
        a: lerp(p0.a, p1.a),
        r: lerp(p0.r, p1.r),
        t: lerp(p0.t, p1.t),
        f: lerp(p0.f, p1.f),
    }
}

/// Each characteristic has points, at strictly increasing Ψ, with finite values >= 0.
fn check_characteristics(characteristics: &[PsiCurve]) -> Result<(), TraceError> {
    if characteristics.is_empty() {
        return Err(TraceError::invalid(
            "characteristics: none; expected at least one program",
        ));
    }
    for (i, c) in characteristics.iter().enumerate() {
        if c.points.is_empty() {
            return Err(TraceError::invalid(format!(
                "characteristics[{i}].points: empty; expected at least one point"
            )));
        }
        for (j, w) in c.points.windows(2).enumerate() {
            if w[1].psi <= w[0].psi {
                return Err(TraceError::invalid(format!(
                    "characteristics[{i}].points[{}].psi: {} after {}; expected strictly increasing",
                    j + 1,
                    w[1].psi,
                    w[0].psi
                )));
            }
        }
        if let Some((j, _)) = c.points.iter().enumerate().find(|(_, p)| {
            ![p.a, p.r, p.t, p.f]
                .iter()
                .all(|v| v.is_finite() && *v >= 0.0)
        }) {
            return Err(TraceError::invalid(format!(
                "characteristics[{i}].points[{j}]: a, r, t, f; expected finite values >= 0"
            )));
        }
    }
    Ok(())
}

/// Predicts Ψ* and the system paging rate of `characteristics` run together under round robin
/// in `frames` page frames (Bard 1975 section 4, eqs. 1-3). Between the Ψ of a curve the
/// characteristics are linear; eq. 1 is solved at its first crossing over the Ψ common to all
/// curves, and Ψ* is held at an end of that range when no crossing lies inside it.
pub fn predict(characteristics: &[PsiCurve], frames: u32) -> Result<Prediction, TraceError> {
    check_characteristics(characteristics)?;
    let lo = characteristics.iter().map(|c| c.points[0].psi).max();
    let hi = characteristics
        .iter()
        .map(|c| c.points[c.points.len() - 1].psi)
        .min();
    let (lo, hi) = (lo.unwrap_or(0), hi.unwrap_or(0));
    if lo > hi {
        return Err(TraceError::invalid(format!(
            "characteristics: Ψ ranges do not overlap (common range {lo} ..= {hi}); expected a common Ψ"
        )));
    }
    let mut grid: Vec<u32> = characteristics
        .iter()
        .flat_map(|c| c.points.iter().map(|p| p.psi))
        .filter(|&p| (lo..=hi).contains(&p))
        .collect();
    grid.sort_unstable();
    grid.dedup();
    let n = f64::from(frames);
    let sum_a = |x: f64| -> f64 { characteristics.iter().map(|c| interpolate(c, x).a).sum() };
    let sums: Vec<f64> = grid.iter().map(|&g| sum_a(f64::from(g))).collect();
    let (psi_star, bound) = if sums[0] > n {
        (f64::from(grid[0]), PsiStarBound::BelowRange)
    } else if sums[0] == n {
        (f64::from(grid[0]), PsiStarBound::Solved)
    } else {
        match (1..grid.len()).find(|&k| sums[k] >= n) {
            Some(k) => {
                let (x0, x1) = (f64::from(grid[k - 1]), f64::from(grid[k]));
                let w = (n - sums[k - 1]) / (sums[k] - sums[k - 1]);
                (x0 + w * (x1 - x0), PsiStarBound::Solved)
            }
            None => (f64::from(hi), PsiStarBound::AboveRange),
        }
    };
    let per_program: Vec<ProgramPrediction> = characteristics
        .iter()
        .map(|c| interpolate(c, psi_star))
        .collect();
    let sf: f64 = per_program.iter().map(|p| p.f).sum();
    let st: f64 = per_program.iter().map(|p| p.t).sum();
    let paging_rate = if st > 0.0 { sf / st } else { 0.0 };
    Ok(Prediction {
        psi_star,
        bound,
        paging_rate,
        per_program,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::VecSource;

    #[test]
    fn io_splits_a_run_and_psi_zero_refaults() {
        // Page 0 three times, an I/O after the second reference: at Ψ = 0 the I/O replaces
        // page 0 and the third reference faults again.
        let runs = [Run::new(0, 3, crate::AccessKind::Load)];
        let m = PsiModel {
            refs_per_io: 2,
            ..PsiModel::default()
        };
        let c = psi_curve(&runs, &[0, 1], m).unwrap();
        assert_eq!((c.points[0].faults, c.points[0].ios), (2, 1));
        assert_eq!(c.points[1].faults, 1);
        assert_eq!(c.points[0].a, 1.0);
        let d = realize(&runs, 0, m).unwrap();
        assert_eq!(d.point, c.points[0]);
    }

    #[test]
    fn bad_arguments_are_errors() {
        let s = VecSource::from_pages(&[1]);
        let m = PsiModel::default();
        assert!(psi_curve(s.runs(), &[], m).is_err());
        assert!(psi_curve(s.runs(), &[2, 1], m).is_err());
        assert!(psi_curve(s.runs(), &[PSI_MAX + 1], m).is_err());
        assert!(psi_curve(&[], &[1], m).is_err());
        let bad = PsiModel {
            reference_time: 0.0,
            ..m
        };
        let e = psi_curve(s.runs(), &[1], bad).unwrap_err().to_string();
        assert!(e.starts_with("reference_time"), "{e}");
        assert!(predict(&[], 10).is_err());
    }

    #[test]
    fn solve3_solves() {
        let m = [
            [2.0, 1.0, 0.0, 3.0],
            [1.0, 3.0, 1.0, 5.0],
            [0.0, 1.0, 4.0, 5.0],
        ];
        let x = solve3(m).unwrap();
        for (v, e) in x.iter().zip([1.0, 1.0, 1.0]) {
            assert!((v - e).abs() < 1e-12);
        }
    }
}
