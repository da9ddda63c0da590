//! Problem T4: sorting a file of ten-word items with Quicksort.
//!
//! Brawn & Gustavson 1968, "Problem T4 ... Sorting": the file (10,000 items of 10 words, 100 pages)
//! is read into the virtual store, sorted in core with Quicksort (Hoare 1962) and written out.
//! Four versions differ only in what the sort moves and in what order the file is touched:
//!
//! * **T4.1XQ** (casual): reads the whole file, sorts a table of record pointers by the records'
//!   keys (a *non-detached keysort*: every comparison reaches into the record through its
//!   pointer), then writes the records in pointer order. References are random and global both
//!   while sorting and while writing.
//! * **T4.1XQ\***: the file is N sublists (N = 10); each is read, then keysorted alone. An N-way
//!   merge through the pointer tables writes the output, still touching records at random.
//! * **T4.1XQR**: T4.1XQ with a *record sort*: the exchanges move whole records, so each
//!   partition works on a contiguous stretch of the file and the output is a sequential pass.
//! * **T4.1XQR\***: both changes: N record-sorted sublists, then an N-way merge that reads each
//!   sublist sequentially (working set ≈ N pages plus instruction and control pages).
//!
//! ```text
//!   FILE(10, 10000): record r at FILE + 10·r, key in word 0      PTR(10000): offset of a record
//!   keysort compare:   V < FILE(PTR(I))       record sort compare:  V < FILE(1, I)
//! ```
//!
//! Quicksort is the partition-exchange procedure of Hoare's paper with the middle element as
//! bound and an explicit stack of subfiles (FORTRAN IV has no recursion): the larger part is
//! stacked and the smaller sorted next, so the stack holds at most log₂ n entries. Hoare chose
//! the bound at random; the middle element is the common FORTRAN choice and gives the same
//! expected behaviour on random keys. The merge finds the smallest head key by a linear scan of
//! the N heads, the simple way for N = 10. Keys are uniform random integers below 2³⁵ (a positive
//! 36-bit fixed-point word); word 1 of each record is its serial number, the rest are random
//! data, so a sorted output can be checked to be a permutation of the input.

use super::memory::{Array1, Stmt, TracedMemory};
use super::tape::Tape;
use super::ResultCheck;
use crate::TraceError;
use pagelab_core::Rng;
use rand::Rng as _;

/// Which of the four versions of T4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortVersion {
    /// T4.1XQ: keysort of the whole file.
    KeySort,
    /// T4.1XQ*: keysort of N sublists, then an N-way merge.
    KeySortSublists,
    /// T4.1XQR: record sort of the whole file.
    RecordSort,
    /// T4.1XQR*: record sort of N sublists, then an N-way merge.
    RecordSortSublists,
}

impl SortVersion {
    fn moves_records(self) -> bool {
        matches!(
            self,
            SortVersion::RecordSort | SortVersion::RecordSortSublists
        )
    }
    fn sublists(self) -> bool {
        matches!(
            self,
            SortVersion::KeySortSublists | SortVersion::RecordSortSublists
        )
    }
}

/// Size parameters of T4.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SortParams {
    /// Items in the file [records] -- parameter. Source: B&G 1968, Problem T4 (10,000).
    pub items: u64,
    /// Words per item, the key being the first [words] -- parameter. Source: B&G 1968 (10).
    pub record_words: u64,
    /// Sublists of the starred versions (N) [sublists] -- parameter. Source: B&G 1968 (10).
    pub sublists: u64,
    /// The record sorts keep T4.1XQ's pointer table and reach records through it (the pointers
    /// stay in file order; the exchanges move the records they point to) -- parameter, default
    /// `false`. B&G 1968, Problem T4, say T4.1XQR "is the same as T4.1XQ except that a record
    /// sort is performed" and that "none of these changes altered the total number of pages
    /// referenced", which suggests the table stayed; but they also give T4.1XQR\*'s merge a
    /// working set of "N pages plus instruction and control pages—approximately 13", which
    /// leaves no room for N pages of pointers. We follow the working-set statement: by default
    /// records are addressed directly and the record sorts have no pointer table (ten pages
    /// fewer than the keysorts).
    pub record_sort_through_pointers: bool,
}

