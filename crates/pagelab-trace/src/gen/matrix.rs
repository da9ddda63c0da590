//! Problem T1: inversion of a matrix of order n by Gaussian elimination with maximum pivot.
//!
//! Brawn & Gustavson 1968, "Problem T1 ... Matrix inversion": three FORTRAN IV versions invert a
//! matrix of order 100 in place by "a Gaussian procedure utilizing a maximum pivotal
//! condensation technique"; the innermost loop "traverses elements within a column".
//!
//! * **T1.1X** (casual): the matrix lives in a fixed-dimension array `A(150,150)`, stored column
//!   by column, so each column of the 100 × 100 matrix is 150 words apart; it is read and
//!   printed row by row.
//! * **T1.1X\*\***: the same with variable dimensions, so `A(N,N)` is exactly n × n words.
//! * **T1.1X\***: T1.1X\*\* reading and writing column by column.
//!
//! The routine [`Minv`] is in-place Gauss–Jordan elimination with complete pivoting, in the
//! shape of the IBM Scientific Subroutine Package's MINV (the standard FORTRAN routine of the
//! period, which the paper's "maximum pivotal condensation" describes) but with its reduction
//! loop turned so that the inner loop runs down a column, as the paper says. For pivot step k,
//! with p the largest |a(i,j)| over i, j ≥ k, found at (r, c):
//!
//! ```text
//!   swap rows k, r; swap columns k, c            (records L(k) = r, M(k) = c)
//!   a(i,k) ← −a(i,k)/p             i ≠ k
//!   a(i,j) ← a(i,j) + a(i,k)·a(k,j)   i ≠ k, j ≠ k   (j outer, i inner: down column j)
//!   a(k,j) ← a(k,j)/p              j ≠ k
//!   a(k,k) ← 1/p
//! ```
//!
//! After n steps the array holds (P·A·Q)⁻¹ for the row and column permutations P, Q made by the
//! swaps, and A⁻¹ = Q·(P·A·Q)⁻¹·P: for k = n−1 … 0, swap columns k and L(k) and rows k and M(k).
//! The sign convention (column divided by −p, row by +p) is SSP's; it composes to the plain
//! inverse because each step's sign flip of row and column k cancels across the two factors.
//!
//! Input (tape): the order n, then the n² elements in the version's order. Output (tape): the n²
//! elements of the inverse in the same order. The generated matrix has independent entries
//! uniform on (−1, 1).

use super::memory::{Array1, Mat, Stmt, TracedMemory};
use super::tape::Tape;
use super::ResultCheck;
use crate::TraceError;
use pagelab_core::Rng;
use rand::Rng as _;

/// Which of the three versions of T1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixVersion {
    /// T1.1X: fixed-dimension array, row-wise input and output.
    Casual,
    /// T1.1X**: variable dimensions, row-wise input and output.
    VariableDims,
    /// T1.1X*: variable dimensions, column-wise input and output.
    ColumnIo,
}

/// The inversion subroutine: its statements, scalars and where its pivot records live.
#[derive(Clone, Debug)]
pub struct Minv {
    k_init: Stmt,
    search: Stmt,
    new_max: Stmt,
    swap_head: Stmt,
    swap: Stmt,
    pivot_test: Stmt,
    skip_test: Stmt,
    col_div: Stmt,
    reduce_head: Stmt,
    reduce: Stmt,
    row_div: Stmt,
    diag: Stmt,
    biga: u64,
    hold: u64,
}

impl Minv {
    /// Lays out the subroutine's code and local scalars at the current allocation point.
    ///
    /// Statement sizes are estimated 7044 instruction counts, e.g. the inner reduction
    /// `A(I,J) = A(I,J) + A(I,K)*HOLD` with its index test and loop control is LDQ, FMP, FAD, STO,
    /// TXI, TXL plus a two-instruction `IF (I-K)` test: 8 words.
    pub fn place(mem: &mut TracedMemory) -> Result<Minv, TraceError> {
        mem.begin_segment("subroutine MINV");
        let m = Minv {
            k_init: mem.stmt(9)?,
            search: mem.stmt(7)?,
            new_max: mem.stmt(6)?,
            swap_head: mem.stmt(3)?,
            swap: mem.stmt(8)?,
            pivot_test: mem.stmt(2)?,
            skip_test: mem.stmt(2)?,
            col_div: mem.stmt(6)?,
            reduce_head: mem.stmt(5)?,
            reduce: mem.stmt(8)?,
            row_div: mem.stmt(6)?,
            diag: mem.stmt(4)?,
            biga: mem.scalar("BIGA")?,
            hold: mem.scalar("HOLD")?,
        };
        // The subroutine's return and prologue code.
        mem.stmt(12)?;
        Ok(m)
    }

