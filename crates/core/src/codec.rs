//! The versioned byte form shared by every persisted ndd value (signatures, indexes,
//! lexicons).
//!
//! Layout, all integers little-endian:
//!
//! ```text
//! magic  4 bytes   what the value is (for example b"MHS1" for a MinHash signature)
//! version u16      the layout version of that value; readers refuse newer versions
//! body   …         the value's fields, written in a fixed order
//! check  u64       XXH3-64 (seed 0) of everything before it
//! ```
//!
//! The body carries the parameters needed to refuse mismatched comparisons (the
//! [`SchemeId`](crate::SchemeId) and sizes). The trailing checksum turns any
//! truncation or bit flip into [`Error::CorruptData`] instead of a silently different
//! signature; length prefixes are checked against the bytes that remain before
//! anything is allocated, so corrupt input cannot request a huge allocation.
//!
//! # Example
//!
//! ```
//! use near_dup::codec::{ByteReader, ByteWriter};
//! let mut w = ByteWriter::new(*b"DEMO", 1);
//! w.u64(42);
//! w.u64_slice(&[1, 2, 3]);
//! let bytes = w.finish();
//!
//! let (mut r, version) = ByteReader::new(&bytes, *b"DEMO", 1)?;
//! assert_eq!(version, 1);
//! assert_eq!(r.u64()?, 42);
//! assert_eq!(r.u64_vec()?, vec![1, 2, 3]);
//! r.finish()?;
//!
//! // A flipped bit is caught.
//! let mut bad = bytes.clone();
//! bad[8] ^= 1;
//! assert!(ByteReader::new(&bad, *b"DEMO", 1).is_err());
//! # Ok::<(), near_dup::Error>(())
//! ```

use crate::{Error, hash::stable_hash64};

const HEADER: usize = 6;
const CHECK: usize = 8;

/// Writes the versioned byte form (see the [module docs](self)).
///
/// # Example
///
/// ```
/// let mut w = near_dup::codec::ByteWriter::new(*b"DEMO", 1);
/// w.u8(7);
/// assert_eq!(w.finish().len(), 4 + 2 + 1 + 8);
/// ```
#[derive(Debug, Clone)]
pub struct ByteWriter {
    buf: Vec<u8>,
}

impl ByteWriter {
    /// Starts a value of kind `magic` at layout `version`.
    ///
    /// # Example
    ///
    /// ```
    /// let w = near_dup::codec::ByteWriter::new(*b"DEMO", 3);
    /// assert_eq!(&w.finish()[..6], b"DEMO\x03\x00");
    /// ```
    #[must_use]
    pub fn new(magic: [u8; 4], version: u16) -> Self {
        let mut buf = Vec::with_capacity(64);
        buf.extend_from_slice(&magic);
        buf.extend_from_slice(&version.to_le_bytes());
        ByteWriter { buf }
    }

    /// Starts a value of kind `magic` at layout `version`, with room for `bytes` bytes
    /// of body (a hint: large values are written without regrowing the buffer).
    ///
    /// # Example
    ///
    /// ```
    /// let mut w = near_dup::codec::ByteWriter::with_capacity(*b"DEMO", 1, 800);
    /// for i in 0..100u64 {
    ///     w.u64(i);
    /// }
    /// assert_eq!(w.finish().len(), 6 + 800 + 8);
    /// ```
    #[must_use]
    pub fn with_capacity(magic: [u8; 4], version: u16, bytes: usize) -> Self {
        let mut buf = Vec::new();
        let _ = buf.try_reserve_exact(bytes.saturating_add(HEADER + CHECK));
        buf.extend_from_slice(&magic);
        buf.extend_from_slice(&version.to_le_bytes());
        ByteWriter { buf }
    }

