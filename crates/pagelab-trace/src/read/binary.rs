//! Binary readers: raw little-endian u64 arrays and libCacheSim's oracleGeneral records.

use std::io::Read;
use std::path::Path;

use crate::{AccessKind, TraceError};

/// Bytes of one oracleGeneral record: u32 clock_time, u64 obj_id, u32 obj_size,
/// i64 next_access_vtime (libCacheSim `oracleGeneralBin.h`, packed).
pub const ORACLE_RECORD: usize = 24;

/// Checks that a file of `len` bytes holds whole `size`-byte records: a partial record is a
/// [`TraceError::Corrupt`] naming its byte offset. Run before reading an uncompressed input,
/// so that a file with a slice cut or duplicated is refused before any of it is converted.
pub(crate) fn check_whole_records(
    path: &Path,
    len: u64,
    size: usize,
    what: &str,
) -> Result<(), TraceError> {
    let size = size as u64;
    if len.is_multiple_of(size) {
        return Ok(());
    }
    let offset = len / size * size;
    Err(TraceError::Corrupt {
        path: path.to_path_buf(),
        offset,
        what: format!(
            "partial record: the file's {len} bytes are not a multiple of {size}-byte {what} \
             records ({} bytes left over)",
            len - offset
        ),
    })
}

/// Reads fixed-size records from `input`, calling `record(offset, bytes)` on each; a trailing
/// partial record is a [`TraceError::Corrupt`] at its (decompressed) offset.
fn for_each_record(
    input: &mut dyn Read,
    path: &Path,
    size: usize,
    what: &str,
    mut record: impl FnMut(u64, &[u8]) -> Result<(), TraceError>,
) -> Result<(), TraceError> {
    let mut buf = vec![0u8; size * 8192];
    let mut filled = 0usize;
    let mut offset = 0u64;
    loop {
        let n = match input.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(TraceError::io(path, e)),
        };
        if n == 0 {
            if filled != 0 {
                return Err(TraceError::Corrupt {
                    path: path.to_path_buf(),
                    offset,
                    what: format!(
                        "{filled} trailing bytes: expected whole {size}-byte {what} records"
                    ),
                });
            }
            return Ok(());
        }
        filled += n;
        let whole = filled / size * size;
        for (k, r) in buf[..whole].chunks_exact(size).enumerate() {
            record(offset + (k * size) as u64, r)?;
        }
        offset += whole as u64;
        buf.copy_within(whole..filled, 0);
        filled -= whole;
    }
}

/// Reads a raw array of little-endian u64 values (pages or addresses, all loads).
pub(crate) fn read_u64(
    input: &mut dyn Read,
    path: &Path,
    emit: &mut dyn FnMut(u64, u32, AccessKind) -> Result<(), TraceError>,
) -> Result<(), TraceError> {
    for_each_record(input, path, 8, "u64", |_, r| {
        emit(
            u64::from_le_bytes(r.try_into().expect("8-byte record")),
            1,
            AccessKind::Load,
        )
    })
}

/// Reads oracleGeneral records: `obj_id` as the value, `obj_size` as the size, all loads
/// (the format carries no operation). When `strict`, a record whose next-access time is
/// neither -1 (never) nor after the record itself is refused with its byte offset: records
/// read out of step (a file with a slice cut out or duplicated) fail this at once.
pub(crate) fn read_oracle_general(
    input: &mut dyn Read,
    path: &Path,
    strict: bool,
    emit: &mut dyn FnMut(u64, u32, AccessKind) -> Result<(), TraceError>,
) -> Result<(), TraceError> {
    for_each_record(input, path, ORACLE_RECORD, "oracleGeneral", |offset, r| {
        let id = u64::from_le_bytes(r[4..12].try_into().expect("8 bytes"));
        let size = u32::from_le_bytes(r[12..16].try_into().expect("4 bytes"));
        let next = i64::from_le_bytes(r[16..24].try_into().expect("8 bytes"));
        // libCacheSim counts references from 1: record k (0-based) is reference k + 1.
        let position = offset / ORACLE_RECORD as u64 + 1;
        if strict && next != -1 && (next < 0 || next as u64 <= position) {
            return Err(TraceError::Corrupt {
                path: path.to_path_buf(),
                offset,
                what: format!(
                    "implausible oracleGeneral record {position}: next access at {next},                      expected -1 or a later reference (misaligned or corrupt records? \
                     --lenient reads them anyway)"
                ),
            });
        }
        emit(id, size.max(1), AccessKind::Load)
    })
}

/// Largest next-access time taken as plausible when guessing the format [references].
const PLAUSIBLE_VTIME: i64 = 1 << 48;

/// True if `sample` (the first bytes of a binary input) reads as oracleGeneral records: there
/// is at least one record, clock times never decrease, and every record has a non-zero size and
/// a next-access time that is -1 (never again) or lies after the record and below 2^48
/// (libCacheSim counts references from 1), and, when `complete` (the sample is the whole
/// input), no later than the last record. An array of u64 addresses fails the clock test (its
/// low words jump about) and an array of small page numbers fails the size test.
pub(crate) fn looks_like_oracle_general(sample: &[u8], complete: bool) -> bool {
    if sample.len() < ORACLE_RECORD || (complete && !sample.len().is_multiple_of(ORACLE_RECORD)) {
        return false;
    }
    let limit = if complete {
        (sample.len() / ORACLE_RECORD) as i64 + 1
    } else {
        PLAUSIBLE_VTIME
    };
    let mut clock = 0u32;
    sample
        .chunks_exact(ORACLE_RECORD)
        .enumerate()
        .all(|(i, r)| {
            let t = u32::from_le_bytes(r[0..4].try_into().expect("4 bytes"));
            let size = u32::from_le_bytes(r[12..16].try_into().expect("4 bytes"));
            let next = i64::from_le_bytes(r[16..24].try_into().expect("8 bytes"));
            let ok =
                t >= clock && size > 0 && (next == -1 || (next > i as i64 + 1 && next < limit));
            clock = t;
            ok
        })
}
