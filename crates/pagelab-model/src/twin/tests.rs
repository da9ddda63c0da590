use super::*;
use crate::lifetime;
use crate::mva::{exact, Kind};

/// Terminals, one processor and one minidisk; memory far larger than the programs, no
/// supervisor costs: a product-form network once the first transactions have loaded the pages.
const PRODUCT_FORM: &str = r#"
[run]
duration_s = 100.0
warmup_s = 10.0
[cpu]
count = 1
reference_ns = 1000.0
dispatch_slice_ms = 10.0
[cpu.supervisor]
fault_us = 0.0
sio_us = 0.0
interrupt_us = 0.0
dispatch_us = 0.0
page_moved_us = 0.0
[memory]
frames = 4000
page_bytes = 4096
[[channel]]
name = "c"
[[device]]
name = "d"
model = "2305-2"
channel = "c"
[vio]
devices = 1
service_ms = 40.0
exponential = true
[load_control]
kind = "vm370"
projection = "damped"
initial_ws_pages = 4.0
q1_slice_s = 100.0
q2_slice_s = 100.0
[workload]
users = 10
[[workload.class]]
name = "t"
fraction = 1.0
think = { kind = "exponential", mean_s = 2.0 }
commands = [{ name = "c", cpu_ms = 60.0, vio = 1 }]
program = { kind = "cms", set_pages = 4, address_pages = 4, locality_pages = 4, runs_per_phase = 10, refs_per_run = 100.0 }
"#;

fn spec(text: &str) -> pagelab_sys::SystemSpec {
    pagelab_sys::load_spec(text, "t.toml", &[]).unwrap()
}

#[test]
fn a_product_form_system_solves_as_exact_mva() {
    let s = spec(PRODUCT_FORM);
    let d = ServiceDemands::of(&s);
    let life = lifetime::of_classes(&d, 1, None).unwrap();
    // With every page it holds, a transaction faults only its working set, which costs
    // nothing here (no I/O for a page never written, no supervisor time): the exact network.
    let rows = solve(&s, life, &[1, 5, 10, 20], TwinOptions::default());
    let all = exact(
        &[Kind::Queue { servers: 1 }, Kind::Queue { servers: 1 }],
        &[0.060, 0.040],
        2.0,
        20,
    );
    for r in &rows {
        let e = &all[r.users as usize - 1];
        // The storage test admits everyone; the paging device carries the cold faults only.
        assert!(
            (r.throughput / e.x[0] - 1.0).abs() < 0.02,
            "{} users: {} against {}",
            r.users,
            r.throughput,
            e.x[0]
        );
        // N = X (R + Z).
        let c = &r.classes[0];
        assert!((c.throughput * (c.response + 2.0) - f64::from(r.users)).abs() < 1e-6);
    }
}

#[test]
fn less_memory_per_program_means_more_faults_and_a_throughput_that_falls() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../presets/cp67.toml"
    ))
    .unwrap();
    let s = pagelab_sys::load_spec(&text, "cp67.toml", &[]).unwrap();
    let d = ServiceDemands::of(&s);
    let life = lifetime::of_classes(&d, 1, None).unwrap();
    // No load control: every user is admitted, so the set thrashes past some level.
    let opts = TwinOptions {
        mpl_limit: Some(1e9),
        horizon: Horizon::Stationary,
    };
    let rows = solve(&s, life, &[5, 20, 60, 120], opts);
    let x: Vec<f64> = rows.iter().map(|r| r.throughput).collect();
    let fpp: Vec<f64> = rows.iter().map(|r| r.frames_per_program).collect();
    // Frames held fall once the set crowds (at 5 users a stay holds what it loads).
    assert!(fpp[1..].windows(2).all(|w| w[1] < w[0]), "{fpp:?}");
    let peak = x.iter().copied().fold(0.0, f64::max);
    assert!(x[3] < 0.8 * peak, "{x:?}");
}

#[test]
fn a_saturated_first_queue_does_not_stall_the_subsystem() {
    // vm370's full storage, its cms class alone: past the Q1 processor's saturation the
    // twin's throughput keeps rising toward the processors' limit instead of collapsing (an
    // undamped Q2 shadow gave 7.6 transactions a second at 140 users and 1.2 at 160).
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../presets/vm370.toml"
    ))
    .unwrap();
    let o: Vec<(String, String)> = [
        ("workload.class.0.fraction", "1.0"),
        ("workload.class.1.fraction", "0.0"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let s = pagelab_sys::load_spec(&text, "vm370.toml", &o).unwrap();
    let d = ServiceDemands::of(&s);
    let life = lifetime::of_classes(&d, 1, None).unwrap();
    let rows = solve(&s, life, &[100, 140, 160, 200], TwinOptions::default());
    let x: Vec<f64> = rows.iter().map(|r| r.throughput).collect();
    assert!(x.windows(2).all(|w| w[1] > 0.95 * w[0]), "{x:?}");
    assert!(rows.iter().all(|r| r.cpu_util > 0.3), "{rows:?}");
}
