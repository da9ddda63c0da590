//! The pagelab trace format: round trips, determinism, atomicity and every kind of corruption.

use std::path::{Path, PathBuf};

use pagelab_trace::format::{
    PagesBackward, PrefetchReader, TraceReader, TraceWriter, WriterOptions, FORMAT_VERSION, MAGIC,
};
use pagelab_trace::{AccessKind, ReferenceSource, Run, TraceError};
use proptest::prelude::*;
use serde_json::json;

fn small_chunks() -> WriterOptions {
    WriterOptions {
        chunk_runs: 3,
        ..WriterOptions::default()
    }
}

/// Writes references `(program page, kind)` one by one.
fn write_refs(path: &Path, refs: &[(u64, AccessKind)], opts: WriterOptions) {
    let mut w = TraceWriter::create_with(path, 4096, json!({"program": "test"}), opts).unwrap();
    for &(p, k) in refs {
        w.push(p, k).unwrap();
    }
    w.finish().unwrap();
}

/// The references of a trace, expanded, as program pages.
fn expand(path: &Path) -> Vec<(u64, AccessKind)> {
    let mut r = TraceReader::open(path).unwrap();
    let map = r.page_map().unwrap();
    let mut out = Vec::new();
    for run in r.read_all().unwrap() {
        for _ in 0..run.count {
            out.push((map[run.page as usize], run.kind));
        }
    }
    out
}

fn kind_of(c: u8) -> AccessKind {
    AccessKind::from_code(c % 4).unwrap()
}

#[test]
fn hand_worked_trace_has_the_expected_runs_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.plt");
    use AccessKind::*;
    let refs = [
        (7, Instr),
        (7, Instr),
        (9, Load),
        (9, Store),
        (7, Instr),
        (5, Modify),
        (5, Modify),
    ];
    write_refs(&path, &refs, small_chunks());
    let mut r = TraceReader::open(&path).unwrap();
    assert_eq!(r.version(), FORMAT_VERSION);
    assert_eq!((r.references(), r.runs(), r.distinct_pages()), (7, 5, 3));
    assert_eq!(r.chunk_count(), 2);
    assert_eq!(r.page_map().unwrap(), vec![7, 9, 5]);
    let runs = r.read_all().unwrap();
    assert_eq!(
        runs,
        vec![
            Run::new(0, 2, Instr),
            Run::new(1, 1, Load),
            Run::new(1, 1, Store),
            Run::new(0, 1, Instr),
            Run::new(2, 2, Modify)
        ]
    );
    let info = r.info();
    assert_eq!(info.references_by_kind.as_array(), [3, 1, 1, 2]);
    assert_eq!(info.written_references, 3);
    assert_eq!(info.footprint_bytes, 3 * 4096);
    assert_eq!(info.file_bytes, std::fs::metadata(&path).unwrap().len());
    assert!((info.compression_ratio - 56.0 / info.file_bytes as f64).abs() < 1e-12);
    assert_eq!(info.description, json!({"program": "test"}));
}

#[test]
fn push_run_merges_and_splits_at_the_count_limit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.plt");
    let mut w = TraceWriter::create(&path, 4096, json!(null)).unwrap();
    w.push_run(1, u32::MAX - 1, AccessKind::Load).unwrap();
    w.push_run(1, 3, AccessKind::Load).unwrap();
    w.push_run(1, 0, AccessKind::Store).unwrap();
    w.push(2, AccessKind::Load).unwrap();
    let info = w.finish().unwrap();
    assert_eq!(info.references, u32::MAX as u64 + 3);
    let runs = TraceReader::open(&path).unwrap().read_all().unwrap();
    assert_eq!(
        runs,
        vec![
            Run::new(0, u32::MAX, AccessKind::Load),
            Run::new(0, 2, AccessKind::Load),
            Run::new(1, 1, AccessKind::Load)
        ]
    );
}

#[test]
fn streaming_gives_one_chunk_per_batch_and_checks_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.plt");
    let refs: Vec<_> = (0..100u64).map(|i| (i % 7, kind_of(i as u8))).collect();
    write_refs(&path, &refs, small_chunks());
    let mut r = TraceReader::open(&path).unwrap();
    assert_eq!(r.page_bound(), Some(7));
    let mut out = Vec::new();
    let mut batches = 0;
    while r.next_batch(&mut out).unwrap() {
        batches += 1;
    }
    assert_eq!(batches, r.chunk_count());
    assert!(!r.next_batch(&mut out).unwrap());
    assert_eq!(out, r.read_all().unwrap());
    r.rewind();
    let mut again = Vec::new();
    while r.next_batch(&mut again).unwrap() {}
    assert_eq!(again, out);
}

