//! Policies through the public API: golden fault counts on a fixed-seed string, streaming,
//! sizes over the cores, the registry.

use pagelab_core::RngStreams;
use pagelab_trace::grid::simulate_trace_grid;
use pagelab_trace::policy::{
    simulate, simulate_sizes, simulate_stream, PolicySpec, Stepper, Victim, INFO,
};
use pagelab_trace::{AccessKind, Run, VecSource};
use rand::Rng;
use std::fmt::Write as _;

/// A locality string: phases of 500 runs in a window of 40 of 400 pages, 10% anywhere.
pub fn locality_string(n: usize, seed: u64) -> Vec<Run> {
    let mut rng = RngStreams::new(seed).stream("test.string", 0);
    let mut base = 0;
    (0..n)
        .map(|i| {
            if i % 500 == 0 {
                base = rng.gen_range(0..360);
            }
            let page = if rng.gen_bool(0.9) {
                base + rng.gen_range(0..40)
            } else {
                rng.gen_range(0..400)
            };
            let kind = if rng.gen_range(0..4) == 0 {
                AccessKind::Store
            } else {
                AccessKind::Load
            };
            Run::new(page, rng.gen_range(1..=3), kind)
        })
        .collect()
}

/// Every policy of the registry ([`INFO`]) with its default parameters, save the working set's
/// window: 200 references, inside the locality string's 500-run phases.
pub fn specs() -> Vec<PolicySpec> {
    INFO.iter()
        .map(|i| match PolicySpec::by_name(i.name).unwrap() {
            PolicySpec::Ws(_) => serde_json::from_str(r#"{"kind":"ws","tau":200}"#).unwrap(),
            spec => spec,
        })
        .collect()
}

fn info(spec: &PolicySpec) -> &'static pagelab_trace::policy::PolicyInfo {
    INFO.iter().find(|i| i.name == spec.name()).unwrap()
}

/// The golden file's lines grouped by policy (its first word), in the file's order.
fn golden_blocks(text: &str) -> Vec<(String, String)> {
    let mut blocks: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let name = line.split(' ').next().unwrap_or_default();
        if blocks.last().map(|b| b.0.as_str()) != Some(name) {
            blocks.push((name.to_string(), String::new()));
        }
        let block = &mut blocks.last_mut().unwrap().1;
        block.push_str(line);
        block.push('\n');
    }
    blocks
}

#[test]
fn golden_fault_counts() {
    let runs = locality_string(20_000, 7);
    let sizes = [8, 32, 64, 128];
    let mut got: Vec<(String, String)> = Vec::new();
    for spec in specs() {
        let mut out = String::new();
        for o in simulate_sizes(&spec, &runs, &sizes, 1000).unwrap() {
            writeln!(
                out,
                "{} frames={} faults={} pushes={} dirty_resident={}",
                spec.name(),
                o.frames,
                o.measured.faults,
                o.measured.pushes,
                o.dirty_resident
            )
            .unwrap();
        }
        got.push((spec.name().to_string(), out));
    }
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/integration/golden/policies.txt"
    );
    let want = std::fs::read_to_string(path).unwrap_or_default();
    let want = golden_blocks(&want);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        // The file's order kept, a new policy appended.
        let rank = |name: &str| want.iter().position(|w| w.0 == name).unwrap_or(usize::MAX);
        let mut ordered = got.clone();
        ordered.sort_by_key(|g| rank(&g.0));
        std::fs::write(
            path,
            ordered.iter().map(|g| g.1.as_str()).collect::<String>(),
        )
        .unwrap();
        return;
    }
    assert_eq!(
        got.len(),
        want.len(),
        "policies in the golden file: run with UPDATE_GOLDEN=1"
    );
    for (name, block) in &got {
        let w = want.iter().find(|w| &w.0 == name);
        let w =
            w.unwrap_or_else(|| panic!("no golden counts for {name}; run with UPDATE_GOLDEN=1"));
        assert_eq!(block, &w.1, "{name}");
    }
}

