//! A recency order kept as a log of references, oldest first, in which only each page's latest
//! entry counts: the order of LRU ([`super::lru`]) and of ARC's T2 ([`super::arc`]).
//!
//! A reference appends the page (one store, no pointer chasing); the oldest page is the first
//! entry that is still its page's latest; removing a page marks its entries stale. That is the
//! order of the textbook list with a move-to-front per reference: both are "by last
//! reference". Stale entries are skipped at the front and dropped when the log is compacted,
//! which happens when it has grown to [`LOG_SLACK`] times the entries it kept at the last
//! compaction (at least [`LOG_MIN`]): each compaction either drops most of the log or the live
//! set has grown sixteenfold, so each entry costs O(1) amortized and the log stays O(live
//! pages).

use super::NIL;

/// The log is compacted when it holds this many entries per live page (at least [`LOG_MIN`]).
pub(crate) const LOG_SLACK: usize = 16;
/// The smallest log before compaction [entries].
pub(crate) const LOG_MIN: usize = 1 << 16;

/// Pages in order of reference: `log[front..end]`; entries before `front` are spent, and the
/// log's length is where it is compacted next. `at[page]` is the index of the page's latest
/// entry, `NIL` if the page is not in the order.
#[derive(Clone, Debug)]
pub(crate) struct RecencyLog {
    pub log: Vec<u32>,
    pub front: usize,
    pub end: usize,
    pub at: Vec<u32>,
}

impl RecencyLog {
    /// An empty order over pages `0..page_bound`.
    pub fn new(page_bound: u32) -> Self {
        RecencyLog {
            log: vec![0; LOG_MIN],
            front: 0,
            end: 0,
            at: vec![NIL; page_bound as usize],
        }
    }

    /// Makes room for pages `0..page_bound`.
    pub fn reserve_pages(&mut self, page_bound: u32) {
        if self.at.len() < page_bound as usize {
            self.at.resize(page_bound as usize, NIL);
        }
    }

    /// True if `page` is in the order.
    #[inline(always)]
    pub fn contains(&self, page: u32) -> bool {
        self.at[page as usize] != NIL
    }

    /// The page referenced last, `NIL` if the log holds no entry.
    #[inline(always)]
    pub fn last(&self) -> u32 {
        if self.end > 0 {
            self.log[self.end - 1]
        } else {
            NIL
        }
    }

    /// Puts `page` at the most recent end.
    #[inline(always)]
    pub fn append(&mut self, page: u32) {
        if self.end == self.log.len() {
            compact(&mut self.log, &mut self.at, &mut self.front, &mut self.end);
        }
        self.at[page as usize] = self.end as u32;
        self.log[self.end] = page;
        self.end += 1;
    }

    /// Removes and returns the least recent page; the order must hold one.
    #[inline]
    pub fn pop_oldest(&mut self) -> u32 {
        pop_oldest(&self.log, &mut self.at, &mut self.front)
    }

    /// Takes `page` out of the order: its entries are stale from now on.
    #[inline(always)]
    pub fn remove(&mut self, page: u32) {
        self.at[page as usize] = NIL;
    }

    /// The pages in the order, most recent first.
    pub fn recent_first(&self) -> Vec<u32> {
        (self.front..self.end)
            .rev()
            .map(|i| (i, self.log[i]))
            .filter(|&(i, p)| self.at[p as usize] == i as u32)
            .map(|(_, p)| p)
            .collect()
    }
}

/// Removes the least recent page from `log[*front..]` and returns it.
#[inline(always)]
pub(crate) fn pop_oldest(log: &[u32], at: &mut [u32], front: &mut usize) -> u32 {
    loop {
        let p = log[*front];
        let live = at[p as usize] == *front as u32;
        *front += 1;
        if live {
            at[p as usize] = NIL;
            return p;
        }
    }
}

/// Drops the entries that are no longer their page's latest, renumbers the rest and sizes the
/// log for the next compaction.
#[cold]
#[inline(never)]
pub(crate) fn compact(log: &mut Vec<u32>, at: &mut [u32], front: &mut usize, end: &mut usize) {
    let mut k = 0;
    for i in *front..*end {
        let p = log[i];
        if at[p as usize] == i as u32 {
            log[k] = p;
            at[p as usize] = k as u32;
            k += 1;
        }
    }
    *front = 0;
    *end = k;
    log.resize(
        k.saturating_mul(LOG_SLACK).clamp(LOG_MIN, NIL as usize - 1),
        0,
    );
}
