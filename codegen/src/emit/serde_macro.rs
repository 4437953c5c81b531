//! `Serialize` and `Deserialize` for generated structs and string enums (types and apply
//! configurations), through one `macro_rules!` per generated tree.
//!
//! `#[derive(Serialize, Deserialize)]` costs rustc most of its time on a generated crate:
//! the derive expands every struct to a field enum, three visitors and a sequence form no
//! Kubernetes format uses, and rustc type-checks and borrow-checks all of it. Instead the
//! tree's root module defines `__kubegen_serde!` once, and each struct invokes it with
//! its field list, one line a field:
//!
//! ```text
//! __kubegen_serde!(CertificateSpec {
//!     0 common_name "commonName" optional,
//!     1 issuer_ref "issuerRef" required
//! });
//! ```
//!
//! The macro expands to a map-only `Deserialize` (a key is looked up once, by
//! `__FieldSeed`, as an index into the field names) and a `Serialize` that writes the
//! fields in order; a string enum (`@enum`) reads and writes its variants' strings. They
//! mean what serde's derive with kubegen's attributes meant, but for two things: a key given
//! twice keeps its last value (the derive refused it), and a struct is read only from a
//! map (the derive also took a sequence). The modes are documented on the macro itself
//! (see [`definition`]).
//!
//! # Stack
//!
//! A struct holds every struct nested in it inline, and a debug build keeps a stack slot
//! for every temporary of a function, so decoding a struct by value through serde's
//! frames (`next_value::<T>()`, the deserializer's `deserialize_map`, the visitor) costs
//! several copies of everything nested in it, at every level: at 12 levels of 144
//! properties a 2 MiB thread overflowed. So a struct decodes onto the heap (`__Boxed`,
//! which its `Deserialize` unboxes): a field whose value is a struct of the same version
//! (marked `boxed` in the invocation, see [`type_invocation`]) is read as a `Box`, only
//! `Box`es pass through serde's frames, every field is read into its place by a small
//! function (`__FieldSeed::read*`) rather than through temporaries at each call site,
//! and the struct is built once its fields are read, in a frame of its own
//! (`__FieldSeed::finish`). A level's frame is then about the size of its own fields.
//! Apply configurations, whose fields are all optional and whose mirrors are not marked,
//! get the small readers but no boxes.

use proc_macro2::{Delimiter, Group, Literal, Punct, Spacing, TokenStream, TokenTree};
use quote::quote;

use crate::emit::common::{Paths, ident};
use crate::model::{Field, StructDef, TypeRef};

/// The macro's name, defined in the tree's root module and in scope in every module below.
const MACRO: &str = "__kubegen_serde";

/// How one field is read and written; its name is the mode word in the invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `T`: must be present; always written.
    Required,
    /// `T` with a default (a root's `metadata`): absent reads as `T::default()`; always
    /// written.
    Defaulted,
    /// `Option<T>`: absent or `null` read as `None`; `None` is not written.
    Optional,
    /// `Option<T>` of a required nullable property: absent or `null` read as `None`;
    /// always written (`None` as `null`).
    Nullable,
    /// `Option<Option<T>>` or `Option<Value>` of an optional nullable property: a present
    /// `null` reads as `Some(None)` (`Some(Value::Null)`), so it survives a round trip;
    /// `None` is not written.
    KeepsNull,
}

impl Mode {
    /// The mode of a generated type's field (`root`: of a kind's root struct).
    fn of(field: &Field, root: bool) -> Self {
        match (field.required, field.nullable) {
            (true, false) if root && field.wire_name == "metadata" => Mode::Defaulted,
            (true, false) => Mode::Required,
            (true, true) => Mode::Nullable,
            (false, nullable) if nullable || field.ty == TypeRef::Json => Mode::KeepsNull,
            (false, _) => Mode::Optional,
        }
    }

