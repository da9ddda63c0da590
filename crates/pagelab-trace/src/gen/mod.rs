//! Instrumented kernels: the M44/44X study's programs, run for real, every reference traced.
//!
//! ```text
//!   M44Program + M44Params + seed ──► input data (seeded) ──► kernel ──► TracedMemory ──► Generated
//!                                                               │          (word store,     runs, page map,
//!                                                               │           dense pages,    result check
//!                                                               └─ result ─ run buffer)  ──► VecSource
//! ```
//!
//! Brawn & Gustavson, "Program behavior in a paging environment" (FJCC 1968), measured nine
//! versions of three problems on the M44/44X: matrix inversion (T1.1X, T1.1X\*\*, T1.1X\*), data
//! correlation of ship tracks (T2.1X, T2.1X\*) and Quicksort of 10,000 ten-word items (T4.1XQ,
//! T4.1XQ\*, T4.1XQR, T4.1XQR\*). Their point was that small changes of programming style, with
//! the algorithm unchanged, change paging behaviour more than the replacement policy does. Here
//! each version is a Rust kernel that computes the real result (an inverse that checks, a
//! converged track, a sorted file) while every instruction fetch and every load and store of a
//! 36-bit word goes through a [`memory::TracedMemory`] modelled on the 44X's virtual store
//! (2^21 words, 1024-word pages). The kernels are instrumented rather than captured from
//! compiled programs because what the study varies is the FORTRAN storage layout
//! (column-major arrays of fixed or variable dimension, one array per field or one per record,
//! pointers or records), which a modern compiler and allocator would not reproduce.
//!
//! The modules: [`memory`] (the traced store, statements, tape I/O), [`runtime`] (the 44X OS
//! and run-time pages below each program), [`matrix`] (T1 and the MINV routine),
//! [`correlation`] (T2), [`sort`] (T4). `docs/m44-programs.md` describes each program,
//! its layout and what we chose where the paper is silent.

#![warn(missing_docs)]

pub mod correlation;
pub mod matrix;
pub mod memory;
pub mod runtime;
pub mod sort;
pub mod tape;

use crate::{Run, TraceError, VecSource};
use correlation::{CorrelationParams, CorrelationVersion};
use matrix::{MatrixParams, MatrixVersion};
use memory::{Segment, TracedMemory};
use pagelab_core::RngStreams;
use runtime::RuntimeParams;
use sort::{SortParams, SortVersion};

/// The nine program versions of the M44/44X study.
#[allow(non_camel_case_types)]
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum M44Program {
    /// T1.1X: inversion in a fixed 150 × 150 array, row-wise input and output.
    #[serde(rename = "t1-1x")]
    T1_1X,
    /// T1.1X*: variable dimensions, column-wise input and output.
    #[serde(rename = "t1-1x-star")]
    T1_1XStar,
    /// T1.1X**: variable dimensions, row-wise input and output.
    #[serde(rename = "t1-1x-star-star")]
    T1_1XStarStar,
    /// T2.1X: ship-track correlation, one fixed-dimension array per field.
    #[serde(rename = "t2-1x")]
    T2_1X,
    /// T2.1X*: ship-track correlation, each report's fields adjacent in one array.
    #[serde(rename = "t2-1x-star")]
    T2_1XStar,
    /// T4.1XQ: Quicksort keysort of the whole file through a pointer table.
    #[serde(rename = "t4-1xq")]
    T4_1XQ,
    /// T4.1XQ*: keysort of ten sublists, then a ten-way merge.
    #[serde(rename = "t4-1xq-star")]
    T4_1XQStar,
    /// T4.1XQR: Quicksort record sort of the whole file.
    #[serde(rename = "t4-1xqr")]
    T4_1XQR,
    /// T4.1XQR*: record sort of ten sublists, then a ten-way merge.
    #[serde(rename = "t4-1xqr-star")]
    T4_1XQRStar,
}

/// One line of `pagelab list programs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProgramInfo {
    /// The program.
    pub program: M44Program,
    /// Configuration name (kebab case).
    pub name: &'static str,
    /// The paper's label.
    pub label: &'static str,
    /// What it is, in one line.
    pub description: &'static str,
}

