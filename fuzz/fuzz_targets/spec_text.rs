//! Fuzz target `spec_text`: see `harness/sys.rs`.
#![no_main]

#[path = "../harness/sys.rs"]
#[allow(dead_code)]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::spec_text(data));