    /// Inverts the n × n matrix held in `a` in place; `l` and `m` (length ≥ n) receive the pivot
    /// rows and columns. Returns the zero-based step at which the matrix proved singular.
    pub fn run(
        &self,
        mem: &mut TracedMemory,
        a: Mat,
        n: u64,
        l: Array1,
        m: Array1,
    ) -> Result<(), u64> {
        for k in 0..n {
            self.choose_pivot(mem, a, n, l, m, k)?;
            self.eliminate(mem, a, n, k);
        }
        // Undo the interchanges: A⁻¹ = Q · (PAQ)⁻¹ · P.
        for k in (0..n).rev() {
            mem.exec(self.swap_head);
            let r = mem.load_i(l.at(k)) as u64;
            if r > k {
                for i in 0..n {
                    self.swap_words(mem, a.at(i, k), a.at(i, r));
                }
            }
            mem.exec(self.swap_head);
            let c = mem.load_i(m.at(k)) as u64;
            if c > k {
                for j in 0..n {
                    self.swap_words(mem, a.at(k, j), a.at(c, j));
                }
            }
        }
        Ok(())
    }

    /// Step `k`: the largest remaining element becomes the pivot (its row and column in `l`
    /// and `m`), rows and columns interchanged to bring it to (k, k); `Err(k)` if it is 0.
    fn choose_pivot(
        &self,
        mem: &mut TracedMemory,
        a: Mat,
        n: u64,
        l: Array1,
        m: Array1,
        k: u64,
    ) -> Result<(), u64> {
        mem.exec(self.k_init);
        mem.store_i(l.at(k), k as i64);
        mem.store_i(m.at(k), k as i64);
        let v = mem.load_f(a.at(k, k));
        mem.store_f(self.biga, v);
        for j in k..n {
            for i in k..n {
                mem.exec(self.search);
                let big = mem.load_f(self.biga);
                let x = mem.load_f(a.at(i, j));
                if big.abs() < x.abs() {
                    mem.exec(self.new_max);
                    let x = mem.load_f(a.at(i, j));
                    mem.store_f(self.biga, x);
                    mem.store_i(l.at(k), i as i64);
                    mem.store_i(m.at(k), j as i64);
                }
            }
        }
        // Interchange rows k and L(k).
        mem.exec(self.swap_head);
        let r = mem.load_i(l.at(k)) as u64;
        if r > k {
            for j in 0..n {
                self.swap_words(mem, a.at(k, j), a.at(r, j));
            }
        }
        // Interchange columns k and M(k).
        mem.exec(self.swap_head);
        let c = mem.load_i(m.at(k)) as u64;
        if c > k {
            for i in 0..n {
                self.swap_words(mem, a.at(i, k), a.at(i, c));
            }
        }
        mem.exec(self.pivot_test);
        let p = mem.load_f(self.biga);
        if p == 0.0 {
            return Err(k);
        }
        Ok(())
    }

    /// Step `k` after its pivot: column k divided by minus the pivot, the rest reduced, row k
    /// divided by the pivot, the pivot replaced by its reciprocal.
    fn eliminate(&self, mem: &mut TracedMemory, a: Mat, n: u64, k: u64) {
        // Divide column k by minus the pivot.
        for i in 0..n {
            mem.exec(self.skip_test);
            if i != k {
                mem.exec(self.col_div);
                let x = mem.load_f(a.at(i, k));
                let p = mem.load_f(self.biga);
                mem.store_f(a.at(i, k), x / -p);
            }
        }
        // Reduce the matrix, column by column.
        for j in 0..n {
            mem.exec(self.skip_test);
            if j == k {
                continue;
            }
            mem.exec(self.reduce_head);
            let h = mem.load_f(a.at(k, j));
            mem.store_f(self.hold, h);
            for i in 0..n {
                mem.exec(self.skip_test);
                if i == k {
                    continue;
                }
                mem.exec(self.reduce);
                let aik = mem.load_f(a.at(i, k));
                let h = mem.load_f(self.hold);
                let aij = mem.load_f(a.at(i, j));
                mem.store_f(a.at(i, j), aij + aik * h);
            }
        }
        // Divide row k by the pivot.
        for j in 0..n {
            mem.exec(self.skip_test);
            if j != k {
                mem.exec(self.row_div);
                let x = mem.load_f(a.at(k, j));
                let p = mem.load_f(self.biga);
                mem.store_f(a.at(k, j), x / p);
            }
        }
        mem.exec(self.diag);
        let p = mem.load_f(self.biga);
        mem.store_f(a.at(k, k), 1.0 / p);
    }

