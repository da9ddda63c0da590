//! The 44X Operating System and the job's run-time: the pages every program touched besides its
//! own code and data.
//!
//! Brawn & Gustavson 1968, "The virtual machine": each 44X runs the 44X Operating System, "a 44X
//! program which permits continuous processing of a stack of 44X jobs; it contains a command
//! language, debugging facilities, a FORTRAN IV compiler, an assembly program, a relocatable and
//! absolute loader facility, routines for handling a user's permanent disk files and a
//! subroutine library". It is a 44X program, so it lives in the job's own virtual store and its
//! pages are the job's pages. "Measurement techniques": the programs "were run in binary object
//! form as background jobs residing on a system input tape; all output was written on tape".
//!
//! ```text
//!  word 0 ─┬─ nucleus: I/O supervisor and its control table   entered at every tape block
//!          ├─ job pages: command language, relocatable loader,  executed when the job starts
//!          │  loader tables, run-time initialisation            (and the first again at its end)
//!          └─ the program (page-aligned above the OS)           stored into by the loader
//! ```
//!
//! The reference pattern: when the job starts, the command language and the loader execute
//! through the job pages and the loader stores every word of the program's code (main program,
//! subroutines, library routines) into place, one binary card at a time; during the run every
//! tape block passes through the nucleus (the I/O supervisor's code and a store into its control
//! table) before MOS takes the I/O over; at the end control returns to the command language.
//!
//! Size: B&G, "The effects of real size": the sorts were jobs "each requiring 129 pages", and
//! "None of these changes altered the total number of pages referenced" (Problem T4). The sort's
//! file, pointer table, code and control pages make 99 (record sorts) to 108 (keysorts) pages
//! here; the rest is this run-time. `job_pages` is therefore an input taken from that statement
//! (24: 124 and 133 pages, the four versions' mean 128.5), not fitted to any curve; the split
//! into nucleus and job pages is our choice [A].

use super::memory::{Os, Stmt, TracedMemory};
use crate::TraceError;

/// The run-time's sizes and costs.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RuntimeParams {
    /// Model the OS and run-time pages at all -- parameter (false: the program alone).
    pub enabled: bool,
    /// Pages of the OS nucleus entered at every tape block [pages] -- parameter [A].
    pub nucleus_pages: u64,
    /// Pages executed only when the job starts (command language, loader, its tables, the
    /// run-time's initialisation) [pages] -- input: B&G's 129 pages per sort, see above.
    pub job_pages: u64,
    /// Instructions executed in each job page when the job starts [words] -- parameter [A].
    pub job_words_per_page: u32,
    /// Words of code the loader stores per loader step (one binary card) [words] -- parameter
    /// [A]: 22, the data words of a 709x relocatable binary card.
    pub loader_words_per_card: u32,
    /// Instructions of the I/O supervisor per tape block [words] -- parameter [A].
    pub supervisor_words: u32,
}

impl Default for RuntimeParams {
    fn default() -> Self {
        RuntimeParams {
            enabled: true,
            nucleus_pages: 1,
            job_pages: 24,
            job_words_per_page: 256,
            loader_words_per_card: 22,
            supervisor_words: 30,
        }
    }
}

impl RuntimeParams {
    pub(crate) fn validate(&self) -> Result<(), TraceError> {
        if !self.enabled {
            return Ok(());
        }
        if self.nucleus_pages == 0 || self.job_pages == 0 {
            return Err(TraceError::invalid(
                "runtime.nucleus_pages / job_pages: expected at least 1 page each",
            ));
        }
        if self.loader_words_per_card == 0 || self.supervisor_words == 0 {
            return Err(TraceError::invalid(
                "runtime.loader_words_per_card / supervisor_words: expected at least 1 word",
            ));
        }
        Ok(())
    }
}

/// Segment names whose words the loader stores (code, not data).
const CODE: [&str; 4] = [
    "main program",
    "subroutine",
    "FORTRAN I/O library",
    "mathematical library",
];

