//! What the enums known by name ([`Category`](crate::Category),
//! [`Measure`](crate::Measure)) share.

/// `impl Display` (the `name()`) and `impl FromStr` (the kind of `ALL` with that
/// name, else the error `$err` of the unknown name `$s`) for an enum known by name.
macro_rules! by_name {
    ($named:ty, |$s:ident| $err:expr) => {
        impl std::fmt::Display for $named {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $named {
            type Err = Error;

            fn from_str($s: &str) -> Result<Self, Error> {
                <$named>::ALL
                    .into_iter()
                    .find(|k| k.name() == $s)
                    .ok_or_else(|| $err)
            }
        }
    };
}

pub(crate) use by_name;
