//! Readers of foreign reference strings, and their conversion into pagelab traces.
//!
//! ```text
//!  file ─► magic bytes? ─► zstd / xz / gzip stream decoder ─► first 64 KiB: guess the format
//!                                                                     │
//!   lackey │ pinatrace │ text │ u64 │ oracleGeneral  ◄─────────────────┘
//!        (value, size, kind) ─► kind filter ─► address ranges ─► paging (value >> log2 page size)
//!                                                                     │
//!                                                     TraceWriter (dense pages, runs, chunks)
//! ```
//!
//! Everything streams: memory is bounded by the page map (one entry per distinct page), not by
//! the length of the input.
//!
//! **Units.** Lackey and pinatrace record byte addresses; plain text, u64 arrays and
//! oracleGeneral hold page numbers unless `--units addresses` says they are byte addresses.
//! Addresses are paged by shifting right by log2 of the page size.
//!
//! **Straddling accesses.** Lackey gives each access a size; an access that crosses a page
//! boundary references every page it touches, in address order, with the access's kind. This is
//! what the hardware would do (each page must be present); the alternative, counting only the
//! first page, would under-count references to pages touched only by the tail of an access.
//! Formats without a size count one byte per access; oracleGeneral's `obj_size` is used as the
//! size when its ids are taken as addresses.
//!
//! **Filters.** Kind filters keep instruction fetches only or data references only. Address
//! ranges keep an access when its first byte lies in one of the half-open ranges; they act on
//! addresses before paging, so they need address units. Converting a pagelab trace to a coarser
//! page size maps each dense page through the page map to the program's page and shifts it; a
//! finer page size cannot be recovered and is refused.
//!
//! **Guessing the format** (when none is given). A file that starts with the pagelab magic is a
//! pagelab trace. Otherwise the first 64 KiB after decompression are examined: with a NUL byte
//! or a byte that is neither printable ASCII nor white space they are binary, and binary data
//! are oracleGeneral if every 24-byte record in them is plausible (clock times that never
//! decrease, non-zero sizes, next-access times of -1 or after the record and, for an input
//! shorter than the sample, within it), u64 otherwise. Text
//! is lackey if all its whole lines parse as lackey lines, else pinatrace if they all parse as
//! pinatrace lines, else one number per line (whose parser then names any bad line).

mod binary;
mod oracle;
mod text;

pub use binary::ORACLE_RECORD;
pub use oracle::write_oracle_general;

use std::cell::Cell;
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::rc::Rc;
use std::str::FromStr;

use crate::format::{check_page_size, TraceInfo, TraceReader, TraceWriter, WriterOptions, MAGIC};
use crate::{AccessKind, ReferenceSource, TraceError};

/// Bytes examined to guess an input's format [bytes].
pub const SNIFF_BYTES: usize = 64 * 1024;
/// Input read between two progress reports [bytes].
pub const PROGRESS_STEP: u64 = 4 << 20;

/// The formats pagelab reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// valgrind `--tool=lackey --trace-mem=yes` output.
    Lackey,
    /// Intel Pin's pinatrace example tool output (`0x40054c: R 0x7ffd5a1c`).
    Pinatrace,
    /// One page number or address per line, optionally followed by a kind letter.
    Text,
    /// A raw array of little-endian u64 page numbers or addresses.
    U64,
    /// libCacheSim's oracleGeneral binary records.
    OracleGeneral,
    /// A pagelab trace (for re-paging and filtering).
    Pagelab,
}

impl InputFormat {
    /// Every format, in the order of the `--from` option.
    pub const ALL: [InputFormat; 6] = [
        InputFormat::Lackey,
        InputFormat::Pinatrace,
        InputFormat::Text,
        InputFormat::U64,
        InputFormat::OracleGeneral,
        InputFormat::Pagelab,
    ];

    /// The name used by `--from`.
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Lackey => "lackey",
            InputFormat::Pinatrace => "pinatrace",
            InputFormat::Text => "text",
            InputFormat::U64 => "u64",
            InputFormat::OracleGeneral => "oracle-general",
            InputFormat::Pagelab => "pagelab",
        }
    }

    /// Units the format's numbers are in unless told otherwise.
    pub fn default_units(self) -> Units {
        match self {
            InputFormat::Lackey | InputFormat::Pinatrace => Units::Addresses,
            _ => Units::Pages,
        }
    }
}

