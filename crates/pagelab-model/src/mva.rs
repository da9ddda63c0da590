//! Mean value analysis of closed queueing networks.
//!
//! ```text
//!   exact MVA (one class):      R_k(n) = D_k (1 + Q_k(n−1))   queueing
//!                               R_k(n) = D_k                  delay
//!                               X(n) = n / (Z + Σ R_k(n)),  Q_k(n) = X(n) R_k(n)
//!   Schweitzer's approximation: Q_ck(N − 1_c) ≈ Q_k(N) − Q_ck(N)/N_c   (many classes, any N)
//!   Seidmann's m servers:       a queue of demand D/m in series with a delay of D(m−1)/m
//!   delay + flow-equivalent:    p(k) ∝ Z^(N−k)/(N−k)! · Π_{j≤k} 1/μ(j)
//! ```
//!
//! Exact MVA is Reiser and Lavenberg's recursion (J. ACM 27(2), 1980); Lazowska, Zahorjan,
//! Graham and Sevcik, *Quantitative System Performance* (1984), ch. 6 (single class) and ch. 7
//! (Schweitzer's approximation for many classes, §7.4). A station of m identical servers is
//! Seidmann, Schweitzer and Shalev-Oren's decomposition (Perf. Eval. 7, 1987). A closed network
//! of terminals and one load-dependent station, the flow-equivalent server of a subnetwork
//! (Chandy, Herzog and Woo 1975; QSP ch. 8), is solved from its product form directly, in
//! logarithms, which stays exact where the marginal-probability recursion loses p(0) to
//! cancellation at high load.

/// What a station does with its customers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A first-come or processor-sharing queue with `servers` identical servers.
    Queue {
        /// Servers [count].
        servers: u32,
    },
    /// A delay (infinite servers): no queueing.
    Delay,
}

/// A station of a network: `copies` identical stations each taking an equal share of the
/// demand (paging drums in round robin, minidisks shared by users).
#[derive(Clone, Debug, PartialEq)]
pub struct Station {
    /// Name in the results.
    pub name: String,
    /// Queue or delay.
    pub kind: Kind,
    /// Identical copies [count].
    pub copies: u32,
}

impl Station {
    /// `copies` identical single-server queues named `name`.
    pub fn queue(name: &str, copies: u32) -> Station {
        Station {
            name: name.into(),
            kind: Kind::Queue { servers: 1 },
            copies,
        }
    }
}

/// A solved network.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    /// Throughput per class [1/s].
    pub x: Vec<f64>,
    /// Residence time per class, summed over stations [s].
    pub r: Vec<f64>,
    /// Utilisation of one server of one copy of each station [1] (0 for delays).
    pub u: Vec<f64>,
    /// Mean customers at one copy of each station [count].
    pub q: Vec<f64>,
}

/// Exact MVA of a single-class network of single-server queues and delays with `n` customers
/// and think time `z` [s]; `d[k]` is the demand at station k [s]. Returns the solution at
/// every population 1..=n.
pub fn exact(kinds: &[Kind], d: &[f64], z: f64, n: u32) -> Vec<Solution> {
    let mut q = vec![0.0; d.len()];
    let mut out = Vec::with_capacity(n as usize);
    for pop in 1..=n {
        let r: Vec<f64> = kinds
            .iter()
            .zip(d)
            .zip(&q)
            .map(|((k, &dk), &qk)| match k {
                Kind::Delay => dk,
                Kind::Queue { .. } => dk * (1.0 + qk),
            })
            .collect();
        let rt: f64 = r.iter().sum();
        let x = f64::from(pop) / (z + rt);
        q = r.iter().map(|rk| x * rk).collect();
        let u = kinds
            .iter()
            .zip(d)
            .map(|(k, dk)| match k {
                Kind::Delay => 0.0,
                Kind::Queue { .. } => x * dk,
            })
            .collect();
        out.push(Solution {
            x: vec![x],
            r: vec![rt],
            u,
            q: q.clone(),
        });
    }
    out
}

/// Schweitzer's approximate MVA for many classes with real-valued populations `n[c]` and
/// think times `z[c]` [s]; `d[c][k]` is class c's demand at each copy of station k [s].
/// Stations of several servers by Seidmann's decomposition. Classes with no customers have
/// zero throughput.
pub fn schweitzer(stations: &[Station], d: &[Vec<f64>], n: &[f64], z: &[f64]) -> Solution {
    schweitzer_visits(stations, d, None, n, z)
}

