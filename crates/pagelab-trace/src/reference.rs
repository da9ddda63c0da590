//! The unit of a reference string: the [`Run`], and the [`ReferenceSource`] seam that yields runs.

/// What a reference did, as valgrind's lackey reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum AccessKind {
    /// An instruction fetch.
    Instr = 0,
    /// A data read.
    Load = 1,
    /// A data write.
    Store = 2,
    /// A read-modify-write of one datum (lackey's `M`): one reference that changes the page.
    Modify = 3,
}

impl AccessKind {
    /// All kinds, in code order.
    pub const ALL: [AccessKind; 4] = [
        AccessKind::Instr,
        AccessKind::Load,
        AccessKind::Store,
        AccessKind::Modify,
    ];

    /// True if the reference changes the page (sets the change bit).
    #[inline]
    pub fn is_write(self) -> bool {
        matches!(self, AccessKind::Store | AccessKind::Modify)
    }

    /// The kind with code `c` (0..=3).
    #[inline]
    pub fn from_code(c: u8) -> Option<AccessKind> {
        match c {
            0 => Some(AccessKind::Instr),
            1 => Some(AccessKind::Load),
            2 => Some(AccessKind::Store),
            3 => Some(AccessKind::Modify),
            _ => None,
        }
    }

    /// One-letter name as lackey prints it (`I`, `L`, `S`, `M`).
    pub fn letter(self) -> char {
        ['I', 'L', 'S', 'M'][self as usize]
    }
}

/// `count` consecutive references of one kind to one page.
///
/// `page` is a dense page number (0, 1, 2, ... in order of first reference) within the
/// reference string it comes from; the trace file maps it back to the program's page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Run {
    /// Dense page number.
    pub page: u32,
    /// References in the run (at least 1).
    pub count: u32,
    /// What the references did.
    pub kind: AccessKind,
}

impl Run {
    /// A run of `count` references.
    #[inline]
    pub fn new(page: u32, count: u32, kind: AccessKind) -> Run {
        debug_assert!(count > 0);
        Run { page, count, kind }
    }

    /// True if the run changes its page.
    #[inline]
    pub fn is_write(&self) -> bool {
        self.kind.is_write()
    }
}

/// Anything that yields a reference string: a trace file, a synthetic locality model, an
/// instrumented kernel. Used by the replacement lab and by the system model's programs.
///
/// Sources hand out runs in batches so that the consumer's loop stays tight and errors (a
/// corrupt chunk of a trace file) surface without a per-reference check.
pub trait ReferenceSource {
    /// Appends the next runs to `out` (at least one) and returns `Ok(true)`, or returns
    /// `Ok(false)` when the string is exhausted. `out` is not cleared.
    fn next_batch(&mut self, out: &mut Vec<Run>) -> Result<bool, crate::TraceError>;

    /// One more than the largest dense page number this source will yield, if known in advance
    /// (policies size their tables from it; they grow them otherwise).
    fn page_bound(&self) -> Option<u32> {
        None
    }
}

/// A reference string held in memory.
#[derive(Clone, Debug, Default)]
pub struct VecSource {
    runs: Vec<Run>,
    pos: usize,
    bound: u32,
}

impl VecSource {
    /// Batch size handed out per call.
    const BATCH: usize = 1 << 14;

    /// A source over `runs`.
    pub fn new(runs: Vec<Run>) -> Self {
        let bound = runs.iter().map(|r| r.page + 1).max().unwrap_or(0);
        VecSource {
            runs,
            pos: 0,
            bound,
        }
    }

    /// A source of single references to `pages`, all loads (the hand-worked strings of the
    /// textbooks); consecutive equal pages merge into one run.
    pub fn from_pages(pages: &[u32]) -> Self {
        let mut runs: Vec<Run> = Vec::with_capacity(pages.len());
        for &p in pages {
            match runs.last_mut() {
                Some(r) if r.page == p => r.count += 1,
                _ => runs.push(Run::new(p, 1, AccessKind::Load)),
            }
        }
        VecSource::new(runs)
    }

    /// The runs.
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }
}

impl ReferenceSource for VecSource {
    fn next_batch(&mut self, out: &mut Vec<Run>) -> Result<bool, crate::TraceError> {
        if self.pos >= self.runs.len() {
            return Ok(false);
        }
        let end = (self.pos + Self::BATCH).min(self.runs.len());
        out.extend_from_slice(&self.runs[self.pos..end]);
        self.pos = end;
        Ok(true)
    }

    fn page_bound(&self) -> Option<u32> {
        Some(self.bound)
    }
}

/// `pages` renumbered densely, 0, 1, 2, ... in order of first reference, as a trace file holds
/// them (`format::TraceWriter`). The policies index flat tables by page number, so a string
/// in the program's own numbers must go through this first: `[7, 4_000_000_000]` would size
/// them for four billion pages (gigabytes, seconds of zeroing), and page `u32::MAX` would
/// overflow the page bound.
pub fn dense_pages(pages: &[u32]) -> Vec<u32> {
    let mut ids: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    pages
        .iter()
        .map(|&p| {
            let next = ids.len() as u32;
            *ids.entry(p).or_insert(next)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_pages_merges_repeats() {
        let s = VecSource::from_pages(&[1, 1, 2, 1]);
        assert_eq!(s.runs().len(), 3);
        assert_eq!(s.runs()[0].count, 2);
        assert_eq!(s.page_bound(), Some(3));
    }

    #[test]
    fn dense_pages_number_in_order_of_first_reference() {
        assert_eq!(dense_pages(&[]), Vec::<u32>::new());
        assert_eq!(
            dense_pages(&[240_951, 179_698, 240_951, 2_807_832_291, u32::MAX, 179_698]),
            [0, 1, 0, 2, 3, 1]
        );
    }
}