impl Default for SortParams {
    fn default() -> Self {
        SortParams {
            items: 10_000,
            record_words: 10,
            sublists: 10,
            record_sort_through_pointers: false,
        }
    }
}

impl SortParams {
    pub(crate) fn validate(&self) -> Result<(), TraceError> {
        if self.items == 0 {
            return Err(TraceError::invalid("sort.items: expected at least 1 item"));
        }
        if self.record_words < 2 {
            return Err(TraceError::invalid(format!(
                "sort.record_words: expected at least 2 words (key and serial number), got {}",
                self.record_words
            )));
        }
        if self.sublists == 0 || self.sublists > self.items {
            return Err(TraceError::invalid(format!(
                "sort.sublists: expected 1 to sort.items = {}, got {}",
                self.items, self.sublists
            )));
        }
        Ok(())
    }
}

/// Largest key + 1: keys are positive 36-bit fixed-point words.
const KEY_LIMIT: i64 = 1 << 35;

/// The seeded input file: `items` records of `record_words` words (key, serial, data ...).
pub(crate) fn input_file(p: &SortParams, rng: &mut Rng) -> Vec<u64> {
    let mut w = Vec::with_capacity((p.items * p.record_words) as usize);
    for r in 0..p.items {
        w.push(rng.gen_range(0..KEY_LIMIT) as u64);
        w.push(r);
        for _ in 2..p.record_words {
            w.push(rng.gen_range(0..KEY_LIMIT) as u64);
        }
    }
    w
}

/// The program's code, scalars and arrays.
struct Layout {
    read_item: Stmt,
    ptr_init: Stmt,
    call: Stmt,
    pop: Stmt,
    push: Stmt,
    bound: Stmt,
    scan: Stmt,
    exch_test: Stmt,
    exch_word: Stmt,
    merge_scan: Stmt,
    merge_take: Stmt,
    out_head: Stmt,
    write_item: Stmt,
    v: u64,
    best_key: u64,
    stack: Array1,
    heads: Array1,
    ends: Array1,
    ptr: Option<Array1>,
    file: Array1,
    moves_records: bool,
}

/// Quicksort's stack entries: enough for a file of 2^63 items sorted smaller-part-first.
const STACK_ENTRIES: u64 = 64;

/// Places the main program's statements and data, the pointer table (when keys are reached
/// through it) and the file, in that order.
fn place_program(
    mem: &mut TracedMemory,
    version: SortVersion,
    p: &SortParams,
    nsub: u64,
) -> Result<Layout, TraceError> {
    let rw = p.record_words;
    // One more instruction where a key is reached through PTR.
    let via_ptr = u32::from(!version.moves_records() || p.record_sort_through_pointers);
    mem.begin_segment("main program");
    let lay = Layout {
        read_item: mem.stmt(4)?,
        ptr_init: mem.stmt(5)?,
        call: mem.stmt(6)?,
        pop: mem.stmt(8)?,
        push: mem.stmt(8)?,
        bound: mem.stmt(7)?,
        scan: mem.stmt(6 + via_ptr)?,
        exch_test: mem.stmt(3)?,
        exch_word: mem.stmt(if version.moves_records() { 6 } else { 7 })?,
        merge_scan: mem.stmt(9 + via_ptr)?,
        merge_take: mem.stmt(6)?,
        out_head: mem.stmt(4)?,
        write_item: mem.stmt(4)?,
        v: mem.scalar("V")?,
        best_key: mem.scalar("KBEST")?,
        stack: mem.array1("quicksort stack", 2 * STACK_ENTRIES)?,
        heads: mem.array1("merge heads", nsub)?,
        ends: mem.array1("merge ends", nsub)?,
        ptr: None,
        file: Array1 { base: 0, len: 0 },
        moves_records: version.moves_records(),
    };
    let mut lay = lay;
    if via_ptr == 1 {
        mem.begin_segment("pointer table PTR");
        lay.ptr = Some(mem.array1("pointer table PTR", p.items)?);
    }
    mem.begin_segment("file FILE");
    lay.file = mem.array1("file FILE", p.items * rw)?;
    Ok(lay)
}

