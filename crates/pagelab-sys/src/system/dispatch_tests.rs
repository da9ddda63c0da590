//! The Q1 ready list's order: first come first served, or least CPU used in the stay first
//! (fidelity notes §2.4, VM's "infrequent CPU users first").

use super::*;
use crate::spec::load_spec;

fn system(order: &str) -> System<'static> {
    let toml = format!(
        r#"
[run]
duration_s = 10.0
[cpu]
count = 1
reference_ns = 200.0
dispatch_slice_ms = 50.0
dispatch_order = "{order}"
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
users = 3
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

/// Users 0, 1, 2 become ready in that order having used 5, 0 and 2 ms of CPU in their stays.
fn ready_order(order: &str) -> Vec<u32> {
    let mut sys = system(order);
    for (u, ms) in [(0u32, 5u64), (1, 0), (2, 2)] {
        sys.users[u as usize].queue = Some(Queue::Q1);
        sys.users[u as usize].stay_cpu_ns = ms * 1_000_000;
        sys.make_ready(u, false);
    }
    sys.dispatch.ready_q1.iter().copied().collect()
}

#[test]
fn fifo_keeps_arrival_order() {
    assert_eq!(ready_order("fifo"), vec![0, 1, 2]);
}

#[test]
fn least_cpu_puts_the_lightest_user_first() {
    assert_eq!(ready_order("least-cpu"), vec![1, 2, 0]);
}