#[test]
fn min_is_the_floor_and_lru_beats_random_on_locality() {
    let runs = locality_string(20_000, 3);
    let f = |s: &str, k| {
        simulate(&serde_json::from_str(s).unwrap(), &runs, k, 0)
            .unwrap()
            .measured
            .faults
    };
    for k in [16, 48, 96] {
        let min = f(r#"{"kind":"min"}"#, k);
        for spec in specs().iter().filter(|s| !info(s).variable_space) {
            let faults = simulate(spec, &runs, k, 0).unwrap().measured.faults;
            assert!(min <= faults, "{} at {k}", spec.name());
        }
        assert!(f(r#"{"kind":"lru"}"#, k) < f(r#"{"kind":"random"}"#, k));
    }
}

#[test]
fn streaming_equals_in_memory_for_online_policies() {
    let runs = locality_string(30_000, 11);
    for spec in specs().into_iter().filter(|s| !info(s).needs_future) {
        let a = simulate(&spec, &runs, 50, 500).unwrap();
        // A source that does not know its page bound: tables grow as pages appear.
        struct Blind(VecSource);
        impl pagelab_trace::ReferenceSource for Blind {
            fn next_batch(
                &mut self,
                out: &mut Vec<Run>,
            ) -> Result<bool, pagelab_trace::TraceError> {
                self.0.next_batch(out)
            }
        }
        let b = simulate_stream(&spec, &mut Blind(VecSource::new(runs.clone())), 50, 500).unwrap();
        assert_eq!(a, b, "{}", spec.name());
    }
}

#[test]
fn step_mode_on_belady_string_prints_every_frame_table() {
    let s = VecSource::from_pages(&[1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5]);
    let spec = PolicySpec::by_name("fifo").unwrap();
    let steps: Vec<_> = Stepper::new(&spec, 3, s.runs()).unwrap().collect();
    let hits: Vec<bool> = steps.iter().map(|s| s.hit).collect();
    assert_eq!(
        hits,
        [false, false, false, false, false, false, false, true, true, false, false, true]
    );
    // 4 took frame 0 (from 1), 1 frame 1 (from 2), 2 frame 2 (from 3); 5 takes frame 0 from 4.
    assert_eq!(steps[6].frames, vec![Some(5), Some(1), Some(2)]);
    assert_eq!(
        steps[6].victims,
        vec![Victim {
            page: 4,
            pushed: false
        }]
    );
    assert_eq!(steps[6].state.hand, Some(1));
    let json = serde_json::to_string(&steps[6]).unwrap();
    assert!(json.contains("\"victims\""));
}

#[test]
fn registry_lists_every_policy_once() {
    let mut names: Vec<&str> = INFO.iter().map(|i| i.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), INFO.len());
    for i in INFO {
        let spec = PolicySpec::by_name(i.name).unwrap();
        assert_eq!(spec.name(), i.name);
        for alias in i.aliases {
            assert_eq!(PolicySpec::by_name(alias).unwrap().name(), i.name);
        }
    }
    let offline: Vec<&str> = INFO
        .iter()
        .filter(|i| i.needs_future)
        .map(|i| i.name)
        .collect();
    assert_eq!(offline, ["min"]);
    let ar = INFO.iter().find(|i| i.name == "ar").unwrap();
    assert_eq!(ar.params[0].name, "reset_interval");
    assert_eq!(ar.params[0].unit, "[references]");
}

/// Writes `runs` to a trace file of 1000-run chunks.
pub fn write_trace(path: &std::path::Path, runs: &[Run]) {
    let mut w = pagelab_trace::format::TraceWriter::create_with(
        path,
        4096,
        serde_json::json!({"test": "policies"}),
        pagelab_trace::format::WriterOptions {
            chunk_runs: 1000,
            ..Default::default()
        },
    )
    .unwrap();
    for r in runs {
        w.push_run(u64::from(r.page), r.count, r.kind).unwrap();
    }
    w.finish().unwrap();
}

#[test]
fn grid_over_a_trace_file_equals_each_policy_in_memory() {
    let runs = locality_string(20_000, 11);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.pltrace");
    write_trace(&path, &runs);
    let specs = specs();
    let sizes = [3, 40, 150];
    let g = simulate_trace_grid(&specs, &path, &sizes, 2_000).unwrap();
    assert_eq!(g.outcomes.len(), specs.len() * sizes.len());
    for (i, spec) in specs.iter().enumerate() {
        let mem = simulate_sizes(spec, &runs, &sizes, 2_000).unwrap();
        assert_eq!(
            &g.outcomes[i * sizes.len()..(i + 1) * sizes.len()],
            &mem[..]
        );
    }
    // Every chunk decoded once forward, once more backwards for MIN's next-use.
    let chunks = runs.len().div_ceil(1000) as u64;
    assert_eq!(g.memory.chunks_decoded, 2 * chunks);
    assert_eq!(g.memory.cells, (specs.len() * sizes.len()) as u64);
    assert!(g.memory.next_use > 0 && g.memory.blocks > 0);
    let online = simulate_trace_grid(&specs[..1], &path, &sizes, 0).unwrap();
    assert_eq!(
        (online.memory.chunks_decoded, online.memory.next_use),
        (chunks, 0)
    );
    // Without a warm-up, LRU at every size is one stack, FIFO and CLOCK one walk each: the same
    // outcomes, past the page count too.
    let sizes = [2, 3, 40, 150, 399, 400, 1000];
    let g = simulate_trace_grid(&specs, &path, &sizes, 0).unwrap();
    assert_eq!(g.memory.cells, ((specs.len() - 3) * sizes.len() + 3) as u64);
    for (i, spec) in specs.iter().enumerate() {
        let mem = simulate_sizes(spec, &runs, &sizes, 0).unwrap();
        assert_eq!(
            &g.outcomes[i * sizes.len()..(i + 1) * sizes.len()],
            &mem[..]
        );
    }
    for stacked in g.outcomes[..3 * sizes.len()].chunks(sizes.len()) {
        assert!(stacked
            .iter()
            .any(|o| o.dirty_resident > 0 && o.measured.pushes > 0));
    }
}

#[test]
fn min_over_a_trace_file_equals_min_in_memory() {
    let runs = locality_string(20_000, 9);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.pltrace");
    write_trace(&path, &runs);
    let spec = PolicySpec::by_name("min").unwrap();
    let sizes = [1, 7, 40, 120, 400];
    for warmup in [0, 12_345] {
        let mem = simulate_sizes(&spec, &runs, &sizes, warmup).unwrap();
        let file =
            pagelab_trace::grid::simulate_min_trace_sizes(&spec, &path, &sizes, warmup).unwrap();
        for (a, b) in mem.iter().zip(&file) {
            assert_eq!(
                a.measured, b.measured,
                "frames {} warmup {warmup}",
                a.frames
            );
            assert_eq!(a.warmup, b.warmup, "frames {} warmup {warmup}", a.frames);
        }
    }
}