    /// Appends one byte.
    ///
    /// # Example
    ///
    /// ```
    /// let mut w = near_dup::codec::ByteWriter::new(*b"DEMO", 1);
    /// w.u8(1);
    /// ```
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    /// Appends a `u32`.
    ///
    /// # Example
    ///
    /// ```
    /// let mut w = near_dup::codec::ByteWriter::new(*b"DEMO", 1);
    /// w.u32(1);
    /// ```
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    /// Appends a `u64`.
    ///
    /// # Example
    ///
    /// ```
    /// let mut w = near_dup::codec::ByteWriter::new(*b"DEMO", 1);
    /// w.u64(1);
    /// ```
    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    /// Appends an `f64` (its IEEE-754 bits).
    ///
    /// # Example
    ///
    /// ```
    /// let mut w = near_dup::codec::ByteWriter::new(*b"DEMO", 1);
    /// w.f64(0.5);
    /// ```
    pub fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }

    /// Appends a length-prefixed slice of `u64`.
    ///
    /// # Example
    ///
    /// ```
    /// let mut w = near_dup::codec::ByteWriter::new(*b"DEMO", 1);
    /// w.u64_slice(&[1, 2]);
    /// ```
    pub fn u64_slice(&mut self, v: &[u64]) {
        self.u64(v.len() as u64);
        // Room for the checksum too, so that a value ending in a slice is finished
        // without regrowing; the copy loop over fixed 8-byte chunks vectorizes.
        self.buf.reserve(v.len() * 8 + CHECK);
        let start = self.buf.len();
        self.buf.resize(start + v.len() * 8, 0);
        for (dst, &x) in self.buf[start..].chunks_exact_mut(8).zip(v) {
            dst.copy_from_slice(&x.to_le_bytes());
        }
    }

    /// Appends raw bytes with a length prefix.
    ///
    /// # Example
    ///
    /// ```
    /// let mut w = near_dup::codec::ByteWriter::new(*b"DEMO", 1);
    /// w.bytes(b"abc");
    /// ```
    pub fn bytes(&mut self, v: &[u8]) {
        self.u64(v.len() as u64);
        self.buf.extend_from_slice(v);
    }

    /// Appends the checksum and returns the bytes.
    ///
    /// # Example
    ///
    /// ```
    /// let bytes = near_dup::codec::ByteWriter::new(*b"DEMO", 1).finish();
    /// assert_eq!(bytes.len(), 14);
    /// ```
    #[must_use]
    pub fn finish(mut self) -> Vec<u8> {
        let check = stable_hash64(&self.buf, 0);
        self.buf.extend_from_slice(&check.to_le_bytes());
        self.buf
    }
}

