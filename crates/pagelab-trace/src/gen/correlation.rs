//! Problem T2: data correlation of ship tracks by maximum likelihood.
//!
//! Brawn & Gustavson 1968, "Problem T2 ... Data correlation": the program reconstructs "the most
//! probable tracks of several ships participating in a joint exercise, given a large input data
//! set consisting of reported relative and absolute position measurements". The likelihood is
//! Taylor expanded into simultaneous equations, solved with T1's inversion routine, and the
//! process repeated, one pass over the data set per iteration, until it converges; a last pass
//! per ship computes the reconstructed track. The case measured had six ships, 26 equations and
//! 240 reports; its data base took 4 pages in T2.1X\* and 13 pages of fixed-dimension arrays in
//! T2.1X.
//!
//! **Our reading** (the paper gives no equations). Each ship s moves on a straight course at
//! constant speed, `x_s(t) = x0_s + vx_s·t`, `y_s(t) = y0_s + vy_s·t` [nmi, h, kn]; the radars
//! share a range bias b_ρ [nmi] and a bearing bias b_θ [rad]. That is 4·6 + 2 = 26 unknowns, the
//! paper's 26 equations. A report is either an *absolute fix* (ship s reports its own position,
//! two observations x, y) or a *relative* sighting (ship s reports range and true bearing of ship
//! o: `ρ = |p_o − p_s| + b_ρ`, `θ = atan2(x_o − x_s, y_o − y_s) + b_θ`). With Gaussian errors
//! the maximum-likelihood estimate minimises Σ (r/σ)²; Gauss–Newton (the Taylor expansion) solves
//! at each iteration
//!
//! ```text
//!   (Σ w·g·gᵀ) δ = Σ w·g·r,   w = 1/σ²,  g = ∂prediction/∂parameters,  r = observed − predicted
//! ```
//!
//! inverting the 26 × 26 normal matrix with [`super::matrix::Minv`], and stops when
//! max |δ| ≤ `tolerance`. Each report is a 16-word record (the tape record of the conventional
//! code), a mixture of fixed- and floating-point fields:
//!
//! ```text
//!   0 SERIAL  1 KIND  2 SHIP  3 OTHER  4 DAY  5 HOUR  6 MINUTE      (fixed point)
//!   7 SECOND  8 OBS1  9 OBS2  10 SD1  11 SD2  12 PRED1 13 PRED2 14 RES1 15 RES2  (floating)
//! ```
//!
//! * **T2.1X** stores field f of report r in its own fixed-dimension array, `FIELD_f(r)`, each
//!   declared `fixed_dim` long: a pass over the reports strides across 16 arrays.
//! * **T2.1X\*** stores report r's fields in `DATA(16·r + f)`, one compact array.
//!
//! The 16 fields and the dimension 800 are chosen so that the paper's page counts come out:
//! 16 × 240 = 3,840 words (4 pages) compact, and 16 × 800 = 12,800 words (13 pages) in fixed
//! arrays. The conventional program had 17 subroutines; ours has the eleven the computation
//! needs, so its code is smaller than the original's.
//!
//! The generated exercise: ships start within ±10 nmi of the origin at 10–20 kn on random
//! courses; report times are uniform over `duration_hours`, in time order; a third of the
//! reports are fixes (σ = 0.5 nmi), the rest sightings (σ_ρ = 0.2 nmi, σ_θ = 1°); true biases
//! are 0.3 nmi and 0.5°. The initial approximations given to the program are the true tracks
//! perturbed by up to ±2 nmi and ±2 kn, with zero biases.

use super::matrix::Minv;
use super::memory::{Array1, Mat, Stmt, TracedMemory};
use super::ResultCheck;
use crate::TraceError;
use std::f64::consts::PI;

mod exercise;
pub(crate) use exercise::{generate_exercise, Exercise};

/// Which of the two versions of T2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CorrelationVersion {
    /// T2.1X: one fixed-dimension array per record field.
    FieldArrays,
    /// T2.1X*: each report's fields adjacent in one array.
    RecordArray,
}

