//! Paging devices: seek, rotation, RPS and slot placement.

use super::*;
use crate::device::DeviceModel;

#[test]
fn zigzag_fills_last_cylinder_then_nearest_centre() {
    let g = Geometry::of(DeviceModel::Ibm3380, 4096);
    let mut m = SlotMap::new(&g, 0, g.cylinders - 1);
    let centre = g.cylinders / 2;
    for _ in 0..150 {
        assert_eq!(m.allocate_zigzag().unwrap() / 150, centre);
    }
    // Centre full: next nearest is centre - 1, then stays there.
    assert_eq!(m.allocate_zigzag().unwrap() / 150, centre - 1);
    assert_eq!(m.allocate_zigzag().unwrap() / 150, centre - 1);
    // Free a centre slot: allocation stays on the last cylinder used while it has room.
    m.release(centre * 150 + 3);
    assert_eq!(m.allocate_zigzag().unwrap() / 150, centre - 1);
    assert_eq!(m.used(), 152);
}

#[test]
fn zigzag_packs_at_the_edge_nearest_centre_outside_the_area() {
    let g = Geometry::of(DeviceModel::Ibm3350, 4096);
    let mut m = SlotMap::new(&g, 10, 40);
    assert_eq!(m.allocate_zigzag().unwrap() / 120, 40);
}

#[test]
fn drum_single_page_is_latency_plus_transfer() {
    let g = Geometry::of(DeviceModel::Ibm2305_2, 4096);
    let mut io = PagingIo::new(&[(g, 0, None)], 1, true, 0);
    // Slot 1 starts a third of a rotation after the index point; at t = 0 the wait is 3.33 ms.
    let step = io.submit(
        0,
        PageIo {
            op: IoOp::Read,
            slot: 1,
            frame: 0,
            queued: Tick(0),
        },
        Tick(0),
    );
    let Some(DeviceStep::Reconnect(t)) = step else {
        panic!("{step:?}")
    };
    assert_eq!(t, Tick(g.slot_offset_ns(1)));
    let DeviceStep::Complete(end) = io.reconnect(0, t) else {
        panic!()
    };
    assert_eq!(end.as_ns() - t.as_ns(), g.page_transfer_ns);
    let mut done = Vec::new();
    assert!(io.complete(0, end, &mut done).is_none());
    assert_eq!(done.len(), 1);
}

#[test]
fn busy_channel_costs_a_rotation() {
    let g = Geometry::of(DeviceModel::Ibm2305_2, 4096);
    let mut io = PagingIo::new(&[(g, 0, None), (g, 0, None)], 1, true, 0);
    let a = io.submit(
        0,
        PageIo {
            op: IoOp::Read,
            slot: 0,
            frame: 0,
            queued: Tick(0),
        },
        Tick(0),
    );
    let b = io.submit(
        1,
        PageIo {
            op: IoOp::Read,
            slot: 0,
            frame: 1,
            queued: Tick(0),
        },
        Tick(0),
    );
    let (Some(DeviceStep::Reconnect(ta)), Some(DeviceStep::Reconnect(tb))) = (a, b) else {
        panic!()
    };
    assert_eq!(ta, tb);
    assert!(matches!(io.reconnect(0, ta), DeviceStep::Complete(_)));
    assert_eq!(
        io.reconnect(1, tb),
        DeviceStep::Reconnect(tb + Tick(g.rotation_ns))
    );
    assert_eq!(io.counters[1].n_rps_misses, 1);
}

/// Drives `dev`'s SIO from `step` to completion; returns the completion time.
fn finish(io: &mut PagingIo, dev: usize, mut step: DeviceStep) -> Tick {
    loop {
        match step {
            DeviceStep::Reconnect(t) => step = io.reconnect(dev, t),
            DeviceStep::Complete(t) => return t,
            other => panic!("{other:?}: no exposure was started"),
        }
    }
}

