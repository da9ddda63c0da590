//! Hand-checked cases of page swapping inside the engine: a swap set is formed in address
//! order on consecutive slots; a swap fault brings exactly its set; Q2 users are swapped
//! before Q1 users; the working set is identified and the rest trimmed at queue-drop.

use super::*;
use crate::page_swap::{SwapList, SwapSet};
use crate::spec::load_spec;

/// One CPU, one 3380 swap area and one drum, two users, page swapping on.
fn system() -> System<'static> {
    let toml = r#"
[run]
duration_s = 10.0
[cpu]
count = 1
reference_ns = 200.0
dispatch_slice_ms = 50.0
[memory]
frames = 64
residency = "page-swapping"
[[channel]]
name = "c0"
[[device]]
name = "swap"
model = "3380"
channel = "c0"
swap_area = true
paging_cylinders = [0, 9]
[[device]]
name = "drum"
model = "2305-2"
channel = "c0"
[load_control]
kind = "vm370"
projection = "damped"
initial_ws_pages = 10.0
[workload]
users = 2
[[workload.class]]
name = "cms"
fraction = 1.0
think = { kind = "fixed", s = 100.0 }
commands = [ { name = "t", cpu_ms = 10.0 } ]
program = { kind = "cms", set_pages = 20, address_pages = 40, overlap = 1.0, locality_pages = 8, runs_per_phase = 10, refs_per_run = 10.0 }
"#;
    let spec = load_spec(toml, "test", &[]).unwrap();
    System::build(&spec, 1, None).unwrap()
}

/// Physical swap-out, as SELECT asks for it.
fn swap_out(sys: &mut System<'_>) -> Result<bool, SysError> {
    let (ctx, mem, users) = (&mut sys.ctx, &mut sys.mem, &sys.users);
    sys.paging.swap_out(ctx, mem, &mut sys.reclaim, users)
}

/// One pass of the garbage collector.
fn collect_garbage(sys: &mut System<'_>) {
    let (ctx, mem, users) = (&mut sys.ctx, &mut sys.mem, &sys.users);
    sys.paging
        .collect_garbage(ctx, mem, users, sys.faults.shared_owner);
}

/// Maps `pages` of user `u` into free frames, resident, with reference bits `referenced`.
fn make_resident(sys: &mut System<'_>, u: u32, pages: &[u32], referenced: bool) -> Vec<u32> {
    pages
        .iter()
        .map(|&p| {
            let f = sys.mem.take_free().unwrap();
            sys.mem.map(u, p, f, FrameState::Resident);
            sys.mem.frames[f as usize].referenced = referenced;
            f
        })
        .collect()
}

#[test]
fn swap_set_is_formed_in_address_order_on_consecutive_slots() {
    let mut sys = system();
    // Pages made resident out of order; the set must list them ascending.
    make_resident(
        &mut sys,
        0,
        &[30, 12, 25, 11, 40, 13, 20, 21, 22, 23],
        false,
    );
    sys.paging.swap.as_mut().unwrap().enlist(0, SwapList::Q1);
    assert!(swap_out(&mut sys).unwrap());
    let ps = sys.paging.swap.as_ref().unwrap();
    let ids = ps.sets_of(0).to_vec();
    // Two swap sets (the minimum working set): the eight lowest pages, then the rest.
    assert_eq!(ids.len(), 2);
    let a = ps.get(ids[0]).unwrap().clone();
    let b = ps.get(ids[1]).unwrap().clone();
    assert_eq!(a.pages, vec![11, 12, 13, 20, 21, 22, 23, 25]);
    assert_eq!(b.pages, vec![30, 40]);
    // On the swap area (device 0), consecutive slots, one cylinder.
    assert_eq!(a.dev, 0);
    for (i, &p) in a.pages.iter().enumerate() {
        let pte = *sys.mem.pte(0, p).unwrap();
        assert_eq!((pte.dev, pte.slot), (0, a.first_slot + i as u32));
        assert_eq!(
            sys.mem.frames[pte.frame as usize].state,
            FrameState::PageOut
        );
    }
    assert_eq!(a.first_slot / 150, (a.first_slot + 7) / 150);
    assert_eq!(sys.ctx.c.swap_writes, 10.0);
    assert_eq!(sys.ctx.c.swap_sets_out, 2.0);
    // One SIO per swap set: the first started, the second queued as one batch behind it.
    assert_eq!(sys.paging.io.counters[0].n_sios, 1);
    assert_eq!(sys.paging.io.pending(0), 10);
    sys.check_invariants().unwrap();
}

