//! Bard's page steal ratio (bard 1975 §6, key variable 5): the "fraction of pages read which
//! replaced pages belonging to active users".
//!
//! ```text
//!   SELECT takes frame f from page p of user u ──► flag[f] = (u in queue at that moment)
//!   a page read lands in f                      ──► stolen read iff flag[f]; flag[f] = false
//!   f mapped without a read (zero fill, swap-in) ──► flag[f] = false
//!   steal ratio = stolen reads / page reads      (≤ 1: each stolen read is a page read)
//! ```
//!
//! A frame taken from an active user may wait on the free list before a page read uses it; the
//! read is the one that "replaced" the active user's page. Frames freed otherwise (a dormant
//! user's page, a trimmed or swapped-out page, a frame never used) carry no flag, and a frame
//! used once is cleared, so no read is counted twice. Frames taken by SELECT but then used for
//! a zero fill are steals (the `steals` counter) without being stolen reads: Bard's ratio counts
//! page reads only. Activity is judged at the replacement, when the page is lost.

/// Per frame: did its last page belong to a user in queue when SELECT took it?
#[derive(Clone, Debug)]
pub struct StealBooks {
    from_active: Vec<bool>,
}

impl StealBooks {
    /// Books for `frames` frames, none flagged.
    pub fn new(frames: usize) -> StealBooks {
        StealBooks {
            from_active: vec![false; frames],
        }
    }

    /// SELECT took frame `f`; `active`: its page's owner was in queue.
    #[inline]
    pub fn replaced(&mut self, f: u32, active: bool) {
        self.from_active[f as usize] = active;
    }

    /// A page read lands in frame `f`: whether it replaced an active user's page (bard §6).
    #[inline]
    pub fn read_into(&mut self, f: u32) -> bool {
        std::mem::take(&mut self.from_active[f as usize])
    }

    /// Frame `f` was mapped without a page read (zero fill, swap-in): it replaces nothing now.
    #[inline]
    pub fn reused(&mut self, f: u32) {
        self.from_active[f as usize] = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn hand_worked_interval() {
        // Frames 0..4. SELECT takes frame 0 from an active user, 1 from a dormant one, 2 from an
        // active one; reads land in 0, 1 and 3 (a never-used frame); frame 2 is zero-filled.
        let mut b = StealBooks::new(4);
        b.replaced(0, true);
        b.replaced(1, false);
        b.replaced(2, true);
        let reads = [b.read_into(0), b.read_into(1), b.read_into(3)];
        b.reused(2);
        // Three page reads, one replaced an active user's page: ratio 1/3 (steals: 2).
        assert_eq!(reads, [true, false, false]);
        // A second read into frame 0 without a new replacement is not stolen again.
        assert!(!b.read_into(0));
        assert!(!b.read_into(2));
    }

    #[derive(Clone, Debug)]
    enum Op {
        Replace(u32, bool),
        Read(u32),
        Reuse(u32),
    }

    fn op(frames: u32) -> impl Strategy<Value = Op> {
        prop_oneof![
            (0..frames, any::<bool>()).prop_map(|(f, a)| Op::Replace(f, a)),
            (0..frames).prop_map(Op::Read),
            (0..frames).prop_map(Op::Reuse),
        ]
    }

    proptest! {
        /// Stolen reads never exceed page reads, nor active replacements, in any stretch.
        #[test]
        fn steal_ratio_at_most_one(ops in proptest::collection::vec(op(8), 0..400),
                                   cut in 0usize..400) {
            let mut b = StealBooks::new(8);
            let (mut reads, mut stolen, mut active) = (0u32, 0u32, 0u32);
            for (i, o) in ops.iter().enumerate() {
                if i == cut {
                    // An interval boundary: counts restart, flags carry over.
                    prop_assert!(stolen <= reads);
                    (reads, stolen, active) = (0, 0, 0);
                }
                match *o {
                    Op::Replace(f, a) => {
                        b.replaced(f, a);
                        active += u32::from(a);
                    }
                    Op::Read(f) => {
                        reads += 1;
                        stolen += u32::from(b.read_into(f));
                    }
                    Op::Reuse(f) => b.reused(f),
                }
            }
            prop_assert!(stolen <= reads);
            if cut == 0 || cut >= ops.len() {
                // From a clean start stolen reads are also bounded by active replacements.
                prop_assert!(stolen <= active);
            }
        }
    }
}
