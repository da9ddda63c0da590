//! Reading a spec: TOML text, `preset.extends` resolved, `--set` overrides applied, then
//! the typed spec checked.

use super::*;

/// Parses `toml_text` as TOML and applies `overrides` (dotted key path, TOML value): the untyped
/// tree every engine's spec is read from.
pub(crate) fn toml_with_overrides(
    toml_text: &str,
    origin: &str,
    overrides: &[(String, String)],
) -> Result<toml::Value, SysError> {
    let mut value: toml::Value = toml::from_str(toml_text).map_err(|e| SysError::Syntax {
        origin: origin.into(),
        what: one_line(&e.to_string()),
    })?;
    value = resolve_extends(value, origin, 0)?;
    drop_provenance(&mut value);
    for (key, val) in overrides {
        apply_override(&mut value, key, val)?;
    }
    super::bounds::check(&value, origin, overrides)?; // every system's spans, before any use
    Ok(value)
}

/// Removes `[provenance]`: where a calibrated preset's fitted values came from (written by
/// `pagelab calibrate`), a record for readers that the engine does not read.
pub(crate) fn drop_provenance(value: &mut toml::Value) {
    if let Some(table) = value.as_table_mut() {
        table.remove("provenance");
    }
}

/// Presets deep enough to be a cycle.
const MAX_EXTENDS: usize = 8;

/// Resolves `preset.extends = "NAME"`: the file `NAME.toml` beside `origin` is read (itself
/// resolved first) and `value` merged over it. Tables merge key by key; any other value,
/// arrays of tables (`[[device]]`, `[[channel]]`, `[[workload.class]]`) included, replaces the
/// parent's whole.
pub(crate) fn resolve_extends(
    value: toml::Value,
    origin: &str,
    depth: usize,
) -> Result<toml::Value, SysError> {
    let parent = match value.get("preset").and_then(|p| p.get("extends")) {
        None => return Ok(value),
        Some(toml::Value::String(name)) => name.clone(),
        Some(_) => {
            return Err(SysError::Spec {
                origin: origin.into(),
                path: "preset.extends".into(),
                what: "expected the name of a preset file beside this one".into(),
            })
        }
    };
    let bad = |what: String| SysError::Spec {
        origin: origin.into(),
        path: "preset.extends".into(),
        what,
    };
    if depth >= MAX_EXTENDS {
        return Err(bad(format!(
            "more than {MAX_EXTENDS} presets deep: expected no cycle of extends"
        )));
    }
    let dir = std::path::Path::new(origin)
        .parent()
        .unwrap_or(std::path::Path::new("."));
    let path = dir.join(format!("{parent}.toml"));
    let text = std::fs::read_to_string(&path).map_err(|e| {
        bad(format!(
            "cannot read `{}` ({e}): expected a preset file beside this one",
            path.display()
        ))
    })?;
    let p_origin = path.display().to_string();
    let base: toml::Value = toml::from_str(&text).map_err(|e| SysError::Syntax {
        origin: p_origin.clone(),
        what: one_line(&e.to_string()),
    })?;
    let mut merged = resolve_extends(base, &p_origin, depth + 1)?;
    merge_over(&mut merged, value);
    Ok(merged)
}

