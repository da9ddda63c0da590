//! Integration tests of the system model, named for the law or behaviour they check.

mod errors;
mod golden;
mod hpo;
mod laws;
mod psi;
mod readahead;
mod table1;
mod unix;
mod zswap;

use pagelab_sys::{load_spec, SystemSpec};

/// The smallest complete system: one CPU, one drum, a few CMS users, VM/370 load control.
pub fn small_toml(users: u32, frames: u32, duration_s: f64) -> String {
    format!(
        r#"
[run]
duration_s = {duration_s}
warmup_s = 20.0
[cpu]
count = 1
reference_ns = 200.0
dispatch_slice_ms = 50.0
[cpu.supervisor]
fault_us = 100.0
sio_us = 50.0
interrupt_us = 20.0
dispatch_us = 10.0
page_moved_us = 10.0
[memory]
frames = {frames}
[[channel]]
name = "c0"
[[device]]
name = "drum"
model = "2305-2"
channel = "c0"
[vio]
devices = 2
service_ms = 20.0
[load_control]
kind = "vm370"
q1_slice_s = 0.25
q2_slice_s = 2.5
q1_overcommit = 1.25
projection = "damped"
initial_ws_pages = 10.0
[monitor]
interval_s = 10.0
[workload]
users = {users}
shared_pages = 8
[[workload.class]]
name = "cms"
fraction = 1.0
think = {{ kind = "exponential", mean_s = 5.0 }}
commands = [
  {{ name = "trivial", weight = 0.8, cpu_ms = 30.0, vio = 3, console_writes = 1, console_write_ms = 20.0 }},
  {{ name = "nontrivial", weight = 0.2, cpu_ms = 400.0, vio = 10 }},
]
program = {{ kind = "cms", set_pages = 20, address_pages = 30, overlap = 0.8, locality_pages = 8, runs_per_phase = 30, refs_per_run = 500.0, write_fraction = 0.3, shared_fraction = 0.1 }}
"#
    )
}

/// `small_toml` parsed, with overrides.
pub fn small(users: u32, frames: u32, duration_s: f64, overrides: &[(&str, &str)]) -> SystemSpec {
    let o: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    load_spec(&small_toml(users, frames, duration_s), "small.toml", &o).expect("small spec")
}

/// A metric's value.
pub fn m(r: &pagelab_sys::Report, name: &str) -> f64 {
    r.metrics[name].value
}