/// Size parameters of T2.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CorrelationParams {
    /// Ships in the exercise [ships] -- parameter. Source: B&G 1968, Problem T2 (six).
    pub ships: u64,
    /// Reports in the data set [reports] -- parameter. Source: B&G 1968, Problem T2 (240).
    pub reports: u64,
    /// Declared length of each of T2.1X's field arrays [words] -- parameter. Chosen so that the
    /// 16 arrays take the 13 pages B&G 1968 report for T2.1X.
    pub fixed_dim: u64,
    /// Length of the exercise [h] -- parameter (not in the paper).
    pub duration_hours: f64,
    /// Convergence test: stop when max |δ| ≤ this [nmi, kn or rad] -- parameter.
    pub tolerance: f64,
    /// Most Gauss–Newton iterations before giving up [iterations] -- parameter.
    pub max_iterations: u64,
    /// Start the data base on a page boundary -- parameter. B&G 1968, Problem T2, count the
    /// data base as whole pages (4 and 13); we read that as page-aligned storage.
    pub align_data_base: bool,
    /// Unexecuted words after each statement of the program's own routines [words] --
    /// parameter, fitted (docs/m44-programs.md): the original's 17 subroutines "of reasonable
    /// length" (B&G 1968, Problem T2) span more pages than our statements, and B&G's Figures 6-7
    /// have T2.1X paging badly under FIFO at 32K where MIN still copes.
    pub code_gap_words: u64,
}

impl Default for CorrelationParams {
    fn default() -> Self {
        CorrelationParams {
            ships: 6,
            reports: 240,
            fixed_dim: 800,
            duration_hours: 6.0,
            tolerance: 1e-6,
            max_iterations: 20,
            align_data_base: true,
            code_gap_words: 900,
        }
    }
}

/// Words per report record.
pub const RECORD_WORDS: u64 = 16;
/// Fields read from the input tape (the rest are computed).
const INPUT_FIELDS: u64 = 12;

const KIND: u64 = 1;
const SHIP: u64 = 2;
const OTHER: u64 = 3;
const DAY: u64 = 4;
const HOUR: u64 = 5;
const MINUTE: u64 = 6;
const SECOND: u64 = 7;
const OBS1: u64 = 8;
const OBS2: u64 = 9;
const SD1: u64 = 10;
const SD2: u64 = 11;
const PRED1: u64 = 12;
const PRED2: u64 = 13;
const RES1: u64 = 14;
const RES2: u64 = 15;

const FIELD_NAMES: [&str; 16] = [
    "SERIAL", "KIND", "SHIP", "OTHER", "DAY", "HOUR", "MINUTE", "SECOND", "OBS1", "OBS2", "SD1",
    "SD2", "PRED1", "PRED2", "RES1", "RES2",
];

/// Report kinds (field KIND).
const FIX: i64 = 1;
const SIGHTING: i64 = 2;

/// Error model and truth of the generated exercise. Source: our choice, documented above.
const FIX_SD: f64 = 0.5;
const RANGE_SD: f64 = 0.2;
const BEARING_SD: f64 = PI / 180.0;
const TRUE_RANGE_BIAS: f64 = 0.3;
const TRUE_BEARING_BIAS: f64 = 0.5 * PI / 180.0;

impl CorrelationParams {
    pub(crate) fn validate(&self, version: CorrelationVersion) -> Result<(), TraceError> {
        if self.ships < 2 {
            return Err(TraceError::invalid(format!(
                "correlation.ships: expected at least 2 ships, got {}",
                self.ships
            )));
        }
        if self.reports == 0 {
            return Err(TraceError::invalid(
                "correlation.reports: expected at least 1 report",
            ));
        }
        if version == CorrelationVersion::FieldArrays && self.fixed_dim < self.reports {
            return Err(TraceError::invalid(format!(
                "correlation.fixed_dim: expected at least correlation.reports = {}, got {}",
                self.reports, self.fixed_dim
            )));
        }
        if !(self.duration_hours > 0.0 && self.duration_hours < 24.0 * 365.0) {
            return Err(TraceError::invalid(format!(
                "correlation.duration_hours: expected a positive duration under a year, got {}",
                self.duration_hours
            )));
        }
        if self.tolerance.is_nan() || self.tolerance <= 0.0 || self.max_iterations == 0 {
            return Err(TraceError::invalid(
                "correlation.tolerance / max_iterations: expected positive values",
            ));
        }
        Ok(())
    }

