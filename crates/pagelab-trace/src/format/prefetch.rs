//! [`PrefetchReader`]: decodes a trace's chunks on other threads, so that a consumer on the
//! first (a replacement policy) never waits for decompression while the machine has a spare
//! core. Memory stays bounded: at most [`PrefetchReader::DEPTH`] chunks per decoder are
//! claimed ahead of the consumer, and their buffers are recycled.
//!
//! The decoders (up to [`PrefetchReader::MAX_DECODERS`], each with its own reader) claim the
//! pass's chunks in order from one shared counter, so the chunk the consumer needs next is
//! always the oldest one being decoded; finished chunks wait in a window until the consumer
//! takes them in order. The consumer thus sees the chunks in order, and an error where the
//! single reader would have met it. Two decoders matter when decoding costs more than what
//! consumes the runs (FIFO, CLOCK): the pass then runs on both cores instead of one. Where the
//! consumer is the slower side (LRU, ARC) the second decoder would only take turns on the
//! consumer's core, so it decodes only while the consumer's next chunk is unfinished.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use super::TraceReader;
use crate::{ReferenceSource, Run, TraceError};

type Batch<T> = Result<(Vec<T>, [u64; 4]), TraceError>;

/// How a decoder turns chunk `c` into items (runs, or pages only); returns the references by
/// kind it counted (zeros when it does not count them).
type DecodeFn<T> = fn(&mut TraceReader, usize, &mut Vec<T>) -> Result<[u64; 4], TraceError>;

/// What the decoders and the consumer share.
struct State<T> {
    /// Position (in the pass's order) of the next chunk to claim.
    next: usize,
    /// Positions taken by the consumer.
    taken: usize,
    /// Decoded chunks at positions `taken..`, `None` while still being decoded.
    window: VecDeque<Option<Batch<T>>>,
    spare: Vec<Vec<T>>,
    live: usize,
    stop: bool,
}

struct Shared<T> {
    state: Mutex<State<T>>,
    /// A chunk was finished, or a decoder left.
    ready: Condvar,
    /// The consumer took a chunk, or asked to stop.
    room: Condvar,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // A decoder that panicked leaves consistent state behind: every update is one step.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Decoder threads over one pass of chunks, and the consumer's end of it.
struct Pass<T> {
    shared: Arc<Shared<T>>,
    workers: Vec<JoinHandle<()>>,
    total: usize,
    path: PathBuf,
}

impl<T: Send + 'static> Pass<T> {
    /// Starts `decoders` threads decoding `order` (chunk indices, in the order wanted).
    fn start(path: PathBuf, order: Vec<usize>, decoders: usize, decode: DecodeFn<T>) -> Self {
        let d = decoders.max(1);
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                next: 0,
                taken: 0,
                window: VecDeque::new(),
                spare: Vec::new(),
                live: d,
                stop: false,
            }),
            ready: Condvar::new(),
            room: Condvar::new(),
        });
        let (total, order) = (order.len(), Arc::new(order));
        let ahead = PrefetchReader::DEPTH * d;
        let workers = (0..d)
            .map(|k| {
                let (shared, order, path) = (shared.clone(), order.clone(), path.clone());
                std::thread::spawn(move || {
                    let _leave = Leave(&shared);
                    decoder(&shared, &order, &path, ahead, decode, k > 0);
                })
            })
            .collect();
        Pass {
            shared,
            workers,
            total,
            path,
        }
    }

    /// The next chunk in order into `out` (appended, or swapped in if `out` is empty) and its
    /// references by kind; `None` past the end.
    fn take(&mut self, out: &mut Vec<T>) -> Result<Option<[u64; 4]>, TraceError>
    where
        T: Clone,
    {
        let mut st = self.shared.lock();
        if st.taken == self.total {
            return Ok(None);
        }
        loop {
            if let Some(Some(_)) = st.window.front() {
                break;
            }
            if st.live == 0 {
                st.taken = self.total;
                st.stop = true;
                return Err(TraceError::invalid(format!(
                    "{}: the decoder threads stopped before every chunk was read",
                    self.path.display()
                )));
            }
            st = self
                .shared
                .ready
                .wait(st)
                .unwrap_or_else(|e| e.into_inner());
        }
        let got = st.window.pop_front().flatten().expect("checked above");
        st.taken += 1;
        st.stop |= got.is_err();
        self.shared.room.notify_all();
        match got {
            Ok((mut buf, kinds)) => {
                if out.is_empty() {
                    std::mem::swap(out, &mut buf);
                } else {
                    out.extend_from_slice(&buf);
                }
                buf.clear();
                st.spare.push(buf);
                Ok(Some(kinds))
            }
            Err(e) => {
                // Nothing after an error is read.
                st.taken = self.total;
                Err(e)
            }
        }
    }
}

