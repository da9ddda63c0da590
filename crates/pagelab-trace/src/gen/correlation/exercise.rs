//! T2's input: the generated exercise (ships, reports, initial approximations) and its truth.
//! The exercise is described in the parent module's text.

use super::{
    position, wrap, CorrelationParams, BEARING_SD, FIX, FIX_SD, RANGE_SD, SIGHTING,
    TRUE_BEARING_BIAS, TRUE_RANGE_BIAS,
};
use pagelab_core::Rng;
use rand::Rng as _;
use std::f64::consts::PI;

/// The generated exercise: the tape the program reads and the truth to judge it by.
pub(crate) struct Exercise {
    /// Tape words: ships, reports, the initial approximations, then 12 words per report.
    pub tape: Vec<u64>,
    /// True parameter vector.
    pub truth: Vec<f64>,
}

fn normal(rng: &mut Rng) -> f64 {
    // Box–Muller on an open interval.
    let u1: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
    let u2: f64 = rng.gen_range(0.0..1.0);
    (-2.0 * u1.ln()).sqrt() * (2.0 * PI * u2).cos()
}

pub(crate) fn generate_exercise(c: &CorrelationParams, rng: &mut Rng) -> Exercise {
    let np = c.n_params() as usize;
    let ships = c.ships as usize;
    let mut truth = vec![0.0; np];
    for s in 0..ships {
        let speed = rng.gen_range(10.0..20.0);
        let course = rng.gen_range(0.0..2.0 * PI);
        truth[4 * s] = rng.gen_range(-10.0..10.0);
        truth[4 * s + 1] = rng.gen_range(-10.0..10.0);
        truth[4 * s + 2] = speed * course.sin();
        truth[4 * s + 3] = speed * course.cos();
    }
    truth[np - 2] = TRUE_RANGE_BIAS;
    truth[np - 1] = TRUE_BEARING_BIAS;
    let mut times: Vec<f64> = (0..c.reports)
        .map(|_| rng.gen_range(0.0..c.duration_hours * 3600.0))
        .collect();
    times.sort_by(f64::total_cmp);

    let mut tape = vec![c.ships, c.reports];
    for (q, &v) in truth.iter().enumerate() {
        let init = if q >= np - 2 {
            0.0
        } else {
            v + rng.gen_range(-2.0..2.0)
        };
        tape.push(init.to_bits());
    }
    for (r, &secs) in times.iter().enumerate() {
        let whole = secs.floor() as u64;
        let (day, hour, minute) = (1 + whole / 86_400, whole / 3600 % 24, whole / 60 % 60);
        let second = secs - (whole - whole % 60) as f64;
        let t = secs / 3600.0;
        let s = rng.gen_range(0..ships);
        let (kind, other, o1, o2, sd1, sd2) = if rng.gen_range(0..3) == 0 {
            let (x, y) = position(&truth, s, t);
            (
                FIX,
                s,
                x + FIX_SD * normal(rng),
                y + FIX_SD * normal(rng),
                FIX_SD,
                FIX_SD,
            )
        } else {
            let o = (s + rng.gen_range(1..ships)) % ships;
            let (xs, ys) = position(&truth, s, t);
            let (xo, yo) = position(&truth, o, t);
            let (dx, dy) = (xo - xs, yo - ys);
            let rho = dx.hypot(dy) + truth[np - 2] + RANGE_SD * normal(rng);
            let theta = wrap(dx.atan2(dy) + truth[np - 1] + BEARING_SD * normal(rng));
            (SIGHTING, o, rho, theta, RANGE_SD, BEARING_SD)
        };
        tape.extend([
            r as u64 + 1,
            kind as u64,
            s as u64,
            other as u64,
            day,
            hour,
            minute,
            second.to_bits(),
            o1.to_bits(),
            o2.to_bits(),
            sd1.to_bits(),
            sd2.to_bits(),
        ]);
    }
    Exercise { tape, truth }
}