    fn n_params(&self) -> u64 {
        4 * self.ships + 2
    }
}

fn wrap(a: f64) -> f64 {
    let mut a = a % (2.0 * PI);
    if a > PI {
        a -= 2.0 * PI;
    } else if a <= -PI {
        a += 2.0 * PI;
    }
    a
}

/// Position of ship `s` at time `t` under parameter vector `p`.
fn position(p: &[f64], s: usize, t: f64) -> (f64, f64) {
    (p[4 * s] + p[4 * s + 2] * t, p[4 * s + 1] + p[4 * s + 3] * t)
}

/// Where the data base lives.
#[derive(Clone, Debug)]
enum DataBase {
    /// One array per field (T2.1X).
    Fields([u64; 16]),
    /// One array of records (T2.1X*).
    Records(u64),
}

impl DataBase {
    #[inline]
    fn at(&self, r: u64, f: u64) -> u64 {
        match self {
            DataBase::Fields(b) => b[f as usize] + r,
            DataBase::Records(b) => b + RECORD_WORDS * r + f,
        }
    }
}

struct Code {
    read_head: Stmt,
    read_item: Stmt,
    iter_head: Stmt,
    zero: Stmt,
    time: Stmt,
    pred_fix: Stmt,
    pred_sight: Stmt,
    sqrt: Stmt,
    atan2: Stmt,
    residual: Stmt,
    partial: Stmt,
    acc_rhs: Stmt,
    acc_pair: Stmt,
    call: Stmt,
    solve: Stmt,
    update: Stmt,
    track_test: Stmt,
    track_point: Stmt,
    write_item: Stmt,
}

struct Vars {
    ships: u64,
    reports: u64,
    t: u64,
    dmax: u64,
    p: Array1,
    rhs: Array1,
    delta: Array1,
    g: Array1,
    ix: Array1,
    trec: Array1,
    l: Array1,
    m: Array1,
    norm: Mat,
}

/// Outcome of a correlation run.
#[derive(Clone, Debug)]
pub struct Solution {
    /// Estimated parameters: x0, y0, vx, vy per ship, then range and bearing bias
    /// [nmi, nmi, kn, kn, ..., nmi, rad].
    pub params: Vec<f64>,
    /// Gauss–Newton iterations made [iterations].
    pub iterations: u64,
    /// Largest correction of the last iteration [nmi, kn or rad].
    pub last_step: f64,
    /// The output tape: per ship, per report involving it, (t, x, y, res1, res2)
    /// [h, nmi, nmi, nmi, nmi or rad].
    pub track: Vec<f64>,
    /// Σ (residual/σ)² per observation at the solution (≈ 1 for a good fit).
    pub chi2_per_observation: f64,
    /// Largest distance of a track point from the true position [nmi].
    pub track_error: f64,
}

