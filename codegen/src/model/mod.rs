//! The owned model every front-end builds and every emitter reads.
//!
//! The model has two halves:
//!
//! - the API surface: [`Model`] -> [`Group`] -> [`Version`] -> [`Kind`] (names, scope,
//!   subresources, printer columns, where the kind's Rust type lives ([`RootType`]), and
//!   where its names were written ([`Origin`]));
//! - the type model: each [`Version`] owns a namespace of [`TypeDef`]s (structs, string
//!   enums, untagged unions) whose fields point at other types through [`TypeRef`].
//!
//! Beside them, [`TypeShape`] is what `#[derive(DeepCopy)]` reads from any Rust type.
//!
//! The model is the whole contract between front-ends and emitters: front-ends build it
//! and end with [`Model::validate`], which enforces Kubernetes' own naming rules (with the
//! `file:line:column` of the offending name) and the invariants emitters rely on; emitters
//! read nothing else. Everything is owned and deterministically ordered (`BTreeMap` or
//! sorted `Vec`), so two runs over the same input build equal models and emit identical
//! bytes.
//!
//! ```
//! use kubegen_codegen::__internal::model::{Model, TypeRef};
//!
//! let model = Model::default();
//! assert!(model.validate().is_ok());
//! assert_eq!(TypeRef::Vec(Box::new(TypeRef::String)).to_string(), "Vec<String>");
//! ```

mod api;
mod check;
mod defaults;
mod error;
mod names;
mod origin;
mod shape;
mod types;
mod validation;

pub use api::{
    ClientVerb, ClientVerbs, Group, HandWritten, Kind, KindNames, PrinterColumn, Resource,
    RootType, Scale, Scope, Subresources, Version,
};
pub use defaults::{DefaultValue, Presence, default_value, field_default};
pub use error::{Error, Result};
pub use origin::{Location, Origin};
pub use shape::{
    GenericParam, Generics, ParamKind, ShapeBody, ShapeFields, ShapeVariant, TypeShape,
};
pub use types::{
    Additional, EnumDef, EnumVariant, ExternalType, Field, RootInfo, StructDef, TypeDef,
    TypeDefKind, TypeRef, UnionDef, UnionVariant,
};
pub use validation::{ListType, MapType, Validation, ValidationRule};

use std::collections::BTreeMap;

/// A whole generation unit: every API group the inputs described.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Model {
    /// API groups by group name (`""` is the core group).
    pub groups: BTreeMap<String, Group>,
}

impl Model {
    /// Returns the version `group/version`, creating the group and version if needed.
    ///
    /// `group_module` is the Rust module name for a newly created group (see
    /// [`crate::naming::group_module`]); it is ignored when the group already exists.
    pub fn version_mut(&mut self, group: &str, version: &str) -> &mut Version {
        let g = self
            .groups
            .entry(group.to_owned())
            .or_insert_with(|| Group {
                name: group.to_owned(),
                module: crate::naming::group_module(group),
                versions: BTreeMap::new(),
            });
        g.versions
            .entry(version.to_owned())
            .or_insert_with(|| Version::new(version))
    }

    /// Iterates over every version of every group, in deterministic order.
    pub fn versions(&self) -> impl Iterator<Item = (&Group, &Version)> {
        self.groups
            .values()
            .flat_map(|g| g.versions.values().map(move |v| (g, v)))
    }

    /// Every kind with its group and version, in deterministic order.
    pub fn kinds(&self) -> impl Iterator<Item = (&Group, &Version, &Kind)> {
        self.versions()
            .flat_map(|(g, v)| v.kinds.values().map(move |k| (g, v, k)))
    }

    /// Every kind whose root struct is in the model (generated or hand-written), with what
    /// its resource impls are built from.
    pub fn resources(&self) -> impl Iterator<Item = Resource<'_>> {
        self.kinds().filter_map(|(group, version, kind)| {
            let (root, fields) = version.root_of(kind)?;
            Some(Resource {
                group,
                version,
                kind,
                root,
                fields,
            })
        })
    }

    /// Total number of kinds in the model.
    pub fn kind_count(&self) -> usize {
        self.versions().map(|(_, v)| v.kinds.len()).sum()
    }
}
