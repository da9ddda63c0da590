//! Seeded random streams. One seed in the configuration; every component asks for its own
//! named substream, so adding a component never perturbs the draws of another, and the same
//! seed gives the same bits on any machine (ChaCha8 is value-stable across platforms).

use rand::{Rng as _, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The random generator every component uses.
pub type Rng = ChaCha8Rng;

/// Splits one seed into named, independent substreams.
#[derive(Clone, Debug)]
pub struct RngStreams {
    seed: u64,
}

impl RngStreams {
    /// Streams derived from `seed`.
    pub fn new(seed: u64) -> Self {
        RngStreams { seed }
    }

    /// The master seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The substream called `name`, with `index` distinguishing instances (user 7's think time).
    pub fn stream(&self, name: &str, index: u64) -> Rng {
        // FNV-1a over the name: stable across Rust versions, unlike `DefaultHasher`.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ h.rotate_left(17));
        rng.set_stream(index);
        rng
    }
}

/// An exponential variate with the given mean (inverse transform on an open interval).
pub fn exponential(rng: &mut Rng, mean: f64) -> f64 {
    let u: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
    -mean * u.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let s = RngStreams::new(42);
        let a: Vec<u32> = (0..4).map(|_| s.stream("think", 1).gen()).collect();
        let mut r1 = s.stream("think", 1);
        let mut r2 = s.stream("think", 2);
        let x: u32 = r1.gen();
        let y: u32 = r2.gen();
        assert_ne!(x, y);
        assert_eq!(a[0], s.stream("think", 1).gen::<u32>());
    }

    #[test]
    fn exponential_mean_is_close() {
        let mut r = RngStreams::new(1).stream("e", 0);
        let n = 200_000;
        let m: f64 = (0..n).map(|_| exponential(&mut r, 15.0)).sum::<f64>() / n as f64;
        assert!((m - 15.0).abs() < 0.2, "mean {m}");
    }
}
