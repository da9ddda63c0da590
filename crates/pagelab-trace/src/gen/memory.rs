//! The 44X's virtual store as a traced, word-addressed memory.
//!
//! ```text
//!  word address 0 ─┬─ main program: statements, then its local scalars and arrays
//!                  ├─ subroutines (same shape)
//!                  ├─ FORTRAN I/O library
//!                  ├─ COMMON / data arrays of the program
//!                  └─ tape buffer                                  ... up to 2^21 words
//!
//!  kernel ──exec(stmt)──► Instr × words at the statement's address ─┐
//!         ──load/store──► Load / Store of one word ─────────────────┴─► page = addr / page_words
//!                                                                       ─► dense page (first use)
//!                                                                       ─► Run buffer (merge)
//! ```
//!
//! The 44X virtual machine has 2^21 addressable 36-bit words; MOS pages them in 1024-word pages
//! (Brawn & Gustavson 1968, "The virtual machine" and "The real computer"). A [`TracedMemory`] is
//! that store: every word the kernels use lives in it, and the only way to read or write a word is
//! through [`TracedMemory::load`] and [`TracedMemory::store`] (and their typed forms), each of
//! which emits one reference to the page holding the word. Values are held as 64-bit patterns
//! (an `f64` or an `i64`): the study's page counts depend on addresses, not on the 36-bit
//! precision, so arithmetic is done in `f64` (deviation: the 7044's single precision had a 27-bit
//! fraction).
//!
//! **Instruction fetches.** Each kernel's code is laid out as a sequence of *statements* at fixed
//! addresses in its routine's segment ([`TracedMemory::stmt`]); a statement occupies `words`
//! words, our estimate of the one-address 7044 instructions a FORTRAN IV compiler emits for it
//! (roughly one per operand touched, one per arithmetic operation, two for loop control).
//! Executing a statement ([`TracedMemory::exec`]) fetches all its words, in address order, as
//! `Instr` references; its data references follow in program order. The rate is therefore one
//! instruction fetch per machine instruction executed, which is what the 44X's mapping hardware
//! saw. Local scalars of a routine are placed in its segment after its statements, as the IBM
//! FORTRAN IV compilers placed a routine's variables and constants beside its code; loop indices
//! live in index registers and make no reference.
//!
//! **Run buffer.** Consecutive references of one kind to one page merge into one [`Run`]; pages
//! are numbered densely in order of first reference and [`TracedMemory::page_map`] maps the dense
//! number back to the virtual page number (word address / page size).
//!
//! **Allocation.** Segments are packed one after another from word 0 with no alignment, as a
//! relocating loader packs object modules; arrays therefore straddle page boundaries as they did.

use crate::{AccessKind, Run, TraceError};

/// A statement of a kernel: `words` instruction words at a fixed code address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stmt {
    /// Word address of the statement's first instruction [words].
    pub addr: u64,
    /// Instructions the statement executes, one fetch each [words].
    pub words: u32,
}

/// A named stretch of the virtual store, for reports and documentation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// What lives there (`"main program"`, `"array A"`, ...).
    pub name: String,
    /// First word address [words].
    pub base: u64,
    /// Length [words].
    pub words: u64,
}

/// A one-dimensional array of words (FORTRAN `X(N)`, zero-based here).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Array1 {
    /// Address of element 0 [words].
    pub base: u64,
    /// Number of elements.
    pub len: u64,
}

impl Array1 {
    /// Address of element `i` (zero-based; FORTRAN's `X(i+1)`).
    #[inline]
    pub fn at(&self, i: u64) -> u64 {
        debug_assert!(i < self.len, "index {i} outside an array of {}", self.len);
        self.base + i
    }
}

/// A FORTRAN two-dimensional array stored column by column: element `(i, j)` (zero-based) is at
/// `base + i + j * ld`, where `ld` is the declared first dimension. A fixed-dimension array
/// `A(150,150)` holding a 100 × 100 matrix has `ld = 150`; a variable-dimension one has `ld = n`
/// (Brawn & Gustavson 1968, Problem T1: "storage allocated columnwise").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mat {
    /// Address of element (0, 0) [words].
    pub base: u64,
    /// Declared first dimension (column stride) [words].
    pub ld: u64,
}

