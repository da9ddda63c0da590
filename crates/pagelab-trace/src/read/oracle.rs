//! Writing a pagelab trace as libCacheSim oracleGeneral records, so that libCacheSim runs on
//! exactly the same reference string.
//!
//! One 24-byte record per reference (libCacheSim `oracleGeneralBin.h`, packed, little-endian):
//! `u32 clock_time`, `u64 obj_id`, `u32 obj_size`, `i64 next_access_vtime`. Here `obj_id` is the
//! program's page number, `obj_size` the page size, and `clock_time` the reference's index
//! (0-based, saturating at 2^32 - 1: the trace has no wall clock). `next_access_vtime` follows
//! libCacheSim's `traceConv`: the 1-based position in the string of the next reference to the
//! same page, or -1 if there is none (its readers take -1 as "never").
//!
//! Next-use needs the future, so the string is walked twice: once backwards, chunk by chunk
//! (chunks decode independently), writing next-use times to a scratch file beside the output;
//! then forwards, reading that file back to front. Memory holds one chunk and one entry per
//! distinct page.

use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use super::binary::ORACLE_RECORD;
use crate::format::atomic::AtomicFile;
use crate::format::TraceReader;
use crate::{ReferenceSource, Run, TraceError};

/// Next-use values read back per block [values].
const BLOCK: usize = 1 << 16;

/// Writes the trace at `trace` as oracleGeneral records to `output` (atomically); returns the
/// number of records. `progress(references done, total)` is called every few million references
/// of each pass, in references rather than bytes.
pub fn write_oracle_general(
    trace: &Path,
    output: &Path,
    progress: &mut dyn FnMut(u64, Option<u64>),
) -> Result<u64, TraceError> {
    let mut reader = TraceReader::open(trace)?;
    let n = reader.references();
    let page_size = u32::try_from(reader.page_size()).map_err(|_| {
        TraceError::invalid(format!(
            "{}: page size {} does not fit oracleGeneral's 32-bit obj_size",
            trace.display(),
            reader.page_size()
        ))
    })?;
    let map = reader.page_map()?;
    let scratch_target = output.with_file_name(format!(
        "{}.next-use",
        output
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    ));
    let (scratch, scratch_file) = AtomicFile::create(&scratch_target)?;
    let sio = |e| TraceError::io(scratch.temp_path(), e);

    // Pass 1, backwards: next-use of every reference, written in reverse order.
    let mut w = BufWriter::with_capacity(1 << 20, scratch_file);
    write_next_uses(
        &mut reader,
        map.len(),
        &mut w,
        scratch.temp_path(),
        progress,
    )?;
    let mut scratch_file = w.into_inner().map_err(|e| sio(e.into_error()))?;

    // Pass 2, forwards: the records.
    let (atomic, out_file) = AtomicFile::create(output)?;
    let oio = |e| TraceError::io(atomic.temp_path(), e);
    let mut out = BufWriter::with_capacity(1 << 20, out_file);
    let mut remaining = n;
    let mut runs: Vec<Run> = Vec::new();
    let mut block: Vec<i64> = Vec::with_capacity(BLOCK);
    let mut bytes = vec![0u8; BLOCK * 8];
    let mut i = 0u64;
    let mut rec = [0u8; ORACLE_RECORD];
    reader.rewind();
    while reader.next_batch(&mut runs)? {
        for r in &runs {
            let id = map[r.page as usize];
            for _ in 0..r.count {
                if block.is_empty() {
                    read_block(&mut scratch_file, &mut remaining, &mut bytes, &mut block)
                        .map_err(sio)?;
                }
                let next = block.pop().expect("one next-use value per reference");
                rec[0..4].copy_from_slice(&(i.min(u32::MAX as u64) as u32).to_le_bytes());
                rec[4..12].copy_from_slice(&id.to_le_bytes());
                rec[12..16].copy_from_slice(&page_size.to_le_bytes());
                rec[16..24].copy_from_slice(&next.to_le_bytes());
                out.write_all(&rec).map_err(oio)?;
                i += 1;
                if i.is_multiple_of(STEP) {
                    progress(n + i, Some(2 * n));
                }
            }
        }
        runs.clear();
    }
    progress(2 * n, Some(2 * n));
    let file = out.into_inner().map_err(|e| oio(e.into_error()))?;
    atomic.commit(file)?;
    drop(scratch_file);
    drop(scratch);
    Ok(i)
}

/// Reads the next block of next-use values from `file`, which holds them from the string's
/// end, into `block`, so that `pop()` takes them forwards; `remaining` counts the values not
/// read yet.
fn read_block(
    file: &mut (impl Read + Seek),
    remaining: &mut u64,
    bytes: &mut [u8],
    block: &mut Vec<i64>,
) -> std::io::Result<()> {
    let b = (BLOCK as u64).min(*remaining) as usize;
    *remaining -= b as u64;
    file.seek(SeekFrom::Start(*remaining * 8))?;
    file.read_exact(&mut bytes[..b * 8])?;
    let values = bytes[..b * 8].chunks_exact(8);
    block.extend(values.map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes"))));
    Ok(())
}

/// Progress is reported every this many references.
const STEP: u64 = 1 << 24;

/// Pass 1 of [`write_oracle_general`]: the chunks backwards, the 1-based time of the next
/// reference of each reference's page (-1: none) written to `w` from the string's end.
fn write_next_uses(
    reader: &mut TraceReader,
    pages: usize,
    w: &mut BufWriter<std::fs::File>,
    scratch: &Path,
    progress: &mut dyn FnMut(u64, Option<u64>),
) -> Result<(), TraceError> {
    let sio = |e| TraceError::io(scratch, e);
    let n = reader.references();
    let mut next_seen = vec![-1i64; pages];
    let mut runs: Vec<Run> = Vec::new();
    let (mut end, mut done, mut next_report) = (n, 0u64, STEP);
    for c in (0..reader.chunk_count()).rev() {
        pagelab_core::interrupt::check()?; // Ctrl-C/SIGTERM: once per chunk
        runs.clear();
        reader.read_chunk(c, &mut runs)?;
        for r in runs.iter().rev() {
            let start = end - r.count as u64;
            let p = r.page as usize;
            w.write_all(&next_seen[p].to_le_bytes()).map_err(sio)?;
            for pos in (start..end - 1).rev() {
                w.write_all(&((pos + 2) as i64).to_le_bytes())
                    .map_err(sio)?;
            }
            next_seen[p] = start as i64 + 1;
            end = start;
        }
        done += runs.iter().map(|r| r.count as u64).sum::<u64>();
        if done >= next_report {
            next_report = done + STEP;
            progress(done, Some(2 * n));
        }
    }
    Ok(())
}
