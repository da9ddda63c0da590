//! V6 resource maps (`coremap`, `swapmap`): address-ordered free lists allocated first fit.
//!
//! A map is a list of free extents `(addr, size)` in increasing address order. `alloc(n)` takes
//! the first extent of at least `n` units and carves the request from its low end; `free(n, a)`
//! puts the extent back and coalesces it with a neighbour on either side. This is V6 `malloc`
//! and `mfree` (fidelity-notes §1.1, [S: V6-MAL]). Core is counted in 64-byte clicks, swap in
//! 512-byte blocks. Because an image must be contiguous, a request can fail while the total
//! free space exceeds it: fragmentation is part of the model.
//!
//! Deviation: V6 maps have a fixed number of entries (`CMAPSIZ = SMAPSIZ = 100`) and `mfree`
//! silently loses space when the map overflows; here the list grows as needed (50 processes
//! never make 100 holes in the configurations studied).

/// A first-fit map of free units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceMap {
    free: Vec<(u32, u32)>,
    base: u32,
    size: u32,
}

impl ResourceMap {
    /// A map with `size` free units starting at address `base` [units].
    pub fn new(base: u32, size: u32) -> ResourceMap {
        ResourceMap {
            free: if size > 0 {
                vec![(base, size)]
            } else {
                Vec::new()
            },
            base,
            size,
        }
    }

    /// Where `alloc(n)` would place `n` units, without taking them.
    pub fn find(&self, n: u32) -> Option<u32> {
        if n == 0 {
            return None;
        }
        self.free.iter().find(|e| e.1 >= n).map(|e| e.0)
    }

    /// Takes `n` contiguous units, first fit; the address, or `None` if no extent is big enough.
    pub fn alloc(&mut self, n: u32) -> Option<u32> {
        if n == 0 {
            return None;
        }
        let i = self.free.iter().position(|e| e.1 >= n)?;
        let (a, s) = self.free[i];
        if s == n {
            self.free.remove(i);
        } else {
            self.free[i] = (a + n, s - n);
        }
        Some(a)
    }

    /// Returns `n` units at `addr`, coalescing with neighbours. An extent outside the map or
    /// overlapping free space is an error (it names both extents).
    pub fn free(&mut self, n: u32, addr: u32) -> Result<(), String> {
        if n == 0 {
            return Ok(());
        }
        let end = addr
            .checked_add(n)
            .ok_or_else(|| format!("extent ({addr}, {n}) overflows"))?;
        if addr < self.base || end > self.base + self.size {
            return Err(format!(
                "extent ({addr}, {n}) lies outside the map [{}, {})",
                self.base,
                self.base + self.size
            ));
        }
        let i = self.free.partition_point(|e| e.0 < addr);
        if i > 0 {
            let (pa, ps) = self.free[i - 1];
            if pa + ps > addr {
                return Err(format!("extent ({addr}, {n}) overlaps free ({pa}, {ps})"));
            }
        }
        if let Some(&(na, ns)) = self.free.get(i) {
            if end > na {
                return Err(format!("extent ({addr}, {n}) overlaps free ({na}, {ns})"));
            }
        }
        let joins_prev = i > 0 && self.free[i - 1].0 + self.free[i - 1].1 == addr;
        let joins_next = self.free.get(i).is_some_and(|e| e.0 == end);
        match (joins_prev, joins_next) {
            (true, true) => {
                let next = self.free.remove(i);
                self.free[i - 1].1 += n + next.1;
            }
            (true, false) => self.free[i - 1].1 += n,
            (false, true) => self.free[i] = (addr, self.free[i].1 + n),
            (false, false) => self.free.insert(i, (addr, n)),
        }
        Ok(())
    }

    /// Free units in total [units].
    pub fn free_total(&self) -> u32 {
        self.free.iter().map(|e| e.1).sum()
    }

    /// The largest free extent [units].
    pub fn largest(&self) -> u32 {
        self.free.iter().map(|e| e.1).max().unwrap_or(0)
    }

    /// Free extents `(addr, size)` in address order.
    pub fn extents(&self) -> &[(u32, u32)] {
        &self.free
    }

    /// Units the map manages [units].
    pub fn capacity(&self) -> u32 {
        self.size
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn first_fit_takes_the_lowest_hole_that_fits() {
        let mut m = ResourceMap::new(0, 100);
        let a = m.alloc(10).unwrap();
        let b = m.alloc(20).unwrap();
        let c = m.alloc(10).unwrap();
        assert_eq!((a, b, c), (0, 10, 30));
        m.free(10, a).unwrap();
        m.free(10, c).unwrap();
        // Holes: (0,10), (30,70). A 15-unit request skips the first hole.
        assert_eq!(m.extents(), &[(0, 10), (30, 70)]);
        assert_eq!(m.alloc(15), Some(30));
        assert_eq!(m.alloc(10), Some(0));
    }

    #[test]
    fn fragmentation_refuses_a_request_smaller_than_the_total_free() {
        let mut m = ResourceMap::new(0, 30);
        let a = m.alloc(10).unwrap();
        let _b = m.alloc(10).unwrap();
        let c = m.alloc(10).unwrap();
        m.free(10, a).unwrap();
        m.free(10, c).unwrap();
        assert_eq!(m.free_total(), 20);
        assert_eq!(m.alloc(15), None);
    }

    #[test]
    fn free_coalesces_both_sides_and_rejects_double_free() {
        let mut m = ResourceMap::new(100, 30);
        let a = m.alloc(10).unwrap();
        let b = m.alloc(10).unwrap();
        let c = m.alloc(10).unwrap();
        m.free(10, a).unwrap();
        m.free(10, c).unwrap();
        m.free(10, b).unwrap();
        assert_eq!(m.extents(), &[(100, 30)]);
        assert!(m.free(10, 105).is_err());
        assert!(m.free(10, 95).is_err());
    }

    proptest! {
        #[test]
        fn units_are_conserved(ops in proptest::collection::vec((1u32..40, any::<bool>()), 1..200)) {
            let mut m = ResourceMap::new(7, 500);
            let mut held: Vec<(u32, u32)> = Vec::new();
            for (n, take) in ops {
                if take || held.is_empty() {
                    if let Some(a) = m.alloc(n) {
                        // Never overlaps anything held.
                        for &(ha, hn) in &held {
                            prop_assert!(a + n <= ha || ha + hn <= a);
                        }
                        held.push((a, n));
                    } else {
                        prop_assert!(m.largest() < n);
                    }
                } else {
                    let (a, k) = held.remove((n as usize) % held.len());
                    m.free(k, a).unwrap();
                }
                let used: u32 = held.iter().map(|h| h.1).sum();
                prop_assert_eq!(m.free_total() + used, 500);
                // Extents are ordered, disjoint and never adjacent (coalesced).
                for w in m.extents().windows(2) {
                    prop_assert!(w[0].0 + w[0].1 < w[1].0);
                }
            }
        }
    }
}