/// Reads the versioned byte form, checking magic, version and checksum up front.
///
/// Every read returns [`Error::CorruptData`] instead of panicking when the bytes run
/// out; [`finish`](Self::finish) refuses trailing bytes.
///
/// # Example
///
/// ```
/// use near_dup::codec::{ByteReader, ByteWriter};
/// let mut w = ByteWriter::new(*b"DEMO", 1);
/// w.u32(9);
/// let bytes = w.finish();
/// assert!(ByteReader::new(&bytes[..bytes.len() - 1], *b"DEMO", 1).is_err()); // truncated
/// assert!(ByteReader::new(&bytes, *b"OTHR", 1).is_err()); // another kind of value
/// let (mut r, _) = ByteReader::new(&bytes, *b"DEMO", 1)?;
/// assert_eq!(r.u32()?, 9);
/// assert!(r.u32().is_err()); // nothing left
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ByteReader<'a> {
    body: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    /// Checks that `bytes` hold a value of kind `magic` at a version no newer than
    /// `max_version`, with a valid checksum; returns a reader over the body and the
    /// version found.
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] for short input, another magic, a newer version, or a
    /// checksum mismatch.
    ///
    /// # Example
    ///
    /// ```
    /// let bytes = near_dup::codec::ByteWriter::new(*b"DEMO", 2).finish();
    /// assert!(near_dup::codec::ByteReader::new(&bytes, *b"DEMO", 1).is_err()); // too new
    /// ```
    pub fn new(bytes: &'a [u8], magic: [u8; 4], max_version: u16) -> Result<(Self, u16), Error> {
        if bytes.len() < HEADER + CHECK {
            return Err(Error::corrupt_data(format!(
                "{} bytes is shorter than the {}-byte header and checksum",
                bytes.len(),
                HEADER + CHECK
            )));
        }
        let (data, check) = bytes.split_at(bytes.len() - CHECK);
        let mut c = [0u8; 8];
        c.copy_from_slice(check);
        if stable_hash64(data, 0) != u64::from_le_bytes(c) {
            return Err(Error::corrupt_data("checksum mismatch"));
        }
        if data[..4] != magic {
            return Err(Error::corrupt_data(format!(
                "expected a {:?} value, found magic {:?}",
                String::from_utf8_lossy(&magic),
                String::from_utf8_lossy(&data[..4])
            )));
        }
        let version = u16::from_le_bytes([data[4], data[5]]);
        if version == 0 || version > max_version {
            return Err(Error::corrupt_data(format!(
                "layout version {version} is not supported (this build reads 1..={max_version})"
            )));
        }
        Ok((
            ByteReader {
                body: &data[HEADER..],
                pos: 0,
            },
            version,
        ))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let rest = &self.body[self.pos..];
        if rest.len() < n {
            return Err(Error::corrupt_data(format!(
                "truncated: needed {n} more bytes at offset {}, {} left",
                self.pos,
                rest.len()
            )));
        }
        self.pos += n;
        Ok(&rest[..n])
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    /// Reads one byte.
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] when no bytes remain.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::codec::*;
    /// let mut w = ByteWriter::new(*b"DEMO", 1);
    /// w.u8(5);
    /// let b = w.finish();
    /// assert_eq!(ByteReader::new(&b, *b"DEMO", 1)?.0.u8()?, 5);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.take(1)?[0])
    }

    /// Reads a `u32`.
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] when fewer than 4 bytes remain.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::codec::*;
    /// let mut w = ByteWriter::new(*b"DEMO", 1);
    /// w.u32(5);
    /// let b = w.finish();
    /// assert_eq!(ByteReader::new(&b, *b"DEMO", 1)?.0.u32()?, 5);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn u32(&mut self) -> Result<u32, Error> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    /// Reads a `u64`.
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] when fewer than 8 bytes remain.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::codec::*;
    /// let mut w = ByteWriter::new(*b"DEMO", 1);
    /// w.u64(5);
    /// let b = w.finish();
    /// assert_eq!(ByteReader::new(&b, *b"DEMO", 1)?.0.u64()?, 5);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn u64(&mut self) -> Result<u64, Error> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// Reads an `f64`.
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] when fewer than 8 bytes remain.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::codec::*;
    /// let mut w = ByteWriter::new(*b"DEMO", 1);
    /// w.f64(0.25);
    /// let b = w.finish();
    /// assert_eq!(ByteReader::new(&b, *b"DEMO", 1)?.0.f64()?, 0.25);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn f64(&mut self) -> Result<f64, Error> {
        Ok(f64::from_bits(self.u64()?))
    }

    /// Reads a length prefix for elements of `elem_size` bytes, checking that that
    /// many bytes remain (so corrupt input cannot request a huge allocation).
    fn len_prefix(&mut self, elem_size: usize) -> Result<usize, Error> {
        let n = self.u64()?;
        let left = self.body.len() - self.pos;
        match usize::try_from(n) {
            Ok(n) if n.checked_mul(elem_size).is_some_and(|b| b <= left) => Ok(n),
            _ => Err(Error::corrupt_data(format!(
                "length prefix {n} exceeds the {left} bytes that remain"
            ))),
        }
    }

    /// Reads a length-prefixed slice of `u64`.
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] when the prefix claims more than remains.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::codec::*;
    /// let mut w = ByteWriter::new(*b"DEMO", 1);
    /// w.u64_slice(&[4, 5]);
    /// let b = w.finish();
    /// assert_eq!(ByteReader::new(&b, *b"DEMO", 1)?.0.u64_vec()?, vec![4, 5]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn u64_vec(&mut self) -> Result<Vec<u64>, Error> {
        let n = self.len_prefix(8)?;
        let raw = self.take(n * 8)?;
        Ok(raw
            .chunks_exact(8)
            .map(|c| {
                let mut a = [0u8; 8];
                a.copy_from_slice(c);
                u64::from_le_bytes(a)
            })
            .collect())
    }

    /// Reads length-prefixed raw bytes.
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] when the prefix claims more than remains.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::codec::*;
    /// let mut w = ByteWriter::new(*b"DEMO", 1);
    /// w.bytes(b"hi");
    /// let b = w.finish();
    /// assert_eq!(ByteReader::new(&b, *b"DEMO", 1)?.0.bytes()?, b"hi");
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn bytes(&mut self) -> Result<&'a [u8], Error> {
        let n = self.len_prefix(1)?;
        self.take(n)
    }

    /// The number of body bytes not read yet: an upper bound for sizing what a count
    /// read from the bytes may claim (each element takes at least one byte), so
    /// corrupt input cannot request a huge allocation.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::codec::*;
    /// let mut w = ByteWriter::new(*b"DEMO", 1);
    /// w.u64(1);
    /// w.u32(2);
    /// let b = w.finish();
    /// let (mut r, _) = ByteReader::new(&b, *b"DEMO", 1)?;
    /// assert_eq!(r.remaining(), 12);
    /// r.u64()?;
    /// assert_eq!(r.remaining(), 4);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn remaining(&self) -> usize {
        self.body.len() - self.pos
    }

    /// Checks that the whole body was read.
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] when bytes remain.
    ///
    /// # Example
    ///
    /// ```
    /// # use near_dup::codec::*;
    /// let b = ByteWriter::new(*b"DEMO", 1).finish();
    /// ByteReader::new(&b, *b"DEMO", 1)?.0.finish()?;
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn finish(self) -> Result<(), Error> {
        let left = self.body.len() - self.pos;
        if left == 0 {
            Ok(())
        } else {
            Err(Error::corrupt_data(format!(
                "{left} unexpected trailing bytes"
            )))
        }
    }
}

