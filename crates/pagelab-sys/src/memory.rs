//! Main storage: frames, page tables, the free list, the flush list and the core table scan.
//!
//! ```text
//!   core table (one entry per frame): owner, page, reference bit, change bit, state
//!        ▲ cursor ──► ... ──► wraps: one cycle (Bard's counter W)
//!   free list  ◄── SELECT: 1st the flush list (FIFO), else the scan's next unreferenced frame
//!   page tables: per owner (each user, and one for the shared segment owned by no user)
//! ```
//!
//! The scan is VM's one-bit approximation to global LRU (tetzlaff, "Background"; bard §2): the
//! cursor resets each reference bit it passes and takes the first frame whose bit was already
//! clear, so an unreferenced page lives between one and two cycles (1.5 on average), and a page
//! whose bit was reset at queue-drop goes within one cycle (0.5 on average). Frames in transit
//! are skipped. What happens to the victim (page-out if changed or slotless, else freed at once)
//! is the system's decision; this module only ranks frames and keeps the books.

use pagelab_core::Frames;

/// No frame / no slot.
pub const NONE: u32 = u32::MAX;

/// State of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameState {
    /// On the free list.
    Free,
    /// Holds a valid page.
    Resident,
    /// A page is being read into it.
    PageIn,
    /// Its page is being written out; freed when the write completes unless reclaimed.
    PageOut,
    /// Holds compressed pages of the zswap pool ([`crate::zswap`]); no page maps it.
    Pool,
}

/// A page frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Owner index (a user, or the shared segment's index).
    pub owner: u32,
    /// Page number within the owner's address space.
    pub page: u32,
    /// Reference bit.
    pub referenced: bool,
    /// Change bit: the page differs from its slot copy (or has none).
    pub changed: bool,
    /// On the flush list.
    pub flushed: bool,
    /// State.
    pub state: FrameState,
}

/// A page-table entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pte {
    /// Frame holding the page, or [`NONE`].
    pub frame: u32,
    /// Slot holding a copy, or [`NONE`].
    pub slot: u32,
    /// Device of the slot.
    pub dev: u16,
    /// The page last left storage from the flush list (trimmed, flushed at queue-drop or
    /// collected); cleared when it is mapped again or reclaimed.
    pub flushed_out: bool,
}

impl Pte {
    const EMPTY: Pte = Pte {
        frame: NONE,
        slot: NONE,
        dev: 0,
        flushed_out: false,
    };
}

/// Frames, page tables and the lists that feed the free list.
#[derive(Clone, Debug)]
pub struct Memory {
    /// The core table.
    pub frames: Vec<Frame>,
    /// Page tables, one per owner.
    pub tables: Vec<Vec<Pte>>,
    /// Per owner and page: its frame while [`FrameState::Resident`], else [`NONE`] (a
    /// reference's validity in one load). Kept by [`Memory::map`], [`Memory::unmap`] and
    /// [`Memory::set_state`].
    pub live: Vec<Vec<u32>>,
    /// Resident frames per owner [frames].
    pub resident: Vec<u32>,
    free: Vec<u32>,
    flush: std::collections::VecDeque<u32>,
    cursor: u32,
    /// Completed scan cycles (Bard's W).
    pub n_cycles: u64,
    /// Frames examined by the scan.
    pub n_scanned: u64,
    /// Take the flush list's newest entry first (LIFO) instead of its oldest.
    pub lifo_flush: bool,
    /// Reserved frames per owner (VM/370 `SET RESERVE`, FN §2.5): while an owner has no more
    /// resident pages than its reserve, the scan passes them by; empty when nobody reserves.
    pub reserve: Vec<u32>,
}

/// Why a frame was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VictimSource {
    /// From the flush list.
    Flush,
    /// From the core table scan.
    Scan,
}

impl Memory {
    /// `frames` free frames and `owners` empty page tables.
    pub fn new(frames: Frames, owners: usize) -> Memory {
        let frames = frames.get();
        Memory {
            frames: vec![
                Frame {
                    owner: NONE,
                    page: NONE,
                    referenced: false,
                    changed: false,
                    flushed: false,
                    state: FrameState::Free
                };
                frames as usize
            ],
            tables: vec![Vec::new(); owners],
            live: vec![Vec::new(); owners],
            resident: vec![0; owners],
            // Popped from the back: frame 0 first.
            free: (0..frames).rev().collect(),
            flush: Default::default(),
            cursor: 0,
            n_cycles: 0,
            n_scanned: 0,
            lifo_flush: false,
            reserve: Vec::new(),
        }
    }

    /// Frames on the free list [frames].
    pub fn free_len(&self) -> usize {
        self.free.len()
    }

