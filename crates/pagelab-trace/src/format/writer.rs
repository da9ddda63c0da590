//! [`TraceWriter`]: densifies program pages, merges runs, writes compressed chunks, and makes
//! the file appear atomically at [`TraceWriter::finish`].

use std::collections::HashMap;
use std::fs::File;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::Path;

use super::atomic::AtomicFile;
use super::layout::*;
use super::{check_page_size, ReferencesByKind, TraceInfo};
use crate::{AccessKind, TraceError};

/// Multiplicative hasher for program page numbers (the keys are already well spread integers;
/// the map is never iterated, so its order cannot reach any result).
#[derive(Default, Clone, Copy)]
pub(crate) struct PageHasher(u64);

impl Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, v: u64) {
        let x = (v ^ self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = x ^ (x >> 29);
    }
}

pub(crate) type PageMap = HashMap<u64, u32, BuildHasherDefault<PageHasher>>;

/// Tuning of a [`TraceWriter`].
#[derive(Clone, Copy, Debug)]
pub struct WriterOptions {
    /// Runs per chunk [runs] -- parameter; default 65 536 (about 576 KiB decoded, so a reader
    /// holds one chunk in cache-sized memory).
    pub chunk_runs: u32,
    /// zstd compression level -- parameter; default 3 (zstd's own default).
    pub zstd_level: i32,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            chunk_runs: 1 << 16,
            zstd_level: 3,
        }
    }
}

/// Writes a pagelab trace. References are pushed one by one ([`TraceWriter::push`]) or as runs
/// ([`TraceWriter::push_run`]); consecutive references of one kind to one page merge into one
/// run. Pages are numbered densely in order of first reference.
///
/// The file is written under a temporary name in the target's directory and renamed over the
/// target by [`TraceWriter::finish`]; if the writer is dropped unfinished, or an error occurs,
/// the temporary is removed and no output appears.
///
/// ```
/// use pagelab_trace::{AccessKind, format::{TraceReader, TraceWriter}};
/// let dir = std::env::temp_dir().join(format!("pagelab-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("t.plt");
/// let mut w = TraceWriter::create(&path, 4096, serde_json::json!({"program": "demo"})).unwrap();
/// w.push(0x400, AccessKind::Instr).unwrap();
/// w.push(0x400, AccessKind::Instr).unwrap();
/// w.push(0x7ff, AccessKind::Store).unwrap();
/// let info = w.finish().unwrap();
/// assert_eq!((info.references, info.runs, info.distinct_pages), (3, 2, 2));
/// let mut r = TraceReader::open(&path).unwrap();
/// assert_eq!(r.page_map().unwrap(), vec![0x400, 0x7ff]);
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub struct TraceWriter {
    atomic: AtomicFile,
    out: BufWriter<File>,
    pos: u64,
    header: Header,
    options: WriterOptions,
    map: PageMap,
    pages: Vec<u64>,
    pending: Option<(u64, u32, AccessKind)>,
    col_pages: Vec<u32>,
    col_ck: Vec<u8>,
    col_over: Vec<u32>,
    chunk_refs: u64,
    max_page: u32,
    raw: Vec<u8>,
    compressor: zstd::bulk::Compressor<'static>,
    entries: Vec<ChunkEntry>,
}

impl std::fmt::Debug for TraceWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceWriter")
            .field("target", &self.atomic.target())
            .field("references", &self.references())
            .finish_non_exhaustive()
    }
}

impl TraceWriter {
    /// Starts a trace at `path` with pages of `page_size` [bytes] (a power of two), described by
    /// `description` (program, arguments, tool, filters; never a date, so that the same input
    /// gives the same bytes).
    pub fn create(
        path: &Path,
        page_size: u64,
        description: serde_json::Value,
    ) -> Result<TraceWriter, TraceError> {
        Self::create_with(path, page_size, description, WriterOptions::default())
    }

