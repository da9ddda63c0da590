//! E1's priority orders admissions, and an admitted E2 stay keeps its storage to its slice's end
//! (reading `twin-e2-holds-its-slice`); it enters only when its projection fits (reading
//! `twin-e2-head-must-fit`).
//!
//! In the simulator a user leaves the set only at its transaction's end, a terminal write or its
//! slice's end (`pagelab-sys` `system.rs`, `slice_expired`; `system/scheduling.rs`,
//! `queue_drop`), and admissions are made at those departures and at arrivals to the eligible
//! list (`system/scheduling.rs`, `admit`), E1 before E2 (`system/vmsp_dispatch.rs`,
//! `admission_order`). An E2 stay therefore enters when a departure finds the E1 list empty
//! and its projection fits beside the set (`load_control/cp67_scheduler.rs`, `admit_count`,
//! stopping at the first misfit; f, [`super::fit`]), and holds its pages for its whole stay.
//! With q₁ the E1 candidates waiting, taken as geometric, a departure finds none with
//! probability 1/(1 + q₁), so
//!
//! ```text
//!   E2 stays leaving = E2 stays entering:  s₂ Σ n₂c/τ₂c = f s₁ Σ n₁c/τ₁c / (1 + q₁)
//!   every E1 candidate in (s₁ = 1), or storage full:  s₁ D₁ + s₂ D₂ = room,  s₂ ≤ 1
//! ```
//!
//! n the candidates of each kind, τ their stays' processor time (the clock: time inside follows
//! processor time), D their projections' sum, s the share of them in the set, q₁ = (1 − s₁) n₁.
//! Nothing in it is a rate, so no level depends on another's solve.

use super::fit::{Head, HeadFit};
use crate::secant::root;

/// The candidates of one kind (E1 or E2) inside a level.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Candidates {
    /// Users [count].
    pub users: f64,
    /// The sum of their projections [frames].
    pub want: f64,
    /// Σ n_c / τ_c: their stays' departures per unit of processor time, all in the set [1/s].
    pub leave: f64,
}

