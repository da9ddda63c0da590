//! The terminal level over a finite run: where its chain has two modes, the share of the run
//! spent in each.
//!
//! ```text
//!   ln p(k)   uncrowded mode          barrier (saddle s)            crowded mode
//!             ╭──╮                                                 ╭──╮
//!          ──╯    ╰──────╮                                 ╭──────╯    ╰──
//!                         ╰───────────────────────────────╯
//!   k = users inside: 0 … g …………………… s ………………………………………… b … N
//! ```
//!
//! The terminals in front of a flow-equivalent server form a birth-death chain: k users
//! inside, births (N − k)/Z, deaths μ(k). Where paging makes μ(k) fall past some k the chain can
//! have two stable modes: a few users inside, each with its working set, or a crowd, each with
//! a few frames (Courtois, CACM 18(7) 1975, "Decomposability, instabilities, and saturation in
//! multiprogramming systems"). The stationary distribution weighs both, but the time to cross
//! the barrier between them grows with its height, and a run that starts empty stays in the
//! uncrowded mode until it crosses once. Reading `twin-run-horizon` (docs/readings.md):
//!
//! ```text
//!   τ↑ = Σ_{i=g}^{b−1} Σ_{j≤i} p_j / (λ_i p_i)     τ↓ = Σ_{i=g+1}^{b} Σ_{j≥i} p_j / (μ_i p_i)
//!   two states, rates r↑ = 1/τ↑, r↓ = 1/τ↓:  P_crowded(t) = π (1 − e^{−rt}),  r = r↑ + r↓,
//!   π = r↑ / r;  over the measured window [W, T]:  w = π (1 − (e^{−rW} − e^{−rT}) / (r (T − W)))
//! ```
//!
//! (τ↑ and τ↓ are the chain's exact mean first-passage times between the modes' maxima.) The
//! occupancy is then the mixture (1 − w) p|uncrowded + w p|crowded of the chain restricted to
//! each side of the barrier. A chain with one mode is returned as it is.

/// A barrier counts when its minimum lies at least this far below both modes' maxima [1]
/// (shallower dips are crossed many times in any run: the stationary answer holds there).
pub const MIN_DEPTH: f64 = 10.0;

/// The two modes of a chain and the passage times between them.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Modes {
    /// The uncrowded mode's most likely number inside [users].
    pub uncrowded: usize,
    /// The barrier's least likely number inside [users]: the uncrowded side ends here.
    pub saddle: usize,
    /// The crowded mode's most likely number inside [users].
    pub crowded: usize,
    /// Mean time from the uncrowded mode to the crowded one [s].
    pub onset_s: f64,
    /// Mean time from the crowded mode back to the uncrowded one [s].
    pub recovery_s: f64,
    /// Share of the window spent in the crowded mode [1].
    pub crowded_share: f64,
}

/// The deepest barrier of the chain with unnormalised log weights `lnp`: (uncrowded maximum,
/// saddle, crowded maximum), or `None` when no minimum lies `MIN_DEPTH` below both sides.
pub fn modes(lnp: &[f64]) -> Option<(usize, usize, usize)> {
    let n = lnp.len();
    if n < 3 {
        return None;
    }
    // The first maximum at or left of k, and at or right of k.
    let mut left = vec![0usize; n];
    for k in 1..n {
        left[k] = if lnp[k] > lnp[left[k - 1]] {
            k
        } else {
            left[k - 1]
        };
    }
    let mut right = vec![n - 1; n];
    for k in (0..n - 1).rev() {
        right[k] = if lnp[k] >= lnp[right[k + 1]] {
            k
        } else {
            right[k + 1]
        };
    }
    let mut best: Option<(f64, usize)> = None;
    for s in 1..n - 1 {
        let depth = lnp[left[s - 1]].min(lnp[right[s + 1]]) - lnp[s];
        if depth >= MIN_DEPTH.ln() && best.is_none_or(|(d, _)| depth > d) {
            best = Some((depth, s));
        }
    }
    let (_, s) = best?;
    Some((left[s], s, right[s + 1]))
}

/// ln Σ e^{x_i}.
fn ln_sum(xs: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = xs.collect();
    let top = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !top.is_finite() {
        return top;
    }
    top + v.iter().map(|x| (x - top).exp()).sum::<f64>().ln()
}

