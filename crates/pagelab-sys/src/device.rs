//! Paging devices, channels and slots.
//!
//! ```text
//!   page-out ──► DeviceSelection (round robin | round turkey) ──► SlotAllocator (zigzag |
//!                moving cursor | right edge) ──► device queue (a round-turkey group as one batch)
//!   swap set ──► swap areas in turn (else paging devices) ──► a run of consecutive slots by a
//!                moving cursor ──► device queue (one batch, one SIO)
//!   page-in  ─────────────────────────────────────────────────────────────► device queue
//!   device queue ──► SIO (head request + same-cylinder requests) ──► seek ──► rotate ──► reconnect
//!                       reconnect: channel free? transfer : RPS miss, one more rotation
//! ```
//!
//! One SIO is one channel program. Its service time is the tetzlaff paper's Figure 3:
//! overhead *A* (control-unit protocol time, seek to the cylinder, rotational latency to the first
//! record, lost rotations when the path is busy at reconnect, the RPS miss) plus one transfer
//! *B* per page. Drums (2301, 2305) have a head per track: one "cylinder", no seek.
//!
//! The devices, their formats and their seek law are the catalogue of the device family
//! (`device/geometry.rs`), shared with the UNIX machine's RK05 and the M44's 1301.
//!
//! Rotational position is deterministic: the platter's angle is `now mod rotation`, and slot `s`
//! of a cylinder starts at angle `frac(s / pages_per_track)`; records span tracks where the
//! format says so (2301, 2314). A chained SIO keeps the channel from one record to the
//! last only while its records are contiguous on the track (block paging); across a rotational
//! gap the device disconnects and must reconnect when the next record comes round (rotational
//! position sensing). A reconnect that finds the channel busy waits a whole rotation (the RPS
//! miss). A drum serves the pages of an SIO in rotational order (CP's ordered drum I/O); a disk
//! in slot order, as its channel program lists them.
//!
//! Slots (tetzlaff, "Background"): a page-out goes to the next device in turn; on it, to a free
//! slot on the last cylinder used, else to the free slot nearest the centre of the volume
//! (inside the paging area): the "zigzag". A page read from a slot keeps it while unchanged.

use pagelab_core::Tick;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

mod exposures;
pub mod fifo_queue;
pub mod geometry;
pub mod moving_cursor;
pub mod round_turkey;
mod slot_map;

pub use fifo_queue::{FifoBacklog, FifoQueue};
pub use geometry::{DeviceModel, Disk, Geometry, Rk05, SeekLaw, Timing};
pub use moving_cursor::Cursor;
pub use round_turkey::RoundTurkey;
pub use slot_map::{SlotAddr, SlotMap};

/// Slot allocators.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SlotAllocationKind {
    /// Last cylinder used, else the free slot nearest the volume centre (tetzlaff).
    #[default]
    Zigzag,
    /// A cursor sweeping the paging area, reflected at the ends (tetzlaff, round turkey).
    MovingCursor,
    /// The free slot nearest the high end of the area (tetzlaff's negative experiment).
    RightEdge,
}

/// Page-out device selection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeviceSelectionKind {
    /// Each page-out to the next device in turn (tetzlaff).
    #[default]
    RoundRobin,
    /// The same device up to `paging.round_turkey_run` times unless a cylinder boundary is
    /// reached; each device's group written with one SIO (tetzlaff, round turkey).
    RoundTurkey,
}

/// Where on a device a page-out goes: the slot-allocation seam. Each allocator ranks the free
/// slots of the map it is given and returns one; the map keeps the books (and the cylinder last
/// used, which allocators may read as their cursor).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SlotAllocator {
    /// The last cylinder used if it has room, else the free slot nearest the volume centre
    /// (TETZ "Background").
    Zigzag,
    /// A cursor per device sweeping its paging area, reflected at the ends (TETZ "New
    /// slot-selection algorithm"); see [`moving_cursor`].
    MovingCursor {
        /// Cursor of each device, made at its first allocation.
        cursors: Vec<Option<Cursor>>,
    },
    /// The free slot nearest the high end of the area (TETZ's negative experiment).
    RightEdge,
}