impl Mat {
    /// Address of element `(i, j)` (zero-based; FORTRAN's `A(i+1, j+1)`).
    #[inline]
    pub fn at(&self, i: u64, j: u64) -> u64 {
        debug_assert!(i < self.ld);
        self.base + i + j * self.ld
    }
}

/// Where the run-time lives in a program's store (kept by [`TracedMemory`], placed by
/// [`super::runtime::place`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Os {
    pub(super) supervisor: Stmt,
    pub(super) io_table: u64,
    pub(super) job_base: u64,
    pub(super) job_pages: u64,
    pub(super) job_words: u32,
    pub(super) loader: Stmt,
    pub(super) card: u32,
}

/// The traced virtual store of one 44X program.
#[derive(Clone, Debug)]
pub struct TracedMemory {
    page_words: u64,
    limit: u64,
    next: u64,
    words: Vec<u64>,
    dense_of: Vec<u32>,
    page_map: Vec<u64>,
    runs: Vec<Run>,
    n_refs: u64,
    segments: Vec<Segment>,
    os: Option<Os>,
    code_gap: u64,
}

impl TracedMemory {
    /// An empty store of `address_space_words` words paged in `page_words`-word pages.
    pub fn new(page_words: u32, address_space_words: u64) -> Result<Self, TraceError> {
        if page_words == 0 {
            return Err(TraceError::invalid(
                "page_words: expected a page size of at least 1 word",
            ));
        }
        if address_space_words == 0 || address_space_words > (1 << 32) {
            return Err(TraceError::invalid(format!(
                "address_space_words: expected 1 to 2^32 words, got {address_space_words}"
            )));
        }
        let pages = address_space_words.div_ceil(u64::from(page_words));
        if pages > u64::from(u32::MAX) {
            return Err(TraceError::invalid(
                "page_words: too many pages for a dense u32 page number",
            ));
        }
        Ok(TracedMemory {
            page_words: u64::from(page_words),
            limit: address_space_words,
            next: 0,
            words: Vec::new(),
            dense_of: vec![0; pages as usize],
            page_map: Vec::new(),
            runs: Vec::new(),
            n_refs: 0,
            segments: Vec::new(),
            os: None,
            code_gap: 0,
        })
    }

    /// Page size [words].
    pub fn page_words(&self) -> u32 {
        self.page_words as u32
    }

    /// Reserves `words` words after everything allocated so far, zero-filled, and returns the
    /// first address. Fails, naming `what` and `address_space_words`, when the store is full.
    pub fn alloc(&mut self, what: &str, words: u64) -> Result<u64, TraceError> {
        let base = self.next;
        let end = base
            .checked_add(words)
            .filter(|&e| e <= self.limit)
            .ok_or_else(|| {
                TraceError::invalid(format!(
                    "address_space_words: {what} ({words} words at word {base}) does not fit in a \
                 store of {} words",
                    self.limit
                ))
            })?;
        self.next = end;
        self.words.resize(end as usize, 0);
        Ok(base)
    }

    /// Skips to the next page boundary (a no-op on one), leaving the words between unused.
    pub fn align_to_page(&mut self) -> Result<(), TraceError> {
        let gap = (self.page_words - self.next % self.page_words) % self.page_words;
        self.alloc("alignment to a page boundary", gap).map(|_| ())
    }

    /// Opens a named segment at the current allocation point; it extends to the next
    /// `begin_segment` or to the end of allocation.
    pub fn begin_segment(&mut self, name: &str) {
        self.close_segment();
        self.segments.push(Segment {
            name: name.to_string(),
            base: self.next,
            words: 0,
        });
    }

    fn close_segment(&mut self) {
        if let Some(s) = self.segments.last_mut() {
            s.words = self.next - s.base;
        }
    }