    /// As [`TraceWriter::create`], with explicit [`WriterOptions`].
    pub fn create_with(
        path: &Path,
        page_size: u64,
        description: serde_json::Value,
        options: WriterOptions,
    ) -> Result<TraceWriter, TraceError> {
        check_page_size(page_size, &format!("trace {}", path.display()))?;
        if options.chunk_runs == 0 || options.chunk_runs > MAX_CHUNK_RUNS {
            return Err(TraceError::invalid(format!(
                "writer option chunk_runs {}: expected 1 to {MAX_CHUNK_RUNS}",
                options.chunk_runs
            )));
        }
        let desc = serde_json::to_vec(&description).map_err(|e| {
            TraceError::invalid(format!("trace description: cannot serialise: {e}"))
        })?;
        if desc.len() > MAX_DESCRIPTION {
            return Err(TraceError::invalid(format!(
                "trace description: {} bytes, expected at most {MAX_DESCRIPTION}",
                desc.len()
            )));
        }
        let (atomic, file) = AtomicFile::create(path)?;
        let compressor = zstd::bulk::Compressor::new(options.zstd_level)
            .map_err(|e| TraceError::invalid(format!("zstd level {}: {e}", options.zstd_level)))?;
        let header = Header {
            version: FORMAT_VERSION,
            page_size,
            description: desc,
            ..Header::default()
        };
        let mut w = TraceWriter {
            atomic,
            out: BufWriter::with_capacity(1 << 20, file),
            pos: 0,
            header,
            options,
            map: PageMap::default(),
            pages: Vec::new(),
            pending: None,
            col_pages: Vec::new(),
            col_ck: Vec::new(),
            col_over: Vec::new(),
            chunk_refs: 0,
            max_page: 0,
            raw: Vec::new(),
            compressor,
            entries: Vec::new(),
        };
        let bytes = w.header.encode();
        w.write(&bytes)?;
        Ok(w)
    }

    /// One reference of `kind` to program page `page`.
    #[inline]
    pub fn push(&mut self, page: u64, kind: AccessKind) -> Result<(), TraceError> {
        if let Some((p, c, k)) = &mut self.pending {
            if *p == page && *k == kind && *c < u32::MAX {
                *c += 1;
                return Ok(());
            }
        }
        self.flush_pending()?;
        self.pending = Some((page, 1, kind));
        Ok(())
    }

    /// `count` consecutive references of `kind` to program page `page` (none if `count` is 0).
    pub fn push_run(&mut self, page: u64, count: u32, kind: AccessKind) -> Result<(), TraceError> {
        if count == 0 {
            return Ok(());
        }
        if let Some((p, c, k)) = &mut self.pending {
            if *p == page && *k == kind {
                let room = u32::MAX - *c;
                if count <= room {
                    *c += count;
                    return Ok(());
                }
                *c = u32::MAX;
                self.flush_pending()?;
                self.pending = Some((page, count - room, kind));
                return Ok(());
            }
        }
        self.flush_pending()?;
        self.pending = Some((page, count, kind));
        Ok(())
    }

    /// Page size of the trace [bytes].
    pub fn page_size(&self) -> u64 {
        self.header.page_size
    }

    /// References pushed so far [references].
    pub fn references(&self) -> u64 {
        self.header.references + self.pending.map_or(0, |p| p.1 as u64)
    }

    /// Distinct pages so far [pages].
    pub fn distinct_pages(&self) -> u64 {
        self.pages.len() as u64
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), TraceError> {
        self.out
            .write_all(bytes)
            .map_err(|e| TraceError::io(self.atomic.temp_path(), e))?;
        self.pos += bytes.len() as u64;
        Ok(())
    }

    fn flush_pending(&mut self) -> Result<(), TraceError> {
        let Some((page, count, kind)) = self.pending.take() else {
            return Ok(());
        };
        let next = self.pages.len();
        let dense = *self.map.entry(page).or_insert(next as u32);
        if dense as usize == next {
            if next >= u32::MAX as usize {
                return Err(TraceError::invalid(format!(
                    "trace {}: more than {} distinct pages",
                    self.atomic.target().display(),
                    u32::MAX - 1
                )));
            }
            self.pages.push(page);
        }
        self.col_pages.push(dense);
        self.max_page = self.max_page.max(dense);
        if count <= INLINE_COUNT_MAX {
            self.col_ck.push((count << 2) as u8 | kind as u8);
        } else {
            self.col_ck.push(kind as u8);
            self.col_over.push(count);
        }
        self.chunk_refs += count as u64;
        self.header.references += count as u64;
        self.header.runs += 1;
        self.header.by_kind[kind as usize] += count as u64;
        if self.col_ck.len() >= self.options.chunk_runs as usize {
            pagelab_core::interrupt::check()?; // Ctrl-C/SIGTERM: once per chunk written
            self.write_chunk()?;
        }
        Ok(())
    }

