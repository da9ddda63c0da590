//! The two-level fault path on the assembled machine (young ch. II §2–3).

use super::*;
use crate::guest::{GuestOs, TaskState};

fn spec(accelerator: bool) -> SystemSpec {
    let text = r#"
[run]
duration_s = 100.0
[cpu]
count = 1
reference_ns = 100.0
dispatch_slice_ms = 50.0
[memory]
frames = 64
page_bytes = 4096
[paging]
[[channel]]
name = "ch"
[[device]]
name = "d"
model = "3330"
channel = "ch"
[vio]
devices = 2
service_ms = 20.0
[load_control]
kind = "vm370"
projection = "damped"
initial_ws_pages = 20.0
[workload]
users = 0
[[workload.class]]
name = "cms"
fraction = 1.0
think = { kind = "fixed", s = 1.0 }
commands = [ { name = "c", cpu_ms = 10.0 } ]
program = { kind = "cms", set_pages = 4, address_pages = 8, locality_pages = 2, runs_per_phase = 4, refs_per_run = 10.0 }
"#;
    let mut v: toml::Value = toml::from_str(text).unwrap();
    let mut g: toml::Value = toml::from_str(crate::guest::tests::GUEST).unwrap();
    let t = g.as_table_mut().unwrap();
    t.insert("accelerator".into(), toml::Value::Boolean(accelerator));
    t.insert("end_when_done".into(), toml::Value::Boolean(false));
    v["workload"]
        .as_table_mut()
        .unwrap()
        .insert("guest".into(), toml::Value::Array(vec![g]));
    crate::spec::load_spec(&toml::to_string(&v).unwrap(), "test", &[]).unwrap()
}

fn os<'a>(sys: &'a System<'_>) -> &'a GuestOs {
    match &sys.users[0].program {
        Program::Guest(os) => os,
        _ => panic!("user 0 is the guest"),
    }
}

/// Starts the guest's first burst and makes the page it faults on live on a slot, so the
/// fault must wait for a read. Returns the faulting page.
fn burst_to_a_slotted_fault(sys: &mut System<'_>) -> u32 {
    sys.dispatch().unwrap();
    assert_eq!(sys.dispatch.cpus[0].user, 0, "the guest runs");
    let Outcome::Fault(page) = sys.dispatch.cpus[0].outcome else {
        panic!("an empty storage faults at once")
    };
    let (addr, _) = sys.paging.io.allocate_page_out().unwrap();
    let pte = sys.mem.pte_mut(0, page);
    pte.slot = addr.slot;
    pte.dev = addr.dev;
    sys.advance(sys.dispatch.cpus[0].burst_end);
    sys.handle_burst_ended(0).unwrap();
    page
}

/// Handles queued device events until a page read completes.
fn until_a_read_completes(sys: &mut System<'_>) {
    loop {
        let (t, ev) = sys.ctx.q.pop().expect("a read is under way");
        sys.advance(t);
        match ev {
            Event::Reconnect(d) => sys.paging.on_reconnect(&mut sys.ctx, d as usize),
            Event::IoComplete(d) => {
                sys.handle_io_complete(d as usize).unwrap();
                return;
            }
            _ => {}
        }
    }
}

fn started(accelerator: bool) -> System<'static> {
    let mut s = spec(accelerator);
    s.workload.guests[0].streams[0].copies = 3;
    let mut sys = System::build(&s, 1, None).unwrap();
    sys.set_check_every(1);
    sys.handle_guest_arrive(0, 0);
    assert_eq!(sys.users[0].state, UState::Ready, "admitted at once");
    assert!(os(&sys).tasks.iter().all(|t| t.state == TaskState::Ready));
    sys
}

#[test]
fn without_the_accelerator_a_task_fault_blocks_every_task() {
    let mut sys = started(false);
    burst_to_a_slotted_fault(&mut sys);
    // The whole virtual machine waits; its other ready tasks cannot run.
    assert_eq!(sys.users[0].state, UState::PageWait);
    assert!(os(&sys).tasks.iter().all(|t| t.state == TaskState::Ready));
    sys.dispatch().unwrap();
    assert_eq!(
        sys.dispatch.cpus[0].user, NONE,
        "nothing runs while the VM page-waits"
    );
    sys.check_invariants().unwrap();
    until_a_read_completes(&mut sys);
    assert_eq!(sys.users[0].state, UState::Ready);
    assert_eq!(os(&sys).n_pseudo, 0);
}

