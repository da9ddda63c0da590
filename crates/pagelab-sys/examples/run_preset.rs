//! Runs a preset with overrides and prints the summary:
//! `cargo run --release -p pagelab-sys --example run_preset -- presets/vm370.toml run.duration_s=600`
//! (any residency: `presets/unix-v6.toml workload.processes=10` runs the UNIX V6 machine)
//! An argument `devices` also prints each device's slots in use by cylinder (Figure 4).
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .first()
        .expect("usage: run_preset SPEC.toml [key.path=value ...]");
    let text = std::fs::read_to_string(path).expect("readable spec");
    let show_devices = args[1..].iter().any(|a| a == "devices");
    let overrides: Vec<(String, String)> = args[1..]
        .iter()
        .filter(|a| *a != "devices")
        .map(|a| {
            let (k, v) = a.split_once('=').expect("key.path=value");
            (k.to_string(), v.to_string())
        })
        .collect();
    let t0 = std::time::Instant::now();
    match pagelab_sys::run_toml(&text, path, &overrides, 1, None, &mut |_| {}) {
        Ok(r) => {
            print!("{}", r.summary_table());
            if show_devices {
                for d in &r.devices {
                    println!(
                        "device {}: sios {} reads {} writes {} busy {:.0} s read {:.1} ms write {:.1} ms rps misses {}",
                        d.name, d.sios, d.reads, d.writes, d.busy_s, d.read_ms, d.write_ms, d.rps_misses
                    );
                }
                for d in &r.devices {
                    println!(
                        "device {} (swap area {}, from cylinder {}, {} slots/cyl): {:?}",
                        d.name,
                        d.swap_area,
                        d.first_cylinder,
                        d.slots_per_cylinder,
                        d.used_by_cylinder
                    );
                }
            }
            println!(
                "engine {:?}  wall {:.2} s",
                r.engine,
                t0.elapsed().as_secs_f64()
            );
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
