//! Exact MVA with several classes: Reiser and Lavenberg's recursion over population vectors
//! (J. ACM 27(2), 1980; Lazowska et al., *Quantitative System Performance*, 1984, §7.3).
//!
//! ```text
//!   R_ck(n) = D_ck (1 + Q_k(n − 1_c))   queueing        R_ck(n) = D_ck   delay
//!   X_c(n)  = n_c / (Z_c + Σ_k R_ck(n)),  Q_ck(n) = X_c(n) R_ck(n)
//! ```
//!
//! Every population vector from 0 to N is solved once, in an order where n − 1_c always
//! comes before n: Π (N_c + 1) vectors, so for the small networks it checks (the twin's own
//! solve is Schweitzer's approximation, [`super::schweitzer`]).

use super::Kind;

/// A network solved for every class: throughput and residence time per class, and each
/// class's mean customers at each station.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassSolution {
    /// Throughput per class [1/s].
    pub x: Vec<f64>,
    /// Residence time per class, summed over stations [s].
    pub r: Vec<f64>,
    /// Mean customers of class c at station k, `q[c][k]` [count].
    pub q: Vec<Vec<f64>>,
}

/// Most population vectors the recursion walks: beyond this the exact solution is the wrong
/// tool (use [`super::schweitzer`]).
pub const MAX_VECTORS: usize = 10_000_000;

/// Exact MVA of a closed network of `kinds` (a queue of m servers by Seidmann's decomposition,
/// as [`super::exact_one_class`]) with `n[c]` customers of class c thinking `z[c]` [s];
/// `d[c][k]` is class c's demand at station k [s]. `None` when the population vectors number
/// more than [`MAX_VECTORS`].
pub fn exact_classes(
    kinds: &[Kind],
    d: &[Vec<f64>],
    n: &[u32],
    z: &[f64],
) -> Option<ClassSolution> {
    let (nc, ns) = (n.len(), kinds.len());
    // Mixed radix: vector index = Σ_c n_c · stride_c.
    let mut stride = vec![1usize; nc];
    let mut total = 1usize;
    for c in 0..nc {
        stride[c] = total;
        total = total.checked_mul(n[c] as usize + 1)?;
    }
    if total > MAX_VECTORS {
        return None;
    }
    // Total customers at each station for every vector solved so far.
    let mut q_at = vec![0.0; total * ns];
    let mut last = ClassSolution {
        x: vec![0.0; nc],
        r: vec![0.0; nc],
        q: vec![vec![0.0; ns]; nc],
    };
    let mut pop = vec![0u32; nc];
    for index in 1..total {
        // The next vector in mixed-radix order: every n − 1_c has a smaller index.
        for c in 0..nc {
            if pop[c] < n[c] {
                pop[c] += 1;
                break;
            }
            pop[c] = 0;
        }
        let mut q_here = vec![0.0; ns];
        for c in 0..nc {
            if pop[c] == 0 {
                last.x[c] = 0.0;
                last.r[c] = 0.0;
                last.q[c].iter_mut().for_each(|q| *q = 0.0);
                continue;
            }
            let before = (index - stride[c]) * ns;
            let rk: Vec<f64> = (0..ns)
                .map(|k| match kinds[k] {
                    Kind::Delay => d[c][k],
                    Kind::Queue { servers } => {
                        let m = f64::from(servers.max(1));
                        d[c][k] / m * (1.0 + q_at[before + k]) + d[c][k] * (m - 1.0) / m
                    }
                })
                .collect();
            let rt: f64 = rk.iter().sum();
            let x = f64::from(pop[c]) / (z[c] + rt);
            for k in 0..ns {
                last.q[c][k] = x * rk[k];
                q_here[k] += x * rk[k];
            }
            last.x[c] = x;
            last.r[c] = rt;
        }
        q_at[index * ns..(index + 1) * ns].copy_from_slice(&q_here);
    }
    Some(last)
}
