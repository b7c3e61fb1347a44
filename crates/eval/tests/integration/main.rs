//! The integration tests of `ndd-eval`, one module per file, built as one test binary: the
//! crate and its dependencies are linked once, not once per file (docs/decisions.md).

mod agreement;
mod bases;
mod category;
mod clustered;
mod metrics;
mod siblings;
mod synth;

use std::fmt::{Debug, Display};
use std::str::FromStr;

use ndd_core::{Error, ErrorKind};

/// Every kind of `all` parses back from its `Display` name, each `(alias, kind)` of
/// `aliases` parses to its kind, and `"nope"` is an [`ErrorKind::InvalidInput`].
#[allow(clippy::unwrap_used)] // tests unwrap to fail loudly
fn check_kind_names<K>(all: &[K], aliases: &[(&str, K)])
where
    K: FromStr<Err = Error> + Display + Debug + PartialEq + Copy,
{
    for &kind in all {
        assert_eq!(kind.to_string().parse::<K>().unwrap(), kind);
    }
    for &(alias, kind) in aliases {
        assert_eq!(alias.parse::<K>().unwrap(), kind, "{alias:?}");
    }
    assert_eq!(
        "nope".parse::<K>().unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
}
