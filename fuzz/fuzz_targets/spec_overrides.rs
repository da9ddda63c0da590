//! Fuzz target `spec_overrides`: see `harness/sys.rs`.
#![no_main]

#[path = "../harness/sys.rs"]
#[allow(dead_code)]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    harness::spec_overrides(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../presets")),
        data,
    )
});
