//! The plain setters of the builders and the plain getters of the hashers.

/// Builder methods that set one field: `$(#[$doc])* pub fn name(arg: Type) => field;` becomes
/// a `#[must_use]` method `name` that stores `arg` in `self.field` and returns the
/// builder.
macro_rules! setters {
    ($($(#[$doc:meta])* $vis:vis fn $name:ident($arg:ident: $ty:ty) => $field:ident;)+) => {$(
        $(#[$doc])*
        #[must_use]
        $vis fn $name(mut self, $arg: $ty) -> Self {
            self.$field = $arg;
            self
        }
    )+};
}

/// Methods that return one `Copy` field: `$(#[$doc])* pub fn name -> Type = field;` becomes a
/// `#[must_use]` method `name(&self)` returning `self.field`.
macro_rules! getters {
    ($($(#[$doc:meta])* $vis:vis fn $name:ident -> $ty:ty = $field:ident;)+) => {$(
        $(#[$doc])*
        #[must_use]
        $vis fn $name(&self) -> $ty {
            self.$field
        }
    )+};
}

pub(crate) use {getters, setters};
