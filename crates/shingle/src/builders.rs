//! What the builders share: `Default` through the builder.

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

pub(crate) use default_from_builder;
