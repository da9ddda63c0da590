//! Intrusive doubly-linked lists over dense page numbers: the links live in flat arrays indexed
//! by page, so moving a page costs a few stores and no allocation. Several lists may share one
//! [`Links`] as long as a page is in at most one of them at a time.

use super::NIL;

/// Previous/next links of every page.
#[derive(Clone, Debug, Default)]
pub(crate) struct Links {
    link: Vec<[u32; 2]>,
}

/// One list: head (newest), tail (oldest) and length.
#[derive(Clone, Copy, Debug)]
pub(crate) struct List {
    pub head: u32,
    pub tail: u32,
    pub len: u32,
}

impl Default for List {
    fn default() -> Self {
        List {
            head: NIL,
            tail: NIL,
            len: 0,
        }
    }
}

const PREV: usize = 0;
const NEXT: usize = 1;

impl Links {
    pub fn new(page_bound: u32) -> Self {
        Links {
            link: vec![[NIL; 2]; page_bound as usize],
        }
    }

    pub fn reserve_pages(&mut self, page_bound: u32) {
        if self.link.len() < page_bound as usize {
            self.link.resize(page_bound as usize, [NIL; 2]);
        }
    }

    /// The page after `x` towards the tail.
    #[inline]
    pub fn next(&self, x: u32) -> u32 {
        self.link[x as usize][NEXT]
    }

    /// The page before `x` towards the head.
    #[inline]
    pub fn prev(&self, x: u32) -> u32 {
        self.link[x as usize][PREV]
    }

    #[inline]
    pub fn push_front(&mut self, l: &mut List, x: u32) {
        push_front(&mut self.link, l, x);
    }

    /// Puts `x` at the tail of `l`.
    #[inline]
    pub fn push_back(&mut self, l: &mut List, x: u32) {
        self.link[x as usize] = [l.tail, NIL];
        if l.tail != NIL {
            self.link[l.tail as usize][NEXT] = x;
        } else {
            l.head = x;
        }
        l.tail = x;
        l.len += 1;
    }

    #[inline]
    pub fn remove(&mut self, l: &mut List, x: u32) {
        remove(&mut self.link, l, x);
    }

    /// The links as a slice, for a loop that borrows them once ([`push_front`], [`remove`]).
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [[u32; 2]] {
        &mut self.link
    }

    /// Moves `x`, already in `l`, to the head.
    #[inline]
    pub fn move_front(&mut self, l: &mut List, x: u32) {
        if l.head != x {
            self.remove(l, x);
            self.push_front(l, x);
        }
    }

    /// Removes and returns the tail, or `NIL`.
    #[inline]
    pub fn pop_back(&mut self, l: &mut List) -> u32 {
        let t = l.tail;
        if t != NIL {
            self.remove(l, t);
        }
        t
    }

    /// The pages of `l` from head to tail.
    pub fn collect(&self, l: &List) -> Vec<u32> {
        let mut v = Vec::with_capacity(l.len as usize);
        let mut x = l.head;
        while x != NIL {
            v.push(x);
            x = self.next(x);
        }
        v
    }
}

/// Puts `x` at the head of `l`, over links borrowed as a slice.
#[inline(always)]
pub(crate) fn push_front(link: &mut [[u32; 2]], l: &mut List, x: u32) {
    link[x as usize] = [NIL, l.head];
    if l.head != NIL {
        link[l.head as usize][PREV] = x;
    } else {
        l.tail = x;
    }
    l.head = x;
    l.len += 1;
}

/// Takes `x` out of `l`, over links borrowed as a slice.
#[inline(always)]
pub(crate) fn remove(link: &mut [[u32; 2]], l: &mut List, x: u32) {
    let [p, n] = link[x as usize];
    if p != NIL {
        link[p as usize][NEXT] = n;
    } else {
        l.head = n;
    }
    if n != NIL {
        link[n as usize][PREV] = p;
    } else {
        l.tail = p;
    }
    l.len -= 1;
}