/// As [`schweitzer`], with `v[c][k]` class c's visits (bursts) to each copy of station k
/// where a queue serves first come, first served: a class with visits there waits for the
/// bursts ahead of it, R_ck = D_ck + V_ck Σ_j S_jk Q_jk(N − 1_c) with S = D/V, the arrival
/// theorem (Reiser and Lavenberg 1980) applied to bursts of unequal mean length, a heuristic
/// since such a station is not product form (Bard 1979). With equal S it is the
/// processor-sharing form. A station where class c has no visits keeps that form for it.
pub fn schweitzer_visits(
    stations: &[Station],
    d: &[Vec<f64>],
    v: Option<&[Vec<f64>]>,
    n: &[f64],
    z: &[f64],
) -> Solution {
    schweitzer_from(stations, d, v, (n, z), &mut Vec::new())
}

/// As [`schweitzer_visits`], the iteration started from `queues` (each class's queue at each
/// station where a neighbouring solve ended, scaled to its population here, or with a think
/// time kept up to it; an even spread where it is empty), which are left where this one
/// ends. The answer is the same fixed point to the iteration's tolerance, reached in fewer
/// steps from a near one.
pub fn schweitzer_from(
    stations: &[Station],
    d: &[Vec<f64>],
    v: Option<&[Vec<f64>]>,
    (n, z): (&[f64], &[f64]),
    queues: &mut Vec<Vec<f64>>,
) -> Solution {
    schweitzer_counted(stations, d, v, (n, z), queues).0
}

/// The largest change of a class's queue in a sweep, over its population (at least 1), at
/// which Schweitzer's iteration stops [1].
const TOLERANCE: f64 = 1e-8;

/// As [`schweitzer_from`], with the sweeps the iteration took [count].
fn schweitzer_counted(
    stations: &[Station],
    d: &[Vec<f64>],
    v: Option<&[Vec<f64>]>,
    (n, z): (&[f64], &[f64]),
    queues: &mut Vec<Vec<f64>>,
) -> (Solution, u32) {
    let (nc, ns) = (n.len(), stations.len());
    let mut qc = start_queues(stations, (n, z), queues);
    let mut x = vec![0.0; nc];
    let mut r = vec![0.0; nc];
    let burst = v.map(|v| mean_bursts(d, v));
    let own: Vec<f64> = n.iter().map(|&nc| (1.0 - 1.0 / nc).max(0.0)).collect();
    let (mut qtot, mut rk) = (vec![0.0; ns], vec![0.0; ns]);
    let mut sweeps = 0;
    while sweeps < 10_000 {
        sweeps += 1;
        for (k, t) in qtot.iter_mut().enumerate() {
            *t = (0..nc).map(|c| qc[c][k]).sum();
        }
        let mut change = 0.0f64;
        for c in 0..nc {
            if n[c] <= 0.0 {
                x[c] = 0.0;
                r[c] = 0.0;
                qc[c].iter_mut().for_each(|q| *q = 0.0);
                continue;
            }
            for k in 0..ns {
                let dk = d[c][k];
                rk[k] = match stations[k].kind {
                    Kind::Delay => dk,
                    Kind::Queue { servers } => {
                        let m = f64::from(servers.max(1));
                        let seen = (qtot[k] - qc[c][k] / n[c]).max(0.0);
                        let wait = match (v, &burst) {
                            (Some(v), Some(s)) if v[c][k] > 0.0 => {
                                v[c][k] * work_ahead(s, &own, &qc, c, k)
                            }
                            _ => dk * seen,
                        };
                        (dk + wait) / m + dk * (m - 1.0) / m
                    }
                };
            }
            let rt: f64 = rk
                .iter()
                .zip(stations)
                .map(|(v, s)| v * f64::from(s.copies))
                .sum();
            x[c] = n[c] / (z[c] + rt);
            r[c] = rt;
            for k in 0..ns {
                let new = x[c] * rk[k];
                change = change.max((new - qc[c][k]).abs() / n[c].max(1.0));
                qc[c][k] = new;
            }
        }
        if change < TOLERANCE {
            break;
        }
    }
    let u = (0..ns)
        .map(|k| match stations[k].kind {
            Kind::Delay => 0.0,
            Kind::Queue { servers } => {
                (0..nc).map(|c| x[c] * d[c][k]).sum::<f64>() / f64::from(servers.max(1))
            }
        })
        .collect();
    let q = (0..ns).map(|k| (0..nc).map(|c| qc[c][k]).sum()).collect();
    *queues = qc;
    (Solution { x, r, u, q }, sweeps)
}

/// Each class's queues to start from: `queues` scaled to the populations `n`, or `n` spread
/// evenly over the stations' copies. A class that thinks (z > 0) keeps the customers its
/// queues hold, at most `n`: the rest are at their terminals.
fn start_queues(
    stations: &[Station],
    (n, z): (&[f64], &[f64]),
    queues: &[Vec<f64>],
) -> Vec<Vec<f64>> {
    let ns = stations.len();
    let weight: f64 = stations
        .iter()
        .map(|s| f64::from(s.copies))
        .sum::<f64>()
        .max(1.0);
    let mut qc: Vec<Vec<f64>> = n.iter().map(|&nc| vec![nc / weight; ns]).collect();
    if queues.len() == n.len() {
        for (c, q) in queues.iter().enumerate() {
            let held: f64 = q
                .iter()
                .zip(stations)
                .map(|(v, s)| v * f64::from(s.copies))
                .sum();
            if held > 0.0 && q.len() == ns {
                qc[c] = if z[c] > 0.0 && held <= n[c] {
                    q.clone()
                } else {
                    q.iter().map(|v| v * n[c] / held).collect()
                };
            }
        }
    }
    qc
}