/// The shares (s₁, s₂) of the E1 and E2 candidates in the set when the storage test holds
/// `room` frames, an E2 stay entering only when its class's head fits (`heads`, reading
/// `twin-e2-head-must-fit`, [`super::fit`]).
pub(super) fn shares(e1: &Candidates, e2: &Candidates, heads: &[Head], room: f64) -> (f64, f64) {
    let (d1, d2) = (e1.want, e2.want);
    if d1 + d2 <= room {
        return (1.0, 1.0);
    }
    if d2 <= 0.0 || e2.leave <= 0.0 {
        return ((room / d1).min(1.0), 1.0);
    }
    if d1 <= 0.0 || e1.leave <= 0.0 || e1.users <= 0.0 {
        return (1.0, (room / d2).min(1.0));
    }
    let fit = HeadFit {
        heads,
        e1_users: e1.users,
        e1_frames: d1 / e1.users,
        e2_want: d2,
        room,
    };
    // E2 entries less departures: f s₁ L₁ / (1 + q₁) − s₂ L₂, q₁ = (1 − s₁) n₁.
    let gap = |s1: f64, s2: f64| {
        fit.chance(s1, s2) * s1 * e1.leave / (1.0 + (1.0 - s1) * e1.users) - s2 * e2.leave
    };
    // Every E1 candidate in, storage not full: the E2 share where the gap closes.
    if d1 <= room {
        let top = ((room - d1) / d2).min(1.0);
        if gap(1.0, top) <= 0.0 {
            return (1.0, root(|s2| -gap(1.0, s2), 0.0, top));
        }
    }
    // Storage full: s₂ = (room − s₁ D₁) / D₂, and the gap rises with s₁.
    let s2_of = |s1: f64| ((room - s1 * d1) / d2).clamp(0.0, 1.0);
    let (lo, hi) = (((room - d2) / d1).max(0.0), (room / d1).min(1.0));
    if gap(lo, 1.0) >= 0.0 {
        // Every E2 candidate is in: the E1 ones share what is left.
        return (lo, 1.0);
    }
    let s1 = root(|s1| gap(s1, s2_of(s1)), lo, hi);
    (s1, s2_of(s1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(users: f64, want: f64, stay: f64) -> Candidates {
        Candidates {
            users,
            want,
            leave: users / stay,
        }
    }

    fn head(frames: f64) -> [Head; 1] {
        [Head {
            weight: 1.0,
            frames,
        }]
    }

    #[test]
    fn a_rare_opening_is_held_for_a_whole_e2_stay() {
        // 40 E1 candidates of 10 frames, stays of 0.1 s; 2 E2 of 50 frames, stays of 1 s;
        // 100 frames; a head of no pages always fits (f = 1). Storage full, s₂ = 1 − 4 s₁, and
        // 2 s₂ (1 + 40 (1 − s₁)) = 400 s₁: 320 s₁² − 808 s₁ + 82 = 0.
        let (e1, e2) = (kind(40.0, 400.0, 0.1), kind(2.0, 100.0, 1.0));
        let (s1, s2) = shares(&e1, &e2, &head(0.0), 100.0);
        let root = (808.0 - (808.0_f64 * 808.0 - 4.0 * 320.0 * 82.0).sqrt()) / 640.0;
        assert!((s1 - root).abs() < 1e-12, "{s1}");
        assert!((s2 - (1.0 - 4.0 * root)).abs() < 1e-12, "{s2}");
        assert!(
            (s1 - 0.105_93).abs() < 1e-5 && (s2 - 0.576_28).abs() < 1e-5,
            "{s1} {s2}"
        );
    }

    #[test]
    fn a_large_head_enters_less_often() {
        // As above with 50-page heads: they fit only where the E1 stays in the set fall 5 below
        // their mean, so fewer E2 stays are in, and the balance holds with f < 1.
        let (e1, e2) = (kind(40.0, 400.0, 0.1), kind(2.0, 100.0, 1.0));
        let heads = head(50.0);
        let (s1, s2) = shares(&e1, &e2, &heads, 100.0);
        assert!(s2 < 0.3 && s1 > 0.17, "{s1} {s2}");
        assert!((s1 * 400.0 + s2 * 100.0 - 100.0).abs() < 1e-9);
        let fit = HeadFit {
            heads: &heads,
            e1_users: 40.0,
            e1_frames: 10.0,
            e2_want: 100.0,
            room: 100.0,
        };
        let entries = fit.chance(s1, s2) * s1 * e1.leave / (1.0 + (1.0 - s1) * 40.0);
        assert!((entries - s2 * e2.leave).abs() < 1e-9, "{entries}");
    }

    #[test]
    fn every_e1_candidate_in_and_a_large_head_waiting_for_room() {
        // 2 E1 of 10 frames, stays of 0.1 s; 2 E2 of 60 frames, stays of 1 s; 100 frames: E1
        // fits whole, and E2 stays enter while N₁ ≤ (100 − 120 s₂ − 60)/10, storage not full.
        let (e1, e2) = (kind(2.0, 20.0, 0.1), kind(2.0, 120.0, 1.0));
        let heads = head(60.0);
        let (s1, s2) = shares(&e1, &e2, &heads, 100.0);
        assert_eq!(s1, 1.0);
        assert!(s2 > 0.0 && 20.0 + 120.0 * s2 < 100.0, "{s2}");
        let fit = HeadFit {
            heads: &heads,
            e1_users: 2.0,
            e1_frames: 10.0,
            e2_want: 120.0,
            room: 100.0,
        };
        assert!((fit.chance(1.0, s2) * e1.leave - s2 * e2.leave).abs() < 1e-9);
    }

    #[test]
    fn held_e2_stays_can_take_all_they_want() {
        // 10 E1 of 10 frames, stays of 0.1 s; 2 E2 of 25, stays of 1 s; 100 frames: the
        // balance would put more than all the E2 candidates in, so all are, and E1 gets the rest.
        let heads = head(0.0);
        let (s1, s2) = shares(
            &kind(10.0, 100.0, 0.1),
            &kind(2.0, 50.0, 1.0),
            &heads,
            100.0,
        );
        assert_eq!((s1, s2), (0.5, 1.0));
    }

    #[test]
    fn all_fit_or_one_kind_alone() {
        let e1 = kind(5.0, 50.0, 0.1);
        assert_eq!(shares(&e1, &kind(1.0, 50.0, 1.0), &[], 100.0), (1.0, 1.0));
        assert_eq!(shares(&e1, &Candidates::default(), &[], 25.0), (0.5, 1.0));
        assert_eq!(shares(&Candidates::default(), &e1, &[], 25.0), (1.0, 0.5));
    }
}