/// Runs one version of T2 on the generated exercise.
pub(crate) fn run_program(
    mem: &mut TracedMemory,
    version: CorrelationVersion,
    c: &CorrelationParams,
    buffer_words: u64,
    ex: &Exercise,
) -> Result<(Solution, ResultCheck), TraceError> {
    c.validate(version)?;
    let np = c.n_params();
    let (code, v, minv) = place_code(mem, c, np)?;
    let mut tape = super::matrix::place_io(mem, buffer_words, ex.tape.clone())?;
    let db = place_data_base(mem, version, c)?;

    // Input: header, initial approximations, then the reports.
    mem.exec(code.read_head);
    tape.read_into(mem, v.ships);
    tape.read_into(mem, v.reports);
    let ships = mem.load_i(v.ships) as u64;
    let nrep = mem.load_i(v.reports) as u64;
    for q in 0..np {
        mem.exec(code.read_item);
        tape.read_into(mem, v.p.at(q));
    }
    for r in 0..nrep {
        for f in 0..INPUT_FIELDS {
            mem.exec(code.read_item);
            tape.read_into(mem, db.at(r, f));
        }
    }

    let (iterations, last_step) = iterate(mem, &code, &v, &db, &minv, c, np, nrep)?;

    // Residuals and χ² at the accepted solution (no accumulation), then one pass per ship.
    let mut chi = 0.0;
    for r in 0..nrep {
        chi += observe(mem, &code, &v, &db, r, np, false);
    }
    let err = write_tracks(mem, &code, &v, &db, &mut tape, ex, ships, nrep);
    tape.flush(mem);

    let params: Vec<f64> = (0..np).map(|q| mem.load_f(v.p.at(q))).collect();
    let track: Vec<f64> = tape.output().iter().map(|w| f64::from_bits(*w)).collect();
    let mut check = ResultCheck::new(
        "largest correction of the last iteration [nmi, kn, rad]",
        last_step,
        c.tolerance,
    );
    check.detail = format!(
        "{iterations} iterations; χ²/observation {:.3}; largest track error against the truth \
         {err:.3} nmi",
        chi / (2 * nrep) as f64
    );
    let chi2_per_observation = chi / (2 * nrep) as f64;
    Ok((
        Solution {
            params,
            iterations,
            last_step,
            track,
            chi2_per_observation,
            track_error: err,
        },
        check,
    ))
}

/// Places the main program's variables and work arrays (`np` parameters), after its code.
fn place_vars(mem: &mut TracedMemory, np: u64) -> Result<Vars, TraceError> {
    Ok(Vars {
        ships: mem.scalar("NSHIP")?,
        reports: mem.scalar("NREP")?,
        t: mem.scalar("T")?,
        dmax: mem.scalar("DMAX")?,
        p: mem.array1("P", np)?,
        rhs: mem.array1("B", np)?,
        delta: mem.array1("DELTA", np)?,
        g: mem.array1("G", 10)?,
        ix: mem.array1("IX", 10)?,
        trec: mem.array1("TREC", 5)?,
        l: mem.array1("L", np)?,
        m: mem.array1("M", np)?,
        norm: mem.mat("ANORM", np, np)?,
    })
}

/// Places the program's code and work storage: main program, subroutines, MINV and the
/// mathematical library, each statement followed by `code_gap_words` unexecuted words.
fn place_code(
    mem: &mut TracedMemory,
    c: &CorrelationParams,
    np: u64,
) -> Result<(Code, Vars, Minv), TraceError> {
    mem.set_code_gap(c.code_gap_words);
    mem.begin_segment("main program");
    let main = [
        mem.stmt(5)?,
        mem.stmt(4)?,
        mem.stmt(10)?,
        mem.stmt(4)?,
        mem.stmt(8)?,
        mem.stmt(4)?,
    ];
    let v = place_vars(mem, np)?;
    // Fields are evaluated in order, so each subroutine's statements follow its segment mark.
    let mut code = Code {
        read_head: main[0],
        read_item: main[1],
        iter_head: main[2],
        zero: main[3],
        call: main[4],
        write_item: main[5],
        time: {
            mem.begin_segment("subroutine TIMCON");
            mem.stmt(16)?
        },
        pred_fix: {
            mem.begin_segment("subroutine PREDCT");
            mem.stmt(12)?
        },
        pred_sight: mem.stmt(26)?,
        residual: mem.stmt(10)?,
        partial: {
            mem.begin_segment("subroutine PARTL");
            mem.stmt(7)?
        },
        acc_rhs: {
            mem.begin_segment("subroutine ACCUM");
            mem.stmt(9)?
        },
        acc_pair: mem.stmt(10)?,
        solve: {
            mem.begin_segment("subroutine SOLVE");
            mem.stmt(8)?
        },
        update: {
            mem.begin_segment("subroutine UPDATE");
            mem.stmt(11)?
        },
        track_test: {
            mem.begin_segment("subroutine TRACK");
            mem.stmt(7)?
        },
        track_point: mem.stmt(18)?,
        sqrt: Stmt { addr: 0, words: 0 },
        atan2: Stmt { addr: 0, words: 0 },
    };
    let minv = Minv::place(mem)?;
    mem.begin_segment("mathematical library (SQRT, ATAN2)");
    // Executed instructions of one call, not the routines' full length; the library follows
    // MINV, so these two are placed after it.
    code.sqrt = mem.stmt(24)?;
    code.atan2 = mem.stmt(40)?;
    mem.set_code_gap(0);
    Ok((code, v, minv))
}

