//! [`TraceReader`]: checks a trace's structure at open, then decodes one chunk at a time.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::layout::*;
use super::{ReferencesByKind, TraceInfo};
use crate::{AccessKind, ReferenceSource, Run, TraceError};

/// Reads a pagelab trace in constant memory (one chunk at a time). Every structural fact is
/// checked: a wrong magic, an unknown version, a truncated file, a bad CRC or counts that do not
/// add up give [`TraceError::Corrupt`] naming the file and byte offset.
pub struct TraceReader {
    path: PathBuf,
    file: File,
    file_len: u64,
    header: Header,
    description: serde_json::Value,
    entries: Vec<ChunkEntry>,
    map_offset: u64,
    next_chunk: usize,
    by_kind_seen: [u64; 4],
    buf: Vec<u8>,
    raw: Vec<u8>,
    decompressor: zstd::bulk::Decompressor<'static>,
}

impl std::fmt::Debug for TraceReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceReader")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl TraceReader {
    /// Opens `path`, checking header, footer, chunk index and tail.
    pub fn open(path: &Path) -> Result<TraceReader, TraceError> {
        let mut file = File::open(path).map_err(|e| TraceError::io(path, e))?;
        let file_len = file.metadata().map_err(|e| TraceError::io(path, e))?.len();
        let mut o = Opening {
            path,
            file: &mut file,
            len: file_len,
        };
        o.magic()?;
        let (header, description) = o.header()?;
        let (f, footer_offset) = o.footer(&header)?;
        let (entries, map_offset) = o.index(&header, &f, footer_offset)?;
        Ok(TraceReader {
            path: path.to_path_buf(),
            file,
            file_len,
            header,
            description,
            entries,
            map_offset,
            next_chunk: 0,
            by_kind_seen: [0; 4],
            buf: Vec::new(),
            raw: Vec::new(),
            decompressor: zstd::bulk::Decompressor::new().map_err(|e| TraceError::io(path, e))?,
        })
    }

    fn corrupt(&self, offset: u64, what: impl Into<String>) -> TraceError {
        TraceError::Corrupt {
            path: self.path.clone(),
            offset,
            what: what.into(),
        }
    }

    /// The file read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Format version of the file.
    pub fn version(&self) -> u32 {
        self.header.version
    }

    /// Page size [bytes].
    pub fn page_size(&self) -> u64 {
        self.header.page_size
    }

    /// References in the string [references].
    pub fn references(&self) -> u64 {
        self.header.references
    }

    /// Run-length records [runs].
    pub fn runs(&self) -> u64 {
        self.header.runs
    }

    /// Distinct pages [pages]; dense page numbers run from 0 to this minus one.
    pub fn distinct_pages(&self) -> u64 {
        self.header.distinct_pages
    }

    /// References by kind [references].
    pub fn references_by_kind(&self) -> ReferencesByKind {
        ReferencesByKind::from_array(self.header.by_kind)
    }

    /// Chunks in the file.
    pub fn chunk_count(&self) -> usize {
        self.entries.len()
    }

    /// Byte offset of chunk `i` (the file's length if there is no such chunk).
    pub fn chunk_offset(&self, i: usize) -> u64 {
        self.entries.get(i).map_or(self.file_len, |e| e.offset)
    }

    /// Byte offset of the page map.
    pub fn page_map_offset(&self) -> u64 {
        self.map_offset
    }

    /// The description of the source (program, arguments, tool, filters).
    pub fn description(&self) -> &serde_json::Value {
        &self.description
    }

    /// Size of the file [bytes].
    pub fn file_bytes(&self) -> u64 {
        self.file_len
    }

    /// Byte offset reached by streaming so far [bytes] (for progress reports).
    pub fn position(&self) -> u64 {
        self.entries
            .get(self.next_chunk)
            .map_or(self.map_offset, |e| e.offset)
    }

    /// The summary of the trace.
    pub fn info(&self) -> TraceInfo {
        TraceInfo::from_counts(
            self.header.runs,
            self.header.distinct_pages,
            self.header.page_size,
            self.references_by_kind(),
            self.file_len,
            self.description.clone(),
        )
    }

    /// The page map: entry `d` is the program's page number of dense page `d`.
    pub fn page_map(&mut self) -> Result<Vec<u64>, TraceError> {
        let at = self.map_offset;
        let mut head = [0u8; MAP_HEADER_LEN];
        self.read_exact_at(at, &mut head)?;
        if head[..4] != MAP_MAGIC {
            return Err(self.corrupt(at, "page map magic missing"));
        }
        let clen = u32_at(&head, 4) as usize;
        let entries = u64_at(&head, 8);
        let footer = self.header.footer_offset;
        if at + (MAP_HEADER_LEN + clen) as u64 != footer {
            return Err(self.corrupt(at + 4, "page map length does not reach the footer"));
        }
        if entries != self.header.distinct_pages {
            return Err(self.corrupt(at + 8, "page map size differs from distinct pages"));
        }
        let mut payload = vec![0u8; clen];
        self.read_exact_at(at + MAP_HEADER_LEN as u64, &mut payload)?;
        let mut h = crc32fast::Hasher::new();
        h.update(&head[..16]);
        h.update(&payload);
        if h.finalize() != u32_at(&head, 16) {
            return Err(self.corrupt(at, "page map checksum mismatch"));
        }
        // The frame states its size: check it before allocating what the header claims.
        let stated = zstd::zstd_safe::get_frame_content_size(&payload);
        if stated.ok().flatten() != Some(entries * 8) {
            return Err(self.corrupt(at, "page map frame size differs from its entries"));
        }
        let mut raw = vec![0u8; entries as usize * 8];
        let got = self
            .decompressor
            .decompress_to_buffer(&payload, &mut raw)
            .map_err(|e| self.corrupt(at, format!("page map does not decompress: {e}")))?;
        if got != raw.len() {
            return Err(self.corrupt(at, "page map decompresses to the wrong length"));
        }
        Ok(raw.chunks_exact(8).map(|c| u64_at(c, 0)).collect())
    }

    fn read_exact_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<(), TraceError> {
        if offset + buf.len() as u64 > self.file_len {
            return Err(self.corrupt(self.file_len, "file ends early: truncated"));
        }
        self.file
            .seek(SeekFrom::Start(offset))
            .map_err(|e| TraceError::io(&self.path, e))?;
        self.file
            .read_exact(buf)
            .map_err(|e| TraceError::io(&self.path, e))
    }

    /// Decodes chunk `i` and appends its runs to `out`; returns the references by kind in it.
    pub fn read_chunk(&mut self, i: usize, out: &mut Vec<Run>) -> Result<[u64; 4], TraceError> {
        let (at, refs, runs, width) = self.fetch(i)?;
        let raw = std::mem::take(&mut self.raw);
        let r = match width {
            1 => self.decode_columns::<1>(i, at, refs, &raw, runs, out),
            2 => self.decode_columns::<2>(i, at, refs, &raw, runs, out),
            3 => self.decode_columns::<3>(i, at, refs, &raw, runs, out),
            _ => self.decode_columns::<4>(i, at, refs, &raw, runs, out),
        };
        self.raw = raw;
        r
    }

    /// Appends the page of every run of chunk `i` to `out`, and nothing else: for passes that
    /// need the pages only (next-use). The chunk's checksum and header are checked; its counts
    /// and kinds are not looked at (a full read checks them), nor the pages' range (the caller
    /// indexes by page and must check it).
    pub fn read_chunk_pages(&mut self, i: usize, out: &mut Vec<u32>) -> Result<(), TraceError> {
        let (_, _, runs, width) = self.fetch(i)?;
        let pages = &self.raw[..runs * width];
        match width {
            1 => out.extend(pages.iter().map(|&b| u32::from(b))),
            2 => out.extend(
                pages
                    .chunks_exact(2)
                    .map(|p| u32::from(u16::from_le_bytes([p[0], p[1]]))),
            ),
            w => out.extend(pages.chunks_exact(w).map(|p| {
                let mut le = [0u8; 4];
                le[..w].copy_from_slice(p);
                u32::from_le_bytes(le)
            })),
        }
        Ok(())
    }

    /// Reads chunk `i`, checks its checksum and header against the index, and decompresses
    /// its columns into `self.raw`; returns (offset, references, runs, page width).
    fn fetch(&mut self, i: usize) -> Result<(u64, u64, usize, usize), TraceError> {
        let Some(&e) = self.entries.get(i) else {
            return Err(TraceError::invalid(format!(
                "{}: chunk {i} requested, the trace has {}",
                self.path.display(),
                self.entries.len()
            )));
        };
        let total = CHUNK_HEADER_LEN + e.compressed_len as usize;
        let mut buf = std::mem::take(&mut self.buf);
        buf.resize(total, 0);
        let r = self
            .read_exact_at(e.offset, &mut buf)
            .and_then(|_| self.decompress(i, e, &buf));
        self.buf = buf;
        r
    }

    fn decompress(
        &mut self,
        i: usize,
        e: ChunkEntry,
        buf: &[u8],
    ) -> Result<(u64, u64, usize, usize), TraceError> {
        let at = e.offset;
        if buf[..4] != CHUNK_MAGIC {
            return Err(self.corrupt(at, format!("chunk {i} magic missing")));
        }
        let crc = u32_at(buf, 28);
        let mut h = crc32fast::Hasher::new();
        h.update(&buf[..28]);
        h.update(&buf[CHUNK_HEADER_LEN..]);
        if h.finalize() != crc {
            return Err(self.corrupt(at, format!("chunk {i} checksum mismatch")));
        }
        let runs = u32_at(buf, 4) as usize;
        let refs = u64_at(buf, 8);
        let raw_len = u32_at(buf, 20) as usize;
        let width = buf[24] as usize;
        if runs != e.runs as usize
            || refs != e.references
            || u32_at(buf, 16) != e.compressed_len
            || buf[25..28] != [0, 0, 0]
        {
            return Err(self.corrupt(at, format!("chunk {i} header differs from the index")));
        }
        if !(1..=4).contains(&width) || raw_len < runs * (width + 1) || raw_len > runs * (width + 5)
        {
            return Err(self.corrupt(at + 20, format!("chunk {i} has impossible column sizes")));
        }
        self.raw.resize(raw_len, 0);
        match self
            .decompressor
            .decompress_to_buffer(&buf[CHUNK_HEADER_LEN..], &mut self.raw)
        {
            Ok(n) if n == raw_len => Ok((at, refs, runs, width)),
            Ok(_) => Err(self.corrupt(at, format!("chunk {i} decompresses to the wrong length"))),
            Err(err) => Err(self.corrupt(at, format!("chunk {i} does not decompress: {err}"))),
        }
    }

    /// Decodes the columns of a chunk whose pages are `W` bytes wide.
    #[inline(never)]
    fn decode_columns<const W: usize>(
        &self,
        i: usize,
        at: u64,
        refs: u64,
        raw: &[u8],
        runs: usize,
        out: &mut Vec<Run>,
    ) -> Result<[u64; 4], TraceError> {
        let (pages, rest) = raw.split_at(runs * W);
        let (ck, over) = rest.split_at(runs);
        let escapes = ck.iter().filter(|&&b| b >> 2 == 0).count();
        if over.len() != escapes * 4 {
            return Err(self.corrupt(
                at,
                format!(
                    "chunk {i}: {escapes} long runs but {} overflow bytes",
                    over.len()
                ),
            ));
        }
        const KINDS: [AccessKind; 4] = [
            AccessKind::Instr,
            AccessKind::Load,
            AccessKind::Store,
            AccessKind::Modify,
        ];
        let bound = self.header.distinct_pages;
        let start = out.len();
        // The checks run over the columns first, each a loop the compiler vectorizes (the
        // largest page, the references by kind); then one pass builds the runs.
        let max_page = max_page::<W>(pages);
        let mut by_kind = kind_sums(ck);
        out.extend(pages.chunks_exact(W).zip(ck).map(|(p, &b)| {
            let mut le = [0u8; 4];
            le[..W].copy_from_slice(p);
            Run {
                page: u32::from_le_bytes(le),
                count: u32::from(b >> 2),
                kind: KINDS[usize::from(b & 3)],
            }
        }));
        let dst = &mut out[start..];
        let mut min_count = 1;
        if escapes > 0 {
            // Escaped counts (code 0) come from the overflow column, in run order.
            let long = dst.iter_mut().filter(|r| r.count == 0);
            for (r, c) in long.zip(over.chunks_exact(4)) {
                r.count = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                min_count = min_count.min(r.count);
                by_kind[r.kind as usize] += u64::from(r.count);
            }
        }
        let sum: u64 = by_kind.iter().sum();
        if min_count == 0 || sum != refs || (runs > 0 && max_page as u64 >= bound) {
            out.truncate(start);
            let what = if min_count == 0 {
                "a run of zero references".to_string()
            } else if sum != refs {
                format!("run counts add up to {sum}, the chunk header says {refs}")
            } else {
                format!("page {max_page} beyond the {bound} distinct pages")
            };
            return Err(self.corrupt(at, format!("chunk {i}: {what}")));
        }
        Ok(by_kind)
    }

    /// Restarts streaming from the first chunk.
    pub fn rewind(&mut self) {
        self.next_chunk = 0;
        self.by_kind_seen = [0; 4];
    }

    /// Reads every run (from the start, whatever the streaming position).
    pub fn read_all(&mut self) -> Result<Vec<Run>, TraceError> {
        let mut out = Vec::with_capacity(self.header.runs.min(1 << 28) as usize);
        let mut seen = [0u64; 4];
        for i in 0..self.entries.len() {
            pagelab_core::interrupt::check()?; // Ctrl-C/SIGTERM: once per chunk read
            let k = self.read_chunk(i, &mut out)?;
            for (s, v) in seen.iter_mut().zip(k) {
                *s += v;
            }
        }
        self.check_kinds(seen)?;
        Ok(out)
    }

    /// The next chunk streaming would read and the references by kind streamed so far.
    pub(crate) fn streaming_position(&self) -> (usize, [u64; 4]) {
        (self.next_chunk, self.by_kind_seen)
    }

    /// Checks the references by kind of every chunk against the header's.
    pub(crate) fn check_kinds(&self, seen: [u64; 4]) -> Result<(), TraceError> {
        if seen != self.header.by_kind {
            return Err(self.corrupt(
                48,
                "references by kind in the chunks differ from the header",
            ));
        }
        Ok(())
    }
}