    /// The page-table entry of `(owner, page)`, growing the table as needed.
    #[inline]
    pub fn pte_mut(&mut self, owner: u32, page: u32) -> &mut Pte {
        let t = &mut self.tables[owner as usize];
        if page as usize >= t.len() {
            t.resize(page as usize + 1, Pte::EMPTY);
        }
        &mut t[page as usize]
    }

    /// The page-table entry of `(owner, page)`, if the table reaches it.
    #[inline]
    pub fn pte(&self, owner: u32, page: u32) -> Option<&Pte> {
        self.tables[owner as usize].get(page as usize)
    }

    /// Takes a frame from the free list.
    pub fn take_free(&mut self) -> Option<u32> {
        let f = self.free.pop()?;
        debug_assert_eq!(self.frames[f as usize].state, FrameState::Free);
        Some(f)
    }

    /// Returns a frame to the free list (its page, if any, must already be unmapped).
    pub fn put_free(&mut self, f: u32) {
        let fr = &mut self.frames[f as usize];
        *fr = Frame {
            owner: NONE,
            page: NONE,
            referenced: false,
            changed: false,
            flushed: false,
            state: FrameState::Free,
        };
        self.free.push(f);
    }

    /// Takes a frame from the free list for the compressed pool.
    pub fn take_for_pool(&mut self) -> Option<u32> {
        let f = self.take_free()?;
        self.frames[f as usize].state = FrameState::Pool;
        Some(f)
    }

    /// Maps `(owner, page)` into free frame `f` in state `state`.
    pub fn map(&mut self, owner: u32, page: u32, f: u32, state: FrameState) {
        let pte = self.pte_mut(owner, page);
        pte.frame = f;
        pte.flushed_out = false;
        let live = &mut self.live[owner as usize];
        if page as usize >= live.len() {
            live.resize(page as usize + 1, NONE);
        }
        live[page as usize] = if state == FrameState::Resident {
            f
        } else {
            NONE
        };
        self.frames[f as usize] = Frame {
            owner,
            page,
            referenced: false,
            changed: false,
            flushed: false,
            state,
        };
        self.resident[owner as usize] += 1;
    }

    /// Unmaps frame `f`'s page (the frame keeps its contents' description until reused).
    pub fn unmap(&mut self, f: u32) {
        let fr = self.frames[f as usize];
        self.tables[fr.owner as usize][fr.page as usize].frame = NONE;
        self.live[fr.owner as usize][fr.page as usize] = NONE;
        self.resident[fr.owner as usize] -= 1;
    }

    /// Puts mapped frame `f` in state `state` (not [`FrameState::Free`]).
    #[inline]
    pub fn set_state(&mut self, f: u32, state: FrameState) {
        let fr = &mut self.frames[f as usize];
        fr.state = state;
        self.live[fr.owner as usize][fr.page as usize] = if state == FrameState::Resident {
            f
        } else {
            NONE
        };
    }

    /// Puts frame `f` on the flush list.
    pub fn push_flush(&mut self, f: u32) {
        let fr = &mut self.frames[f as usize];
        if !fr.flushed {
            fr.flushed = true;
            self.flush.push_back(f);
        }
    }

    /// SELECT: the next frame to free, from the flush list (FIFO) or the core table scan.
    /// `None` when no frame is eligible (all in transit or free).
    pub fn select_victim(&mut self) -> Option<(u32, VictimSource)> {
        if let Some(f) = self.pop_flush() {
            return Some((f, VictimSource::Flush));
        }
        self.scan_victim().map(|f| (f, VictimSource::Scan))
    }

    /// The next resident frame of the flush list: its oldest entry, or its newest with
    /// `lifo_flush` (tetzlaff's LIFO flushing experiment). Stale entries are skipped.
    pub fn pop_flush(&mut self) -> Option<u32> {
        loop {
            let f = if self.lifo_flush {
                self.flush.pop_back()?
            } else {
                self.flush.pop_front()?
            };
            let fr = &mut self.frames[f as usize];
            if fr.flushed {
                fr.flushed = false;
                if fr.state == FrameState::Resident {
                    return Some(f);
                }
            }
        }
    }

    /// The core-table scan's next unreferenced resident frame, clearing the bits it passes.
    /// Reserved frames are passed by (bits untouched); they are taken only as a last resort,
    /// when no other frame can be (VM-SPG p.118, FN §2.5).
    pub fn scan_victim(&mut self) -> Option<u32> {
        if let Some(f) = self.scan(true) {
            return Some(f);
        }
        if self.reserve.iter().any(|&r| r > 0) {
            self.scan(false)
        } else {
            None
        }
    }

    /// Whether `owner`'s resident pages are within its reserve.
    #[inline]
    pub fn reserved(&self, owner: u32) -> bool {
        match self.reserve.get(owner as usize) {
            Some(&r) => r > 0 && self.resident[owner as usize] <= r,
            None => false,
        }
    }