impl fmt::Display for InputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for InputFormat {
    type Err = TraceError;
    fn from_str(s: &str) -> Result<Self, TraceError> {
        InputFormat::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                TraceError::invalid(format!(
                "--from {s}: expected one of lackey, pinatrace, text, u64, oracle-general, pagelab"
            ))
            })
    }
}

/// What the numbers of an input are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Units {
    /// Page numbers, already paged.
    Pages,
    /// Byte addresses, to be divided by the page size.
    Addresses,
}

impl Units {
    /// The name used by `--units`.
    pub fn name(self) -> &'static str {
        match self {
            Units::Pages => "pages",
            Units::Addresses => "addresses",
        }
    }
}

impl FromStr for Units {
    type Err = TraceError;
    fn from_str(s: &str) -> Result<Self, TraceError> {
        match s {
            "pages" => Ok(Units::Pages),
            "addresses" => Ok(Units::Addresses),
            _ => Err(TraceError::invalid(format!(
                "--units {s}: expected pages or addresses"
            ))),
        }
    }
}

/// Stream compression of an input, recognised by its magic bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed.
    None,
    /// zstd (`28 b5 2f fd`).
    Zstd,
    /// xz (`fd 37 7a 58 5a 00`).
    Xz,
    /// gzip (`1f 8b`).
    Gzip,
}

impl Compression {
    /// Recognises the compression from the first bytes of a file.
    pub fn detect(head: &[u8]) -> Compression {
        if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
            Compression::Xz
        } else if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else {
            Compression::None
        }
    }

    /// A short name.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
            Compression::Gzip => "gzip",
        }
    }
}

/// Which references a conversion keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KindFilter {
    /// Every reference.
    #[default]
    All,
    /// Instruction fetches only.
    Instructions,
    /// Loads, stores and modifies only.
    Data,
}

impl KindFilter {
    #[inline]
    fn keeps(self, kind: AccessKind) -> bool {
        match self {
            KindFilter::All => true,
            KindFilter::Instructions => kind == AccessKind::Instr,
            KindFilter::Data => kind != AccessKind::Instr,
        }
    }

    /// A short name.
    pub fn name(self) -> &'static str {
        match self {
            KindFilter::All => "all",
            KindFilter::Instructions => "instructions",
            KindFilter::Data => "data",
        }
    }
}

/// A half-open range of byte addresses `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddressRange {
    /// First address in the range [bytes].
    pub start: u64,
    /// First address after the range [bytes].
    pub end: u64,
}

impl FromStr for AddressRange {
    type Err = TraceError;
    /// Parses `START-END` (decimal or 0x-hex), end exclusive.
    fn from_str(s: &str) -> Result<Self, TraceError> {
        let bad = || {
            TraceError::invalid(format!(
                "address range '{s}': expected START-END with START < END (decimal or 0x-hex)"
            ))
        };
        let (a, b) = s.split_once('-').ok_or_else(bad)?;
        let start = text::parse_number(a.trim().as_bytes()).ok_or_else(bad)?;
        let end = text::parse_number(b.trim().as_bytes()).ok_or_else(bad)?;
        if start >= end {
            return Err(bad());
        }
        Ok(AddressRange { start, end })
    }
}

/// Options of [`convert`].
#[derive(Clone, Debug)]
pub struct ConvertOptions {
    /// Page size of the output [bytes] -- parameter; a power of two; default 4096.
    pub page_size: u64,
    /// Which kinds of reference to keep.
    pub kinds: KindFilter,
    /// Address ranges to keep (all if empty).
    pub ranges: Vec<AddressRange>,
    /// Chunking and compression of the output.
    pub writer: WriterOptions,
    /// Most pages one access may span [pages] -- parameter; default [`MAX_ACCESS_PAGES`].
    pub max_access_pages: u64,
    /// Accept implausible records (accesses spanning more than `max_access_pages`,
    /// oracleGeneral next-access times before their record) instead of refusing them.
    pub lenient: bool,
}

