//! [`KeySlots`]: the key bookkeeping that every slot-based index shares.

use std::borrow::Borrow;
use std::fmt;
use std::hash::Hash;
use std::mem::size_of;

use ahash::AHashMap;

use crate::mem::map_bytes;

/// The user's keys of an index that stores its documents in numbered slots (parallel
/// arrays indexed by slot): the map from key to slot, the key of every slot, and the
/// list of freed slots that later inserts reuse, newest freed first.
///
/// One type for what the banded LSH index, the LSH forest, the exact-signature index
/// and the Hamming index each kept: an index holds a `KeySlots`, asks it for a slot
/// when a document arrives ([`insert`](Self::insert), which says whether the slot is
/// new so the index grows its own arrays), and hands the slot back on removal
/// ([`remove`](Self::remove); or [`remove_keep_slot`](Self::remove_keep_slot) and
/// later [`release`](Self::release) when the index's tables still refer to the slot).
/// Slot numbers are `u32`, dense from 0.
///
/// # Example
///
/// ```
/// use near_dup::KeySlots;
/// let mut keys = KeySlots::new();
/// assert_eq!(keys.insert("a"), (0, true)); // a new slot at the end
/// assert_eq!(keys.insert("b"), (1, true));
/// assert_eq!(keys.remove("a"), Some(0));
/// assert_eq!(keys.insert("c"), (0, false)); // the freed slot, reused
/// assert_eq!((keys.len(), keys.slot_count()), (2, 2));
/// assert_eq!(keys.slot(&"c"), Some(0));
/// assert_eq!(keys.key(1), Some(&"b"));
/// ```
#[derive(Clone)]
pub struct KeySlots<K> {
    by_key: AHashMap<K, u32>,
    /// `keys[slot]`: the key of the document in `slot` (`None` for a free slot).
    keys: Vec<Option<K>>,
    free: Vec<u32>,
    /// Whether the keys by slot grow 1.5× at a time instead of doubling.
    by_half: bool,
}

impl<K> Default for KeySlots<K> {
    fn default() -> Self {
        KeySlots {
            by_key: AHashMap::new(),
            keys: Vec::new(),
            free: Vec::new(),
            by_half: false,
        }
    }
}

impl<K> fmt::Debug for KeySlots<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeySlots")
            .field("documents", &self.by_key.len())
            .field("slots", &self.keys.len())
            .field("free", &self.free.len())
            .finish()
    }
}

impl<K> KeySlots<K> {
    /// No key, no slot.
    ///
    /// # Example
    ///
    /// ```
    /// let keys = near_dup::KeySlots::<String>::new();
    /// assert!(keys.is_empty());
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The same bookkeeping whose keys by slot grow 1.5× at a time when a new slot
    /// needs room, instead of doubling: less slack, for an index whose other per-slot
    /// arrays grow that way too.
    ///
    /// # Example
    ///
    /// ```
    /// let mut keys = near_dup::KeySlots::new().grow_by_half();
    /// for k in 0..100u64 {
    ///     keys.insert(k);
    /// }
    /// assert_eq!(keys.len(), 100);
    /// ```
    #[must_use]
    pub fn grow_by_half(mut self) -> Self {
        self.by_half = true;
        self
    }

    /// The number of keys (documents) held.
    ///
    /// # Example
    ///
    /// ```
    /// let mut keys = near_dup::KeySlots::new();
    /// keys.insert(7u32);
    /// assert_eq!(keys.len(), 1);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    /// Whether no key is held.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(near_dup::KeySlots::<u8>::new().is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// The number of slots handed out so far, held or free: the length the index's
    /// per-slot arrays have.
    ///
    /// # Example
    ///
    /// ```
    /// let mut keys = near_dup::KeySlots::new();
    /// keys.insert('a');
    /// keys.remove(&'a');
    /// assert_eq!((keys.len(), keys.slot_count()), (0, 1));
    /// ```
    #[must_use]
    pub fn slot_count(&self) -> usize {
        self.keys.len()
    }

    /// The key of every slot, by slot number (`None` for a free one).
    ///
    /// # Example
    ///
    /// ```
    /// let mut keys = near_dup::KeySlots::new();
    /// keys.insert("a");
    /// keys.insert("b");
    /// keys.remove(&"a");
    /// assert_eq!(keys.by_slot(), &[None, Some("b")]);
    /// ```
    #[must_use]
    pub fn by_slot(&self) -> &[Option<K>] {
        &self.keys
    }

