//! Next-use: for each run of a string, the index of the next run of the same page -- the
//! future that [`super::min::Min`] needs. [`NextUse`] annotates a string in memory (4 bytes a
//! run), [`TraceNextUse`] a trace file read backwards by chunks (about 2 bytes a run).

use crate::format::{PagesBackward, TraceReader};
use crate::Run;
use crate::TraceError;
use std::path::Path;

/// Key of a next reference that never comes.
pub const NEVER: u64 = u64::MAX;

/// A string of runs annotated with, for each run, the index of the next run of the same page.
///
/// Run indices order the future exactly as reference times do, and at 4 bytes a run they
/// halve the memory of times: on a long trace the annotation's size, not its arithmetic, is
/// what costs (first touch of fresh memory). Strings of 2^32 - 1 runs or more do not fit.
#[derive(Clone, Debug)]
pub struct NextUse<'a> {
    runs: &'a [Run],
    /// Next-run indices in reverse order of runs (the backward pass pushes them).
    next_rev: Vec<u32>,
    bound: u32,
}

const NEVER32: u32 = u32::MAX;

impl<'a> NextUse<'a> {
    /// Annotates `runs` in one backward pass (O(runs + pages) time, 4 bytes a run).
    pub fn compute(runs: &'a [Run]) -> Self {
        debug_assert!(
            runs.len() < NEVER32 as usize,
            "too many runs for 32-bit next-use"
        );
        let bound = runs.iter().map(|r| r.page + 1).max().unwrap_or(0);
        let mut last = vec![NEVER32; bound as usize];
        let mut next_rev = Vec::with_capacity(runs.len());
        for (i, r) in runs.iter().enumerate().rev() {
            let slot = &mut last[r.page as usize];
            next_rev.push(*slot);
            *slot = i as u32;
        }
        NextUse {
            runs,
            next_rev,
            bound,
        }
    }

    /// The annotated runs.
    pub fn runs(&self) -> &'a [Run] {
        self.runs
    }

    /// Index of the next run of the page of run `i` (an order of the future, not a time), or
    /// [`NEVER`].
    #[inline]
    pub fn next(&self, i: usize) -> u64 {
        match self.next_rev[self.runs.len() - 1 - i] {
            NEVER32 => NEVER,
            j => u64::from(j),
        }
    }

    /// One more than the largest page number.
    pub fn page_bound(&self) -> u32 {
        self.bound
    }
}

/// Next-use of a pagelab trace file, computed by reading its chunks backwards: the runs are
/// not kept (the forward pass decodes them again), so MIN over a trace file holds about 2
/// bytes a run instead of 16. Like [`NextUse`], it is the only other way to build a [`Min`](super::min::Min).
///
/// Each run stores the distance to the next run of its page [runs] in 16 bits; a distance of
/// [`TraceNextUse::FAR`] or more, and "never again", are escaped to a 32-bit column. Locality
/// makes escapes rare, so the annotation is close to 2 bytes a run. It is read in run order
/// through a [`NextUseCursor`].
#[derive(Clone, Debug)]
pub struct TraceNextUse {
    /// Distances, in run order (the backward pass fills them from the end).
    dist: Vec<u16>,
    /// Next-run indices of the escaped runs (or `NEVER32`), in reverse order.
    far_rev: Vec<u32>,
    bound: u32,
}

impl TraceNextUse {
    /// Distance code that escapes to the 32-bit column.
    pub const FAR: u16 = u16::MAX;

    /// Annotates every run of the trace `reader` reads, in one backward pass over its chunks.
    pub fn compute(reader: &mut TraceReader) -> Result<Self, TraceError> {
        let n = Self::check_len(reader)?;
        let mut buf = Vec::new();
        let mut c = reader.chunk_count();
        let mut a = Annotator::new(reader, n);
        while let Some(prev) = c.checked_sub(1) {
            c = prev;
            pagelab_core::interrupt::check()?; // Ctrl-C/SIGTERM: once per chunk read
            buf.clear();
            reader.read_chunk_pages(c, &mut buf)?;
            a.chunk(reader, &buf)?;
        }
        a.finish(reader)
    }

    /// As [`TraceNextUse::compute`], the chunks' pages decoded on other threads while this
    /// one annotates ([`PagesBackward`]).
    pub fn compute_prefetched(path: &Path) -> Result<Self, TraceError> {
        let reader = TraceReader::open(path)?;
        let n = Self::check_len(&reader)?;
        let mut a = Annotator::new(&reader, n);
        let mut chunks = PagesBackward::new(&reader);
        let mut buf = Vec::new();
        while chunks.next_chunk(&mut buf)? {
            a.chunk(&reader, &buf)?;
        }
        a.finish(&reader)
    }

    /// Annotates `runs` in memory as [`TraceNextUse::compute`] would a file of them, fed
    /// backwards `chunk` runs at a time (tests).
    #[cfg(test)]
    pub(crate) fn of_runs(runs: &[Run], chunk: usize) -> Self {
        let bound = runs.iter().map(|r| r.page + 1).max().unwrap_or(0);
        let mut a = Annotator::with_bound(bound, runs.len() as u32);
        for c in runs.rchunks(chunk.max(1)) {
            let pages: Vec<u32> = c.iter().map(|r| r.page).collect();
            a.pages(&pages)
                .expect("pages below the bound, as many runs as announced");
        }
        assert_eq!(a.i, 0);
        a.done()
    }

