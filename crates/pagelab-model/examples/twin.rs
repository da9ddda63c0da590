//! The twin of a preset at a few user counts, printed:
//! `cargo run -p pagelab-model --example twin -- presets/vm370.toml 40,80,160 memory.frames=500`
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("a spec file");
    let users: Vec<u32> = args[2]
        .split(',')
        .map(|u| u.parse().expect("a count"))
        .collect();
    let overrides: Vec<(String, String)> = args[3..]
        .iter()
        .map(|a| {
            let (k, v) = a.split_once('=').expect("key=value");
            (k.to_string(), v.to_string())
        })
        .collect();
    let t = std::time::Instant::now();
    let r = pagelab_model::twin_toml(
        &text,
        &args[1],
        &overrides,
        &users,
        1,
        Default::default(),
        None,
    )
    .expect("a VM-family spec");
    for l in &r.lifetimes {
        println!(
            "{}: working set {:.1} refs {:.0}",
            l.class, l.working_set, l.references
        );
    }
    for row in &r.rows {
        let cls: Vec<String> = row
            .classes
            .iter()
            .map(|c| format!("{} X {:.3} R {:.2}", c.class, c.throughput, c.response))
            .collect();
        println!(
            "{:4} X {:.3} cpu {:.2} paging {:.2} faults {:.1} mpl {:.1} elig {:.1} m {:.1} | {}",
            row.users,
            row.throughput,
            row.cpu_util,
            row.paging_util,
            row.fault_rate,
            row.mpl,
            row.eligible,
            row.frames_per_program,
            cls.join(" | ")
        );
    }
    eprintln!("{:.3} s", t.elapsed().as_secs_f64());
}
