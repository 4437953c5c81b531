//! Where things were written: locations in the inputs, for errors.

use std::fmt;

/// A place in an input (1-based line and column).
///
/// ```
/// use kubegen_codegen::__internal::model::Location;
/// assert_eq!(Location::new("crds/foo.yaml", 12, 7).to_string(), "crds/foo.yaml:12:7");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    /// The input's name (`crds/foo.yaml`).
    pub file: String,
    /// 1-based line (0 when unknown).
    pub line: u64,
    /// 1-based column (0 when unknown).
    pub column: u64,
}

impl Location {
    /// A location in `file`.
    pub fn new(file: impl Into<String>, line: u64, column: u64) -> Self {
        Self {
            file: file.into(),
            line,
            column,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// Where a kind's names were written, so that [`Model::validate`] can point at a bad one.
/// Kinds from tables (the built-in groups) have none.
///
/// Origins are diagnostics, not meaning: two kinds compare equal whatever their origins,
/// so the same input read with and without locations builds equal models.
///
/// [`Model::validate`]: super::Model::validate
#[derive(Clone, Debug, Default)]
pub struct Origin {
    /// The group name (`spec.group`).
    pub group: Option<Location>,
    /// The version name (`spec.versions[].name`).
    pub version: Option<Location>,
    /// The kind (`spec.names.kind`); also where the other names point when theirs is unknown.
    pub kind: Option<Location>,
    /// `spec.names.plural`.
    pub plural: Option<Location>,
    /// `spec.names.singular`.
    pub singular: Option<Location>,
    /// `spec.names.listKind`.
    pub list_kind: Option<Location>,
    /// `spec.names.shortNames`, in order.
    pub short_names: Vec<Location>,
    /// `spec.names.categories`, in order.
    pub categories: Vec<Location>,
}

impl PartialEq for Origin {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Origin {
    /// The location of a name, falling back to the kind's.
    pub fn of(&self, name: Option<&Location>) -> Option<Location> {
        name.or(self.kind.as_ref()).cloned()
    }
}