#[test]
fn contiguous_records_transfer_in_one_connection() {
    // Ten consecutive slots of one 3380 track: one reconnect, ten transfers back to back.
    let g = Geometry::of(DeviceModel::Ibm3380, 4096);
    let mut io = PagingIo::new(&[(g, 0, None)], 1, true, 0);
    let base = (g.cylinders / 2) * 150;
    let mut first = None;
    for k in 0..10 {
        let q = PageIo {
            op: IoOp::Write,
            slot: base + k,
            frame: k,
            queued: Tick(0),
        };
        let s = io.submit(0, q, Tick(0));
        first = first.or(s);
    }
    // All but the first queued behind the first SIO; they form the second SIO together.
    let end1 = finish(&mut io, 0, first.unwrap());
    let mut done = Vec::new();
    let DeviceStep::Reconnect(t) = io.complete(0, end1, &mut done).unwrap() else {
        panic!()
    };
    let step = io.reconnect(0, t);
    // Nine slots 1.67 ms apart, each 1.37 ms long: contiguous, completes in one step.
    let DeviceStep::Complete(end) = step else {
        panic!("{step:?}")
    };
    let span = end.as_ns() - t.as_ns();
    assert_eq!(span, 8 * g.rotation_ns / 10 + g.page_transfer_ns);
}

#[test]
fn drum_serves_one_record_per_angle_per_revolution() {
    // Slots 0, 3 and 1 of a 2305 (3 records per track): 0 and 3 share an angle. Rotational
    // order takes 0, then 1 a third of a turn later, then 3 one revolution after 0.
    let g = Geometry::of(DeviceModel::Ibm2305_2, 4096);
    let mut io = PagingIo::new(&[(g, 0, None)], 1, true, 0);
    let q = |slot| PageIo {
        op: IoOp::Read,
        slot,
        frame: slot,
        queued: Tick(0),
    };
    let step = io.submit_batch(0, &[q(3), q(0), q(1)], Tick(0)).unwrap();
    let end = finish(&mut io, 0, step);
    let mut done = Vec::new();
    io.complete(0, end, &mut done);
    let order: Vec<u32> = done.iter().map(|d| d.slot).collect();
    assert_eq!(order, vec![0, 1, 3]);
    assert_eq!(end.as_ns(), g.rotation_ns + g.page_transfer_ns);
}

#[test]
fn swap_sets_go_across_channels_before_along_one() {
    // Two 3380 actuators on each of three channels, as tetzlaff's Table 2 swap areas, and
    // one paging drum: consecutive swap sets take one actuator of every channel in turn.
    let g = Geometry::of(DeviceModel::Ibm3380, 4096);
    let drum = Geometry::of(DeviceModel::Ibm2305_2, 4096);
    let area = Some([0, 9]);
    let devs = [
        (g, 0, area),
        (g, 0, area),
        (g, 1, area),
        (g, 1, area),
        (g, 2, area),
        (g, 2, area),
        (drum, 3, None),
    ];
    let mut io = PagingIo::new(&devs, 4, true, 0)
        .with_swap_areas(vec![true, true, true, true, true, true, false]);
    let got: Vec<u16> = (0..8)
        .map(|_| io.allocate_swap_set(8).expect("room").dev)
        .collect();
    assert_eq!(got, vec![0, 2, 4, 1, 3, 5, 0, 2]);
    // Without swap areas the paging devices take the sets, in the same order.
    let mut io = PagingIo::new(&devs[..4], 2, true, 0);
    let got: Vec<u16> = (0..4)
        .map(|_| io.allocate_swap_set(8).expect("room").dev)
        .collect();
    assert_eq!(got, vec![0, 2, 1, 3]);
}

#[test]
fn a_batch_is_one_sio_without_combining() {
    let g = Geometry::of(DeviceModel::Ibm3380, 4096);
    let mut io = PagingIo::new(&[(g, 0, None)], 1, false, 0);
    let q = |slot, t| PageIo {
        op: IoOp::Write,
        slot,
        frame: 0,
        queued: Tick(t),
    };
    let first = io.submit_batch(0, &[q(10, 5), q(11, 5), q(12, 5)], Tick(5));
    // A lone request for the same cylinder, queued later, is not chained.
    io.submit(0, q(13, 6), Tick(6));
    let end = finish(&mut io, 0, first.unwrap());
    let mut done = Vec::new();
    io.complete(0, end, &mut done);
    assert_eq!(done.len(), 3);
    assert_eq!(io.pending(0), 1);
}

