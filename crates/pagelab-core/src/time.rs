//! Simulated time. Wall time of the simulated machine is [`Tick`], integer nanoseconds; a
//! process's own time is [`VTime`], counted in references. The two never mix (libCacheSim's
//! vtime/rtime distinction made a type).

use serde::{Deserialize, Serialize};
use std::ops::{Add, AddAssign, Sub};

/// Simulated wall time [ns]. No floating-point clock anywhere in pagelab.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Tick(pub u64);

impl Tick {
    /// Time zero.
    pub const ZERO: Tick = Tick(0);
    /// The end of time: an event never due.
    pub const NEVER: Tick = Tick(u64::MAX);

    /// `ns` nanoseconds.
    pub const fn from_ns(ns: u64) -> Tick {
        Tick(ns)
    }
    /// `us` microseconds.
    pub const fn from_us(us: u64) -> Tick {
        Tick(us * 1_000)
    }
    /// `ms` milliseconds.
    pub const fn from_ms(ms: u64) -> Tick {
        Tick(ms * 1_000_000)
    }
    /// Whole seconds.
    pub const fn from_secs(s: u64) -> Tick {
        Tick(s * 1_000_000_000)
    }
    /// Seconds given as a float, rounded to the nearest nanosecond (configuration boundary only).
    pub fn from_secs_f64(s: f64) -> Tick {
        Tick((s * 1e9).round().max(0.0) as u64)
    }
    /// This time in seconds (for reporting only).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// Nanoseconds.
    pub const fn as_ns(self) -> u64 {
        self.0
    }
    /// `self - earlier`, or zero if `earlier` is later.
    pub fn saturating_sub(self, earlier: Tick) -> Tick {
        Tick(self.0.saturating_sub(earlier.0))
    }
}

impl Add for Tick {
    type Output = Tick;
    fn add(self, rhs: Tick) -> Tick {
        Tick(self.0.saturating_add(rhs.0))
    }
}

impl AddAssign for Tick {
    fn add_assign(&mut self, rhs: Tick) {
        self.0 = self.0.saturating_add(rhs.0);
    }
}

impl Sub for Tick {
    type Output = Tick;
    fn sub(self, rhs: Tick) -> Tick {
        debug_assert!(
            self.0 >= rhs.0,
            "time runs backwards: {} - {}",
            self.0,
            rhs.0
        );
        Tick(self.0 - rhs.0)
    }
}

/// Virtual time of one process or trace [references].
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct VTime(pub u64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_are_exact() {
        assert_eq!(Tick::from_ms(3).as_ns(), 3_000_000);
        assert_eq!(Tick::from_secs_f64(0.21), Tick::from_ms(210));
        assert_eq!(Tick::from_secs(2) - Tick::from_ms(500), Tick::from_ms(1500));
        assert_eq!(Tick::NEVER + Tick::from_secs(1), Tick::NEVER);
    }
}