/// A value with a versioned byte form of its own (magic, version, parameters,
/// checksum: see the [module docs](self)), so that containers such as the indexes of
/// `ndd-lsh` can store it generically. Implemented by the signature types of the ndd
/// crates (MinHash, b-bit, SimHash, I-Match, `ndd-lsh`'s `PlainSlots` and
/// `SampledBits`) and by [`DocumentFrequencies`](crate::stats::DocumentFrequencies),
/// each forwarding to its inherent `to_bytes` / `from_bytes`.
///
/// `from_bytes(&x.to_bytes())` must give back a value equal to `x` in everything
/// observable (scheme, values), and must refuse truncated or altered bytes with
/// [`Error::CorruptData`] rather than panic.
///
/// # Example
///
/// ```
/// use near_dup::codec::{ByteForm, ByteReader, ByteWriter};
///
/// #[derive(Debug, PartialEq)]
/// struct Fingerprint(u64);
/// impl ByteForm for Fingerprint {
///     fn to_bytes(&self) -> Vec<u8> {
///         let mut w = ByteWriter::new(*b"FPRT", 1);
///         w.u64(self.0);
///         w.finish()
///     }
///     fn from_bytes(bytes: &[u8]) -> Result<Self, near_dup::Error> {
///         let (mut r, _) = ByteReader::new(bytes, *b"FPRT", 1)?;
///         let v = r.u64()?;
///         r.finish()?;
///         Ok(Fingerprint(v))
///     }
/// }
/// let bytes = Fingerprint(7).to_bytes();
/// assert_eq!(Fingerprint::from_bytes(&bytes)?, Fingerprint(7));
/// assert!(Fingerprint::from_bytes(&bytes[1..]).is_err());
/// # Ok::<(), near_dup::Error>(())
/// ```
pub trait ByteForm: Sized {
    /// The versioned byte form.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{codec::ByteForm, stats::DocumentFrequencies, SchemeId};
    /// let df = DocumentFrequencies::new(SchemeId::new("w").finish());
    /// assert_eq!(&ByteForm::to_bytes(&df)[..4], &df.to_bytes()[..4]);
    /// ```
    fn to_bytes(&self) -> Vec<u8>;

    /// Reads the form written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] for truncated, altered, foreign or newer-version bytes.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::{codec::ByteForm, stats::DocumentFrequencies};
    /// assert!(<DocumentFrequencies as ByteForm>::from_bytes(b"junk").is_err());
    /// ```
    fn from_bytes(bytes: &[u8]) -> Result<Self, Error>;
}

