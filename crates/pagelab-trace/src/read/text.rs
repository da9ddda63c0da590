//! Line-oriented readers: valgrind lackey, Pin's pinatrace, and one number per line.
//!
//! Each parser calls `emit(value, size, kind)` once per access: `value` is a byte address (lackey,
//! pinatrace) or the number as written (plain text), `size` the bytes touched (1 when the format
//! does not say).

use std::io::BufRead;
use std::path::Path;

use crate::{AccessKind, TraceError};

/// Longest part of a bad line quoted in an error [bytes].
const QUOTE: usize = 48;

fn quote(line: &[u8]) -> String {
    let s = String::from_utf8_lossy(&line[..line.len().min(QUOTE)]).into_owned();
    if line.len() > QUOTE {
        format!("{s}...")
    } else {
        s
    }
}

fn trim_end(mut l: &[u8]) -> &[u8] {
    while let [rest @ .., b'\n' | b'\r' | b' ' | b'\t'] = l {
        l = rest;
    }
    l
}

fn trim_start(mut l: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = l {
        l = rest;
    }
    l
}

/// Parses hexadecimal digits (no prefix); `None` if empty, not hex, or above 64 bits.
#[inline]
pub(crate) fn parse_hex(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 16 {
        return None;
    }
    let mut v = 0u64;
    for &c in s {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return None,
        };
        v = (v << 4) | d as u64;
    }
    Some(v)
}

/// Parses decimal digits; `None` if empty, not decimal, or above 64 bits.
#[inline]
pub(crate) fn parse_dec(s: &[u8]) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let mut v = 0u64;
    for &c in s {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?;
    }
    Some(v)
}

/// Parses `0x`-prefixed hexadecimal or decimal.
pub(crate) fn parse_number(s: &[u8]) -> Option<u64> {
    match s {
        [b'0', b'x' | b'X', rest @ ..] => parse_hex(rest),
        _ => parse_dec(s),
    }
}

/// What one lackey line holds.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum LackeyLine {
    /// Blank, or one of valgrind's own messages (`==pid== ...`, `--pid-- ...`).
    Skip,
    /// An access: address [bytes], size [bytes], kind.
    Access(u64, u32, AccessKind),
}

/// Parses one lackey line (`I  0400d7d4,8`, ` L 04222cac,4`, ` S ...`, ` M ...`).
#[inline]
pub(crate) fn parse_lackey_line(line: &[u8]) -> Option<LackeyLine> {
    let line = trim_end(line);
    if line.is_empty() || line.starts_with(b"==") || line.starts_with(b"--") {
        return Some(LackeyLine::Skip);
    }
    let (kind, rest) = match line {
        [b'I', b' ', rest @ ..] => (AccessKind::Instr, rest),
        [b' ', b'L', b' ', rest @ ..] => (AccessKind::Load, rest),
        [b' ', b'S', b' ', rest @ ..] => (AccessKind::Store, rest),
        [b' ', b'M', b' ', rest @ ..] => (AccessKind::Modify, rest),
        _ => return None,
    };
    let rest = trim_start(rest);
    let comma = rest.iter().position(|&c| c == b',')?;
    let addr = parse_hex(&rest[..comma])?;
    let size = parse_dec(&rest[comma + 1..])?;
    Some(LackeyLine::Access(addr, u32::try_from(size).ok()?, kind))
}

/// Parses one pinatrace line (`0x40054c: R 0x7ffd5a1c`); `Some(None)` for `#` lines and blanks.
#[inline]
pub(crate) fn parse_pinatrace_line(line: &[u8]) -> Option<Option<(u64, AccessKind)>> {
    let line = trim_end(line);
    if line.is_empty() || line[0] == b'#' {
        return Some(None);
    }
    let colon = line.iter().position(|&c| c == b':')?;
    parse_number(&line[..colon]).filter(|_| line.starts_with(b"0x"))?;
    let rest = trim_start(&line[colon + 1..]);
    let (kind, rest) = match rest {
        [b'R', b' ', rest @ ..] => (AccessKind::Load, rest),
        [b'W', b' ', rest @ ..] => (AccessKind::Store, rest),
        _ => return None,
    };
    let rest = trim_start(rest);
    if !rest.starts_with(b"0x") {
        return None;
    }
    Some(Some((parse_hex(&rest[2..])?, kind)))
}

/// Parses one plain text line: a number (decimal or `0x` hex), optionally a kind letter
/// (`I`, `L`/`R`, `S`/`W`, `M`), optionally a `#` comment. `Some(None)` for blank lines.
#[inline]
pub(crate) fn parse_text_line(line: &[u8]) -> Option<Option<(u64, AccessKind)>> {
    let line = match line.iter().position(|&c| c == b'#') {
        Some(h) => &line[..h],
        None => line,
    };
    let line = trim_start(trim_end(line));
    if line.is_empty() {
        return Some(None);
    }
    let mut tokens = line
        .split(|&c| c == b' ' || c == b'\t' || c == b',')
        .filter(|t| !t.is_empty());
    let value = parse_number(tokens.next()?)?;
    let kind = match tokens.next() {
        None => AccessKind::Load,
        Some([c]) => match c.to_ascii_uppercase() {
            b'I' => AccessKind::Instr,
            b'L' | b'R' => AccessKind::Load,
            b'S' | b'W' => AccessKind::Store,
            b'M' => AccessKind::Modify,
            _ => return None,
        },
        Some(_) => return None,
    };
    if tokens.next().is_some() {
        return None;
    }
    Some(Some((value, kind)))
}