#[test]
fn prefetching_yields_the_same_runs_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.plt");
    let refs: Vec<_> = (0..1000u64)
        .map(|i| ((i * 13) % 29, kind_of((i % 7) as u8)))
        .collect();
    write_refs(
        &path,
        &refs,
        WriterOptions {
            chunk_runs: 17,
            ..Default::default()
        },
    );
    let mut plain = TraceReader::open(&path).unwrap();
    let expect = plain.read_all().unwrap();
    let mut p = PrefetchReader::new(TraceReader::open(&path).unwrap());
    assert_eq!(p.page_bound(), Some(29));
    let mut got = Vec::new();
    let mut batch = Vec::new();
    while p.next_batch(&mut batch).unwrap() {
        got.append(&mut batch);
    }
    assert!(!p.next_batch(&mut batch).unwrap());
    assert_eq!(got, expect);
    // Dropped half-way: the worker is reaped without hanging.
    let mut p = PrefetchReader::new(TraceReader::open(&path).unwrap());
    assert!(p.next_batch(&mut batch).unwrap());
    drop(p);
    // A corrupt chunk surfaces as the same error.
    let mut b = std::fs::read(&path).unwrap();
    let last_chunk = get_u64(&b, 88) as usize - 200;
    b[last_chunk] ^= 0xff;
    std::fs::write(&path, &b).unwrap();
    let mut p = PrefetchReader::new(TraceReader::open(&path).unwrap());
    let mut r = Ok(true);
    while let Ok(true) = r {
        r = p.next_batch(&mut batch);
    }
    assert!(matches!(r, Err(TraceError::Corrupt { .. })), "{r:?}");
}

/// Every batch of `p` until the end (or the first error).
fn drain(p: &mut PrefetchReader) -> Result<Vec<Vec<Run>>, TraceError> {
    let mut out = Vec::new();
    loop {
        let mut batch = Vec::new();
        if !p.next_batch(&mut batch)? {
            return Ok(out);
        }
        out.push(batch);
    }
}

#[test]
fn several_decoders_yield_the_chunks_in_order_and_the_first_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.plt");
    let refs: Vec<_> = (0..3000u64)
        .map(|i| ((i * 7919) % 61, kind_of((i % 3) as u8)))
        .collect();
    let opts = WriterOptions {
        chunk_runs: 23,
        ..Default::default()
    };
    write_refs(&path, &refs, opts);
    let mut plain = TraceReader::open(&path).unwrap();
    let chunks: Vec<Vec<Run>> = (0..plain.chunk_count())
        .map(|c| {
            let mut v = Vec::new();
            plain.read_chunk(c, &mut v).unwrap();
            v
        })
        .collect();
    assert!(chunks.len() > 10);
    for d in 1..=3 {
        let open = || TraceReader::open(&path).unwrap();
        let fwd = drain(&mut PrefetchReader::with_decoders(open(), d, false)).unwrap();
        assert_eq!(fwd, chunks, "{d} decoders");
        let mut back = drain(&mut PrefetchReader::with_decoders(open(), d, true)).unwrap();
        back.reverse();
        assert_eq!(back, chunks, "{d} decoders, backwards");
        // From a streaming position: the rest, in order.
        let mut r = open();
        let mut skip = Vec::new();
        for _ in 0..5 {
            r.next_batch(&mut skip).unwrap();
        }
        let rest = drain(&mut PrefetchReader::with_decoders(r, d, false)).unwrap();
        assert_eq!(rest, chunks[5..], "{d} decoders from chunk 5");
    }
    // Chunk 7 corrupt: every decoder count yields chunks 0-6, then the error.
    let mut b = std::fs::read(&path).unwrap();
    let at = TraceReader::open(&path).unwrap().chunk_offset(7) as usize + 40;
    b[at] ^= 0xff;
    std::fs::write(&path, &b).unwrap();
    for d in 1..=3 {
        let mut p = PrefetchReader::with_decoders(TraceReader::open(&path).unwrap(), d, false);
        for c in &chunks[..7] {
            let mut batch = Vec::new();
            assert!(p.next_batch(&mut batch).unwrap());
            assert_eq!(&batch, c);
        }
        let e = p.next_batch(&mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("chunk 7"), "{e}");
    }
}

