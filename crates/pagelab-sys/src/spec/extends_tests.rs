//! `preset.extends` resolution: merging and its errors.

use super::*;

fn dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("pagelab-extends-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn child_keys_merge_over_parent_tables_and_replace_arrays() {
    let d = dir("merge");
    std::fs::write(
        d.join("parent.toml"),
        "[memory]\nframes = 10\npage_bytes = 4096\n[[device]]\nname = \"a\"\n[[device]]\nname = \"b\"\n",
    )
    .unwrap();
    let child = "[preset]\nextends = \"parent\"\n[memory]\nframes = 20\n[[device]]\nname = \"c\"\n";
    let origin = d.join("child.toml").display().to_string();
    let v = toml_with_overrides(child, &origin, &[]).unwrap();
    assert_eq!(v["memory"]["frames"].as_integer(), Some(20));
    assert_eq!(v["memory"]["page_bytes"].as_integer(), Some(4096));
    let devices = v["device"].as_array().unwrap();
    assert_eq!(devices.len(), 1);
    assert_eq!(devices[0]["name"].as_str(), Some("c"));
}

#[test]
fn a_missing_parent_or_a_cycle_names_the_key() {
    let d = dir("bad");
    std::fs::write(d.join("loop.toml"), "[preset]\nextends = \"loop\"\n").unwrap();
    let origin = d.join("x.toml").display().to_string();
    for text in [
        "[preset]\nextends = \"nowhere\"\n",
        "[preset]\nextends = \"loop\"\n",
    ] {
        let e = toml_with_overrides(text, &origin, &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("preset.extends"), "{e}");
    }
}
