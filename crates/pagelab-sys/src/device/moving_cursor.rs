//! Moving-cursor slot allocation (tetzlaff, "Round-turkey prototype", "New slot-selection
//! algorithm"), and the right-edge allocation of the negative experiment ("Importance of
//! contiguous slot allocation").
//!
//! ```text
//!   paging area  first ──────────────────────────────────────── last
//!                        reads behind ◄──  [cursor ──►]  ──► free slots ahead
//!                at either end the cursor reflects (reverses), it never wraps
//! ```
//!
//! The cursor points at a slot that is used for the next page-out if it is free; otherwise it
//! advances, in its direction of travel, to the next free slot. Allocation leaves the cursor on
//! the slot after the one taken, so successive page-outs land on consecutive slots wherever the
//! area ahead is empty: the wave of allocations sweeps the area and reads follow it. Reaching
//! either end of the paging area reverses the direction ("reflected at the end of the paging
//! area to avoid long seeks"), so the cursor never jumps across the volume.
//!
//! A *run* allocation (contiguous block paging: a whole swap set at a time, tetzlaff "Contiguous
//! page datasets") takes `n` consecutive free slots of one cylinder at or ahead of the cursor,
//! so that a swap set is one channel program with no rotational gap.
//!
//! Choices (fidelity notes §3.1 **[A]**): the cursor skips used slots one at a time rather than
//! searching for a contiguous run for single pages; full cylinders are skipped whole (the
//! per-cylinder free count says so), which changes nothing but speed.
//!
//! The right-edge allocator takes the free slot nearest the high end of the paging area: what
//! VM's zigzag does within an off-centre area, and the experiment that came out worse than the
//! base when it replaced the cursor.

use super::SlotMap;

/// A moving cursor over one device's paging area.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// Slot the cursor points at [slot number].
    pub pos: u32,
    /// Travelling towards higher slot numbers.
    pub up: bool,
}

impl Cursor {
    /// A cursor at the low end of `map`'s paging area, moving up.
    pub fn new(map: &SlotMap) -> Cursor {
        Cursor {
            pos: map.area_slots().0,
            up: true,
        }
    }

    /// One step in the direction of travel, reflecting at the ends of `[lo, hi]`.
    fn step(&mut self, lo: u32, hi: u32) {
        if self.up {
            if self.pos >= hi {
                self.up = false;
                self.pos = hi;
            } else {
                self.pos += 1;
            }
        } else if self.pos <= lo {
            self.up = true;
            self.pos = lo;
        } else {
            self.pos -= 1;
        }
    }

    /// The free slot at or ahead of the cursor, marked used; the cursor then points past it.
    /// `None` when the paging area is full.
    pub fn allocate(&mut self, map: &mut SlotMap) -> Option<u32> {
        if map.free() == 0 {
            return None;
        }
        let (lo, hi) = map.area_slots();
        let spc = map.slots_per_cyl();
        // Two sweeps reach every slot from any position and direction.
        let mut budget = 2 * u64::from(hi - lo + 1) + 2;
        while budget > 0 {
            let cyl = self.pos / spc;
            if map.free_in_cyl(cyl) == 0 {
                // Skip the rest of this full cylinder in the direction of travel.
                let (a, b) = (cyl * spc, cyl * spc + spc - 1);
                let skip = if self.up { b - self.pos } else { self.pos - a };
                budget = budget.saturating_sub(u64::from(skip) + 1);
                self.pos = if self.up { b } else { a };
                self.step(lo, hi);
                continue;
            }
            if !map.is_used(self.pos) {
                let s = self.pos;
                map.take(s);
                self.step(lo, hi);
                return Some(s);
            }
            self.step(lo, hi);
            budget -= 1;
        }
        None
    }

    /// `n` consecutive free slots of one cylinder at or ahead of the cursor, marked used; the
    /// lowest is returned and the cursor points past the run in its direction of travel.
    /// `None` when no cylinder holds such a run.
    pub fn allocate_run(&mut self, map: &mut SlotMap, n: u32) -> Option<u32> {
        let spc = map.slots_per_cyl();
        if n == 0 || n > spc || map.free() < n {
            return None;
        }
        let (lo, hi) = map.area_slots();
        let mut budget = 2 * u64::from(hi - lo + 1) + 2;
        while budget > 0 {
            budget -= 1;
            let p = self.pos;
            let cyl = p / spc;
            if map.free_in_cyl(cyl) >= n {
                // The run begins at the cursor going up, ends at it going down.
                let first = if self.up {
                    Some(p)
                } else {
                    (p + 1).checked_sub(n)
                };
                if let Some(first) = first {
                    let last = first + n - 1;
                    if first / spc == cyl
                        && last / spc == cyl
                        && first >= lo
                        && last <= hi
                        && (first..=last).all(|s| !map.is_used(s))
                    {
                        for s in first..=last {
                            map.take(s);
                        }
                        self.pos = if self.up { last } else { first };
                        self.step(lo, hi);
                        return Some(first);
                    }
                }
            }
            self.step(lo, hi);
        }
        None
    }

    /// Whether the next allocation will be on another cylinder than `slot`'s: the cursor has
    /// left it or reflected, or no free slot remains on it (round turkey's boundary test).
    pub fn leaves_cylinder(&self, map: &SlotMap, slot: u32) -> bool {
        let spc = map.slots_per_cyl();
        self.pos / spc != slot / spc || map.free_in_cyl(slot / spc) == 0
    }
}

