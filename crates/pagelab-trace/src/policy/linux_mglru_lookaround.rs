//! Where the look-around's promotions go (docs/readings.md `linux-lookaround-batch`).
//!
//! mm/vmscan.c `lru_gen_look_around` moves a young neighbour in another generation to max_seq
//! at once only when a page-table walk is in hand (or, in 6.1, when 15 or more are to move:
//! `folio_update_gen` under the lock). Otherwise it hands each to `folio_activate` (mm/swap.c),
//! which queues it on the CPU's activate batch: 6.12 first clears its access count and flags
//! (`folio_clear_lru_refs`), 6.1 keeps them. A memcg reclaim's eviction in 6.12 never has a walk
//! in hand (`set_mm_walk` allocates only for a proactive reclaim, and an aging ends the pass);
//! 6.1's has one after an aging in the same `lru_gen_shrink_lruvec`.
//!
//! The batch moves its folios when it fills (`folio_batch_add_and_move`: 15 in 6.1, 31 in 6.12)
//! and at every `lru_add_drain` (`lru_add_drain_cpu` → `folio_activate_drain`), which each
//! priority's `lru_gen_shrink_lruvec` runs first. `lru_activate` takes a folio off its list,
//! sets `PG_active` and adds it back: the head of max_seq (`lru_gen_add_folio`, which in 6.12
//! clears the count and `PG_referenced` of an active folio). Until then the folio keeps its
//! place and its LRU flag (the batch clears the flag only as it moves it:
//! `folio_batch_move_lru`), and the batch holds a reference to it.

use super::{Kernel, Mglru, NO_GEN};

/// `PAGEVEC_SIZE`: 15 in 6.1 (include/linux/pagevec.h), 31 in 6.12.
fn batch_size(kernel: Kernel) -> usize {
    match kernel {
        Kernel::V6_1 => 15,
        Kernel::V6_12 => 31,
    }
}

impl Mglru {
    /// `folio_update_gen` for each page of `moves` (in another generation than max_seq): its
    /// count and flags cleared, moved to the head of max_seq.
    pub(super) fn promote_now(&mut self, moves: &[u32]) {
        for &y in moves {
            self.clear_refs(y);
            self.unlink(y);
            self.push_head(y, self.max_seq);
        }
    }

    /// The look-around's promotions as the kernel makes them: queued on the activate batch
    /// (6.12 always; 6.1 when no walk is in hand and fewer than 15 are to move), else moved at
    /// once ([`Mglru::promote_now`]).
    pub(super) fn promote_queued(&mut self, moves: &[u32]) {
        let queue = match self.kernel {
            Kernel::V6_12 => true,
            Kernel::V6_1 => !self.walk_in_hand && moves.len() < batch_size(Kernel::V6_1),
        };
        if !queue {
            self.promote_now(moves);
            return;
        }
        for &y in moves {
            if self.kernel == Kernel::V6_12 {
                self.clear_refs(y);
            }
            self.held[y as usize] += 1;
            self.activate.push(y);
            if self.activate.len() == batch_size(self.kernel) {
                self.drain_activate();
            }
        }
    }

    /// `folio_activate_drain`: each queued page still on a list goes to the head of max_seq,
    /// oldest entry first (6.12 clears its count and `PG_referenced` there); an isolated page is
    /// passed over (`folio_test_clear_lru` fails).
    pub(super) fn drain_activate(&mut self) {
        for y in std::mem::take(&mut self.activate) {
            let i = y as usize;
            self.held[i] -= 1;
            if self.seq[i] == NO_GEN {
                continue;
            }
            if self.kernel == Kernel::V6_12 {
                self.refs[i] = 0;
                self.referenced[i] = false;
            }
            self.unlink(y);
            self.push_head(y, self.max_seq);
        }
    }

    /// Pages the eviction unmapped and put in the swap cache but kept, because the activate
    /// batch held them (`pageout` → `is_page_cache_freeable`), since the last call: each stays
    /// resident, and its next touch is a minor fault from the swap cache.
    pub fn take_unmapped(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.unmapped)
    }

    /// Entries on the activate batch (for tests and invariants).
    pub fn queued(&self) -> usize {
        self.activate.len()
    }
}
