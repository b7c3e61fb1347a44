//! What the builders share: plain setters, and `Default` through the builder.

/// Builder methods that set one field: `$(#[$attr])* pub fn name(arg: Type) => field;`
/// becomes a method `name` that stores `arg` in `self.field` and returns the builder.
macro_rules! setters {
    ($($(#[$attr:meta])* $vis:vis fn $name:ident($arg:ident: $ty:ty) => $field:ident;)+) => {$(
        $(#[$attr])*
        $vis fn $name(mut self, $arg: $ty) -> Self {
            self.$field = $arg;
            self
        }
    )+};
}

/// `impl Default for $built` as `$builder::default().build()` (the default parameters
/// are valid, so the build cannot fail).
macro_rules! default_from_builder {
    ($built:ty, $builder:ty) => {
        impl Default for $built {
            fn default() -> Self {
                <$builder>::default()
                    .build()
                    .unwrap_or_else(|_| unreachable!("the default parameters are valid"))
            }
        }
    };
}

pub(crate) use {default_from_builder, setters};
