//! Page slots of one device: which are free, by cylinder, and the zigzag allocator's memory of
//! the last cylinder used (tetzlaff, "Background").

use super::Geometry;

/// Address of a page slot: device and slot number on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SlotAddr {
    /// Device index.
    pub dev: u16,
    /// Slot on the device (cylinder × slots per cylinder + slot in cylinder).
    pub slot: u32,
}

/// Free and used slots of one device, with the zigzag allocator's memory of the last cylinder.
#[derive(Clone, Debug)]
pub struct SlotMap {
    used: Vec<u64>,
    free_in_cyl: Vec<u32>,
    spc: u32,
    first: u32,
    last: u32,
    centre: u32,
    last_cyl: u32,
    n_used: u32,
}

impl SlotMap {
    /// Slots of `geom`, allocating only on cylinders `first..=last`.
    pub fn new(geom: &Geometry, first: u32, last: u32) -> SlotMap {
        let n = geom.slots() as usize;
        let mut free_in_cyl = vec![0; geom.cylinders as usize];
        for c in first..=last {
            free_in_cyl[c as usize] = geom.slots_per_cyl;
        }
        // The centre of the volume, clamped into the paging area ("packed at the edge nearest
        // to the center" when the area does not contain it, tetzlaff).
        let centre = (geom.cylinders / 2).clamp(first, last);
        SlotMap {
            used: vec![0; n.div_ceil(64)],
            free_in_cyl,
            spc: geom.slots_per_cyl,
            first,
            last,
            centre,
            last_cyl: centre,
            n_used: 0,
        }
    }

    /// Slots in use [slots].
    pub fn used(&self) -> u32 {
        self.n_used
    }

    /// Free slots in the paging area [slots].
    pub fn free(&self) -> u32 {
        (self.last - self.first + 1) * self.spc - self.n_used
    }

    /// Whether `slot` is in use.
    pub fn is_used(&self, slot: u32) -> bool {
        self.used[(slot / 64) as usize] >> (slot % 64) & 1 == 1
    }

    /// The lowest free slot in `lo..hi`, a 64-slot word of the bitmap at a time.
    fn first_free(&self, lo: u32, hi: u32) -> Option<u32> {
        let mut s = lo;
        while s < hi {
            let (w, bit) = ((s / 64) as usize, s % 64);
            let free = !self.used[w] >> bit; // slots s, s+1, ... of this word, lowest first
            let end = (hi - s).min(64 - bit); // slots of the range in this word
            let z = free.trailing_zeros();
            if z < end {
                return Some(s + z);
            }
            s += end;
        }
        None
    }

    /// Zigzag allocation: the last cylinder used if it has room, else the free slot nearest the
    /// centre of the volume. `None` when the paging area is full.
    pub fn allocate_zigzag(&mut self) -> Option<u32> {
        let cyl = if self.free_in_cyl[self.last_cyl as usize] > 0 {
            self.last_cyl
        } else {
            let mut found = None;
            let span = (self.last - self.first) as i64;
            for k in 0..=span {
                for c in [self.centre as i64 - k, self.centre as i64 + k] {
                    if c >= self.first as i64
                        && c <= self.last as i64
                        && self.free_in_cyl[c as usize] > 0
                    {
                        found = Some(c as u32);
                        break;
                    }
                }
                if found.is_some() {
                    break;
                }
            }
            found?
        };
        let base = cyl * self.spc;
        let s = self.first_free(base, base + self.spc)?;
        self.used[(s / 64) as usize] |= 1 << (s % 64);
        self.free_in_cyl[cyl as usize] -= 1;
        self.n_used += 1;
        self.last_cyl = cyl;
        Some(s)
    }

    /// First and last slot of the paging area [slot numbers].
    pub fn area_slots(&self) -> (u32, u32) {
        (self.first * self.spc, self.last * self.spc + self.spc - 1)
    }

    /// Slots in use on each cylinder of the paging area, from the first [slots].
    pub fn used_by_cylinder(&self) -> Vec<u32> {
        (self.first..=self.last)
            .map(|c| self.spc - self.free_in_cyl[c as usize])
            .collect()
    }

    /// First cylinder of the paging area.
    pub fn first_cylinder(&self) -> u32 {
        self.first
    }

    /// Slots per cylinder [slots].
    pub fn slots_per_cyl(&self) -> u32 {
        self.spc
    }

    /// Free slots on cylinder `cyl` (0 outside the paging area) [slots].
    pub fn free_in_cyl(&self, cyl: u32) -> u32 {
        self.free_in_cyl.get(cyl as usize).copied().unwrap_or(0)
    }

    /// Marks the free slot `slot` used (for allocators that choose it themselves).
    pub fn take(&mut self, slot: u32) {
        debug_assert!(!self.is_used(slot), "slot {slot} taken twice");
        self.used[(slot / 64) as usize] |= 1 << (slot % 64);
        self.free_in_cyl[(slot / self.spc) as usize] -= 1;
        self.n_used += 1;
        self.last_cyl = slot / self.spc;
    }

    /// Returns `slot` to the free pool.
    pub fn release(&mut self, slot: u32) {
        debug_assert!(self.is_used(slot), "slot {slot} released twice");
        self.used[(slot / 64) as usize] &= !(1 << (slot % 64));
        self.free_in_cyl[(slot / self.spc) as usize] += 1;
        self.n_used -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::DeviceModel;
    use proptest::prelude::*;

    proptest! {
        /// The word-at-a-time search finds the slot a slot-by-slot scan finds.
        #[test]
        fn first_free_is_the_lowest_free_slot(
            taken in proptest::collection::vec(any::<bool>(), 0..400), lo in 0u32..300, len in 0u32..200
        ) {
            let g = Geometry::of(DeviceModel::Ibm3380, 4096);
            let mut m = SlotMap::new(&g, 0, g.cylinders - 1);
            for (s, &t) in taken.iter().enumerate() {
                if t {
                    m.take(s as u32);
                }
            }
            let hi = lo + len;
            let naive = (lo..hi).find(|&s| !m.is_used(s));
            prop_assert_eq!(m.first_free(lo, hi), naive);
        }
    }
}