    /// The key of the document in `slot` (`None` for a free slot or one never handed
    /// out).
    ///
    /// # Example
    ///
    /// ```
    /// let mut keys = near_dup::KeySlots::new();
    /// keys.insert("a");
    /// assert_eq!((keys.key(0), keys.key(1)), (Some(&"a"), None));
    /// ```
    #[must_use]
    pub fn key(&self, slot: u32) -> Option<&K> {
        self.keys.get(slot as usize)?.as_ref()
    }

    /// Hands `slot`, taken from the index by
    /// [`remove_keep_slot`](Self::remove_keep_slot), back for reuse: it is the next
    /// slot [`insert`](Self::insert) returns.
    ///
    /// # Example
    ///
    /// ```
    /// let mut keys = near_dup::KeySlots::new();
    /// keys.insert("a");
    /// let slot = keys.remove_keep_slot(&"a").expect("held");
    /// assert_eq!(keys.insert("b"), (1, true)); // slot 0 is still in use
    /// keys.release(slot);
    /// assert_eq!(keys.insert("c"), (0, false));
    /// ```
    pub fn release(&mut self, slot: u32) {
        self.free.push(slot);
    }

    /// Hands every slot of `slots` back for reuse (as [`release`](Self::release) one
    /// by one, in order), leaving `slots` empty.
    ///
    /// # Example
    ///
    /// ```
    /// let mut keys = near_dup::KeySlots::new();
    /// keys.insert("a");
    /// keys.insert("b");
    /// let mut retired: Vec<u32> = ["a", "b"].iter().filter_map(|k| keys.remove_keep_slot(k)).collect();
    /// keys.release_all(&mut retired);
    /// assert!(retired.is_empty());
    /// assert_eq!(keys.insert("c"), (1, false)); // the last released first
    /// ```
    pub fn release_all(&mut self, slots: &mut Vec<u32>) {
        self.free.append(slots);
    }

    /// The bytes allocated for the key map, the keys by slot and the free list (by
    /// capacity, so growth slack shows; heap memory owned by the keys is not counted).
    ///
    /// # Example
    ///
    /// ```
    /// let mut keys = near_dup::KeySlots::new();
    /// assert_eq!(keys.memory_bytes(), 0);
    /// keys.insert(1u64);
    /// assert!(keys.memory_bytes() >= 8 + 4 + 16);
    /// ```
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        map_bytes(self.by_key.capacity(), size_of::<(K, u32)>())
            + self.keys.capacity() * size_of::<Option<K>>()
            + self.free.capacity() * size_of::<u32>()
    }
}

