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
    File(u32),
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
    pub(super) fn file_request(&mut self, i: usize) -> Req {
        let d = &self.spec.disk;
        let s = &self.spec.swapper;
        let drive = self.disk_rng.gen_range(0..d.drives);
        let block = if drive == s.swap_drive {
            // The file system lies outside the swap area.
            let outside = d.blocks_per_drive - s.swap_blocks;
            let b = self.disk_rng.gen_range(0..outside.max(1));
            if b >= s.swap_base {
                b + s.swap_blocks
            } else {
                b
            }
        } else {
            self.disk_rng.gen_range(0..d.blocks_per_drive)
        };
        Req {
            kind: ReqKind::File(i as u32),
            drive,
            block,
            sectors: 1,
            queued: self.now,
        }
    }

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
        match r.kind {
            ReqKind::File(p) => {
                self.st.file_ios += 1.0;
                self.st.file_wait_ms += ms(self.now - r.queued);
                self.wakeup(p as usize);
            }
            ReqKind::Swap => self.swap_io_done()?,
        }
        Ok(())
    }
}