#[test]
fn swap_fault_brings_exactly_its_set() {
    let mut sys = system();
    // Two sets on the swap area, pages not resident.
    let mut sets = Vec::new();
    for pages in [vec![4u32, 5, 9], vec![10u32, 11]] {
        let addr = sys.paging.io.allocate_swap_set(pages.len() as u32).unwrap();
        for (i, &p) in pages.iter().enumerate() {
            let e = sys.mem.pte_mut(1, p);
            e.slot = addr.slot + i as u32;
            e.dev = addr.dev;
        }
        let id = sys.paging.swap.as_mut().unwrap().record(SwapSet {
            owner: 1,
            dev: addr.dev,
            first_slot: addr.slot,
            pages,
        });
        sets.push((id, addr));
    }
    let used_before = sys.paging.io.slots(0).used();
    // User 1 faults on page 9, the last page of the first set.
    sys.users[1].queue = Some(Queue::Q1);
    sys.sched.n_q1 = 1;
    sys.users[1].fault_page = 9;
    let f = sys.mem.take_free().unwrap();
    sys.start_page_in(1, f);
    // Exactly pages 4, 5 and 9 are being read; 10 and 11 stay on their slots.
    for p in [4, 5, 9] {
        let pte = *sys.mem.pte(1, p).unwrap();
        assert_ne!(pte.frame, NONE, "page {p} not brought in");
        assert_eq!(sys.mem.frames[pte.frame as usize].state, FrameState::PageIn);
        assert_eq!(pte.slot, NONE, "slot of page {p} not freed");
    }
    for p in [10, 11] {
        assert_eq!(sys.mem.pte(1, p).unwrap().frame, NONE);
    }
    let ps = sys.paging.swap.as_ref().unwrap();
    assert!(ps.get(sets[0].0).is_none(), "the set read is dissolved");
    assert!(ps.get(sets[1].0).is_some());
    assert_eq!(sys.ctx.c.swap_faults, 1.0);
    assert_eq!(sys.ctx.c.swap_reads, 3.0);
    assert_eq!(
        sys.ctx.c.page_reads, 0.0,
        "a swap fault is not a demand read"
    );
    assert_eq!(sys.paging.io.slots(0).used(), used_before - 3);
    // One SIO for the three pages.
    assert_eq!(sys.paging.io.counters[0].n_sios, 1);
    assert_eq!(sys.paging.io.pending(0), 3);
    // The faulting page is not a prepage candidate; the other two are.
    let fr = |p: u32| sys.mem.pte(1, p).unwrap().frame as usize;
    assert!(!ps.prepaged[fr(9)] && ps.prepaged[fr(4)] && ps.prepaged[fr(5)]);
    sys.check_invariants().unwrap();
}

#[test]
fn q2_users_are_swapped_out_before_q1_users() {
    let mut sys = system();
    make_resident(&mut sys, 0, &[10, 11], false);
    make_resident(&mut sys, 1, &[20, 21], false);
    let ps = sys.paging.swap.as_mut().unwrap();
    // User 0 dropped from Q1 first, user 1 from Q2 later: user 1 still goes first.
    ps.enlist(0, SwapList::Q1);
    ps.enlist(1, SwapList::Q2);
    assert!(swap_out(&mut sys).unwrap());
    assert_eq!(sys.paging.swap.as_ref().unwrap().sets_of(1).len(), 1);
    assert!(sys.paging.swap.as_ref().unwrap().sets_of(0).is_empty());
    // User 1 has nothing left: the next swap-out takes user 0.
    assert!(swap_out(&mut sys).unwrap());
    assert_eq!(sys.paging.swap.as_ref().unwrap().sets_of(0).len(), 1);
    assert!(!swap_out(&mut sys).unwrap(), "nobody left to swap");
}

#[test]
fn queue_drop_keeps_the_referenced_pages_and_trims_the_rest() {
    let mut sys = system();
    sys.paging.swap.as_mut().unwrap().spec.min_ws_sets = 0;
    let refd = make_resident(&mut sys, 0, &[10, 11, 12], true);
    let unref = make_resident(&mut sys, 0, &[13, 14], false);
    sys.users[0].queue = Some(Queue::Q1);
    sys.sched.n_q1 = 1;
    sys.queue_drop(0, false);
    for &f in &refd {
        let fr = sys.mem.frames[f as usize];
        assert!(
            !fr.referenced && !fr.flushed,
            "working-set page reset, kept"
        );
    }
    for &f in &unref {
        assert!(
            sys.mem.frames[f as usize].flushed,
            "unreferenced page trimmed"
        );
    }
    assert_eq!(sys.ctx.c.trimmed, 2.0);
    assert!(sys.paging.swap.as_ref().unwrap().is_listed(0));
    // The flush list gives the trimmed pages first, in order.
    assert_eq!(sys.mem.pop_flush(), Some(unref[0]));
}