/// Places the data base: one fixed-dimension array per field, or one array of records.
fn place_data_base(
    mem: &mut TracedMemory,
    version: CorrelationVersion,
    c: &CorrelationParams,
) -> Result<DataBase, TraceError> {
    if c.align_data_base {
        mem.align_to_page()?;
    }
    Ok(match version {
        CorrelationVersion::FieldArrays => {
            let mut b = [0u64; 16];
            for (f, name) in FIELD_NAMES.iter().enumerate() {
                mem.begin_segment(&format!("field array {name}"));
                b[f] = mem.array1(name, c.fixed_dim)?.base;
            }
            DataBase::Fields(b)
        }
        CorrelationVersion::RecordArray => {
            mem.begin_segment("data array DATA");
            DataBase::Records(mem.array1("DATA", RECORD_WORDS * c.reports)?.base)
        }
    })
}

/// Gauss–Newton iterations until the largest correction is within the tolerance: the
/// iteration count and the last correction.
#[allow(clippy::too_many_arguments)]
fn iterate(
    mem: &mut TracedMemory,
    code: &Code,
    v: &Vars,
    db: &DataBase,
    minv: &Minv,
    c: &CorrelationParams,
    np: u64,
    nrep: u64,
) -> Result<(u64, f64), TraceError> {
    let mut iterations = 0;
    let mut last_step = f64::INFINITY;
    while iterations < c.max_iterations && last_step > c.tolerance {
        iterations += 1;
        mem.exec(code.iter_head);
        for j in 0..np {
            for i in 0..np {
                mem.exec(code.zero);
                mem.store_f(v.norm.at(i, j), 0.0);
            }
            mem.exec(code.zero);
            mem.store_f(v.rhs.at(j), 0.0);
        }
        for r in 0..nrep {
            observe(mem, code, v, db, r, np, true);
        }
        mem.exec(code.call);
        if let Err(k) = minv.run(mem, v.norm, np, v.l, v.m) {
            return Err(TraceError::invalid(format!(
                "correlation input: normal equations singular at pivot step {} of iteration \
                 {iterations}",
                k + 1
            )));
        }
        // SOLVE: δ = N⁻¹ b; UPDATE: p += δ.
        for a in 0..np {
            let mut s = 0.0;
            for b in 0..np {
                mem.exec(code.solve);
                s += mem.load_f(v.norm.at(a, b)) * mem.load_f(v.rhs.at(b));
            }
            mem.store_f(v.delta.at(a), s);
        }
        mem.store_f(v.dmax, 0.0);
        for a in 0..np {
            mem.exec(code.update);
            let d = mem.load_f(v.delta.at(a));
            let x = mem.load_f(v.p.at(a));
            mem.store_f(v.p.at(a), x + d);
            let dm = mem.load_f(v.dmax);
            mem.store_f(v.dmax, dm.max(d.abs()));
        }
        last_step = mem.load_f(v.dmax);
    }

    Ok((iterations, last_step))
}

