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