/// Right-edge allocation: the free slot with the highest number in the paging area.
pub fn allocate_right_edge(map: &mut SlotMap) -> Option<u32> {
    if map.free() == 0 {
        return None;
    }
    let (lo, hi) = map.area_slots();
    let spc = map.slots_per_cyl();
    let mut cyl = hi / spc;
    loop {
        if map.free_in_cyl(cyl) > 0 {
            let top = (cyl * spc + spc - 1).min(hi);
            let bottom = (cyl * spc).max(lo);
            if let Some(s) = (bottom..=top).rev().find(|&s| !map.is_used(s)) {
                map.take(s);
                return Some(s);
            }
        }
        if cyl * spc <= lo {
            return None;
        }
        cyl -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::DeviceModel;
    use crate::device::Geometry;

    /// A 3350 paging area of cylinders 10..=11 (240 slots).
    fn area() -> SlotMap {
        let g = Geometry::of(DeviceModel::Ibm3350, 4096);
        SlotMap::new(&g, 10, 11)
    }

    #[test]
    fn cursor_allocates_consecutive_slots_from_the_low_end() {
        let mut m = area();
        let mut c = Cursor::new(&m);
        let got: Vec<u32> = (0..5).map(|_| c.allocate(&mut m).unwrap()).collect();
        assert_eq!(got, vec![1200, 1201, 1202, 1203, 1204]);
        assert_eq!(c.pos, 1205);
    }

    #[test]
    fn cursor_skips_used_slots_ahead() {
        let mut m = area();
        m.take(1200);
        m.take(1201);
        let mut c = Cursor::new(&m);
        assert_eq!(c.allocate(&mut m), Some(1202));
    }

    #[test]
    fn cursor_reflects_at_the_ends() {
        let mut m = area();
        let mut c = Cursor::new(&m);
        // Fill the whole area going up: the last slot taken is the top, then the cursor turns.
        for k in 0..240 {
            assert_eq!(c.allocate(&mut m), Some(1200 + k));
        }
        assert!(!c.up, "cursor reverses at the top end");
        // Free two slots near the top and two near the bottom: the cursor, now going down,
        // finds the top ones first (no wrap to the bottom).
        m.release(1435);
        m.release(1437);
        m.release(1201);
        m.release(1203);
        assert_eq!(c.allocate(&mut m), Some(1437));
        assert_eq!(c.allocate(&mut m), Some(1435));
        assert_eq!(c.allocate(&mut m), Some(1203));
        assert_eq!(c.allocate(&mut m), Some(1201));
        assert_eq!(c.allocate(&mut m), None);
        // At the bottom it turns up again.
        m.release(1210);
        assert_eq!(c.allocate(&mut m), Some(1210));
        assert!(c.up);
    }

    #[test]
    fn run_is_consecutive_within_one_cylinder() {
        let mut m = area();
        let mut c = Cursor::new(&m);
        // Leave 6 free slots at the end of cylinder 10: a run of 8 must go to cylinder 11.
        for _ in 0..114 {
            c.allocate(&mut m).unwrap();
        }
        m.release(1203);
        let first = c.allocate_run(&mut m, 8).unwrap();
        assert_eq!(first, 1320);
        assert!((1320..1328).all(|s| m.is_used(s)));
        assert!(!m.is_used(1203));
        assert_eq!(c.pos, 1328);
    }

    #[test]
    fn boundary_is_seen_when_the_cursor_leaves_a_cylinder() {
        let mut m = area();
        let mut c = Cursor::new(&m);
        for _ in 0..119 {
            let s = c.allocate(&mut m).unwrap();
            assert!(!c.leaves_cylinder(&m, s));
        }
        let s = c.allocate(&mut m).unwrap();
        assert_eq!(s, 1319);
        assert!(c.leaves_cylinder(&m, s));
    }

    #[test]
    fn right_edge_packs_the_high_end() {
        let mut m = area();
        assert_eq!(allocate_right_edge(&mut m), Some(1439));
        assert_eq!(allocate_right_edge(&mut m), Some(1438));
        m.release(1439);
        assert_eq!(allocate_right_edge(&mut m), Some(1439));
    }

    use proptest::prelude::*;

    proptest! {
        #[test]
        fn cursor_never_hands_out_a_slot_twice_and_stays_in_the_area(
            ops in proptest::collection::vec((0u8..4, any::<u16>()), 1..500)
        ) {
            let mut m = area();
            let mut c = Cursor::new(&m);
            let mut held: Vec<u32> = Vec::new();
            for (op, pick) in ops {
                match op {
                    0 | 1 => {
                        if let Some(s) = c.allocate(&mut m) {
                            prop_assert!(!held.contains(&s));
                            prop_assert!((1200..1440).contains(&s));
                            held.push(s);
                        } else {
                            prop_assert_eq!(m.free(), 0);
                        }
                    }
                    2 => {
                        if let Some(s) = c.allocate_run(&mut m, 4) {
                            for k in s..s + 4 {
                                prop_assert!(!held.contains(&k));
                                held.push(k);
                            }
                            prop_assert_eq!(s / 120, (s + 3) / 120);
                        }
                    }
                    _ => {
                        if !held.is_empty() {
                            let s = held.swap_remove(pick as usize % held.len());
                            m.release(s);
                        }
                    }
                }
                prop_assert!((1200..1440).contains(&c.pos));
                prop_assert_eq!(m.used() as usize, held.len());
            }
        }
    }
}
