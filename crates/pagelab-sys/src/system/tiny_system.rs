//! A small VM/370 system for the unit tests that set users' states by hand: one drum, 64
//! frames, `users` CMS users thinking 100 s between 10-ms commands.

use super::*;
use crate::spec::load_spec;

/// The system with `cpu` as the `[cpu]` table's lines besides `reference_ns` and
/// `dispatch_slice_ms` (e.g. `count = 2`), and `users` users.
pub(super) fn tiny(cpu: &str, users: u32) -> System<'static> {
    let toml = format!(
        r#"
[run]
duration_s = 10.0
[cpu]
reference_ns = 200.0
dispatch_slice_ms = 50.0
{cpu}
[memory]
frames = 64
[[channel]]
name = "c0"
[[device]]
name = "drum"
model = "2305-2"
channel = "c0"
[load_control]
kind = "vm370"
projection = "damped"
initial_ws_pages = 10.0
[workload]
users = {users}
[[workload.class]]
name = "cms"
fraction = 1.0
think = {{ kind = "fixed", s = 100.0 }}
commands = [ {{ name = "t", cpu_ms = 10.0 }} ]
program = {{ kind = "cms", set_pages = 4, address_pages = 8, locality_pages = 2, runs_per_phase = 10, refs_per_run = 10.0 }}
"#
    );
    let spec = load_spec(&toml, "test", &[]).unwrap();
    System::build(&spec, 1, None).unwrap()
}
