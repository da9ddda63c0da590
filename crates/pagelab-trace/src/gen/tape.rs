//! Tape I/O of the 44X programs through a buffer in the traced store, each block passing
//! through the run-time's nucleus ([`super::runtime::io_block`]).

use super::memory::{Array1, Stmt, TracedMemory};

/// A tape unit read or written through one buffer in the 44X store.
///
/// The paper's programs read their input from tape and write their output to tape (Brawn &
/// Gustavson 1968, "Measurement techniques"). We model binary tape I/O as blocks of
/// `buffer_words` words: when the buffer is empty (reading) the channel stores a whole block into
/// it (`Store` references, which need the buffer page resident); then the FORTRAN I/O library
/// moves one item per list element between the buffer and the variable (a library statement
/// fetch, a `Load` and a `Store`). Writing is the mirror image; a full buffer is emptied by the
/// channel (`Load` references). Logical records are packed across blocks (deviation: FORTRAN
/// binary records had their own control words).
#[derive(Clone, Debug)]
pub struct Tape {
    buffer: Array1,
    item: Stmt,
    block: Stmt,
    pos: u64,
    fill: u64,
    input: Vec<u64>,
    next_in: usize,
    output: Vec<u64>,
}

impl Tape {
    /// A tape over `input` (words to be read), using `buffer` and the library statements `item`
    /// (per list element) and `block` (per block transferred).
    pub fn new(buffer: Array1, item: Stmt, block: Stmt, input: Vec<u64>) -> Self {
        Tape {
            buffer,
            item,
            block,
            pos: 0,
            fill: 0,
            input,
            next_in: 0,
            output: Vec::new(),
        }
    }

    /// Reads the next input word into `dest`. Returns false (and makes no reference) when the
    /// input is exhausted.
    pub fn read_into(&mut self, mem: &mut TracedMemory, dest: u64) -> bool {
        if self.pos == self.fill {
            let left = (self.input.len() - self.next_in) as u64;
            if left == 0 {
                return false;
            }
            mem.exec(self.block);
            super::runtime::io_block(mem);
            self.fill = left.min(self.buffer.len);
            for k in 0..self.fill {
                mem.store(self.buffer.at(k), self.input[self.next_in]);
                self.next_in += 1;
            }
            self.pos = 0;
        }
        mem.exec(self.item);
        let w = mem.load(self.buffer.at(self.pos));
        mem.store(dest, w);
        self.pos += 1;
        true
    }

    /// Writes the word at `src` to the output tape.
    pub fn write_from(&mut self, mem: &mut TracedMemory, src: u64) {
        mem.exec(self.item);
        let w = mem.load(src);
        mem.store(self.buffer.at(self.fill), w);
        self.fill += 1;
        if self.fill == self.buffer.len {
            self.flush(mem);
        }
    }

    /// Empties a partly filled output buffer onto the tape.
    pub fn flush(&mut self, mem: &mut TracedMemory) {
        if self.fill == 0 {
            return;
        }
        mem.exec(self.block);
        super::runtime::io_block(mem);
        for k in 0..self.fill {
            let w = mem.load(self.buffer.at(k));
            self.output.push(w);
        }
        self.fill = 0;
    }

    /// Switches the unit from reading to writing (the buffer is reused).
    pub fn rewind_for_output(&mut self) {
        self.pos = 0;
        self.fill = 0;
    }

    /// The words written so far.
    pub fn output(&self) -> &[u64] {
        &self.output
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tape_round_trip_goes_through_the_buffer() {
        let mut m = TracedMemory::new(1024, 1 << 12).unwrap();
        let item = m.stmt(3).unwrap();
        let block = m.stmt(5).unwrap();
        let x = m.array1("x", 5).unwrap();
        let buf = m.array1("buffer", 2).unwrap();
        let mut t = Tape::new(buf, item, block, vec![10, 11, 12, 13, 14]);
        for i in 0..5 {
            assert!(t.read_into(&mut m, x.at(i)));
        }
        assert!(!t.read_into(&mut m, x.at(0)));
        t.rewind_for_output();
        for i in (0..5).rev() {
            t.write_from(&mut m, x.at(i));
        }
        t.flush(&mut m);
        assert_eq!(t.output(), &[14, 13, 12, 11, 10]);
    }
}
