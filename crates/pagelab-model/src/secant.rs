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

/// The root of the nondecreasing `g` in [lo, hi], g(lo) ≤ 0 ≤ g(hi), by [`bracket`]'s
/// regula falsi to 1e-12 of the bracket: its midpoint, or its low end where g is 0 there.
pub(crate) fn root(g: impl Fn(f64) -> f64, lo: f64, hi: f64) -> f64 {
    let (g_lo, g_hi) = (g(lo), g(hi));
    if g_lo >= 0.0 {
        return lo;
    }
    if g_hi <= 0.0 {
        return hi;
    }
    let close = |a: f64, b: f64| b - a < 1e-12 * (hi - lo);
    let (a, b) = bracket(g, (lo, g_lo), (hi, g_hi), close, 100);
    if close(a, b) {
        0.5 * (a + b)
    } else {
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_of_a_square() {
        let r = root(|x| x * x - 2.0, 0.0, 2.0);
        assert!((r - 2.0_f64.sqrt()).abs() < 1e-12);
    }
}