/// A document key that can be written into and read back from a byte form: what the
/// indexes of `ndd-lsh` need of their key type `K` to be saved and loaded.
///
/// Implemented for `u8`, `u16`, `u32`, `u64`, `usize` (written as a `u64`; a value
/// that does not fit the reading platform's `usize` is [`Error::CorruptData`]),
/// `i32`, `i64` (two's complement), `String` (UTF-8 checked on reading), `Vec<u8>`,
/// byte arrays `[u8; N]` (digests such as I-Match's SHA-1, written as is), and pairs
/// `(A, B)` of key types. Integers are fixed-width little-endian; strings and byte
/// vectors carry an 8-byte length prefix, checked against the bytes that remain
/// before anything is allocated.
///
/// Implement it for your own key type by writing its fields in a fixed order with
/// the [`ByteWriter`] methods and reading them back in the same order:
///
/// # Example
///
/// ```
/// use near_dup::codec::{ByteReader, ByteWriter, KeyCodec};
/// use near_dup::Error;
///
/// #[derive(Debug, Clone, PartialEq, Eq, Hash)]
/// struct DocRef {
///     shard: u32,
///     url: String,
/// }
/// impl KeyCodec for DocRef {
///     fn write_key(&self, w: &mut ByteWriter) {
///         self.shard.write_key(w);
///         self.url.write_key(w);
///     }
///     fn read_key(r: &mut ByteReader<'_>) -> Result<Self, Error> {
///         Ok(DocRef { shard: u32::read_key(r)?, url: String::read_key(r)? })
///     }
/// }
///
/// let key = DocRef { shard: 3, url: "https://example.org/a".into() };
/// let mut w = ByteWriter::new(*b"KEYS", 1);
/// key.write_key(&mut w);
/// let bytes = w.finish();
/// let (mut r, _) = ByteReader::new(&bytes, *b"KEYS", 1)?;
/// assert_eq!(DocRef::read_key(&mut r)?, key);
/// r.finish()?;
/// # Ok::<(), near_dup::Error>(())
/// ```
pub trait KeyCodec: Sized {
    /// Appends the key.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::codec::{ByteWriter, KeyCodec};
    /// let mut w = ByteWriter::new(*b"KEYS", 1);
    /// 7u32.write_key(&mut w);
    /// assert_eq!(w.finish().len(), 6 + 4 + 8);
    /// ```
    fn write_key(&self, w: &mut ByteWriter);

    /// Reads a key written by [`write_key`](Self::write_key).
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] when the bytes run out or do not hold a valid key.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::codec::{ByteReader, ByteWriter, KeyCodec};
    /// let mut w = ByteWriter::new(*b"KEYS", 1);
    /// String::from("doc-1").write_key(&mut w);
    /// let bytes = w.finish();
    /// let (mut r, _) = ByteReader::new(&bytes, *b"KEYS", 1)?;
    /// assert_eq!(String::read_key(&mut r)?, "doc-1");
    /// assert!(u32::read_key(&mut r).is_err()); // nothing left
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    fn read_key(r: &mut ByteReader<'_>) -> Result<Self, Error>;
}

/// [`KeyCodec`] for integers that [`ByteWriter`] writes and [`ByteReader`] reads as
/// they are, through their methods of the same name.
macro_rules! key_codec_direct {
    ($($int:ident),+) => {$(
        impl KeyCodec for $int {
            fn write_key(&self, w: &mut ByteWriter) {
                w.$int(*self);
            }
            fn read_key(r: &mut ByteReader<'_>) -> Result<Self, Error> {
                r.$int()
            }
        }
    )+};
}

key_codec_direct!(u8, u32, u64);

impl KeyCodec for u16 {
    fn write_key(&self, w: &mut ByteWriter) {
        w.u8(self.to_le_bytes()[0]);
        w.u8(self.to_le_bytes()[1]);
    }
    fn read_key(r: &mut ByteReader<'_>) -> Result<Self, Error> {
        Ok(u16::from_le_bytes([r.u8()?, r.u8()?]))
    }
}

impl KeyCodec for usize {
    fn write_key(&self, w: &mut ByteWriter) {
        w.u64(*self as u64);
    }
    fn read_key(r: &mut ByteReader<'_>) -> Result<Self, Error> {
        let v = r.u64()?;
        usize::try_from(v)
            .map_err(|_| Error::corrupt_data(format!("key {v} does not fit this platform's usize")))
    }
}

impl KeyCodec for i32 {
    fn write_key(&self, w: &mut ByteWriter) {
        w.u32(u32::from_le_bytes(self.to_le_bytes()));
    }
    fn read_key(r: &mut ByteReader<'_>) -> Result<Self, Error> {
        Ok(i32::from_le_bytes(r.u32()?.to_le_bytes()))
    }
}