impl SlotAllocator {
    /// Builds the allocator of `kind`.
    pub fn build(kind: SlotAllocationKind) -> SlotAllocator {
        match kind {
            SlotAllocationKind::Zigzag => SlotAllocator::Zigzag,
            SlotAllocationKind::MovingCursor => SlotAllocator::MovingCursor {
                cursors: Vec::new(),
            },
            SlotAllocationKind::RightEdge => SlotAllocator::RightEdge,
        }
    }

    fn cursor<'a>(
        cursors: &'a mut Vec<Option<Cursor>>,
        dev: usize,
        map: &SlotMap,
    ) -> &'a mut Cursor {
        if cursors.len() <= dev {
            cursors.resize(dev + 1, None);
        }
        cursors[dev].get_or_insert_with(|| Cursor::new(map))
    }

    /// A free slot of `map` (device `dev`), marked used; `None` when the paging area is full.
    pub fn allocate(&mut self, dev: usize, map: &mut SlotMap) -> Option<u32> {
        match self {
            SlotAllocator::Zigzag => map.allocate_zigzag(),
            SlotAllocator::MovingCursor { cursors } => {
                Self::cursor(cursors, dev, map).allocate(map)
            }
            SlotAllocator::RightEdge => moving_cursor::allocate_right_edge(map),
        }
    }

    /// `n` consecutive free slots of one cylinder (a swap set), the lowest returned. Every
    /// allocator places runs with a moving cursor: TETZ allocates swap areas "by the
    /// moving-cursor algorithm", a swap set at a time.
    pub fn allocate_run(&mut self, dev: usize, map: &mut SlotMap, n: u32) -> Option<u32> {
        let mut scratch = Vec::new();
        let cursors = match self {
            SlotAllocator::MovingCursor { cursors } => cursors,
            _ => &mut scratch,
        };
        Self::cursor(cursors, dev, map).allocate_run(map, n)
    }

    /// Whether the next allocation on `dev` will be on another cylinder than `slot`'s (round
    /// turkey's boundary test).
    pub fn leaves_cylinder(&self, dev: usize, map: &SlotMap, slot: u32) -> bool {
        let spc = map.slots_per_cyl();
        match self {
            SlotAllocator::MovingCursor { cursors } => match cursors.get(dev) {
                Some(Some(c)) => c.leaves_cylinder(map, slot),
                _ => true,
            },
            // The next slot up is on another cylinder, or this one is full.
            SlotAllocator::Zigzag | SlotAllocator::RightEdge => {
                (slot + 1).is_multiple_of(spc) || map.free_in_cyl(slot / spc) == 0
            }
        }
    }
}

/// Which device a page-out goes to: the device-selection seam. The system asks for the
/// `k`-th choice (k = 0, 1, ... while devices are full) and reports the device used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceSelection {
    /// Each page-out to the next device in turn (TETZ "Background").
    RoundRobin {
        /// Device to try first next time.
        next: usize,
    },
    /// The same device up to `max_run` times in a row, unless a cylinder boundary is reached
    /// (TETZ "Device selection"); see [`round_turkey`].
    RoundTurkey(RoundTurkey),
}

impl DeviceSelection {
    /// Builds the selector of `kind`; `run` is round turkey's run length [page-outs].
    pub fn build(kind: DeviceSelectionKind, run: u32) -> DeviceSelection {
        match kind {
            DeviceSelectionKind::RoundRobin => DeviceSelection::RoundRobin { next: 0 },
            DeviceSelectionKind::RoundTurkey => DeviceSelection::RoundTurkey(RoundTurkey::new(run)),
        }
    }

    /// The `k`-th device to try among `n`.
    pub fn pick(&self, n: usize, k: usize) -> usize {
        match self {
            DeviceSelection::RoundRobin { next } => (next + k) % n,
            DeviceSelection::RoundTurkey(rt) => rt.pick(n, k),
        }
    }

