//! How much of a program's storage outlives its time out of the set (reading
//! `twin-drop-survival`).
//!
//! A dropped user's reference bits are reset (`reset_reference_at_drop`; TETZ, bard §2), so
//! the scan takes each of its pages when the hand next passes it, at a uniformly random point
//! of a cycle of C seconds. A page out for an exponential time of mean τ survives with
//!
//! ```text
//!   g(τ/C) = 1 − (τ/C) (1 − e^{−C/τ})        (E[max(0, 1 − T/C)], T exponential)
//! ```
//!
//! The twin knows the thinking users' share s_think (the frames the active stays leave, over
//! the idle users' pages); the cycle is the one at which a think of mean Z leaves that share,
//! g(Z/C) = s_think. A drop inside a transaction, out for τ (the write where the user is
//! dropped at one, and the wait to be readmitted), then keeps s_drop = max(s_think, g(τ/C)).

use crate::lifetime::{Lifetime, Survival};
use crate::secant;
use pagelab_sys::demands::ServiceDemands;
use std::cell::Cell;

/// g(x): the share of a dropped user's pages the scan has not reached after an exponential
/// time out of mean x cycles.
pub fn unreached(x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    if !x.is_finite() {
        return 0.0;
    }
    1.0 + x * (-1.0 / x).exp_m1()
}

/// The mean time out x [cycles] at which [`unreached`] is `s`, for 0 < s < 1: on ln x, where
/// g falls from 1 to 0 as x grows, by a bracketing secant (the Illinois rule).
pub fn cycles_for(s: f64) -> f64 {
    // s − g(e^y) rises with y.
    let f = |y: f64| s - unreached(y.exp());
    let (lo, hi) = (-30.0f64, 30.0f64);
    let (lo, hi) = secant::bracket(f, (lo, f(lo)), (hi, f(hi)), |lo, hi| hi - lo <= 1e-13, 200);
    // An end met exactly is the root.
    if f(lo) == 0.0 {
        lo.exp()
    } else {
        (0.5 * (lo + hi)).exp()
    }
}

/// The share of a program's pages that outlives a drop of mean `tau` [s] inside its
/// transaction, when a think of mean `z` [s] leaves the share `think`.
pub fn drop_share(think: f64, z: f64, tau: f64) -> f64 {
    if think >= 1.0 || tau <= 0.0 {
        return 1.0;
    }
    if think <= 0.0 || z <= 0.0 {
        return think.max(0.0);
    }
    kept(think, cycles_for(think), tau, z)
}

/// The share outliving a drop of `tau` [s] when a think of mean `z` [s] lasts `x` cycles and
/// keeps `think`: the cycle is z / x, so the drop lasts τ x / z cycles.
fn kept(think: f64, x: f64, tau: f64, z: f64) -> f64 {
    unreached(tau * x / z).max(think)
}

/// What the twin needs to know of each class's drops inside its transactions.
#[derive(Clone, Debug)]
pub struct DropOuts {
    /// The thinking users' mean think [s].
    z: f64,
    /// Per class: the share of its drops at a terminal write, that write's mean length [s],
    /// and its drops per transaction.
    classes: Vec<(f64, f64, f64)>,
    /// The last share asked for and its cycles (every class asks with the same share).
    memo: Cell<(f64, f64)>,
}

impl DropOuts {
    /// The drops of `d`'s classes, counted by their lifetime passes `life`.
    pub fn new(d: &ServiceDemands, life: &[Lifetime]) -> DropOuts {
        let thinking = d.classes.iter().filter(|c| c.think_s > 0.0);
        let users: f64 = thinking.clone().map(|c| f64::from(c.users)).sum();
        let z = thinking
            .map(|c| f64::from(c.users) * c.think_s)
            .sum::<f64>()
            / users.max(1.0);
        let classes = d
            .classes
            .iter()
            .zip(life)
            .map(|(c, l)| {
                let writes: f64 = c
                    .commands
                    .iter()
                    .map(|k| k.probability * f64::from(k.console_writes))
                    .sum();
                let time: f64 = c
                    .commands
                    .iter()
                    .map(|k| k.probability * f64::from(k.console_writes) * k.console_write_s)
                    .sum();
                let all = l.drops[0] + l.drops[1];
                let share = if all > 0.0 { l.drops[0] / all } else { 0.0 };
                (share, if writes > 0.0 { time / writes } else { 0.0 }, all)
            })
            .collect();
        DropOuts {
            z,
            classes,
            memo: Cell::new((f64::NAN, 0.0)),
        }
    }

    /// The thinking users' mean think [s].
    pub fn think_s(&self) -> f64 {
        self.z
    }

    /// Whether any class is dropped inside its transactions.
    pub fn any(&self) -> bool {
        self.classes.iter().any(|c| c.2 > 0.0)
    }

    /// Admissions per second when the classes complete `x` transactions per second: one per
    /// transaction and one per drop inside it.
    pub fn admissions(&self, x: &[f64]) -> f64 {
        x.iter()
            .zip(&self.classes)
            .map(|(x, c)| x * (1.0 + c.2))
            .sum()
    }

    /// Class `c`'s survival when a think leaves the share `think` and a readmission takes
    /// `wait` [s].
    pub fn survival(&self, c: usize, think: f64, wait: f64) -> Survival {
        let (share, write_s, all) = self.classes[c];
        if all <= 0.0 || think <= 0.0 || think >= 1.0 || self.z <= 0.0 {
            return Survival::uniform(think);
        }
        let (s, x) = self.memo.get();
        let x = if s == think {
            x
        } else {
            let x = cycles_for(think);
            self.memo.set((think, x));
            x
        };
        let drop = kept(think, x, share * write_s + wait, self.z);
        Survival { think, drop }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreached_has_its_limits_and_its_closed_form() {
        assert_eq!(unreached(0.0), 1.0);
        assert_eq!(unreached(f64::INFINITY), 0.0);
        // One cycle on average: 1 − (1 − 1/e) = 1/e.
        assert!((unreached(1.0) - (-1.0f64).exp()).abs() < 1e-12);
        // Long times out: about 1 / (2x).
        assert!((unreached(1e4) * 2e4 - 1.0).abs() < 1e-3);
        // Short ones: about 1 − x.
        assert!((unreached(1e-3) - (1.0 - 1e-3)).abs() < 1e-9);
    }

    #[test]
    fn the_cycle_is_found_from_a_share() {
        for s in [1e-6, 0.01, 0.2, 0.5, 0.9, 0.999, 1.0 - 1e-9] {
            let x = cycles_for(s);
            assert!((unreached(x) - s).abs() < 1e-12, "{s} {x}");
        }
    }

    #[test]
    fn a_short_drop_keeps_more_than_a_think() {
        // A 10 s think keeps 10 %: the cycle is about 2 s, and a 0.2 s drop keeps about 90 %.
        let s = drop_share(0.1, 10.0, 0.2);
        let c = 10.0 / cycles_for(0.1);
        assert!((c - 2.0).abs() < 0.3, "{c}");
        assert!((s - unreached(0.2 / c)).abs() < 1e-12 && s > 0.85, "{s}");
        // As long as the think: the same share. Nothing kept: nothing kept.
        assert!((drop_share(0.1, 10.0, 10.0) - 0.1).abs() < 1e-9);
        assert_eq!(drop_share(0.0, 10.0, 0.2), 0.0);
        assert_eq!(drop_share(1.0, 10.0, 5.0), 1.0);
    }
}