/// Places the OS at the bottom of an empty store and installs it in `mem`; the program that
/// follows starts on a page boundary. A disabled run-time places nothing.
pub fn place(mem: &mut TracedMemory, p: &RuntimeParams) -> Result<(), TraceError> {
    p.validate()?;
    if !p.enabled {
        return Ok(());
    }
    let pw = u64::from(mem.page_words());
    let words = |pages: u64| {
        pages
            .checked_mul(pw)
            .ok_or_else(|| TraceError::invalid("runtime: page counts overflow"))
    };
    let job_words = p.job_words_per_page.min(pw as u32).max(1);
    mem.begin_segment("44X OS nucleus");
    let base = mem.alloc("44X OS nucleus", words(p.nucleus_pages)?)?;
    let supervisor = Stmt {
        addr: base,
        words: p.supervisor_words.min(pw as u32),
    };
    let io_table = base + words(p.nucleus_pages)? - 1;
    mem.begin_segment("44X OS job pages (command language, loader)");
    let job_base = mem.alloc("44X OS job pages", words(p.job_pages)?)?;
    // The loader's card loop sits in the last job page, after the executed stretch.
    let loader = Stmt {
        addr: job_base + (p.job_pages - 1) * pw + u64::from(job_words).min(pw.saturating_sub(8)),
        words: 8,
    };
    mem.set_os(Os {
        supervisor,
        io_table,
        job_base,
        job_pages: p.job_pages,
        job_words,
        loader,
        card: p.loader_words_per_card,
    });
    Ok(())
}

/// The job starts: the command language and the loader execute through the job pages, and the
/// loader stores every word of the code placed so far. Call once the program's code is placed
/// and before it runs.
pub fn start_job(mem: &mut TracedMemory) {
    let Some(os) = mem.os() else { return };
    let pw = u64::from(mem.page_words());
    for k in 0..os.job_pages {
        mem.exec(Stmt {
            addr: os.job_base + k * pw,
            words: os.job_words,
        });
    }
    let code: Vec<(u64, u64)> = mem
        .segments_so_far()
        .iter()
        .filter(|s| CODE.iter().any(|c| s.name.starts_with(c)))
        .map(|s| (s.base, s.words))
        .collect();
    for (base, words) in code {
        let mut w = 0;
        while w < words {
            mem.exec(os.loader);
            let end = (w + u64::from(os.card)).min(words);
            for a in base + w..base + end {
                let word = mem.peek(a);
                mem.store(a, word);
            }
            w = end;
        }
    }
}

/// One tape block passes through the nucleus: the supervisor's code and its control table.
pub fn io_block(mem: &mut TracedMemory) {
    if let Some(os) = mem.os() {
        mem.exec(os.supervisor);
        mem.store(os.io_table, 0);
    }
}

/// The job ends: the nucleus and the command language's first page run again.
pub fn end_job(mem: &mut TracedMemory) {
    if let Some(os) = mem.os() {
        mem.exec(os.supervisor);
        mem.exec(Stmt {
            addr: os.job_base,
            words: os.job_words,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loader_stores_the_code_and_the_job_pages_are_referenced_once() {
        let mut m = TracedMemory::new(16, 1 << 12).unwrap();
        let p = RuntimeParams {
            nucleus_pages: 1,
            job_pages: 3,
            job_words_per_page: 4,
            loader_words_per_card: 5,
            supervisor_words: 2,
            ..RuntimeParams::default()
        };
        place(&mut m, &p).unwrap();
        assert_eq!(m.extent(), 4 * 16, "the program starts on a page boundary");
        m.begin_segment("main program");
        let s = m.stmt(12).unwrap();
        m.begin_segment("array X");
        let x = m.array1("X", 20).unwrap();
        start_job(&mut m);
        m.exec(s);
        m.store(x.at(19), 1);
        io_block(&mut m);
        end_job(&mut m);
        let (runs, map, _, _) = m.finish();
        // Nucleus page 0, job pages 1-3, code page 4, data page 5 (X's last word).
        let mut pages: Vec<u64> = map.clone();
        pages.sort();
        assert_eq!(pages, vec![0, 1, 2, 3, 4, 5]);
        // The loader stored the 12 code words (and nothing of X).
        let code_stores: u32 = runs
            .iter()
            .filter(|r| map[r.page as usize] == 4 && r.kind == crate::AccessKind::Store)
            .map(|r| r.count)
            .sum();
        assert_eq!(code_stores, 12);
    }

    #[test]
    fn disabled_places_nothing_and_bad_sizes_are_named() {
        let mut m = TracedMemory::new(16, 1 << 12).unwrap();
        let off = RuntimeParams {
            enabled: false,
            ..RuntimeParams::default()
        };
        place(&mut m, &off).unwrap();
        assert_eq!(m.extent(), 0);
        start_job(&mut m);
        io_block(&mut m);
        assert_eq!(m.n_references(), 0);
        let bad = RuntimeParams {
            job_pages: 0,
            ..RuntimeParams::default()
        };
        let e = place(&mut m, &bad).unwrap_err().to_string();
        assert!(e.contains("runtime.nucleus_pages / job_pages"), "{e}");
    }
}
