//! Replays every saved fuzz input of the trace targets on stable: each crash the fuzzers found
//! (minimized, in `fuzz/regressions/<target>/`) and the seed corpus (`fuzz/seeds/<target>/`)
//! must now give an answer, not a panic. See docs/reliability.md.

use std::path::{Path, PathBuf};

#[path = "../../../../fuzz/harness/trace.rs"]
mod harness;

fn inputs(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut out = Vec::new();
    for dir in ["regressions", "seeds"] {
        if let Ok(entries) = std::fs::read_dir(root.join(dir).join(target)) {
            out.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_file()));
        }
    }
    out.sort();
    out
}

fn replay(target: &str, f: fn(&[u8])) -> usize {
    let files = inputs(target);
    for p in &files {
        let data = std::fs::read(p).unwrap();
        let r = std::panic::catch_unwind(|| f(&data));
        assert!(r.is_ok(), "{target}: {} panics", p.display());
    }
    files.len()
}

#[test]
fn fuzz_inputs_of_the_trace_reader_replay_without_panic() {
    assert!(replay("trace_file", harness::trace_file) > 0);
}

#[test]
fn fuzz_inputs_of_the_foreign_readers_replay_without_panic() {
    assert!(replay("convert", harness::convert_input) > 0);
}

#[test]
fn fuzz_inputs_of_step_replay_without_panic() {
    assert!(replay("step", harness::step) > 0);
}

#[test]
fn checksum_fixing_lets_a_mutated_trace_reach_the_decoder() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.plt");
    let mut w =
        pagelab_trace::format::TraceWriter::create(&path, 4096, serde_json::json!(null)).unwrap();
    for i in 0..50u64 {
        w.push(i % 7, pagelab_trace::AccessKind::Load).unwrap();
    }
    w.finish().unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[120] ^= 1; // inside the first chunk's payload
    std::fs::write(&path, &bytes).unwrap();
    assert!(pagelab_trace::format::verify(&path, &mut |_, _| Ok(())).is_err());
    harness::fix_checksums(&mut bytes).unwrap();
    std::fs::write(&path, &bytes).unwrap();
    // Past the checksums, the decoder itself judges the changed byte.
    let e = pagelab_trace::format::verify(&path, &mut |_, _| Ok(()));
    assert!(!format!("{e:?}").contains("checksum"), "{e:?}");
}
