use super::*;
use pagelab_sys::demands::ServiceDemands;

/// `presets/<name>.toml` with `overrides`, as the twin reads it.
fn demands(name: &str, overrides: &[(&str, &str)]) -> ServiceDemands {
    let path = format!("{}/../../presets/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let ov: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    ServiceDemands::of(&pagelab_sys::load_spec(&text, &path, &ov).unwrap())
}

/// Class `c`'s curve from `cache` and measured afresh, seed 1.
fn both(cache: &CurveCache, d: &ServiceDemands, c: usize) -> (Lifetime, Lifetime) {
    let rules = StayRules::of(d);
    let kept = cache.of_locality(&d.classes[c], d.shared_pages, &rules, 1);
    let fresh = of_locality(&d.classes[c], d.shared_pages, &rules, 1);
    (kept.unwrap(), fresh.unwrap())
}

/// Equal to the last bit: `{:?}` prints each f64 so that it reads back exactly.
fn same_bits(a: &Lifetime, b: &Lifetime) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

#[test]
fn a_kept_curve_is_bit_identical_to_a_measured_one() {
    let cache = CurveCache::new(CAPACITY);
    for (preset, d) in [
        ("cp67", demands("cp67", &[])),
        ("vm370", demands("vm370", &[])),
    ] {
        for c in 0..d.classes.len() {
            let (first, fresh) = both(&cache, &d, c);
            assert!(same_bits(&first, &fresh), "{preset} class {c}");
            let (kept, _) = both(&cache, &d, c);
            assert!(same_bits(&kept, &fresh), "{preset} class {c}, kept");
        }
    }
}

#[test]
fn a_timing_key_finds_the_curve_and_a_workload_key_measures_another() {
    let cache = CurveCache::new(CAPACITY);
    let base = demands("cp67", &[]);
    let (curve, _) = both(&cache, &base, 0);
    // Keys the pass does not read: the same curve, kept once.
    let timing = demands(
        "cp67",
        &[
            ("cpu.supervisor.fault_us", "3000"),
            ("vio.service_ms", "170"),
            ("workload.users", "25"),
            ("workload.class.0.commands.0.console_write_ms", "250"),
        ],
    );
    assert_ne!(timing.classes[0], base.classes[0]);
    let (hit, _) = both(&cache, &timing, 0);
    assert!(same_bits(&hit, &curve));
    assert_eq!(cache.len(), 1);
    // Keys it reads: each a curve of its own, the one measured afresh.
    for key in [
        ("workload.class.0.program.set_pages", "12"),
        ("workload.class.0.commands.1.cpu_ms", "900"),
        ("cpu.reference_ns", "1500"),
        ("load_control.q1_slice_s", "0.5"),
    ] {
        let d = demands("cp67", &[key]);
        let (kept, fresh) = both(&cache, &d, 0);
        assert!(same_bits(&kept, &fresh), "{key:?}");
        assert!(!same_bits(&kept, &curve), "{key:?} kept the old curve");
    }
    assert_eq!(cache.len(), 5);
}

#[test]
fn the_least_recently_used_curve_leaves_first() {
    let cache = CurveCache::new(2);
    let d = demands("cp67", &[]);
    let rules = StayRules::of(&d);
    let key = |seed| CurveKey::new(&d.classes[0], d.shared_pages, &rules, seed);
    let curve = |name: &str| Lifetime {
        class: name.into(),
        references: 0.0,
        working_set: 0.0,
        points: Vec::new(),
        drops: [0.0; 2],
    };
    cache.put(key(1), curve("1"));
    cache.put(key(2), curve("2"));
    assert_eq!(cache.get(&key(1)).unwrap().class, "1");
    cache.put(key(3), curve("3"));
    assert_eq!(cache.len(), 2);
    assert!(
        cache.get(&key(2)).is_none(),
        "2 was the least recently used"
    );
    assert!(cache.get(&key(1)).is_some() && cache.get(&key(3)).is_some());
}
