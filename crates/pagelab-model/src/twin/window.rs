//! The scan's window over CP-67's stays in the set (reading `twin-global-window`).
//!
//! CP-67 replaces by a global scan of reference bits (bard §2; `pagelab-sys` `memory`): a page
//! of a user in the set is taken at the second pass of the hand after its last reference, so it
//! is kept between C and 2C, whoever owns it (C the scan's cycle [s]). A stay therefore holds
//! the pages it referenced in the last 1.5 C seconds. With a window of T references a program of
//! lifetime curve L holds the m at which T = Σ_{x<m} L(x) (the working set and LRU
//! correspondence: Denning and Schwartz 1972, ds/dT the fault rate), and a stay makes ρ(m)
//! references a second in the set, so it holds m_c(C), the root of Σ_{x<m} L(x) = 1.5 C ρ(m).
//! A dropped user's pages are taken at the hand's next pass: the idle users keep g(Z/C) of
//! theirs ([`crate::survival::unreached`]). The cycle is the one at which the stays and the idle
//! pages fill the free frames:
//!
//! ```text
//!   Σ a_c R_c(m_c(C)) + idle · g(Z/C) = free
//! ```

use crate::lifetime::{Lifetime, Survival};
use crate::secant;
use crate::survival::unreached;

/// A page of a user in the set is kept 1.5 cycles after its last reference on average.
const KEPT_CYCLES: f64 = 1.5;

/// Each class's time in the set to reach each whole frame count, and the thinking users' mean
/// think.
#[derive(Clone, Debug)]
pub(super) struct ScanWindow {
    /// Per class, at each whole m: the seconds in the set a stay takes to make Σ_{x<m} L(x)
    /// references, made nondecreasing.
    age: Vec<Vec<f64>>,
    /// The thinking users' mean think [s].
    z: f64,
}

impl ScanWindow {
    /// The window of the classes `life`, a stay of class c taking `in_set_s(c, m)` seconds in
    /// the set per transaction at m frames with nobody queued; `z` the mean think [s].
    pub(super) fn new(life: &[Lifetime], in_set_s: impl Fn(usize, f64) -> f64, z: f64) -> Self {
        let age = life
            .iter()
            .enumerate()
            .map(|(c, l)| {
                let (mut t, mut top) = (0.0, 0.0f64);
                (0..l.points.len())
                    .map(|m| {
                        // T(m) = Σ_{x<m} L(x) references; ρ(m) = references / time in the set.
                        let age = t * in_set_s(c, m as f64) / l.references.max(1.0);
                        t += l.points[m].lifetime;
                        top = top.max(age);
                        top
                    })
                    .collect()
            })
            .collect();
        ScanWindow { age, z }
    }

    /// The frames a stay of class `c` holds when it keeps the pages of its last `window_s`
    /// seconds in the set: linear between whole frames, the curve's last beyond it.
    fn frames(&self, c: usize, window_s: f64) -> f64 {
        let age = &self.age[c];
        let last = age.len() - 1;
        let i = age.partition_point(|&a| a <= window_s);
        if i > last {
            return last as f64;
        }
        if i == 0 {
            return 0.0;
        }
        let (a, b) = (age[i - 1], age[i]);
        let w = if b > a { (window_s - a) / (b - a) } else { 1.0 };
        (i - 1) as f64 + w
    }

    /// Each class's frames with `a` stays in the set, the idle users' pages `idle` and the
    /// `free` frames, and the share of the idle pages that outlives a think. Where everything
    /// fits at any cycle, the stays hold all they can use and every idle page survives.
    pub(super) fn split(
        &self,
        life: &[Lifetime],
        a: &[f64],
        idle: f64,
        free: f64,
    ) -> (Vec<f64>, f64) {
        let stays = |c_s: f64| -> (Vec<f64>, f64) {
            let m: Vec<f64> = (0..a.len())
                .map(|c| self.frames(c, KEPT_CYCLES * c_s))
                .collect();
            let held = (0..a.len())
                .map(|c| a[c] * life[c].occupancy_at(m[c], Survival::uniform(0.0)))
                .sum();
            (m, held)
        };
        let (all, held_all) = stays(f64::INFINITY);
        if held_all + idle <= free {
            return (all, 1.0);
        }
        // On ln C: what the stays and the idle pages hold rises with the cycle.
        let over = |y: f64| {
            let c_s = y.exp();
            stays(c_s).1 + idle * unreached(self.z / c_s) - free
        };
        let y = secant::root(over, -20.0, 20.0);
        let c_s = y.exp();
        (stays(c_s).0, unreached(self.z / c_s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifetime::LifetimePoint;

    /// A curve of `max` frames with lifetime `l(m)`, a stay holding m pages at m frames.
    fn curve(max: u32, l: impl Fn(u32) -> f64) -> Lifetime {
        let point = |m: u32| LifetimePoint {
            frames: m,
            faults: 0.0,
            writes: 0.0,
            lifetime: l(m),
            warm_faults: 0.0,
            warm_writes: 0.0,
            occupancy: f64::from(m),
            warm_occupancy: f64::from(m),
            estimate: None,
            warm_estimate: None,
            txn_faults: 0.0,
            txn_writes: 0.0,
            txn_occupancy: f64::from(m),
            txn_estimate: None,
        };
        Lifetime {
            class: "c".into(),
            references: 1000.0,
            working_set: f64::from(max),
            points: (0..=max).map(point).collect(),
            drops: [0.0; 2],
        }
    }

    #[test]
    fn a_window_holds_the_frames_whose_lifetimes_it_spans() {
        // L = 10 references at every m, 1000 references in 1 s: m frames take m/100 s.
        let w = ScanWindow::new(&[curve(50, |_| 10.0)], |_, _| 1.0, 10.0);
        assert!((w.frames(0, 0.2) - 20.0).abs() < 1e-12);
        assert!((w.frames(0, 0.205) - 20.5).abs() < 1e-12);
        assert_eq!(w.frames(0, 9.0), 50.0);
        assert_eq!(w.frames(0, 0.0), 0.0);
    }

    #[test]
    fn the_stays_and_the_idle_pages_fill_the_free_frames_at_the_cycle() {
        let life = [curve(100, |_| 10.0)];
        let w = ScanWindow::new(&life, |_, _| 1.0, 10.0);
        // Two stays and 60 idle pages in 100 frames: the stays hold 2 m(1.5 C).
        let (m, survive) = w.split(&life, &[2.0], 60.0, 100.0);
        let c_s = m[0] / 100.0 / KEPT_CYCLES;
        assert!((2.0 * m[0] + 60.0 * unreached(10.0 / c_s) - 100.0).abs() < 1e-6);
        assert!((survive - unreached(10.0 / c_s)).abs() < 1e-12);
        assert!(m[0] > 0.0 && m[0] < 50.0);
    }

    #[test]
    fn where_everything_fits_the_stays_hold_all_they_use() {
        let life = [curve(20, |_| 10.0)];
        let w = ScanWindow::new(&life, |_, _| 1.0, 10.0);
        let (m, survive) = w.split(&life, &[2.0], 30.0, 100.0);
        assert_eq!(m, vec![20.0]);
        assert_eq!(survive, 1.0);
        // 61 idle pages do not fit beside the stays' 40: a long cycle takes one of them, and
        // the stays, whose window is far shorter than the cycle, keep all they use.
        let (m, survive) = w.split(&life, &[2.0], 61.0, 100.0);
        assert_eq!(m, vec![20.0]);
        assert!((survive - 60.0 / 61.0).abs() < 1e-9);
    }
}
