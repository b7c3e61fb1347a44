//! [`IMatchSignature`], the extended `(K + 1)`-coordinate I-Match signature, with
//! its [`Digest`] coordinates and versioned byte form (serde through it, feature
//! `serde`).

use std::fmt;

use ndd_core::codec::{ByteReader, ByteWriter};
use ndd_core::{Error, Estimate, ExactSignature, SchemeId, Signature};

use crate::randomize::MAX_EXTRA_LEXICONS;

/// A SHA-1 digest: the value of one I-Match signature coordinate.
///
/// # Example
///
/// ```
/// let d: near_dup::imatch::Digest = [0; 20];
/// let s = near_dup::imatch::IMatchSignature::from_parts(near_dup::SchemeId::new("d").finish(), vec![Some(d)])?;
/// assert_eq!(s.primary(), Some(&d));
/// # Ok::<(), near_dup::Error>(())
/// ```
pub type Digest = [u8; 20];

/// An extended I-Match signature: one SHA-1 digest per lexicon (the primary lexicon
/// first, then the `K` randomized ones), a coordinate absent when that lexicon rejected
/// the document. Two documents are near duplicates when some coordinate is present and
/// equal in both (Kołcz and Chowdhury, The Journal of Supercomputing 2008, §4); [`similarity`](Signature::similarity) is the fraction
/// of the `K + 1` coordinates that match.
///
/// # Example
///
/// ```
/// use near_dup::{SchemeId, Signature};
/// use near_dup::imatch::IMatchSignature;
/// let s = SchemeId::new("demo").finish();
/// let a = IMatchSignature::from_parts(s, vec![Some([1; 20]), Some([2; 20]), None])?;
/// let b = IMatchSignature::from_parts(s, vec![Some([9; 20]), Some([2; 20]), None])?;
/// assert!(a.matches(&b)?);
/// assert_eq!(a.matching_coordinates(&b)?, 1);
/// assert_eq!(a.similarity(&b)?.value(), 1.0 / 3.0);
/// # Ok::<(), near_dup::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct IMatchSignature {
    pub(crate) scheme: SchemeId,
    pub(crate) coords: Box<[Option<Digest>]>,
}

impl fmt::Debug for IMatchSignature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex: Vec<String> = self
            .coords
            .iter()
            .map(|c| match c {
                Some(d) => d.iter().map(|b| format!("{b:02x}")).collect(),
                None => "-".to_string(),
            })
            .collect();
        f.debug_struct("IMatchSignature")
            .field("scheme", &self.scheme)
            .field("coordinates", &hex)
            .finish()
    }
}

const SIG_MAGIC: [u8; 4] = *b"IMSG";
const SIG_VERSION: u16 = 1;

impl IMatchSignature {
    /// A signature of coordinates a signer made (their number is within
    /// [`MAX_EXTRA_LEXICONS`]` + 1` by the signer's own checks).
    pub(crate) fn from_signer(scheme: SchemeId, coordinates: Vec<Option<Digest>>) -> Self {
        IMatchSignature {
            scheme,
            coords: coordinates.into_boxed_slice(),
        }
    }

