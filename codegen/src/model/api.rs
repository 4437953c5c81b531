//! The API surface: groups, versions and kinds.

use std::collections::BTreeMap;

use super::types::TypeDef;

/// An API group (`cert-manager.io`; `""` for the core group).
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// The group name as the API server spells it.
    pub name: String,
    /// The Rust module the group is emitted into (`cert_manager_io`).
    pub module: String,
    /// Versions by name.
    pub versions: BTreeMap<String, Version>,
}

/// One version of an API group: its kinds and the types they use.
#[derive(Clone, Debug, PartialEq)]
pub struct Version {
    /// The version name (`v1`, `v1beta2`); also the Rust module name.
    pub name: String,
    /// Kinds by kind name.
    pub kinds: BTreeMap<String, Kind>,
    /// Every type of this version, in emission order (a kind's root type first, then the
    /// types it uses in depth-first order). Names are unique within the version.
    pub types: Vec<TypeDef>,
}

impl Version {
    /// An empty version called `name`.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            kinds: BTreeMap::new(),
            types: Vec::new(),
        }
    }

    /// Looks a type up by its Rust name.
    pub fn type_named(&self, name: &str) -> Option<&TypeDef> {
        self.types.iter().find(|t| t.name == name)
    }

    /// The Rust module names (one file each) that this version's types live in, sorted.
    pub fn modules(&self) -> Vec<&str> {
        let mut modules: Vec<&str> = self.types.iter().map(|t| t.module.as_str()).collect();
        modules.sort_unstable();
        modules.dedup();
        modules
    }
}

/// Whether a kind's objects live in a namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// Objects live in a namespace.
    Namespaced,
    /// Objects are cluster-wide.
    Cluster,
}

/// The names a kind is known by.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KindNames {
    /// Plural resource name, used in URLs (`certificates`).
    pub plural: String,
    /// Singular resource name (`certificate`).
    pub singular: String,
    /// Short names for kubectl (`cert`, `certs`).
    pub short_names: Vec<String>,
    /// Categories (`all`, `cert-manager`).
    pub categories: Vec<String>,
    /// The list kind (`CertificateList`).
    pub list_kind: String,
}

/// The scale subresource's JSON paths.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scale {
    /// JSON path to the desired replicas (`.spec.replicas`).
    pub spec_replicas_path: String,
    /// JSON path to the observed replicas (`.status.replicas`).
    pub status_replicas_path: String,
    /// JSON path to the label selector, if any.
    pub label_selector_path: Option<String>,
}

/// The subresources a kind serves.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Subresources {
    /// Whether `/status` is served.
    pub status: bool,
    /// The `/scale` subresource, if served.
    pub scale: Option<Scale>,
}

/// An additional printer column (`kubectl get` output).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PrinterColumn {
    /// Column header.
    pub name: String,
    /// OpenAPI type of the column (`string`, `date`, `integer`...).
    pub type_: String,
    /// JSON path of the value.
    pub json_path: String,
    /// Human description.
    pub description: Option<String>,
    /// Priority (0 shows in the standard view).
    pub priority: i32,
}

/// A kind in one version of a group.
#[derive(Clone, Debug, PartialEq)]
pub struct Kind {
    /// Kind name (`Certificate`).
    pub name: String,
    /// Plural, singular, short names, categories, list kind.
    pub names: KindNames,
    /// Namespaced or cluster-scoped.
    pub scope: Scope,
    /// Whether this version is served by the API server.
    pub served: bool,
    /// Whether this version is the storage version.
    pub storage: bool,
    /// Whether this version is deprecated, with the optional warning.
    pub deprecated: Option<String>,
    /// Subresources.
    pub subresources: Subresources,
    /// Printer columns.
    pub printer_columns: Vec<PrinterColumn>,
    /// Selectable fields (JSON paths usable in field selectors).
    pub selectable_fields: Vec<String>,
    /// The Rust name of the root type in [`Version::types`].
    pub root_type: String,
    /// The Rust module (file) of the kind (`certificate`).
    pub module: String,
}