#[test]
fn with_the_accelerator_only_the_task_waits_and_the_completion_readies_all_waiters() {
    let mut sys = started(true);
    burst_to_a_slotted_fault(&mut sys);
    // First interrupt: task 0 page-waits; the VM stays dispatchable and runs task 1.
    assert_eq!(sys.users[0].state, UState::Ready);
    assert_eq!(os(&sys).tasks[0].state, TaskState::PageWait);
    burst_to_a_slotted_fault(&mut sys);
    assert_eq!(os(&sys).tasks[1].state, TaskState::PageWait);
    assert_eq!(os(&sys).tasks[2].state, TaskState::Ready);
    assert_eq!(sys.users[0].state, UState::Ready);
    sys.check_invariants().unwrap();
    // Task 2 takes a third pseudo fault: every task waits, the VM is in an enabled wait in
    // queue (not in page wait).
    burst_to_a_slotted_fault(&mut sys);
    assert_eq!(sys.users[0].state, UState::VioWait);
    assert!(sys.users[0].queue.is_some());
    assert_eq!(sys.sched.n_page_wait, 0);
    // The first page in: the second interrupt readies all three tasks, and the VM.
    until_a_read_completes(&mut sys);
    assert!(os(&sys).tasks.iter().all(|t| t.state == TaskState::Ready));
    assert_eq!(sys.users[0].state, UState::Ready);
    assert_eq!(os(&sys).n_pseudo, 3);
    assert!(os(&sys).n_completions >= 1);
    sys.check_invariants().unwrap();
}

#[test]
fn a_whole_run_with_the_accelerator_keeps_the_books() {
    let mut s = spec(true);
    s.memory.frames = pagelab_core::Frames(24);
    s.workload.guests[0].nucleus.fraction = 0.2;
    s.workload.guests[0].streams[0].copies = 4;
    s.workload.guests[0].end_when_done = true;
    for st in &mut s.workload.guests[0].streams[0].jobs[0].steps {
        st.cpu_s *= 0.05;
    }
    s.run.duration_s = pagelab_core::Secs(300.0);
    let mut sys = System::build(&s, 3, None).unwrap();
    sys.set_check_every(1);
    let r = sys.run(&mut |_| {}).unwrap();
    let b = r.benchmark.unwrap();
    let g = &b.guests[0];
    assert_eq!(g.streams[0].done, 4, "{:?}", g.streams);
    assert!(g.metrics["pseudo_faults"].value > 0.0);
    assert!(b.ended_s < 300.0);
}

#[test]
fn pagemon_under_load_deactivates_down_to_its_floor_and_the_stream_still_completes() {
    let mut s = spec(false);
    let g = &mut s.workload.guests[0];
    g.streams[0].copies = 3;
    g.end_when_done = true;
    for st in &mut g.streams[0].jobs[0].steps {
        st.cpu_s *= 0.05;
    }
    // A measure always above `high`: one task fewer every period, down to min_tasks.
    g.pagemon = Some(crate::spec::guest::PagemonSpec {
        enabled: true,
        measure: crate::spec::guest::PagemonMeasure::PagingRate,
        period_s: 0.01,
        high: -1.0,
        low: -2.0,
        min_tasks: 1,
    });
    s.run.duration_s = pagelab_core::Secs(300.0);
    let r = System::build(&s, 2, None)
        .unwrap()
        .run(&mut |_| {})
        .unwrap();
    let g = &r.benchmark.unwrap().guests[0];
    let allowed: Vec<u32> = g.pagemon_trace.iter().map(|t| t.2).collect();
    assert_eq!(&allowed[..3], &[2, 1, 1]);
    assert!(allowed.iter().all(|&a| a >= 1));
    // Two partitions stopped at first; as jobs end, the next busy one is reactivated.
    assert!(g.metrics["deactivations"].value >= 2.0);
    assert!(g.metrics["reactivations"].value >= 1.0);
    assert_eq!(g.streams[0].done, 3);
    // With one partition allowed after the first periods, about one stays active on average.
    assert!(g.metrics["active_tasks"].value < 1.5);
}