/// ln of the mean first-passage times up (g → b) and down (b → g) of the chain with births
/// `birth[k]`, deaths `death[k]` (at k inside) and log weights `lnp`.
fn ln_passages(lnp: &[f64], birth: &[f64], death: &[f64], g: usize, b: usize) -> (f64, f64) {
    let n = lnp.len();
    let mut below = vec![f64::NEG_INFINITY; n];
    let mut acc = f64::NEG_INFINITY;
    for k in 0..n {
        acc = ln_sum([acc, lnp[k]].into_iter());
        below[k] = acc;
    }
    let mut above = vec![f64::NEG_INFINITY; n];
    let mut acc = f64::NEG_INFINITY;
    for k in (0..n).rev() {
        acc = ln_sum([acc, lnp[k]].into_iter());
        above[k] = acc;
    }
    let up = ln_sum((g..b).map(|i| below[i] - birth[i].ln() - lnp[i]));
    let down = ln_sum((g + 1..=b).map(|i| above[i] - death[i].ln() - lnp[i]));
    (up, down)
}

/// Share of the window [from_s, to_s] a two-state chain started in the first state spends in
/// the second, with mean times `ln_up` (first → second) and `ln_down` (back), as logs.
pub fn window_share(ln_up: f64, ln_down: f64, from_s: f64, to_s: f64) -> f64 {
    let (ru, rd) = ((-ln_up).exp(), (-ln_down).exp());
    let r = ru + rd;
    if r.is_nan() || r <= 0.0 || r.is_infinite() {
        return if ru.is_infinite() { 1.0 } else { 0.0 };
    }
    let pi = 1.0 / (1.0 + (ln_up - ln_down).exp());
    let span = (to_s - from_s).max(f64::MIN_POSITIVE);
    // e^{−rW} − e^{−rT} = −e^{−rW} (e^{−r(T−W)} − 1), kept exact for small r.
    let gone = -(-r * from_s).exp() * (-r * span).exp_m1() / (r * span);
    (pi * (1.0 - gone)).clamp(0.0, 1.0)
}

/// The occupancy over the window [from_s, to_s] of `n` terminals thinking `z` [s] in front of
/// a server of rates `mu[k − 1]` with k inside, given the chain's log weights `lnp`; and its
/// modes when it has two.
pub fn over_window(
    lnp: &[f64],
    n: u32,
    z: f64,
    mu: &[f64],
    from_s: f64,
    to_s: f64,
) -> (Vec<f64>, Option<Modes>) {
    let normal = normalise(lnp, 0..lnp.len());
    let Some((g, s, b)) = modes(lnp) else {
        return (normal, None);
    };
    let birth: Vec<f64> = (0..lnp.len())
        .map(|k| (f64::from(n) - k as f64).max(0.0) / z)
        .collect();
    let death: Vec<f64> = (0..lnp.len())
        .map(|k| if k == 0 { 0.0 } else { mu[k - 1] })
        .collect();
    let (ln_up, ln_down) = ln_passages(lnp, &birth, &death, g, b);
    let w = window_share(ln_up, ln_down, from_s, to_s);
    let low = normalise(lnp, 0..s + 1);
    let high = normalise(lnp, s + 1..lnp.len());
    let occ = low
        .iter()
        .zip(&high)
        .map(|(l, h)| (1.0 - w) * l + w * h)
        .collect();
    let modes = Modes {
        uncrowded: g,
        saddle: s,
        crowded: b,
        onset_s: ln_up.exp(),
        recovery_s: ln_down.exp(),
        crowded_share: w,
    };
    (occ, Some(modes))
}

/// The distribution restricted to `keep`, normalised (zero elsewhere).
fn normalise(lnp: &[f64], keep: std::ops::Range<usize>) -> Vec<f64> {
    let top = lnp[keep.clone()]
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max);
    let mut p: Vec<f64> = (0..lnp.len())
        .map(|k| {
            if keep.contains(&k) {
                (lnp[k] - top).exp()
            } else {
                0.0
            }
        })
        .collect();
    let sum: f64 = p.iter().sum();
    p.iter_mut().for_each(|v| *v /= sum);
    p
}

#[cfg(test)]
mod tests;