/// Merges `top` over `base`: tables key by key, everything else replaced.
fn merge_over(base: &mut toml::Value, top: toml::Value) {
    match (base, top) {
        (toml::Value::Table(b), toml::Value::Table(t)) => {
            for (k, v) in t {
                match b.get_mut(&k) {
                    Some(slot) => merge_over(slot, v),
                    None => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (slot, top) => *slot = top,
    }
}

/// Parses `toml_text`, applies `overrides` (dotted key path, TOML value) and validates.
///
/// `origin` names the text in errors (a file name). An override value that is not valid TOML is
/// taken as a string, so `--set preset.name=foo` works unquoted.
pub fn load_spec(
    toml_text: &str,
    origin: &str,
    overrides: &[(String, String)],
) -> Result<SystemSpec, SysError> {
    let value = toml_with_overrides(toml_text, origin, overrides)?;
    let spec: SystemSpec = typed(value, origin)?;
    spec.validate(origin)?;
    Ok(spec)
}

/// The typed spec of a TOML tree; a mismatch is a one-line error naming the key path.
pub(crate) fn typed<T: serde::de::DeserializeOwned>(
    value: toml::Value,
    origin: &str,
) -> Result<T, SysError> {
    let retry = value.clone();
    serde_path_to_error::deserialize(value).map_err(|e| {
        // A number or boolean given for a named choice: the message then says only "unit
        // variant"; read it again as a string, so that the error lists the choices.
        if e.inner().to_string().contains("unit variant") {
            let mut v = retry.clone();
            if let Some(slot) = value_at(&mut v, e.path()) {
                if !slot.is_str() {
                    *slot = toml::Value::String(slot.to_string());
                    if let Err(again) = typed::<T>(v, origin) {
                        return again;
                    }
                }
            }
        }
        let mut path = e.path().to_string();
        let mut what = one_line(&e.into_inner().to_string());
        // A tagged section (`kind = ...`) loses the key inside it: read it again as its kind.
        if path == "load_control" {
            if let Some((inner, msg)) = retry
                .get("load_control")
                .and_then(crate::load_control::spec::locate_error)
            {
                path = format!("load_control.{inner}");
                what = one_line(&msg);
            }
        }
        // The TOML deserializer repeats the table at the end (" in `memory`"); the path says it.
        if let Some(i) = what.rfind(" in `") {
            if what.ends_with('`') {
                what.truncate(i);
            }
        }
        SysError::Spec {
            origin: origin.into(),
            path,
            what,
        }
    })
}

/// The value `path` names in `root`.
fn value_at<'a>(
    root: &'a mut toml::Value,
    path: &serde_path_to_error::Path,
) -> Option<&'a mut toml::Value> {
    use serde_path_to_error::Segment;
    path.iter().try_fold(root, |cur, seg| match (seg, cur) {
        (Segment::Map { key }, toml::Value::Table(t)) => t.get_mut(key.as_str()),
        (Segment::Seq { index }, toml::Value::Array(a)) => a.get_mut(*index),
        _ => None,
    })
}

/// Sets `key` (dotted; numeric parts index arrays) in `root` to the TOML value `val`. An index
/// one past an array's end appends `val` to it, so that an override can add a table to an
/// array of tables (`workload.class.2={name = "guest", ...}`).
pub fn apply_override(root: &mut toml::Value, key: &str, val: &str) -> Result<(), SysError> {
    let arg = format!("{key}={val}");
    let err = |what: String| SysError::Override {
        arg: arg.clone(),
        what,
    };
    let parsed: toml::Value = match toml::from_str::<toml::Table>(&format!("v = {val}")) {
        Ok(mut t) => t.remove("v").unwrap_or(toml::Value::String(val.into())),
        Err(_) => toml::Value::String(val.into()),
    };
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(err(
            "expected a dotted key path such as workload.users".into()
        ));
    }
    let mut cur = root;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        cur = match cur {
            toml::Value::Table(t) => {
                if last {
                    t.insert((*part).to_string(), parsed);
                    return Ok(());
                }
                t.entry((*part).to_string())
                    .or_insert_with(|| toml::Value::Table(toml::Table::new()))
            }
            toml::Value::Array(a) => {
                let idx: usize = part.parse().map_err(|_| {
                    err(format!(
                        "`{part}` indexes an array: expected a number below {}",
                        a.len()
                    ))
                })?;
                let len = a.len();
                if last && idx == len {
                    a.push(parsed);
                    return Ok(());
                }
                let slot = a.get_mut(idx).ok_or_else(|| {
                    err(format!(
                        "index {idx} out of range: the array has {len} (index {len} appends)"
                    ))
                })?;
                if last {
                    *slot = parsed;
                    return Ok(());
                }
                slot
            }
            _ => {
                return Err(err(format!(
                    "`{}` is a value, not a table: expected a key path into tables",
                    parts[..i].join(".")
                )))
            }
        };
    }
    Ok(())
}