/// Runs one version of T4 on `input` (records of `p.record_words` words) and returns the output
/// tape together with the result check.
pub(crate) fn run_program(
    mem: &mut TracedMemory,
    version: SortVersion,
    p: &SortParams,
    buffer_words: u64,
    input: &[u64],
) -> Result<(Vec<u64>, ResultCheck), TraceError> {
    p.validate()?;
    let rw = p.record_words;
    if input.len() as u64 != p.items * rw {
        return Err(TraceError::invalid(format!(
            "sort input: expected {} words, got {}",
            p.items * rw,
            input.len()
        )));
    }
    let nsub = if version.sublists() { p.sublists } else { 1 };
    let lay = place_program(mem, version, p, nsub)?;
    let mut tape = super::matrix::place_io(mem, buffer_words, input.to_vec())?;

    // Sublist s holds items [s·m, min((s+1)·m, items)).
    let m = p.items.div_ceil(nsub);
    let bounds: Vec<(u64, u64)> = (0..nsub)
        .map(|s| (s * m, ((s + 1) * m).min(p.items)))
        .filter(|b| b.0 < b.1)
        .collect();
    for &(lo, hi) in &bounds {
        for w in lo * rw..hi * rw {
            mem.exec(lay.read_item);
            tape.read_into(mem, lay.file.at(w));
        }
        if let Some(ptr) = lay.ptr {
            for r in lo..hi {
                mem.exec(lay.ptr_init);
                mem.store_i(ptr.at(r), (r * rw) as i64);
            }
        }
        mem.exec(lay.call);
        quicksort(mem, &lay, rw, lo, hi - 1);
    }

    tape.rewind_for_output();
    if bounds.len() == 1 {
        for r in 0..p.items {
            mem.exec(lay.out_head);
            let off = record_offset(mem, &lay, rw, r);
            write_record(mem, &lay, &mut tape, off, rw);
        }
    } else {
        merge(mem, &lay, &mut tape, rw, &bounds);
    }
    tape.flush(mem);

    let out = tape.output().to_vec();
    let check = ResultCheck::new(
        "keys out of order plus records not matching the input (0 = sorted permutation)",
        sort_defects(input, &out, rw as usize) as f64,
        0.0,
    );
    Ok((out, check))
}

/// Word offset in FILE of the record in sort position `idx` (through PTR for a keysort).
#[inline]
fn record_offset(mem: &mut TracedMemory, lay: &Layout, rw: u64, idx: u64) -> u64 {
    match lay.ptr {
        Some(ptr) => mem.load_i(ptr.at(idx)) as u64,
        None => idx * rw,
    }
}

#[inline]
fn key_at(mem: &mut TracedMemory, lay: &Layout, rw: u64, idx: u64) -> i64 {
    let off = record_offset(mem, lay, rw, idx);
    mem.load_i(lay.file.at(off))
}

fn write_record(mem: &mut TracedMemory, lay: &Layout, tape: &mut Tape, off: u64, rw: u64) {
    for w in 0..rw {
        mem.exec(lay.write_item);
        tape.write_from(mem, lay.file.at(off + w));
    }
}

/// Exchanges the items in sort positions `a` and `b`: two whole records (record sort), or two
/// pointers (keysort).
fn exchange(mem: &mut TracedMemory, lay: &Layout, rw: u64, a: u64, b: u64) {
    match (lay.moves_records, lay.ptr) {
        (false, Some(ptr)) => {
            mem.exec(lay.exch_word);
            let x = mem.load(ptr.at(a));
            let y = mem.load(ptr.at(b));
            mem.store(ptr.at(a), y);
            mem.store(ptr.at(b), x);
        }
        _ => {
            let oa = record_offset(mem, lay, rw, a);
            let ob = record_offset(mem, lay, rw, b);
            for w in 0..rw {
                mem.exec(lay.exch_word);
                let x = mem.load(lay.file.at(oa + w));
                let y = mem.load(lay.file.at(ob + w));
                mem.store(lay.file.at(oa + w), y);
                mem.store(lay.file.at(ob + w), x);
            }
        }
    }
}