/// One pass over the reports per ship, writing (t, x, y, res1, res2) for each report that
/// involves it; returns the largest distance from the true track [nmi].
#[allow(clippy::too_many_arguments)]
fn write_tracks(
    mem: &mut TracedMemory,
    code: &Code,
    v: &Vars,
    db: &DataBase,
    tape: &mut super::tape::Tape,
    ex: &Exercise,
    ships: u64,
    nrep: u64,
) -> f64 {
    let mut err: f64 = 0.0;
    tape.rewind_for_output();
    for s in 0..ships {
        for r in 0..nrep {
            mem.exec(code.track_test);
            let a = mem.load_i(db.at(r, SHIP)) as u64;
            let b = mem.load_i(db.at(r, OTHER)) as u64;
            if a != s && b != s {
                continue;
            }
            let t = time(mem, code, v, db, r);
            mem.exec(code.track_point);
            let x = mem.load_f(v.p.at(4 * s)) + mem.load_f(v.p.at(4 * s + 2)) * t;
            let y = mem.load_f(v.p.at(4 * s + 1)) + mem.load_f(v.p.at(4 * s + 3)) * t;
            let r1 = mem.load_f(db.at(r, RES1));
            let r2 = mem.load_f(db.at(r, RES2));
            let (xt, yt) = position(&ex.truth, s as usize, t);
            err = err.max((x - xt).hypot(y - yt));
            for (q, w) in [t, x, y, r1, r2].into_iter().enumerate() {
                mem.store_f(v.trec.at(q as u64), w);
            }
            for q in 0..5 {
                mem.exec(code.write_item);
                tape.write_from(mem, v.trec.at(q));
            }
        }
    }
    err
}

/// Report time [h] from its day, hour, minute and second fields (subroutine TIMCON).
fn time(mem: &mut TracedMemory, code: &Code, v: &Vars, db: &DataBase, r: u64) -> f64 {
    mem.exec(code.time);
    let d = mem.load_i(db.at(r, DAY)) as f64;
    let h = mem.load_i(db.at(r, HOUR)) as f64;
    let m = mem.load_i(db.at(r, MINUTE)) as f64;
    let s = mem.load_f(db.at(r, SECOND));
    let t = (d - 1.0) * 24.0 + h + m / 60.0 + s / 3600.0;
    mem.store_f(v.t, t);
    t
}

/// Partials of one report's two predictions: (parameter index, ∂pred1, ∂pred2), at most 9.
type Partials = ([(u64, f64, f64); 9], usize);

/// One report: predict, store prediction and residuals, and (if `accumulate`) add its
/// contribution to the normal equations.
fn observe(
    mem: &mut TracedMemory,
    code: &Code,
    v: &Vars,
    db: &DataBase,
    r: u64,
    np: u64,
    accumulate: bool,
) -> f64 {
    let t = time(mem, code, v, db, r);
    let kind = mem.load_i(db.at(r, KIND));
    let s = mem.load_i(db.at(r, SHIP)) as u64;
    let ((p1, p2), parts) = if kind == FIX {
        predict_fix(mem, code, v, s, t)
    } else {
        predict_sighting(mem, code, v, db, r, s, np, t)
    };
    mem.exec(code.residual);
    let o1 = mem.load_f(db.at(r, OBS1));
    let o2 = mem.load_f(db.at(r, OBS2));
    let r1 = o1 - p1;
    let r2 = if kind == SIGHTING {
        wrap(o2 - p2)
    } else {
        o2 - p2
    };
    mem.store_f(db.at(r, PRED1), p1);
    mem.store_f(db.at(r, PRED2), p2);
    mem.store_f(db.at(r, RES1), r1);
    mem.store_f(db.at(r, RES2), r2);
    let sd1 = mem.load_f(db.at(r, SD1));
    let sd2 = mem.load_f(db.at(r, SD2));
    let chi = (r1 / sd1).powi(2) + (r2 / sd2).powi(2);
    if accumulate {
        let extra = (kind == SIGHTING).then_some(np - 1);
        accumulate_report(mem, code, v, &parts, extra, [(sd1, r1), (sd2, r2)]);
    }
    chi
}

/// A fix's prediction: the ship's position at `t` (PRDFIX).
fn predict_fix(
    mem: &mut TracedMemory,
    code: &Code,
    v: &Vars,
    s: u64,
    t: f64,
) -> ((f64, f64), Partials) {
    mem.exec(code.pred_fix);
    let x0 = mem.load_f(v.p.at(4 * s));
    let y0 = mem.load_f(v.p.at(4 * s + 1));
    let vx = mem.load_f(v.p.at(4 * s + 2));
    let vy = mem.load_f(v.p.at(4 * s + 3));
    let mut parts = [(0, 0.0, 0.0); 9];
    parts[..4].copy_from_slice(&[
        (4 * s, 1.0, 0.0),
        (4 * s + 1, 0.0, 1.0),
        (4 * s + 2, t, 0.0),
        (4 * s + 3, 0.0, t),
    ]);
    ((x0 + vx * t, y0 + vy * t), (parts, 4))
}

