//! Foreign readers, format guessing, compression, filters and the oracleGeneral writer.

use std::io::Write;
use std::path::Path;

use pagelab_trace::format::{TraceReader, TraceWriter};
use pagelab_trace::read::{
    convert, guess_format, write_oracle_general, AddressRange, ConvertOptions, InputFormat,
    KindFilter, Units, ORACLE_RECORD,
};
use pagelab_trace::{AccessKind, TraceError};
use serde_json::json;
use AccessKind::*;

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

fn run(
    input: &Path,
    from: Option<InputFormat>,
    units: Option<Units>,
    opts: &ConvertOptions,
) -> Result<Vec<(u64, AccessKind)>, TraceError> {
    let out = input.with_extension("plt");
    convert(input, from, units, opts, &out, &mut |_, _| {})?;
    Ok(expand(&out))
}

const LACKEY: &str = concat!(
    "==1234== Lackey, an example Valgrind tool\n",
    "==1234== Command: ./a.out\n",
    "I  04000000,3\n",
    " L 7ff0000ffc,8\n",
    "I  04000003,4\n",
    " S 7ff0001000,4\n",
    " M 0401a000,4\n",
    "I  04000ffe,4\n",
    "==1234== \n",
);

#[test]
fn lackey_pages_addresses_and_splits_straddling_accesses() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("l.txt");
    std::fs::write(&input, LACKEY).unwrap();
    let refs = run(
        &input,
        Some(InputFormat::Lackey),
        None,
        &ConvertOptions::default(),
    )
    .unwrap();
    assert_eq!(
        refs,
        vec![
            (0x4000, Instr),
            (0x7ff0000, Load), // 7ff0000ffc..7ff0001003 straddles into the next page
            (0x7ff0001, Load),
            (0x4000, Instr),
            (0x7ff0001, Store),
            (0x401a, Modify),
            (0x4000, Instr), // 04000ffe..04001001 straddles too
            (0x4001, Instr),
        ]
    );
}

#[test]
fn lackey_kind_filters_and_address_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("l.txt");
    std::fs::write(&input, LACKEY).unwrap();
    let instr = ConvertOptions {
        kinds: KindFilter::Instructions,
        ..Default::default()
    };
    assert_eq!(
        run(&input, None, None, &instr).unwrap(),
        vec![
            (0x4000, Instr),
            (0x4000, Instr),
            (0x4000, Instr),
            (0x4001, Instr)
        ]
    );
    let data = ConvertOptions {
        kinds: KindFilter::Data,
        ..Default::default()
    };
    assert_eq!(run(&input, None, None, &data).unwrap().len(), 4);
    let range: AddressRange = "0x4000000-0x4001000".parse().unwrap();
    let ranged = ConvertOptions {
        ranges: vec![range],
        ..Default::default()
    };
    // Kept by first byte: the straddling fetch at 04000ffe still references both pages.
    assert_eq!(
        run(&input, None, None, &ranged).unwrap(),
        vec![
            (0x4000, Instr),
            (0x4000, Instr),
            (0x4000, Instr),
            (0x4001, Instr)
        ]
    );
    assert!("9-3".parse::<AddressRange>().is_err());
}

#[test]
fn lackey_garbage_line_is_a_parse_error_with_its_line_and_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("l.txt");
    std::fs::write(&input, format!("{LACKEY} L 12,4\nthis is not lackey\n")).unwrap();
    let out = dir.path().join("o.plt");
    let e = convert(
        &input,
        Some(InputFormat::Lackey),
        None,
        &Default::default(),
        &out,
        &mut |_, _| {},
    )
    .unwrap_err();
    match &e {
        TraceError::Parse { line, .. } => assert_eq!(*line, 11),
        other => panic!("expected Parse, got {other}"),
    }
    let msg = e.to_string();
    assert!(
        msg.contains("l.txt") && msg.contains("line 11") && msg.contains("this is not"),
        "{msg}"
    );
    assert!(!out.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn pinatrace_reads_data_references() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("pinatrace.out");
    std::fs::write(
        &input,
        "0x40054c: R 0x7ffd5a1c\n0x400550: W 0x601040\n0x400554: R 0x7ffd5a20\n#eof\n",
    )
    .unwrap();
    assert_eq!(
        run(&input, None, None, &ConvertOptions::default()).unwrap(),
        vec![(0x7ffd5, Load), (0x601, Store), (0x7ffd5, Load)]
    );
    std::fs::write(&input, "0x40054c: R 0x7ffd5a1c\n0x40054c: Q 0x1\n").unwrap();
    match run(
        &input,
        Some(InputFormat::Pinatrace),
        None,
        &Default::default(),
    )
    .unwrap_err()
    {
        TraceError::Parse { line, .. } => assert_eq!(line, 2),
        other => panic!("expected Parse, got {other}"),
    }
}