    /// `HOLD = X; X = Y; Y = HOLD`.
    #[inline]
    fn swap_words(&self, mem: &mut TracedMemory, x: u64, y: u64) {
        mem.exec(self.swap);
        let vx = mem.load(x);
        mem.store(self.hold, vx);
        let vy = mem.load(y);
        mem.store(x, vy);
        let h = mem.load(self.hold);
        mem.store(y, h);
    }
}

/// Size parameters of T1.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MatrixParams {
    /// Order of the matrix inverted [elements] -- parameter. Source: B&G 1968, Problem T1 (100).
    pub n: u64,
    /// Declared dimension of T1.1X's fixed array `A(d,d)` [elements] -- parameter. Source: B&G
    /// 1968, Problem T1 ("to accommodate a matrix of up to order 150").
    pub fixed_dim: u64,
}

impl Default for MatrixParams {
    fn default() -> Self {
        MatrixParams {
            n: 100,
            fixed_dim: 150,
        }
    }
}

/// The declared first dimension of A for `version`, once the order and the input are checked.
fn leading_dim(version: MatrixVersion, p: &MatrixParams, input: &[f64]) -> Result<u64, TraceError> {
    let n = p.n;
    if n == 0 {
        return Err(TraceError::invalid(
            "matrix.n: expected an order of at least 1",
        ));
    }
    if input.len() as u64 != n * n {
        return Err(TraceError::invalid(format!(
            "matrix input: expected {} elements, got {}",
            n * n,
            input.len()
        )));
    }
    Ok(match version {
        MatrixVersion::Casual => {
            if p.fixed_dim < n {
                return Err(TraceError::invalid(format!(
                    "matrix.fixed_dim: expected at least the order n = {n}, got {}",
                    p.fixed_dim
                )));
            }
            p.fixed_dim
        }
        MatrixVersion::VariableDims | MatrixVersion::ColumnIo => n,
    })
}

/// Runs one version of T1 on the matrix `input` (n × n, row-major in the slice) and returns the
/// inverse as written to the output tape (row-major) together with the result check.
pub(crate) fn run_program(
    mem: &mut TracedMemory,
    version: MatrixVersion,
    p: &MatrixParams,
    buffer_words: u64,
    input: &[f64],
) -> Result<(Vec<f64>, ResultCheck), TraceError> {
    let n = p.n;
    let ld = leading_dim(version, p, input)?;
    let by_columns = version == MatrixVersion::ColumnIo;

    mem.begin_segment("main program");
    let s_read_n = mem.stmt(4)?;
    let s_item = mem.stmt(3)?;
    let s_call = mem.stmt(7)?;
    let s_stop = mem.stmt(3)?;
    let n_addr = mem.scalar("N")?;
    mem.begin_segment("array A");
    let a = mem.mat("array A", ld, ld)?;
    mem.begin_segment("arrays L, M");
    let l = mem.array1("array L", ld)?;
    let m = mem.array1("array M", ld)?;
    let minv = Minv::place(mem)?;
    let mut tape = place_io(mem, buffer_words, input_words(n, input, by_columns))?;

    // READ N, then the elements in the version's order.
    mem.exec(s_read_n);
    tape.read_into(mem, n_addr);
    let n_read = mem.load_i(n_addr) as u64;
    for (i, j) in order(n_read, by_columns) {
        mem.exec(s_item);
        tape.read_into(mem, a.at(i, j));
    }
    mem.exec(s_call);
    if let Err(k) = minv.run(mem, a, n_read, l, m) {
        return Err(TraceError::invalid(format!(
            "matrix input: singular at pivot step {}",
            k + 1
        )));
    }
    tape.rewind_for_output();
    for (i, j) in order(n_read, by_columns) {
        mem.exec(s_item);
        tape.write_from(mem, a.at(i, j));
    }
    tape.flush(mem);
    mem.exec(s_stop);

    let mut inv = vec![0.0; (n * n) as usize];
    for ((i, j), w) in order(n, by_columns).zip(tape.output()) {
        inv[(i * n + j) as usize] = f64::from_bits(*w);
    }
    let check = ResultCheck::new(
        "max |A·A⁻¹ − I| of the inverse written",
        max_residual(n as usize, input, &inv),
        1e-8,
    );
    Ok((inv, check))
}