    fn word(self) -> &'static str {
        match self {
            Mode::Required => "required",
            Mode::Defaulted => "defaulted",
            Mode::Optional => "optional",
            Mode::Nullable => "nullable",
            Mode::KeepsNull => "keeps_null",
        }
    }
}

/// The Rust type of a field, with the `Option`s its [`Mode`] needs around `inner`.
pub(crate) fn field_type(field: &Field, root: bool, inner: TokenStream) -> TokenStream {
    match Mode::of(field, root) {
        Mode::Required | Mode::Defaulted => inner,
        Mode::KeepsNull if field.ty != TypeRef::Json => quote! { Option<Option<#inner>> },
        Mode::Optional | Mode::Nullable | Mode::KeepsNull => quote! { Option<#inner> },
    }
}

/// The field's Rust type as a [`TypeRef`]: [`Field::ty`] inside the `Option`s its [`Mode`]
/// adds (what [`field_type`] spells), for emitters that convert field values.
pub(crate) fn field_ref(field: &Field, root: bool) -> TypeRef {
    match Mode::of(field, root) {
        Mode::Required | Mode::Defaulted => field.ty.clone(),
        Mode::KeepsNull if field.ty != TypeRef::Json => {
            TypeRef::option(TypeRef::option(field.ty.clone()))
        }
        Mode::Optional | Mode::Nullable | Mode::KeepsNull => TypeRef::option(field.ty.clone()),
    }
}

/// One field as the macro sees it.
pub(crate) struct MacroField<'a> {
    /// The Rust field name.
    pub(crate) rust: &'a str,
    /// The JSON property name.
    pub(crate) wire: &'a str,
    /// How it is read and written.
    pub(crate) mode: Mode,
    /// Whether the field's value (inside its mode's `Option`s) is a struct of the same
    /// tree, read through that struct's boxed decoding (the `boxed` word; see the module
    /// docs on the stack).
    pub(crate) boxed: bool,
}

/// The invocation for a generated type's struct: both impls, or only `Deserialize` for a
/// root (its `Serialize` writes `apiVersion` and `kind` too, see `resource::root_impls`).
/// `is_struct` tells which [`TypeRef::Named`] types are structs of the same version (their
/// fields are read `boxed`).
pub(crate) fn type_invocation(
    name: &str,
    s: &StructDef,
    is_struct: impl Fn(&str) -> bool,
) -> TokenStream {
    let root = s.root.is_some();
    let fields: Vec<MacroField<'_>> = s
        .fields
        .iter()
        .map(|field| MacroField {
            rust: &field.rust_name,
            wire: &field.wire_name,
            mode: Mode::of(field, root),
            boxed: matches!(&field.ty, TypeRef::Named(named) if is_struct(named)),
        })
        .collect();
    let extra = s.additional.as_ref().map(|extra| extra.rust_name.as_str());
    invocation(name, &fields, extra, !root)
}

/// The invocation for a struct `name` with `fields` and a map of other properties
/// (`extra`); `serialize`: both impls, else only `Deserialize`.
pub(crate) fn invocation(
    name: &str,
    fields: &[MacroField<'_>],
    extra: Option<&str>,
    serialize: bool,
) -> TokenStream {
    // Built token by token: a struct has one line a field, and `quote!` would copy each
    // line's tokens once more into the list.
    let mut list = TokenStream::new();
    for (index, field) in fields.iter().enumerate() {
        if index > 0 {
            list.extend([TokenTree::Punct(Punct::new(',', Spacing::Alone))]);
        }
        list.extend([
            TokenTree::Literal(Literal::usize_unsuffixed(index)),
            TokenTree::Ident(ident(field.rust)),
            TokenTree::Literal(Literal::string(field.wire)),
            TokenTree::Ident(ident(field.mode.word())),
        ]);
        if field.boxed {
            list.extend([TokenTree::Ident(ident("boxed"))]);
        }
    }
    let mut args = if serialize {
        TokenStream::new()
    } else {
        quote! { @deserialize }
    };
    args.extend([
        TokenTree::Ident(ident(name)),
        TokenTree::Group(Group::new(Delimiter::Brace, list)),
    ]);
    if let Some(extra) = extra {
        let extra = ident(extra);
        args.extend(quote! { ..#extra });
    }
    let mac = ident(MACRO);
    let mut call = quote! { #mac! };
    call.extend([
        TokenTree::Group(Group::new(Delimiter::Parenthesis, args)),
        TokenTree::Punct(Punct::new(';', Spacing::Alone)),
    ]);
    call
}

/// The invocation for a string enum `name` whose variants are `(rust, wire)` pairs (at
/// least one).
pub(crate) fn enum_invocation<'a>(
    name: &str,
    variants: impl Iterator<Item = (&'a str, &'a str)>,
) -> TokenStream {
    let variants = variants.map(|(rust, wire)| {
        let variant = ident(rust);
        quote! { #variant #wire }
    });
    let name = ident(name);
    let mac = ident(MACRO);
    quote! {
        #mac!(@enum #name { #(#variants),* });
    }
}

/// What a module with structs imports from the root for the macro's expansions (modules
/// sit at `<group>/<version>/<module>.rs`, three levels below the root).
pub(crate) fn module_import() -> TokenStream {
    quote! {
        use super::super::super::{__Boxed, __FieldSeed, __Key};
    }
}

/// The macro and the key reader it uses, for the root module of a tree with structs.
pub(crate) fn definition(paths: &Paths) -> TokenStream {
    let serde = &paths.serde;
    let mac = ident(MACRO);
    let fields = quote! {
        { $($index:literal $field:ident $wire:literal $mode:ident $($boxed:ident)?),* $(,)? } $(.. $extra:ident)?
    };
    let forward = quote! { { $($index $field $wire $mode $($boxed)?),* } $(.. $extra)? };
    quote! {
        /// Implements `Serialize` and `Deserialize` for a generated struct from its fields,
        /// `index field "wireName" mode,` each, then `..extra` for a map that keeps the
        /// properties no field declares. `@deserialize` first implements only
        /// `Deserialize` (a root type, whose `Serialize` also writes `apiVersion` and
        /// `kind`). `@enum Name { Variant "wire", ... }` implements both for a string enum.
        ///
        /// Modes, for a field's presence on the wire:
        /// - `required` (`T`): must be present, always written;
        /// - `defaulted` (`T`): absent reads as `T::default()`, always written;
        /// - `optional` (`Option<T>`): absent or `null` reads as `None`, `None` is not
        ///   written;
        /// - `nullable` (`Option<T>`): absent or `null` reads as `None`, always written;
        /// - `keeps_null` (`Option<Option<T>>`, `Option<Value>`): a present `null` reads as
        ///   `Some(None)` (`Some(Value::Null)`), `None` is not written.
        ///
        /// A mode followed by `boxed` marks a field whose value is a struct of this tree:
        /// it is read onto the heap (`__Boxed`) and moved into place when the struct is
        /// built, so no decoding frame holds a nested struct while its fields decode.
        ///
        /// Objects are read as maps; unknown keys are skipped (or kept in `..extra`), and
        /// a key given twice keeps its last value, as Go's `encoding/json` (and so the API
        /// server's decoder) does.
        macro_rules! #mac {
            ($name:ident #fields) => {
                #mac!(@serialize $name #forward);
                #mac!(@deserialize $name #forward);
            };
            (@serialize $name:ident #fields) => {
                impl #serde::Serialize for $name {
                    fn serialize<__S>(&self, serializer: __S) -> ::core::result::Result<__S::Ok, __S::Error>
                    where
                        __S: #serde::Serializer,
                    {
                        use #serde::ser::SerializeMap as _;
                        let mut map = serializer.serialize_map(::core::option::Option::None)?;
                        $(#mac!(@write $mode map self $field $wire);)*
                        $(for (key, value) in &self.$extra {
                            map.serialize_entry(key, value)?;
                        })?
                        map.end()
                    }
                }
            };
            (@deserialize $name:ident #fields) => {
                impl<'de> #serde::Deserialize<'de> for $name {
                    fn deserialize<__D>(deserializer: __D) -> ::core::result::Result<Self, __D::Error>
                    where
                        __D: #serde::Deserializer<'de>,
                    {
                        <$name as __Boxed<'de>>::deserialize_boxed(deserializer).map(__FieldSeed::unbox)
                    }
                }
                impl<'de> __Boxed<'de> for $name {
                    fn deserialize_boxed<__D>(deserializer: __D) -> ::core::result::Result<::std::boxed::Box<Self>, __D::Error>
                    where
                        __D: #serde::Deserializer<'de>,
                    {
                        struct __Visitor;
                        impl<'de> #serde::de::Visitor<'de> for __Visitor {
                            type Value = ::std::boxed::Box<$name>;
                            fn expecting(&self, formatter: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                                formatter.write_str(::core::concat!("struct ", ::core::stringify!($name)))
                            }
                            fn visit_map<__A>(self, mut map: __A) -> ::core::result::Result<::std::boxed::Box<$name>, __A::Error>
                            where
                                __A: #serde::de::MapAccess<'de>,
                            {
                                $(let mut $field = ::core::option::Option::None;)*
                                $(let mut $extra = ::std::collections::BTreeMap::new();)?
                                let seed = __FieldSeed {
                                    names: &[$($wire),*],
                                    keep: #mac!(@keep $($extra)?),
                                };
                                while let ::core::option::Option::Some(key) = map.next_key_seed(seed)? {
                                    match key {
                                        $(__Key::Field($index) => #mac!(@read $mode [$($boxed)?] map $field),)*
                                        $(__Key::Other(key) => {
                                            $extra.insert(key, map.next_value()?);
                                        })?
                                        _ => {
                                            map.next_value::<#serde::de::IgnoredAny>()?;
                                        }
                                    }
                                }
                                __FieldSeed::finish(move || ::core::result::Result::Ok($name {
                                    $($field: #mac!(@take $mode [$($boxed)?] $field $wire),)*
                                    $($extra,)?
                                }))
                            }
                        }
                        deserializer.deserialize_map(__Visitor)
                    }
                }
            };
            (@enum $name:ident { $($variant:ident $wire:literal),* $(,)? }) => {
                impl #serde::Serialize for $name {
                    fn serialize<__S>(&self, serializer: __S) -> ::core::result::Result<__S::Ok, __S::Error>
                    where
                        __S: #serde::Serializer,
                    {
                        serializer.serialize_str(match self {
                            $(Self::$variant => $wire,)*
                        })
                    }
                }
                impl<'de> #serde::Deserialize<'de> for $name {
                    fn deserialize<__D>(deserializer: __D) -> ::core::result::Result<Self, __D::Error>
                    where
                        __D: #serde::Deserializer<'de>,
                    {
                        struct __Visitor;
                        impl<'de> #serde::de::Visitor<'de> for __Visitor {
                            type Value = $name;
                            fn expecting(&self, formatter: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                                formatter.write_str(::core::concat!("enum ", ::core::stringify!($name)))
                            }
                            fn visit_str<__E>(self, value: &str) -> ::core::result::Result<$name, __E>
                            where
                                __E: #serde::de::Error,
                            {
                                match value {
                                    $($wire => ::core::result::Result::Ok($name::$variant),)*
                                    _ => ::core::result::Result::Err(__E::unknown_variant(value, &[$($wire),*])),
                                }
                            }
                        }
                        deserializer.deserialize_str(__Visitor)
                    }
                }
            };
            (@keep) => { false };
            (@keep $extra:ident) => { true };
            (@read required [] $map:ident $field:ident) => {
                __FieldSeed::read_some(&mut $map, &mut $field)?
            };
            (@read defaulted [] $map:ident $field:ident) => {
                __FieldSeed::read_some(&mut $map, &mut $field)?
            };
            (@read keeps_null [] $map:ident $field:ident) => {
                __FieldSeed::read_some(&mut $map, &mut $field)?
            };
            (@read $mode:ident [] $map:ident $field:ident) => {
                __FieldSeed::read(&mut $map, &mut $field)?
            };
            (@read required [boxed] $map:ident $field:ident) => {
                __FieldSeed::read_boxed(&mut $map, &mut $field)?
            };
            (@read defaulted [boxed] $map:ident $field:ident) => {
                __FieldSeed::read_boxed(&mut $map, &mut $field)?
            };
            (@read keeps_null [boxed] $map:ident $field:ident) => {
                __FieldSeed::read_some_optional_boxed(&mut $map, &mut $field)?
            };
            (@read $mode:ident [boxed] $map:ident $field:ident) => {
                __FieldSeed::read_optional_boxed(&mut $map, &mut $field)?
            };
            (@take required [$($boxed:ident)?] $field:ident $wire:literal) => {
                match $field {
                    ::core::option::Option::Some(value) => #mac!(@unbox [$($boxed)?] value),
                    ::core::option::Option::None => {
                        return ::core::result::Result::Err(<__A::Error as #serde::de::Error>::missing_field($wire));
                    }
                }
            };
            (@take defaulted [] $field:ident $wire:literal) => {
                $field.unwrap_or_default()
            };
            (@take defaulted [boxed] $field:ident $wire:literal) => {
                $field.map(__FieldSeed::unbox).unwrap_or_default()
            };
            (@take keeps_null [boxed] $field:ident $wire:literal) => {
                $field.map(__FieldSeed::unbox_option)
            };
            (@take $mode:ident [boxed] $field:ident $wire:literal) => {
                $field.map(__FieldSeed::unbox)
            };
            (@take $mode:ident [] $field:ident $wire:literal) => {
                $field
            };
            (@unbox [] $value:ident) => { $value };
            (@unbox [boxed] $value:ident) => { *$value };
            (@write optional $map:ident $this:ident $field:ident $wire:literal) => {
                if let ::core::option::Option::Some(value) = &$this.$field {
                    $map.serialize_entry($wire, value)?;
                }
            };
            (@write keeps_null $map:ident $this:ident $field:ident $wire:literal) => {
                if let ::core::option::Option::Some(value) = &$this.$field {
                    $map.serialize_entry($wire, value)?;
                }
            };
            (@write $mode:ident $map:ident $this:ident $field:ident $wire:literal) => {
                $map.serialize_entry($wire, &$this.$field)?
            };
        }

        /// A map key as `__kubegen_serde!` reads it.
        enum __Key {
            /// The field at this index of the names.
            Field(usize),
            /// A key no field declares, kept for the struct's map of other properties
            /// (read only where a struct has one).
            #[allow(dead_code)]
            Other(::std::string::String),
            /// A key no field declares, skipped.
            Ignored,
        }

        /// Reads a map key as the index of one of `names`; any other key is kept
        /// (`keep`) or skipped. Its associated functions read values for
        /// `__kubegen_serde!`'s expansions, each into a place of the visitor's, so a
        /// visitor's frame holds no temporary per field.
        #[derive(Clone, Copy)]
        struct __FieldSeed {
            names: &'static [&'static str],
            keep: bool,
        }

        /// A generated struct decoded onto the heap: every struct's `Deserialize`, and its
        /// fields marked `boxed` in `__kubegen_serde!`. Only a `Box` passes through the
        /// deserializer's frames, and the struct is built in a frame of its own once its
        /// fields are read, so the stack a nested object takes is that of its own fields,
        /// not of everything nested in it.
        trait __Boxed<'de>: ::core::marker::Sized {
            /// Decodes `Self` (a map) onto the heap.
            fn deserialize_boxed<__D>(deserializer: __D) -> ::core::result::Result<::std::boxed::Box<Self>, __D::Error>
            where
                __D: #serde::Deserializer<'de>;
        }

        /// Reads a `boxed` field's struct.
        struct __BoxedSeed<__T>(::core::marker::PhantomData<__T>);

        impl<'de, __T: __Boxed<'de>> #serde::de::DeserializeSeed<'de> for __BoxedSeed<__T> {
            type Value = ::std::boxed::Box<__T>;
            fn deserialize<__D>(self, deserializer: __D) -> ::core::result::Result<Self::Value, __D::Error>
            where
                __D: #serde::Deserializer<'de>,
            {
                __T::deserialize_boxed(deserializer)
            }
        }

        /// Reads a `boxed` field's struct or `null` (`None`), as `Option<T>` reads `T`.
        struct __OptionSeed<__T>(::core::marker::PhantomData<__T>);

        impl<'de, __T: __Boxed<'de>> #serde::de::DeserializeSeed<'de> for __OptionSeed<__T> {
            type Value = ::core::option::Option<::std::boxed::Box<__T>>;
            fn deserialize<__D>(self, deserializer: __D) -> ::core::result::Result<Self::Value, __D::Error>
            where
                __D: #serde::Deserializer<'de>,
            {
                deserializer.deserialize_option(self)
            }
        }

        impl<'de, __T: __Boxed<'de>> #serde::de::Visitor<'de> for __OptionSeed<__T> {
            type Value = ::core::option::Option<::std::boxed::Box<__T>>;
            fn expecting(&self, formatter: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                formatter.write_str("option")
            }
            fn visit_none<__E>(self) -> ::core::result::Result<Self::Value, __E>
            where
                __E: #serde::de::Error,
            {
                ::core::result::Result::Ok(::core::option::Option::None)
            }
            fn visit_unit<__E>(self) -> ::core::result::Result<Self::Value, __E>
            where
                __E: #serde::de::Error,
            {
                ::core::result::Result::Ok(::core::option::Option::None)
            }
            fn visit_some<__D>(self, deserializer: __D) -> ::core::result::Result<Self::Value, __D::Error>
            where
                __D: #serde::Deserializer<'de>,
            {
                __T::deserialize_boxed(deserializer).map(::core::option::Option::Some)
            }
        }

        // A tree uses the readers its fields need.
        #[allow(dead_code)]
        impl __FieldSeed {
            /// Reads a value into `place`.
            fn read<'de, __A, __T>(map: &mut __A, place: &mut __T) -> ::core::result::Result<(), __A::Error>
            where
                __A: #serde::de::MapAccess<'de>,
                __T: #serde::Deserialize<'de>,
            {
                *place = map.next_value()?;
                ::core::result::Result::Ok(())
            }
            /// Reads a value into `place` as `Some`.
            fn read_some<'de, __A, __T>(map: &mut __A, place: &mut ::core::option::Option<__T>) -> ::core::result::Result<(), __A::Error>
            where
                __A: #serde::de::MapAccess<'de>,
                __T: #serde::Deserialize<'de>,
            {
                *place = ::core::option::Option::Some(map.next_value()?);
                ::core::result::Result::Ok(())
            }
            /// Reads a struct onto the heap into `place` as `Some`.
            fn read_boxed<'de, __A, __T>(map: &mut __A, place: &mut ::core::option::Option<::std::boxed::Box<__T>>) -> ::core::result::Result<(), __A::Error>
            where
                __A: #serde::de::MapAccess<'de>,
                __T: __Boxed<'de>,
            {
                *place = ::core::option::Option::Some(map.next_value_seed(__BoxedSeed(::core::marker::PhantomData))?);
                ::core::result::Result::Ok(())
            }
            /// Reads a struct onto the heap, or `null` as `None`, into `place`.
            fn read_optional_boxed<'de, __A, __T>(map: &mut __A, place: &mut ::core::option::Option<::std::boxed::Box<__T>>) -> ::core::result::Result<(), __A::Error>
            where
                __A: #serde::de::MapAccess<'de>,
                __T: __Boxed<'de>,
            {
                *place = map.next_value_seed(__OptionSeed(::core::marker::PhantomData))?;
                ::core::result::Result::Ok(())
            }
            /// Reads a struct onto the heap, or `null` as `None`, into `place` as `Some`.
            fn read_some_optional_boxed<'de, __A, __T>(
                map: &mut __A,
                place: &mut ::core::option::Option<::core::option::Option<::std::boxed::Box<__T>>>,
            ) -> ::core::result::Result<(), __A::Error>
            where
                __A: #serde::de::MapAccess<'de>,
                __T: __Boxed<'de>,
            {
                *place = ::core::option::Option::Some(map.next_value_seed(__OptionSeed(::core::marker::PhantomData))?);
                ::core::result::Result::Ok(())
            }
            /// Builds a struct from its fields and moves it onto the heap, in a frame of its
            /// own: a visitor's frame never holds the struct (with everything nested in
            /// it) while its fields decode.
            #[inline(never)]
            fn finish<__T, __E>(build: impl ::core::ops::FnOnce() -> ::core::result::Result<__T, __E>) -> ::core::result::Result<::std::boxed::Box<__T>, __E> {
                build().map(::std::boxed::Box::new)
            }
            /// Moves a struct off the heap.
            #[allow(clippy::boxed_local, reason = "structs decode into a Box to keep decoding frames small")]
            fn unbox<__T>(value: ::std::boxed::Box<__T>) -> __T {
                *value
            }
            /// Moves an optional struct off the heap.
            fn unbox_option<__T>(value: ::core::option::Option<::std::boxed::Box<__T>>) -> ::core::option::Option<__T> {
                value.map(Self::unbox)
            }
        }

        impl __FieldSeed {
            fn key(self, key: &str) -> ::core::option::Option<__Key> {
                match self.names.iter().position(|name| *name == key) {
                    ::core::option::Option::Some(index) => ::core::option::Option::Some(__Key::Field(index)),
                    ::core::option::Option::None if self.keep => ::core::option::Option::None,
                    ::core::option::Option::None => ::core::option::Option::Some(__Key::Ignored),
                }
            }
        }

        impl<'de> #serde::de::DeserializeSeed<'de> for __FieldSeed {
            type Value = __Key;
            fn deserialize<__D>(self, deserializer: __D) -> ::core::result::Result<__Key, __D::Error>
            where
                __D: #serde::Deserializer<'de>,
            {
                deserializer.deserialize_identifier(self)
            }
        }

        impl<'de> #serde::de::Visitor<'de> for __FieldSeed {
            type Value = __Key;
            fn expecting(&self, formatter: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                formatter.write_str("a field name")
            }
            fn visit_str<__E>(self, key: &str) -> ::core::result::Result<__Key, __E>
            where
                __E: #serde::de::Error,
            {
                ::core::result::Result::Ok(self.key(key).unwrap_or_else(|| __Key::Other(key.to_owned())))
            }
            fn visit_string<__E>(self, key: ::std::string::String) -> ::core::result::Result<__Key, __E>
            where
                __E: #serde::de::Error,
            {
                ::core::result::Result::Ok(self.key(&key).unwrap_or(__Key::Other(key)))
            }
            fn visit_bytes<__E>(self, key: &[u8]) -> ::core::result::Result<__Key, __E>
            where
                __E: #serde::de::Error,
            {
                match ::core::str::from_utf8(key) {
                    ::core::result::Result::Ok(key) => self.visit_str(key),
                    ::core::result::Result::Err(_) => ::core::result::Result::Ok(__Key::Ignored),
                }
            }
        }
    }
}
