//! The users as Linux PSI's memory tasks (`System::mem_tasks`): hand-set user states, the clock
//! advanced, and the pressure counters and averages they give, worked by hand.

use super::*;
use crate::pressure::Stall;

fn system(cpus: u32) -> System<'static> {
    super::tiny_system::tiny(&format!("count = {cpus}"), 4)
}

const S: u64 = 1_000_000_000;

/// Puts user `u` in queue and in state `s` (ready users on the Q1 ready list).
fn put(sys: &mut System, u: u32, s: UState) {
    sys.users[u as usize].queue = Some(Queue::Q1);
    if s == UState::Ready {
        sys.make_ready(u, false);
    } else {
        sys.set_state(u, s);
    }
}

/// One processor: a user waiting for a VIO does not keep "full" false (it did before: every
/// in-queue user had to wait for a page), a ready user does.
#[test]
fn one_cpu_io_waiters_do_not_prevent_full() {
    let mut sys = system(1);
    put(&mut sys, 0, UState::PageWait);
    put(&mut sys, 1, UState::VioWait);
    // 0-1 s: one stalled, one in iowait, none runnable: some and full.
    sys.advance(Tick(S));
    put(&mut sys, 2, UState::Ready);
    // 1-3 s: a runnable user: some only.
    sys.advance(Tick(3 * S));
    sys.set_state(0, UState::FrameWait);
    sys.dispatch.ready_q1.retain(|&x| x != 2);
    sys.set_state(2, UState::ConsoleWait);
    // 3-3.5 s: waiting for a frame is a stall too, and the writer to the terminal is idle.
    sys.advance(Tick(3 * S + S / 2));
    let c = sys.ctx.c;
    assert_eq!((c.pressure_some_s, c.pressure_full_s), (3.5, 1.5));
}

/// Two processors: psi.c's shares of min(non-idle, 2) threads.
#[test]
fn two_cpus_share_by_threads() {
    let mut sys = system(2);
    put(&mut sys, 0, UState::PageWait);
    put(&mut sys, 1, UState::Ready);
    put(&mut sys, 2, UState::Ready);
    // 0-2 s: 3 non-idle, 2 threads, 1 stalled, 2 productive: some 1/2, full 0 → 1 s, 0 s.
    sys.advance(Tick(2 * S));
    sys.dispatch.ready_q1.retain(|&x| x != 1);
    sys.set_state(1, UState::VioWait);
    // 2-4 s: 2 threads, 1 productive: some 1/2, full min(1, 2 - 1)/2 = 1/2 → 2 s, 1 s.
    sys.advance(Tick(4 * S));
    let c = sys.ctx.c;
    assert_eq!((c.pressure_some_s, c.pressure_full_s), (2.0, 1.0));
    // Averages: the period ending at 2.004 s held 2.004 × 1/2 s of "some": 50 %; avg10 =
    // (50 × 2048 × 371 + 2047) / 2048 = 18,550 → 9.05. "full" held 0.004 × 1/2 s: 0 %.
    let p = &sys.monitor.pressure;
    assert_eq!(p.averages(Stall::Some), [9.05, 1.63, 0.34]);
    assert_eq!(p.averages(Stall::Full), [0.0, 0.0, 0.0]);
}