/// Places the FORTRAN I/O library and the tape buffer.
pub(crate) fn place_io(
    mem: &mut TracedMemory,
    buffer_words: u64,
    input: Vec<u64>,
) -> Result<Tape, TraceError> {
    mem.begin_segment("FORTRAN I/O library");
    // One list item: fetch the buffer word, store the variable, count, test: about 12
    // instructions of the library's binary-I/O item routine; a block: about 20 to start the
    // channel and wait.
    let item = mem.stmt(12)?;
    let block = mem.stmt(20)?;
    mem.begin_segment("tape buffer");
    let buffer = mem.array1("tape buffer", buffer_words)?;
    // The program's code is placed: the job starts (the loader brings the code in).
    super::runtime::start_job(mem);
    Ok(Tape::new(buffer, item, block, input))
}

fn order(n: u64, by_columns: bool) -> impl Iterator<Item = (u64, u64)> {
    (0..n * n).map(move |q| {
        if by_columns {
            (q % n, q / n)
        } else {
            (q / n, q % n)
        }
    })
}

fn input_words(n: u64, a: &[f64], by_columns: bool) -> Vec<u64> {
    let mut w = Vec::with_capacity(a.len() + 1);
    w.push(n);
    w.extend(order(n, by_columns).map(|(i, j)| a[(i * n + j) as usize].to_bits()));
    w
}

/// max over i, j of |Σ_k a(i,k)·x(k,j) − δ(i,j)|, both row-major.
pub(crate) fn max_residual(n: usize, a: &[f64], x: &[f64]) -> f64 {
    let mut worst: f64 = 0.0;
    for i in 0..n {
        for j in 0..n {
            let s: f64 = (0..n).map(|k| a[i * n + k] * x[k * n + j]).sum();
            let e = (s - if i == j { 1.0 } else { 0.0 }).abs();
            worst = worst.max(if e.is_nan() { f64::INFINITY } else { e });
        }
    }
    worst
}

