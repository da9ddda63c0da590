//! Multiple exposures: a fixed-head device that serves more than one channel program at once.
//!
//! The IBM 2305 answers to eight device addresses ("exposures") per module, and with rotational
//! position sensing its control unit serves whichever started channel program's record comes
//! under the heads first. So a demand read need not wait for a block of page-outs in progress
//! on the same drum: it is a channel program of its own, transferred when its record comes
//! round if the channel is free then, else one rotation later (an RPS miss). Here a demand
//! read (one page) that finds the device busy takes a spare exposure; blocks (round-turkey
//! groups, swap sets) and reads that find every exposure taken keep the device's one queue.
//! The device's own channel program and the exposures share the channel, so each delays the
//! others only while it transfers. An exposure's time counts in the device's SIO service
//! time, not in its busy time, which stays that of its own channel program.
//!
//! Whether CP drove the 2305's exposures so is not in the tetzlaff paper (the device catalogue
//! notes "multiple exposures (RPS)"): a device's `exposures` is 1 by default, one channel
//! program at a time [A], and only a fixed-head device may have more.

use super::{DeviceStep, IoOp, PageIo, PagingIo};
use pagelab_core::Tick;

/// A channel program on a spare exposure: one page.
#[derive(Clone, Copy, Debug)]
pub(super) struct Side {
    io: PageIo,
    started: Tick,
    /// The record is being transferred (the next step completes it).
    transferring: bool,
}

impl PagingIo {
    /// Starts the read `io` on a spare exposure of `dev`, if the device is a busy fixed-head
    /// device with one free; returns its first step, else `None` (queue it as usual).
    pub(super) fn start_on_exposure(
        &mut self,
        dev: usize,
        io: PageIo,
        now: Tick,
    ) -> Option<DeviceStep> {
        let overhead = self.overhead_ns;
        let d = &mut self.devices[dev];
        if io.op != IoOp::Read || !d.busy || d.geom.cylinders != 1 {
            return None;
        }
        let k = d.side.iter().position(Option::is_none)?;
        d.side[k] = Some(Side {
            io,
            started: now,
            transferring: false,
        });
        self.counters[dev].n_sios += 1;
        let ready = now.as_ns() + overhead;
        Some(DeviceStep::Exposure(
            Tick(ready + rotational_wait(self, dev, io.slot, ready)),
            k as u16,
        ))
    }

    /// The next step of exposure `k` of `dev` at `now`: the record under the heads is
    /// transferred if the channel is free (its end is the next step), or waits a rotation; a
    /// transfer that has ended completes the program, its page appended to `done` (`None`).
    pub fn exposure_step(
        &mut self,
        dev: usize,
        k: usize,
        now: Tick,
        done: &mut Vec<PageIo>,
    ) -> Option<Tick> {
        let d = &mut self.devices[dev];
        let ch = d.channel;
        let (rot, xfer) = (d.geom.rotation_ns, d.geom.page_transfer_ns);
        let side = d.side[k].as_mut().expect("a step of an exposure in use");
        if !side.transferring {
            if self.channel_busy_until[ch] > now {
                self.counters[dev].n_rps_misses += 1;
                return Some(now + Tick(rot));
            }
            side.transferring = true;
            self.channel_busy_until[ch] = now + Tick(xfer);
            return Some(now + Tick(xfer));
        }
        let Side { io, started, .. } = d.side[k].take().expect("checked above");
        let c = &mut self.counters[dev];
        c.sio_service_ns += (now - started).as_ns();
        let resp = (now - io.queued).as_ns();
        c.page_response_ns += resp;
        c.n_reads += 1;
        c.read_response_ns += resp;
        done.push(io);
        None
    }
}

/// Time from `at` [ns] until slot `slot` of `dev` comes under the heads [ns].
fn rotational_wait(io: &PagingIo, dev: usize, slot: u32, at: u64) -> u64 {
    let g = &io.devices[dev].geom;
    let rot = g.rotation_ns;
    (g.slot_offset_ns(slot % g.slots_per_cyl) + rot - at % rot) % rot
}
