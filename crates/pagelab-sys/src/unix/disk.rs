//! The RK11 controller: one FIFO queue for both RK05 drives, no overlapped seeks (Chanson
//! §2.A; rk.c `rkstrategy` appends to the queue). Service = seek + rotational latency +
//! transfer, seek(d) = min + (max − min)·√((d − 1)/(C − 2)) (fidelity-notes §1.7 [I]).

use super::machine::*;
use super::report::ms;
use crate::SysError;
use pagelab_core::Tick;
use rand::Rng as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ReqKind {
    /// A block read into buffer `.0` (`bread`).
    Read(usize),
    /// Buffer `.0` written; `.1` the process waiting for it (`bwrite`), none if asynchronous
    /// (`bawrite`, `bdwrite` pushed out, `bflush`).
    Write(usize, Option<usize>),
    /// A swap transfer through the swapper's buffer.
    Swap,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Req {
    pub(super) kind: ReqKind,
    pub(super) drive: u32,
    pub(super) block: u32,
    pub(super) sectors: u32,
    pub(super) queued: Tick,
}

impl Machine {
    pub(super) fn submit(&mut self, r: Req) {
        self.disk_q.push_back(r);
        if self.disk_busy.is_none() {
            self.start_disk();
        }
    }

    pub(super) fn start_disk(&mut self) {
        let Some(r) = self.disk_q.pop_front() else {
            return;
        };
        let d = &self.spec.disk;
        let cyl = r.block / d.blocks_per_cylinder;
        let cyls = d.blocks_per_drive.div_ceil(d.blocks_per_cylinder);
        let dist = cyl.abs_diff(self.arm[r.drive as usize]);
        let seek_ms = if dist == 0 {
            0.0
        } else {
            let span = f64::from(cyls.saturating_sub(2).max(1));
            d.seek_min_ms
                + (d.seek_max_ms - d.seek_min_ms) * (f64::from(dist - 1) / span).sqrt().min(1.0)
        };
        let latency_ms = self.disk_rng.gen::<f64>() * d.rotation_ms;
        let transfer_ms = f64::from(r.sectors) * d.rotation_ms / f64::from(d.sectors_per_track);
        let last_block = (r.block + r.sectors.saturating_sub(1)).min(d.blocks_per_drive - 1);
        self.arm[r.drive as usize] = last_block / d.blocks_per_cylinder;
        self.st.disk_reqs += 1.0;
        self.st.disk_queue_wait_ms += ms(self.now - r.queued);
        let t = Tick::from_secs_f64((seek_ms + latency_ms + transfer_ms) / 1e3).max(Tick(1));
        self.disk_busy = Some(r);
        self.q.schedule(self.now + t, Ev::DiskDone);
    }

    pub(super) fn disk_done(&mut self) -> Result<(), SysError> {
        let Some(r) = self.disk_busy.take() else {
            return Ok(());
        };
        self.start_disk();
        // rkintr: the controller's interrupt, iodone and the next request's start.
        self.interrupt(super::cpu::us_to_ns(self.spec.machine.disk_intr_us));
        match r.kind {
            ReqKind::Read(b) | ReqKind::Write(b, _) => {
                self.st.file_ios += 1.0;
                self.st.file_wait_ms += ms(self.now - r.queued);
                self.buffer_io_done(r.kind, b);
            }
            ReqKind::Swap => self.swap_io_done()?,
        }
        Ok(())
    }
}