/// One decoder: claims the next chunk while the window has room, decodes it, files it.
///
/// A `helper` (every decoder but the first) claims a chunk only while the consumer's next
/// chunk is not ready. When the consumer is the slower side the first decoder keeps ahead of
/// it alone and the helpers sleep, so they never take a core from it; when decoding is the
/// slower side (FIFO, CLOCK) the consumer keeps finding its next chunk unfinished and the
/// helpers decode beside the first.
fn decoder<T>(
    shared: &Shared<T>,
    order: &[usize],
    path: &std::path::Path,
    ahead: usize,
    decode: DecodeFn<T>,
    helper: bool,
) {
    let (mut reader, mut open_err) = match TraceReader::open(path) {
        Ok(r) => (Some(r), None),
        Err(e) => (None, Some(e)),
    };
    loop {
        let mut st = shared.lock();
        while !st.stop
            && st.next < order.len()
            && (st.next >= st.taken + ahead
                || helper && st.window.front().is_some_and(Option::is_some))
        {
            st = shared.room.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        if st.stop || st.next >= order.len() {
            return;
        }
        let at = st.next;
        st.next += 1;
        st.window.push_back(None);
        let mut buf = st.spare.pop().unwrap_or_default();
        drop(st);
        let got = match (&mut reader, open_err.take()) {
            (Some(r), _) => pagelab_core::interrupt::check()
                .map_err(TraceError::from)
                .and_then(|_| decode(r, order[at], &mut buf))
                .map(|k| (buf, k)),
            (None, e) => Err(e.unwrap_or_else(|| TraceError::invalid("trace not open"))),
        };
        let failed = got.is_err();
        let mut st = shared.lock();
        // Past an error the consumer has moved on: the slot is gone.
        let slot = at.checked_sub(st.taken);
        if let Some(s) = slot.and_then(|j| st.window.get_mut(j)) {
            *s = Some(got);
        }
        drop(st);
        shared.ready.notify_all();
        if failed {
            return;
        }
    }
}

/// Counts a decoder out when it ends, however it ends.
struct Leave<'a, T>(&'a Shared<T>);

impl<T> Drop for Leave<'_, T> {
    fn drop(&mut self) {
        let mut st = self.0.lock();
        st.live -= 1;
        // A decoder that panicked never files its chunk: the others stop too, and the
        // consumer, finding none left, reports it.
        st.stop |= std::thread::panicking();
        drop(st);
        self.0.ready.notify_all();
        self.0.room.notify_all();
    }
}

impl<T> Drop for Pass<T> {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.room.notify_all();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// A [`ReferenceSource`] over a [`TraceReader`] whose chunks are decoded ahead on other
/// threads. Yields exactly the runs of the reader, in order, one chunk per batch.
pub struct PrefetchReader {
    pass: Pass<Run>,
    /// The reader given (forward passes: the final check of the references by kind).
    reader: TraceReader,
    /// References by kind seen so far (forward passes).
    seen: Option<[u64; 4]>,
    /// References in the runs the last batch appended (from the chunk's own totals).
    last: Option<u64>,
    decoders: usize,
    bound: Option<u32>,
    done: bool,
}

impl PrefetchReader {
    /// Chunks claimed ahead of the consumer, per decoder -- parameter.
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

    /// Decoded chunk buffers alive at most: the chunks claimed ahead, and the consumer's.
    pub fn buffers(&self) -> usize {
        Self::DEPTH * self.decoders + 1
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
    /// (at least one). A decoder that cannot open the file yields the error at its first chunk.
    pub fn with_decoders(reader: TraceReader, decoders: usize, backward: bool) -> PrefetchReader {
        let bound = reader.page_bound();
        let (start, seen) = reader.streaming_position();
        let n = reader.chunk_count();
        // Streaming past the end has checked the kinds already.
        let check = !backward && start <= n;
        let order: Vec<usize> = if backward {
            (0..n).rev().collect()
        } else {
            (start.min(n)..n).collect()
        };
        let d = decoders.max(1);
        let pass = Pass::start(
            reader.path().to_path_buf(),
            order,
            d,
            TraceReader::read_chunk,
        );
        PrefetchReader {
            pass,
            reader,
            seen: check.then_some(seen),
            last: None,
            decoders: d,
            bound,
            done: false,
        }
    }
}

impl ReferenceSource for PrefetchReader {
    fn next_batch(&mut self, out: &mut Vec<Run>) -> Result<bool, TraceError> {
        self.last = None;
        if self.done {
            return Ok(false);
        }
        match self.pass.take(out) {
            Ok(Some(kinds)) => {
                self.last = Some(kinds.iter().sum());
                if let Some(seen) = &mut self.seen {
                    for (s, k) in seen.iter_mut().zip(kinds) {
                        *s += k;
                    }
                }
                Ok(true)
            }
            Ok(None) => {
                self.done = true;
                if let Some(seen) = self.seen {
                    self.reader.check_kinds(seen)?;
                }
                Ok(false)
            }
            Err(e) => {
                self.done = true;
                Err(e)
            }
        }
    }

    fn page_bound(&self) -> Option<u32> {
        self.bound
    }
}

/// The pages of a trace's runs, chunk by chunk from the last to the first (each chunk's pages
/// in file order), decoded ahead on up to [`PrefetchReader::MAX_DECODERS`] threads with
/// [`TraceReader::read_chunk_pages`]: for backward passes that need only the pages
/// (next-use). Counts and kinds are not checked here (a forward read checks them).
pub struct PagesBackward {
    pass: Pass<u32>,
}

impl PagesBackward {
    /// Starts decoding `reader`'s chunks, last first.
    pub fn new(reader: &TraceReader) -> PagesBackward {
        let order = (0..reader.chunk_count()).rev().collect();
        let pages =
            |t: &mut TraceReader, c, out: &mut Vec<u32>| t.read_chunk_pages(c, out).map(|_| [0; 4]);
        let d = PrefetchReader::default_decoders();
        PagesBackward {
            pass: Pass::start(reader.path().to_path_buf(), order, d, pages),
        }
    }

    /// The next chunk's pages into `out` (replacing what it held); `false` past the first
    /// chunk.
    pub fn next_chunk(&mut self, out: &mut Vec<u32>) -> Result<bool, TraceError> {
        out.clear();
        Ok(self.pass.take(out)?.is_some())
    }
}