#[test]
fn text_reads_pages_or_addresses_with_kinds_and_comments() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("t.txt");
    std::fs::write(&input, "# the string\n1\n2 W\n0x3 I # hex\n\n1 m\n").unwrap();
    assert_eq!(
        run(&input, None, None, &Default::default()).unwrap(),
        vec![(1, Load), (2, Store), (3, Instr), (1, Modify)]
    );
    let opts = ConvertOptions {
        page_size: 1024,
        ..Default::default()
    };
    std::fs::write(&input, "100\n1023\n1024\n0x10000\n").unwrap();
    assert_eq!(
        run(
            &input,
            Some(InputFormat::Text),
            Some(Units::Addresses),
            &opts
        )
        .unwrap(),
        vec![(0, Load), (0, Load), (1, Load), (64, Load)]
    );
    std::fs::write(&input, "1\n2\nx7\n").unwrap();
    match run(&input, None, None, &Default::default()).unwrap_err() {
        TraceError::Parse { line, what, .. } => {
            assert_eq!(line, 3);
            assert!(what.contains("x7"));
        }
        other => panic!("expected Parse, got {other}"),
    }
}

#[test]
fn u64_arrays_and_trailing_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("a.bin");
    let values: Vec<u64> = vec![5, 6, 5, 1 << 40];
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(&input, &bytes).unwrap();
    assert_eq!(guess_format(&bytes), InputFormat::U64);
    assert_eq!(
        run(&input, None, None, &Default::default()).unwrap(),
        vec![(5, Load), (6, Load), (5, Load), (1 << 40, Load)]
    );
    let addrs: Vec<u8> = [0x7ffd_1234_5678u64, 0x7ffd_1234_5000, 0x0040_0000]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    std::fs::write(&input, &addrs).unwrap();
    assert_eq!(
        run(&input, None, Some(Units::Addresses), &Default::default()).unwrap(),
        vec![(0x7ffd12345, Load), (0x7ffd12345, Load), (0x400, Load)]
    );
    let mut short = bytes.clone();
    short.extend_from_slice(&[1, 2, 3]);
    std::fs::write(&input, &short).unwrap();
    match run(&input, Some(InputFormat::U64), None, &Default::default()).unwrap_err() {
        TraceError::Corrupt { offset, .. } => assert_eq!(offset, 32),
        other => panic!("expected Corrupt, got {other}"),
    }
}

/// Writes a pagelab trace of single references to program pages.
fn write_pages(path: &Path, page_size: u64, refs: &[(u64, AccessKind)]) {
    let mut w = TraceWriter::create(path, page_size, json!({"program": "hand"})).unwrap();
    for &(p, k) in refs {
        w.push(p, k).unwrap();
    }
    w.finish().unwrap();
}

#[test]
fn oracle_general_writer_computes_next_access_exactly_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.plt");
    // The string a b a a c b (program pages 10, 20, 30), spread over chunks of one run.
    let string = [10u64, 20, 10, 10, 30, 20];
    let refs: Vec<_> = string.iter().map(|&p| (p, Load)).collect();
    let mut w = TraceWriter::create_with(
        &trace,
        4096,
        json!(null),
        pagelab_trace::format::WriterOptions {
            chunk_runs: 1,
            ..Default::default()
        },
    )
    .unwrap();
    for &(p, k) in &refs {
        w.push(p, k).unwrap();
    }
    w.finish().unwrap();
    let og = dir.path().join("t.oracleGeneral.bin");
    let n = write_oracle_general(&trace, &og, &mut |_, _| {}).unwrap();
    assert_eq!(n, 6);
    let bytes = std::fs::read(&og).unwrap();
    assert_eq!(bytes.len(), 6 * ORACLE_RECORD);
    let rec = |i: usize| {
        let r = &bytes[i * 24..(i + 1) * 24];
        (
            u32::from_le_bytes(r[0..4].try_into().unwrap()),
            u64::from_le_bytes(r[4..12].try_into().unwrap()),
            u32::from_le_bytes(r[12..16].try_into().unwrap()),
            i64::from_le_bytes(r[16..24].try_into().unwrap()),
        )
    };
    // next_access_vtime is the 1-based position of the next reference to the page, or -1.
    let expect = [
        (0, 10, 4096, 3),
        (1, 20, 4096, 6),
        (2, 10, 4096, 4),
        (3, 10, 4096, -1),
        (4, 30, 4096, -1),
        (5, 20, 4096, -1),
    ];
    for (i, e) in expect.iter().enumerate() {
        assert_eq!(rec(i), *e, "record {i}");
    }
    assert_eq!(guess_format(&bytes), InputFormat::OracleGeneral);
    assert_eq!(run(&og, None, None, &Default::default()).unwrap(), refs);
    // Scratch file gone; only trace, records and the reconverted trace remain.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
}