impl KeyCodec for i64 {
    fn write_key(&self, w: &mut ByteWriter) {
        w.u64(u64::from_le_bytes(self.to_le_bytes()));
    }
    fn read_key(r: &mut ByteReader<'_>) -> Result<Self, Error> {
        Ok(i64::from_le_bytes(r.u64()?.to_le_bytes()))
    }
}

impl KeyCodec for String {
    fn write_key(&self, w: &mut ByteWriter) {
        w.bytes(self.as_bytes());
    }
    fn read_key(r: &mut ByteReader<'_>) -> Result<Self, Error> {
        let b = r.bytes()?;
        std::str::from_utf8(b)
            .map(str::to_owned)
            .map_err(|e| Error::corrupt_data(format!("a string key is not UTF-8: {e}")))
    }
}

impl KeyCodec for Vec<u8> {
    fn write_key(&self, w: &mut ByteWriter) {
        w.bytes(self);
    }
    fn read_key(r: &mut ByteReader<'_>) -> Result<Self, Error> {
        Ok(r.bytes()?.to_vec())
    }
}

/// Fixed-size byte arrays (digests such as I-Match's SHA-1) are written as their `N`
/// bytes, with no length prefix.
impl<const N: usize> KeyCodec for [u8; N] {
    fn write_key(&self, w: &mut ByteWriter) {
        for &b in self {
            w.u8(b);
        }
    }
    fn read_key(r: &mut ByteReader<'_>) -> Result<Self, Error> {
        let mut out = [0u8; N];
        for b in &mut out {
            *b = r.u8()?;
        }
        Ok(out)
    }
}

impl<A: KeyCodec, B: KeyCodec> KeyCodec for (A, B) {
    fn write_key(&self, w: &mut ByteWriter) {
        self.0.write_key(w);
        self.1.write_key(w);
    }
    fn read_key(r: &mut ByteReader<'_>) -> Result<Self, Error> {
        Ok((A::read_key(r)?, B::read_key(r)?))
    }
}

/// Implements `serde::Serialize` and `serde::Deserialize` for types with a versioned
/// byte form (`fn to_bytes(&self) -> Vec<u8>` and
/// `fn from_bytes(&[u8]) -> Result<Self, ndd_core::Error>`): the value is written as
/// those bytes, so every serde format gets the same checks on the way in (magic,
/// version, checksum, contents) and corrupt input is a deserialization error, never a
/// value with wrong contents. Formats without a bytes type (JSON) carry a sequence of
/// numbers.
///
/// For the `serde` features of the ndd crates; the calling crate depends on `serde`
/// and on `ndd-core` with its feature `serde`.
///
/// # Example
///
/// ```
/// use near_dup::codec::{ByteReader, ByteWriter};
///
/// #[derive(Debug, PartialEq)]
/// struct Pair(u64, u64);
/// impl Pair {
///     fn to_bytes(&self) -> Vec<u8> {
///         let mut w = ByteWriter::new(*b"PAIR", 1);
///         w.u64(self.0);
///         w.u64(self.1);
///         w.finish()
///     }
///     fn from_bytes(bytes: &[u8]) -> Result<Self, near_dup::Error> {
///         let (mut r, _) = ByteReader::new(bytes, *b"PAIR", 1)?;
///         let pair = Pair(r.u64()?, r.u64()?);
///         r.finish()?;
///         Ok(pair)
///     }
/// }
/// near_dup::impl_serde_via_bytes!(Pair);
///
/// let json = serde_json::to_string(&Pair(1, 2)).unwrap();
/// assert_eq!(serde_json::from_str::<Pair>(&json).unwrap(), Pair(1, 2));
/// assert!(serde_json::from_str::<Pair>("[1, 2, 3]").is_err()); // not a valid byte form
/// ```
#[macro_export]
macro_rules! impl_serde_via_bytes {
    ($($ty:ty),+ $(,)?) => {$(
        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(&self.to_bytes())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let bytes = $crate::codec::deserialize_byte_form(d, "an ndd value")?;
                <$ty>::from_bytes(&bytes).map_err(<D::Error as ::serde::de::Error>::custom)
            }
        }
    )+};
}