    fn check_len(reader: &TraceReader) -> Result<u32, TraceError> {
        let n = reader.runs();
        if n >= u64::from(NEVER32) {
            return Err(TraceError::invalid(format!(
                "{}: {n} runs; MIN handles at most {} runs",
                reader.path().display(),
                NEVER32 - 1
            )));
        }
        Ok(n as u32)
    }

    /// A reader of the annotation from the first run on.
    pub fn cursor(&self) -> NextUseCursor<'_> {
        NextUseCursor {
            dist: &self.dist,
            far_rev: &self.far_rev,
            i: 0,
            far: 0,
        }
    }

    /// Runs annotated.
    pub fn len(&self) -> usize {
        self.dist.len()
    }

    /// True for an empty trace.
    pub fn is_empty(&self) -> bool {
        self.dist.is_empty()
    }

    /// Memory held [bytes].
    pub fn bytes(&self) -> u64 {
        (2 * self.dist.len() + 4 * self.far_rev.len()) as u64
    }

    /// One more than the largest page number.
    pub fn page_bound(&self) -> u32 {
        self.bound
    }
}

/// The backward pass of [`TraceNextUse`]: fed chunks from the last to the first.
struct Annotator {
    last: Vec<u32>,
    /// Every run's distance, filled from the end: runs `i..` are done.
    dist: Vec<u16>,
    far_rev: Vec<u32>,
    bound: u32,
    i: u32,
}

impl Annotator {
    fn new(reader: &TraceReader, n: u32) -> Self {
        Self::with_bound(
            u32::try_from(reader.distinct_pages()).unwrap_or(u32::MAX),
            n,
        )
    }

    fn with_bound(bound: u32, n: u32) -> Self {
        Annotator {
            last: vec![NEVER32; bound as usize],
            dist: vec![0; n as usize],
            far_rev: Vec::new(),
            bound,
            i: n,
        }
    }

    /// One chunk's pages (in file order); chunks come last first.
    fn chunk(&mut self, reader: &TraceReader, pages: &[u32]) -> Result<(), TraceError> {
        self.pages(pages).map_err(|bad| match bad {
            None => too_many_runs(reader),
            Some(page) => page_out_of_range(reader, page, self.bound),
        })
    }

    /// As [`Annotator::chunk`]; the error is `None` for more runs than announced, else the
    /// page out of range. The runs' distances go to `dist[i - pages.len()..i]`, zipped with
    /// the pages backwards, so the loop has no bounds check but the page's.
    fn pages(&mut self, pages: &[u32]) -> Result<(), Option<u32>> {
        let hi = self.i as usize;
        let lo = hi.checked_sub(pages.len()).ok_or(None)?;
        let last = &mut self.last[..];
        for (k, (&page, d)) in pages.iter().zip(&mut self.dist[lo..hi]).enumerate().rev() {
            let i = (lo + k) as u32;
            let slot = last.get_mut(page as usize).ok_or(Some(page))?;
            let far = slot.wrapping_sub(i);
            if *slot != NEVER32 && far < u32::from(TraceNextUse::FAR) {
                *d = far as u16;
            } else {
                *d = TraceNextUse::FAR;
                self.far_rev.push(*slot);
            }
            *slot = i;
        }
        self.i = lo as u32;
        Ok(())
    }

    fn finish(self, reader: &TraceReader) -> Result<TraceNextUse, TraceError> {
        if self.i != 0 {
            return Err(too_many_runs(reader));
        }
        Ok(self.done())
    }

    fn done(mut self) -> TraceNextUse {
        self.far_rev.shrink_to_fit();
        TraceNextUse {
            dist: self.dist,
            far_rev: self.far_rev,
            bound: self.bound,
        }
    }
}

/// Reads a [`TraceNextUse`] in run order. It holds the two columns as slices, so that a
/// loop over a copy keeps their addresses in registers.
#[derive(Clone, Debug)]
pub struct NextUseCursor<'a> {
    dist: &'a [u16],
    far_rev: &'a [u32],
    i: usize,
    far: usize,
}

impl NextUseCursor<'_> {
    /// Index of the current run (the one [`NextUseCursor::next_use`] annotates next).
    #[inline]
    pub fn at(&self) -> u64 {
        self.i as u64
    }

    /// Index of the next run of the page of the current run, or [`NEVER`]; moves on one run.
    #[inline]
    pub fn next_use(&mut self) -> u64 {
        let d = self.dist[self.i];
        let at = self.i as u64;
        self.i += 1;
        if d != TraceNextUse::FAR {
            return at + u64::from(d);
        }
        self.far += 1;
        match self.far_rev[self.far_rev.len() - self.far] {
            NEVER32 => NEVER,
            j => u64::from(j),
        }
    }
}

fn too_many_runs(reader: &TraceReader) -> TraceError {
    TraceError::Corrupt {
        path: reader.path().to_path_buf(),
        offset: 0,
        what: format!(
            "the chunks hold more or fewer runs than the header's {}",
            reader.runs()
        ),
    }
}

fn page_out_of_range(reader: &TraceReader, page: u32, bound: u32) -> TraceError {
    TraceError::Corrupt {
        path: reader.path().to_path_buf(),
        offset: 0,
        what: format!("page {page} in a chunk; the header counts {bound} distinct pages"),
    }
}
