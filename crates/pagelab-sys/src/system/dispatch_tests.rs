//! The Q1 ready list's order: first come first served, or least CPU used in the stay first
//! (fidelity notes §2.4, VM's "infrequent CPU users first").

use super::*;

fn system(order: &str) -> System<'static> {
    super::tiny_system::tiny(&format!("count = 1\ndispatch_order = \"{order}\""), 3)
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
