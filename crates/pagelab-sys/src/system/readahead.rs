//! Swap readahead (Linux's `vm.page-cluster`, mm/swap_state.c; ours, no paper of the lab has
//! it): a demand read also reads neighbours of the faulting page into free frames. Which
//! neighbours is `paging.readahead`: the other slots of the faulting slot's aligned cluster of
//! 2^k slots (`slots`, the cluster readahead Linux uses on rotating devices), or the faulting
//! program's other pages in the aligned window of 2^k virtual pages around the fault
//! (`virtual`, Linux's VMA-based readahead), wherever their slots are.
//!
//! ```text
//!  fault on page p at slot s ──► slots:   [s & !(2^k − 1), + 2^k) on s's device
//!                            └─► virtual: the program's pages [p & !(2^k − 1), + 2^k)
//!      each neighbour out of storage, with a slot ──► read too, while frames are free: with
//!      the faulting page's channel program when on its device, else one per device
//!      (not referenced: no waiter; a later fault on it waits for the read or finds it resident)
//! ```
//!
//! Readings (each said here): a slot's page is found by a map kept where a page-out takes its
//! slot, checked against the page table (a stale entry is passed by); readahead takes only
//! frames already free and starts no SELECT of its own (the free list is refilled afterwards
//! as after any fault); a read-ahead page counts as a hit if it was referenced before its frame
//! was taken back, as a miss if not (Linux's swap_ra / swap_ra_hit).

use crate::device::{PagingIo, SlotAddr};
use crate::memory::{Memory, NONE};
use crate::monitor::{put_metric, Metric};
use crate::spec::{ReadaheadKind, ReadaheadWindow};
use crate::survival::Mark;
use std::collections::BTreeMap;

mod window;
use window::{ClusterWindow, VmaWindow, VMA_ORDER_CEILING};

/// The readahead's books.
#[derive(Clone, Debug)]
pub(super) struct Readahead {
    /// Slots or pages per window (2^page_cluster).
    cluster: u32,
    /// Virtual neighbours instead of slot neighbours.
    by_page: bool,
    /// Per device and slot: the page last given the slot, `(owner << 32) | page` (slot
    /// neighbours only; empty for virtual ones).
    owners: Vec<Vec<u64>>,
    /// Frames holding a read-ahead page not yet taken back.
    ahead: Vec<bool>,
    /// Pages read ahead, hits, misses: in total and at the warm-up's end.
    c: [u64; 3],
    warm: [u64; 3],
    /// Linux's adaptive window (`paging.readahead_window = "adaptive"`), else none.
    adaptive: Option<Adaptive>,
}

/// The adaptive window's state: Linux's, and the read-ahead pages not yet found by a fault.
#[derive(Clone, Debug)]
struct Adaptive {
    /// Cluster readahead's one state (slot neighbours).
    cluster: ClusterWindow,
    /// VMA readahead's state per owner (virtual neighbours).
    vma: Vec<VmaWindow>,
    /// Read-ahead pages not yet referenced: (frame, its fill number, owner).
    pending: Vec<(u32, u32, u32)>,
    /// Per frame: how many times a read-ahead page was put in it (a pending entry is stale
    /// once its frame was filled again).
    fills: Vec<u32>,
    /// Window decisions and the pages they read (the faulting one included), in total and at
    /// the warm-up's end.
    w: [u64; 2],
    warm: [u64; 2],
}

impl Readahead {
    pub(super) fn new(
        page_cluster: u32,
        kind: ReadaheadKind,
        window: ReadaheadWindow,
        io: &PagingIo,
        frames: u32,
    ) -> Readahead {
        let by_page = kind == ReadaheadKind::Virtual;
        let owners = if by_page {
            Vec::new()
        } else {
            (0..io.len())
                .map(|d| vec![u64::MAX; io.slots(d).area_slots().1 as usize + 1])
                .collect()
        };
        Readahead {
            cluster: 1 << page_cluster,
            by_page,
            owners,
            ahead: vec![false; frames as usize],
            c: [0; 3],
            warm: [0; 3],
            adaptive: (window == ReadaheadWindow::Adaptive).then(|| Adaptive {
                cluster: ClusterWindow::new(),
                vma: Vec::new(),
                pending: Vec::new(),
                fills: vec![0; frames as usize],
                w: [0; 2],
                warm: [0; 2],
            }),
        }
    }

    pub(super) fn warm_up(&mut self) {
        self.warm = self.c;
        if let Some(a) = self.adaptive.as_mut() {
            a.warm = a.w;
        }
    }