/// Reads lines of `input` and hands each to `line_fn` with its one-based number.
fn for_each_line(
    input: &mut dyn BufRead,
    path: &Path,
    mut line_fn: impl FnMut(u64, &[u8]) -> Result<(), TraceError>,
) -> Result<(), TraceError> {
    let mut buf = Vec::with_capacity(256);
    let mut n = 0u64;
    loop {
        buf.clear();
        let got = input
            .read_until(b'\n', &mut buf)
            .map_err(|e| TraceError::io(path, e))?;
        if got == 0 {
            return Ok(());
        }
        n += 1;
        line_fn(n, &buf)?;
    }
}

/// Reads a lackey stream, emitting every access with its address and size.
pub(crate) fn read_lackey(
    input: &mut dyn BufRead,
    path: &Path,
    emit: &mut dyn FnMut(u64, u32, AccessKind) -> Result<(), TraceError>,
) -> Result<(), TraceError> {
    for_each_line(input, path, |n, line| match parse_lackey_line(line) {
        Some(LackeyLine::Access(a, s, k)) => emit(a, s, k),
        Some(LackeyLine::Skip) => Ok(()),
        None => Err(TraceError::Parse {
            path: path.to_path_buf(),
            line: n,
            what: format!(
                "expected a lackey record like ' L 04222cac,4' or a '==' message, found '{}'",
                quote(trim_end(line))
            ),
        }),
    })
}

/// Reads a pinatrace stream (data references only; the instruction address is not a fetch
/// stream, since pinatrace lists only instructions that touch memory).
pub(crate) fn read_pinatrace(
    input: &mut dyn BufRead,
    path: &Path,
    emit: &mut dyn FnMut(u64, u32, AccessKind) -> Result<(), TraceError>,
) -> Result<(), TraceError> {
    for_each_line(input, path, |n, line| match parse_pinatrace_line(line) {
        Some(Some((a, k))) => emit(a, 1, k),
        Some(None) => Ok(()),
        None => Err(TraceError::Parse {
            path: path.to_path_buf(),
            line: n,
            what: format!(
                "expected a pinatrace record like '0x40054c: R 0x7ffd5a1c', found '{}'",
                quote(trim_end(line))
            ),
        }),
    })
}

/// Reads one number per line.
pub(crate) fn read_text(
    input: &mut dyn BufRead,
    path: &Path,
    emit: &mut dyn FnMut(u64, u32, AccessKind) -> Result<(), TraceError>,
) -> Result<(), TraceError> {
    for_each_line(input, path, |n, line| match parse_text_line(line) {
        Some(Some((v, k))) => emit(v, 1, k),
        Some(None) => Ok(()),
        None => Err(TraceError::Parse {
            path: path.to_path_buf(),
            line: n,
            what: format!(
                "expected a page number or address (decimal or 0x-hex) and an optional kind \
                 letter I/L/S/M/R/W, found '{}'",
                quote(trim_end(line))
            ),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lackey_lines() {
        use AccessKind::*;
        assert_eq!(
            parse_lackey_line(b"I  0400d7d4,8\n"),
            Some(LackeyLine::Access(0x0400d7d4, 8, Instr))
        );
        assert_eq!(
            parse_lackey_line(b" L 04222cac,4"),
            Some(LackeyLine::Access(0x04222cac, 4, Load))
        );
        assert_eq!(
            parse_lackey_line(b" S 7ff000,16\r\n"),
            Some(LackeyLine::Access(0x7ff000, 16, Store))
        );
        assert_eq!(
            parse_lackey_line(b" M 10,1"),
            Some(LackeyLine::Access(0x10, 1, Modify))
        );
        assert_eq!(parse_lackey_line(b"==123== Lackey"), Some(LackeyLine::Skip));
        assert_eq!(parse_lackey_line(b""), Some(LackeyLine::Skip));
        assert_eq!(parse_lackey_line(b" X 10,1"), None);
        assert_eq!(parse_lackey_line(b" L 10"), None);
        assert_eq!(parse_lackey_line(b" L zz,1"), None);
    }

    #[test]
    fn pinatrace_lines() {
        assert_eq!(
            parse_pinatrace_line(b"0x40054c: R 0x7ffd5a1c\n"),
            Some(Some((0x7ffd5a1c, AccessKind::Load)))
        );
        assert_eq!(
            parse_pinatrace_line(b"0x1: W 0x20"),
            Some(Some((0x20, AccessKind::Store)))
        );
        assert_eq!(parse_pinatrace_line(b"#eof"), Some(None));
        assert_eq!(parse_pinatrace_line(b"0x1: X 0x20"), None);
        assert_eq!(parse_pinatrace_line(b"12: R 0x20"), None);
    }

    #[test]
    fn text_lines() {
        assert_eq!(parse_text_line(b"42\n"), Some(Some((42, AccessKind::Load))));
        assert_eq!(
            parse_text_line(b"0x2a w # c"),
            Some(Some((42, AccessKind::Store)))
        );
        assert_eq!(parse_text_line(b"7 I"), Some(Some((7, AccessKind::Instr))));
        assert_eq!(parse_text_line(b"  # only a comment"), Some(None));
        assert_eq!(parse_text_line(b"7 Q"), None);
        assert_eq!(parse_text_line(b"7 L 8"), None);
        assert_eq!(parse_text_line(b"abc"), None);
        assert_eq!(parse_text_line(b"99999999999999999999999"), None);
    }
}