/// Sorts sort positions `lo..=hi` by key.
fn quicksort(mem: &mut TracedMemory, lay: &Layout, rw: u64, lo: u64, hi: u64) {
    let mut depth = 0u64;
    let push = |mem: &mut TracedMemory, depth: &mut u64, lo: u64, hi: u64| {
        mem.exec(lay.push);
        mem.store_i(lay.stack.at(2 * *depth), lo as i64);
        mem.store_i(lay.stack.at(2 * *depth + 1), hi as i64);
        *depth += 1;
    };
    push(mem, &mut depth, lo, hi);
    while depth > 0 {
        mem.exec(lay.pop);
        depth -= 1;
        let mut lo = mem.load_i(lay.stack.at(2 * depth)) as u64;
        let mut hi = mem.load_i(lay.stack.at(2 * depth + 1)) as u64;
        while lo < hi {
            mem.exec(lay.bound);
            let v = key_at(mem, lay, rw, lo + (hi - lo) / 2);
            mem.store_i(lay.v, v);
            // Indices run one past the ends (i up to hi + 1, j down to lo − 1); signed to allow it.
            let (mut i, mut j) = (lo as i64, hi as i64);
            loop {
                loop {
                    mem.exec(lay.scan);
                    let k = key_at(mem, lay, rw, i as u64);
                    if k >= mem.load_i(lay.v) {
                        break;
                    }
                    i += 1;
                }
                loop {
                    mem.exec(lay.scan);
                    let k = key_at(mem, lay, rw, j as u64);
                    if mem.load_i(lay.v) >= k {
                        break;
                    }
                    j -= 1;
                }
                mem.exec(lay.exch_test);
                if i <= j {
                    if i < j {
                        exchange(mem, lay, rw, i as u64, j as u64);
                    }
                    i += 1;
                    j -= 1;
                }
                if i > j {
                    break;
                }
            }
            // Now lo..=j and i..=hi remain; stack the larger, continue with the smaller.
            let (i, j) = (i as u64, j);
            let left = if j >= lo as i64 {
                Some((lo, j as u64))
            } else {
                None
            };
            let right = if i < hi { Some((i, hi)) } else { None };
            match (left, right) {
                (Some(l), Some(r)) => {
                    let (big, small) = if l.1 - l.0 > r.1 - r.0 {
                        (l, r)
                    } else {
                        (r, l)
                    };
                    push(mem, &mut depth, big.0, big.1);
                    (lo, hi) = small;
                }
                (Some(s), None) | (None, Some(s)) => (lo, hi) = s,
                (None, None) => break,
            }
        }
    }
}

/// N-way merge of the sorted sublists `bounds`, writing records in key order.
fn merge(mem: &mut TracedMemory, lay: &Layout, tape: &mut Tape, rw: u64, bounds: &[(u64, u64)]) {
    for (s, &(lo, hi)) in bounds.iter().enumerate() {
        mem.exec(lay.merge_take);
        mem.store_i(lay.heads.at(s as u64), lo as i64);
        mem.store_i(lay.ends.at(s as u64), hi as i64);
    }
    let total: u64 = bounds.iter().map(|b| b.1 - b.0).sum();
    for _ in 0..total {
        let mut best: Option<(usize, i64)> = None;
        for s in 0..bounds.len() {
            mem.exec(lay.merge_scan);
            let h = mem.load_i(lay.heads.at(s as u64));
            let e = mem.load_i(lay.ends.at(s as u64));
            if h >= e {
                continue;
            }
            let k = key_at(mem, lay, rw, h as u64);
            let better = match best {
                None => true,
                Some(_) => k < mem.load_i(lay.best_key),
            };
            if better {
                mem.store_i(lay.best_key, k);
                best = Some((s, k));
            }
        }
        let (s, _) = best.expect("a sublist has items left while output is incomplete");
        mem.exec(lay.merge_take);
        let h = mem.load_i(lay.heads.at(s as u64));
        mem.store_i(lay.heads.at(s as u64), h + 1);
        mem.exec(lay.out_head);
        let off = record_offset(mem, lay, rw, h as u64);
        write_record(mem, lay, tape, off, rw);
    }
}

