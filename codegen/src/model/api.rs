//! The API surface: groups, versions and kinds.

use std::collections::{BTreeMap, BTreeSet};

use super::origin::Origin;
use super::types::{ExternalType, StructDef, TypeDef, TypeDefKind};

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
    /// The version name (`v1`, `v1beta2`).
    pub name: String,
    /// The Rust module the version is emitted into (`v1beta2`; `fn_` for `fn`).
    pub module: String,
    /// Kinds by kind name.
    pub kinds: BTreeMap<String, Kind>,
    /// Every type of this version, in emission order (a kind's root type first, then the
    /// types it uses in depth-first order). Names are unique within the version.
    pub types: Vec<TypeDef>,
    /// The module of another crate where this version's types already live
    /// (`k8s_openapi::api::apps::v1` for the built-in `apps/v1`), if they do: then
    /// [`Version::types`] describes those types' fields, for emitters that mirror them
    /// (apply configurations), and no emitter generates them. A `$ref` from another
    /// version reaches them as [`TypeRef::External`](super::TypeRef::External) paths in
    /// this module.
    pub external_module: Option<String>,
}

impl Version {
    /// An empty version called `name`.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            module: crate::naming::version_module(name),
            kinds: BTreeMap::new(),
            types: Vec::new(),
            external_module: None,
        }
    }

    /// Looks a type up by its Rust name.
    pub fn type_named(&self, name: &str) -> Option<&TypeDef> {
        self.types.iter().find(|t| t.name == name)
    }

    /// The root struct of `kind`: the generated one in [`Version::types`], or the hand-written
    /// one the kind carries; `None` for k8s-openapi types and for a kind whose root is
    /// missing or not a struct.
    pub fn root_of<'a>(&'a self, kind: &'a Kind) -> Option<(&'a TypeDef, &'a StructDef)> {
        let def = match &kind.root {
            RootType::Generated(name) => self.type_named(name)?,
            RootType::HandWritten(hand) => &hand.def,
            RootType::External(_) => return None,
        };
        match &def.kind {
            TypeDefKind::Struct(s) => Some((def, s)),
            _ => None,
        }
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

/// A verb of a kind's client (client-gen's `+genclient:onlyVerbs` names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ClientVerb {
    /// `get`.
    Get,
    /// `list`.
    List,
    /// `watch`.
    Watch,
    /// `create`.
    Create,
    /// `update` (and `update_status`, `update_scale`).
    Update,
    /// `patch` (and server-side apply, `patch_status`, `apply_status`).
    Patch,
    /// `delete`.
    Delete,
    /// `deletecollection`.
    DeleteCollection,
}

impl ClientVerb {
    /// Every verb, in the order of the runtime's `Verbs<...>` slots.
    pub const ALL: [ClientVerb; 8] = [
        ClientVerb::Get,
        ClientVerb::List,
        ClientVerb::Watch,
        ClientVerb::Create,
        ClientVerb::Update,
        ClientVerb::Patch,
        ClientVerb::Delete,
        ClientVerb::DeleteCollection,
    ];

    /// The verb's name as written in attributes and options (`deletecollection`).
    pub fn name(self) -> &'static str {
        match self {
            ClientVerb::Get => "get",
            ClientVerb::List => "list",
            ClientVerb::Watch => "watch",
            ClientVerb::Create => "create",
            ClientVerb::Update => "update",
            ClientVerb::Patch => "patch",
            ClientVerb::Delete => "delete",
            ClientVerb::DeleteCollection => "deletecollection",
        }
    }

    /// The verb named `name`, if any.
    pub fn from_name(name: &str) -> Option<ClientVerb> {
        ClientVerb::ALL.into_iter().find(|v| v.name() == name)
    }

    /// Every verb name, comma-separated, for error messages.
    pub fn names() -> String {
        ClientVerb::ALL.map(ClientVerb::name).join(", ")
    }
}

/// The verbs a kind's generated client offers (client-gen's `+genclient:readonly`,
/// `+genclient:onlyVerbs` and `+genclient:noStatus`): by default every verb, and the
/// status verbs when the kind serves `/status`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientVerbs {
    /// The verbs offered.
    pub verbs: BTreeSet<ClientVerb>,
    /// Whether the status verbs are left out even though the kind serves `/status`.
    pub no_status: bool,
}

impl Default for ClientVerbs {
    fn default() -> Self {
        Self {
            verbs: ClientVerb::ALL.into_iter().collect(),
            no_status: false,
        }
    }
}