#[test]
fn same_cylinder_requests_share_one_sio() {
    let g = Geometry::of(DeviceModel::Ibm3380, 4096);
    let mut io = PagingIo::new(&[(g, 0, None)], 1, true, 0);
    let q = |slot| PageIo {
        op: IoOp::Read,
        slot,
        frame: 0,
        queued: Tick(0),
    };
    let first = io.submit(0, q(5), Tick(0)).unwrap();
    io.submit(0, q(300 * 150 + 1), Tick(0));
    io.submit(0, q(300 * 150 + 2), Tick(0));
    io.submit(0, q(7 * 150), Tick(0));
    let end = finish(&mut io, 0, first);
    let mut done = Vec::new();
    let next = io.complete(0, end, &mut done);
    assert_eq!(done.len(), 1);
    // The next SIO takes both cylinder-300 requests together.
    let end2 = finish(&mut io, 0, next.unwrap());
    done.clear();
    io.complete(0, end2, &mut done);
    assert_eq!(done.len(), 2);
    // Four requests, three SIOs (the third, cylinder 7, has just started).
    assert_eq!(io.counters[0].n_sios, 3);
}

use proptest::prelude::*;

proptest! {
    #[test]
    fn slot_map_never_hands_out_a_slot_twice(ops in proptest::collection::vec(any::<(bool, u16)>(), 1..600)) {
        let g = Geometry::of(DeviceModel::Ibm3350, 4096);
        let mut m = SlotMap::new(&g, 100, 104);
        let mut held: Vec<u32> = Vec::new();
        for (alloc, pick) in ops {
            if alloc || held.is_empty() {
                if let Some(s) = m.allocate_zigzag() {
                    prop_assert!(!held.contains(&s));
                    prop_assert!((100..=104).contains(&(s / 120)));
                    held.push(s);
                } else {
                    prop_assert_eq!(m.free(), 0);
                }
            } else {
                let s = held.swap_remove(pick as usize % held.len());
                m.release(s);
            }
            prop_assert_eq!(m.used() as usize, held.len());
            prop_assert_eq!(m.free() + m.used(), 5 * 120);
        }
    }
}

fn step_time(s: &DeviceStep) -> Tick {
    match *s {
        DeviceStep::Reconnect(t) | DeviceStep::Complete(t) | DeviceStep::Exposure(t, _) => t,
    }
}

/// Requests arriving on device 0 at their times, in time order (several at once are a block,
/// one SIO): drives every device step in time order, as the event loop does; returns each
/// request's frame and completion time.
fn drive(io: &mut PagingIo, arrivals: &[(Tick, Vec<PageIo>)]) -> Vec<(u32, Tick)> {
    let (mut steps, mut out, mut done) = (Vec::<DeviceStep>::new(), Vec::new(), Vec::new());
    let mut arrivals = arrivals.iter().peekable();
    loop {
        let next = (0..steps.len()).min_by_key(|&i| step_time(&steps[i]));
        let arrival_first = match (arrivals.peek(), next) {
            (None, None) => return out,
            (Some((ta, _)), Some(i)) => *ta <= step_time(&steps[i]),
            (a, _) => a.is_some(),
        };
        if arrival_first {
            let (t, ios) = arrivals.next().expect("peeked");
            steps.extend(match ios.as_slice() {
                [one] => io.submit(0, *one, *t),
                block => io.submit_batch(0, block, *t),
            });
            continue;
        }
        let step = steps.swap_remove(next.expect("no arrival left"));
        done.clear();
        let (t, next) = match step {
            DeviceStep::Reconnect(t) => (t, Some(io.reconnect(0, t))),
            DeviceStep::Complete(t) => (t, io.complete(0, t, &mut done)),
            DeviceStep::Exposure(t, k) => (
                t,
                io.exposure_step(0, k as usize, t, &mut done)
                    .map(|t| DeviceStep::Exposure(t, k)),
            ),
        };
        out.extend(done.iter().map(|d| (d.frame, t)));
        steps.extend(next);
    }
}

