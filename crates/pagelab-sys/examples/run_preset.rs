//! Runs a preset with overrides and prints the summary:
//! `cargo run --release -p pagelab-sys --example run_preset -- presets/vm370.toml run.duration_s=600`
//! (any residency: `presets/unix-v6.toml workload.processes=10` runs the UNIX V6 machine)
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .first()
        .expect("usage: run_preset SPEC.toml [key.path=value ...]");
    let text = std::fs::read_to_string(path).expect("readable spec");
    let overrides: Vec<(String, String)> = args[1..]
        .iter()
        .map(|a| {
            let (k, v) = a.split_once('=').expect("key.path=value");
            (k.to_string(), v.to_string())
        })
        .collect();
    let t0 = std::time::Instant::now();
    match pagelab_sys::run_toml(&text, path, &overrides, 1, None, &mut |_| {}) {
        Ok(r) => {
            print!("{}", r.summary_table());
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