    /// A signature from its parts (digests stored elsewhere).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidParameter`] when there are more than
    /// [`MAX_EXTRA_LEXICONS`]` + 1` coordinates (what the
    /// byte form and every signer allow).
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::imatch::IMatchSignature::from_parts(near_dup::SchemeId::new("d").finish(), vec![None])?;
    /// assert_eq!(s.coordinates(), &[None]);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_parts(scheme: SchemeId, coordinates: Vec<Option<Digest>>) -> Result<Self, Error> {
        if coordinates.len() > MAX_EXTRA_LEXICONS + 1 {
            return Err(Error::invalid_parameter(
                "coordinates",
                format!(
                    "{} coordinates, more than the {} a signature holds",
                    coordinates.len(),
                    MAX_EXTRA_LEXICONS + 1
                ),
            ));
        }
        Ok(Self::from_signer(scheme, coordinates))
    }

    /// The `K + 1` coordinates: the primary lexicon's digest, then one per extra lexicon.
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::imatch::IMatchSignature::from_parts(near_dup::SchemeId::new("d").finish(), vec![Some([0; 20])])?;
    /// assert_eq!(s.coordinates().len(), 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn coordinates(&self) -> &[Option<Digest>] {
        &self.coords
    }

    /// The classic I-Match signature: the primary lexicon's digest.
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::imatch::IMatchSignature::from_parts(near_dup::SchemeId::new("d").finish(), vec![Some([7; 20]), None])?;
    /// assert_eq!(s.primary(), Some(&[7; 20]));
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn primary(&self) -> Option<&Digest> {
        self.coords.first().and_then(Option::as_ref)
    }

    /// The number of coordinates whose digests are present and equal in both.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the schemes differ.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::imatch::IMatchSignature;
    /// let a = IMatchSignature::from_parts(SchemeId::new("x").finish(), vec![Some([1; 20])])?;
    /// let b = IMatchSignature::from_parts(SchemeId::new("y").finish(), vec![Some([1; 20])])?;
    /// assert!(a.matching_coordinates(&b).is_err());
    /// assert_eq!(a.matching_coordinates(&a)?, 1);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn matching_coordinates(&self, other: &Self) -> Result<usize, Error> {
        self.check_compatible(other)?;
        // As MinHash and SimHash: a comparison of signatures of different lengths has no
        // meaning (it gave 0.5 one way and 1.0 the other).
        Error::check_lengths(self.coords.len(), other.coords.len())?;
        Ok(self
            .coords
            .iter()
            .zip(other.coords.iter())
            .filter(|(a, b)| a.is_some() && a == b)
            .count())
    }

    /// Whether the two agree on at least one coordinate (the near-duplicate rule of
    /// Kołcz and Chowdhury (The Journal of Supercomputing 2008, §4)).
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] when the schemes differ.
    ///
    /// # Example
    ///
    /// ```
    /// use near_dup::SchemeId;
    /// use near_dup::imatch::IMatchSignature;
    /// let s = SchemeId::new("x").finish();
    /// let a = IMatchSignature::from_parts(s, vec![None, Some([3; 20])])?;
    /// let b = IMatchSignature::from_parts(s, vec![None, Some([4; 20])])?;
    /// assert!(!a.matches(&b)?); // absent coordinates never match
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn matches(&self, other: &Self) -> Result<bool, Error> {
        Ok(self.matching_coordinates(other)? > 0)
    }

    /// The versioned byte form: scheme, coordinate count, then per coordinate a
    /// presence byte and the 20-byte digest when present.
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::imatch::IMatchSignature::from_parts(near_dup::SchemeId::new("d").finish(), vec![Some([5; 20]), None])?;
    /// let bytes = s.to_bytes();
    /// assert_eq!(bytes.len(), 6 + 8 + 4 + 21 + 1 + 8);
    /// assert_eq!(near_dup::imatch::IMatchSignature::from_bytes(&bytes)?, s);
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = ByteWriter::new(SIG_MAGIC, SIG_VERSION);
        w.u64(self.scheme.as_u64());
        w.u32(u32::try_from(self.coords.len()).unwrap_or(u32::MAX));
        for c in self.coords.iter() {
            match c {
                Some(d) => {
                    w.u8(1);
                    for &b in d {
                        w.u8(b);
                    }
                }
                None => w.u8(0),
            }
        }
        w.finish()
    }

    /// Reads a signature written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// [`Error::CorruptData`] for truncated, altered or foreign bytes, a presence byte
    /// other than 0 or 1, or more than 31 coordinates.
    ///
    /// # Example
    ///
    /// ```
    /// let s = near_dup::imatch::IMatchSignature::from_parts(near_dup::SchemeId::new("d").finish(), vec![None])?;
    /// let bytes = s.to_bytes();
    /// assert!(near_dup::imatch::IMatchSignature::from_bytes(&bytes[..bytes.len() - 1]).is_err());
    /// # Ok::<(), near_dup::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (mut r, _) = ByteReader::new(bytes, SIG_MAGIC, SIG_VERSION)?;
        let scheme = SchemeId::from_u64(r.u64()?);
        let n = r.u32()? as usize;
        if n > MAX_EXTRA_LEXICONS + 1 {
            return Err(Error::corrupt_data(format!(
                "{n} coordinates, more than the {} supported",
                MAX_EXTRA_LEXICONS + 1
            )));
        }
        let mut coords = Vec::with_capacity(n);
        for _ in 0..n {
            match r.u8()? {
                0 => coords.push(None),
                1 => {
                    let mut d = [0u8; 20];
                    for b in &mut d {
                        *b = r.u8()?;
                    }
                    coords.push(Some(d));
                }
                other => {
                    return Err(Error::corrupt_data(format!(
                        "coordinate presence byte {other}"
                    )));
                }
            }
        }
        r.finish()?;
        Ok(IMatchSignature {
            scheme,
            coords: coords.into_boxed_slice(),
        })
    }
}

impl Signature for IMatchSignature {
    fn scheme(&self) -> SchemeId {
        self.scheme
    }

    /// The fraction of the `K + 1` coordinates present and equal in both (exact: no
    /// estimation error). Any value above 0 is a near-duplicate match.
    fn similarity(&self, other: &Self) -> Result<Estimate, Error> {
        let m = self.matching_coordinates(other)?;
        let n = self.coords.len().max(1);
        Ok(Estimate::exact(m as f64 / n as f64))
    }
}

impl ExactSignature for IMatchSignature {
    type Coordinate = Digest;

    fn num_coordinates(&self) -> usize {
        self.coords.len()
    }

    fn coordinate(&self, i: usize) -> Option<&Digest> {
        self.coords.get(i).and_then(Option::as_ref)
    }
}

impl ndd_core::codec::ByteForm for IMatchSignature {
    fn to_bytes(&self) -> Vec<u8> {
        IMatchSignature::to_bytes(self)
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        IMatchSignature::from_bytes(bytes)
    }
}

#[cfg(feature = "serde")]
ndd_core::impl_serde_via_bytes!(IMatchSignature);

#[cfg(all(test, feature = "serde"))]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip_and_corruption() {
        let sig = IMatchSignature::from_parts(
            crate::unigram_extractor_scheme(),
            vec![Some([7; 20]), None],
        )
        .unwrap();
        let json = serde_json::to_string(&sig).unwrap();
        assert_eq!(serde_json::from_str::<IMatchSignature>(&json).unwrap(), sig);
        let mut v: Vec<u8> = serde_json::from_str(&json).unwrap();
        v[8] ^= 1;
        let bad = serde_json::to_string(&v).unwrap();
        assert!(serde_json::from_str::<IMatchSignature>(&bad).is_err());
    }
}