/// Adjacent output pairs with decreasing keys, plus records of the output that do not match the
/// input multiset (0 for a sorted permutation).
pub(crate) fn sort_defects(input: &[u64], output: &[u64], rw: usize) -> u64 {
    let recs = |w: &[u64]| -> Vec<Vec<u64>> {
        let mut v: Vec<Vec<u64>> = w.chunks(rw).map(|c| c.to_vec()).collect();
        v.sort();
        v
    };
    let out_keys: Vec<u64> = output.chunks(rw).map(|c| c[0]).collect();
    let disorder = out_keys.windows(2).filter(|w| w[0] > w[1]).count() as u64;
    let (a, b) = (recs(input), recs(output));
    let mismatched = a.iter().zip(&b).filter(|(x, y)| x != y).count() as u64
        + (a.len() as i64 - b.len() as i64).unsigned_abs();
    disorder + mismatched
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AccessKind;

    const ALL: [SortVersion; 4] = [
        SortVersion::KeySort,
        SortVersion::KeySortSublists,
        SortVersion::RecordSort,
        SortVersion::RecordSortSublists,
    ];

    #[test]
    fn sorts_a_hand_made_file_in_every_version() {
        // Keys 5 3 9 1 3 7 with serials 0..5; ties (the two 3s) may come out either way.
        let keys = [5u64, 3, 9, 1, 3, 7];
        let input: Vec<u64> = keys
            .iter()
            .enumerate()
            .flat_map(|(i, &k)| [k, i as u64])
            .collect();
        for through in [true, false] {
            let p = SortParams {
                items: 6,
                record_words: 2,
                sublists: 2,
                record_sort_through_pointers: through,
            };
            for v in ALL {
                let mut mem = TracedMemory::new(8, 1 << 12).unwrap();
                let (out, check) = run_program(&mut mem, v, &p, 4, &input).unwrap();
                let got: Vec<u64> = out.chunks(2).map(|c| c[0]).collect();
                assert_eq!(got, vec![1, 3, 3, 5, 7, 9], "{v:?}");
                let serials: Vec<u64> = out.chunks(2).map(|c| c[1]).collect();
                assert_eq!(serials[0], 3);
                assert_eq!(&serials[3..], &[0, 5, 2]);
                assert!(check.passed && check.value == 0.0);
            }
        }
    }

    #[test]
    fn the_check_catches_disorder_and_lost_records() {
        let input = [2, 0, 1, 1];
        assert_eq!(sort_defects(&input, &[1, 1, 2, 0], 2), 0);
        assert_eq!(sort_defects(&input, &[2, 0, 1, 1], 2), 1);
        assert_eq!(sort_defects(&input, &[1, 1, 2, 5], 2), 1);
        assert_eq!(sort_defects(&input, &[1, 1], 2), 1);
    }

    #[test]
    fn record_sort_writes_the_file_sequentially_and_keysort_does_not() {
        // Page-of-file sequence of the loads the output phase makes (the last items·rw FILE
        // loads): nondecreasing for the record sort, scattered for the keysort.
        let p = SortParams {
            items: 400,
            record_words: 4,
            sublists: 4,
            ..SortParams::default()
        };
        let mut rng = pagelab_core::RngStreams::new(5).stream("t", 0);
        let input = input_file(&p, &mut rng);
        let out_pages = |v: SortVersion| -> Vec<u64> {
            let mut mem = TracedMemory::new(16, 1 << 14).unwrap();
            run_program(&mut mem, v, &p, 8, &input).unwrap();
            // Pages lying wholly inside FILE (a shared boundary page would mix in other data).
            let map = mem.page_map().to_vec();
            let (_, _, _, segs) = mem.clone().finish();
            let f = segs.iter().find(|s| s.name == "file FILE").unwrap().clone();
            let file_pages = |vp: u64| vp * 16 >= f.base && (vp + 1) * 16 <= f.base + f.words;
            let loads: Vec<u64> = mem
                .runs()
                .iter()
                .filter(|r| r.kind == AccessKind::Load)
                .map(|r| map[r.page as usize])
                .filter(|&vp| file_pages(vp))
                .collect();
            loads[loads.len() - 100..].to_vec()
        };
        let rec = out_pages(SortVersion::RecordSort);
        assert!(rec.windows(2).all(|w| w[0] <= w[1]), "{rec:?}");
        let key = out_pages(SortVersion::KeySort);
        assert!(
            key.windows(2).filter(|w| w[0] > w[1]).count() > 10,
            "{key:?}"
        );
    }
}