/// The largest page of a page column of `W`-byte little-endian numbers.
fn max_page<const W: usize>(pages: &[u8]) -> u32 {
    match W {
        1 => pages.iter().copied().max().map_or(0, u32::from),
        2 => pages
            .chunks_exact(2)
            .map(|p| u16::from_le_bytes([p[0], p[1]]))
            .max()
            .map_or(0, u32::from),
        _ => pages
            .chunks_exact(W)
            .map(|p| {
                let mut le = [0u8; 4];
                le[..W].copy_from_slice(p);
                u32::from_le_bytes(le)
            })
            .max()
            .unwrap_or(0),
    }
}

/// References by kind of a count-and-kind column (escaped counts, code 0, add nothing here).
/// Counts are summed in 32-bit lanes over blocks small enough that none can overflow.
fn kind_sums(ck: &[u8]) -> [u64; 4] {
    let mut sums = [0u64; 4];
    for block in ck.chunks(1 << 20) {
        let [mut a0, mut a1, mut a2, mut a3] = [0u32; 4];
        for &b in block {
            let (c, k) = (u32::from(b >> 2), b & 3);
            a0 += if k == 0 { c } else { 0 };
            a1 += if k == 1 { c } else { 0 };
            a2 += if k == 2 { c } else { 0 };
            a3 += if k == 3 { c } else { 0 };
        }
        for (s, a) in sums.iter_mut().zip([a0, a1, a2, a3]) {
            *s += u64::from(a);
        }
    }
    sums
}