/// The seeded input matrix (row-major), entries uniform on (−1, 1).
pub(crate) fn input_matrix(n: u64, rng: &mut Rng) -> Vec<f64> {
    (0..n * n).map(|_| rng.gen_range(-1.0..1.0)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AccessKind, Run};

    /// tridiag(1, 2, 1) of order 4 and its inverse, worked by hand: det = 5 and
    /// A⁻¹ = (1/5)·[[4,−3,2,−1],[−3,6,−4,2],[2,−4,6,−3],[−1,2,−3,4]].
    const A: [f64; 16] = [
        2., 1., 0., 0., 1., 2., 1., 0., 0., 1., 2., 1., 0., 0., 1., 2.,
    ];
    const INV5: [f64; 16] = [
        4., -3., 2., -1., -3., 6., -4., 2., 2., -4., 6., -3., -1., 2., -3., 4.,
    ];

    fn params() -> MatrixParams {
        MatrixParams { n: 4, fixed_dim: 6 }
    }

    fn invert(version: MatrixVersion, a: &[f64]) -> (Vec<f64>, ResultCheck, TracedMemory) {
        let mut mem = TracedMemory::new(16, 1 << 12).unwrap();
        let (inv, check) = run_program(&mut mem, version, &params(), 4, a).unwrap();
        (inv, check, mem)
    }

    #[test]
    fn inverts_the_4x4_known_case_in_every_version() {
        for v in [
            MatrixVersion::Casual,
            MatrixVersion::VariableDims,
            MatrixVersion::ColumnIo,
        ] {
            let (inv, check, _) = invert(v, &A);
            for (x, e) in inv.iter().zip(INV5) {
                assert!((x - e / 5.0).abs() < 1e-14, "{v:?}: {inv:?}");
            }
            assert!(check.passed && check.value < 1e-14);
        }
    }

    #[test]
    fn pivoting_handles_a_zero_diagonal() {
        // Rows of A in the order 3, 0, 1, 2: a zero in (0,0) forces interchanges, and the
        // inverse's column i is column σ(i) of A⁻¹.
        let sigma = [3usize, 0, 1, 2];
        let mut pa = [0.0; 16];
        for i in 0..4 {
            pa[i * 4..i * 4 + 4].copy_from_slice(&A[sigma[i] * 4..sigma[i] * 4 + 4]);
        }
        let (inv, check, _) = invert(MatrixVersion::VariableDims, &pa);
        for r in 0..4 {
            for i in 0..4 {
                assert!((inv[r * 4 + i] - INV5[r * 4 + sigma[i]] / 5.0).abs() < 1e-14);
            }
        }
        assert!(check.passed);
    }

    #[test]
    fn singular_matrix_is_an_error() {
        let mut mem = TracedMemory::new(16, 1 << 12).unwrap();
        let z = [1.0, 2.0, 2.0, 4.0];
        let p = MatrixParams { n: 2, fixed_dim: 2 };
        let e = run_program(&mut mem, MatrixVersion::Casual, &p, 4, &z).unwrap_err();
        assert!(e.to_string().contains("singular at pivot step 2"), "{e}");
    }

    #[test]
    fn start_of_the_4x4_reference_string() {
        // T1.1X**, 16-word pages, 4-word tape buffer. Layout worked out from the statement
        // sizes: main program 0..17 (READ N at 0..3, list item at 4..6), N at 17, A(4,4) at
        // 18..33 (A(i,j) at 18 + i + 4j), L, M at 34..41, MINV 42..121, I/O library item at
        // 122..133 and block at 134..153, buffer at 154..157. Virtual pages: main 0, A and N 1,
        // library item 7 and 8, block 8 and 9, buffer 9. Dense numbers in order of first use:
        // vp0 → 0, vp8 → 1, vp9 → 2, vp7 → 3, vp1 → 4.
        let (_, _, mem) = invert(MatrixVersion::VariableDims, &A);
        let (i, l, s) = (AccessKind::Instr, AccessKind::Load, AccessKind::Store);
        let item = [
            Run::new(3, 6, i),
            Run::new(1, 6, i),
            Run::new(2, 1, l),
            Run::new(4, 1, s),
        ];
        let block = [Run::new(1, 10, i), Run::new(2, 10, i), Run::new(2, 4, s)];
        let mut want = vec![Run::new(0, 4, i)]; // READ N
        want.extend(block); // the channel fills the buffer: N, A(1,1), A(1,2), A(1,3)
        want.extend(item); // N from the buffer
        want.push(Run::new(4, 1, l)); // the main program picks up N
        for _ in 0..3 {
            want.push(Run::new(0, 3, i)); // list item of the implied DO
            want.extend(item); // A(1,1), A(1,2), A(1,3): row-wise, all in page 1
        }
        want.push(Run::new(0, 3, i));
        want.extend(block); // A(1,4), A(2,1), A(2,2), A(2,3)
        want.extend(item);
        assert_eq!(&mem.runs()[..want.len()], &want[..]);
        assert_eq!(&mem.page_map()[..5], &[0, 8, 9, 7, 1]);
    }

    #[test]
    fn input_stores_follow_each_versions_layout_and_order() {
        // With one-word pages the page map gives word addresses. A starts at word 18; the first
        // 16 stores into A are the READ list.
        let first_stores = |v: MatrixVersion| -> Vec<u64> {
            let mut mem = TracedMemory::new(1, 1 << 12).unwrap();
            run_program(&mut mem, v, &params(), 4, &A).unwrap();
            let map = mem.page_map().to_vec();
            let end = if v == MatrixVersion::Casual {
                18 + 36
            } else {
                18 + 16
            };
            mem.runs()
                .iter()
                .filter(|r| r.kind == crate::AccessKind::Store)
                .map(|r| map[r.page as usize])
                .filter(|&w| (18..end).contains(&w))
                .take(16)
                .collect()
        };
        let rowwise =
            |ld: u64| -> Vec<u64> { (0..16).map(|q| 18 + q / 4 + (q % 4) * ld).collect() };
        assert_eq!(first_stores(MatrixVersion::Casual), rowwise(6));
        assert_eq!(first_stores(MatrixVersion::VariableDims), rowwise(4));
        assert_eq!(
            first_stores(MatrixVersion::ColumnIo),
            (18..34).collect::<Vec<_>>()
        );
    }
}