impl<K: Eq + Hash> KeySlots<K> {
    /// The slot of `key`, or `None` when it is not held (so `slot(key).is_some()` says
    /// whether it is held); the key can be given in any form it borrows as (`&str` for
    /// `String` keys).
    ///
    /// # Example
    ///
    /// ```
    /// let mut keys = near_dup::KeySlots::new();
    /// keys.insert(String::from("a"));
    /// assert_eq!((keys.slot("a"), keys.slot("b")), (Some(0), None));
    /// ```
    #[must_use]
    pub fn slot<Q>(&self, key: &Q) -> Option<u32>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.by_key.get(key).copied()
    }

    /// Every held key with its slot, in no particular order.
    ///
    /// # Example
    ///
    /// ```
    /// let mut keys = near_dup::KeySlots::new();
    /// keys.insert("a");
    /// keys.insert("b");
    /// let mut all: Vec<_> = keys.iter().collect();
    /// all.sort();
    /// assert_eq!(all, vec![(&"a", 0), (&"b", 1)]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (&K, u32)> + '_ {
        self.by_key.iter().map(|(k, &s)| (k, s))
    }

    /// Whether [`insert`](Self::insert) of `key` stays within `max_slots` slots: a
    /// slot is free, fewer than `max_slots` were handed out, or `key` is held (its
    /// re-insert reuses its slot once the index has removed it).
    ///
    /// # Example
    ///
    /// ```
    /// let mut keys = near_dup::KeySlots::new();
    /// keys.insert("a");
    /// assert!(!keys.has_room(&"b", 1));
    /// assert!(keys.has_room(&"a", 1) && keys.has_room(&"b", 2));
    /// ```
    #[must_use]
    pub fn has_room(&self, key: &K, max_slots: usize) -> bool {
        !self.free.is_empty() || self.keys.len() < max_slots || self.by_key.contains_key(key)
    }

    /// Makes room for `additional` more keys (a hint: a failed reservation is
    /// dropped).
    ///
    /// # Example
    ///
    /// ```
    /// let mut keys = near_dup::KeySlots::<u64>::new();
    /// keys.try_reserve(100);
    /// assert!(keys.memory_bytes() >= 100 * 16);
    /// ```
    pub fn try_reserve(&mut self, additional: usize) {
        let _ = self.by_key.try_reserve(additional);
        let _ = self.keys.try_reserve_exact(additional);
    }

    /// Makes room for `additional` more keys, as `Vec::reserve` (amortized growth).
    ///
    /// # Panics
    ///
    /// When the capacity overflows or the allocation fails, as `Vec::reserve`.
    ///
    /// # Example
    ///
    /// ```
    /// let mut keys = near_dup::KeySlots::<u64>::new();
    /// keys.reserve(10);
    /// assert!(keys.memory_bytes() >= 10 * 16);
    /// ```
    pub fn reserve(&mut self, additional: usize) {
        self.by_key.reserve(additional);
        self.keys.reserve(additional);
    }

    /// Removes `key` and frees its slot for reuse; returns the slot, or `None` when
    /// the key was not held.
    ///
    /// # Example
    ///
    /// ```
    /// let mut keys = near_dup::KeySlots::new();
    /// keys.insert("a");
    /// assert_eq!(keys.remove(&"a"), Some(0));
    /// assert_eq!(keys.remove(&"a"), None);
    /// ```
    pub fn remove<Q>(&mut self, key: &Q) -> Option<u32>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let slot = self.remove_keep_slot(key)?;
        self.free.push(slot);
        Some(slot)
    }

    /// Removes `key` but keeps its slot out of reuse until it is
    /// [released](Self::release) (for an index whose tables still refer to the slot);
    /// returns the slot, or `None` when the key was not held.
    ///
    /// # Example
    ///
    /// ```
    /// let mut keys = near_dup::KeySlots::new();
    /// keys.insert("a");
    /// assert_eq!(keys.remove_keep_slot(&"a"), Some(0));
    /// assert_eq!(keys.insert("b"), (1, true));
    /// ```
    pub fn remove_keep_slot<Q>(&mut self, key: &Q) -> Option<u32>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let slot = self.by_key.remove(key)?;
        self.keys[slot as usize] = None;
        Some(slot)
    }
}

impl<K: Clone + Eq + Hash> KeySlots<K> {
    /// Gives `key`, which is not held (remove it first), a slot: the most recently
    /// freed one, or a new one at the end. Returns the slot and whether it is new, in
    /// which case the index grows its per-slot arrays by one.
    ///
    /// A held `key` is not looked for (that would cost every insert a second hash
    /// lookup): inserting one leaves its old slot taken by no key.
    ///
    /// # Panics
    ///
    /// When all `2^32` slot numbers are taken (the index bounds its size below that
    /// with [`has_room`](Self::has_room)).
    ///
    /// # Example
    ///
    /// ```
    /// let mut keys = near_dup::KeySlots::new();
    /// assert_eq!(keys.insert(10u64), (0, true));
    /// assert_eq!(keys.insert(20u64), (1, true));
    /// ```
    pub fn insert(&mut self, key: K) -> (u32, bool) {
        let (slot, new) = match self.free.pop() {
            Some(slot) => {
                self.keys[slot as usize] = Some(key.clone());
                (slot, false)
            }
            None => {
                let slot = u32::try_from(self.keys.len())
                    .unwrap_or_else(|_| panic!("more than 2^32 slots in one index"));
                if self.by_half && self.keys.len() == self.keys.capacity() {
                    self.keys.reserve_exact(1.max(self.keys.len() / 2));
                }
                self.keys.push(Some(key.clone()));
                (slot, true)
            }
        };
        self.by_key.insert(key, slot);
        (slot, new)
    }
}