#[test]
fn garbage_collector_ages_then_flushes_pages_of_no_working_set() {
    let mut sys = system();
    // 64 frames, one eighth = 8 per pass. Frames 0-3: shared pages, two referenced; frames
    // 4-5: user 0, out of queue and on no swap list; frames 6-7: user 1, on the swap list.
    let shared = sys.faults.shared_owner;
    let sh = make_resident(&mut sys, shared, &[0, 1], true);
    let sh_cold = make_resident(&mut sys, shared, &[2, 3], false);
    let loose = make_resident(&mut sys, 0, &[10, 11], false);
    let ws = make_resident(&mut sys, 1, &[10, 11], false);
    sys.paging.swap.as_mut().unwrap().enlist(1, SwapList::Q1);
    collect_garbage(&mut sys);
    let flushed =
        |sys: &System<'_>, f: &[u32]| f.iter().all(|&f| sys.mem.frames[f as usize].flushed);
    assert!(flushed(&sys, &sh_cold) && flushed(&sys, &loose));
    assert!(
        !flushed(&sys, &ws),
        "working-set pages are the swap lists' business"
    );
    // Referenced pages are aged, not flushed: bits reset now, flushed on the next visit.
    assert!(sh
        .iter()
        .all(|&f| !sys.mem.frames[f as usize].referenced && !sys.mem.frames[f as usize].flushed));
    assert_eq!(sys.ctx.c.gc_flushed, 4.0);
    for _ in 0..7 {
        collect_garbage(&mut sys);
    }
    assert_eq!(
        sys.paging.swap.as_ref().unwrap().gc_cursor,
        0,
        "eight passes cover the frames"
    );
    // The ninth pass comes back to the aged pages, still unreferenced: flushed.
    collect_garbage(&mut sys);
    assert!(flushed(&sys, &sh));
}

#[test]
fn a_fragmented_swap_area_gets_a_shorter_set() {
    let mut sys = system();
    // Fill the swap area (10 cylinders of 150 slots) but for runs of at most three slots.
    let (lo, hi) = sys.paging.io.slots(0).area_slots();
    let mut held = Vec::new();
    while let Some(a) = sys.paging.io.allocate_swap_set(1) {
        if a.dev != 0 {
            sys.paging.io.release_slot(a);
            break;
        }
        held.push(a);
    }
    assert_eq!(held.len() as u32, hi - lo + 1);
    for a in held.iter().filter(|a| a.slot % 4 != 0) {
        sys.paging.io.release_slot(*a);
    }
    make_resident(&mut sys, 0, &[1, 2, 3, 4, 5], false);
    sys.paging.swap.as_mut().unwrap().enlist(0, SwapList::Q2);
    assert!(swap_out(&mut sys).unwrap());
    let ps = sys.paging.swap.as_ref().unwrap();
    let sizes: Vec<usize> = ps
        .sets_of(0)
        .iter()
        .map(|&id| ps.get(id).unwrap().pages.len())
        .collect();
    assert_eq!(
        sizes,
        vec![3, 2],
        "sets shrink to the runs the area still has"
    );
    // The filler slots belong to no page: give them back before checking the books.
    for a in held.iter().filter(|a| a.slot % 4 == 0) {
        sys.paging.io.release_slot(*a);
    }
    sys.check_invariants().unwrap();
}

#[test]
fn a_trimmed_page_read_back_counts_as_a_flush_reread() {
    let mut sys = system();
    sys.paging.swap.as_mut().unwrap().spec.min_ws_sets = 0;
    make_resident(&mut sys, 0, &[10], true);
    make_resident(&mut sys, 0, &[13, 14], false);
    for p in [13, 14] {
        // Unchanged copies on the drum: SELECT frees their frames without a page-out.
        let pte = sys.mem.pte_mut(0, p);
        pte.slot = p;
        pte.dev = 1;
    }
    sys.users[0].queue = Some(Queue::Q1);
    sys.sched.n_q1 = 1;
    sys.queue_drop(0, false);
    while sys.mem.take_free().is_some() {}
    sys.replenish().unwrap();
    // The free list's target is one frame: SELECT takes the first trimmed page only.
    assert!(sys.mem.pte_mut(0, 13).flushed_out);
    assert!(
        !sys.mem.pte_mut(0, 14).flushed_out,
        "still on the flush list"
    );
    assert!(
        !sys.mem.pte_mut(0, 10).flushed_out,
        "kept in the working set"
    );
    sys.handle_fault(0, 13).unwrap();
    assert_eq!((sys.ctx.c.page_reads, sys.ctx.c.flush_rereads), (1.0, 1.0));
    assert!(!sys.mem.pte_mut(0, 13).flushed_out, "mapped again");
}