/// Most pages one access may span unless told otherwise [pages]: 4 MiB at 4 KiB pages. No
/// instruction or operand of the machines traced comes near it; an access far larger is a
/// record read out of step (an oracleGeneral `obj_size` of 4 GB made 10^6 references each).
pub const MAX_ACCESS_PAGES: u64 = 1024;

impl Default for ConvertOptions {
    fn default() -> Self {
        ConvertOptions {
            page_size: 4096,
            kinds: KindFilter::All,
            ranges: Vec::new(),
            writer: WriterOptions::default(),
            max_access_pages: MAX_ACCESS_PAGES,
            lenient: false,
        }
    }
}

/// Guesses the format of an input from its first (decompressed) bytes; see the module notes.
pub fn guess_format(sample: &[u8]) -> InputFormat {
    if sample.starts_with(&MAGIC) {
        return InputFormat::Pagelab;
    }
    let binary = sample
        .iter()
        .any(|&c| c == 0 || !(c.is_ascii_graphic() || c.is_ascii_whitespace()));
    if binary {
        return if binary::looks_like_oracle_general(sample, sample.len() < SNIFF_BYTES) {
            InputFormat::OracleGeneral
        } else {
            InputFormat::U64
        };
    }
    // Whole lines only: the sample may end inside one.
    let whole = match sample.iter().rposition(|&c| c == b'\n') {
        Some(end) if sample.len() >= SNIFF_BYTES => &sample[..=end],
        _ => sample,
    };
    let lines = || {
        whole
            .split(|&c| c == b'\n')
            .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
    };
    if lines().next().is_none() {
        return InputFormat::Text;
    }
    let any_access = lines().any(|l| {
        matches!(
            text::parse_lackey_line(l),
            Some(text::LackeyLine::Access(..))
        )
    });
    let starts_valgrind = lines().next().is_some_and(|l| l.starts_with(b"=="));
    if (any_access || starts_valgrind) && lines().all(|l| text::parse_lackey_line(l).is_some()) {
        return InputFormat::Lackey;
    }
    if lines().any(|l| matches!(text::parse_pinatrace_line(l), Some(Some(_))))
        && lines().all(|l| text::parse_pinatrace_line(l).is_some())
    {
        return InputFormat::Pinatrace;
    }
    InputFormat::Text
}

/// A reader that counts the bytes it passes on (the compressed bytes, for progress).
struct Counting<R> {
    inner: R,
    count: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}

/// An opened foreign input: decompressed, with its first bytes kept for guessing.
pub struct Input {
    reader: Box<dyn BufRead>,
    /// The compression found.
    pub compression: Compression,
    /// The first bytes after decompression (up to [`SNIFF_BYTES`]).
    pub sample: Vec<u8>,
    count: Rc<Cell<u64>>,
    /// Size of the file on disk [bytes].
    pub file_bytes: u64,
}

impl Input {
    /// Opens `path`, recognising zstd, xz and gzip by their magic bytes.
    pub fn open(path: &Path) -> Result<Input, TraceError> {
        let mut file = File::open(path).map_err(|e| TraceError::io(path, e))?;
        let file_bytes = file.metadata().map_err(|e| TraceError::io(path, e))?.len();
        let mut head = [0u8; 6];
        let got = read_full(&mut file, &mut head).map_err(|e| TraceError::io(path, e))?;
        let compression = Compression::detect(&head[..got]);
        let count = Rc::new(Cell::new(0));
        let raw = Counting {
            inner: std::io::Cursor::new(head[..got].to_vec()).chain(file),
            count: count.clone(),
        };
        let io = |e| TraceError::io(path, e);
        let mut decoded: Box<dyn Read> = match compression {
            Compression::None => Box::new(raw),
            Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(raw).map_err(io)?),
            Compression::Xz => Box::new(xz2::read::XzDecoder::new_multi_decoder(raw)),
            Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(raw)),
        };
        let mut sample = vec![0u8; SNIFF_BYTES];
        let n = read_full(&mut decoded, &mut sample).map_err(|e| {
            if compression == Compression::None {
                TraceError::io(path, e)
            } else {
                TraceError::Corrupt {
                    path: path.to_path_buf(),
                    offset: 0,
                    what: format!("{} stream does not decode: {e}", compression.name()),
                }
            }
        })?;
        sample.truncate(n);
        let reader = Box::new(BufReader::with_capacity(
            1 << 20,
            std::io::Cursor::new(sample.clone()).chain(decoded),
        ));
        Ok(Input {
            reader,
            compression,
            sample,
            count,
            file_bytes,
        })
    }

    /// Bytes of the file read so far [bytes].
    pub fn bytes_read(&self) -> u64 {
        self.count.get()
    }
}

fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Turns accesses into page references for a [`TraceWriter`], applying the filters.
pub(crate) struct Pager<'a> {
    pub(crate) writer: TraceWriter,
    shift: u32,
    addresses: bool,
    kinds: KindFilter,
    ranges: &'a [AddressRange],
    count: Rc<Cell<u64>>,
    total: Option<u64>,
    progress: &'a mut dyn FnMut(u64, Option<u64>),
    ticks: u32,
    reported: u64,
    max_span: Option<u64>,
}

impl<'a> Pager<'a> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        writer: TraceWriter,
        units: Units,
        kinds: KindFilter,
        ranges: &'a [AddressRange],
        count: Rc<Cell<u64>>,
        total: Option<u64>,
        progress: &'a mut dyn FnMut(u64, Option<u64>),
    ) -> Self {
        let shift = writer.page_size().trailing_zeros();
        Pager {
            writer,
            shift,
            addresses: units == Units::Addresses,
            kinds,
            ranges,
            count,
            total,
            progress,
            ticks: 0,
            reported: 0,
            max_span: None,
        }
    }

    /// Refuses accesses spanning more than `max` pages (none if `None`).
    pub(crate) fn limit_span(&mut self, max: Option<u64>) {
        self.max_span = max;
    }

    /// One access of `size` [bytes] at `value` (an address or a page number).
    #[inline]
    pub(crate) fn access(
        &mut self,
        value: u64,
        size: u32,
        kind: AccessKind,
    ) -> Result<(), TraceError> {
        self.ticks = self.ticks.wrapping_add(1);
        if self.ticks & 0x3fff == 0 {
            self.report(false);
            pagelab_core::interrupt::check()?; // Ctrl-C/SIGTERM: every 16384 accesses
        }
        if !self.kinds.keeps(kind) {
            return Ok(());
        }
        if !self.ranges.is_empty()
            && !self
                .ranges
                .iter()
                .any(|r| value >= r.start && value < r.end)
        {
            return Ok(());
        }
        if !self.addresses {
            return self.writer.push(value, kind);
        }
        let first = value >> self.shift;
        let last = value.saturating_add(size.max(1) as u64 - 1) >> self.shift;
        if let Some(max) = self.max_span {
            if last - first >= max {
                return Err(TraceError::invalid(format!(
                    "an access of {size} bytes at {value:#x} spans {} pages, more than the \
                     {max} allowed (a corrupt or misaligned record? --max-access-pages raises \
                     the limit, --lenient lifts it)",
                    last - first + 1
                )));
            }
        }
        for page in first..=last {
            self.writer.push(page, kind)?;
        }
        Ok(())
    }

    /// Calls the progress callback if enough input was read since the last call (or always).
    pub(crate) fn report(&mut self, always: bool) {
        let now = self.count.get();
        if always || now >= self.reported + PROGRESS_STEP {
            self.reported = now;
            (self.progress)(now, self.total);
        }
    }
}

