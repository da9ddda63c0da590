//! The tetzlaff Table 2 scale: 310 users, 16 MB of 4 KiB frames, two CPUs, six 2305 actuators on
//! three channels (presets/vm370.toml), for one simulated hour. Prints wall time, simulated
//! seconds per wall second, events and reference runs per second, and the machine. On a shared
//! 2-thread AMD EPYC: 1.80-1.87 s user CPU (docs/system.md, "Measured", has the profile).
//!
//! `cargo bench -p pagelab-sys --bench table2_scale`

use std::time::Instant;

fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown processor".into());
    let cpus = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    format!(
        "{model}, {cpus} hardware threads, {}",
        std::env::consts::ARCH
    )
}

fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../presets/vm370.toml");
    let text = std::fs::read_to_string(path).expect("presets/vm370.toml");
    let overrides = vec![
        ("run.duration_s".to_string(), "3600".to_string()),
        ("run.warmup_s".to_string(), "300".to_string()),
    ];
    let spec = pagelab_sys::load_spec(&text, path, &overrides).expect("valid preset");
    let t0 = Instant::now();
    let report = pagelab_sys::run(&spec, 1).expect("run");
    let wall = t0.elapsed().as_secs_f64();
    let sim = spec.run.duration_s.get();
    let events = report.engine["events"] as f64;
    let runs = report.engine["reference_runs"] as f64;
    println!("machine: {}", machine());
    println!(
        "table2 scale: {} users, {}, {} CPUs, {} paging devices, {sim} s simulated",
        spec.workload.users,
        spec.memory.frames,
        spec.cpu.count,
        spec.actuators().len()
    );
    println!("wall time            {wall:10.2} s");
    println!("simulated s / wall s {:10.1}", sim / wall);
    println!("events / s           {:10.3e}", events / wall);
    println!("reference runs / s   {:10.3e}", runs / wall);
    println!("events {events:.0}, reference runs {runs:.0}");
    for k in [
        "cpu_busy_pct",
        "q1_seconds",
        "q1_drop_rate",
        "vio_rate",
        "paging_sio_rate",
        "demand_paging_rate",
        "page_io_time_ms",
        "users_in_q1",
        "users_in_q2",
    ] {
        println!("  {k:<20} {:10.3}", report.metrics[k].value);
    }
}
