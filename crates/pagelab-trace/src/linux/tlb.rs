//! The guest CPU's TLB, as far as the accessed bit sees it.
//!
//! Reclaim reads a page's use from the PTE's accessed bit and clears it. On x86 the kernel
//! clears it without flushing the TLB (arch/x86/mm/pgtable.c `ptep_clear_flush_young`), and the
//! CPU sets the bit only when it walks the page table, that is on a TLB miss. So a page whose
//! translation stays cached is used again without the bit being set again, and looks cold to
//! the next scan; an eviction flushes only its own page (`try_to_unmap` → `flush_tlb_page`
//! with one CPU, where nothing is deferred). The replay therefore sets the bit on a fault (the
//! access after it walks the table) and on a TLB miss, not on every reference.
//!
//! ```text
//!  access(page) ── in the table's slot? ──yes──► hit: no walk, the bit is left as it is
//!                       │no
//!                  in the victim buffer? ──yes──► swapped back into the slot: no walk
//!                       │no
//!                  walk: accessed bit set; the slot's old entry to the victim buffer
//! ```
//!
//! The TLB is QEMU's under TCG, the harness's machine without KVM (accel/tcg/cputlb.c, facts
//! only): per privilege mode a direct-mapped table indexed by the virtual page number, 256
//! entries before any resize (`CPU_TLB_DYN_DEFAULT_BITS` 8; QEMU resizes it between 64 and
//! 2^22 at full flushes, by how full it was), and a fully associative victim buffer of 8
//! entries filled round-robin (`CPU_VTLB_SIZE`). The replayer reads its touch list (4 bytes a
//! touch) through the same table, one new page every 1,024 touches.

use serde::{Deserialize, Serialize};

/// The TLB's shape; a field left out when read takes QEMU's value ([`TlbParams::QEMU_TCG`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TlbParams {
    /// Entries of the direct-mapped table (a power of two).
    #[serde(default = "qemu_entries")]
    pub entries: u32,
    /// Entries of the victim buffer.
    #[serde(default = "qemu_victims")]
    pub victims: u32,
    /// Touches per page of the touch list the replayer reads (0: not read through the TLB).
    #[serde(default = "qemu_touches_per_list_page")]
    pub touches_per_list_page: u32,
    /// The touch list's first page less the trace mapping's first, in pages: the replayer maps
    /// the list, then the trace's region, which the kernel places top-down right below it
    /// (mm/mmap.c `arch_get_unmapped_area_topdown`), so it is the region's size in pages.
    #[serde(default)]
    pub list_offset: u32,
}

fn qemu_entries() -> u32 {
    TlbParams::QEMU_TCG.entries
}

fn qemu_victims() -> u32 {
    TlbParams::QEMU_TCG.victims
}

fn qemu_touches_per_list_page() -> u32 {
    TlbParams::QEMU_TCG.touches_per_list_page
}

impl TlbParams {
    /// QEMU's TCG softmmu TLB before any resize, and the replayer's 4-byte touch list.
    pub const QEMU_TCG: TlbParams = TlbParams {
        entries: 256,
        victims: 8,
        touches_per_list_page: 1024,
        list_offset: 0,
    };

    pub(crate) fn check(&self) -> Result<(), crate::TraceError> {
        if !self.entries.is_power_of_two() || self.entries > 1 << 22 {
            return Err(crate::TraceError::invalid(format!(
                "tlb entries {}: expected a power of two up to 4194304",
                self.entries
            )));
        }
        if self.victims > 64 {
            return Err(crate::TraceError::invalid(format!(
                "tlb victims {}: expected 0 to 64",
                self.victims
            )));
        }
        Ok(())
    }
}

/// No translation.
const EMPTY: u32 = u32::MAX;
/// Pages of the touch list are told from the trace's by this bit.
const LIST_PAGE: u32 = 1 << 31;

/// The translations cached for the replayer's user-mode accesses.
#[derive(Clone, Debug)]
pub struct Tlb {
    table: Vec<u32>,
    victims: Vec<u32>,
    next_victim: usize,
    touches: u64,
    per_list_page: u64,
    list_offset: u32,
}

impl Tlb {
    /// An empty TLB of the given shape (checked by [`TlbParams::check`]).
    pub fn new(p: TlbParams) -> Tlb {
        Tlb {
            table: vec![EMPTY; p.entries as usize],
            victims: vec![EMPTY; p.victims as usize],
            next_victim: 0,
            touches: 0,
            per_list_page: u64::from(p.touches_per_list_page),
            list_offset: p.list_offset,
        }
    }

