//! E1's priority orders admissions, and an admitted E2 stay keeps its storage to its slice's end
//! (reading `twin-e2-holds-its-slice`).
//!
//! In the simulator a user leaves the set only at its transaction's end, a terminal write or its
//! slice's end (`pagelab-sys` `system.rs`, `slice_expired`; `system/scheduling.rs`,
//! `queue_drop`), and admissions are made at those departures and at arrivals to the eligible
//! list (`system/scheduling.rs`, `admit`), E1 before E2 (`system/vmsp_dispatch.rs`,
//! `admission_order`). An E2 stay therefore enters when a departure finds the E1 list empty,
//! and holds its pages for its whole stay. With the E1 candidates waiting, q₁, taken as
//! geometric, a departure finds none with probability 1/(1 + q₁), so at a full set
//!
//! ```text
//!   E2 stays leaving = E2 stays entering:  s₂ Σ n₂c/τ₂c = (s₁ Σ n₁c/τ₁c) / q₁,  q₁ = (1 − s₁) n₁
//!   storage full:                           s₁ D₁ + s₂ D₂ = room,  s₂ ≤ 1
//! ```
//!
//! n the candidates of each kind, τ their stays' processor time (the clock: time inside follows
//! processor time), D their projections' sum, s the share of them in the set. Nothing in it is
//! a rate, so no level depends on another's solve.

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
/// `room` frames.
pub(super) fn shares(e1: &Candidates, e2: &Candidates, room: f64) -> (f64, f64) {
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
    // s₂ D₂ = k s₁ / (1 − s₁); with storage full, D₁ s₁² − (D₁ + k + room) s₁ + room = 0,
    // whose smaller root lies in (0, 1) (its left side is room > 0 at 0 and −k at 1).
    let k = d2 * e1.leave / (e1.users * e2.leave);
    let b = d1 + k + room;
    let s1 = 2.0 * room / (b + (b * b - 4.0 * d1 * room).max(0.0).sqrt());
    let s2 = k * s1 / ((1.0 - s1) * d2);
    if s2 <= 1.0 {
        return (s1, s2);
    }
    // Every E2 candidate is in: the E1 ones share what is left.
    (((room - d2) / d1).clamp(0.0, 1.0), 1.0)
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

    #[test]
    fn a_rare_opening_is_held_for_a_whole_e2_stay() {
        // 40 E1 candidates of 10 frames, stays of 0.1 s; 2 E2 of 50 frames, stays of 1 s;
        // 100 frames. k = 100 × 400 / (40 × 2) = 500: 400 s² − 1000 s + 100 = 0.
        let (e1, e2) = (kind(40.0, 400.0, 0.1), kind(2.0, 100.0, 1.0));
        let (s1, s2) = shares(&e1, &e2, 100.0);
        let root = (1000.0 - (1.0e6_f64 - 160_000.0).sqrt()) / 800.0;
        assert!((s1 - root).abs() < 1e-12, "{s1}");
        assert!(
            (s1 - 0.104_356).abs() < 1e-6 && (s2 - 0.582_58).abs() < 1e-5,
            "{s2}"
        );
        // Storage is full, and the E2 stays leave as fast as departures find E1 empty.
        assert!((s1 * 400.0 + s2 * 100.0 - 100.0).abs() < 1e-9);
        let q1 = (1.0 - s1) * 40.0;
        assert!((s2 * e2.leave - s1 * e1.leave / q1).abs() < 1e-9);
    }

    #[test]
    fn held_e2_stays_can_take_all_they_want() {
        // 10 E1 of 10 frames, stays of 0.1 s; 2 E2 of 25, stays of 1 s; 100 frames: the
        // balance would put 1.53 of the E2 candidates in, so all are, and E1 gets the rest.
        let (s1, s2) = shares(&kind(10.0, 100.0, 0.1), &kind(2.0, 50.0, 1.0), 100.0);
        assert_eq!((s1, s2), (0.5, 1.0));
    }

    #[test]
    fn all_fit_or_one_kind_alone() {
        let e1 = kind(5.0, 50.0, 0.1);
        assert_eq!(shares(&e1, &kind(1.0, 50.0, 1.0), 100.0), (1.0, 1.0));
        assert_eq!(shares(&e1, &Candidates::default(), 25.0), (0.5, 1.0));
        assert_eq!(shares(&Candidates::default(), &e1, 25.0), (1.0, 0.5));
    }
}