/// Each class's mean burst at each station, S = D/V (0 where it has no visits).
fn mean_bursts(d: &[Vec<f64>], v: &[Vec<f64>]) -> Vec<Vec<f64>> {
    d.iter()
        .zip(v)
        .map(|(dj, vj)| {
            dj.iter()
                .zip(vj)
                .map(|(&dk, &vk)| if vk > 0.0 { dk / vk } else { 0.0 })
                .collect()
        })
        .collect()
}

/// The work a class-c burst arriving at station k finds ahead of it: Σ_j S_jk Q_jk, `s` the
/// classes' mean bursts, its own class's queue seen without itself (Schweitzer), `own[c]` =
/// 1 − 1/N_c.
fn work_ahead(s: &[Vec<f64>], own: &[f64], qc: &[Vec<f64>], c: usize, k: usize) -> f64 {
    (0..s.len())
        .map(|j| {
            let q = if j == c { qc[c][k] * own[c] } else { qc[j][k] };
            s[j][k] * q
        })
        .sum()
}

/// Exact MVA of one class of `n` customers (no think time) over `stations`, `d[k]` the demand
/// at each copy of station k [s]; a station of m servers by Seidmann's decomposition. The
/// subsystem's solution with one class, where Schweitzer's approximation would err by a few
/// percent near saturation.
pub fn exact_one_class(stations: &[Station], d: &[f64], n: u32) -> Solution {
    let ns = stations.len();
    let mut q = vec![0.0; ns];
    let (mut x, mut rt) = (0.0, 0.0);
    for pop in 1..=n {
        let r: Vec<f64> = (0..ns)
            .map(|k| match stations[k].kind {
                Kind::Delay => d[k],
                Kind::Queue { servers } => {
                    let m = f64::from(servers.max(1));
                    d[k] / m * (1.0 + q[k]) + d[k] * (m - 1.0) / m
                }
            })
            .collect();
        rt = (0..ns).map(|k| r[k] * f64::from(stations[k].copies)).sum();
        x = f64::from(pop) / rt;
        q = r.iter().map(|rk| x * rk).collect();
    }
    let u = (0..ns)
        .map(|k| match stations[k].kind {
            Kind::Delay => 0.0,
            Kind::Queue { servers } => x * d[k] / f64::from(servers.max(1)),
        })
        .collect();
    Solution {
        x: vec![x],
        r: vec![rt],
        u,
        q,
    }
}

/// `n` terminals thinking `z` [s] in front of one load-dependent station serving at rate
/// `mu[k − 1]` [1/s] with k customers (k = 1..=n): the exact distribution of its customers
/// (`p[k]`, k = 0..=n) from the product form.
pub fn terminals_and_fes(n: u32, z: f64, mu: &[f64]) -> Vec<f64> {
    let lnp = terminals_and_fes_ln(n, z, mu);
    let top = lnp.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut p: Vec<f64> = lnp.iter().map(|l| (l - top).exp()).collect();
    let s: f64 = p.iter().sum();
    p.iter_mut().for_each(|v| *v /= s);
    p
}

/// As [`terminals_and_fes`], the logarithms of the unnormalised weights (−∞ where a state
/// cannot occur).
pub fn terminals_and_fes_ln(n: u32, z: f64, mu: &[f64]) -> Vec<f64> {
    let n = n as usize;
    if z <= 0.0 {
        // No think time: every customer is always at the station.
        let mut lnp = vec![f64::NEG_INFINITY; n + 1];
        lnp[n] = 0.0;
        return lnp;
    }
    // ln p(k) = (N − k) ln Z − ln (N − k)! − Σ_{j≤k} ln μ(j), up to a constant.
    let mut lnp = vec![0.0; n + 1];
    let mut acc = 0.0;
    for (k, lp) in lnp.iter_mut().enumerate() {
        if k > 0 {
            acc -= mu[k - 1].max(1e-300).ln();
        }
        let m = (n - k) as f64;
        *lp = m * z.ln() - ln_factorial(n - k) + acc;
    }
    lnp
}

fn ln_factorial(n: usize) -> f64 {
    (2..=n).map(|i| (i as f64).ln()).sum()
}

mod exact_classes;
pub use exact_classes::{exact_classes, ClassSolution, MAX_VECTORS};

#[cfg(test)]
mod tests;