/// The programs, in the paper's order.
pub const INFO: &[ProgramInfo] = &[
    ProgramInfo {
        program: M44Program::T1_1X,
        name: "t1-1x",
        label: "T1.1X",
        description: "matrix inversion (order 100, max pivot), fixed 150x150 array, row-wise I/O",
    },
    ProgramInfo {
        program: M44Program::T1_1XStarStar,
        name: "t1-1x-star-star",
        label: "T1.1X**",
        description: "matrix inversion, variable dimensions (n x n array), row-wise I/O",
    },
    ProgramInfo {
        program: M44Program::T1_1XStar,
        name: "t1-1x-star",
        label: "T1.1X*",
        description: "matrix inversion, variable dimensions, column-wise I/O",
    },
    ProgramInfo {
        program: M44Program::T2_1X,
        name: "t2-1x",
        label: "T2.1X",
        description: "ship-track correlation (6 ships, 26 equations, 240 reports), array per field",
    },
    ProgramInfo {
        program: M44Program::T2_1XStar,
        name: "t2-1x-star",
        label: "T2.1X*",
        description: "ship-track correlation, each report's fields adjacent in one array",
    },
    ProgramInfo {
        program: M44Program::T4_1XQ,
        name: "t4-1xq",
        label: "T4.1XQ",
        description: "Quicksort of 10,000 10-word items, keysort through a pointer table",
    },
    ProgramInfo {
        program: M44Program::T4_1XQStar,
        name: "t4-1xq-star",
        label: "T4.1XQ*",
        description: "keysort of 10 sublists, then a 10-way merge through the pointers",
    },
    ProgramInfo {
        program: M44Program::T4_1XQR,
        name: "t4-1xqr",
        label: "T4.1XQR",
        description: "Quicksort record sort (whole records exchanged), sequential output",
    },
    ProgramInfo {
        program: M44Program::T4_1XQRStar,
        name: "t4-1xqr-star",
        label: "T4.1XQR*",
        description: "record sort of 10 sublists, then a 10-way merge",
    },
];

impl M44Program {
    /// All nine, in the paper's order.
    pub const ALL: [M44Program; 9] = [
        M44Program::T1_1X,
        M44Program::T1_1XStarStar,
        M44Program::T1_1XStar,
        M44Program::T2_1X,
        M44Program::T2_1XStar,
        M44Program::T4_1XQ,
        M44Program::T4_1XQStar,
        M44Program::T4_1XQR,
        M44Program::T4_1XQRStar,
    ];

    /// This program's line of [`INFO`].
    pub fn info(self) -> &'static ProgramInfo {
        INFO.iter()
            .find(|i| i.program == self)
            .expect("every program has an INFO line")
    }

    /// Configuration name (`"t4-1xqr-star"`).
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The paper's label (`"T4.1XQR*"`).
    pub fn label(self) -> &'static str {
        self.info().label
    }

    /// The program called `name` (configuration name or paper label, any case).
    pub fn from_name(name: &str) -> Result<M44Program, TraceError> {
        INFO.iter()
            .find(|i| i.name.eq_ignore_ascii_case(name) || i.label.eq_ignore_ascii_case(name))
            .map(|i| i.program)
            .ok_or_else(|| {
                let names: Vec<&str> = INFO.iter().map(|i| i.name).collect();
                TraceError::invalid(format!(
                    "program: expected one of {}, got {name:?}",
                    names.join(", ")
                ))
            })
    }

    /// The virtual size the paper gives for this program at its default size, if it gives one
    /// [pages], with where it says so. Only T4 is stated in pages of the whole program.
    pub fn paper_pages(self) -> Option<(u64, &'static str)> {
        match self {
            M44Program::T4_1XQ
            | M44Program::T4_1XQStar
            | M44Program::T4_1XQR
            | M44Program::T4_1XQRStar => Some((
                129,
                "B&G 1968, 'The effects of real size': five jobs 'each requiring 129 pages'; \
                 'None of these changes altered the total number of pages referenced'",
            )),
            _ => None,
        }
    }
}

/// Parameters of a program run; the defaults are the paper's sizes.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct M44Params {
    /// Page size [words] -- parameter. Source: B&G 1968, "The real computer" (1024).
    pub page_words: u32,
    /// Addressable virtual store of a 44X [words] -- parameter. Source: B&G 1968, "The virtual
    /// machine" (2^21).
    pub address_space_words: u64,
    /// Tape buffer [words] -- parameter. Not in the paper; a quarter page.
    pub buffer_words: u64,
    /// Problem T1 sizes.
    pub matrix: MatrixParams,
    /// Problem T2 sizes.
    pub correlation: CorrelationParams,
    /// Problem T4 sizes.
    pub sort: SortParams,
    /// The 44X OS and run-time pages every program touches ([`runtime`]).
    pub runtime: RuntimeParams,
}

