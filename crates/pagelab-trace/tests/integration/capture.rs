//! Capture of real programs under valgrind's lackey.

use std::path::Path;

use pagelab_trace::capture::{capture, capture_with};
use pagelab_trace::format::TraceReader;
use pagelab_trace::TraceError;

fn no_progress() -> impl FnMut(u64, Option<u64>) {
    |_, _| {}
}

#[test]
fn capture_of_true_has_instructions_loads_and_stores() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("true.plt");
    let mut calls = 0u32;
    let mut progress = |_: u64, total: Option<u64>| {
        assert_eq!(total, None);
        calls += 1;
    };
    let info = capture(Path::new("true"), &[], 4096, &out, &mut progress).unwrap();
    assert!(calls >= 1);
    let k = info.references_by_kind;
    // Dynamic loading alone runs tens of thousands of instructions.
    assert!(k.instruction > 10_000, "{info:?}");
    assert!(k.load > 1_000 && k.store > 1_000, "{info:?}");
    assert!(
        info.distinct_pages > 10 && info.distinct_pages < 10_000,
        "{info:?}"
    );
    assert!(info.runs < info.references);
    assert_eq!(info.description["program"], "true");
    assert!(info.description["valgrind_version"]
        .as_str()
        .unwrap()
        .starts_with("valgrind"));
    let mut r = TraceReader::open(&out).unwrap();
    assert_eq!(r.info(), info);
    let runs = r.read_all().unwrap();
    assert_eq!(
        runs.iter().map(|r| r.count as u64).sum::<u64>(),
        info.references
    );
    // Only the output is left in the directory: no temporary, no text log.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn capture_of_sort_with_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("words.txt");
    std::fs::write(&input, "pear\napple\nfig\n").unwrap();
    let out = dir.path().join("sort.plt");
    let args = vec![input.display().to_string()];
    let info = capture(Path::new("sort"), &args, 4096, &out, &mut no_progress()).unwrap();
    assert!(info.references_by_kind.instruction > 100_000);
    assert_eq!(info.description["args"][0], args[0]);
}

#[test]
fn missing_program_is_an_error_and_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.plt");
    let e = capture(
        Path::new("no-such-program-xyz"),
        &[],
        4096,
        &out,
        &mut no_progress(),
    )
    .unwrap_err();
    assert!(matches!(e, TraceError::Invalid(_)));
    assert!(e.to_string().contains("no-such-program-xyz"), "{e}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn missing_valgrind_is_an_error_and_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.plt");
    let e = capture_with(
        Path::new("/nonexistent/valgrind"),
        Path::new("true"),
        &[],
        4096,
        &out,
        &mut no_progress(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("valgrind"), "{e}");
    assert!(!e.to_string().contains('\n'));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn nonzero_exit_is_an_error_and_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.plt");
    let e = capture(Path::new("false"), &[], 4096, &out, &mut no_progress()).unwrap_err();
    assert!(e.to_string().contains("exited"), "{e}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn page_size_must_be_a_power_of_two() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.plt");
    let e = capture(Path::new("true"), &[], 3000, &out, &mut no_progress()).unwrap_err();
    assert!(e.to_string().contains("power of two"), "{e}");
}

/// Captures a real program and measures the capture and the decoding of its trace; run in
/// release: `PAGELAB_CAPTURE="python3 -c pass" cargo test --release -p pagelab-trace --test
/// integration -- --ignored --nocapture capture_and_decode_real_program`.
#[test]
#[ignore = "a measurement, not a test: run in release"]
fn capture_and_decode_real_program() {
    use pagelab_trace::format::PrefetchReader;
    use pagelab_trace::ReferenceSource;
    let cmd = std::env::var("PAGELAB_CAPTURE").unwrap_or_else(|_| "sort /etc/services".into());
    let mut words = cmd.split_whitespace().map(String::from);
    let program = words.next().unwrap();
    let args: Vec<String> = words.collect();
    let out = std::env::var("PAGELAB_CAPTURE_OUT")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| {
            std::env::temp_dir().join(format!("pagelab-capture-{}.plt", std::process::id()))
        });
    let t = std::time::Instant::now();
    let info = capture(Path::new(&program), &args, 4096, &out, &mut no_progress()).unwrap();
    let capture_s = t.elapsed().as_secs_f64();
    println!("{}", serde_json::to_string(&info).unwrap());
    println!(
        "capture {capture_s:.1} s ({:.1} M references/s); {:.2} references/run, {:.2} bytes/run",
        info.references as f64 / capture_s / 1e6,
        info.references as f64 / info.runs as f64,
        info.file_bytes as f64 / info.runs as f64
    );
    for prefetch in [false, true] {
        let mut best = f64::MAX;
        for _ in 0..5 {
            let t = std::time::Instant::now();
            let reader = TraceReader::open(&out).unwrap();
            let mut src: Box<dyn ReferenceSource> = if prefetch {
                Box::new(PrefetchReader::new(reader))
            } else {
                Box::new(reader)
            };
            let mut batch = Vec::with_capacity(1 << 16);
            let mut refs = 0u64;
            while src.next_batch(&mut batch).unwrap() {
                refs += batch.iter().map(|r| r.count as u64).sum::<u64>();
                batch.clear();
            }
            assert_eq!(refs, info.references);
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "decode (prefetch {prefetch}) best of 5 {best:.3} s: {:.1} M runs/s, {:.1} M references/s",
            info.runs as f64 / best / 1e6,
            info.references as f64 / best / 1e6
        );
    }
    if std::env::var("PAGELAB_CAPTURE_OUT").is_err() {
        std::fs::remove_file(&out).unwrap();
    }
}
