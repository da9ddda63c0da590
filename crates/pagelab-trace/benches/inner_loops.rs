//! Criterion benches of the trace lab's inner loops, each alone: a policy's block loop over runs
//! in memory, decoding a trace file's chunks, and the one-pass curves. Throughput is in
//! references. `cargo bench -p pagelab-trace --bench inner_loops [-- FILTER]`.
//!
//! The string: 1 000 000 runs of 1..=4 references over 8 192 pages, 90 % of them in a window
//! of 256 pages that moves every 50 000 runs (seeded: every run of the bench sees the same
//! string), one run in four writing. 819 frames, a tenth of the pages.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use pagelab_core::RngStreams;
use pagelab_trace::curve::lru_curve;
use pagelab_trace::format::{TraceReader, TraceWriter};
use pagelab_trace::policy::{simulate, PolicySpec};
use pagelab_trace::{AccessKind, ReferenceSource, Run};
use rand::Rng;

const PAGES: u32 = 8_192;
const RUNS: usize = 1_000_000;
const FRAMES: u32 = 819;

fn string() -> Vec<Run> {
    let mut rng = RngStreams::new(1).stream("bench.inner_loops", 0);
    let mut base = 0;
    (0..RUNS)
        .map(|i| {
            if i % 50_000 == 0 {
                base = rng.gen_range(0..PAGES - 256);
            }
            let page = if rng.gen_bool(0.9) {
                base + rng.gen_range(0..256)
            } else {
                rng.gen_range(0..PAGES)
            };
            let kind = if rng.gen_range(0..4) == 0 {
                AccessKind::Store
            } else {
                AccessKind::Load
            };
            Run::new(page, rng.gen_range(1..=4), kind)
        })
        .collect()
}

fn references(runs: &[Run]) -> u64 {
    runs.iter().map(|r| u64::from(r.count)).sum()
}

fn policies(c: &mut Criterion) {
    let runs = string();
    let mut g = c.benchmark_group("policy");
    g.throughput(Throughput::Elements(references(&runs)));
    g.sample_size(20);
    for name in ["lru", "fifo", "clock", "arc", "sieve", "lirs", "min"] {
        let spec = PolicySpec::by_name(name).expect("a registered policy");
        g.bench_with_input(BenchmarkId::from_parameter(name), &runs, |b, runs| {
            b.iter(|| simulate(&spec, runs, FRAMES, 0).expect("simulate"));
        });
    }
    g.finish();
}

fn decode(c: &mut Criterion) {
    let runs = string();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("bench.pltrace");
    let mut w = TraceWriter::create(&path, 4096, serde_json::json!({"program": "bench"}))
        .expect("a trace writer");
    for r in &runs {
        w.push_run(u64::from(r.page), r.count, r.kind)
            .expect("push a run");
    }
    w.finish().expect("finish the trace");
    let mut g = c.benchmark_group("decode");
    g.throughput(Throughput::Elements(references(&runs)));
    g.sample_size(20);
    g.bench_function("chunks", |b| {
        b.iter(|| {
            let mut reader = TraceReader::open(&path).expect("open");
            let (mut buf, mut n) = (Vec::new(), 0usize);
            while reader.next_batch(&mut buf).expect("decode") {
                n += buf.len();
                buf.clear();
            }
            n
        });
    });
    g.finish();
}

fn curves(c: &mut Criterion) {
    let runs = string();
    let mut g = c.benchmark_group("curve");
    g.throughput(Throughput::Elements(references(&runs)));
    g.sample_size(10);
    g.bench_function("lru_every_size", |b| b.iter(|| lru_curve(&runs, 0)));
    g.finish();
}

criterion_group!(benches, policies, decode, curves);
criterion_main!(benches);