    /// A page-out went to device `d` of `n`; `boundary` says the device's next slot is on
    /// another cylinder. Returns whether the group of page-outs to `d` is closed (round robin:
    /// always, each page its own group).
    pub fn used(&mut self, n: usize, d: usize, boundary: bool) -> bool {
        match self {
            DeviceSelection::RoundRobin { next } => {
                *next = (d + 1) % n;
                true
            }
            DeviceSelection::RoundTurkey(rt) => rt.used(n, d, boundary),
        }
    }
}

/// Direction of a page transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoOp {
    /// Page-in.
    Read,
    /// Page-out.
    Write,
}

/// One page to move, as queued on a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageIo {
    /// Read or write.
    pub op: IoOp,
    /// Slot on the device.
    pub slot: u32,
    /// Frame the page moves to or from.
    pub frame: u32,
    /// When the request was queued [ns].
    pub queued: Tick,
}

/// What a device asks the event loop to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceStep {
    /// Call [`PagingIo::reconnect`] for this device at the given time.
    Reconnect(Tick),
    /// Call [`PagingIo::complete`] for this device at the given time.
    Complete(Tick),
    /// Call [`PagingIo::exposure_step`] for this device's spare exposure at the given time.
    Exposure(Tick, u16),
}

#[derive(Clone, Debug)]
struct Device {
    geom: Geometry,
    channel: usize,
    queue: VecDeque<PageIo>,
    /// Pages of the SIO in progress, in transfer order.
    sio: Vec<PageIo>,
    busy: bool,
    arm: u32,
    /// Next record of the SIO in progress to transfer.
    next: usize,
    started: Tick,
    slots: SlotMap,
    /// Channel programs on the spare exposures (`exposures - 1` places; `device/exposures.rs`).
    side: Vec<Option<exposures::Side>>,
}

/// Per-device counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceCounters {
    /// SIOs started.
    pub n_sios: u64,
    /// Pages read.
    pub n_reads: u64,
    /// Pages written.
    pub n_writes: u64,
    /// Reconnects that found the channel busy.
    pub n_rps_misses: u64,
    /// Time busy with SIOs [ns].
    pub busy_ns: u64,
    /// Sum over pages of queue-to-completion time [ns].
    pub page_response_ns: u64,
    /// Sum over pages read of queue-to-completion time [ns].
    pub read_response_ns: u64,
    /// Sum over SIOs of start-to-completion time [ns].
    pub sio_service_ns: u64,
}

/// Paging devices and their channels: the mechanism, no policy beyond the catalogue's physics,
/// the zigzag allocator and round-robin selection.
#[derive(Clone, Debug)]
pub struct PagingIo {
    devices: Vec<Device>,
    channel_busy_until: Vec<Tick>,
    combine: bool,
    overhead_ns: u64,
    selection: DeviceSelection,
    allocation: SlotAllocator,
    /// Moving cursors of swap-set runs (kept apart from single page-outs' allocator).
    swap_allocation: SlotAllocator,
    swap_area: Vec<bool>,
    next_swap: usize,
    /// Counters, per device.
    pub counters: Vec<DeviceCounters>,
}

impl PagingIo {
    /// Devices given as (geometry, channel index, paging area); `combine` chains same-cylinder
    /// requests; `overhead_ns` is the control-unit time per SIO.
    pub fn new(
        devices: &[(Geometry, usize, Option<[u32; 2]>)],
        channels: usize,
        combine: bool,
        overhead_ns: u64,
    ) -> PagingIo {
        let devs = devices
            .iter()
            .map(|&(geom, channel, area)| {
                let [first, last] = area.unwrap_or([0, geom.cylinders - 1]);
                Device {
                    geom,
                    channel,
                    queue: VecDeque::new(),
                    sio: Vec::new(),
                    busy: false,
                    arm: geom.cylinders / 2,
                    next: 0,
                    started: Tick::ZERO,
                    slots: SlotMap::new(&geom, first, last),
                    side: Vec::new(),
                }
            })
            .collect::<Vec<_>>();
        let n = devs.len();
        PagingIo {
            devices: devs,
            channel_busy_until: vec![Tick::ZERO; channels],
            combine,
            overhead_ns,
            selection: DeviceSelection::RoundRobin { next: 0 },
            allocation: SlotAllocator::Zigzag,
            swap_allocation: SlotAllocator::MovingCursor {
                cursors: Vec::new(),
            },
            swap_area: vec![false; n],
            next_swap: 0,
            counters: vec![DeviceCounters::default(); n],
        }
    }

