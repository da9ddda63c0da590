//! Golden records: every preset's complete result (metrics, interval rows, per-user and
//! per-class tables, percentiles, engine figures, device rows) with a fixed seed, compared bit
//! for bit with `tests/golden/presets/<preset>.json`. A refactor must leave them identical; a
//! deliberate change of behaviour rewrites them (`UPDATE_GOLDEN=1 cargo test -p pagelab-sys
//! golden`) in the same commit, saying why.
//!
//! Presets run a short simulated time (the duration below), except `vmsp`, which runs its full
//! Table 2 hour (tetzlaff 1987, Table 2). Numbers are compared as their shortest round-trip
//! decimal text, so equal text means equal bits.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Seed of every golden run.
const SEED: u64 = 1;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The overrides that make a preset's golden run short (none for the full Table 2 hour).
fn overrides(preset: &str, text: &str) -> Vec<(String, String)> {
    let pairs: &[(&str, &str)] = match preset {
        "vmsp" => &[],
        // The M44 runs its batch to completion; no clock bound to shorten.
        _ if text.contains("kind = \"m44\"") => &[],
        // Timed from the first release: the run ends when the batch is done, or at the cap.
        "vm370-mft" => &[("run.duration_s", "300")],
        _ => &[("run.duration_s", "240"), ("run.warmup_s", "40")],
    };
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The run's complete result as JSON, without the version and the resolved spec (inputs).
fn record(preset: &str) -> String {
    let path = root().join("presets").join(format!("{preset}.toml"));
    let text = std::fs::read_to_string(&path).expect("preset file");
    let overrides = overrides(preset, &text);
    let report = pagelab_sys::run_toml(
        &text,
        &path.to_string_lossy(),
        &overrides,
        SEED,
        None,
        &mut |_| {},
    )
    .unwrap_or_else(|e| panic!("{preset}: {e}"));
    let mut v = serde_json::to_value(&report).expect("report as JSON");
    let obj = v.as_object_mut().expect("report object");
    obj.remove("version");
    obj.remove("spec");
    let mut out = serde_json::Map::new();
    out.insert("preset".into(), Value::String(preset.into()));
    out.insert("seed".into(), SEED.into());
    out.insert(
        "overrides".into(),
        overrides
            .iter()
            .map(|(k, v)| Value::String(format!("{k}={v}")))
            .collect(),
    );
    out.insert("report".into(), v);
    serde_json::to_string_pretty(&Value::Object(out)).expect("JSON text") + "\n"
}

/// Paths (up to `limit`) where two JSON texts differ, for a readable failure.
fn differences(a: &Value, b: &Value, at: &str, out: &mut Vec<String>, limit: usize) {
    if out.len() >= limit {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                match y.get(k) {
                    Some(vb) => differences(va, vb, &format!("{at}.{k}"), out, limit),
                    None => out.push(format!("{at}.{k}: missing now")),
                }
            }
            for k in y.keys().filter(|k| !x.contains_key(*k)) {
                out.push(format!("{at}.{k}: new"));
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                differences(va, vb, &format!("{at}[{i}]"), out, limit);
            }
        }
        _ => {
            let (x, y) = (a.to_string(), b.to_string());
            if x != y {
                out.push(format!("{at}: golden {x}, now {y}"));
            }
        }
    }
}

fn check(preset: &str) {
    let file = root()
        .join("tests/golden/presets")
        .join(format!("{preset}.json"));
    let now = record(preset);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        let tmp = file.with_extension("json.tmp");
        std::fs::create_dir_all(file.parent().expect("folder")).expect("golden folder");
        std::fs::write(&tmp, &now).expect("write golden");
        std::fs::rename(&tmp, &file).expect("rename golden");
        return;
    }
    let want = std::fs::read_to_string(&file)
        .unwrap_or_else(|_| panic!("{}: missing; run with UPDATE_GOLDEN=1", file.display()));
    if want != now {
        let a: Value = serde_json::from_str(&want).expect("golden JSON");
        let b: Value = serde_json::from_str(&now).expect("JSON");
        let mut diff = Vec::new();
        differences(&a, &b, preset, &mut diff, 12);
        panic!(
            "{preset} differs from its golden record {}:\n  {}",
            file.display(),
            diff.join("\n  ")
        );
    }
}

