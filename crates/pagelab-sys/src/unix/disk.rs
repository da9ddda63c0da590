//! The RK11 controller: one FIFO queue for both RK05 drives, no overlapped seeks (Chanson
//! §2.A; rk.c `rkstrategy` appends to the queue): the shared `device::FifoQueue`. Service = seek + rotational latency +
//! transfer by the device catalogue's RK05 (`device/geometry.rs`): seek(d) = min + (max −
//! min)·√((d − 1)/(C − 2)) (fidelity-notes §1.7 [I]), a sector's transfer its share of
//! a revolution.

use super::disk_request::{Req, ReqKind};
use super::machine::*;
use super::stats::ms;
use crate::SysError;
use pagelab_core::Tick;
use rand::Rng as _;

impl Machine {
    pub(super) fn submit(&mut self, r: Req) {
        if self.disk.submit(r) {
            self.start_disk();
        }
    }

    pub(super) fn start_disk(&mut self) {
        let Some(&r) = self.disk.start_next() else {
            return;
        };
        let d = &self.spec.disk;
        let g = &self.disk_geom;
        let cyl = r.block / d.blocks_per_cylinder;
        let seek_ns = g.seek_ns(self.arm[r.drive as usize], cyl);
        // No rotational position sensing on the RK11: a request meets the platter at an angle
        // uniform over one revolution.
        let latency_ns = (self.disk_rng.gen::<f64>() * g.rotation_ns as f64).round() as u64;
        let transfer_ns = u64::from(r.sectors) * g.page_transfer_ns;
        let last_block = (r.block + r.sectors.saturating_sub(1)).min(d.blocks_per_drive - 1);
        self.arm[r.drive as usize] = last_block / d.blocks_per_cylinder;
        self.st.disk_reqs += 1.0;
        self.st.disk_queue_wait_ms += ms(self.now - r.queued);
        let t = Tick(seek_ns + latency_ns + transfer_ns).max(Tick(1));
        self.q.schedule(self.now + t, Ev::DiskDone);
    }

    pub(super) fn disk_done(&mut self) -> Result<(), SysError> {
        let Some(r) = self.disk.finish() else {
            return Ok(());
        };
        self.start_disk();
        // rkintr: the controller's interrupt, iodone and the next request's start.
        self.interrupt(self.spec.machine.disk_intr_us.ns());
        match r.kind {
            ReqKind::Read(b) | ReqKind::ReadAhead(b) | ReqKind::Write(b, _) => {
                self.st.file_ios += 1.0;
                self.st.file_wait_ms += ms(self.now - r.queued);
                self.buffer_io_done(r.kind, b);
            }
            ReqKind::Swap => self.swap_io_done()?,
        }
        Ok(())
    }
}