    /// Replaces the default policies (round robin, zigzag).
    pub fn with_policies(mut self, selection: DeviceSelection, allocation: SlotAllocator) -> Self {
        self.selection = selection;
        self.allocation = allocation;
        self
    }

    /// Devices [count].
    pub fn len(&self) -> usize {
        self.devices.len()
    }

    /// True with no devices.
    pub fn is_empty(&self) -> bool {
        self.devices.is_empty()
    }

    /// Slot map of device `dev`.
    pub fn slots(&self, dev: usize) -> &SlotMap {
        &self.devices[dev].slots
    }

    /// Requests queued or in service on `dev` [pages].
    pub fn pending(&self, dev: usize) -> usize {
        let d = &self.devices[dev];
        d.queue.len() + d.sio.len() + d.side.iter().flatten().count()
    }

    /// A page-out slot by the device selection and slot allocation policies. `None` when every
    /// paging area is full.
    pub fn allocate_slot(&mut self) -> Option<SlotAddr> {
        self.allocate_page_out().map(|(a, _)| a)
    }

    /// A page-out slot, and whether the group of page-outs to its device is now closed (the
    /// system writes a group with one SIO; round robin closes every group at once). Devices
    /// reserved for swap sets are never chosen.
    pub fn allocate_page_out(&mut self) -> Option<(SlotAddr, bool)> {
        let n = self.devices.len();
        for k in 0..n {
            let d = self.selection.pick(n, k);
            if self.swap_area.get(d).copied().unwrap_or(false) {
                continue;
            }
            if let Some(slot) = self.allocation.allocate(d, &mut self.devices[d].slots) {
                let boundary = self
                    .allocation
                    .leaves_cylinder(d, &self.devices[d].slots, slot);
                let closed = self.selection.used(n, d, boundary);
                return Some((
                    SlotAddr {
                        dev: d as u16,
                        slot,
                    },
                    closed,
                ));
            }
        }
        None
    }

    /// Marks devices whose paging area is a swap area (tetzlaff "Contiguous page datasets"):
    /// they take only swap sets, and ordinary page-outs avoid them.
    pub fn with_swap_areas(mut self, swap: Vec<bool>) -> Self {
        self.swap_area = swap;
        self
    }

    /// Gives each device its exposures, the channel programs it serves at once (1: one at a
    /// time; more only on a fixed-head device, `device/exposures.rs`).
    pub fn with_exposures(mut self, exposures: &[u32]) -> Self {
        for (d, &n) in self.devices.iter_mut().zip(exposures) {
            d.side = vec![None; n.saturating_sub(1) as usize];
        }
        self
    }

    /// Whether device `dev` is a swap area.
    pub fn is_swap_area(&self, dev: usize) -> bool {
        self.swap_area.get(dev).copied().unwrap_or(false)
    }

    /// Whether any device is a swap area.
    pub fn has_swap_areas(&self) -> bool {
        self.swap_area.iter().any(|&s| s)
    }

    /// `n` consecutive slots of one cylinder for a swap set: on the swap areas in turn when
    /// there are any (else on the paging devices in turn), each by its moving cursor. The
    /// turn goes across the channels before it goes along one channel's actuators, so that
    /// consecutive swap sets (the two of a swap-out, the two prepaged at queue-add) travel on
    /// separate paths (tetzlaff "Prepaging at queue-add": "the parallelism of swap paths").
    /// The first slot is returned. `None` when no device has such a run.
    pub fn allocate_swap_set(&mut self, n: u32) -> Option<SlotAddr> {
        let use_swap = self.has_swap_areas();
        let order = self.swap_order(use_swap);
        let no = order.len();
        for k in 0..no {
            let d = order[(self.next_swap + k) % no];
            if let Some(slot) = self
                .swap_allocation
                .allocate_run(d, &mut self.devices[d].slots, n)
            {
                self.next_swap = (self.next_swap + k + 1) % no;
                return Some(SlotAddr {
                    dev: d as u16,
                    slot,
                });
            }
        }
        None
    }

