//! Where the time of one end-to-end simulation goes, one part per process so that `perf stat`
//! can count each: decoding alone, simulation alone over runs in memory, or the whole grid
//! (with the CPU time of the thread that simulates: the decoders run on others).
//!
//! ```text
//! cargo run --release -p pagelab-trace --example decode_cost -- decode|sim|min|grid TRACE FRAMES POLICY
//! ```
//!
//! POLICY is a name or a JSON spec (`{"kind": "clock", "bit_on_load": false}`). `min` times MIN's two passes over the file on this thread: the backward next-use pass
//! (chunks decoded on a second thread) and the forward pass, decoding included (POLICY unused).
use pagelab_trace::format::TraceReader;
use pagelab_trace::grid::simulate_trace_grid;
use pagelab_trace::policy::min::TraceNextUse;
use pagelab_trace::policy::{simulate, simulate_min_trace, PolicySpec};
use pagelab_trace::ReferenceSource;
use std::path::Path;
use std::time::Instant;

/// CPU time of this thread [s]: what a part costs whatever else the machine runs.
fn cpu() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 5 {
        eprintln!("usage: decode_cost decode|sim|min|grid TRACE FRAMES POLICY");
        std::process::exit(2);
    }
    let path = Path::new(&a[2]);
    let frames: u32 = a[3].parse().expect("FRAMES: a number");
    let spec = if a[4].starts_with('{') {
        serde_json::from_str(&a[4]).expect("POLICY: a policy spec in JSON")
    } else {
        PolicySpec::by_name(&a[4]).expect("POLICY: a policy name")
    };
    let mut reader = TraceReader::open(path).expect("TRACE: a pagelab trace");
    match a[1].as_str() {
        "decode" => {
            let (t, c) = (Instant::now(), cpu());
            let (mut buf, mut n) = (Vec::new(), 0usize);
            loop {
                buf.clear();
                if !reader.next_batch(&mut buf).expect("decode") {
                    break;
                }
                n += buf.len();
            }
            let (s, c) = (t.elapsed().as_secs_f64(), cpu() - c);
            println!("decode: {s:.3} s, cpu {c:.3} s, {n} runs");
            let all = TraceReader::open(path)
                .expect("reopen")
                .read_all()
                .expect("decode");
            let groups = 1 + all.windows(2).filter(|w| w[0].page != w[1].page).count();
            println!("{groups} groups of adjacent runs of one page");
        }
        "sim" => {
            let all = reader.read_all().expect("decode");
            let (t, c) = (Instant::now(), cpu());
            let o = simulate(&spec, &all, frames, 0).expect("simulate");
            let (s, c) = (t.elapsed().as_secs_f64(), cpu() - c);
            println!("sim: {s:.3} s, cpu {c:.3} s, faults {}", o.measured.faults);
        }
        "min" => {
            let (t, c) = (Instant::now(), cpu());
            let nu = TraceNextUse::compute_prefetched(path).expect("next-use");
            let (s, c) = (t.elapsed().as_secs_f64(), cpu() - c);
            println!("next-use: {s:.3} s, cpu {c:.3} s");
            let (t, c) = (Instant::now(), cpu());
            let min = PolicySpec::by_name("min").expect("min");
            let o = simulate_min_trace(&min, &mut reader, &nu, frames, 0).expect("simulate");
            let (s, c) = (t.elapsed().as_secs_f64(), cpu() - c);
            println!(
                "forward (decode + MIN): {s:.3} s, cpu {c:.3} s, faults {}",
                o.measured.faults
            );
        }
        _ => {
            let (t, c) = (Instant::now(), cpu());
            let g = simulate_trace_grid(&[spec], path, &[frames], 0).expect("grid");
            let (s, c) = (t.elapsed().as_secs_f64(), cpu() - c);
            println!(
                "grid: {s:.3} s, this thread's cpu {c:.3} s, faults {}",
                g.outcomes[0].measured.faults
            );
        }
    }
}
