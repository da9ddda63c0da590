//! Replays every saved fuzz input of the spec targets on stable: each crash the fuzzers found
//! (minimized, in `fuzz/regressions/<target>/`) and the seed corpus (`fuzz/seeds/<target>/`)
//! must now give an answer, not a panic. See docs/reliability.md.
//!
//! A binary of its own, not a module of `tests/integration`: the harness stops a run that
//! takes too long through the process-wide interrupt flag, which would stop the other tests'
//! runs too if they shared the process.

use std::path::{Path, PathBuf};

#[path = "../../../fuzz/harness/sys.rs"]
mod harness;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

fn inputs(target: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["regressions", "seeds"] {
        if let Ok(entries) = std::fs::read_dir(root().join(dir).join(target)) {
            out.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_file()));
        }
    }
    out.sort();
    out
}

#[test]
fn fuzz_inputs_of_the_spec_loaders_replay_without_panic() {
    let presets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../presets");
    let mut n = 0;
    for p in inputs("spec_text") {
        let data = std::fs::read(&p).unwrap();
        let r = std::panic::catch_unwind(|| harness::spec_text(&data));
        assert!(r.is_ok(), "spec_text: {} panics", p.display());
        n += 1;
    }
    for p in inputs("spec_overrides") {
        let data = std::fs::read(&p).unwrap();
        let r = std::panic::catch_unwind(|| harness::spec_overrides(&presets, &data));
        assert!(r.is_ok(), "spec_overrides: {} panics", p.display());
        n += 1;
    }
    assert!(n > 0);
}