    /// Places a statement of `words` instructions at the current allocation point, followed by
    /// the code gap (see [`TracedMemory::set_code_gap`]).
    pub fn stmt(&mut self, words: u32) -> Result<Stmt, TraceError> {
        let addr = self.alloc("a statement", u64::from(words))?;
        if self.code_gap > 0 {
            self.alloc("code not on the traced path", self.code_gap)?;
        }
        Ok(Stmt { addr, words })
    }

    /// Leaves `words` unexecuted words after every statement placed from now on: the code of
    /// the original routine that our statements stand for but that does not run on the traced
    /// path (other branches, checks, formats), so a routine spans the pages it spanned.
    pub fn set_code_gap(&mut self, words: u64) {
        self.code_gap = words;
    }

    /// Installs the 44X OS run-time placed in this store ([`super::runtime::place`]).
    pub(crate) fn set_os(&mut self, os: Os) {
        self.os = Some(os);
    }

    /// The installed run-time, if any.
    pub(crate) fn os(&self) -> Option<Os> {
        self.os
    }

    /// The segments placed so far, the open one up to the allocation point.
    pub fn segments_so_far(&self) -> Vec<Segment> {
        let mut v = self.segments.clone();
        if let Some(s) = v.last_mut() {
            s.words = self.next - s.base;
        }
        v
    }

    /// The word at `addr` without a reference (the loader's source is the object deck, not the
    /// store).
    pub(crate) fn peek(&self, addr: u64) -> u64 {
        self.words[addr as usize]
    }

    /// Places one scalar variable and returns its address.
    pub fn scalar(&mut self, what: &str) -> Result<u64, TraceError> {
        self.alloc(what, 1)
    }

    /// Places a one-dimensional array of `len` words.
    pub fn array1(&mut self, what: &str, len: u64) -> Result<Array1, TraceError> {
        Ok(Array1 {
            base: self.alloc(what, len)?,
            len,
        })
    }

    /// Places a column-major array declared `(ld, cols)`.
    pub fn mat(&mut self, what: &str, ld: u64, cols: u64) -> Result<Mat, TraceError> {
        let words = ld.checked_mul(cols).ok_or_else(|| {
            TraceError::invalid(format!("{what}: dimensions {ld} x {cols} overflow"))
        })?;
        Ok(Mat {
            base: self.alloc(what, words)?,
            ld,
        })
    }

    #[inline]
    fn touch(&mut self, addr: u64, count: u32, kind: AccessKind) {
        let vp = (addr / self.page_words) as usize;
        let mut d = self.dense_of[vp];
        if d == 0 {
            self.page_map.push(vp as u64);
            d = self.page_map.len() as u32;
            self.dense_of[vp] = d;
        }
        let page = d - 1;
        self.n_refs += u64::from(count);
        if let Some(r) = self.runs.last_mut() {
            if r.page == page && r.kind == kind {
                if let Some(c) = r.count.checked_add(count) {
                    r.count = c;
                    return;
                }
            }
        }
        self.runs.push(Run::new(page, count, kind));
    }

    /// Executes statement `s`: fetches its instruction words in address order.
    #[inline]
    pub fn exec(&mut self, s: Stmt) {
        let mut addr = s.addr;
        let mut left = u64::from(s.words);
        while left > 0 {
            let in_page = self.page_words - addr % self.page_words;
            let n = left.min(in_page);
            self.touch(addr, n as u32, AccessKind::Instr);
            addr += n;
            left -= n;
        }
    }

    /// Reads the word at `addr` (one `Load` reference).
    #[inline]
    pub fn load(&mut self, addr: u64) -> u64 {
        debug_assert!(addr < self.next, "load outside the allocated store");
        self.touch(addr, 1, AccessKind::Load);
        self.words[addr as usize]
    }

    /// Writes the word at `addr` (one `Store` reference).
    #[inline]
    pub fn store(&mut self, addr: u64, w: u64) {
        debug_assert!(addr < self.next, "store outside the allocated store");
        self.touch(addr, 1, AccessKind::Store);
        self.words[addr as usize] = w;
    }

    /// Reads a floating-point word.
    #[inline]
    pub fn load_f(&mut self, addr: u64) -> f64 {
        f64::from_bits(self.load(addr))
    }

