//! The baseline that `make bench` holds the end-to-end simulation against: the trace already
//! decoded into one dense page index per reference, in memory, and a plain loop of LRU, FIFO or
//! CLOCK over it, one reference at a time. `seconds` times the loop alone; `load_seconds`
//! times reading, decoding and expanding the file into that array, once, so that the loop's
//! end-to-end cost (load plus loop) can be set beside a simulator that reads the file too.
//!
//! ```text
//! cargo run --release -p pagelab-trace --example dense_loop -- TRACE FRAMES [POLICY...]
//! ```
//!
//! Prints one JSON line per policy:
//! `{"policy", "frames", "references", "faults", "seconds", "load_seconds"}`.
//! The loops share no code with `pagelab_trace::policy`, so they also cross-check its counts.

use pagelab_trace::format::TraceReader;
use std::path::Path;
use std::time::Instant;

const NIL: u32 = u32::MAX;

/// LRU: an intrusive doubly-linked recency list over page indices.
fn lru(refs: &[u32], pages: usize, frames: u32) -> u64 {
    let (mut prev, mut next) = (vec![NIL; pages], vec![NIL; pages]);
    let mut resident = vec![false; pages];
    let (mut head, mut tail, mut len, mut faults) = (NIL, NIL, 0u32, 0u64);
    for &p in refs {
        let pu = p as usize;
        if resident[pu] {
            if head == p {
                continue;
            }
            let (a, b) = (prev[pu], next[pu]);
            next[a as usize] = b;
            if b != NIL {
                prev[b as usize] = a;
            } else {
                tail = a;
            }
        } else {
            faults += 1;
            if len == frames {
                let t = tail;
                tail = prev[t as usize];
                if tail != NIL {
                    next[tail as usize] = NIL;
                } else {
                    head = NIL;
                }
                resident[t as usize] = false;
            } else {
                len += 1;
            }
            resident[pu] = true;
        }
        prev[pu] = NIL;
        next[pu] = head;
        if head != NIL {
            prev[head as usize] = p;
        } else {
            tail = p;
        }
        head = p;
    }
    faults
}

/// FIFO: a ring of frames and a residency flag per page.
fn fifo(refs: &[u32], pages: usize, frames: u32) -> u64 {
    let mut ring = vec![NIL; frames.min(pages as u32) as usize];
    let mut resident = vec![false; pages];
    let (mut hand, mut faults) = (0usize, 0u64);
    for &p in refs {
        if resident[p as usize] {
            continue;
        }
        faults += 1;
        let v = ring[hand];
        if v != NIL {
            resident[v as usize] = false;
        }
        ring[hand] = p;
        resident[p as usize] = true;
        hand = if hand + 1 == ring.len() { 0 } else { hand + 1 };
    }
    faults
}

/// CLOCK with a page loaded with its bit clear (libCacheSim's Clock; pagelab's
/// `bit_on_load = false`), so a second reference is needed to set it.
fn clock(refs: &[u32], pages: usize, frames: u32) -> u64 {
    let n = frames.min(pages as u32) as usize;
    let (mut ring, mut bit) = (vec![NIL; n], vec![false; n]);
    let mut frame_of = vec![NIL; pages];
    let (mut hand, mut faults) = (0usize, 0u64);
    for &p in refs {
        let f = frame_of[p as usize];
        if f != NIL {
            bit[f as usize] = true;
            continue;
        }
        faults += 1;
        while bit[hand] {
            bit[hand] = false;
            hand = if hand + 1 == n { 0 } else { hand + 1 };
        }
        let v = ring[hand];
        if v != NIL {
            frame_of[v as usize] = NIL;
        }
        ring[hand] = p;
        bit[hand] = false;
        frame_of[p as usize] = hand as u32;
        hand = if hand + 1 == n { 0 } else { hand + 1 };
    }
    faults
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: dense_loop TRACE FRAMES [lru|fifo|clock ...]";
    let (Some(path), Some(frames)) = (args.get(1), args.get(2)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let Ok(frames) = frames.parse::<u32>().map(|f| f.max(1)) else {
        eprintln!("FRAMES: {frames:?} is not a number of frames; {usage}");
        std::process::exit(2);
    };
    let policies: Vec<&str> = match args.get(3..) {
        Some(p) if !p.is_empty() => p.iter().map(String::as_str).collect(),
        _ => vec!["lru", "fifo", "clock"],
    };
    let loading = Instant::now();
    let mut reader = match TraceReader::open(Path::new(path)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let runs = reader.read_all().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1);
    });
    let pages = reader.distinct_pages() as usize;
    let mut refs = Vec::with_capacity(reader.references() as usize);
    for r in &runs {
        refs.extend(std::iter::repeat_n(r.page, r.count as usize));
    }
    drop(runs);
    let load_seconds = loading.elapsed().as_secs_f64();
    for name in policies {
        let run: fn(&[u32], usize, u32) -> u64 = match name {
            "lru" => lru,
            "fifo" => fifo,
            "clock" => clock,
            other => {
                eprintln!("policy {other:?}: expected lru, fifo or clock");
                std::process::exit(2);
            }
        };
        let t = Instant::now();
        let faults = run(&refs, pages, frames);
        let seconds = t.elapsed().as_secs_f64();
        println!(
            "{{\"policy\": \"{name}\", \"frames\": {frames}, \"references\": {}, \"faults\": {faults}, \"seconds\": {seconds:.4}, \"load_seconds\": {load_seconds:.4}}}",
            refs.len()
        );
    }
}
