//! Quantities a spec gives and the kernel consumes, typed so that they cannot be mixed up where
//! the two meet: frames with pages or bytes, milliseconds with seconds or microseconds. Each is
//! `#[serde(transparent)]`, so a spec file writes a plain number; the conversions to the
//! kernel's integer nanoseconds ([`Tick`]) round to the nearest nanosecond, once, here.

use crate::time::Tick;
use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! count {
    ($(#[$doc:meta])* $name:ident, $unit:literal) => {
        $(#[$doc])*
        #[derive(
            Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The bare number.
            pub const fn get(self) -> u32 {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{} {}", self.0, $unit)
            }
        }
    };
}

macro_rules! span {
    ($(#[$doc:meta])* $name:ident, $ns:literal, $unit:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub f64);

        impl $name {
            /// The bare number.
            pub const fn get(self) -> f64 {
                self.0
            }
            /// Rounded to whole nanoseconds (negative and NaN give 0).
            pub fn ns(self) -> u64 {
                (self.0 * $ns).round() as u64
            }
            /// As simulated time.
            pub fn tick(self) -> Tick {
                Tick::from_ns(self.ns())
            }
            /// True for a finite span ≥ 0.
            pub fn is_nonneg(self) -> bool {
                self.0.is_finite() && self.0 >= 0.0
            }
            /// True for a finite span > 0.
            pub fn is_positive(self) -> bool {
                self.0.is_finite() && self.0 > 0.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{} {}", self.0, $unit)
            }
        }
    };
}

count!(
    /// Page frames of real storage [frames].
    Frames,
    "frames"
);
count!(
    /// Pages of a virtual address space [pages].
    Pages,
    "pages"
);
count!(
    /// Bytes [bytes].
    Bytes,
    "bytes"
);
span!(
    /// A span in seconds [s].
    Secs,
    1e9,
    "s"
);
span!(
    /// A span in milliseconds [ms].
    Ms,
    1e6,
    "ms"
);
span!(
    /// A span in microseconds [µs].
    Us,
    1e3,
    "µs"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_round_to_the_nanosecond_in_their_own_unit() {
        assert_eq!(Ms(1.5).ns(), 1_500_000);
        assert_eq!(Us(2.0004).ns(), 2_000);
        assert_eq!(Secs(0.25).tick(), Tick::from_ms(250));
        assert_eq!(Secs(-1.0).ns(), 0);
        assert!(!Ms(f64::NAN).is_nonneg() && Ms(0.0).is_nonneg() && !Ms(0.0).is_positive());
    }

    #[test]
    fn a_spec_writes_plain_numbers() {
        #[derive(Serialize, Deserialize)]
        struct S {
            frames: Frames,
            slice_ms: Ms,
        }
        let s: S = toml::from_str("frames = 512\nslice_ms = 2.5").unwrap();
        assert_eq!((s.frames, s.slice_ms), (Frames(512), Ms(2.5)));
        assert_eq!(s.frames.to_string(), "512 frames");
    }
}
