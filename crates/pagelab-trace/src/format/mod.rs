//! The pagelab trace format: a reference string stored as run-length records.
//!
//! A trace file holds the runs of one program (maximal sequences of references of one kind to
//! one page), pages numbered densely in order of first reference, and the map from dense page
//! numbers back to the program's page numbers. It is laid out so that a reader can decode it at
//! memory speed, in constant memory, and seek to any chunk:
//!
//! ```text
//!  +--------+--------+--------+-----+--------+----------+--------+------+
//!  | header | chunk0 | chunk1 | ... | chunkN | page map | footer | tail |
//!  +--------+--------+--------+-----+--------+----------+--------+------+
//!   counts,   zstd, columnar: page deltas,     zstd u64    chunk    footer offset,
//!   JSON      counts, kinds; own CRC32          array      index    end marker
//! ```
//!
//! Each chunk is compressed alone and carries no delta state from its neighbours, so any chunk
//! decodes by itself. Inside a chunk the runs are stored as three columns: the page of each run
//! as the (wrapping, 32-bit) difference from the previous run's page, the repeat counts, and the
//! kind codes of [`AccessKind`](crate::AccessKind). Columns of like numbers compress well and
//! decode in a tight loop. The written flag of a run is `kind.is_write()`; it is not stored apart.
//!
//! The header's counts are patched when the writer finishes; every region of the file is
//! covered by a CRC32, so any flipped byte is caught. The byte-by-byte layout, with its version
//! history, is in `docs/trace-format.md`. The format owes its purpose to the M44/44X study
//! (Brawn and Gustavson 1968, "Test environment"), whose page-trace measurements need the same
//! reference string replayed against many memory sizes and policies.
//!
//! [`TraceReader`] decodes on the caller's thread; [`PrefetchReader`] decodes the next chunks
//! on up to two other threads so that a consumer on the first does not wait for decompression.
//!
//! Compression ratio is stated against 8 bytes per reference: one 64-bit address per reference,
//! the size of the raw u64 address arrays this crate also reads.

mod layout;
mod prefetch;
mod reader;
mod verify;
mod writer;

pub(crate) mod atomic;

pub use layout::{FORMAT_VERSION, MAGIC};
pub use prefetch::{PagesBackward, PrefetchReader};
pub use reader::TraceReader;
pub use verify::{verify, VerifyReport};
pub use writer::{TraceWriter, WriterOptions};

use serde::Serialize;

/// References of a trace by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ReferencesByKind {
    /// Instruction fetches [references].
    pub instruction: u64,
    /// Data reads [references].
    pub load: u64,
    /// Data writes [references].
    pub store: u64,
    /// Read-modify-writes [references].
    pub modify: u64,
}

impl ReferencesByKind {
    /// The counts as an array indexed by kind code.
    pub fn as_array(&self) -> [u64; 4] {
        [self.instruction, self.load, self.store, self.modify]
    }

    /// Counts from an array indexed by kind code.
    pub fn from_array(a: [u64; 4]) -> Self {
        ReferencesByKind {
            instruction: a[0],
            load: a[1],
            store: a[2],
            modify: a[3],
        }
    }

    /// References that change their page (stores and modifies) [references].
    pub fn written(&self) -> u64 {
        self.store + self.modify
    }
}

/// What a trace holds, as `pagelab trace info` reports it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceInfo {
    /// References in the string [references].
    pub references: u64,
    /// Run-length records [runs].
    pub runs: u64,
    /// Distinct pages referenced [pages].
    pub distinct_pages: u64,
    /// Page size [bytes].
    pub page_size: u64,
    /// Footprint: distinct pages x page size [bytes].
    pub footprint_bytes: u64,
    /// References by kind [references].
    pub references_by_kind: ReferencesByKind,
    /// References that change their page (stores and modifies) [references].
    pub written_references: u64,
    /// Size of the trace file [bytes].
    pub file_bytes: u64,
    /// 8 bytes per reference (one 64-bit address each) divided by the file size [ratio].
    pub compression_ratio: f64,
    /// What the reference string is the trace of (program, arguments, tool, filters).
    pub description: serde_json::Value,
}

impl TraceInfo {
    /// Assembles the summary from the header counts and the file size.
    pub(crate) fn from_counts(
        runs: u64,
        distinct_pages: u64,
        page_size: u64,
        by_kind: ReferencesByKind,
        file_bytes: u64,
        description: serde_json::Value,
    ) -> Self {
        let references = by_kind.as_array().iter().sum();
        TraceInfo {
            references,
            runs,
            distinct_pages,
            page_size,
            footprint_bytes: distinct_pages.saturating_mul(page_size),
            references_by_kind: by_kind,
            written_references: by_kind.written(),
            file_bytes,
            compression_ratio: if file_bytes == 0 {
                0.0
            } else {
                references as f64 * 8.0 / file_bytes as f64
            },
            description,
        }
    }
}

/// Checks that `page_size` [bytes] is a power of two, naming `what` in the error.
pub fn check_page_size(page_size: u64, what: &str) -> Result<(), crate::TraceError> {
    if page_size == 0 || !page_size.is_power_of_two() {
        return Err(crate::TraceError::invalid(format!(
            "{what}: page size {page_size} is not a power of two (expected 512, 4096, ...)"
        )));
    }
    Ok(())
}