#[test]
fn compressed_inputs_are_recognised_by_magic() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("l.txt");
    std::fs::write(&plain, LACKEY).unwrap();
    let expect = run(&plain, None, None, &Default::default()).unwrap();

    let zst = dir.path().join("l.zst");
    std::fs::write(&zst, zstd::encode_all(LACKEY.as_bytes(), 3).unwrap()).unwrap();
    let xz = dir.path().join("l.xz");
    let mut e = xz2::write::XzEncoder::new(Vec::new(), 6);
    e.write_all(LACKEY.as_bytes()).unwrap();
    std::fs::write(&xz, e.finish().unwrap()).unwrap();
    let gz = dir.path().join("l.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(LACKEY.as_bytes()).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();

    for (path, name) in [(&zst, "zstd"), (&xz, "xz"), (&gz, "gzip")] {
        let out = path.with_extension("plt");
        let info = convert(path, None, None, &Default::default(), &out, &mut |_, _| {}).unwrap();
        assert_eq!(info.description["compression"], name);
        assert_eq!(info.description["input_format"], "lackey");
        assert_eq!(expand(&out), expect, "{name}");
    }
}

#[test]
fn truncated_compressed_input_is_corrupt_and_leaves_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..200_000u64)
        .map(|i| format!("{}\n", i * 7919 % 100_003))
        .collect();
    let full = zstd::encode_all(text.as_bytes(), 1).unwrap();
    let cut = dir.path().join("cut.zst");
    std::fs::write(&cut, &full[..full.len() / 2]).unwrap();
    let out = dir.path().join("o.plt");
    let e = convert(&cut, None, None, &Default::default(), &out, &mut |_, _| {}).unwrap_err();
    assert!(matches!(e, TraceError::Corrupt { .. }), "{e}");
    assert!(e.to_string().contains("zstd stream"), "{e}");
    assert!(!out.exists());
}

#[test]
fn guesser_tells_the_formats_apart() {
    assert_eq!(guess_format(LACKEY.as_bytes()), InputFormat::Lackey);
    assert_eq!(
        guess_format(b"I  0400d7d4,8\n L 04222cac,4\n"),
        InputFormat::Lackey
    );
    assert_eq!(
        guess_format(b"0x40054c: R 0x7ffd5a1c\n#eof\n"),
        InputFormat::Pinatrace
    );
    assert_eq!(guess_format(b"1\n2\n3 W\n"), InputFormat::Text);
    assert_eq!(guess_format(b"# comment only\n"), InputFormat::Text);
    assert_eq!(guess_format(b""), InputFormat::Text);
    assert_eq!(guess_format(b"PGLTRACE\x01\0\0\0"), InputFormat::Pagelab);
    // 64-bit addresses whose high words would pass as oracleGeneral sizes.
    let addrs: Vec<u8> = (0..30u64)
        .flat_map(|i| (0x7ffd_0000_0000u64 + i * 0x1_2345).to_le_bytes())
        .collect();
    assert_eq!(guess_format(&addrs), InputFormat::U64);
}

#[test]
fn coarser_page_size_maps_through_the_page_map_and_finer_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.plt");
    write_pages(
        &trace,
        4096,
        &[
            (0x10, Instr),
            (0x11, Load),
            (0x13, Store),
            (0x14, Load),
            (0x10, Instr),
        ],
    );
    let out = dir.path().join("c.plt");
    let opts = ConvertOptions {
        page_size: 16384,
        ..Default::default()
    };
    let info = convert(&trace, None, None, &opts, &out, &mut |_, _| {}).unwrap();
    assert_eq!(info.page_size, 16384);
    assert_eq!(info.description["source"]["program"], "hand");
    // Pages 0x10..0x13 share 16 KiB page 4; 0x14 is page 5.
    assert_eq!(
        expand(&out),
        vec![(4, Instr), (4, Load), (4, Store), (5, Load), (4, Instr)]
    );
    assert_eq!(info.runs, 5);
    let fine = ConvertOptions {
        page_size: 1024,
        ..Default::default()
    };
    let e = convert(
        &trace,
        None,
        None,
        &fine,
        &dir.path().join("f.plt"),
        &mut |_, _| {},
    )
    .unwrap_err();
    assert!(matches!(e, TraceError::Invalid(_)));
    assert!(e.to_string().contains("finer"), "{e}");
    let odd = ConvertOptions {
        page_size: 3000,
        ..Default::default()
    };
    let e = convert(
        &trace,
        None,
        None,
        &odd,
        &dir.path().join("f.plt"),
        &mut |_, _| {},
    )
    .unwrap_err();
    assert!(e.to_string().contains("power of two"), "{e}");
    assert!(!dir.path().join("f.plt").exists());
}