/// A sighting's prediction: range and bearing from ship `s` to the other at `t`, with the
/// range and bearing biases (PRDSGT).
#[allow(clippy::too_many_arguments)]
fn predict_sighting(
    mem: &mut TracedMemory,
    code: &Code,
    v: &Vars,
    db: &DataBase,
    r: u64,
    s: u64,
    np: u64,
    t: f64,
) -> ((f64, f64), Partials) {
    mem.exec(code.pred_sight);
    let o = mem.load_i(db.at(r, OTHER)) as u64;
    let mut q = [0.0; 8];
    for (k, w) in q.iter_mut().enumerate() {
        let ship = if k < 4 { s } else { o };
        *w = mem.load_f(v.p.at(4 * ship + (k as u64 % 4)));
    }
    let br = mem.load_f(v.p.at(np - 2));
    let bb = mem.load_f(v.p.at(np - 1));
    let dx = (q[4] + q[6] * t) - (q[0] + q[2] * t);
    let dy = (q[5] + q[7] * t) - (q[1] + q[3] * t);
    mem.exec(code.sqrt);
    let rho = dx.hypot(dy).max(1e-9);
    mem.exec(code.atan2);
    let (ex, ey) = (dx / rho, dy / rho);
    let (bx, by) = (dy / (rho * rho), -dx / (rho * rho));
    let parts = [
        (4 * s, -ex, -bx),
        (4 * s + 1, -ey, -by),
        (4 * s + 2, -ex * t, -bx * t),
        (4 * s + 3, -ey * t, -by * t),
        (4 * o, ex, bx),
        (4 * o + 1, ey, by),
        (4 * o + 2, ex * t, bx * t),
        (4 * o + 3, ey * t, by * t),
        (np - 2, 1.0, 0.0),
    ];
    ((rho + br, dx.atan2(dy) + bb), (parts, 9))
}

/// Adds one report to the normal equations: its two observations one after the other (PARTL,
/// then ACCUM), each with its (sd, residual); `extra` is a parameter with partial 1 in the
/// second observation only (a sighting's bearing bias).
fn accumulate_report(
    mem: &mut TracedMemory,
    code: &Code,
    v: &Vars,
    (parts, nparts): &Partials,
    extra: Option<u64>,
    obs: [(f64, f64); 2],
) {
    for (i, (sd, res)) in obs.into_iter().enumerate() {
        let w = 1.0 / (sd * sd);
        let mut n = 0u64;
        let mut add = |mem: &mut TracedMemory, idx: u64, gval: f64| {
            mem.exec(code.partial);
            mem.store_f(v.g.at(n), gval);
            mem.store_i(v.ix.at(n), idx as i64);
            n += 1;
        };
        for &(idx, g1, g2) in &parts[..*nparts] {
            let gv = if i == 0 { g1 } else { g2 };
            if gv != 0.0 {
                add(mem, idx, gv);
            }
        }
        if let (Some(idx), 1) = (extra, i) {
            add(mem, idx, 1.0);
        }
        for a in 0..n {
            mem.exec(code.acc_rhs);
            let ga = mem.load_f(v.g.at(a));
            let ia = mem.load_i(v.ix.at(a)) as u64;
            let b0 = mem.load_f(v.rhs.at(ia));
            mem.store_f(v.rhs.at(ia), b0 + w * ga * res);
            for b in 0..n {
                mem.exec(code.acc_pair);
                let gb = mem.load_f(v.g.at(b));
                let ib = mem.load_i(v.ix.at(b)) as u64;
                let x = mem.load_f(v.norm.at(ia, ib));
                mem.store_f(v.norm.at(ia, ib), x + w * ga * gb);
            }
        }
    }
}

#[cfg(test)]
mod tests;
