//! A paging area that fills up degrades instead of stopping the system. Tetzlaff et al. 1987
//! ("Contiguous page datasets") describe swap areas as paging areas of the same format that
//! take swap sets; when the ordinary paging areas are full a page-out overflows into a swap
//! area, one slot at a time by its moving cursor, and when no swap set fits anywhere, physical
//! swap-out stops and SELECT falls back on the core-table scan ("Results": "user page stealing
//! ... remains as the mechanism of last resort"). The cost is longer seeks and broken runs,
//! not an abort. Only when no slot is left on any device does the run stop, as CP does when
//! its paging space is exhausted [I].

use super::paging_io::Paging;
use crate::device::SlotAddr;
use crate::error::SysError;

impl Paging {
    /// A slot for a page-out and whether its device's group is closed: the paging areas by
    /// the device selection and slot allocation policies, else one slot of a swap area (a group
    /// of its own), else an error (no paging space left at all).
    pub(super) fn page_out_slot(&mut self) -> Result<(SlotAddr, bool), SysError> {
        if let Some(found) = self.io.allocate_page_out() {
            return Ok(found);
        }
        if self.io.has_swap_areas() {
            if let Some(addr) = self.io.allocate_swap_set(1) {
                return Ok((addr, true));
            }
        }
        Err(SysError::Invalid {
            origin: "engine".into(),
            path: "device".into(),
            what: "no paging slot left on any device (paging and swap areas full): expected \
                   more paging devices or cylinders"
                .into(),
        })
    }

    /// Consecutive slots for a swap set of `pages`: the longest run up to its size that a
    /// swap area (or paging device) still has; the pages that do not fit are dropped from the
    /// set and wait for the next. `None` when not even one slot is free: swap-out stops.
    pub(super) fn swap_set_slots(&mut self, pages: &mut Vec<u32>) -> Option<SlotAddr> {
        while !pages.is_empty() {
            if let Some(a) = self.io.allocate_swap_set(pages.len() as u32) {
                return Some(a);
            }
            pages.pop();
        }
        None
    }
}
