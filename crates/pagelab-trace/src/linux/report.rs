//! The replayer's report page: the one page of the cgroup that no process maps.
//!
//! Right before its loop the replayer writes its first report lines to its output file in the
//! guest's tmpfs (`replayer.c`: `report(.., "before")`, `fflush`). That page is shmem, and
//! so it has four properties (mm/shmem.c, mm/vmscan.c, include/linux/mm_inline.h):
//! - charged to the writer's cgroup and swap-backed, so it sits on the anonymous lists;
//! - `PG_referenced` set: `shmem_get_folio_gfp` marks a new folio written (`SGP_WRITE`);
//! - not activated: `folio_add_lru` activates only in a fault, so MGLRU puts it in
//!   max_seq − 1 (`lru_gen_add_folio`: an anonymous-type folio outside the swap cache);
//! - mapped by nothing, so no PTE is ever young.
//!
//! The first scan that reaches it reclaims it: `folio_check_references` finds no young PTE,
//! and a swap-backed page is then reclaimed whatever its `PG_referenced`. After the loop the
//! report's next write reads it back from swap (`shmem_swapin_folio`, no fault counted): in
//! 6.1, pswpin exceeds the cgroup's pgmajfault by one in 772 of the reference's 800 runs.

use super::{Replay, IN_ZSWAP, ON_DEVICE, RESIDENT};
use crate::linux::memcg;
use crate::TraceError;

impl Replay {
    /// The report page `page` is written: charged as a fault's page is, and added to the lists
    /// unmapped.
    pub(super) fn report_written(&mut self, page: u32) -> Result<(), TraceError> {
        self.charge_reclaiming(memcg::Charge::try_charge)?;
        self.state[page as usize] = RESIDENT;
        self.lists.add_unmapped(page);
        Ok(())
    }

    /// After the loop the report writes again: a page that was reclaimed is read back, a
    /// swap-in the lists count as a refault by their own rules, and no major fault.
    pub(super) fn report_read_back(&mut self, page: u32) {
        match self.state[page as usize] {
            ON_DEVICE => self.c.pswpin += 1,
            IN_ZSWAP => {
                self.c.zswpin += 1;
                self.pool.as_mut().expect("a page in zswap").load(page);
            }
            _ => return,
        }
        self.state[page as usize] = RESIDENT;
        self.lists.add(page, &mut self.ws);
    }
}
