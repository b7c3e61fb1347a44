//! One band's bucket table: open addressing with linear probing from a band key to
//! the newest document of its bucket (the bucket's other documents are chained through
//! the index's `next` links).
//!
//! An entry is one `u64`: a 32-bit *fragment* of the band key above the head
//! document's slot. The fragment is the high half of the key mixed with a per-table
//! random seed: band keys come from signatures or from saved bytes, and keys chosen
//! to share their high bits (which an unmixed fragment would be) would pile up in one
//! probe run and make every insert linear (a crafted 1.28 MB index loaded in 6.3 s).
//! The home position is the fragment scaled into the capacity
//! (`fragment × capacity >> 32`, Lemire's multiply-shift range reduction), so the
//! table can grow by 1.5×
//! (not only by doubling) and rehashing never reads the band keys. A fragment match
//! is confirmed against the full key stored per document, so buckets are exact on
//! all 64 bits. Nothing observable depends on the table's layout: the byte form is
//! written in chain order and all-pairs walks visit buckets by their head slot.

/// "No document": the end of a chain, and the head of an empty table slot.
pub(crate) const NIL: u32 = u32::MAX;
/// An empty table slot (a live entry never has head `NIL`).
const EMPTY: u64 = u64::MAX;
/// Smallest capacity.
const MIN_CAP: usize = 8;
/// Largest capacity: homes are computed from 32-bit fragments.
const MAX_CAP: u64 = 1 << 32;
/// The most documents an index holds: `MAX_CAP` at the 3/4 load limit, so a band
/// table can always grow to hold a new key.
pub(crate) const MAX_DOCS: usize = 3 << 30;

/// What [`BandTable::probe`] found.
/// Where a key's probe starts: see [`BandTable::start`].
#[derive(Clone, Copy, Default)]
pub(crate) struct Start {
    pos: usize,
    entry: u64,
    fragment: u32,
}

pub(crate) enum Probe {
    /// The key's bucket: table position and head document.
    Found(usize, u32),
    /// The key is absent; this empty position is where it would go.
    Vacant(usize),
}

#[derive(Clone)]
pub(crate) struct BandTable {
    slots: Vec<u64>,
    len: usize,
    /// Mixed into every key before its fragment is taken (random per table).
    seed: u64,
}

/// A seed no input can predict: drawn from the process's random source through
/// ahash's `RandomState`.
fn random_seed() -> u64 {
    ahash::RandomState::new().hash_one(0x6C73_685F_7461_626Cu64) // "lsh_tabl"
}

impl BandTable {
    /// The fragment of `key`: the high half of `key` mixed with the table's seed.
    #[inline]
    fn fragment(&self, key: u64) -> u32 {
        (ndd_core::hash::mix64(key ^ self.seed) >> 32) as u32
    }
}

/// The fragment stored in an entry.
#[inline]
fn fragment(e: u64) -> u32 {
    (e >> 32) as u32
}

#[inline]
#[allow(clippy::cast_possible_truncation)] // the low half on purpose
fn head_of(entry: u64) -> u32 {
    entry as u32
}

#[inline]
fn entry(fragment: u32, head: u32) -> u64 {
    (u64::from(fragment) << 32) | u64::from(head)
}

#[inline]
#[allow(clippy::cast_possible_truncation)] // < cap, which is a usize
fn home(fragment: u32, cap: usize) -> usize {
    ((u64::from(fragment) * cap as u64) >> 32) as usize
}

/// The capacity that holds `n` keys within the load limit.
fn capacity_for(n: usize) -> usize {
    let want = (n as u64).saturating_mul(4) / 3 + 1;
    let want = want.clamp(MIN_CAP as u64, MAX_CAP);
    usize::try_from(want).unwrap_or(usize::MAX)
}

impl BandTable {
    /// A table sized for `n` keys (the hint is dropped if that allocation fails).
    pub(crate) fn with_capacity(n: usize) -> Self {
        let mut slots = Vec::new();
        let cap = capacity_for(n);
        if slots.try_reserve_exact(cap).is_ok() {
            slots.resize(cap, EMPTY);
        } else {
            slots.resize(MIN_CAP, EMPTY);
        }
        BandTable {
            slots,
            len: 0,
            seed: random_seed(),
        }
    }