    /// The replayer takes its next touch from the touch list: a new list page every
    /// `touches_per_list_page` touches, looked up like any other in the slot of the virtual
    /// page it is, `list_offset` pages after the trace mapping's first.
    pub fn next_touch(&mut self) {
        if self.per_list_page > 0 && self.touches.is_multiple_of(self.per_list_page) {
            let k = (self.touches / self.per_list_page) as u32;
            let page = LIST_PAGE | (k.wrapping_add(self.list_offset) & !LIST_PAGE);
            self.lookup(page, false);
        }
        self.touches += 1;
    }

    /// An access to trace page `page` (below 2^31); `after_fault`: the page was just mapped or
    /// its PTE changed, so the access walks the table. Returns whether it walked (and so set
    /// the accessed bit).
    pub fn access(&mut self, page: u32, after_fault: bool) -> bool {
        self.lookup(page & !LIST_PAGE, after_fault)
    }

    fn lookup(&mut self, page: u32, walk: bool) -> bool {
        let slot = page as usize & (self.table.len() - 1);
        if !walk {
            if self.table[slot] == page {
                return false;
            }
            if let Some(v) = self.victims.iter().position(|&x| x == page) {
                self.victims[v] = self.table[slot];
                self.table[slot] = page;
                return false;
            }
        }
        let old = std::mem::replace(&mut self.table[slot], page);
        if old != EMPTY && old != page && !self.victims.is_empty() {
            let n = self.victims.len();
            self.victims[self.next_victim % n] = old;
            self.next_victim += 1;
        }
        true
    }

    /// `flush_tlb_page`: the page's translation is dropped (it was unmapped).
    pub fn flush_page(&mut self, page: u32) {
        let slot = page as usize & (self.table.len() - 1);
        if self.table[slot] == page {
            self.table[slot] = EMPTY;
        }
        for v in self.victims.iter_mut().filter(|v| **v == page) {
            *v = EMPTY;
        }
    }
}

/// One step of a kernel run as a probe recorded it, in the kernel's order
/// (`pagelab.linux.young_probe`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// The loop's next touch of trace page `page`; `faulted`: it took a not-present fault;
    /// `write`: the touch writes (the replayer reads the byte, then writes it back).
    Touch {
        page: u32,
        faulted: bool,
        write: bool,
    },
    /// Reclaim read the page's accessed bit and cleared it.
    Test { page: u32 },
    /// The page was unmapped (evicted), its translation flushed.
    Evict { page: u32 },
}

