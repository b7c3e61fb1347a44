//! What [`EditKind`](crate::EditKind) and [`SiblingKind`](crate::SiblingKind) share:
//! parsing a kebab-case name, checking a weighted list of kinds and drawing one kind
//! from it.

use std::fmt;

use ndd_core::Error;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Finds the kind among `all` whose `name` is `s`, ignoring ASCII case and accepting
/// `_` or spaces in place of `-`; `what` names the kind in the error ("edit").
pub(crate) fn parse_kind<K: Copy>(
    s: &str,
    all: &[K],
    name: fn(K) -> &'static str,
    what: &str,
) -> Result<K, Error> {
    let norm: String = s
        .trim()
        .chars()
        .map(|c| {
            if c == '_' || c == ' ' {
                '-'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect();
    all.iter()
        .copied()
        .find(|&k| name(k) == norm)
        .ok_or_else(|| Error::invalid_input(format!("unknown {what} kind `{s}`")))
}

/// Checks the weights of `kinds` (parameter `kinds`): each finite and `>= 0`, and
/// summing to more than `0` when `wanted > 0` documents are requested. `refuse` is
/// asked first about every kind and may reject it; `what` names the kind in the error
/// ("edit").
pub(crate) fn check_weights<K: Copy + fmt::Display>(
    kinds: &[(K, f64)],
    wanted: usize,
    what: &str,
    refuse: impl Fn(K) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut total = 0.0;
    for &(kind, w) in kinds {
        refuse(kind)?;
        if !w.is_finite() || w < 0.0 {
            return Err(Error::invalid_parameter(
                "kinds",
                format!("weight of `{kind}` must be finite and >= 0, got {w}"),
            ));
        }
        total += w;
    }
    if wanted > 0 && total <= 0.0 {
        return Err(Error::invalid_parameter(
            "kinds",
            format!("at least one {what} kind needs a positive weight"),
        ));
    }
    Ok(())
}

/// Picks a kind with probability proportional to its weight (weights checked by
/// [`check_weights`]); `last` is returned when no weight is positive.
pub(crate) fn pick_kind<K: Copy>(kinds: &[(K, f64)], rng: &mut ChaCha8Rng, mut last: K) -> K {
    let total: f64 = kinds.iter().map(|&(_, w)| w).sum();
    let r = rng.random::<f64>() * total;
    let mut acc = 0.0;
    for &(kind, w) in kinds {
        if w <= 0.0 {
            continue;
        }
        acc += w;
        last = kind;
        if r < acc {
            return kind;
        }
    }
    last
}

/// Implements [`fmt::Display`] (the kind's `name`) and [`std::str::FromStr`] (through
/// [`parse_kind`] over the type's `ALL`) for a kind enum; `$what` names the kind in
/// the parse error.
macro_rules! name_traits {
    ($kind:ident, $what:literal) => {
        impl std::fmt::Display for $kind {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $kind {
            type Err = ndd_core::Error;

            #[doc = concat!("Parses a [`", stringify!($kind), "::name`], ignoring ASCII case and")]
            /// accepting `_` or spaces in place of `-`.
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                crate::kinds::parse_kind(s, &$kind::ALL, $kind::name, $what)
            }
        }
    };
}

pub(crate) use name_traits;