/// Every preset file has a golden test below (a new preset needs a line here).
#[test]
fn every_preset_has_a_golden_record() {
    let mut names: Vec<String> = std::fs::read_dir(root().join("presets"))
        .expect("presets folder")
        .filter_map(|e| {
            let p = e.ok()?.path();
            let stem = p.file_stem()?.to_string_lossy().into_owned();
            (p.extension()? == "toml").then_some(stem)
        })
        .collect();
    names.sort();
    assert_eq!(names, PRESETS, "presets and golden tests differ");
}

const PRESETS: &[&str] = &[
    "cp67",
    "cp67-fitted",
    "cp67-fitted-storage-bound",
    "cp67-psi",
    "cp67-workload1",
    "cp67-workload2",
    "cp67-workload3",
    "hpo-base-3081-assumed-cpu",
    "hpo-base-3081-fitted",
    "hpo-base-3081-runner-up",
    "hpo-base-3081-text",
    "hpo-base-4341-fitted",
    "hpo-base-4341-hand-workload",
    "hpo-base-4341-scaled-cpu",
    "hpo-prepage",
    "hpo-prototype",
    "hpo-prototype-4341",
    "hpo-round-turkey",
    "m44",
    "unix-v6",
    "unix-v6-fitted",
    "unix-v6-fitted-assumed-kernel",
    "unix-v6-fitted-easy-io",
    "unix-v6-fitted-swap-ratio",
    "vm370",
    "vm370-mft",
    "vmsp",
    "vmsp-4341",
];

macro_rules! golden {
    ($($test:ident = $preset:literal;)*) => {
        $(#[test] fn $test() { check($preset); })*
    };
}

golden! {
    golden_cp67 = "cp67";
    golden_cp67_fitted = "cp67-fitted";
    golden_cp67_fitted_storage_bound = "cp67-fitted-storage-bound";
    golden_cp67_psi = "cp67-psi";
    golden_cp67_workload1 = "cp67-workload1";
    golden_cp67_workload2 = "cp67-workload2";
    golden_cp67_workload3 = "cp67-workload3";
    golden_hpo_base_3081_assumed_cpu = "hpo-base-3081-assumed-cpu";
    golden_hpo_base_3081_fitted = "hpo-base-3081-fitted";
    golden_hpo_base_3081_runner_up = "hpo-base-3081-runner-up";
    golden_hpo_base_3081_text = "hpo-base-3081-text";
    golden_hpo_base_4341_fitted = "hpo-base-4341-fitted";
    golden_hpo_base_4341_hand_workload = "hpo-base-4341-hand-workload";
    golden_hpo_base_4341_scaled_cpu = "hpo-base-4341-scaled-cpu";
    golden_hpo_prepage = "hpo-prepage";
    golden_hpo_prototype = "hpo-prototype";
    golden_hpo_prototype_4341 = "hpo-prototype-4341";
    golden_hpo_round_turkey = "hpo-round-turkey";
    golden_m44 = "m44";
    golden_unix_v6 = "unix-v6";
    golden_unix_v6_fitted = "unix-v6-fitted";
    golden_unix_v6_fitted_assumed_kernel = "unix-v6-fitted-assumed-kernel";
    golden_unix_v6_fitted_easy_io = "unix-v6-fitted-easy-io";
    golden_unix_v6_fitted_swap_ratio = "unix-v6-fitted-swap-ratio";
    golden_vm370 = "vm370";
    golden_vm370_mft = "vm370-mft";
    golden_vmsp_table2_hour = "vmsp";
    golden_vmsp_4341 = "vmsp-4341";
}
