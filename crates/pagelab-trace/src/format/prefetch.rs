//! [`PrefetchReader`]: decodes a trace's chunks on other threads, so that a consumer on the
//! first (a replacement policy) never waits for decompression while the machine has a spare
//! core. Memory stays bounded: each decoder holds at most [`PrefetchReader::DEPTH`] decoded
//! chunks ahead, and their buffers are recycled.
//!
//! With `d` decoders, decoder `w` decodes the `w`-th, `(w + d)`-th, ... chunk of the pass, each
//! with its own reader; the consumer takes chunk `c` from decoder `c mod d`, so it sees the
//! chunks in order, and an error where the single reader would have met it. Two decoders
//! matter when decoding costs more than what consumes the runs (FIFO, CLOCK): the pass then
//! runs on both cores instead of one.

use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

use super::TraceReader;
use crate::{ReferenceSource, Run, TraceError};

type Batch<T> = Result<(Vec<T>, [u64; 4]), TraceError>;

/// How a decoder turns chunk `c` into items (runs, or pages only); returns the references by
/// kind it counted (zeros when it does not count them).
type DecodeFn<T> = fn(&mut TraceReader, usize, &mut Vec<T>) -> Result<[u64; 4], TraceError>;

/// One decoder thread: its chunks come in on `batches`, spent buffers go back on `recycle`.
struct Decoder<T> {
    batches: Receiver<Batch<T>>,
    recycle: SyncSender<Vec<T>>,
    worker: Option<JoinHandle<()>>,
}

/// A [`ReferenceSource`] over a [`TraceReader`] whose chunks are decoded ahead on other
/// threads. Yields exactly the runs of the reader, in order, one chunk per batch.
pub struct PrefetchReader {
    decoders: Vec<Decoder<Run>>,
    /// Chunks handed out so far (the next comes from decoder `taken % decoders.len()`).
    taken: usize,
    /// Chunks in the pass.
    total: usize,
    /// The reader given (forward passes: the final check of the references by kind).
    reader: TraceReader,
    /// References by kind seen so far (forward passes).
    seen: Option<[u64; 4]>,
    /// References in the runs the last batch appended (from the chunk's own totals).
    last: Option<u64>,
    bound: Option<u32>,
    done: bool,
}

impl PrefetchReader {
    /// Decoded chunks each decoder holds ahead of the consumer -- parameter.
    pub const DEPTH: usize = 3;

    /// Decoder threads at most -- parameter: beyond two, the consumer's core is shared.
    pub const MAX_DECODERS: usize = 2;

    /// Starts decoding `reader` from its current streaming position, on up to
    /// [`PrefetchReader::MAX_DECODERS`] threads (no more than the machine's cores).
    pub fn new(reader: TraceReader) -> PrefetchReader {
        Self::with_decoders(reader, Self::default_decoders(), false)
    }

    /// Decodes the chunks of `reader` from the last to the first, each chunk's runs in file
    /// order: for backward passes (next-use). The kinds are not totalled as in streaming;
    /// each chunk is still checked whole.
    pub fn backward(reader: TraceReader) -> PrefetchReader {
        Self::with_decoders(reader, Self::default_decoders(), true)
    }

    /// Decoded chunk buffers alive at most: each decoder's queue and the one it decodes,
    /// and the consumer's.
    pub fn buffers(&self) -> usize {
        self.decoders.len() * (Self::DEPTH + 1) + 1
    }

    /// References in the runs the last [`ReferenceSource::next_batch`] appended (the
    /// chunk's totals, checked against its header when it was decoded); `None` before the
    /// first batch and after the end.
    pub fn last_references(&self) -> Option<u64> {
        self.last
    }

    fn default_decoders() -> usize {
        std::thread::available_parallelism()
            .map_or(1, usize::from)
            .clamp(1, Self::MAX_DECODERS)
    }

    /// As [`PrefetchReader::new`] (or [`PrefetchReader::backward`]) with `decoders` threads
    /// (at least one). A decoder that cannot open the file yields the error as its first chunk.
    pub fn with_decoders(reader: TraceReader, decoders: usize, backward: bool) -> PrefetchReader {
        let bound = reader.page_bound();
        let (start, seen) = reader.streaming_position();
        let n = reader.chunk_count();
        // Streaming past the end has checked the kinds already.
        let check = !backward && start <= n;
        // The pass's chunks, in the order the consumer takes them.
        let order: Vec<usize> = if backward {
            (0..n).rev().collect()
        } else {
            (start.min(n)..n).collect()
        };
        let d = decoders.max(1);
        let decoders = (0..d)
            .map(|w| {
                let mine: Vec<usize> = order.iter().copied().skip(w).step_by(d).collect();
                Decoder::start(reader.path().to_path_buf(), mine, TraceReader::read_chunk)
            })
            .collect();
        PrefetchReader {
            decoders,
            taken: 0,
            total: order.len(),
            reader,
            seen: check.then_some(seen),
            last: None,
            bound,
            done: false,
        }
    }
}

