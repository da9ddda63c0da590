//! A bracketing secant (the Illinois rule: Dowell and Jarratt, BIT 11, 1971) for the root of an
//! increasing function: a few evaluations where halving takes sixty.

/// Narrows the bracket `lo` < `hi` of increasing `f`, with f(lo) ≤ 0 < f(hi) given as `f_lo`
/// and `f_hi`, until `close(lo, hi)`, f(lo) is 0, or `steps` evaluations; returns the last
/// bracket. The end kept twice running has its value halved, so both ends move.
pub(crate) fn bracket(
    f: impl Fn(f64) -> f64,
    (mut lo, mut f_lo): (f64, f64),
    (mut hi, mut f_hi): (f64, f64),
    close: impl Fn(f64, f64) -> bool,
    steps: usize,
) -> (f64, f64) {
    let mut side = 0i8;
    for _ in 0..steps {
        if close(lo, hi) || f_lo == 0.0 {
            break;
        }
        let x = lo - f_lo * (hi - lo) / (f_hi - f_lo);
        let x = if x > lo && x < hi { x } else { 0.5 * (lo + hi) };
        let fx = f(x);
        if fx <= 0.0 {
            (lo, f_lo) = (x, fx);
            if side == -1 {
                f_hi *= 0.5;
            }
            side = -1;
        } else {
            (hi, f_hi) = (x, fx);
            if side == 1 {
                f_lo *= 0.5;
            }
            side = 1;
        }
    }
    (lo, hi)
}