impl ClientVerbs {
    /// get, list and watch only.
    pub fn read_only() -> Self {
        Self {
            verbs: [ClientVerb::Get, ClientVerb::List, ClientVerb::Watch]
                .into_iter()
                .collect(),
            no_status: false,
        }
    }

    /// Whether every verb is offered.
    pub fn is_all(&self) -> bool {
        self.verbs.len() == ClientVerb::ALL.len()
    }

    /// Whether exactly get, list and watch are offered.
    pub fn is_read_only(&self) -> bool {
        self.verbs == Self::read_only().verbs
    }

    /// Whether list and watch are both offered, which an informer and its lister need:
    /// a kind without them (a create-only review) gets a client alone, as client-go's
    /// informer-gen and lister-gen skip kinds that are not listed and watched.
    pub fn informable(&self) -> bool {
        self.verbs.contains(&ClientVerb::List) && self.verbs.contains(&ClientVerb::Watch)
    }
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

impl PrinterColumn {
    /// The column types the API server accepts (`printerColumnDatatypes` of the
    /// apiextensions validation).
    pub const TYPES: &[&str] = &["integer", "number", "string", "boolean", "date"];
    /// The column formats it accepts (`customResourceColumnDefinitionFormats`).
    pub const FORMATS: &[&str] = &[
        "int32",
        "int64",
        "float",
        "double",
        "byte",
        "date",
        "date-time",
        "password",
    ];
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
    /// The verbs its generated client offers.
    pub client_verbs: ClientVerbs,
    /// Printer columns.
    pub printer_columns: Vec<PrinterColumn>,
    /// Selectable fields (JSON paths usable in field selectors).
    pub selectable_fields: Vec<String>,
    /// Validations of the root object's schema (`x-kubernetes-validations` rules on the
    /// whole object).
    pub validation: super::Validation,
    /// Where the kind's Rust type lives.
    pub root: RootType,
    /// The Rust module (file) of the kind's generated types (`certificate`).
    pub module: String,
    /// Where the kind's names were written, for errors.
    pub origin: Origin,
}

/// Where a kind's Rust type lives.
#[derive(Clone, Debug, PartialEq)]
pub enum RootType {
    /// Generated by kubegen: the root struct of this name in [`Version::types`] (CRD and
    /// OpenAPI inputs). Clients name it under the module the generated types are mounted at.
    Generated(String),
    /// Written by hand with `#[derive(Resource)]`.
    HandWritten(HandWritten),
    /// A type of another crate, by path (the built-in kinds' k8s-openapi types).
    External(ExternalType),
}

impl RootType {
    /// The Rust name of the type (its last path segment).
    pub fn name(&self) -> &str {
        match self {
            RootType::Generated(name) => name,
            RootType::HandWritten(hand) => &hand.def.name,
            RootType::External(external) => external.name(),
        }
    }
}

/// A root struct written by hand: where it is and what it holds.
#[derive(Clone, Debug, PartialEq)]
pub struct HandWritten {
    /// The type's path: from the crate root (`crate::apis::samplecontroller::v1alpha1::Foo`)
    /// for generated clients, or just its name inside the derive.
    pub path: String,
    /// The struct: its fields (Rust and wire names, whether optional), docs and root marker.
    /// Field types are approximate (kubegen reads them, never compiles them), except where
    /// [`HandWritten::types`] resolves them.
    pub def: TypeDef,
    /// The types the root's fields use, read from the same sources, when the front-end was
    /// asked for schemas (`kubegen crd`) or apply configurations (`--apply-out`): the fields
    /// of `def` and of these types name them with [`TypeRef::Named`](super::TypeRef::Named).
    /// Each one's [`TypeDef::module`] is the path of the module declaring it
    /// (`crate::apis::samplecontroller::v1alpha1`), where its own type lives. Empty otherwise.
    pub types: Vec<TypeDef>,
}

/// A kind with everything its resource impls are built from (see [`Model::resources`]).
///
/// [`Model::resources`]: super::Model::resources
#[derive(Clone, Copy, Debug)]
pub struct Resource<'a> {
    /// The kind's group.
    pub group: &'a Group,
    /// The kind's version.
    pub version: &'a Version,
    /// The kind.
    pub kind: &'a Kind,
    /// The root type.
    pub root: &'a TypeDef,
    /// The root type's struct.
    pub fields: &'a StructDef,
}
