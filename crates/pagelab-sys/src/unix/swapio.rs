//! Carrying out the swapper's verdicts: swap-in and swap-out I/O through V6's single swap
//! buffer (bio.c `swap`, text.c `xswap`), synchronous for `sched`.

use super::disk_request::{Req, ReqKind};
use super::machine::*;
use super::process::*;
use super::stats::ms;
use super::swapper::{
    decide, OutReason, ProcView, Stat, SwapJob, SwapperParams, TextView, Verdict,
};
use crate::SysError;

impl Machine {
    pub(super) fn views(&self) -> (Vec<ProcView>, Vec<TextView>) {
        let procs = self
            .procs
            .iter()
            .map(|p| ProcView {
                stat: p.stat,
                loaded: p.loaded,
                locked: p.locked,
                time: p.time,
                size: p.size,
                text: p.text,
                in_bio: p.stat == Stat::SleepHigh && matches!(p.step, Step::Bio),
            })
            .collect();
        let texts = self
            .texts
            .iter()
            .map(|t| TextView {
                size: t.size,
                in_core: t.in_core,
            })
            .collect();
        (procs, texts)
    }

    /// One decision of the swapper, carried out.
    pub(super) fn run_sched(&mut self) -> Result<(), SysError> {
        let (procs, texts) = self.views();
        let params = SwapperParams {
            out_min_s: self.spec.swapper.out_min_s,
            in_min_s: self.spec.swapper.in_min_s,
            easy_io: self.spec.swapper.easy_includes_io,
        };
        match decide(&procs, &texts, &self.core, params) {
            Verdict::Idle => self.sched = SchedState::Runout,
            Verdict::Wait { .. } => {
                self.sched = SchedState::Runin;
                self.st.sched_wait_runin += 1.0;
            }
            Verdict::SwapIn {
                proc,
                need,
                with_text,
                ..
            } => self.start_swap_in(proc, need, with_text)?,
            // CHANSON §3.1: "whenever a process does I/O, it is quite likely that it will get
            // swapped out before the I/O is completed"; counted to test it.
            Verdict::SwapOut { victim, reason, .. } => {
                self.start_swap_out(victim, reason, procs[victim].in_bio)?
            }
        }
        Ok(())
    }

    /// `sched`'s swap-in of `proc` into `need` clicks of core, its text first when it must
    /// come in too (`with_text`).
    fn start_swap_in(&mut self, proc: usize, need: u32, with_text: bool) -> Result<(), SysError> {
        let a = self
            .core
            .alloc(need)
            .ok_or_else(|| self.engine_err("swap-in"))?;
        let mut text_first = None;
        let mut image_at = a;
        if let Some(t) = self.procs[proc].text {
            if with_text {
                self.texts[t].core = Some(a);
                image_at = a + self.texts[t].size;
                text_first = Some(self.texts[t].size);
            }
            self.texts[t].in_core += 1;
        }
        let p = &mut self.procs[proc];
        p.core = Some(image_at);
        p.locked = true;
        let clicks = text_first.unwrap_or(p.size);
        let block = p.swap.unwrap_or(self.spec.swapper.swap_base);
        self.job = Some(SwapJob::In {
            proc,
            text_first,
            started: self.now,
        });
        self.sched = SchedState::Io;
        let req = self.swap_request(block, clicks);
        self.submit(req);
        Ok(())
    }

    /// `sched`'s swap-out of `victim`, `in_io` if it is asleep in a block access of its own.
    fn start_swap_out(
        &mut self,
        victim: usize,
        reason: OutReason,
        in_io: bool,
    ) -> Result<(), SysError> {
        self.stop_cpu(victim);
        let swap_blocks = self.procs[victim].size.div_ceil(8);
        let s = self
            .swapmap
            .alloc(swap_blocks)
            .ok_or_else(|| no_swap("a swap-out"))?;
        if let Some(t) = self.procs[victim].text {
            let tx = &mut self.texts[t];
            tx.in_core -= 1;
            if tx.in_core == 0 {
                if let Some(a) = tx.core.take() {
                    self.core
                        .free(tx.size, a)
                        .map_err(|e| self.engine_err(&e))?;
                }
            }
        }
        let p = &mut self.procs[victim];
        p.loaded = false;
        p.locked = true;
        p.swap = Some(s);
        let size = p.size;
        self.job = Some(SwapJob::Out {
            proc: victim,
            started: self.now,
            in_io,
            easy: reason == OutReason::Easy,
        });
        self.sched = SchedState::Io;
        let req = self.swap_request(s, size);
        self.submit(req);
        Ok(())
    }

    pub(super) fn engine_err(&self, what: &str) -> SysError {
        SysError::Invalid {
            origin: "engine".into(),
            path: format!("t={}", self.now.as_secs_f64()),
            what: format!("core map inconsistent at {what}: expected the swapper's hole"),
        }
    }

    pub(super) fn swap_request(&self, block: u32, clicks: u32) -> Req {
        let bytes = u64::from(clicks) * u64::from(self.spec.memory.click_bytes);
        Req {
            kind: ReqKind::Swap,
            drive: self.spec.swapper.swap_drive,
            block,
            sectors: bytes.div_ceil(512).max(1) as u32,
            queued: self.now,
        }
    }

    pub(super) fn swap_io_done(&mut self) -> Result<(), SysError> {
        match self.job.take() {
            Some(SwapJob::In {
                proc,
                text_first: Some(_),
                started,
            }) => {
                // The text is in; now the image.
                let p = &self.procs[proc];
                let req = self.swap_request(p.swap.unwrap_or(self.spec.swapper.swap_base), p.size);
                self.job = Some(SwapJob::In {
                    proc,
                    text_first: None,
                    started,
                });
                self.submit(req);
            }
            Some(SwapJob::In {
                proc,
                text_first: None,
                started,
            }) => {
                let now = self.now;
                let p = &mut self.procs[proc];
                if let Some(s) = p.swap.take() {
                    self.swapmap
                        .free(p.size.div_ceil(8), s)
                        .map_err(|e| SysError::Invalid {
                            origin: "engine".into(),
                            path: "swapper".into(),
                            what: format!("swap map: {e}"),
                        })?;
                }
                p.loaded = true;
                p.locked = false;
                p.time = 0;
                p.ready_since = now;
                let size = p.size;
                if p.stat == Stat::Run && p.pri < self.curpri && self.spec.scheduler.wakeup_preempts
                {
                    self.runrun = true;
                }
                self.st.swap_ins += 1.0;
                self.st.swap_clicks += f64::from(size);
                self.st.swap_ops_ms += ms(now - started);
                self.sched = SchedState::Ready;
            }
            Some(SwapJob::Out {
                proc,
                started,
                in_io,
                easy,
            }) => {
                let p = &mut self.procs[proc];
                if let Some(a) = p.core.take() {
                    self.core.free(p.size, a).map_err(|e| SysError::Invalid {
                        origin: "engine".into(),
                        path: "swapper".into(),
                        what: format!("core map: {e}"),
                    })?;
                }
                p.locked = false;
                p.time = 0;
                p.swap_outs += 1;
                let size = p.size;
                self.st.swap_outs += 1.0;
                self.st.swap_outs_io += f64::from(u8::from(in_io));
                self.st.swap_outs_easy += f64::from(u8::from(easy));
                self.st.swap_clicks += f64::from(size);
                self.st.swap_ops_ms += ms(self.now - started);
                self.sched = SchedState::Ready;
            }
            None => {}
        }
        Ok(())
    }
}
