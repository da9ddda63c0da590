//! `pagelab trace verify`: every byte of a trace checked, not only its header and footer.
//!
//! Opening a trace checks the header, the footer, the chunk index and the tail; a chunk's CRC
//! is checked only when the chunk is decoded. Verification decodes every chunk (its CRC, its
//! column sizes, its run counts against the index, its pages against the distinct pages), then
//! checks the page map (CRC, length) and two facts the writer guarantees: the map holds each
//! program page once, and pages are numbered densely in order of first reference (a run's page
//! is at most one above the highest page seen before it).

use std::collections::HashSet;
use std::path::Path;

use serde::Serialize;

use super::TraceReader;
use crate::{Run, TraceError};

/// What [`verify`] checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VerifyReport {
    /// Chunks decoded, each with its checksum checked.
    pub chunks: u64,
    /// Runs decoded [runs].
    pub runs: u64,
    /// References decoded [references].
    pub references: u64,
    /// Entries of the page map checked [pages].
    pub distinct_pages: u64,
    /// Size of the file [bytes].
    pub file_bytes: u64,
}

/// Checks every chunk and the page map of the trace at `path`; the first problem found is a
/// [`TraceError::Corrupt`] naming its byte offset. `progress(chunks done, chunks)` is called
/// after each chunk; it may stop the check by returning an error.
pub fn verify(
    path: &Path,
    progress: &mut dyn FnMut(u64, u64) -> Result<(), TraceError>,
) -> Result<VerifyReport, TraceError> {
    let mut reader = TraceReader::open(path)?;
    let chunks = reader.chunk_count();
    let mut runs: Vec<Run> = Vec::new();
    let (mut n_runs, mut n_refs) = (0u64, 0u64);
    // One above the highest dense page seen so far: the next new page must be exactly this.
    let mut next_new = 0u64;
    let mut seen = [0u64; 4];
    for c in 0..chunks {
        pagelab_core::interrupt::check()?;
        runs.clear();
        let by_kind = reader.read_chunk(c, &mut runs)?;
        for (s, k) in seen.iter_mut().zip(by_kind) {
            *s += k;
        }
        for r in &runs {
            let p = r.page as u64;
            if p > next_new {
                return Err(corrupt(
                    path,
                    reader.chunk_offset(c),
                    format!(
                        "chunk {c}: page {p} referenced before page {next_new}: pages are not \
                         numbered in order of first reference"
                    ),
                ));
            }
            next_new = next_new.max(p + 1);
        }
        n_runs += runs.len() as u64;
        n_refs += by_kind.iter().sum::<u64>();
        progress(c as u64 + 1, chunks as u64)?;
    }
    if seen != reader.references_by_kind().as_array() {
        return Err(corrupt(
            path,
            48,
            "references by kind in the chunks differ from the header".into(),
        ));
    }
    if next_new != reader.distinct_pages() {
        return Err(corrupt(
            path,
            40,
            format!(
                "the chunks reference {next_new} distinct pages; the header says {}",
                reader.distinct_pages()
            ),
        ));
    }
    let map = reader.page_map()?;
    let mut programs = HashSet::with_capacity(map.len());
    for (d, p) in map.iter().enumerate() {
        if !programs.insert(*p) {
            return Err(corrupt(
                path,
                reader.page_map_offset(),
                format!("page map: program page {p:#x} appears twice (again at dense page {d})"),
            ));
        }
    }
    Ok(VerifyReport {
        chunks: chunks as u64,
        runs: n_runs,
        references: n_refs,
        distinct_pages: map.len() as u64,
        file_bytes: reader.file_bytes(),
    })
}

fn corrupt(path: &Path, offset: u64, what: String) -> TraceError {
    TraceError::Corrupt {
        path: path.to_path_buf(),
        offset,
        what,
    }
}