/// Streams `input` (in `from` format, guessed if `None`) into a pagelab trace at `output`, in
/// constant memory. `units` defaults to the format's own ([`InputFormat::default_units`]).
/// `progress(bytes read, total bytes)` is called every [`PROGRESS_STEP`] bytes of input and at
/// the end. The output appears only if the whole conversion succeeds.
pub fn convert(
    input: &Path,
    from: Option<InputFormat>,
    units: Option<Units>,
    opts: &ConvertOptions,
    output: &Path,
    progress: &mut dyn FnMut(u64, Option<u64>),
) -> Result<TraceInfo, TraceError> {
    check_convert_options(opts)?;
    if from == Some(InputFormat::Pagelab) {
        return convert_pagelab(input, units, opts, output, progress);
    }
    // One open only: a named pipe or `<(zcat ...)` cannot be read twice.
    let mut src = Input::open(input)?;
    if from.is_none() && src.compression == Compression::None && src.sample.starts_with(&MAGIC) {
        drop(src); // a pagelab trace is a seekable file: its reader opens it again
        return convert_pagelab(input, units, opts, output, progress);
    }
    let format = from.unwrap_or_else(|| guess_format(&src.sample));
    let units = resolve_units(format, units, opts)?;
    if src.compression == Compression::None {
        check_whole_records(format, input, src.file_bytes)?;
    }
    let description = serde_json::json!({
        "tool": "pagelab trace convert",
        "input": input.display().to_string(),
        "input_format": format.name(),
        "compression": src.compression.name(),
        "units": units.name(),
        "page_size": opts.page_size,
        "filters": filters_json(opts),
    });
    let writer = TraceWriter::create_with(output, opts.page_size, description, opts.writer)?;
    let total = Some(src.file_bytes);
    let mut pager = Pager::new(
        writer,
        units,
        opts.kinds,
        &opts.ranges,
        src.count.clone(),
        total,
        progress,
    );
    pager.limit_span((!opts.lenient).then_some(opts.max_access_pages));
    let mut emit = |v: u64, s: u32, k: AccessKind| pager.access(v, s, k);
    let compression = src.compression;
    let count = src.count.clone();
    let reader: &mut dyn BufRead = &mut src.reader;
    let read = match format {
        InputFormat::Lackey => text::read_lackey(reader, input, &mut emit),
        InputFormat::Pinatrace => text::read_pinatrace(reader, input, &mut emit),
        InputFormat::Text => text::read_text(reader, input, &mut emit),
        InputFormat::U64 => binary::read_u64(reader, input, &mut emit),
        InputFormat::OracleGeneral => {
            binary::read_oracle_general(reader, input, !opts.lenient, &mut emit)
        }
        InputFormat::Pagelab => Err(TraceError::invalid(format!(
            "{}: a {}-compressed pagelab trace; decompress it first (its chunks are \
             compressed already)",
            input.display(),
            compression.name()
        ))),
    };
    translate_read_error(read, input, compression, count.get())?;
    pager.report(true);
    pager.writer.finish()
}

/// The page size and the address ranges of `opts` are well formed.
fn check_convert_options(opts: &ConvertOptions) -> Result<(), TraceError> {
    check_page_size(opts.page_size, "--page-size")?;
    for r in &opts.ranges {
        if r.start >= r.end {
            return Err(TraceError::invalid(format!(
                "address range {:#x}-{:#x}: expected START < END",
                r.start, r.end
            )));
        }
    }
    Ok(())
}

/// An uncompressed binary input of `file_bytes` holds whole records of its format.
fn check_whole_records(
    format: InputFormat,
    input: &Path,
    file_bytes: u64,
) -> Result<(), TraceError> {
    match format {
        InputFormat::U64 => binary::check_whole_records(input, file_bytes, 8, "u64")?,
        InputFormat::OracleGeneral => {
            binary::check_whole_records(input, file_bytes, ORACLE_RECORD, "oracleGeneral")?
        }
        _ => {}
    }
    Ok(())
}

/// The units of `format`'s input: `units` if given and possible, else the format's own.
fn resolve_units(
    format: InputFormat,
    units: Option<Units>,
    opts: &ConvertOptions,
) -> Result<Units, TraceError> {
    let units = match (format, units) {
        (InputFormat::Lackey | InputFormat::Pinatrace, Some(Units::Pages)) => {
            return Err(TraceError::invalid(format!(
                "--units pages: {format} input records byte addresses, expected --units addresses"
            )))
        }
        (_, Some(u)) => u,
        (f, None) => f.default_units(),
    };
    if units == Units::Pages && !opts.ranges.is_empty() {
        return Err(TraceError::invalid(
            "address ranges: the input holds page numbers (--units pages); ranges need --units addresses",
        ));
    }
    Ok(units)
}

