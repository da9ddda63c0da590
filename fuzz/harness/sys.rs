//! What the spec fuzz targets do with their input. Shared by the fuzz targets (`fuzz/`) and by
//! the regression test that replays every saved input on stable (`pagelab-sys`'s
//! `tests/integration/fuzz_regressions.rs`). An `Err` is an answer; a panic, abort or hang is a
//! finding.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use pagelab_core::interrupt;

/// Wall time a fuzzed run may take before it is stopped as a user would stop it [s].
const RUN_WALL_S: u64 = 2;
/// Simulated time of a fuzzed run [s]: short, so that thousands run per minute.
const RUN_SIM_S: &str = "2.0";
/// Memory limit of a fuzzed run, below libFuzzer's 2 GB: a spec above it must be refused.
const MAX_MEMORY: &str = "768M";

/// Presets the structure-aware target starts from.
pub const PRESETS: [&str; 6] = ["vm370", "cp67", "unix-v6", "m44", "vmsp", "hpo-prototype"];

/// Runs `f` with a watchdog that asks it to stop (as Ctrl-C would) after [`RUN_WALL_S`].
fn with_watchdog<T>(f: impl FnOnce() -> T) -> T {
    std::env::set_var("PAGELAB_MAX_MEMORY", MAX_MEMORY);
    let (done, wait) = mpsc::channel::<()>();
    let dog = std::thread::spawn(move || {
        if wait.recv_timeout(Duration::from_secs(RUN_WALL_S)).is_err() {
            interrupt::request(15);
        }
    });
    let out = f();
    let _ = done.send(());
    let _ = dog.join();
    interrupt::clear();
    out
}

/// Loads arbitrary bytes as a system spec (TOML), and runs it briefly if it validates.
pub fn spec_text(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let short = [("run.duration_s".to_string(), RUN_SIM_S.to_string())];
    with_watchdog(|| {
        let _ = pagelab_sys::load_spec(&text, "<fuzz>", &[]);
        let _ = pagelab_sys::run_toml(&text, "<fuzz>", &short, 1, None, &mut |_| {});
    });
}

/// Every leaf key path of a TOML value (`workload.users`, `device.0.name`).
fn leaves(v: &toml::Value, prefix: &str, out: &mut Vec<String>) {
    let join = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    match v {
        toml::Value::Table(t) => t.iter().for_each(|(k, v)| leaves(v, &join(k), out)),
        toml::Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, v)| leaves(v, &join(&i.to_string()), out)),
        _ => out.push(prefix.to_string()),
    }
}

/// A value for an override from fuzz bytes: integers and floats of every size, signs and
/// specials, booleans and short strings.
fn value(kind: u8, b: &[u8; 8]) -> String {
    let i = i64::from_le_bytes(*b);
    match kind % 8 {
        0 => i.to_string(),
        1 => (i % 1000).to_string(),
        2 => f64::from_le_bytes(*b).to_string(),
        3 => format!("{}.5", i % 100_000),
        4 => [
            "true", "false", "nan", "inf", "-inf", "1e30", "-0.0", "\"\"",
        ][b[0] as usize % 8]
            .to_string(),
        5 => format!(
            "\"{}\"",
            String::from_utf8_lossy(b).replace(['"', '\\'], "")
        ),
        6 => (i as u64 % (1 << 33)).to_string(),
        _ => format!("1e{}", b[0] % 40),
    }
}

/// Structure-aware: a real preset with `--set`-style overrides of its own keys chosen by the
/// bytes (each 10 bytes: key, kind, value), then validated, built and run for two seconds.
pub fn spec_overrides(presets_dir: &Path, data: &[u8]) {
    let Some((&p, rest)) = data.split_first() else {
        return;
    };
    let name = PRESETS[p as usize % PRESETS.len()];
    let path = presets_dir.join(format!("{name}.toml"));
    let Ok(text) = std::fs::read_to_string(&path) else {
        return;
    };
    let Ok(parsed) = toml::from_str::<toml::Value>(&text) else {
        return;
    };
    let mut keys = Vec::new();
    leaves(&parsed, "", &mut keys);
    keys.retain(|k| !k.starts_with("preset"));
    if keys.is_empty() {
        return;
    }
    let mut overrides: Vec<(String, String)> = rest
        .chunks_exact(10)
        .take(6)
        .map(|c| {
            let key = keys[u16::from_le_bytes([c[0], c[1]]) as usize % keys.len()].clone();
            let b: [u8; 8] = c[2..10].try_into().expect("8 bytes");
            (key, value(c[1], &b))
        })
        .collect();
    if keys.iter().any(|k| k == "run.duration_s") {
        overrides.push(("run.duration_s".into(), RUN_SIM_S.into()));
        overrides.push(("run.warmup_s".into(), "0".into()));
    }
    let origin = path.to_string_lossy();
    with_watchdog(|| {
        let _ = pagelab_sys::run_toml(&text, &origin, &overrides, 1, None, &mut |_| {});
    });
}
