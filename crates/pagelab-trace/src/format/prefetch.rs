//! [`PrefetchReader`]: decodes a trace's chunks on a second thread, so that a consumer on the
//! first (a replacement policy) never waits for decompression while the machine has a spare
//! core. Memory stays bounded: at most [`PrefetchReader::DEPTH`] decoded chunks are in flight,
//! and their buffers are recycled.

use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

use super::TraceReader;
use crate::{ReferenceSource, Run, TraceError};

type Batch = Result<Vec<Run>, TraceError>;

/// A [`ReferenceSource`] over a [`TraceReader`] whose chunks are decoded ahead on a thread.
/// Yields exactly the runs of the reader, in order, one chunk per batch.
pub struct PrefetchReader {
    batches: Receiver<Batch>,
    recycle: SyncSender<Vec<Run>>,
    bound: Option<u32>,
    done: bool,
    worker: Option<JoinHandle<()>>,
}

impl PrefetchReader {
    /// Decoded chunks held ahead of the consumer -- parameter.
    pub const DEPTH: usize = 3;

    /// Starts decoding `reader` from its current streaming position.
    pub fn new(reader: TraceReader) -> PrefetchReader {
        Self::start(reader, false)
    }

    /// Decodes the chunks of `reader` from the last to the first, each chunk's runs in file
    /// order: for backward passes (next-use). The kinds are not totalled as in streaming;
    /// each chunk is still checked whole.
    pub fn backward(reader: TraceReader) -> PrefetchReader {
        Self::start(reader, true)
    }

    fn start(mut reader: TraceReader, backward: bool) -> PrefetchReader {
        let bound = reader.page_bound();
        let (tx, batches) = sync_channel::<Batch>(Self::DEPTH);
        let (recycle, spare) = sync_channel::<Vec<Run>>(Self::DEPTH + 2);
        let mut left = reader.chunk_count();
        let worker = std::thread::spawn(move || loop {
            let mut buf = spare.try_recv().unwrap_or_default();
            buf.clear();
            let got = if backward {
                match left.checked_sub(1) {
                    None => Ok(false),
                    Some(c) => {
                        left = c;
                        pagelab_core::interrupt::check()
                            .map_err(TraceError::from)
                            .and_then(|_| reader.read_chunk(c, &mut buf))
                            .map(|_| true)
                    }
                }
            } else {
                reader.next_batch(&mut buf)
            };
            match got {
                Ok(true) => {
                    if tx.send(Ok(buf)).is_err() {
                        return;
                    }
                }
                Ok(false) => return,
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            }
        });
        PrefetchReader {
            batches,
            recycle,
            bound,
            done: false,
            worker: Some(worker),
        }
    }
}

impl ReferenceSource for PrefetchReader {
    fn next_batch(&mut self, out: &mut Vec<Run>) -> Result<bool, TraceError> {
        if self.done {
            return Ok(false);
        }
        match self.batches.recv() {
            Ok(Ok(mut buf)) => {
                if out.is_empty() {
                    std::mem::swap(out, &mut buf);
                } else {
                    out.extend_from_slice(&buf);
                }
                let _ = self.recycle.try_send(buf);
                Ok(true)
            }
            Ok(Err(e)) => {
                self.done = true;
                Err(e)
            }
            Err(_) => {
                self.done = true;
                Ok(false)
            }
        }
    }

    fn page_bound(&self) -> Option<u32> {
        self.bound
    }
}

impl Drop for PrefetchReader {
    fn drop(&mut self) {
        // Unblock the worker (its sends fail once the receiver is gone), then reap it.
        let (_, dead) = sync_channel(0);
        self.batches = dead;
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}
