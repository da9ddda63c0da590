//! Tetzlaff et al. 1987, Table 1, from the device model alone: 3380 actuators on one path,
//! demand paging (1 page per SIO, 4 actuators per path, 15 pages/s per actuator) against block
//! paging (10 pages per SIO, 2 actuators per path, 100 pages/s per actuator). The paper's
//! modelled figures: SIO response 29 ms and 48 ms; time per page 29 ms and 4.8 ms.
//!
//! SIO response here is from the start of the SIO to its completion (overhead A plus transfers B
//! of the paper's Figure 3, RPS misses included, queueing for the actuator excluded); requests
//! go to uniformly random cylinders, and a block is ten consecutive slots of one track.
//!
//! One parameter is fitted: the control-unit protocol time per SIO (part of Figure 3's overhead
//! A, not in `devices.csv`), 2.5 ms, chosen so that the demand column's 29 ms comes out; the
//! block column is then a prediction, which comes out 7 % under the paper's 48 ms (we allow
//! 10 %; the fitted demand column 5 %).

use pagelab_core::random::exponential;
use pagelab_core::{EventQueue, RngStreams, Tick};
use pagelab_sys::device::{DeviceStep, Geometry, IoOp, PageIo, PagingIo};
use pagelab_sys::spec::DeviceModel;
use rand::Rng as _;

/// Control-unit protocol time per SIO [ns], fitted (see above).
const CONTROL_UNIT_NS: u64 = 2_500_000;

#[derive(Clone, Copy)]
enum Ev {
    Arrive(usize),
    Reconnect(usize),
    Complete(usize),
}

/// Mean SIO service [ms] and pages per SIO for `actuators` on one channel, each receiving
/// Poisson arrivals of `sio_rate` blocks of `pages` per second.
fn model(actuators: usize, sio_rate: f64, pages: u32, seconds: f64) -> (f64, f64) {
    let g = Geometry::of(DeviceModel::Ibm3380, 4096);
    let devs: Vec<_> = (0..actuators).map(|_| (g, 0usize, None)).collect();
    let mut io = PagingIo::new(&devs, 1, true, CONTROL_UNIT_NS);
    let mut rng = RngStreams::new(1987).stream("table1", 0);
    let mut q = EventQueue::new();
    for d in 0..actuators {
        q.schedule(
            Tick::from_secs_f64(exponential(&mut rng, 1.0 / sio_rate)),
            Ev::Arrive(d),
        );
    }
    let end = Tick::from_secs_f64(seconds);
    let mut done = Vec::new();
    let mut batch = Vec::new();
    while let Some((t, ev)) = q.pop() {
        if t >= end {
            break;
        }
        let step = match ev {
            Ev::Arrive(d) => {
                let next = t + Tick::from_secs_f64(exponential(&mut rng, 1.0 / sio_rate));
                q.schedule(next, Ev::Arrive(d));
                // A block: `pages` consecutive slots of one track of a random cylinder.
                let cyl = rng.gen_range(0..g.cylinders);
                let track = rng.gen_range(0..15u32);
                let first = cyl * g.slots_per_cyl + track * 10 + rng.gen_range(0..=(10 - pages));
                batch.clear();
                batch.extend((0..pages).map(|k| PageIo {
                    op: IoOp::Read,
                    slot: first + k,
                    frame: k,
                    queued: t,
                }));
                io.submit_batch(d, &batch, t).map(|s| (d, s))
            }
            Ev::Reconnect(d) => Some((d, io.reconnect(d, t))),
            Ev::Complete(d) => {
                done.clear();
                io.complete(d, t, &mut done).map(|s| (d, s))
            }
        };
        if let Some((d, s)) = step {
            match s {
                DeviceStep::Reconnect(at) => q.schedule(at, Ev::Reconnect(d)),
                DeviceStep::Complete(at) => q.schedule(at, Ev::Complete(d)),
                DeviceStep::Exposure(..) => unreachable!("Table 1's devices have one exposure"),
            };
        }
    }
    let (mut sios, mut svc, mut pg) = (0u64, 0u64, 0u64);
    for c in &io.counters {
        sios += c.n_sios;
        svc += c.sio_service_ns;
        pg += c.n_reads;
    }
    (svc as f64 / sios as f64 / 1e6, pg as f64 / sios as f64)
}

#[test]
fn tetzlaff_table1_demand_paging_one_page_per_sio() {
    let (sio_ms, pages) = model(4, 15.0, 1, 3000.0);
    eprintln!("demand paging: {pages:.2} pages/SIO, SIO {sio_ms:.1} ms, {sio_ms:.1} ms/page (paper: 1, 29, 29)");
    assert!((pages - 1.0).abs() < 0.01);
    assert!(
        (sio_ms / 29.0 - 1.0).abs() < 0.05,
        "SIO {sio_ms} ms against 29 ms"
    );
}

#[test]
fn tetzlaff_table1_block_paging_ten_pages_per_sio() {
    let (sio_ms, pages) = model(2, 10.0, 10, 3000.0);
    let per_page = sio_ms / pages;
    eprintln!("block paging: {pages:.2} pages/SIO, SIO {sio_ms:.1} ms, {per_page:.2} ms/page (paper: 10, 48, 4.8)");
    assert!((pages - 10.0).abs() < 0.01, "{pages}");
    assert!(
        (sio_ms / 48.0 - 1.0).abs() < 0.10,
        "SIO {sio_ms} ms against 48 ms"
    );
    assert!(
        (per_page / 4.8 - 1.0).abs() < 0.10,
        "{per_page} ms/page against 4.8"
    );
}