    /// Writes a floating-point word.
    #[inline]
    pub fn store_f(&mut self, addr: u64, v: f64) {
        self.store(addr, v.to_bits())
    }

    /// Reads a fixed-point word.
    #[inline]
    pub fn load_i(&mut self, addr: u64) -> i64 {
        self.load(addr) as i64
    }

    /// Writes a fixed-point word.
    #[inline]
    pub fn store_i(&mut self, addr: u64, v: i64) {
        self.store(addr, v as u64)
    }

    /// References made so far.
    pub fn n_references(&self) -> u64 {
        self.n_refs
    }

    /// Words allocated so far (the program's virtual extent) [words].
    pub fn extent(&self) -> u64 {
        self.next
    }

    /// Dense page number → virtual page number (word address / page size).
    pub fn page_map(&self) -> &[u64] {
        &self.page_map
    }

    /// The runs emitted so far.
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// Ends the program: returns its runs, page map, reference count and segment table.
    pub fn finish(mut self) -> (Vec<Run>, Vec<u64>, u64, Vec<Segment>) {
        self.close_segment();
        (self.runs, self.page_map, self.n_refs, self.segments)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_merge_and_pages_are_dense() {
        let mut m = TracedMemory::new(4, 64).unwrap();
        let s = m.stmt(6).unwrap(); // words 0..6: pages 0 and 1
        let a = m.array1("a", 8).unwrap(); // words 6..14
        m.exec(s);
        m.store_f(a.at(7), 2.5); // word 13: page 3
        m.store_f(a.at(6), 1.5); // word 12: page 3, merges
        assert_eq!(m.load_f(a.at(7)), 2.5);
        let (runs, map, n, _) = m.finish();
        assert_eq!(n, 6 + 3);
        assert_eq!(map, vec![0, 1, 3]);
        assert_eq!(
            runs,
            vec![
                Run::new(0, 4, AccessKind::Instr),
                Run::new(1, 2, AccessKind::Instr),
                Run::new(2, 2, AccessKind::Store),
                Run::new(2, 1, AccessKind::Load),
            ]
        );
    }

    #[test]
    fn full_store_is_an_error_naming_the_parameter() {
        let mut m = TracedMemory::new(1024, 100).unwrap();
        let e = m.alloc("array A", 101).unwrap_err().to_string();
        assert!(
            e.contains("address_space_words") && e.contains("array A"),
            "{e}"
        );
        assert!(TracedMemory::new(0, 100).is_err());
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever the access pattern: runs are maximal, pages dense in order of first use,
        /// counts add up to the references made, and every word reads back what was stored.
        #[test]
        fn runs_are_maximal_dense_and_complete(
            page in 1u32..40,
            ops in proptest::collection::vec((0u8..3, 0u64..200, 1u32..30), 1..300),
        ) {
            let mut m = TracedMemory::new(page, 1 << 12).unwrap();
            let code = m.stmt(37).unwrap();
            let data = m.array1("data", 200).unwrap();
            let mut shadow = vec![0u64; 200];
            let mut made = 0u64;
            for (op, i, v) in ops {
                match op {
                    0 => { m.exec(Stmt { addr: code.addr, words: v.min(37) }); made += u64::from(v.min(37)); }
                    1 => { prop_assert_eq!(m.load(data.at(i)), shadow[i as usize]); made += 1; }
                    _ => { m.store(data.at(i), u64::from(v)); shadow[i as usize] = u64::from(v); made += 1; }
                }
            }
            let (runs, map, n, _) = m.finish();
            prop_assert_eq!(n, made);
            prop_assert_eq!(runs.iter().map(|r| u64::from(r.count)).sum::<u64>(), made);
            let mut next = 0;
            for r in &runs {
                prop_assert!(r.page <= next);
                if r.page == next { next += 1; }
            }
            prop_assert_eq!(next as usize, map.len());
            for w in runs.windows(2) {
                prop_assert!(w[0].page != w[1].page || w[0].kind != w[1].kind);
            }
        }
    }
}
