//! The touch list: a trace as the kernel replayer reads it, one touch per run.
//!
//! ```text
//!   offset 0   "PLTOUCH1"
//!          8   u32 distinct pages (the mapping's size in pages)
//!         12   u32 reserved (0)
//!         16   u64 touches N
//!         24   N × u32: dense page number, bit 31 set when the run writes
//! ```
//! A run of references to one page is one touch: after its first reference the page is mapped,
//! so the rest cannot fault, in the kernel as in the lab; consecutive runs of one page (a load
//! then a store) are one touch that writes if any of them does. Stores and modifies write; loads
//! read (a read of a page never written maps the shared zero page and charges nothing).
//! Instruction fetches are left out unless asked for: a program's code is file-backed, never one
//! of the anonymous pages the replayer's mapping holds. A limit keeps the first touches only.

use std::io::{BufWriter, Write};
use std::path::Path;

use crate::{AccessKind, ReferenceSource, Run, TraceError};

/// The file's magic.
pub const MAGIC: &[u8; 8] = b"PLTOUCH1";
/// The write bit of a touch.
pub const WRITE: u32 = 1 << 31;

/// What a touch list holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TouchInfo {
    /// Distinct pages (one more than the largest page number touched).
    pub pages: u32,
    /// Touches (runs).
    pub touches: u64,
    /// Touches that write.
    pub writes: u64,
}

/// How runs become touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TouchOptions {
    /// Every touch writes (for formats that carry no kinds).
    pub all_writes: bool,
    /// Instruction fetches are touches too (as reads).
    pub instructions: bool,
    /// At most this many touches (the first ones).
    pub limit: u64,
}

impl Default for TouchOptions {
    fn default() -> Self {
        TouchOptions {
            all_writes: false,
            instructions: false,
            limit: u64::MAX,
        }
    }
}

/// The touch of one run: its page, with [`WRITE`] when `all_writes` or the run writes.
#[inline]
pub fn touch_of(run: &Run, all_writes: bool) -> u32 {
    let writes = all_writes || matches!(run.kind, AccessKind::Store | AccessKind::Modify);
    run.page | if writes { WRITE } else { 0 }
}

/// Writes the touch list of `source` to `out` (the caller renames it into place).
pub fn write_touches(
    source: &mut dyn ReferenceSource,
    out: &Path,
    opts: TouchOptions,
) -> Result<TouchInfo, TraceError> {
    let io = |e| TraceError::io(out, e);
    let mut w = BufWriter::new(std::fs::File::create(out).map_err(io)?);
    w.write_all(MAGIC).map_err(io)?;
    w.write_all(&[0u8; 16]).map_err(io)?;
    let mut info = TouchInfo::default();
    let mut batch = Vec::new();
    let mut last: Option<u32> = None;
    let mut emit = |t: u32, info: &mut TouchInfo| -> Result<(), TraceError> {
        w.write_all(&t.to_le_bytes()).map_err(io)?;
        info.pages = info.pages.max((t & !WRITE) + 1);
        info.touches += 1;
        info.writes += u64::from(t & WRITE != 0);
        Ok(())
    };
    'read: while source.next_batch(&mut batch)? {
        for run in &batch {
            if run.page >= WRITE {
                return Err(TraceError::Invalid(format!(
                    "page {} is beyond the replayer's 2^31 pages",
                    run.page
                )));
            }
            if run.kind == AccessKind::Instr && !opts.instructions {
                continue;
            }
            let t = touch_of(run, opts.all_writes);
            match last {
                Some(l) if l & !WRITE == run.page => last = Some(l | t),
                Some(l) => {
                    emit(l, &mut info)?;
                    if info.touches >= opts.limit {
                        last = None;
                        break 'read;
                    }
                    last = Some(t);
                }
                None => last = Some(t),
            }
        }
        batch.clear();
    }
    if let Some(l) = last {
        emit(l, &mut info)?;
    }

    let mut file = w.into_inner().map_err(|e| io(e.into_error()))?;
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(8)).map_err(io)?;
    file.write_all(&info.pages.to_le_bytes()).map_err(io)?;
    file.write_all(&0u32.to_le_bytes()).map_err(io)?;
    file.write_all(&info.touches.to_le_bytes()).map_err(io)?;
    file.sync_all().map_err(io)?;
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::VecSource;

    #[test]
    fn one_touch_per_run_with_the_write_bit_of_its_kind() {
        let runs = vec![
            Run::new(0, 3, AccessKind::Load),
            Run::new(1, 1, AccessKind::Store),
            Run::new(0, 2, AccessKind::Modify),
            Run::new(2, 1, AccessKind::Instr),
        ];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.touch");
        let opts = TouchOptions {
            instructions: true,
            ..TouchOptions::default()
        };
        let info = write_touches(&mut VecSource::new(runs.clone()), &path, opts).unwrap();
        assert_eq!(
            info,
            TouchInfo {
                pages: 3,
                touches: 4,
                writes: 2
            }
        );
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..8], MAGIC);
        assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 3);
        assert_eq!(u64::from_le_bytes(bytes[16..24].try_into().unwrap()), 4);
        let t: Vec<u32> = bytes[24..]
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(t, vec![0, 1 | WRITE, WRITE, 2]);
        let all = TouchOptions {
            all_writes: true,
            ..opts
        };
        assert_eq!(
            write_touches(&mut VecSource::new(runs), &path, all)
                .unwrap()
                .writes,
            4
        );
    }

    #[test]
    fn instructions_left_out_runs_of_one_page_merge_and_the_limit_cuts() {
        let runs = vec![
            Run::new(0, 1, AccessKind::Load),
            Run::new(7, 1, AccessKind::Instr),
            Run::new(0, 1, AccessKind::Store),
            Run::new(1, 1, AccessKind::Load),
            Run::new(2, 1, AccessKind::Load),
        ];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.touch");
        let opts = TouchOptions::default();
        let info = write_touches(&mut VecSource::new(runs.clone()), &path, opts).unwrap();
        // Load 0, (fetch of 7 dropped), store 0: one touch of 0 that writes; then 1, 2.
        assert_eq!(
            info,
            TouchInfo {
                pages: 3,
                touches: 3,
                writes: 1
            }
        );
        let cut = TouchOptions { limit: 2, ..opts };
        let info = write_touches(&mut VecSource::new(runs), &path, cut).unwrap();
        assert_eq!(
            info,
            TouchInfo {
                pages: 2,
                touches: 2,
                writes: 1
            }
        );
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 24 + 8);
    }
}