    /// The devices that take swap sets (the swap areas, or the paging devices when there are
    /// none), ordered by position on their channel, then by channel: one actuator of each
    /// channel before the second of any.
    fn swap_order(&self, use_swap: bool) -> Vec<usize> {
        let mut seen = vec![0usize; self.channel_busy_until.len()];
        let mut keyed: Vec<(usize, usize, usize)> = Vec::new();
        for (d, dev) in self.devices.iter().enumerate() {
            if self.swap_area.get(d).copied().unwrap_or(false) != use_swap {
                continue;
            }
            keyed.push((seen[dev.channel], dev.channel, d));
            seen[dev.channel] += 1;
        }
        keyed.sort_unstable();
        keyed.into_iter().map(|k| k.2).collect()
    }

    /// Returns a slot to its device.
    pub fn release_slot(&mut self, at: SlotAddr) {
        self.devices[at.dev as usize].slots.release(at.slot);
    }

    /// Queues `io` on `dev`; if the device is idle an SIO starts and its next step is returned.
    /// A read that finds a fixed-head device busy starts on a spare exposure if it has one.
    pub fn submit(&mut self, dev: usize, io: PageIo, now: Tick) -> Option<DeviceStep> {
        if let Some(step) = self.start_on_exposure(dev, io, now) {
            return Some(step);
        }
        self.devices[dev].queue.push_back(io);
        if self.devices[dev].busy {
            None
        } else {
            Some(self.start_sio(dev, now))
        }
    }

    /// Queues several requests on `dev` at once (a block of pages for one channel program);
    /// those on the head's cylinder share one SIO even without same-cylinder combining.
    pub fn submit_batch(&mut self, dev: usize, ios: &[PageIo], now: Tick) -> Option<DeviceStep> {
        self.devices[dev].queue.extend(ios.iter().copied());
        if self.devices[dev].busy || self.devices[dev].queue.is_empty() {
            None
        } else {
            Some(self.start_sio(dev, now))
        }
    }

    /// Geometry of `dev`.
    pub fn geometry(&self, dev: usize) -> &Geometry {
        &self.devices[dev].geom
    }

