//! Errors in the user's words: a spec error names the `--set` that caused it and says where the
//! value at fault came from when the file named does not set it itself (a parent preset).
//!
//! `pagelab run vmsp --set run.duration_s=300` fails on `run.warmup_s`, which vmsp inherits
//! from vm370: the error then reads `--set run.duration_s=300: vmsp.toml: run.warmup_s = 600
//! (from vm370.toml): expected ...`, not as if vmsp.toml itself were wrong.

use crate::error::SysError;

/// `e` with its cause named: the override that set the key at fault (or one of its table),
/// or, for a key no override set, an override of the same section that may have made it wrong;
/// and the file the key's value comes from when it is not `origin` itself.
pub fn blame(
    e: SysError,
    toml_text: &str,
    origin: &str,
    overrides: &[(String, String)],
) -> SysError {
    let (origin_e, path, what, invalid) = match e {
        SysError::Spec { origin, path, what } => (origin, path, plain_words(&what), false),
        SysError::Invalid { origin, path, what } => (origin, path, what, true),
        other => return other,
    };
    let set_it = overrides
        .iter()
        .rev()
        .find(|(k, _)| path == *k || path.starts_with(&format!("{k}.")));
    if let Some((k, v)) = set_it {
        let what = if path == *k {
            what
        } else {
            format!("{path}: {what}")
        };
        return SysError::Override {
            arg: format!("{k}={v}"),
            what,
        };
    }
    let source = value_source(toml_text, origin, &path);
    let section = path.split('.').next().unwrap_or_default();
    let related = overrides
        .iter()
        .rev()
        .find(|(k, _)| k.split('.').next() == Some(section));
    match (related, source) {
        (Some((k, v)), source) => SysError::Override {
            arg: format!("{k}={v}"),
            what: format!("{origin_e}: {}: {what}", with_source(&path, source)),
        },
        (None, Some(source)) if invalid => SysError::Invalid {
            origin: origin_e,
            path: with_source(&path, Some(source)),
            what,
        },
        (None, Some(source)) => SysError::Spec {
            origin: origin_e,
            path: with_source(&path, Some(source)),
            what,
        },
        (None, None) if invalid => SysError::Invalid {
            origin: origin_e,
            path,
            what,
        },
        (None, None) => SysError::Spec {
            origin: origin_e,
            path,
            what,
        },
    }
}

/// Rust's type names in a deserializer's message said as the range a user can write.
pub fn plain_words(what: &str) -> String {
    const WORDS: [(&str, &str); 9] = [
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected u16", "expected a whole number from 0 to 65535"),
        (
            "expected u32",
            "expected a whole number from 0 to 4294967295",
        ),
        (
            "expected u64",
            "expected a whole number from 0 to 18446744073709551615",
        ),
        (
            "expected usize",
            "expected a whole number from 0 to 18446744073709551615",
        ),
        (
            "expected i32",
            "expected a whole number from -2147483648 to 2147483647",
        ),
        ("expected i64", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
    ];
    let mut out = what.to_string();
    for (rust, user) in WORDS {
        if let Some(i) = out.find(rust) {
            let end = i + rust.len();
            // Only the whole word: `expected u32`, not `expected u32x4`.
            if !out[end..].starts_with(|c: char| c.is_ascii_alphanumeric()) {
                out.replace_range(i..end, user);
            }
        }
    }
    out
}

/// `path`, with its value and the file it comes from when inherited.
fn with_source(path: &str, source: Option<(String, String)>) -> String {
    match source {
        Some((value, file)) => format!("{path} = {value} (from {file})"),
        None => path.to_string(),
    }
}

/// (value, parent file name) of `path` when `origin`'s own text does not set it and a preset
/// it extends does; None when the file sets it itself or no file does.
fn value_source(toml_text: &str, origin: &str, path: &str) -> Option<(String, String)> {
    let own: toml::Value = toml::from_str(toml_text).ok()?;
    if lookup(&own, path).is_some() {
        return None;
    }
    let mut dir = std::path::Path::new(origin).parent()?.to_path_buf();
    let mut cur = own;
    for _ in 0..8 {
        let name = cur.get("preset")?.get("extends")?.as_str()?.to_string();
        let file = dir.join(format!("{name}.toml"));
        let parent: toml::Value = toml::from_str(&std::fs::read_to_string(&file).ok()?).ok()?;
        if let Some(v) = lookup(&parent, path) {
            return Some((v.to_string(), format!("{name}.toml")));
        }
        dir = file.parent()?.to_path_buf();
        cur = parent;
    }
    None
}

fn lookup<'a>(root: &'a toml::Value, path: &str) -> Option<&'a toml::Value> {
    path.split('.').try_fold(root, |cur, part| match cur {
        toml::Value::Table(t) => t.get(part),
        toml::Value::Array(a) => a.get(part.parse::<usize>().ok()?),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invalid(path: &str) -> SysError {
        SysError::Invalid {
            origin: "x.toml".into(),
            path: path.into(),
            what: "expected seconds ≥ 0 and below run.duration_s".into(),
        }
    }

    #[test]
    fn an_inherited_value_made_wrong_by_a_set_blames_the_set_and_names_the_parent() {
        let dir = std::env::temp_dir().join(format!("pagelab-blame-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("base.toml"), "[run]\nwarmup_s = 600.0\n").unwrap();
        let child = "[preset]\nextends = \"base\"\n";
        let origin = dir.join("child.toml").display().to_string();
        let o = [("run.duration_s".to_string(), "300".to_string())];
        let e = blame(invalid("run.warmup_s"), child, &origin, &o).to_string();
        assert_eq!(
            e,
            "--set run.duration_s=300: x.toml: run.warmup_s = 600.0 (from base.toml): \
             expected seconds ≥ 0 and below run.duration_s"
        );
        let e = blame(invalid("run.warmup_s"), child, &origin, &[]).to_string();
        assert!(
            e.starts_with("x.toml: run.warmup_s = 600.0 (from base.toml): "),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn rust_type_names_become_ranges() {
        assert_eq!(
            plain_words("invalid value: integer `-5`, expected u32"),
            "invalid value: integer `-5`, expected a whole number from 0 to 4294967295"
        );
        assert_eq!(plain_words("expected f64"), "expected a number");
    }

    #[test]
    fn a_key_set_by_an_override_names_only_the_override() {
        let o = [("run".to_string(), "{warmup_s = -1}".to_string())];
        let e = blame(invalid("run.warmup_s"), "", "x.toml", &o).to_string();
        assert!(
            e.starts_with("--set run={warmup_s = -1}: run.warmup_s: expected"),
            "{e}"
        );
    }
}