/// On a 2305 busy with a block of eight page-outs, a demand read: when it completes, and when
/// the block does, with `exposures` channel programs at once. A small event loop drives the
/// device's steps in time order.
fn read_behind_a_block(exposures: u32) -> (Tick, Tick) {
    let g = Geometry::of(DeviceModel::Ibm2305_2, 4096);
    let mut io = PagingIo::new(&[(g, 0, None)], 1, true, 0).with_exposures(&[exposures]);
    let io_at = |op, slot, frame| PageIo {
        op,
        slot,
        frame,
        queued: Tick(0),
    };
    let block: Vec<PageIo> = (0..8).map(|k| io_at(IoOp::Write, 3 * k, k)).collect();
    let read = io_at(IoOp::Read, 1, 99);
    let done = drive(&mut io, &[(Tick(0), block), (Tick(0), vec![read])]);
    let at = |pick: &dyn Fn(u32) -> bool| done.iter().filter(|d| pick(d.0)).map(|d| d.1).max();
    (at(&|f| f == 99).unwrap(), at(&|f| f != 99).unwrap())
}

#[test]
fn a_spare_exposure_reads_past_a_block_of_page_outs() {
    let g = Geometry::of(DeviceModel::Ibm2305_2, 4096);
    // One channel program at a time: the read waits for the whole block (same-angle records
    // on eight tracks: eight revolutions), then for its own record.
    let (read1, block1) = read_behind_a_block(1);
    assert!(read1 > block1, "{read1:?} {block1:?}");
    // A spare exposure: the read is its own channel program, transferred when its record first
    // comes round (a third of a rotation in: the block's records are at angle 0, so the
    // channel is free), long before the block ends; the block is not delayed.
    let (read2, block2) = read_behind_a_block(2);
    assert_eq!(
        read2.as_ns(),
        g.slot_offset_ns(1) + g.page_transfer_ns,
        "{read2:?}"
    );
    assert_eq!(block2, block1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Reads and blocks of page-outs arriving at random on a 2305 with 1 to 8 exposures: every
    /// request completes once, no sooner than one transfer after it arrived, the device ends
    /// idle, and its counters add up.
    #[test]
    fn every_request_completes_once_whatever_the_exposures(
        exposures in 1u32..=8,
        reqs in proptest::collection::vec((0u64..200_000_000, any::<bool>(), 1usize..9, 0u32..2304), 1..40),
    ) {
        let g = Geometry::of(DeviceModel::Ibm2305_2, 4096);
        let mut io = PagingIo::new(&[(g, 0, None)], 1, true, 0).with_exposures(&[exposures]);
        let mut reqs = reqs;
        reqs.sort_by_key(|r| r.0);
        let mut frame = 0u32;
        let mut arrivals = Vec::new();
        for (t, read, n, slot) in reqs {
            let (op, n) = if read { (IoOp::Read, 1) } else { (IoOp::Write, n) };
            let ios: Vec<PageIo> = (0..n as u32)
                .map(|k| {
                    frame += 1;
                    PageIo { op, slot: (slot + 3 * k) % 2304, frame, queued: Tick(t) }
                })
                .collect();
            arrivals.push((Tick(t), ios));
        }
        let queued: std::collections::HashMap<u32, Tick> = arrivals
            .iter()
            .flat_map(|(t, ios)| ios.iter().map(move |io| (io.frame, *t)))
            .collect();
        let done = drive(&mut io, &arrivals);
        let mut seen: Vec<u32> = done.iter().map(|d| d.0).collect();
        seen.sort_unstable();
        prop_assert_eq!(seen, (1..=frame).collect::<Vec<_>>());
        for (f, t) in &done {
            prop_assert!(t.as_ns() >= queued[f].as_ns() + g.page_transfer_ns);
        }
        prop_assert_eq!(io.pending(0), 0);
        let c = io.counters[0];
        prop_assert_eq!(c.n_reads + c.n_writes, u64::from(frame));
    }
}