    /// The window of a fault on `(owner, page)` at `slot`: the pages (virtual neighbours) or
    /// slots (slot neighbours) `[start, end)`, the faulting one among them. Fixed: the aligned
    /// 2^k. Adaptive: Linux's, after counting the read-ahead pages found since the last fault
    /// (a page referenced since it was read ahead is one a fault found, `swap_cache_get_folio`).
    fn window(&mut self, owner: u32, page: u32, slot: u32, marks: &[Mark]) -> (u32, u32) {
        let at = if self.by_page { page } else { slot };
        let Some(a) = self.adaptive.as_mut() else {
            let start = at & !(self.cluster - 1);
            return (start, start + self.cluster);
        };
        for (f, fill, o) in std::mem::take(&mut a.pending) {
            let live = self.ahead[f as usize] && a.fills[f as usize] == fill;
            if live && marks[f as usize].user == NONE {
                a.pending.push((f, fill, o));
            } else if live && self.by_page {
                a.vma.get_mut(o as usize).map(VmaWindow::hit);
            } else if live {
                a.cluster.hit();
            }
        }
        let (start, end) = if self.by_page {
            if a.vma.len() <= owner as usize {
                a.vma.resize(owner as usize + 1, VmaWindow::default());
            }
            let max = self.cluster.min(1 << VMA_ORDER_CEILING);
            a.vma[owner as usize].next(page, max)
        } else {
            // The aligned block of the window's size around the slot (`swap_cluster_readahead`).
            let mask = a.cluster.next(slot, self.cluster) - 1;
            (slot & !mask, (slot | mask) + 1)
        };
        a.w[0] += 1;
        a.w[1] += u64::from(end - start);
        (start, end)
    }

    /// A page is read ahead into frame `f` for `owner`.
    pub(super) fn filled(&mut self, f: u32, owner: u32) {
        self.ahead[f as usize] = true;
        self.c[0] += 1;
        if let Some(a) = self.adaptive.as_mut() {
            a.fills[f as usize] = a.fills[f as usize].wrapping_add(1);
            a.pending.push((f, a.fills[f as usize], owner));
        }
    }
}

/// The readahead's view of a frame and of a slot, asked by [`Paging`](super::Paging).
impl Readahead {
    /// `(owner, page)` was given the slot at `addr` (slot neighbours keep the slot's page).
    pub(super) fn note_slot(&mut self, addr: SlotAddr, owner: u32, page: u32) {
        if self.by_page {
            return;
        }
        if let Some(e) = self.owners[addr.dev as usize].get_mut(addr.slot as usize) {
            *e = (u64::from(owner) << 32) | u64::from(page);
        }
    }

    /// Frame `f` now holds a demanded page.
    pub(super) fn forget(&mut self, f: u32) {
        self.ahead[f as usize] = false;
    }

    /// Frame `f` is taken back (`marks`: the frames' last references): a read-ahead page in
    /// it was a hit if it was referenced.
    pub(super) fn taken(&mut self, marks: &[Mark], f: u32) {
        if std::mem::take(&mut self.ahead[f as usize]) {
            let hit = marks[f as usize].user != NONE;
            self.c[if hit { 1 } else { 2 }] += 1;
        }
    }

    /// Whether frame `f` holds (or is reading) a page read ahead.
    pub(super) fn is_ahead(&self, f: u32) -> bool {
        self.ahead[f as usize]
    }
}

/// The neighbours a demand read brings along, chosen for the fault path
/// ([`Faults`](super::faults::Faults) maps them into free frames and queues their reads).
impl Readahead {
    /// The neighbours of a demand fault on `(owner, page)` at `slot` on `dev` that may be read
    /// with it, in window order (`marks`: the frames' last references, for the adaptive
    /// window); whether each is out of storage with a slot is the caller's to check.
    pub(super) fn neighbours(
        &mut self,
        mem: &Memory,
        owner: u32,
        page: u32,
        dev: u16,
        slot: u32,
        marks: &[Mark],
    ) -> Vec<(u32, u32)> {
        let (start, end) = self.window(owner, page, slot, marks);
        if self.by_page {
            return (start..end)
                .filter(|&p| p != page)
                .map(|p| (owner, p))
                .collect();
        }
        (start..end)
            .filter(|&s| s != slot)
            .filter_map(|s| {
                let e = *self.owners[dev as usize].get(s as usize)?;
                let (o, p) = ((e >> 32) as u32, e as u32);
                // The map is written at page-out and never cleared: check it still holds.
                let held =
                    e != u64::MAX && mem.pte(o, p).is_some_and(|x| x.slot == s && x.dev == dev);
                held.then_some((o, p))
            })
            .collect()
    }
}

impl Readahead {
    /// The readahead's metrics since the warm-up, over `time_s` [s].
    pub(super) fn metrics(&self, m: &mut BTreeMap<String, Metric>, time_s: f64) {
        let [n, hits, misses] = [0, 1, 2].map(|i| (self.c[i] - self.warm[i]) as f64);
        let t = time_s.max(f64::MIN_POSITIVE);
        put_metric(
            m,
            "readahead_rate",
            n / t,
            "pages/s",
            "Pages read ahead with a demand read (swap readahead), per second.",
        );
        put_metric(
            m,
            "readahead_hit_pct",
            if hits + misses > 0.0 {
                100.0 * hits / (hits + misses)
            } else {
                0.0
            },
            "%",
            "Read-ahead pages referenced before their frame was taken back, per read-ahead page taken back.",
        );
        if let Some(a) = &self.adaptive {
            let [n, pages] = [0, 1].map(|i| (a.w[i] - a.warm[i]) as f64);
            put_metric(
                m,
                "readahead_window_mean",
                if n > 0.0 { pages / n } else { 0.0 },
                "pages",
                "Mean pages one swap readahead's window spans, the faulting page included (Linux's adaptive window).",
            );
        }
    }
}