/// The sum of `counts`, or None past 2^64 (corrupt counts may add up to anything).
fn checked_sum(counts: &[u64]) -> Option<u64> {
    counts.iter().try_fold(0u64, |s, &k| s.checked_add(k))
}

impl ChunkEntry {
    /// Whether the entry can describe the chunk at `expect`: no writer makes a chunk of more
    /// than [`MAX_CHUNK_RUNS`] runs (the bound also bounds what decoding allocates).
    fn is_consistent(&self, expect: u64) -> bool {
        self.offset == expect
            && (1..=MAX_CHUNK_RUNS).contains(&self.runs)
            && self.references >= self.runs as u64
    }
}

impl ReferenceSource for TraceReader {
    fn next_batch(&mut self, out: &mut Vec<Run>) -> Result<bool, TraceError> {
        if self.next_chunk >= self.entries.len() {
            if self.next_chunk == self.entries.len() {
                self.next_chunk += 1;
                self.check_kinds(self.by_kind_seen)?;
            }
            return Ok(false);
        }
        pagelab_core::interrupt::check()?; // Ctrl-C/SIGTERM: once per chunk read
        let k = self.read_chunk(self.next_chunk, out)?;
        for (s, v) in self.by_kind_seen.iter_mut().zip(k) {
            *s += v;
        }
        self.next_chunk += 1;
        Ok(true)
    }