impl Default for M44Params {
    fn default() -> Self {
        M44Params {
            page_words: 1024,
            address_space_words: 1 << 21,
            buffer_words: 256,
            matrix: MatrixParams::default(),
            correlation: CorrelationParams::default(),
            sort: SortParams::default(),
            runtime: RuntimeParams::default(),
        }
    }
}

/// Did the program compute the right thing? A named figure of merit and its limit.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ResultCheck {
    /// What `value` measures (with its unit).
    pub what: &'static str,
    /// The measured figure.
    pub value: f64,
    /// The largest acceptable value.
    pub limit: f64,
    /// `value <= limit` (false for NaN).
    pub passed: bool,
    /// Further figures of the run, in words (may be empty).
    pub detail: String,
}

impl ResultCheck {
    /// A check that passes when `value <= limit`.
    pub fn new(what: &'static str, value: f64, limit: f64) -> Self {
        ResultCheck {
            what,
            value,
            limit,
            passed: value <= limit,
            detail: String::new(),
        }
    }
}

/// A program's reference string and what it computed.
#[derive(Clone, Debug)]
pub struct Generated {
    /// Which program.
    pub program: M44Program,
    /// The reference string; `Run.page` is dense (order of first reference).
    pub runs: Vec<Run>,
    /// Dense page → virtual page number (word address / `page_words`).
    pub page_map: Vec<u64>,
    /// Page size [words].
    pub page_words: u32,
    /// References in `runs` (sum of counts) [references].
    pub n_references: u64,
    /// Words the program allocated (code, data, buffers) [words].
    pub extent_words: u64,
    /// The program's storage layout.
    pub segments: Vec<Segment>,
    /// The check of its result.
    pub check: ResultCheck,
}

impl Generated {
    /// Distinct pages referenced (the program's virtual size) [pages].
    pub fn n_pages(&self) -> u32 {
        self.page_map.len() as u32
    }

    /// Referenced pages overlapping the segments whose names start with `prefix` [pages]
    /// (`"field array"`, `"data array"`, `"file"`, ...).
    pub fn pages_in(&self, prefix: &str) -> u32 {
        let pw = u64::from(self.page_words);
        self.page_map
            .iter()
            .filter(|&&vp| {
                self.segments.iter().any(|s| {
                    s.name.starts_with(prefix)
                        && s.words > 0
                        && vp >= s.base / pw
                        && vp <= (s.base + s.words - 1) / pw
                })
            })
            .count() as u32
    }

    /// A [`ReferenceSource`](crate::ReferenceSource) over a copy of the runs.
    pub fn source(&self) -> VecSource {
        VecSource::new(self.runs.clone())
    }

    /// A [`ReferenceSource`](crate::ReferenceSource) over the runs.
    pub fn into_source(self) -> VecSource {
        VecSource::new(self.runs)
    }
}

impl From<Generated> for VecSource {
    fn from(g: Generated) -> VecSource {
        g.into_source()
    }
}

/// Runs `program` with the sizes in `params` on input generated from `seed` and returns its
/// reference string. The versions of one problem read the same input for the same seed.
///
/// ```
/// use pagelab_trace::gen::{generate, M44Params, M44Program};
/// let mut p = M44Params::default();
/// p.sort.items = 500; // a small file: 5,000 words, 5 pages of 1024 words
/// let g = generate(M44Program::T4_1XQRStar, &p, 1).unwrap();
/// assert!(g.check.passed); // sorted, and a permutation of the input
/// assert!(g.n_pages() >= 5);
/// let source: pagelab_trace::VecSource = g.into();
/// # let _ = source;
/// ```
pub fn generate(
    program: M44Program,
    params: &M44Params,
    seed: u64,
) -> Result<Generated, TraceError> {
    if params.buffer_words == 0 {
        return Err(TraceError::invalid(
            "buffer_words: expected at least 1 word",
        ));
    }
    let mut mem = TracedMemory::new(params.page_words, params.address_space_words)?;
    // The 44X OS sits below the program in the job's store (runtime.rs).
    runtime::place(&mut mem, &params.runtime)?;
    let streams = RngStreams::new(seed);
    use M44Program as P;
    let check = match program {
        P::T1_1X | P::T1_1XStar | P::T1_1XStarStar => {
            run_matrix(program, params, &mut mem, &streams)?
        }
        P::T2_1X | P::T2_1XStar => run_correlation(program, params, &mut mem, &streams)?,
        P::T4_1XQ | P::T4_1XQStar | P::T4_1XQR | P::T4_1XQRStar => {
            run_sort(program, params, &mut mem, &streams)?
        }
    };
    runtime::end_job(&mut mem);
    let extent_words = mem.extent();
    let page_words = mem.page_words();
    let (runs, page_map, n_references, segments) = mem.finish();
    Ok(Generated {
        program,
        runs,
        page_map,
        page_words,
        n_references,
        extent_words,
        segments,
        check,
    })
}

