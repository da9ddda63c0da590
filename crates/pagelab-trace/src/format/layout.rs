//! Byte layout of format version 1 (see `docs/trace-format.md`): fixed-size records, all
//! integers little-endian.

/// First 8 bytes of every pagelab trace.
pub const MAGIC: [u8; 8] = *b"PGLTRACE";
/// Last 8 bytes of every finished pagelab trace.
pub(crate) const TAIL_MAGIC: [u8; 8] = *b"PGLTEND\0";
/// Format version written by this crate.
pub const FORMAT_VERSION: u32 = 1;
pub(crate) const CHUNK_MAGIC: [u8; 4] = *b"PGLC";
pub(crate) const MAP_MAGIC: [u8; 4] = *b"PGLM";
pub(crate) const FOOTER_MAGIC: [u8; 4] = *b"PGLF";

/// Fixed part of the header; the description follows it.
pub(crate) const HEADER_LEN: usize = 104;
pub(crate) const CHUNK_HEADER_LEN: usize = 32;
pub(crate) const MAP_HEADER_LEN: usize = 20;
/// Footer before its chunk entries.
pub(crate) const FOOTER_FIXED_LEN: usize = 24;
pub(crate) const CHUNK_ENTRY_LEN: usize = 24;
pub(crate) const TAIL_LEN: usize = 16;
/// Largest repeat count stored inline in a run's count-and-kind byte; larger counts (and the
/// code 0) go to the overflow column.
pub(crate) const INLINE_COUNT_MAX: u32 = 63;

/// Bytes needed to store dense page numbers up to `max_page` (1 to 4).
#[inline]
pub(crate) fn page_width(max_page: u32) -> usize {
    (4 - (max_page.leading_zeros() as usize) / 8).max(1)
}
/// Largest number of runs in one chunk (keeps a chunk's decoded size within 32 bits).
pub(crate) const MAX_CHUNK_RUNS: u32 = 1 << 24;
/// Largest description accepted [bytes].
pub(crate) const MAX_DESCRIPTION: usize = 1 << 24;

/// The header fields.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Header {
    pub version: u32,
    pub page_size: u64,
    pub references: u64,
    pub runs: u64,
    pub distinct_pages: u64,
    pub by_kind: [u64; 4],
    pub chunks: u64,
    pub footer_offset: u64,
    pub description: Vec<u8>,
}

impl Header {
    /// Encodes the header with its CRC.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(HEADER_LEN + self.description.len());
        b.extend_from_slice(&MAGIC);
        b.extend_from_slice(&self.version.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        for v in [
            self.page_size,
            self.references,
            self.runs,
            self.distinct_pages,
        ] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        for v in self.by_kind {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&self.chunks.to_le_bytes());
        b.extend_from_slice(&self.footer_offset.to_le_bytes());
        b.extend_from_slice(&(self.description.len() as u32).to_le_bytes());
        let mut h = crc32fast::Hasher::new();
        h.update(&b);
        h.update(&self.description);
        b.extend_from_slice(&h.finalize().to_le_bytes());
        b.extend_from_slice(&self.description);
        b
    }
}

/// One entry of the footer's chunk index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ChunkEntry {
    /// Offset of the chunk header [bytes].
    pub offset: u64,
    /// References in the chunk.
    pub references: u64,
    /// Runs in the chunk.
    pub runs: u32,
    /// Compressed payload length [bytes].
    pub compressed_len: u32,
}

#[inline]
pub(crate) fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

#[inline]
pub(crate) fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}