impl<T: Send + 'static> Decoder<T> {
    fn start(path: std::path::PathBuf, chunks: Vec<usize>, decode: DecodeFn<T>) -> Decoder<T> {
        let (tx, batches) = sync_channel::<Batch<T>>(PrefetchReader::DEPTH);
        let (recycle, spare) = sync_channel::<Vec<T>>(PrefetchReader::DEPTH + 2);
        let worker = std::thread::spawn(move || {
            let mut reader = match TraceReader::open(&path) {
                Ok(r) => r,
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            };
            for c in chunks {
                let mut buf = spare.try_recv().unwrap_or_default();
                buf.clear();
                let got = pagelab_core::interrupt::check()
                    .map_err(TraceError::from)
                    .and_then(|_| decode(&mut reader, c, &mut buf));
                let failed = got.is_err();
                if tx.send(got.map(|k| (buf, k))).is_err() || failed {
                    return;
                }
            }
        });
        Decoder {
            batches,
            recycle,
            worker: Some(worker),
        }
    }
}

impl ReferenceSource for PrefetchReader {
    fn next_batch(&mut self, out: &mut Vec<Run>) -> Result<bool, TraceError> {
        self.last = None;
        if self.done {
            return Ok(false);
        }
        if self.taken == self.total {
            self.done = true;
            if let Some(seen) = self.seen {
                self.reader.check_kinds(seen)?;
            }
            return Ok(false);
        }
        let dec = &self.decoders[self.taken % self.decoders.len()];
        self.taken += 1;
        match dec.batches.recv() {
            Ok(Ok((mut buf, kinds))) => {
                self.last = Some(kinds.iter().sum());
                if let Some(seen) = &mut self.seen {
                    for (s, k) in seen.iter_mut().zip(kinds) {
                        *s += k;
                    }
                }
                if out.is_empty() {
                    std::mem::swap(out, &mut buf);
                } else {
                    out.extend_from_slice(&buf);
                }
                let _ = dec.recycle.try_send(buf);
                Ok(true)
            }
            Ok(Err(e)) => {
                self.done = true;
                Err(e)
            }
            Err(_) => {
                self.done = true;
                Err(TraceError::invalid(format!(
                    "{}: a decoder thread stopped before its chunks were read",
                    self.reader.path().display()
                )))
            }
        }
    }

    fn page_bound(&self) -> Option<u32> {
        self.bound
    }
}

/// Unblocks the workers (their sends fail once the receivers are gone), then reaps them.
fn stop<T>(decoders: &mut [Decoder<T>]) {
    for d in decoders.iter_mut() {
        let (_, dead) = sync_channel(0);
        d.batches = dead;
    }
    for d in decoders.iter_mut() {
        if let Some(w) = d.worker.take() {
            let _ = w.join();
        }
    }
}

impl Drop for PrefetchReader {
    fn drop(&mut self) {
        stop(&mut self.decoders);
    }
}

/// The pages of a trace's runs, chunk by chunk from the last to the first (each chunk's pages
/// in file order), decoded ahead on up to [`PrefetchReader::MAX_DECODERS`] threads with
/// [`TraceReader::read_chunk_pages`]: for backward passes that need only the pages
/// (next-use). Counts and kinds are not checked here (a forward read checks them).
pub struct PagesBackward {
    decoders: Vec<Decoder<u32>>,
    taken: usize,
    total: usize,
    path: std::path::PathBuf,
}

impl PagesBackward {
    /// Starts decoding `reader`'s chunks, last first.
    pub fn new(reader: &TraceReader) -> PagesBackward {
        let n = reader.chunk_count();
        let d = PrefetchReader::default_decoders();
        let pages =
            |t: &mut TraceReader, c, out: &mut Vec<u32>| t.read_chunk_pages(c, out).map(|_| [0; 4]);
        let decoders = (0..d)
            .map(|w| {
                let mine: Vec<usize> = (0..n).rev().skip(w).step_by(d).collect();
                Decoder::start(reader.path().to_path_buf(), mine, pages)
            })
            .collect();
        PagesBackward {
            decoders,
            taken: 0,
            total: n,
            path: reader.path().to_path_buf(),
        }
    }

    /// The next chunk's pages into `out` (replacing what it held); `false` past the first
    /// chunk.
    pub fn next_chunk(&mut self, out: &mut Vec<u32>) -> Result<bool, TraceError> {
        if self.taken == self.total {
            return Ok(false);
        }
        let dec = &self.decoders[self.taken % self.decoders.len()];
        self.taken += 1;
        match dec.batches.recv() {
            Ok(Ok((mut buf, _))) => {
                std::mem::swap(out, &mut buf);
                let _ = dec.recycle.try_send(buf);
                Ok(true)
            }
            Ok(Err(e)) => {
                self.taken = self.total;
                Err(e)
            }
            Err(_) => {
                self.taken = self.total;
                Err(TraceError::invalid(format!(
                    "{}: a decoder thread stopped before its chunks were read",
                    self.path.display()
                )))
            }
        }
    }
}

impl Drop for PagesBackward {
    fn drop(&mut self) {
        stop(&mut self.decoders);
    }
}
