use super::*;
use crate::mva::{terminals_and_fes, terminals_and_fes_ln};

/// Log weights of a chain with births `birth[k]` and deaths `death[k]` (k inside).
fn chain(birth: &[f64], death: &[f64]) -> Vec<f64> {
    let mut lnp = vec![0.0; birth.len()];
    for k in 1..birth.len() {
        lnp[k] = lnp[k - 1] + birth[k - 1].ln() - death[k].ln();
    }
    lnp
}

#[test]
fn a_symmetric_walk_takes_n_n_plus_1_over_2_lambda_to_climb_n_steps() {
    // Births and deaths at one rate: E[T(0 → n)] = n (n + 1) / (2 λ) (Karlin and Taylor, A
    // First Course in Stochastic Processes, 1975, ch. 4 §7: the reflecting random walk).
    let (lam, n) = (2.0, 12usize);
    let birth = vec![lam; n + 1];
    let mut death = vec![lam; n + 1];
    death[0] = 0.0;
    let lnp = chain(&birth, &death);
    let (up, down) = ln_passages(&lnp, &birth, &death, 0, n);
    let want = (n * (n + 1)) as f64 / (2.0 * lam);
    assert!(
        (up.exp() - want).abs() < 1e-9 * want,
        "{} against {want}",
        up.exp()
    );
    // Down from the reflecting top, the same walk mirrored.
    assert!((down.exp() - want).abs() < 1e-9 * want);
}

#[test]
fn one_step_up_or_down_takes_one_over_its_rate() {
    let birth = [3.0, 0.0];
    let death = [0.0, 5.0];
    let lnp = chain(&birth, &death);
    let (up, down) = ln_passages(&lnp, &birth, &death, 0, 1);
    assert!((up.exp() - 1.0 / 3.0).abs() < 1e-12);
    assert!((down.exp() - 1.0 / 5.0).abs() < 1e-12);
}

#[test]
fn the_window_share_starts_at_zero_and_tends_to_the_two_state_share() {
    let (up, down) = (100f64.ln(), 300f64.ln());
    // π = r↑ / (r↑ + r↓) = (1/100) / (1/100 + 1/300) = 0.75.
    assert!((window_share(up, down, 0.0, 1e9) - 0.75).abs() < 1e-6);
    assert!(window_share(up, down, 0.0, 1e-6) < 1e-8);
    // Early on the chain leaves at rate r↑: the mean share over [0, T] is about T / (2 τ↑).
    let short = window_share(up, down, 0.0, 1.0);
    assert!((short - 1.0 / 200.0).abs() < 1e-4, "{short}");
    // A later window sees more of the crowded state.
    assert!(window_share(up, down, 100.0, 200.0) > window_share(up, down, 0.0, 100.0));
    // Never-crossed barriers: the first state throughout.
    assert_eq!(window_share(f64::INFINITY, f64::INFINITY, 0.0, 900.0), 0.0);
}

/// A server that works well with up to 25 inside and collapses past 30.
fn collapsing(n: u32) -> Vec<f64> {
    (1..=n)
        .map(|k| match k {
            0..=10 => 3.0 * f64::from(k),
            11..=25 => 30.0,
            26..=30 => 30.0 - 5.8 * f64::from(k - 25),
            _ => 1.0,
        })
        .collect()
}

#[test]
fn a_server_without_collapse_has_one_mode_and_keeps_its_stationary_distribution() {
    let mu: Vec<f64> = (1..=40).map(|k| f64::from(k.min(4))).collect();
    let lnp = terminals_and_fes_ln(40, 10.0, &mu);
    assert_eq!(modes(&lnp), None);
    let (occ, m) = over_window(&lnp, 40, 10.0, &mu, 100.0, 900.0);
    assert!(m.is_none());
    let p = terminals_and_fes(40, 10.0, &mu);
    assert!(occ.iter().zip(&p).all(|(a, b)| (a - b).abs() < 1e-12));
}

#[test]
fn a_collapsing_server_has_two_modes_and_a_short_run_stays_uncrowded() {
    let (n, z) = (80u32, 4.0);
    let mu = collapsing(n);
    let lnp = terminals_and_fes_ln(n, z, &mu);
    let (g, s, b) = modes(&lnp).expect("two modes");
    assert!(g < s && s < b, "{g} {s} {b}");
    assert!(g <= 10 && b > 30, "{g} {b}");
    let mean = |p: &[f64]| p.iter().enumerate().map(|(k, v)| k as f64 * v).sum::<f64>();
    let stationary = terminals_and_fes(n, z, &mu);
    let (short, m) = over_window(&lnp, n, z, &mu, 0.0, 10.0);
    let m = m.expect("modes");
    assert!(m.onset_s > 0.0 && m.recovery_s > 0.0);
    let (long, _) = over_window(&lnp, n, z, &mu, 0.0, 1e12);
    assert!(mean(&short) < mean(&long));
    // Over an endless window the two-state share is the crowded side's stationary mass.
    let crowded: f64 = stationary[s + 1..].iter().sum();
    let (_, ml) = over_window(&lnp, n, z, &mu, 0.0, 1e12);
    assert!(
        (ml.unwrap().crowded_share - crowded).abs() < 0.05,
        "{crowded}"
    );
    assert!((short.iter().sum::<f64>() - 1.0).abs() < 1e-12);
}