/// The live document slots of a chained bucket index (those with `Some` in
/// `slot_keys`) ordered so that every document comes after the older documents of
/// each of its buckets: a depth-first post-order along the chain links
/// `next[slot·width + i]` (which point from newer to older, `u32::MAX` ending a
/// chain). Inserting the documents in this order rebuilds every chain as it is; for an
/// index whose slots were never reused it is the slot order. The byte forms of
/// `ndd-lsh`'s `LshIndex` (one chain per band) and `ndd-index`'s `ExactIndex` (one per
/// coordinate) write their documents in this order.
///
/// # Example
///
/// ```
/// use near_dup::codec::chain_order;
/// const NIL: u32 = u32::MAX;
/// // Slot 0 was reused by the newest document: its chain links to slot 1 (older).
/// let keys = [Some("newest"), Some("older"), None];
/// let next = [1, NIL, NIL];
/// assert_eq!(chain_order(&keys, &next, 1), vec![1, 0]);
/// ```
#[must_use]
pub fn chain_order<K>(slot_keys: &[Option<K>], next: &[u32], width: usize) -> Vec<u32> {
    let mut done = vec![false; slot_keys.len()];
    let mut order = Vec::new();
    let mut stack: Vec<(u32, usize)> = Vec::new();
    for (start, key) in (0u32..).zip(slot_keys) {
        if key.is_none() || done[start as usize] {
            continue;
        }
        done[start as usize] = true;
        stack.push((start, 0));
        while let Some((d, i)) = stack.last_mut() {
            if *i < width {
                let older = next[*d as usize * width + *i];
                *i += 1;
                if older != u32::MAX && !done[older as usize] {
                    done[older as usize] = true;
                    stack.push((older, 0));
                }
            } else {
                order.push(*d);
                stack.pop();
            }
        }
    }
    order
}