#[test]
fn pages_only_reads_give_the_pages_of_the_runs_at_every_width() {
    let dir = tempfile::tempdir().unwrap();
    // 1-, 2- and 3-byte page columns.
    for distinct in [10u64, 300, 70_000] {
        let path = dir.path().join(format!("w{distinct}.plt"));
        let refs: Vec<_> = (0..2 * distinct)
            .map(|i| ((i * 7) % distinct, kind_of((i % 4) as u8)))
            .collect();
        let opts = WriterOptions {
            chunk_runs: 997,
            ..Default::default()
        };
        write_refs(&path, &refs, opts);
        let mut r = TraceReader::open(&path).unwrap();
        let mut want = Vec::new();
        for c in 0..r.chunk_count() {
            let mut runs = Vec::new();
            r.read_chunk(c, &mut runs).unwrap();
            let mut pages = Vec::new();
            r.read_chunk_pages(c, &mut pages).unwrap();
            let of_runs: Vec<u32> = runs.iter().map(|x| x.page).collect();
            assert_eq!(pages, of_runs, "{distinct} pages, chunk {c}");
            want.push(pages);
        }
        let mut back = PagesBackward::new(&r);
        let mut got = Vec::new();
        let mut buf = Vec::new();
        while back.next_chunk(&mut buf).unwrap() {
            got.push(buf.clone());
        }
        got.reverse();
        assert_eq!(got, want, "{distinct} pages, backwards");
    }
}

#[test]
fn same_input_gives_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let refs: Vec<_> = (0..5000u64)
        .map(|i| ((i * 31) % 97, kind_of((i % 5) as u8)))
        .collect();
    let a = dir.path().join("a.plt");
    let b = dir.path().join("b.plt");
    write_refs(&a, &refs, WriterOptions::default());
    write_refs(&b, &refs, WriterOptions::default());
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn empty_trace_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e.plt");
    write_refs(&path, &[], WriterOptions::default());
    let mut r = TraceReader::open(&path).unwrap();
    assert_eq!((r.references(), r.runs(), r.chunk_count()), (0, 0, 0));
    assert!(r.read_all().unwrap().is_empty());
    assert!(r.page_map().unwrap().is_empty());
}

#[test]
fn unfinished_writer_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.plt");
    {
        let mut w = TraceWriter::create(&path, 4096, json!(null)).unwrap();
        w.push(1, AccessKind::Load).unwrap();
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "temporary exists"
        );
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    assert!(!path.exists());
}

#[test]
fn finish_replaces_an_existing_file_only_at_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.plt");
    std::fs::write(&path, b"old").unwrap();
    let mut w = TraceWriter::create(&path, 4096, json!(null)).unwrap();
    w.push(1, AccessKind::Load).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"old");
    w.finish().unwrap();
    assert_eq!(TraceReader::open(&path).unwrap().references(), 1);
}

#[test]
fn page_size_must_be_a_power_of_two() {
    let dir = tempfile::tempdir().unwrap();
    let e = TraceWriter::create(&dir.path().join("t.plt"), 1000, json!(null)).unwrap_err();
    assert!(matches!(e, TraceError::Invalid(_)));
    assert!(
        e.to_string().contains("1000") && e.to_string().contains("power of two"),
        "{e}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

fn sample_file(dir: &Path) -> (PathBuf, Vec<u8>) {
    let path = dir.join("s.plt");
    let refs: Vec<_> = (0..40u64)
        .map(|i| ((i * 7) % 11, kind_of((i % 3) as u8)))
        .collect();
    write_refs(&path, &refs, small_chunks());
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes)
}

/// Opens and reads everything; the first error.
fn read_everything(path: &Path) -> Result<(), TraceError> {
    let mut r = TraceReader::open(path)?;
    r.page_map()?;
    r.read_all()?;
    let mut out = Vec::new();
    while r.next_batch(&mut out)? {}
    Ok(())
}

fn corrupt_offset(e: TraceError) -> u64 {
    match e {
        TraceError::Corrupt { offset, .. } => offset,
        other => panic!("expected Corrupt, got {other}"),
    }
}

#[test]
fn wrong_magic_is_corrupt_at_offset_0() {
    let dir = tempfile::tempdir().unwrap();
    let (path, mut bytes) = sample_file(dir.path());
    bytes[0] = b'X';
    std::fs::write(&path, &bytes).unwrap();
    let e = TraceReader::open(&path).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("magic") && msg.contains("s.plt"), "{msg}");
    assert_eq!(corrupt_offset(e), 0);
}