/// The data must fit the store before any input is generated for it.
fn fits(params: &M44Params, key: &str, words: Option<u64>) -> Result<(), TraceError> {
    match words {
        Some(w) if w <= params.address_space_words => Ok(()),
        _ => Err(TraceError::invalid(format!(
            "{key}: the data does not fit in address_space_words = {}",
            params.address_space_words
        ))),
    }
}

/// Problem T1 (matrix inversion) in `mem`, on input from `streams`.
fn run_matrix(
    program: M44Program,
    params: &M44Params,
    mem: &mut TracedMemory,
    streams: &RngStreams,
) -> Result<ResultCheck, TraceError> {
    use M44Program as P;
    let version = match program {
        P::T1_1X => MatrixVersion::Casual,
        P::T1_1XStarStar => MatrixVersion::VariableDims,
        _ => MatrixVersion::ColumnIo,
    };
    let m = &params.matrix;
    if m.n == 0 {
        return Err(TraceError::invalid(
            "matrix.n: expected an order of at least 1",
        ));
    }
    fits(params, "matrix.n", m.n.checked_mul(m.n))?;
    if program == P::T1_1X {
        fits(
            params,
            "matrix.fixed_dim",
            m.fixed_dim.checked_mul(m.fixed_dim),
        )?;
    }
    let a = matrix::input_matrix(m.n, &mut streams.stream("m44-t1-input", 0));
    Ok(matrix::run_program(mem, version, m, params.buffer_words, &a)?.1)
}

/// Problem T2 (correlation) in `mem`, on input from `streams`.
fn run_correlation(
    program: M44Program,
    params: &M44Params,
    mem: &mut TracedMemory,
    streams: &RngStreams,
) -> Result<ResultCheck, TraceError> {
    let version = if program == M44Program::T2_1X {
        CorrelationVersion::FieldArrays
    } else {
        CorrelationVersion::RecordArray
    };
    let c = &params.correlation;
    c.validate(version)?;
    let ships = c.ships.checked_mul(4).and_then(|q| q.checked_mul(q));
    fits(params, "correlation.ships", ships)?;
    let reports = c.reports.checked_mul(correlation::RECORD_WORDS);
    fits(params, "correlation.reports", reports)?;
    if version == CorrelationVersion::FieldArrays {
        let fixed = c.fixed_dim.checked_mul(correlation::RECORD_WORDS);
        fits(params, "correlation.fixed_dim", fixed)?;
    }
    let ex = correlation::generate_exercise(c, &mut streams.stream("m44-t2-input", 0));
    Ok(correlation::run_program(mem, version, c, params.buffer_words, &ex)?.1)
}

/// Problem T4 (sort) in `mem`, on input from `streams`.
fn run_sort(
    program: M44Program,
    params: &M44Params,
    mem: &mut TracedMemory,
    streams: &RngStreams,
) -> Result<ResultCheck, TraceError> {
    use M44Program as P;
    let version = match program {
        P::T4_1XQ => SortVersion::KeySort,
        P::T4_1XQStar => SortVersion::KeySortSublists,
        P::T4_1XQR => SortVersion::RecordSort,
        _ => SortVersion::RecordSortSublists,
    };
    let s = &params.sort;
    s.validate()?;
    fits(params, "sort.items", s.items.checked_mul(s.record_words))?;
    let file = sort::input_file(s, &mut streams.stream("m44-t4-input", 0));
    Ok(sort::run_program(mem, version, s, params.buffer_words, &file)?.1)
}