/// A reader's error as the user should see it: a decoder's complaint is a corrupt (or
/// truncated) compressed stream at byte `offset`, not an I/O fault; an invalid record names
/// the input.
fn translate_read_error(
    read: Result<(), TraceError>,
    input: &Path,
    compression: Compression,
    offset: u64,
) -> Result<(), TraceError> {
    match read {
        Err(TraceError::Io { source, .. })
            if compression != Compression::None
                && matches!(
                    source.kind(),
                    std::io::ErrorKind::InvalidData
                        | std::io::ErrorKind::UnexpectedEof
                        | std::io::ErrorKind::Other
                ) =>
        {
            Err(TraceError::Corrupt {
                path: input.to_path_buf(),
                offset,
                what: format!("{} stream does not decode: {source}", compression.name()),
            })
        }
        Err(TraceError::Invalid(what)) => {
            Err(TraceError::invalid(format!("{}: {what}", input.display())))
        }
        r => r,
    }
}

fn filters_json(opts: &ConvertOptions) -> serde_json::Value {
    serde_json::json!({
        "kinds": opts.kinds.name(),
        "address_ranges": opts.ranges.iter().map(|r| [r.start, r.end]).collect::<Vec<_>>(),
    })
}

/// Re-pages and filters a pagelab trace.
fn convert_pagelab(
    input: &Path,
    units: Option<Units>,
    opts: &ConvertOptions,
    output: &Path,
    progress: &mut dyn FnMut(u64, Option<u64>),
) -> Result<TraceInfo, TraceError> {
    if units == Some(Units::Addresses) {
        return Err(TraceError::invalid(
            "--units addresses: a pagelab trace holds pages; omit --units or give pages",
        ));
    }
    let mut reader = TraceReader::open(input)?;
    let in_size = reader.page_size();
    if opts.page_size < in_size {
        return Err(TraceError::invalid(format!(
            "--page-size {}: finer than the trace's {} bytes; a pagelab trace can only be re-paged \
             to a coarser (larger) power-of-two page size",
            opts.page_size, in_size
        )));
    }
    let shift = (opts.page_size / in_size).trailing_zeros();
    let in_shift = in_size.trailing_zeros();
    let map = reader.page_map()?;
    let description = serde_json::json!({
        "tool": "pagelab trace convert",
        "input": input.display().to_string(),
        "input_format": "pagelab",
        "page_size": opts.page_size,
        "filters": filters_json(opts),
        "source": reader.description().clone(),
    });
    let mut writer = TraceWriter::create_with(output, opts.page_size, description, opts.writer)?;
    let total = Some(reader.file_bytes());
    let mut runs = Vec::new();
    let mut reported = 0u64;
    while reader.next_batch(&mut runs)? {
        for r in &runs {
            let program_page = map[r.page as usize];
            if !opts.kinds.keeps(r.kind) {
                continue;
            }
            if !opts.ranges.is_empty() {
                let a = program_page << in_shift;
                if !opts.ranges.iter().any(|g| a >= g.start && a < g.end) {
                    continue;
                }
            }
            writer.push_run(program_page >> shift, r.count, r.kind)?;
        }
        runs.clear();
        let pos = reader.position();
        if pos >= reported + PROGRESS_STEP {
            reported = pos;
            progress(pos, total);
        }
    }
    progress(reader.file_bytes(), total);
    writer.finish()
}

/// Reads a lackey stream (for [`crate::capture`]), emitting `(address, size, kind)`.
pub(crate) fn read_lackey_stream(
    input: &mut dyn BufRead,
    path: &Path,
    emit: &mut dyn FnMut(u64, u32, AccessKind) -> Result<(), TraceError>,
) -> Result<(), TraceError> {
    text::read_lackey(input, path, emit)
}
