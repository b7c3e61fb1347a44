//! [`PlainSlots`]: slot values computed elsewhere, as a [`SlotSignature`].

use std::fmt;

use ndd_core::codec::{ByteForm, ByteReader, ByteWriter};
use ndd_core::{Error, Estimate, ExactSignature, SchemeId, Signature, SlotSignature};

const MAGIC: [u8; 4] = *b"PSLT";
const VERSION: u16 = 1;

/// A slot signature given as plain values with the scheme they were built under:
/// MinHash slots read back from storage or another system (a distributed job,
/// datasketch's `hashvalues`), synthetic signatures in tests, and the examples of this
/// crate.
///
/// Its [`similarity`](Signature::similarity) is the MinHash estimate: the fraction
/// `p` of slots that agree, with standard error `√(p(1−p)/k)`.
///
/// # Example
///
/// ```
/// use near_dup::{SchemeId, Signature, SlotSignature};
/// use near_dup::lsh::PlainSlots;
/// let scheme = SchemeId::new("my-minhash").with(4).finish();
/// let a = PlainSlots::new(scheme, vec![1, 2, 3, 4])?;
/// let b = PlainSlots::new(scheme, vec![1, 2, 3, 9])?;
/// assert_eq!(a.similarity(&b)?.value(), 0.75);
/// assert_eq!(a.slots(), &[1, 2, 3, 4]);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PlainSlots {
    scheme: SchemeId,
    slots: Box<[u64]>,
}

impl PlainSlots {
    /// Wraps slot values with their scheme.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when `slots` is empty.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::lsh::PlainSlots;
    /// let s = PlainSlots::new(SchemeId::new("x").finish(), vec![7; 128])?;
    /// assert_eq!(s.len(), 128);
    /// assert!(PlainSlots::new(SchemeId::new("x").finish(), Vec::new()).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn new(scheme: SchemeId, slots: impl Into<Box<[u64]>>) -> Result<Self, Error> {
        let slots = slots.into();
        if slots.is_empty() {
            return Err(Error::invalid_input(
                "a slot signature needs at least one slot",
            ));
        }
        Ok(PlainSlots { scheme, slots })
    }

    /// The number of slots.
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::lsh::PlainSlots::new(near_dup::SchemeId::new("x").finish(), vec![1, 2])?;
    /// assert_eq!(s.len(), 2);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    #[allow(clippy::len_without_is_empty)] // never empty
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// The versioned byte form (see [`ndd_core::codec`]): magic, version, scheme, the
    /// slot count and values, checksum; `8k + 30` bytes for `k` slots.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::PlainSlots;
    /// let s = PlainSlots::new(near_dup::SchemeId::new("x").finish(), vec![1, 2, 3])?;
    /// let bytes = s.to_bytes();
    /// assert_eq!(bytes.len(), 8 * 3 + 30);
    /// assert_eq!(PlainSlots::from_bytes(&bytes)?, s);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        write_values(MAGIC, VERSION, self.scheme, &self.slots)
    }

    /// Reads the form written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] for truncated, altered or foreign bytes, or no slots.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::lsh::PlainSlots;
    /// let s = PlainSlots::new(near_dup::SchemeId::new("x").finish(), vec![1, 2])?;
    /// let mut bytes = s.to_bytes();
    /// bytes[10] ^= 1;
    /// assert!(PlainSlots::from_bytes(&bytes).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (scheme, slots) = read_values(bytes, MAGIC, VERSION)?;
        if slots.is_empty() {
            return Err(Error::corrupt_data(
                "a slot signature has at least one slot",
            ));
        }
        Ok(PlainSlots {
            scheme,
            slots: slots.into_boxed_slice(),
        })
    }
}

/// The byte form of a list of values under a scheme (magic, version, the scheme, the
/// values, checksum): [`PlainSlots`]' and [`SampledBits`](crate::SampledBits)'.
pub(crate) fn write_values(
    magic: [u8; 4],
    version: u16,
    scheme: SchemeId,
    values: &[u64],
) -> Vec<u8> {
    let mut w = ByteWriter::new(magic, version);
    w.u64(scheme.as_u64());
    w.u64_slice(values);
    w.finish()
}

/// Reads the form written by [`write_values`].
pub(crate) fn read_values(
    bytes: &[u8],
    magic: [u8; 4],
    version: u16,
) -> Result<(SchemeId, Vec<u64>), Error> {
    let (mut r, _) = ByteReader::new(bytes, magic, version)?;
    let scheme = SchemeId::from_u64(r.u64()?);
    let values = r.u64_vec()?;
    r.finish()?;
    Ok((scheme, values))
}

/// The fraction of the positions where two value lists agree, with the binomial
/// standard error `√(p(1−p)/n)` (`n` taken as at least 1); [`Error::LengthMismatch`]
/// when their lengths differ.
pub(crate) fn agreement(a: &[u64], b: &[u64]) -> Result<Estimate, Error> {
    Error::check_lengths(a.len(), b.len())?;
    let n = a.len().max(1) as f64;
    let agree = a.iter().zip(b).filter(|(x, y)| x == y).count() as f64;
    let p = agree / n;
    Estimate::new(p, (p * (1.0 - p) / n).sqrt())
}

impl fmt::Debug for PlainSlots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = &self.slots[..self.slots.len().min(4)];
        f.debug_struct("PlainSlots")
            .field("scheme", &self.scheme)
            .field("len", &self.slots.len())
            .field("first", &shown)
            .finish()
    }
}

/// The trait impls of a signature type that holds a `scheme` and its values in the
/// field `$values` ([`PlainSlots`], [`SampledBits`](crate::SampledBits)): `Signature`
/// (the fraction of agreeing values, `$doc` its first line of docs), `SlotSignature`
/// (the values) and `ByteForm` (the type's own `to_bytes` and `from_bytes`).
macro_rules! value_signature_impls {
    ($ty:ident, $values:ident, $doc:literal) => {
        impl Signature for $ty {
            #[inline]
            fn scheme(&self) -> SchemeId {
                self.scheme
            }

            #[doc = $doc]
            ///
            /// # Errors
            ///
            /// [`Error::Incompatible`] when the schemes differ; [`Error::LengthMismatch`]
            /// when the lengths differ.
            fn similarity(&self, other: &Self) -> Result<Estimate, Error> {
                self.check_compatible(other)?;
                $crate::slots::agreement(&self.$values, &other.$values)
            }
        }

        impl SlotSignature for $ty {
            #[inline]
            fn slots(&self) -> &[u64] {
                &self.$values
            }
        }

        impl ByteForm for $ty {
            fn to_bytes(&self) -> Vec<u8> {
                $ty::to_bytes(self)
            }
            fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
                $ty::from_bytes(bytes)
            }
        }
    };
}
pub(crate) use value_signature_impls;

value_signature_impls!(
    PlainSlots,
    slots,
    "The fraction of agreeing slots, with standard error `√(p(1−p)/k)`."
);

/// Each slot is a coordinate, so an exact-signature index (`ndd-index`'s
/// `ExactIndex`) matches two plain slot signatures that agree on at least one slot.
impl ExactSignature for PlainSlots {
    type Coordinate = u64;

    fn num_coordinates(&self) -> usize {
        self.slots().len()
    }

    fn coordinate(&self, i: usize) -> Option<&u64> {
        self.slots().get(i)
    }
}