    /// Starts the next SIO on an idle device with queued work: the head request and, when
    /// combining, every queued request for the same cylinder (tetzlaff: chained into one SIO).
    fn start_sio(&mut self, dev: usize, now: Tick) -> DeviceStep {
        let combine = self.combine;
        let overhead = self.overhead_ns;
        let d = &mut self.devices[dev];
        debug_assert!(!d.busy && !d.queue.is_empty());
        let head = d.queue.pop_front().expect("start_sio on an empty queue");
        let spc = d.geom.slots_per_cyl;
        let cyl = head.slot / spc;
        d.sio.clear();
        d.sio.push(head);
        {
            // Combining chains every request queued for the cylinder; without it, only the
            // head's own batch (same direction, queued at the same instant on the same
            // cylinder: a swap set or a round-turkey group) goes into its channel program.
            let mut i = 0;
            while i < d.queue.len() {
                let q = d.queue[i];
                let same_batch = q.op == head.op && q.queued == head.queued;
                if q.slot / spc == cyl && (combine || same_batch) {
                    let io = d.queue.remove(i).expect("index checked");
                    d.sio.push(io);
                } else {
                    i += 1;
                }
            }
        }
        let seek = d.geom.seek_ns(d.arm, cyl);
        d.arm = cyl;
        let ready = now.as_ns() + overhead + seek;
        // Transfer order: a fixed-head device serves its queue in rotational order from the
        // angle at `ready` (CP's ordered drum I/O); a moving-arm disk follows the channel
        // program, in slot order.
        let rot = d.geom.rotation_ns;
        let phase = ready % rot;
        let geom = d.geom;
        if geom.cylinders == 1 {
            // One record per angular position per revolution: records at the same angle on
            // other tracks wait for the next revolutions, after every other angle's first.
            d.sio.sort_by_key(|io| {
                let off = geom.slot_offset_ns(io.slot % spc);
                ((off + rot - phase) % rot, io.slot)
            });
            let mut keyed: Vec<(u32, u64, PageIo)> = Vec::with_capacity(d.sio.len());
            let mut last_off = u64::MAX;
            let mut round = 0u32;
            for io in d.sio.drain(..) {
                let off = (geom.slot_offset_ns(io.slot % spc) + rot - phase) % rot;
                round = if off == last_off { round + 1 } else { 0 };
                last_off = off;
                keyed.push((round, off, io));
            }
            keyed.sort_by_key(|&(r, off, io)| (r, off, io.slot));
            d.sio.extend(keyed.into_iter().map(|k| k.2));
        } else {
            d.sio.sort_by_key(|io| io.slot);
        }
        let first_wait = (geom.slot_offset_ns(d.sio[0].slot % spc) + rot - phase) % rot;
        d.next = 0;
        d.busy = true;
        d.started = now;
        self.counters[dev].n_sios += 1;
        DeviceStep::Reconnect(Tick(ready + first_wait))
    }

    /// The next record of `dev`'s SIO is under the head. If the channel is free, the record and
    /// every record contiguous with it (no rotational gap) are transferred while the channel
    /// stays connected; the device then disconnects until its next record comes round (RPS).
    /// If the channel is busy, the record comes round again one rotation later (an RPS miss).
    pub fn reconnect(&mut self, dev: usize, now: Tick) -> DeviceStep {
        let d = &mut self.devices[dev];
        let ch = d.channel;
        let rot = d.geom.rotation_ns;
        if self.channel_busy_until[ch] > now {
            self.counters[dev].n_rps_misses += 1;
            return DeviceStep::Reconnect(now + Tick(rot));
        }
        let spc = d.geom.slots_per_cyl;
        let xfer = d.geom.page_transfer_ns;
        let mut end = now.as_ns() + xfer;
        d.next += 1;
        while d.next < d.sio.len() {
            let off = d.geom.slot_offset_ns(d.sio[d.next].slot % spc);
            let wait = (off + rot - end % rot) % rot;
            // Contiguous: the next record starts before another record could pass the head.
            if wait * 2 >= xfer {
                break;
            }
            end += wait + xfer;
            d.next += 1;
        }
        self.channel_busy_until[ch] = Tick(end);
        if d.next < d.sio.len() {
            let off = d.geom.slot_offset_ns(d.sio[d.next].slot % spc);
            let wait = (off + rot - end % rot) % rot;
            DeviceStep::Reconnect(Tick(end + wait))
        } else {
            DeviceStep::Complete(Tick(end))
        }
    }

    /// The SIO on `dev` is done: its pages are appended to `done`; the next SIO starts if work
    /// is queued, and its first step is returned.
    pub fn complete(
        &mut self,
        dev: usize,
        now: Tick,
        done: &mut Vec<PageIo>,
    ) -> Option<DeviceStep> {
        let d = &mut self.devices[dev];
        let c = &mut self.counters[dev];
        c.busy_ns += (now - d.started).as_ns();
        c.sio_service_ns += (now - d.started).as_ns();
        for io in d.sio.drain(..) {
            let resp = (now - io.queued).as_ns();
            match io.op {
                IoOp::Read => {
                    c.n_reads += 1;
                    c.read_response_ns += resp;
                }
                IoOp::Write => c.n_writes += 1,
            }
            c.page_response_ns += resp;
            done.push(io);
        }
        d.busy = false;
        if d.queue.is_empty() {
            None
        } else {
            Some(self.start_sio(dev, now))
        }
    }
}

#[cfg(test)]
mod tests;
