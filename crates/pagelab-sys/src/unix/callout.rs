//! V6 time-outs: the single `tout` of the `sleep` system call, not a timer per process.
//!
//! sys2.c `sslep`: a process asking to sleep until second `d` sets `tout = d` if `tout` is
//! already past or later than `d`, then sleeps at `PSLEP` on the one channel `tout`; woken, it
//! loops until `time >= d`. clock.c wakes the channel once a second when `time == tout`.
//! Every `sleep` caller therefore wakes at the earliest deadline of any of them: those whose
//! own second has not come set `tout` again and go back to sleep, and a sleeper that was
//! swapped out must first be swapped back in to do so (Chanson §3.1 on the swapper's
//! simplicity; the appendix's swap-in of processes woken while on disk).
//!
//! Deviation: only `tout` is modelled; the `callout` table of clock.c `timeout` serves
//! device drivers (terminal delays) whose timing the terminal model draws directly.

/// The one wake-up time of all `sleep` callers (`tout`) [whole seconds since boot].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tout {
    at: u64,
}

impl Tout {
    /// `sslep`'s update before each sleep: `tout = d` if `tout <= time` or `tout > d`.
    pub fn arm(&mut self, time_s: u64, d: u64) {
        if self.at <= time_s || self.at > d {
            self.at = d;
        }
    }

    /// clock.c, once a second: whether `time == tout` (wake every sleeper on `tout`).
    pub fn due(&self, time_s: u64) -> bool {
        self.at == time_s
    }

    /// The current `tout` [s].
    pub fn at(&self) -> u64 {
        self.at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_earliest_deadline_wins_and_a_past_one_is_replaced() {
        let mut t = Tout::default();
        t.arm(10, 15);
        t.arm(10, 12);
        t.arm(10, 30);
        assert_eq!(t.at(), 12);
        assert!(t.due(12) && !t.due(11));
        // At second 12 the sleepers wake; the one due at 30 rearms it.
        t.arm(12, 30);
        assert_eq!(t.at(), 30);
        // A later sleeper with an earlier deadline pulls it in again.
        t.arm(13, 14);
        assert_eq!(t.at(), 14);
    }
}