    /// Number of buckets (distinct keys).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Bytes allocated.
    pub(crate) fn bytes(&self) -> usize {
        self.slots.capacity() * size_of::<u64>()
    }

    /// Makes room for one more key (grows by 1.5× past a 3/4 load).
    #[inline]
    pub(crate) fn reserve_one(&mut self) {
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
    }

    #[cold]
    fn grow(&mut self) {
        let cap = self.slots.len();
        let new_cap = (cap as u64 * 3 / 2).clamp(MIN_CAP as u64, MAX_CAP);
        let new_cap = usize::try_from(new_cap).unwrap_or(usize::MAX).max(cap + 1);
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; new_cap]);
        for e in old {
            if e != EMPTY {
                let mut pos = home(fragment(e), new_cap);
                while self.slots[pos] != EMPTY {
                    pos += 1;
                    if pos == new_cap {
                        pos = 0;
                    }
                }
                self.slots[pos] = e;
            }
        }
    }

    /// The fragment of `key`, its home position and the entry stored there. Loading
    /// it apart from [`probe_from`](Self::probe_from) lets the caller start the
    /// (likely cache-missing) loads of several bands before using any of them; the
    /// fragment (a mix of the key) is computed once for the probe and the insert.
    #[inline]
    pub(crate) fn start(&self, key: u64) -> Start {
        let fragment = self.fragment(key);
        let pos = home(fragment, self.slots.len());
        Start {
            pos,
            entry: self.slots[pos],
            fragment,
        }
    }

    /// Finds the bucket of the key `start` was made for; `confirm(head)` checks the
    /// full key of a head document whose fragment matches.
    #[inline]
    pub(crate) fn probe_from(&self, start: Start, confirm: impl Fn(u32) -> bool) -> Probe {
        let cap = self.slots.len();
        let f = start.fragment;
        let (mut pos, mut e) = (start.pos, start.entry);
        loop {
            if e == EMPTY {
                return Probe::Vacant(pos);
            }
            if fragment(e) == f && confirm(head_of(e)) {
                return Probe::Found(pos, head_of(e));
            }
            pos += 1;
            if pos == cap {
                pos = 0;
            }
            e = self.slots[pos];
        }
    }

    /// Finds `key`'s bucket (see [`probe_from`](Self::probe_from)).
    #[inline]
    pub(crate) fn probe(&self, key: u64, confirm: impl Fn(u32) -> bool) -> Probe {
        self.probe_from(self.start(key), confirm)
    }

    /// Replaces the head document of the bucket at `pos`.
    #[inline]
    pub(crate) fn set_head(&mut self, pos: usize, head: u32) {
        let e = self.slots[pos];
        self.slots[pos] = entry(fragment(e), head);
    }

    /// Fills the empty position `pos` (from [`probe`](Self::probe), after
    /// [`reserve_one`](Self::reserve_one)) with a new bucket.
    #[inline]
    pub(crate) fn occupy(&mut self, pos: usize, start: Start, head: u32) {
        self.slots[pos] = entry(start.fragment, head);
        self.len += 1;
    }

    /// Deletes the bucket at `pos`, shifting later entries of its probe run back
    /// (no tombstones).
    pub(crate) fn delete(&mut self, pos: usize) {
        let cap = self.slots.len();
        let mut hole = pos;
        let mut j = pos;
        loop {
            j += 1;
            if j == cap {
                j = 0;
            }
            let e = self.slots[j];
            if e == EMPTY {
                break;
            }
            // The entry at j may fill the hole unless its home lies cyclically in
            // (hole, j].
            let h = home(fragment(e), cap);
            let from_home = (j + cap - h) % cap;
            let from_hole = (j + cap - hole) % cap;
            if from_home >= from_hole {
                self.slots[hole] = e;
                hole = j;
            }
        }
        self.slots[hole] = EMPTY;
        self.len -= 1;
    }

    /// The head document of every bucket, in table order (which depends on the seed:
    /// sort before anything observable depends on it).
    pub(crate) fn heads(&self) -> impl Iterator<Item = u32> + '_ {
        self.slots
            .iter()
            .filter(|&&e| e != EMPTY)
            .map(|&e| head_of(e))
    }
}
