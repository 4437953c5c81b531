//! The shape of a hand-written Rust type, as `#[derive(DeepCopy)]` reads it: names only,
//! since each field's own `Clone` does the copying.
//!
//! Generic parameters and `where` predicates are the user's Rust, which kubegen echoes
//! into the impl without interpreting it: each is kept as the source text of one
//! parameter or predicate, and the emitter parses it back with syn.

/// A struct or enum to deep-copy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TypeShape {
    /// The type name (`Foo`, or `r#type` for a raw identifier).
    pub name: String,
    /// Its generic parameters.
    pub generics: Generics,
    /// Its fields or variants.
    pub body: ShapeBody,
}

/// Generic parameters and `where` predicates, as written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Generics {
    /// The parameters in declaration order.
    pub params: Vec<GenericParam>,
    /// The predicates of the `where` clause (`U: Sync`).
    pub where_predicates: Vec<String>,
}

/// One generic parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenericParam {
    /// Lifetime, type or const.
    pub kind: ParamKind,
    /// The name as it appears in arguments (`'a`, `T`, `N`).
    pub name: String,
    /// The declaration with its bounds and default, as written (`T: Send = String`).
    pub declaration: String,
}

/// What a generic parameter is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// `'a`.
    Lifetime,
    /// `T` (gets a `Clone` bound, as `#[derive(Clone)]` adds).
    Type,
    /// `const N: usize`.
    Const,
}

/// A struct's fields or an enum's variants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShapeBody {
    /// A struct.
    Struct(ShapeFields),
    /// An enum's variants in declaration order.
    Enum(Vec<ShapeVariant>),
}

impl Default for ShapeBody {
    fn default() -> Self {
        ShapeBody::Struct(ShapeFields::Unit)
    }
}

/// One enum variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeVariant {
    /// The variant name.
    pub name: String,
    /// Its fields.
    pub fields: ShapeFields,
}

/// The fields of a struct or variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShapeFields {
    /// `{ a, b }`: field names.
    Named(Vec<String>),
    /// `(A, B)`: the number of fields.
    Unnamed(usize),
    /// No fields.
    Unit,
}
