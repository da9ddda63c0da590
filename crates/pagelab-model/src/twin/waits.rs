//! The wait to be readmitted after a drop, kept per level of the memory level's populations
//! (readings `twin-drop-survival` and `twin-eligible-priority`).

use std::collections::HashMap;

/// Each level's wait [s], and the one of the level being solved.
#[derive(Default)]
pub(super) struct Waits {
    at: HashMap<Vec<i64>, f64>,
    now: f64,
}

impl Waits {
    /// The populations `pop` to a hundredth of a user: the level's key.
    fn key(pop: &[f64]) -> Vec<i64> {
        pop.iter().map(|p| (p * 100.0).round() as i64).collect()
    }

    /// Starts the solve of level `pop` from its own last wait (none before its first).
    pub(super) fn enter(&mut self, pop: &[f64]) {
        self.now = self.at.get(&Self::key(pop)).copied().unwrap_or(0.0);
    }

    /// The wait of the level being solved [s].
    pub(super) fn now(&self) -> f64 {
        self.now
    }

    /// Moves level `pop`'s wait halfway to `wait` [s], the answer of its latest solve.
    pub(super) fn update(&mut self, pop: &[f64], wait: f64) {
        let w = 0.5 * (self.now + wait);
        self.at.insert(Self::key(pop), w);
        self.now = w;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_level_keeps_its_own_wait() {
        let mut w = Waits::default();
        w.enter(&[4.0, 1.0]);
        w.update(&[4.0, 1.0], 0.4);
        w.enter(&[14.0, 1.0]);
        assert_eq!(w.now(), 0.0);
        w.update(&[14.0, 1.0], 2.8);
        w.enter(&[4.001, 1.0]);
        assert_eq!(w.now(), 0.2);
        w.update(&[4.0, 1.0], 0.4);
        assert_eq!(w.now(), 0.30000000000000004);
        w.enter(&[14.0, 1.0]);
        assert_eq!(w.now(), 1.4);
    }
}
