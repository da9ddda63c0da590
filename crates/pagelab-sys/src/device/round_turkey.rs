//! Round-turkey page-out device selection (tetzlaff, "Round-turkey prototype", "Device
//! selection").
//!
//! ```text
//!   round robin:  p1 p2 p3 p1 p2 p3 ...          one page per device in turn
//!   round turkey: p1×8 | p2×8 | p3×k (boundary) | p1×8 ...
//! ```
//!
//! VM places one page-out on one device and the next on the next device. The prototype selects
//! the same device "(up to) eight times, unless a cylinder boundary is reached": a bigger but
//! slower-moving bird. The pages given to one device in a row form a *group* that the system
//! writes with one SIO (one channel program) when the group closes; with the moving cursor the
//! group's slots are consecutive on one cylinder, so the write is one connection. Page reads
//! are not blocked (the paper: "page reads remain unblocked").
//!
//! The run length is a parameter (`paging.round_turkey_run`, default 8, tetzlaff). A group also
//! closes when the slot allocator reports that its next slot on the device lies on another
//! cylinder (the boundary test belongs to the allocator, which knows its cursor).

/// State of the round-turkey selector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundTurkey {
    /// Device the current group goes to.
    pub current: usize,
    /// Page-outs given to `current` in the open group [pages].
    pub in_group: u32,
    /// Most page-outs in a row to one device [pages] (tetzlaff: eight).
    pub max_run: u32,
}

impl RoundTurkey {
    /// A selector starting at device 0, `max_run` page-outs per device in a row.
    pub fn new(max_run: u32) -> RoundTurkey {
        RoundTurkey {
            current: 0,
            in_group: 0,
            max_run: max_run.max(1),
        }
    }

    /// The `k`-th device to try among `n` (k > 0 when the earlier choices are full).
    pub fn pick(&self, n: usize, k: usize) -> usize {
        (self.current + k) % n
    }

    /// A page-out went to device `d` of `n`; `boundary` says the device's next slot lies on
    /// another cylinder. Returns whether the group on `d` is now closed (the next page-out
    /// goes to the next device).
    pub fn used(&mut self, n: usize, d: usize, boundary: bool) -> bool {
        if d != self.current {
            // The chosen device was full: the group moves to the one that took the page.
            self.current = d;
            self.in_group = 0;
        }
        self.in_group += 1;
        if self.in_group >= self.max_run || boundary {
            self.current = (d + 1) % n;
            self.in_group = 0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_device_eight_times_then_the_next() {
        let mut rt = RoundTurkey::new(8);
        let mut seq = Vec::new();
        for _ in 0..20 {
            let d = rt.pick(3, 0);
            let closed = rt.used(3, d, false);
            seq.push((d, closed));
        }
        let devs: Vec<usize> = seq.iter().map(|x| x.0).collect();
        assert_eq!(
            devs,
            vec![0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2]
        );
        assert!(seq[7].1 && seq[15].1 && !seq[8].1);
    }

    #[test]
    fn stops_at_a_cylinder_boundary() {
        let mut rt = RoundTurkey::new(8);
        assert!(!rt.used(2, rt.pick(2, 0), false));
        assert!(!rt.used(2, rt.pick(2, 0), false));
        // Third page-out fills the cylinder: the group closes after three pages.
        assert!(rt.used(2, rt.pick(2, 0), true));
        assert_eq!(rt.pick(2, 0), 1);
        assert_eq!(rt.in_group, 0);
    }

    #[test]
    fn a_full_device_moves_the_group_on() {
        let mut rt = RoundTurkey::new(8);
        rt.used(3, 0, false);
        // Device 0 is full: the caller tried pick(3, 1) = 1, which took the page.
        assert_eq!(rt.pick(3, 1), 1);
        assert!(!rt.used(3, 1, false));
        assert_eq!((rt.current, rt.in_group), (1, 1));
    }

    #[test]
    fn run_of_one_is_round_robin() {
        let mut rt = RoundTurkey::new(1);
        let devs: Vec<usize> = (0..5)
            .map(|_| {
                let d = rt.pick(3, 0);
                rt.used(3, d, false);
                d
            })
            .collect();
        assert_eq!(devs, vec![0, 1, 2, 0, 1]);
    }
}
