use super::*;
use pagelab_sys::unix::load_spec;

const PRESET: &str = include_str!("../../../../presets/unix-v6.toml");

fn spec(sets: &[(&str, &str)]) -> UnixSpec {
    let o: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    load_spec(PRESET, "unix-v6.toml", &o).unwrap()
}

#[test]
fn the_core_holds_five_images_and_four_beside_update_and_the_shell() {
    // 1024 clicks of 200: five; less update's 40 and the shell's 130: four.
    let d = SwapDemands::of(&spec(&[]), "unix-v6.toml").unwrap();
    assert_eq!((d.images_all_core, d.images), (5, 4));
    // A swap moves 25 sectors of 40/12 ms, with half a turn and a seek of 10 to 85 ms.
    let sectors = 25.0 * 40e-3 / 12.0;
    assert!(
        d.swap_s > sectors + 0.020 + 0.010 && d.swap_s < sectors + 0.020 + 0.085,
        "{d:?}"
    );
    // A request within one's own 5-cylinder file seeks less than one across the drive.
    assert!(d.file_near_s < d.file_far_s, "{d:?}");
}

#[test]
fn processes_that_fit_never_swap_and_one_alone_waits_for_nothing() {
    let s = spec(&[]);
    let (d, rows) = solve(&s, "t", &[1, 2, 4], None).unwrap();
    for r in &rows {
        assert_eq!(r.fault_rate, 0.0, "{r:?}");
    }
    // One process: a loop is its processor, its requests and its sleep, one after another.
    let file = ((1.0 - 15.0 / 100.0) + 0.3) * d.file_near_s;
    let stay = d.cpu_s / d.cpu_share + file;
    let cycle = stay + d.asleep_s(stay);
    assert!(
        (1.0 / rows[0].throughput - cycle).abs() < 1e-9 * cycle,
        "{rows:?}"
    );
    // Little's law over the closed loop, the time asleep at its fixed point.
    for r in &rows {
        let n = f64::from(r.users);
        let stay = r.classes[0].response;
        let cycle = stay + d.asleep_s(stay);
        assert!((r.throughput * cycle - n).abs() < 1e-6 * n, "{r:?}");
    }
}

#[test]
fn past_the_images_that_fit_the_swaps_take_the_disk_and_throughput_falls() {
    let s = spec(&[]);
    let (d, rows) = solve(&s, "t", &[4, 5, 8, 16], None).unwrap();
    assert_eq!(d.images, 4);
    assert!(
        rows[1].fault_rate > 0.0 && rows[2].fault_rate > rows[1].fault_rate,
        "{rows:?}"
    );
    // Each pair is two images' transfers on the controller.
    for r in &rows {
        assert!((r.paging_util - r.fault_rate * 2.0 * d.swap_s).abs() < 1e-12);
        assert!(r.paging_util + r.vio_util <= 1.0 + 1e-9, "{r:?}");
        assert!(r.mpl <= 4.0 + 1e-9);
    }
    assert!(rows[3].throughput < rows[0].throughput, "{rows:?}");
    // All of core for the prototypes (the other reading) moves the first swap out by one.
    let (_, all) = solve(&s, "t", &[5, 6], Some(f64::from(d.images_all_core))).unwrap();
    assert_eq!(all[0].fault_rate, 0.0);
    assert!(all[1].fault_rate > 0.0);
}

#[test]
fn a_sleep_lasts_its_seconds_less_the_fraction_gone_since_the_last_whole_second() {
    // Sleeping at every loop, a process wakes on a second and calls again at once: it sleeps
    // the whole n; sleeping rarely, its calls fall anywhere in a second: n − 1/2 on average.
    let mut d = SwapDemands::of(&spec(&[]), "t").unwrap();
    (d.sleep_calls, d.sleep_arg_s, d.drain_s) = (1.0, 1.0, 0.0);
    assert!((d.asleep_s(1e-6) - 1.0).abs() < 1e-5);
    d.sleep_calls = 1e-4;
    assert!((d.asleep_s(0.05) - 1e-4 * 0.5).abs() < 1e-6);
    // τ = 0.58 s (the simulator's 63.5 ms loops, one in 9.1 sleeping): 1 − 0.363.
    d.sleep_calls = 0.1094;
    let tau: f64 = 0.0635 / 0.1094;
    let expect = 1.0 - (tau - 1.0 / ((1.0 / tau).exp() - 1.0));
    assert!((d.asleep_s(0.0635) / 0.1094 - expect).abs() < 1e-9);
    assert!((expect - 0.637).abs() < 0.002, "{expect}");
}

#[test]
fn sleeps_on_a_clock_of_their_own_are_refused_by_name() {
    let s = spec(&[("workload.sleep_every_s", "2")]);
    let e = solve(&s, "u.toml", &[1], None).unwrap_err().to_string();
    assert!(
        e.contains("u.toml") && e.contains("workload.sleep_every_s"),
        "{e}"
    );
    let s = spec(&[("workload.file_access", "sequential")]);
    let e = solve(&s, "u.toml", &[1], None).unwrap_err().to_string();
    assert!(e.contains("workload.file_access"), "{e}");
}
