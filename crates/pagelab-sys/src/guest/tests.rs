//! The guest OS alone: its dispatcher, the two interrupts, job steps, PAGEMON's bound.

use super::*;
use crate::spec::guest::GuestSpec;

pub(crate) const GUEST: &str = r#"
name = "os"
nucleus = { pages = 4, fraction = 0.0 }
[[partition]]
name = "p0"
pages = 16
queue = "batch"
[[partition]]
name = "p1"
pages = 16
queue = "batch"
[[partition]]
name = "p2"
pages = 16
queue = "batch"
[[stream]]
name = "batch"
queue = "batch"
[[stream.job]]
name = "j"
steps = [
  { cpu_s = 1.0, ios = 2, program = { kind = "cms", set_pages = 8, address_pages = 16, locality_pages = 4, runs_per_phase = 10, refs_per_run = 10.0 } },
  { cpu_s = 0.5, program = { kind = "cms", set_pages = 8, address_pages = 16, locality_pages = 4, runs_per_phase = 10, refs_per_run = 10.0 } },
]
"#;

fn guest(copies: u32) -> GuestOs {
    let mut spec: GuestSpec = toml::from_str(GUEST).unwrap();
    spec.streams[0].copies = copies;
    let mut g = GuestOs::new(&spec, 10, &RngStreams::new(1), 0);
    g.arrive(0, Tick::ZERO);
    g
}

fn run(g: &mut GuestOs) -> Option<usize> {
    let (mut runs, mut pos, mut left, mut seg) = (Vec::new(), 0, 0, 0);
    g.dispatch(&mut runs, &mut pos, &mut left, &mut seg)
        .then(|| g.current().unwrap())
}

#[test]
fn the_dispatcher_runs_the_highest_priority_ready_task() {
    let mut g = guest(3);
    assert!(g.tasks.iter().all(|t| t.state == TaskState::Ready));
    assert_eq!(run(&mut g), Some(0));
    g.tasks[0].state = TaskState::IoWait;
    assert_eq!(run(&mut g), Some(1));
    g.tasks[0].state = TaskState::Ready;
    assert_eq!(run(&mut g), Some(0));
}

#[test]
fn a_switch_saves_and_restores_the_task_cursor_and_segment() {
    let mut g = guest(3);
    let (mut runs, mut pos, mut left, mut seg) = (Vec::new(), 0usize, 0u32, 0u64);
    assert!(g.dispatch(&mut runs, &mut pos, &mut left, &mut seg));
    g.next_batch(&mut runs).unwrap();
    let first = runs.clone();
    // Task 0's pages lie in its partition: after the shared segment (10) and nucleus (4).
    assert!(first.iter().all(|r| (14..30).contains(&r.page)));
    pos = 7;
    left = 3;
    g.ran(1000, seg - 1000);
    g.pseudo_fault();
    assert!(g.dispatch(&mut runs, &mut pos, &mut left, &mut seg));
    assert_eq!(g.current(), Some(1));
    assert_eq!((runs.len(), pos, left), (0, 0, 0));
    g.page_arrived();
    assert!(g.dispatch(&mut runs, &mut pos, &mut left, &mut seg));
    assert_eq!(g.current(), Some(0));
    assert_eq!((runs, pos, left), (first, 7, 3));
    // 1 s in three segments around two I/Os, less the microsecond run.
    assert_eq!(seg, 333_333_333 - 1000);
}

#[test]
fn the_completion_interrupt_readies_every_page_waiting_task() {
    let mut g = guest(3);
    assert_eq!(run(&mut g), Some(0));
    g.pseudo_fault();
    assert_eq!(run(&mut g), Some(1));
    g.pseudo_fault();
    assert_eq!(run(&mut g), Some(2));
    assert_eq!(g.tasks[0].state, TaskState::PageWait);
    assert_eq!(g.tasks[1].state, TaskState::PageWait);
    // One page arrives: it names no task, so both waiters become ready.
    g.page_arrived();
    assert_eq!(g.tasks[0].state, TaskState::Ready);
    assert_eq!(g.tasks[1].state, TaskState::Ready);
    assert_eq!((g.n_pseudo, g.n_completions, g.n_readied), (2, 1, 2));
}

#[test]
fn a_step_does_its_ios_then_the_next_step_then_the_next_job() {
    let mut g = guest(2);
    assert_eq!(run(&mut g), Some(0));
    assert_eq!(g.segment_ended(Tick(1)), Verdict::Io(0));
    assert_eq!(g.wake(0), Verdict::Continue);
    assert_eq!(g.segment_ended(Tick(2)), Verdict::Io(0));
    g.wake(0);
    // Third segment ends the first step; the second starts at once.
    assert_eq!(g.segment_ended(Tick(3)), Verdict::Continue);
    assert_eq!(g.tasks[0].state, TaskState::Ready);
    assert_eq!(g.tasks[0].step, 1);
    // The second step has no I/O: its end ends the job; the queue is empty (two copies, both
    // taken by p0 and p1), so p0 goes idle.
    assert_eq!(g.segment_ended(Tick(4)), Verdict::Continue);
    assert_eq!(g.tasks[0].state, TaskState::Idle);
    assert_eq!(g.jobs.len(), 1);
    assert_eq!(g.jobs[0].partition, "p0");
    assert!(!g.streams_done());
}

#[test]
fn pagemon_deactivates_the_lowest_priority_busy_partitions_and_reactivates_them() {
    let mut g = guest(3);
    g.set_allowed(1);
    assert!(!g.tasks[0].deactivated && g.tasks[1].deactivated && g.tasks[2].deactivated);
    assert_eq!(g.n_deactivations, 2);
    // A deactivated task is never dispatched, even when the allowed one waits.
    g.tasks[0].state = TaskState::IoWait;
    assert_eq!(run(&mut g), None);
    g.tasks[0].state = TaskState::Ready;
    // Idle partitions do not count against the bound: p0 idle, p1 becomes the one allowed.
    g.tasks[0].state = TaskState::Idle;
    g.set_allowed(1);
    assert!(!g.tasks[1].deactivated && g.tasks[2].deactivated);
    g.set_allowed(3);
    assert!(g.tasks.iter().all(|t| !t.deactivated));
    assert_eq!(g.n_reactivations, 2);
    assert_eq!(run(&mut g), Some(1));
}

#[test]
fn nucleus_faults_are_disabled_task_faults_enabled() {
    let g = guest(1);
    assert!(!g.enabled_at(10) && !g.enabled_at(13));
    assert!(g.enabled_at(14));
}