/// The accessed bit each `Test` of a recorded kernel run reads when this TLB caches the
/// loop's translations: set by a page-table walk since the page's last test.
///
/// A write walks too when the page's PTE is clean, as the replay's `resident_access` has it:
/// a not-present fault is taken by the touch's read, which maps the page clean (6.12's
/// `do_swap_page` writable, 6.1's read-only, so the write takes a write-protect fault), and
/// the write then walks to set the dirty bit, setting the accessed bit with it. A write touch
/// leaves the page dirty, so only a read's fault leaves it clean for a later write. A page
/// first seen without a fault is taken as dirty (no extra walk).
pub fn recorded_bits(p: TlbParams, steps: &[Recorded]) -> Result<Vec<bool>, crate::TraceError> {
    p.check()?;
    let mut tlb = Tlb::new(p);
    let mut bit: std::collections::HashMap<u32, bool> = std::collections::HashMap::new();
    let mut clean: std::collections::HashSet<u32> = std::collections::HashSet::new();
    let mut out = Vec::new();
    for step in steps {
        match *step {
            Recorded::Touch {
                page,
                faulted,
                write,
            } => {
                tlb.next_touch();
                let walk = faulted || (write && clean.contains(&page));
                if faulted && !write {
                    clean.insert(page);
                } else if write {
                    clean.remove(&page);
                }
                if tlb.access(page, walk) {
                    bit.insert(page, true);
                }
            }
            Recorded::Test { page } => out.push(bit.insert(page, false).unwrap_or(false)),
            Recorded::Evict { page } => tlb.flush_page(page),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over a recorded order: page 1 faults (bit set), is tested (read set, cleared), touched
    /// while cached (no walk), tested (clear); page 5 takes its slot, so 1's next touch walks
    /// and its test reads set; an eviction flushes it, so a touch after it walks too.
    #[test]
    fn recorded_tests_read_the_bits_this_tlb_would_set() {
        use Recorded::{Evict, Test, Touch};
        let p = TlbParams {
            entries: 4,
            victims: 0,
            touches_per_list_page: 0,
            list_offset: 0,
        };
        let steps = [
            Touch {
                page: 1,
                faulted: true,
                write: true,
            },
            Test { page: 1 },
            Touch {
                page: 1,
                faulted: false,
                write: true,
            },
            Test { page: 1 },
            Touch {
                page: 5,
                faulted: true,
                write: true,
            },
            Touch {
                page: 1,
                faulted: false,
                write: true,
            },
            Test { page: 1 },
            Touch {
                page: 1,
                faulted: false,
                write: true,
            },
            Evict { page: 1 },
            Touch {
                page: 1,
                faulted: false,
                write: true,
            },
            Test { page: 1 },
            Test { page: 2 },
        ];
        let got = recorded_bits(p, &steps).unwrap();
        assert_eq!(got, [true, false, true, true, false]);
        let bad = TlbParams { entries: 3, ..p };
        assert!(recorded_bits(bad, &steps).is_err());
    }

    /// A read's fault leaves the page clean: its next write walks to set the dirty bit, and
    /// so sets the accessed bit although the translation is cached; a second write does not.
    /// A write's fault leaves it dirty, so its later writes do not walk.
    #[test]
    fn a_write_through_a_clean_pte_walks() {
        use Recorded::{Test, Touch};
        let p = TlbParams {
            entries: 4,
            victims: 0,
            touches_per_list_page: 0,
            list_offset: 0,
        };
        let touch = |page, faulted, write| Touch {
            page,
            faulted,
            write,
        };
        let steps = [
            touch(1, true, false),
            touch(2, true, true),
            Test { page: 1 },
            Test { page: 2 },
            touch(1, false, true),
            touch(2, false, true),
            Test { page: 1 },
            Test { page: 2 },
            touch(1, false, true),
            Test { page: 1 },
        ];
        let got = recorded_bits(p, &steps).unwrap();
        assert_eq!(got, [true, true, true, false, false]);
    }

    fn tlb(entries: u32, victims: u32) -> Tlb {
        Tlb::new(TlbParams {
            entries,
            victims,
            touches_per_list_page: 0,
            list_offset: 0,
        })
    }

    /// A cached page is used without a walk until it is flushed; a fault always walks.
    #[test]
    fn a_cached_page_does_not_walk_until_flushed() {
        let mut t = tlb(4, 0);
        assert!(t.access(1, true), "the fault's access walks");
        assert!(!t.access(1, false), "cached: no walk, the bit stays clear");
        assert!(t.access(1, true), "a write-protect fault walks again");
        t.flush_page(1);
        assert!(t.access(1, false), "flushed: walks");
    }

    /// Direct-mapped: pages 1 and 5 share slot 1 of 4. Without victims each evicts the other;
    /// with a victim buffer the evicted one is swapped back without a walk.
    #[test]
    fn conflicts_evict_to_the_victim_buffer() {
        let mut t = tlb(4, 0);
        assert!(t.access(1, false) && t.access(5, false) && t.access(1, false));
        let mut t = tlb(4, 1);
        assert!(t.access(1, false) && t.access(5, false));
        assert!(!t.access(1, false), "found in the victim buffer");
        assert!(!t.access(5, false), "and 5 went there in its place");
        assert!(t.access(9, false), "a third page walks");
        assert!(
            !t.access(5, false),
            "5 went to the victim buffer when 9 took the slot"
        );
        assert!(
            t.access(1, false),
            "1 was pushed out of the one-entry victim buffer"
        );
    }

    /// The touch list takes a slot every `touches_per_list_page` touches: here slot 0, then 1.
    #[test]
    fn the_touch_list_takes_a_slot_per_page() {
        let mut t = Tlb::new(TlbParams {
            entries: 2,
            victims: 0,
            touches_per_list_page: 3,
            list_offset: 0,
        });
        assert!(t.access(0, false) && t.access(1, false));
        for _ in 0..3 {
            t.next_touch();
        }
        assert!(t.access(0, false), "list page 0 took slot 0");
        assert!(!t.access(1, false));
        t.next_touch();
        assert!(t.access(1, false), "list page 1 took slot 1");
        // The list right after a trace mapping of 3 pages: its page 0 takes trace page 3's slot.
        let mut t = Tlb::new(TlbParams {
            entries: 4,
            victims: 0,
            touches_per_list_page: 3,
            list_offset: 3,
        });
        assert!(t.access(3, false) && t.access(0, false));
        t.next_touch();
        assert!(t.access(3, false), "list page 0 took slot 3");
        assert!(!t.access(0, false), "slot 0 untouched");
        assert!(TlbParams::QEMU_TCG.check().is_ok());
        let read: TlbParams = serde_json::from_str(r#"{"entries": 64}"#).unwrap();
        assert_eq!(
            read,
            TlbParams {
                entries: 64,
                ..TlbParams::QEMU_TCG
            },
            "the rest is QEMU's"
        );
        let bad = TlbParams {
            entries: 100,
            ..TlbParams::QEMU_TCG
        };
        assert!(bad.check().is_err());
    }
}