/// Reads the byte form of an ndd value or index from any serde format: a byte string,
/// or, in formats without one (JSON), a sequence of numbers. The one reader behind
/// [`impl_serde_via_bytes!`](crate::impl_serde_via_bytes) and the `Deserialize`
/// implementations of the generic indexes (`ndd-lsh`, `ndd-index`); the caller checks
/// the bytes with its `from_bytes`. `what` names the value in the format's error
/// ("the byte form of {what}"). Feature `serde`.
///
/// # Errors
///
/// The format's error when the input is neither a byte string nor a sequence of
/// bytes.
///
/// # Example
///
/// ```
/// let mut json = serde_json::Deserializer::from_str("[1, 2, 255]");
/// let bytes = near_dup::codec::deserialize_byte_form(&mut json, "an example")?;
/// assert_eq!(bytes, vec![1, 2, 255]);
/// let mut bad = serde_json::Deserializer::from_str("{}");
/// let err = near_dup::codec::deserialize_byte_form(&mut bad, "an example").unwrap_err();
/// assert!(err.to_string().contains("expected the byte form of an example"));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[cfg(feature = "serde")]
pub fn deserialize_byte_form<'de, D: serde::Deserializer<'de>>(
    d: D,
    what: &'static str,
) -> Result<Vec<u8>, D::Error> {
    use serde::de::{SeqAccess, Visitor};
    struct BytesVisitor(&'static str);
    impl<'v> Visitor<'v> for BytesVisitor {
        type Value = Vec<u8>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "the byte form of {}", self.0)
        }
        fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
            Ok(v.to_vec())
        }
        fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
            Ok(v)
        }
        fn visit_seq<A: SeqAccess<'v>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
            // Bounded: a corrupt length hint cannot ask for a huge buffer.
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
            while let Some(b) = seq.next_element::<u8>()? {
                out.push(b);
            }
            Ok(out)
        }
    }
    d.deserialize_bytes(BytesVisitor(what))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_truncation_and_bit_flip_is_an_error() {
        let mut w = ByteWriter::new(*b"TEST", 1);
        w.u64(7);
        w.u64_slice(&[1, 2, 3]);
        w.bytes(b"xyz");
        let bytes = w.finish();
        for cut in 0..bytes.len() {
            assert!(ByteReader::new(&bytes[..cut], *b"TEST", 1).is_err());
        }
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                assert!(
                    ByteReader::new(&b, *b"TEST", 1).is_err(),
                    "byte {i} bit {bit}"
                );
            }
        }
    }

    #[test]
    fn huge_length_prefix_is_refused_without_allocating() {
        let mut w = ByteWriter::new(*b"TEST", 1);
        w.u64(u64::MAX); // a length prefix with nothing behind it
        let bytes = w.finish();
        let (mut r, _) = ByteReader::new(&bytes, *b"TEST", 1).unwrap();
        assert!(r.u64_vec().is_err());
        let (mut r, _) = ByteReader::new(&bytes, *b"TEST", 1).unwrap();
        assert!(r.bytes().is_err());
    }

    fn key_round_trip<K: KeyCodec + PartialEq + std::fmt::Debug>(key: &K) {
        let mut w = ByteWriter::new(*b"KEYS", 1);
        key.write_key(&mut w);
        let bytes = w.finish();
        let (mut r, _) = ByteReader::new(&bytes, *b"KEYS", 1).unwrap();
        assert_eq!(&K::read_key(&mut r).unwrap(), key);
        r.finish().unwrap();
    }

    #[test]
    fn every_key_type_round_trips() {
        for v in [0u8, 1, 255] {
            key_round_trip(&v);
        }
        for v in [0u16, 258, u16::MAX] {
            key_round_trip(&v);
        }
        for v in [0u32, 7, u32::MAX] {
            key_round_trip(&v);
        }
        for v in [0u64, 7, u64::MAX] {
            key_round_trip(&v);
        }
        for v in [0usize, 7, usize::MAX] {
            key_round_trip(&v);
        }
        for v in [0i32, -1, i32::MIN, i32::MAX] {
            key_round_trip(&v);
        }
        for v in [0i64, -1, i64::MIN, i64::MAX] {
            key_round_trip(&v);
        }
        for v in ["", "a", "héllo wörld"] {
            key_round_trip(&v.to_string());
        }
        key_round_trip(&vec![0u8, 255, 3]);
        key_round_trip(&Vec::<u8>::new());
        key_round_trip(&[7u8; 20]);
        key_round_trip(&[0u8; 0]);
        key_round_trip(&(3u32, String::from("x")));
        key_round_trip(&((1u8, -2i64), vec![9u8]));
    }

    #[test]
    fn bad_keys_are_errors() {
        // Not UTF-8.
        let mut w = ByteWriter::new(*b"KEYS", 1);
        w.bytes(&[0xff, 0xfe]);
        let bytes = w.finish();
        let (mut r, _) = ByteReader::new(&bytes, *b"KEYS", 1).unwrap();
        assert_eq!(
            String::read_key(&mut r).unwrap_err().kind(),
            crate::ErrorKind::CorruptData
        );
        // A huge length prefix.
        let mut w = ByteWriter::new(*b"KEYS", 1);
        w.u64(u64::MAX);
        let bytes = w.finish();
        let (mut r, _) = ByteReader::new(&bytes, *b"KEYS", 1).unwrap();
        assert!(Vec::<u8>::read_key(&mut r).is_err());
        // Truncated.
        let bytes = ByteWriter::new(*b"KEYS", 1).finish();
        let (mut r, _) = ByteReader::new(&bytes, *b"KEYS", 1).unwrap();
        assert!(u16::read_key(&mut r).is_err());
    }

    #[cfg(target_pointer_width = "32")]
    #[test]
    fn usize_out_of_range_is_corrupt() {
        let mut w = ByteWriter::new(*b"KEYS", 1);
        w.u64(u64::MAX);
        let bytes = w.finish();
        let (mut r, _) = ByteReader::new(&bytes, *b"KEYS", 1).unwrap();
        assert!(usize::read_key(&mut r).is_err());
    }

    #[test]
    fn version_zero_and_trailing_bytes_are_refused() {
        let bytes = ByteWriter::new(*b"TEST", 0).finish();
        assert!(ByteReader::new(&bytes, *b"TEST", 1).is_err());
        let mut w = ByteWriter::new(*b"TEST", 1);
        w.u8(1);
        let bytes = w.finish();
        let (r, _) = ByteReader::new(&bytes, *b"TEST", 1).unwrap();
        assert!(r.finish().is_err());
    }
}