#[test]
fn compressed_pagelab_trace_is_refused_not_misread() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.plt");
    write_pages(&trace, 4096, &[(1, Load)]);
    let zst = dir.path().join("t.plt.zst");
    std::fs::write(
        &zst,
        zstd::encode_all(&std::fs::read(&trace).unwrap()[..], 3).unwrap(),
    )
    .unwrap();
    let e = run(&zst, None, None, &Default::default()).unwrap_err();
    assert!(e.to_string().contains("decompress it first"), "{e}");
}

#[test]
fn units_that_do_not_fit_the_format_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("l.txt");
    std::fs::write(&input, LACKEY).unwrap();
    let e = run(&input, None, Some(Units::Pages), &Default::default()).unwrap_err();
    assert!(e.to_string().contains("--units"), "{e}");
    let text = dir.path().join("t.txt");
    std::fs::write(&text, "1\n").unwrap();
    let ranged = ConvertOptions {
        ranges: vec!["0-100".parse().unwrap()],
        ..Default::default()
    };
    let e = run(&text, None, None, &ranged).unwrap_err();
    assert!(e.to_string().contains("--units addresses"), "{e}");
    assert!("lackey".parse::<InputFormat>().is_ok());
    assert!("nope"
        .parse::<InputFormat>()
        .unwrap_err()
        .to_string()
        .contains("--from nope"));
}

#[test]
fn progress_reports_bytes_and_total() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.txt");
    let mut s = String::new();
    for i in 0..1_200_000u64 {
        s.push_str(&format!("{}\n", i % 1000));
    }
    std::fs::write(&input, &s).unwrap();
    let mut calls = Vec::new();
    convert(
        &input,
        None,
        None,
        &Default::default(),
        &dir.path().join("o.plt"),
        &mut |b, t| calls.push((b, t)),
    )
    .unwrap();
    let total = s.len() as u64;
    assert!(calls.len() >= 2, "{calls:?}");
    assert!(calls.windows(2).all(|w| w[0].0 <= w[1].0));
    assert_eq!(*calls.last().unwrap(), (total, Some(total)));
}

/// Conversion throughput on a given input; run in release:
/// `PAGELAB_CONVERT_INPUT=FILE cargo test --release -p pagelab-trace --test integration --
/// --ignored --nocapture convert_throughput`.
#[test]
#[ignore = "a measurement, not a test: run in release"]
fn convert_throughput() {
    let Ok(input) = std::env::var("PAGELAB_CONVERT_INPUT") else {
        println!("set PAGELAB_CONVERT_INPUT to a file to convert");
        return;
    };
    let input = std::path::PathBuf::from(input);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.plt");
    let bytes = std::fs::metadata(&input).unwrap().len();
    let t = std::time::Instant::now();
    let info = convert(
        &input,
        None,
        None,
        &Default::default(),
        &out,
        &mut |_, _| {},
    )
    .unwrap();
    let s = t.elapsed().as_secs_f64();
    println!(
        "{} {:.1} MB in {s:.2} s: {:.1} MB/s, {:.1} M references/s, format {}",
        input.display(),
        bytes as f64 / 1e6,
        bytes as f64 / s / 1e6,
        info.references as f64 / s / 1e6,
        info.description["input_format"]
    );
}

#[test]
fn oracle_general_next_access_matches_brute_force_on_random_strings() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("r.plt");
    let og = dir.path().join("r.bin");
    let mut x = 12345u64;
    for case in 0..8u32 {
        let mut pages = Vec::new();
        for _ in 0..(200 + 150 * case) {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let p = (x >> 33) % (3 + case as u64 * 4);
            let reps = 1 + (x >> 60) % 3; // repeats build multi-reference runs
            for _ in 0..reps {
                pages.push(p);
            }
        }
        let mut w = TraceWriter::create_with(
            &trace,
            4096,
            json!(null),
            pagelab_trace::format::WriterOptions {
                chunk_runs: 1 + case * 5,
                ..Default::default()
            },
        )
        .unwrap();
        for &p in &pages {
            w.push(p, Load).unwrap();
        }
        w.finish().unwrap();
        write_oracle_general(&trace, &og, &mut |_, _| {}).unwrap();
        let bytes = std::fs::read(&og).unwrap();
        assert_eq!(bytes.len(), pages.len() * ORACLE_RECORD);
        for (i, r) in bytes.chunks_exact(ORACLE_RECORD).enumerate() {
            let id = u64::from_le_bytes(r[4..12].try_into().unwrap());
            let next = i64::from_le_bytes(r[16..24].try_into().unwrap());
            let expect = pages[i + 1..]
                .iter()
                .position(|&q| q == pages[i])
                .map_or(-1, |d| (i + 1 + d) as i64 + 1);
            assert_eq!((id, next), (pages[i], expect), "case {case} record {i}");
        }
    }
}
