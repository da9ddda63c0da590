//! Each bad input is a one-line error naming the key path (or file) and what was expected.

use crate::small_toml;
use pagelab_sys::load_spec;

/// Overrides as `load_spec` takes them.
fn owned(overrides: &[(&str, &str)]) -> Vec<(String, String)> {
    overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn err(text: &str, overrides: &[(&str, &str)]) -> String {
    let e = load_spec(text, "bad.toml", &owned(overrides))
        .expect_err("should fail")
        .to_string();
    assert!(!e.contains('\n'), "multi-line error: {e}");
    assert!(e.starts_with("bad.toml") || e.starts_with("--set "), "{e}");
    e
}

#[test]
fn unknown_key_names_its_path() {
    let text = small_toml(2, 50, 100.0).replace("[memory]", "[memory]\nframez = 3");
    let e = err(&text, &[]);
    assert!(
        e.contains("memory") && e.contains("framez") && e.contains("expected"),
        "{e}"
    );
}

#[test]
fn unknown_key_by_override_names_its_path() {
    let e = err(&small_toml(2, 50, 100.0), &[("cpu.speed", "3")]);
    assert!(e.contains("cpu") && e.contains("speed"), "{e}");
}

#[test]
fn wrong_type_names_its_path_and_the_form() {
    let e = err(&small_toml(2, 50, 100.0), &[("workload.users", "\"many\"")]);
    assert!(
        e.contains("workload.users") && e.contains("expected u32"),
        "{e}"
    );
}

/// `key = value` over the small system is refused with an error naming the key and `≥ 0`.
fn refused_below_zero(key: &str, value: &str) {
    let e = err(&small_toml(2, 50, 100.0), &[(key, value)]);
    assert!(e.contains(key) && e.contains("≥ 0"), "{e}");
}

#[test]
fn negative_think_time() {
    refused_below_zero("workload.class.0.think.mean_s", "-1");
}

#[test]
fn zero_frames() {
    let e = err(&small_toml(2, 0, 100.0), &[]);
    assert!(
        e.contains("memory.frames") && e.contains("at least one"),
        "{e}"
    );
}

#[test]
fn device_without_a_channel() {
    let e = err(
        &small_toml(2, 50, 100.0),
        &[("device.0.channel", "nowhere")],
    );
    assert!(
        e.contains("device.0.channel") && e.contains("nowhere"),
        "{e}"
    );
}

#[test]
fn trace_that_does_not_exist() {
    let e = err(
        &small_toml(2, 50, 100.0),
        &[(
            "workload.class.0.program",
            "{ kind = \"trace\", path = \"/no/such/file.trace\" }",
        )],
    );
    assert!(
        e.contains("workload.class.0.program.path") && e.contains("/no/such/file.trace"),
        "{e}"
    );
}

#[test]
fn unknown_load_controller_kind() {
    let e = err(
        &small_toml(2, 50, 100.0),
        &[("load_control.kind", "\"magic\"")],
    );
    assert!(e.contains("load_control") && e.contains("magic"), "{e}");
}

#[test]
fn unknown_device_model() {
    let e = err(&small_toml(2, 50, 100.0), &[("device.0.model", "\"9999\"")]);
    assert!(e.contains("device") && e.contains("9999"), "{e}");
}

#[test]
fn override_into_a_value_is_refused() {
    let e = err(&small_toml(2, 50, 100.0), &[("workload.users.x", "1")]);
    assert!(
        e.contains("workload.users") && e.contains("not a table"),
        "{e}"
    );
}

#[test]
fn override_index_out_of_range() {
    let e = err(&small_toml(2, 50, 100.0), &[("device.5.model", "\"3380\"")]);
    assert!(e.contains("out of range"), "{e}");
}

#[test]
fn an_index_one_past_the_end_appends_a_class() {
    let text = small_toml(2, 50, 100.0);
    let before = load_spec(&text, "ok.toml", &[]).unwrap();
    let class = r#"{ name = "guest", fraction = 0.5, think = { kind = "fixed", s = 0.0 }, commands = [ { name = "compute", cpu_ms = 1000.0 } ], program = { kind = "drifting", set_pages = 60, address_pages = 200, drift = 0.05, locality_pages = 20, runs_per_phase = 100, refs_per_run = 500.0, write_fraction = 0.4 } }"#;
    let n = before.workload.classes.len();
    let key = format!("workload.class.{n}");
    let after = load_spec(&text, "ok.toml", &owned(&[(&key, class)])).unwrap();
    assert_eq!(after.workload.classes.len(), n + 1);
    assert_eq!(after.workload.classes[n].name, "guest");
    // Past the end by more than one is still refused, naming how to append.
    let key = format!("workload.class.{}", n + 1);
    let e = err(&text, &[(&key, class)]);
    assert!(e.contains("out of range") && e.contains("appends"), "{e}");
}

#[test]
fn exposures_only_on_a_fixed_head_device() {
    let e = err(&small_toml(2, 50, 100.0), &[("device.0.exposures", "9")]);
    assert!(
        e.contains("device.0.exposures") && e.contains("1 to 8"),
        "{e}"
    );
    let e = err(
        &small_toml(2, 50, 100.0),
        &[("device.0.model", "\"3380\""), ("device.0.exposures", "2")],
    );
    assert!(e.contains("fixed-head"), "{e}");
}

#[test]
fn toml_syntax_error_is_one_line() {
    let e = err("[run\nduration_s = 1", &[]);
    assert!(e.contains("bad.toml"), "{e}");
}

#[test]
fn a_number_for_a_named_choice_lists_the_choices() {
    let e = err(
        &small_toml(2, 50, 100.0),
        &[("paging.slot_allocation", "5")],
    );
    assert!(
        e.contains("paging.slot_allocation") && e.contains("`5`") && e.contains("moving-cursor"),
        "{e}"
    );
}

#[test]
fn unknown_system_kind_is_one_line_naming_the_choices() {
    let o = vec![("system.kind".to_string(), "\"vax\"".to_string())];
    let e = pagelab_sys::run_toml(
        &small_toml(2, 50, 100.0),
        "bad.toml",
        &o,
        1,
        None,
        &mut |_| {},
    )
    .expect_err("unknown kind")
    .to_string();
    assert!(!e.contains('\n'), "{e}");
    // The key was set by the override: the error names the `--set` (spec/blame.rs).
    assert!(e.starts_with("--set system.kind=\"vax\": "), "{e}");
    for k in ["vax", "vm", "unix", "m44"] {
        assert!(e.contains(k), "{e}");
    }
}

#[test]
fn a_vm_spec_named_unix_is_refused_by_the_unix_loader() {
    let o = vec![("system.kind".to_string(), "\"unix\"".to_string())];
    let e = pagelab_sys::run_toml(
        &small_toml(2, 50, 100.0),
        "bad.toml",
        &o,
        1,
        None,
        &mut |_| {},
    )
    .expect_err("a VM spec is no UNIX spec")
    .to_string();
    assert!(!e.contains('\n') && e.starts_with("bad.toml"), "{e}");
}

#[test]
fn a_negative_virtual_io_cost_names_its_key() {
    refused_below_zero("cpu.supervisor.vio_sio_us", "-5");
}