#[test]
fn unknown_version_is_corrupt_at_offset_8() {
    let dir = tempfile::tempdir().unwrap();
    let (path, mut bytes) = sample_file(dir.path());
    bytes[8] = 2;
    std::fs::write(&path, &bytes).unwrap();
    let e = TraceReader::open(&path).unwrap_err();
    assert!(e.to_string().contains("version 2"), "{e}");
    assert_eq!(corrupt_offset(e), 8);
}

#[test]
fn truncation_anywhere_is_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let (path, bytes) = sample_file(dir.path());
    for len in 0..bytes.len() {
        std::fs::write(&path, &bytes[..len]).unwrap();
        let e = read_everything(&path).expect_err("truncated file accepted");
        let off = corrupt_offset(e);
        // Short files are named at their end, or at offset 0 when too short to carry the magic.
        assert!(
            off == len as u64 || (len < MAGIC.len() && off == 0),
            "len {len}: offset {off}"
        );
    }
}

#[test]
fn every_flipped_byte_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let (path, bytes) = sample_file(dir.path());
    let chunk0 = 104 + 18; // header + description `{"program":"test"}`
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x5a;
        std::fs::write(&path, &b).unwrap();
        let e = read_everything(&path).expect_err("flipped byte accepted");
        let off = corrupt_offset(e);
        if i < chunk0 {
            // A flipped description length may point past the end: read as a truncation.
            let at_end = (96..100).contains(&i) && off == bytes.len() as u64;
            assert!(off <= 96 || at_end, "byte {i} in the header: offset {off}");
        } else {
            assert!(
                off <= i as u64 || off == bytes.len() as u64,
                "byte {i}: offset {off}"
            );
        }
    }
}

#[test]
fn flipped_chunk_byte_names_the_chunk_offset() {
    let dir = tempfile::tempdir().unwrap();
    let (path, bytes) = sample_file(dir.path());
    let chunk0 = 104 + 18;
    let mut b = bytes.clone();
    b[chunk0 + 40] ^= 1; // inside chunk 0's payload
    std::fs::write(&path, &b).unwrap();
    let mut r = TraceReader::open(&path).unwrap();
    let e = r.read_all().unwrap_err();
    assert!(e.to_string().contains("chunk 0 checksum"), "{e}");
    assert_eq!(corrupt_offset(e), chunk0 as u64);
}

fn bump_u64(b: &mut [u8], at: usize) {
    let v = get_u64(b, at) + 1;
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}
fn get_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}
fn put_crc(b: &mut [u8], at: usize, parts: &[std::ops::Range<usize>]) {
    let mut h = crc32fast::Hasher::new();
    for r in parts {
        h.update(&b[r.clone()]);
    }
    b[at..at + 4].copy_from_slice(&h.finalize().to_le_bytes());
}

#[test]
fn run_counts_that_do_not_add_up_are_corrupt_at_the_chunk() {
    // A consistent lie: chunk 1 claims one more reference than its runs hold, and the index and
    // header agree with it, every checksum recomputed. Only decoding the runs can tell.
    let dir = tempfile::tempdir().unwrap();
    let (path, mut b) = sample_file(dir.path());
    let desc = 18;
    let chunk0 = 104 + desc;
    let chunk1 =
        chunk0 + 32 + u32::from_le_bytes(b[chunk0 + 16..chunk0 + 20].try_into().unwrap()) as usize;
    let c1_len = u32::from_le_bytes(b[chunk1 + 16..chunk1 + 20].try_into().unwrap()) as usize;
    bump_u64(&mut b, chunk1 + 8);
    put_crc(
        &mut b,
        chunk1 + 28,
        &[chunk1..chunk1 + 28, chunk1 + 32..chunk1 + 32 + c1_len],
    );
    let footer = get_u64(&b, 88) as usize;
    let entry1 = footer + 24 + 24;
    bump_u64(&mut b, entry1 + 8);
    let chunks = get_u64(&b, 80) as usize;
    let footer_end = footer + 24 + 24 * chunks;
    put_crc(&mut b, footer_end, &[footer..footer_end, 0..0]);
    bump_u64(&mut b, 24);
    bump_u64(&mut b, 48);
    put_crc(&mut b, 100, &[0..100, 104..104 + desc]);
    std::fs::write(&path, &b).unwrap();
    let mut r = TraceReader::open(&path).unwrap();
    let e = r.read_all().unwrap_err();
    assert!(
        e.to_string().contains("chunk 1: run counts add up to"),
        "{e}"
    );
    assert_eq!(corrupt_offset(e), chunk1 as u64);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_strings_round_trip(
        refs in prop::collection::vec((0u64..40, 0u8..4, 1u32..5), 0..300),
        chunk_runs in 1u32..20,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.plt");
        let page = |p: u64| p.wrapping_mul(0x9e37_79b9_7f4a_7c15); // spread program pages
        let mut w = TraceWriter::create_with(
            &path, 8192, json!({"case": 1}), WriterOptions { chunk_runs, ..Default::default() },
        ).unwrap();
        let mut expect = Vec::new();
        for &(p, k, c) in &refs {
            w.push_run(page(p), c, kind_of(k)).unwrap();
            for _ in 0..c {
                expect.push((page(p), kind_of(k)));
            }
        }
        let info = w.finish().unwrap();
        prop_assert_eq!(info.references, expect.len() as u64);
        prop_assert_eq!(expand(&path), expect);
        // Dense pages are numbered in order of first reference.
        let mut r = TraceReader::open(&path).unwrap();
        let mut next = 0u32;
        for run in r.read_all().unwrap() {
            prop_assert!(run.page <= next);
            if run.page == next {
                next += 1;
            }
        }
        prop_assert_eq!(next as u64, r.distinct_pages());
    }
}