    fn write_chunk(&mut self) -> Result<(), TraceError> {
        let runs = self.col_ck.len();
        if runs == 0 {
            return Ok(());
        }
        let width = page_width(self.max_page);
        self.raw.clear();
        self.raw
            .reserve(runs * (width + 1) + 4 * self.col_over.len());
        for &p in &self.col_pages {
            self.raw.extend_from_slice(&p.to_le_bytes()[..width]);
        }
        self.raw.extend_from_slice(&self.col_ck);
        for &c in &self.col_over {
            self.raw.extend_from_slice(&c.to_le_bytes());
        }
        let payload = self
            .compressor
            .compress(&self.raw)
            .map_err(|e| TraceError::io(self.atomic.temp_path(), e))?;
        let mut head = Vec::with_capacity(CHUNK_HEADER_LEN);
        head.extend_from_slice(&CHUNK_MAGIC);
        head.extend_from_slice(&(runs as u32).to_le_bytes());
        head.extend_from_slice(&self.chunk_refs.to_le_bytes());
        head.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        head.extend_from_slice(&(self.raw.len() as u32).to_le_bytes());
        head.extend_from_slice(&[width as u8, 0, 0, 0]);
        let mut h = crc32fast::Hasher::new();
        h.update(&head);
        h.update(&payload);
        head.extend_from_slice(&h.finalize().to_le_bytes());
        self.entries.push(ChunkEntry {
            offset: self.pos,
            references: self.chunk_refs,
            runs: runs as u32,
            compressed_len: payload.len() as u32,
        });
        self.write(&head)?;
        self.write(&payload)?;
        self.col_pages.clear();
        self.col_ck.clear();
        self.col_over.clear();
        self.chunk_refs = 0;
        self.max_page = 0;
        Ok(())
    }

    /// Writes the last chunk, the page map, the footer and the counts, and renames the file into
    /// place. Returns the summary of the trace.
    pub fn finish(mut self) -> Result<TraceInfo, TraceError> {
        self.flush_pending()?;
        self.write_chunk()?;
        // Page map section.
        let map_offset = self.pos;
        let mut raw = Vec::with_capacity(self.pages.len() * 8);
        for &p in &self.pages {
            raw.extend_from_slice(&p.to_le_bytes());
        }
        let payload = self
            .compressor
            .compress(&raw)
            .map_err(|e| TraceError::io(self.atomic.temp_path(), e))?;
        let mut head = Vec::with_capacity(MAP_HEADER_LEN);
        head.extend_from_slice(&MAP_MAGIC);
        head.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        head.extend_from_slice(&(self.pages.len() as u64).to_le_bytes());
        let mut h = crc32fast::Hasher::new();
        h.update(&head);
        h.update(&payload);
        head.extend_from_slice(&h.finalize().to_le_bytes());
        self.write(&head)?;
        self.write(&payload)?;
        // Footer: the chunk index.
        let footer_offset = self.pos;
        let mut f = Vec::with_capacity(FOOTER_FIXED_LEN + CHUNK_ENTRY_LEN * self.entries.len() + 4);
        f.extend_from_slice(&FOOTER_MAGIC);
        f.extend_from_slice(&0u32.to_le_bytes());
        f.extend_from_slice(&(self.entries.len() as u64).to_le_bytes());
        f.extend_from_slice(&map_offset.to_le_bytes());
        for e in &self.entries {
            f.extend_from_slice(&e.offset.to_le_bytes());
            f.extend_from_slice(&e.references.to_le_bytes());
            f.extend_from_slice(&e.runs.to_le_bytes());
            f.extend_from_slice(&e.compressed_len.to_le_bytes());
        }
        let crc = crc32fast::hash(&f);
        f.extend_from_slice(&crc.to_le_bytes());
        f.extend_from_slice(&footer_offset.to_le_bytes());
        f.extend_from_slice(&TAIL_MAGIC);
        self.write(&f)?;
        // Patch the header's counts.
        self.header.distinct_pages = self.pages.len() as u64;
        self.header.chunks = self.entries.len() as u64;
        self.header.footer_offset = footer_offset;
        let header = self.header.encode();
        let temp = self.atomic.temp_path().to_path_buf();
        let io = |e| TraceError::io(&temp, e);
        self.out.seek(SeekFrom::Start(0)).map_err(io)?;
        self.out.write_all(&header).map_err(io)?;
        let file = self.out.into_inner().map_err(|e| io(e.into_error()))?;
        let file_bytes = self.pos;
        let info = TraceInfo::from_counts(
            self.header.runs,
            self.header.distinct_pages,
            self.header.page_size,
            ReferencesByKind::from_array(self.header.by_kind),
            file_bytes,
            serde_json::from_slice(&self.header.description).unwrap_or(serde_json::Value::Null),
        );
        self.atomic.commit(file)?;
        Ok(info)
    }
}