    fn scan(&mut self, honour_reserve: bool) -> Option<u32> {
        let n = self.frames.len() as u32;
        let honour = honour_reserve && !self.reserve.is_empty();
        // Two passes clear every bit; a third finds nothing only if no frame is resident.
        for _ in 0..(2 * n + 1) {
            let f = self.cursor;
            self.cursor += 1;
            if self.cursor == n {
                self.cursor = 0;
                self.n_cycles += 1;
            }
            self.n_scanned += 1;
            let fr = self.frames[f as usize];
            if fr.state != FrameState::Resident {
                continue;
            }
            if honour && self.reserved(fr.owner) {
                continue;
            }
            let fr = &mut self.frames[f as usize];
            if fr.referenced {
                fr.referenced = false;
                continue;
            }
            return Some(f);
        }
        None
    }

    /// Frames the compressed pool holds [frames].
    pub fn pool_len(&self) -> usize {
        self.frames
            .iter()
            .filter(|f| f.state == FrameState::Pool)
            .count()
    }

    /// Checks the books: every frame is free, in the pool, or mapped by exactly the entry that
    /// names it, and resident counts match. Returns the first inconsistency found.
    pub fn check(&self) -> Result<(), String> {
        let mut counts = vec![0u32; self.tables.len()];
        let mut n_free = 0;
        for (i, fr) in self.frames.iter().enumerate() {
            match fr.state {
                FrameState::Free => n_free += 1,
                FrameState::Pool => {}
                _ => {
                    let pte = self
                        .tables
                        .get(fr.owner as usize)
                        .and_then(|t| t.get(fr.page as usize))
                        .ok_or_else(|| format!("frame {i} names a page with no table entry"))?;
                    if pte.frame != i as u32 {
                        return Err(format!(
                            "frame {i} owned by ({}, {}) is not mapped back",
                            fr.owner, fr.page
                        ));
                    }
                    counts[fr.owner as usize] += 1;
                }
            }
        }
        if n_free != self.free.len() {
            return Err(format!(
                "{n_free} free frames but {} on the free list",
                self.free.len()
            ));
        }
        for (o, t) in self.tables.iter().enumerate() {
            for (p, pte) in t.iter().enumerate() {
                if pte.frame != NONE {
                    let fr = &self.frames[pte.frame as usize];
                    if fr.owner != o as u32 || fr.page != p as u32 {
                        return Err(format!(
                            "page ({o}, {p}) maps frame {} owned by another page",
                            pte.frame
                        ));
                    }
                }
            }
            if self.live[o].len() > t.len() {
                return Err(format!("owner {o}: live entries past its page table"));
            }
            for (p, pte) in t.iter().enumerate() {
                let lf = self.live[o].get(p).copied().unwrap_or(NONE);
                let resident = pte.frame != NONE
                    && self.frames[pte.frame as usize].state == FrameState::Resident;
                let want = if resident { pte.frame } else { NONE };
                if lf != want {
                    return Err(format!("page ({o}, {p}): live {lf}, resident frame {want}"));
                }
            }
            if counts[o] != self.resident[o] {
                return Err(format!(
                    "owner {o}: {} resident counted, {} found",
                    self.resident[o], counts[o]
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_frames_follow_residency() {
        let mut m = Memory::new(Frames(4), 2);
        let f = m.take_free().unwrap();
        m.map(1, 5, f, FrameState::PageIn);
        assert_eq!(m.live[1][5], NONE);
        m.set_state(f, FrameState::Resident);
        assert_eq!(m.live[1][5], f);
        m.set_state(f, FrameState::PageOut);
        assert_eq!(m.live[1][5], NONE);
        m.set_state(f, FrameState::Resident);
        m.check().unwrap();
        // A state changed behind the books' back is caught.
        m.frames[f as usize].state = FrameState::PageOut;
        assert!(m.check().unwrap_err().contains("live"));
        m.frames[f as usize].state = FrameState::Resident;
        m.unmap(f);
        m.put_free(f);
        assert_eq!(m.live[1][5], NONE);
        m.check().unwrap();
    }

    #[test]
    fn scan_takes_unreferenced_frame_and_clears_bits_on_the_way() {
        let mut m = Memory::new(Frames(4), 1);
        for p in 0..4 {
            let f = m.take_free().unwrap();
            m.map(0, p, f, FrameState::Resident);
        }
        m.frames[0].referenced = true;
        m.frames[1].referenced = true;
        let (v, src) = m.select_victim().unwrap();
        assert_eq!((v, src), (2, VictimSource::Scan));
        assert!(!m.frames[0].referenced && !m.frames[1].referenced);
        m.check().unwrap();
    }

    #[test]
    fn unreferenced_page_survives_one_to_two_cycles() {
        // Frame 0 is never referenced again; the others are re-referenced before each pass.
        // The scan reaches frame 0 on its first pass after the reset and takes it then.
        let mut m = Memory::new(Frames(8), 1);
        for p in 0..8 {
            let f = m.take_free().unwrap();
            m.map(0, p, f, FrameState::Resident);
            m.frames[f as usize].referenced = true;
        }
        let mut taken_at_cycle = None;
        for _ in 0..4 {
            for f in 1..8 {
                m.frames[f].referenced = true;
            }
            if let Some((v, _)) = m.select_victim() {
                if v == 0 {
                    taken_at_cycle = Some(m.n_cycles);
                    break;
                }
                // Someone else taken: put it back referenced.
                m.frames[v as usize].referenced = true;
            }
        }
        // Bit set at start: cleared in cycle 0, taken on the pass of cycle 1.
        assert_eq!(taken_at_cycle, Some(1));
    }

    #[test]
    fn flush_list_is_first_choice_fifo() {
        let mut m = Memory::new(Frames(4), 1);
        for p in 0..4 {
            let f = m.take_free().unwrap();
            m.map(0, p, f, FrameState::Resident);
        }
        m.push_flush(3);
        m.push_flush(1);
        assert_eq!(m.select_victim(), Some((3, VictimSource::Flush)));
        assert_eq!(m.select_victim(), Some((1, VictimSource::Flush)));
        assert_eq!(m.select_victim().unwrap().1, VictimSource::Scan);
    }

    #[test]
    fn reserved_frames_survive_the_scan_of_others() {
        // Owner 0 reserves 3 frames and holds 3 unreferenced pages; owner 1 holds 3 referenced
        // ones. The scan passes owner 0's pages by and takes owner 1's, however often it runs.
        let mut m = Memory::new(Frames(6), 2);
        m.reserve = vec![3, 0];
        for p in 0..6 {
            let f = m.take_free().unwrap();
            m.map(p / 3, p, f, FrameState::Resident);
            m.frames[f as usize].referenced = p >= 3;
        }
        for k in 0..3 {
            let (v, _) = m.select_victim().unwrap();
            assert_eq!(m.frames[v as usize].owner, 1, "victim {k}");
            // Owner 1 pages back in, referenced.
            m.unmap(v);
            m.put_free(v);
            let f = m.take_free().unwrap();
            m.map(1, 10 + k, f, FrameState::Resident);
            m.frames[f as usize].referenced = true;
        }
        assert!((0..3).all(|f| !m.frames[f].referenced && m.frames[f].owner == 0));
        // Without the reserve the first unreferenced frame (owner 0's) goes at once.
        m.reserve.clear();
        let (v, _) = m.select_victim().unwrap();
        assert_eq!(m.frames[v as usize].owner, 0);
    }

    #[test]
    fn pages_beyond_the_reserve_are_fair_game_and_last_resort_takes_reserved() {
        let mut m = Memory::new(Frames(4), 1);
        m.reserve = vec![2];
        for p in 0..3 {
            let f = m.take_free().unwrap();
            m.map(0, p, f, FrameState::Resident);
        }
        // Three resident, reserve two: one may go, then the owner is within its reserve.
        let (v, _) = m.select_victim().unwrap();
        m.unmap(v);
        m.put_free(v);
        assert!(m.reserved(0));
        // Only reserved frames remain: the last resort takes one.
        assert!(m.select_victim().is_some());
    }

    use proptest::prelude::*;

    proptest! {
        #[test]
        fn scan_takes_only_resident_frames_and_books_balance(
            refs in proptest::collection::vec(any::<bool>(), 4..64),
            steps in 1usize..200,
        ) {
            let n = refs.len() as u32;
            let mut m = Memory::new(Frames(n), 2);
            for (p, &r) in refs.iter().enumerate() {
                let f = m.take_free().unwrap();
                m.map((p % 2) as u32, p as u32, f, FrameState::Resident);
                m.frames[f as usize].referenced = r;
            }
            for k in 0..steps {
                let before = m.n_cycles;
                let Some((v, _)) = m.select_victim() else { break };
                // Never more than two passes to find a victim among resident frames.
                prop_assert!(m.n_cycles - before <= 2);
                prop_assert_eq!(m.frames[v as usize].state, FrameState::Resident);
                m.unmap(v);
                m.put_free(v);
                // Refill the freed frame with a new page, referenced on odd steps.
                let f = m.take_free().unwrap();
                m.map((k % 2) as u32, n + k as u32, f, FrameState::Resident);
                m.frames[f as usize].referenced = k % 2 == 1;
                prop_assert!(m.check().is_ok(), "{:?}", m.check());
            }
        }
    }
}