/// Decode throughput on a large synthetic string; run in release:
/// `cargo test --release -p pagelab-trace --test integration -- --ignored --nocapture decode_throughput`.
/// Scale with `PAGELAB_BENCH_RUNS` (default 50 million runs).
#[test]
#[ignore = "a measurement, not a test: run in release"]
fn decode_throughput() {
    let runs: u64 = std::env::var("PAGELAB_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(50_000_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.plt");
    // Program-like string: instruction runs on a slowly moving code page alternate with data
    // runs drawn from a few hundred hot pages and a long tail (xorshift, fixed seed).
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let t = std::time::Instant::now();
    let mut w = TraceWriter::create(&path, 4096, json!({"program": "synthetic"})).unwrap();
    let mut code = 0x400u64;
    for i in 0..runs / 2 {
        let r = next();
        if r % 64 == 0 {
            code = 0x400 + (r >> 8) % 300;
        }
        w.push_run(code, 1 + (r >> 20) as u32 % 6, AccessKind::Instr)
            .unwrap();
        let data = if r >> 40 & 7 != 0 {
            0x7f00 + (r >> 44) % 400
        } else {
            0x10_0000 + (r >> 30) % 50_000
        };
        let kind = kind_of(1 + (i as u8 % 3));
        w.push_run(data, 1 + (r >> 50) as u32 % 2, kind).unwrap();
    }
    let info = w.finish().unwrap();
    let write_s = t.elapsed().as_secs_f64();
    let mut r = TraceReader::open(&path).unwrap();
    let mut best = f64::MAX;
    let mut refs = 0u64;
    for _ in 0..7 {
        r.rewind();
        let t = std::time::Instant::now();
        let mut batch = Vec::with_capacity(1 << 16);
        refs = 0;
        while r.next_batch(&mut batch).unwrap() {
            refs += batch.iter().map(|r| r.count as u64).sum::<u64>();
            batch.clear();
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    assert_eq!(refs, info.references);
    let mut best_prefetch = f64::MAX;
    for _ in 0..7 {
        let t = std::time::Instant::now();
        let mut p = PrefetchReader::new(TraceReader::open(&path).unwrap());
        let mut batch = Vec::with_capacity(1 << 16);
        refs = 0;
        while p.next_batch(&mut batch).unwrap() {
            refs += batch.iter().map(|r| r.count as u64).sum::<u64>();
            batch.clear();
        }
        best_prefetch = best_prefetch.min(t.elapsed().as_secs_f64());
    }
    assert_eq!(refs, info.references);
    println!(
        "prefetching decode best of 7 {:.3} s: {:.1} M runs/s, {:.1} M references/s",
        best_prefetch,
        info.runs as f64 / best_prefetch / 1e6,
        info.references as f64 / best_prefetch / 1e6
    );
    println!(
        "runs {} references {} distinct pages {} file {} bytes ({:.2} bytes/run, ratio {:.1} vs 8 B/ref)",
        info.runs,
        info.references,
        info.distinct_pages,
        info.file_bytes,
        info.file_bytes as f64 / info.runs as f64,
        info.compression_ratio
    );
    println!(
        "write {:.2} s ({:.1} M runs/s); decode best of 7 {:.3} s: {:.1} M runs/s, {:.1} M references/s",
        write_s,
        info.runs as f64 / write_s / 1e6,
        best,
        info.runs as f64 / best / 1e6,
        info.references as f64 / best / 1e6
    );
}
