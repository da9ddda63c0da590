use pagelab_trace::format::TraceReader;
use pagelab_trace::policy::{self, NextUse, PolicySpec};
use std::time::Instant;
fn main() {
    let p = std::env::args().nth(1).unwrap();
    let t = Instant::now();
    let mut r = TraceReader::open(std::path::Path::new(&p)).unwrap();
    let runs = r.read_all().unwrap();
    println!("read_all {:?} runs {}", t.elapsed(), runs.len());
    let t = Instant::now();
    let nu = NextUse::compute(&runs);
    println!("nextuse {:?}", t.elapsed());
    let spec = PolicySpec::by_name("min").unwrap();
    let t = Instant::now();
    let o = policy::simulate_min(&spec, &nu, 50, 0).unwrap();
    println!("min {:?} faults {}", t.elapsed(), o.measured.faults);
    let t = Instant::now();
    let o = policy::simulate_sizes(&spec, &runs, &[50], 0).unwrap();
    println!(
        "simulate_sizes {:?} faults {}",
        t.elapsed(),
        o[0].measured.faults
    );
}
