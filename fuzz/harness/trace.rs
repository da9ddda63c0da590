//! What each trace fuzz target does with its input. Shared by the fuzz targets (`fuzz/`) and by
//! the regression test that replays every saved input on stable (`pagelab-trace`'s
//! `tests/integration/fuzz_regressions.rs`). Each function must return normally whatever the
//! bytes: an `Err` is an answer, a panic, abort or hang is a finding.

use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use pagelab_trace::format::{verify, PrefetchReader, TraceReader};
use pagelab_trace::policy::{PolicySpec, Stepper};
use pagelab_trace::read::{convert, guess_format, ConvertOptions, InputFormat, Units};
use pagelab_trace::{AccessKind, ReferenceSource, Run};

static SERIAL: AtomicU64 = AtomicU64::new(0);

/// A scratch file holding `data`, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(data: &[u8], ext: &str) -> Scratch {
        let dir = std::env::temp_dir();
        let n = SERIAL.fetch_add(1, Ordering::Relaxed);
        let p = dir.join(format!("pagelab-fuzz-{}-{n}.{ext}", std::process::id()));
        std::fs::write(&p, data).expect("scratch file");
        Scratch(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(
        b.get(at..at.checked_add(8)?)?.try_into().ok()?,
    ))
}

/// Writes at `at` the CRC32 of bytes `head` then `body` (either may be empty).
fn put_crc(b: &mut [u8], at: usize, head: Range<usize>, body: Range<usize>) -> Option<()> {
    let mut h = crc32fast::Hasher::new();
    h.update(b.get(head)?);
    h.update(b.get(body)?);
    let crc = h.finalize().to_le_bytes();
    b.get_mut(at..at.checked_add(4)?)?.copy_from_slice(&crc);
    Some(())
}

/// Recomputes every checksum of a pagelab trace (header, chunks, page map, footer) where the
/// structure allows, so that mutations reach the decoder behind them (docs/trace-format.md).
pub fn fix_checksums(b: &mut [u8]) -> Option<()> {
    let desc = (u32_at(b, 96)? as usize).min(b.len().saturating_sub(104));
    let _ = put_crc(b, 100, 0..100, 104..104 + desc);
    let tail = b.len().checked_sub(16)?;
    // Offsets read from the file are checked against its length before any sum is formed.
    let fo = usize::try_from(u64_at(b, tail)?)
        .ok()
        .filter(|&o| o < b.len())?;
    let n = usize::try_from(u64_at(b, fo + 8)?).ok()?.min(1 << 16);
    for i in 0..n {
        let e = fo + 24 + 24 * i;
        let (Some(off), Some(clen)) = (u64_at(b, e), u32_at(b, e + 20)) else {
            break;
        };
        let Some(off) = usize::try_from(off).ok().filter(|&o| o < b.len()) else {
            continue;
        };
        let _ = put_crc(
            b,
            off + 28,
            off..off + 28,
            off + 32..off + 32 + clen as usize,
        );
    }
    let map = usize::try_from(u64_at(b, fo + 16)?)
        .ok()
        .filter(|&m| m < b.len())?;
    if let Some(clen) = u32_at(b, map + 4) {
        let _ = put_crc(
            b,
            map + 16,
            map..map + 16,
            map + 20..map + 20 + clen as usize,
        );
    }
    let end = tail.checked_sub(4)?;
    put_crc(b, end, fo..end, 0..0)
}

/// Opens bytes as a pagelab trace and decodes all of it every way there is: streaming, all at
/// once, through the prefetching reader, and `verify`. An odd first byte fixes checksums first.
pub fn trace_file(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut bytes = rest.to_vec();
    if mode & 1 == 1 {
        let _ = fix_checksums(&mut bytes);
    }
    let f = Scratch::new(&bytes, "plt");
    if let Ok(mut r) = TraceReader::open(&f.0) {
        let _ = r.info();
        let _ = r.page_map();
        let _ = r.read_all();
        let mut runs = Vec::new();
        while let Ok(true) = r.next_batch(&mut runs) {
            runs.clear();
        }
        let mut p = PrefetchReader::new(r);
        while let Ok(true) = p.next_batch(&mut runs) {
            runs.clear();
        }
    }
    let _ = verify(&f.0, &mut |_, _| Ok(()));
}

/// Converts bytes as a foreign trace: the first byte picks the format (or the guesser) and the
/// units, the rest is the file.
pub fn convert_input(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let _ = guess_format(rest);
    let from = match mode % 8 {
        0 => Some(InputFormat::Lackey),
        1 => Some(InputFormat::Pinatrace),
        2 => Some(InputFormat::Text),
        3 => Some(InputFormat::U64),
        4 => Some(InputFormat::OracleGeneral),
        5 => Some(InputFormat::Pagelab),
        _ => None,
    };
    let units = match (mode >> 3) % 3 {
        0 => None,
        1 => Some(Units::Pages),
        _ => Some(Units::Addresses),
    };
    let opts = ConvertOptions {
        page_size: 1 << (9 + (mode >> 5) % 4),
        ..ConvertOptions::default()
    };
    let input = Scratch::new(rest, "in");
    let output = input.0.with_extension("plt");
    if convert(&input.0, from, units, &opts, &output, &mut |_, _| {}).is_ok() {
        let _ = verify(&output, &mut |_, _| Ok(()));
    }
    let _ = std::fs::remove_file(&output);
}

/// Steps a policy over a reference string: byte 0 picks the policy, byte 1 the frames, then
/// each 3 bytes are a reference (2 bytes of page, 1 byte of kind and run length).
pub fn step(data: &[u8]) {
    let [p, frames, rest @ ..] = data else { return };
    let info = pagelab_trace::policy::INFO; // every policy of the registry
    let Ok(spec) = PolicySpec::by_name(info[*p as usize % info.len()].name) else {
        return;
    };
    let runs: Vec<Run> = rest
        .chunks_exact(3)
        .take(4096)
        .map(|c| Run {
            page: u16::from_le_bytes([c[0], c[1]]) as u32 * if c[2] & 0x80 != 0 { 4099 } else { 1 },
            count: (c[2] as u32 & 0x1f) + 1,
            kind: [AccessKind::Load, AccessKind::Store][(c[2] >> 5) as usize & 1],
        })
        .collect();
    if let Ok(s) = Stepper::new(&spec, *frames as u32, &runs) {
        for _ in s {}
    }
}