    fn page_bound(&self) -> Option<u32> {
        Some(self.header.distinct_pages as u32)
    }
}

/// A trace file being opened: each part checked in turn, in file order of trust (magic,
/// header, tail and footer, then the chunk index the footer holds).
struct Opening<'a> {
    path: &'a Path,
    file: &'a mut File,
    len: u64,
}

impl Opening<'_> {
    fn corrupt(&self, offset: u64, what: String) -> TraceError {
        TraceError::Corrupt {
            path: self.path.to_path_buf(),
            offset,
            what,
        }
    }

    fn read_at(&mut self, offset: u64, len: usize, what: &str) -> Result<Vec<u8>, TraceError> {
        if offset
            .checked_add(len as u64)
            .is_none_or(|end| end > self.len)
        {
            return Err(self.corrupt(
                self.len,
                format!("file ends before the {what} ({len} bytes at offset {offset}): truncated"),
            ));
        }
        let mut b = vec![0u8; len];
        let path = self.path;
        self.file
            .seek(SeekFrom::Start(offset))
            .map_err(|e| TraceError::io(path, e))?;
        self.file
            .read_exact(&mut b)
            .map_err(|e| TraceError::io(path, e))?;
        Ok(b)
    }

    fn magic(&mut self) -> Result<(), TraceError> {
        let magic_len = MAGIC.len().min(self.len as usize);
        let head = self.read_at(0, magic_len, "magic")?;
        if head[..] != MAGIC[..magic_len] || (self.len as usize) < MAGIC.len() {
            if head[..] == MAGIC[..magic_len] {
                return Err(self.corrupt(self.len, "file ends inside the magic: truncated".into()));
            }
            return Err(self.corrupt(
                0,
                format!(
                    "wrong magic {:?}: expected {:?} (not a pagelab trace)",
                    String::from_utf8_lossy(&head),
                    String::from_utf8_lossy(&MAGIC)
                ),
            ));
        }
        Ok(())
    }

    /// The header, its description checked as JSON.
    fn header(&mut self) -> Result<(Header, serde_json::Value), TraceError> {
        let h = self.read_at(0, HEADER_LEN, "header")?;
        let version = u32_at(&h, 8);
        if version != FORMAT_VERSION {
            return Err(self.corrupt(
                8,
                format!(
                    "unknown format version {version}: this reader knows version {FORMAT_VERSION}"
                ),
            ));
        }
        let desc_len = u32_at(&h, 96) as usize;
        if desc_len > MAX_DESCRIPTION {
            return Err(self.corrupt(
                96,
                format!("description length {desc_len}: expected at most {MAX_DESCRIPTION}"),
            ));
        }
        let desc = self.read_at(HEADER_LEN as u64, desc_len, "description")?;
        let mut crc = crc32fast::Hasher::new();
        crc.update(&h[..100]);
        crc.update(&desc);
        if crc.finalize() != u32_at(&h, 100) {
            return Err(self.corrupt(
                0,
                "header checksum mismatch (bytes 0..104 + description)".into(),
            ));
        }
        if u32_at(&h, 12) != 0 {
            return Err(self.corrupt(12, "unknown flags: expected 0".into()));
        }
        let mut by_kind = [0u64; 4];
        for (k, v) in by_kind.iter_mut().enumerate() {
            *v = u64_at(&h, 48 + 8 * k);
        }
        let header = Header {
            version,
            page_size: u64_at(&h, 16),
            references: u64_at(&h, 24),
            runs: u64_at(&h, 32),
            distinct_pages: u64_at(&h, 40),
            by_kind,
            chunks: u64_at(&h, 80),
            footer_offset: u64_at(&h, 88),
            description: desc,
        };
        if header.page_size == 0 || !header.page_size.is_power_of_two() {
            return Err(self.corrupt(
                16,
                format!("page size {}: expected a power of two", header.page_size),
            ));
        }
        if checked_sum(&by_kind) != Some(header.references) {
            return Err(self.corrupt(
                48,
                "references by kind do not add up to the reference count".into(),
            ));
        }
        if header.distinct_pages > u32::MAX as u64 {
            return Err(self.corrupt(40, "more distinct pages than dense numbers".into()));
        }
        let description = serde_json::from_slice(&header.description).map_err(|e| {
            self.corrupt(HEADER_LEN as u64, format!("description is not JSON: {e}"))
        })?;
        Ok((header, description))
    }

    /// The footer, with its offset, checked against the tail and the header.
    fn footer(&mut self, header: &Header) -> Result<(Vec<u8>, u64), TraceError> {
        // Tail and footer.
        if self.len < (TAIL_LEN + HEADER_LEN) as u64 {
            return Err(self.corrupt(
                self.len,
                "no end marker: file truncated (or not finished by its writer)".into(),
            ));
        }
        let tail = self.read_at(self.len - TAIL_LEN as u64, TAIL_LEN, "tail")?;
        if tail[8..] != TAIL_MAGIC {
            return Err(self.corrupt(
                self.len,
                "no end marker: file truncated (or not finished by its writer)".into(),
            ));
        }
        let footer_offset = u64_at(&tail, 0);
        if footer_offset != header.footer_offset {
            return Err(self.corrupt(
                self.len - TAIL_LEN as u64,
                format!(
                    "tail names footer offset {footer_offset}, header names {}",
                    header.footer_offset
                ),
            ));
        }
        let n = header.chunks;
        let footer_len = (FOOTER_FIXED_LEN as u64)
            .checked_add(n.saturating_mul(CHUNK_ENTRY_LEN as u64))
            .and_then(|l| l.checked_add(4))
            .unwrap_or(u64::MAX);
        if footer_offset
            .checked_add(footer_len)
            .and_then(|e| e.checked_add(TAIL_LEN as u64))
            != Some(self.len)
        {
            return Err(self.corrupt(
                footer_offset,
                format!("footer of {n} chunks does not end where the tail begins"),
            ));
        }
        let f = self.read_at(footer_offset, footer_len as usize, "footer")?;
        let flen = f.len();
        if f[..4] != FOOTER_MAGIC {
            return Err(self.corrupt(footer_offset, "footer magic missing".into()));
        }
        if crc32fast::hash(&f[..flen - 4]) != u32_at(&f, flen - 4) {
            return Err(self.corrupt(footer_offset, "footer checksum mismatch".into()));
        }
        if u64_at(&f, 8) != n {
            return Err(self.corrupt(
                footer_offset + 8,
                "footer chunk count differs from header".into(),
            ));
        }
        Ok((f, footer_offset))
    }

    /// The chunk index of footer `f`: entries that tile the file from the description to the
    /// page map, adding up to the header's counts; and the page map's offset.
    fn index(
        &self,
        header: &Header,
        f: &[u8],
        footer_offset: u64,
    ) -> Result<(Vec<ChunkEntry>, u64), TraceError> {
        let n = header.chunks;
        let map_offset = u64_at(f, 16);
        let mut entries = Vec::with_capacity(n as usize);
        let mut expect = (HEADER_LEN + header.description.len()) as u64;
        let (mut runs, mut refs) = (0u64, 0u64);
        for i in 0..n as usize {
            let at = FOOTER_FIXED_LEN + i * CHUNK_ENTRY_LEN;
            let e = ChunkEntry {
                offset: u64_at(f, at),
                references: u64_at(f, at + 8),
                runs: u32_at(f, at + 16),
                compressed_len: u32_at(f, at + 20),
            };
            let entry_at = footer_offset + at as u64;
            if !e.is_consistent(expect) {
                return Err(
                    self.corrupt(entry_at, format!("chunk {i} index entry is inconsistent"))
                );
            }
            expect = e.offset + (CHUNK_HEADER_LEN as u64) + e.compressed_len as u64;
            runs += e.runs as u64;
            refs = refs.saturating_add(e.references);
            entries.push(e);
        }
        if expect != map_offset {
            return Err(self.corrupt(
                footer_offset + 16,
                "page map does not follow the last chunk".into(),
            ));
        }
        if runs != header.runs || refs != header.references {
            return Err(self.corrupt(
                footer_offset,
                format!(
                    "chunks hold {runs} runs and {refs} references; header says {} and {}",
                    header.runs, header.references
                ),
            ));
        }
        Ok((entries, map_offset))
    }
}
