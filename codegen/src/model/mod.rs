//! The owned model every front-end builds and every emitter reads.
//!
//! The model has two halves:
//!
//! - the API surface: [`Model`] -> [`Group`] -> [`Version`] -> [`Kind`] (names, scope,
//!   subresources, printer columns...);
//! - the type model: each [`Version`] owns a namespace of [`TypeDef`]s (structs, string
//!   enums, untagged unions) whose fields point at other types through [`TypeRef`].
//!
//! Everything is owned and deterministically ordered (`BTreeMap` or sorted `Vec`), so two
//! runs over the same input build equal models and emit identical bytes. Front-ends build a
//! model, call [`Model::validate`], and hand it to the emitters.
//!
//! ```
//! use kubegen_codegen::model::{Model, TypeRef};
//!
//! let model = Model::default();
//! assert!(model.validate().is_ok());
//! assert_eq!(TypeRef::Vec(Box::new(TypeRef::String)).to_string(), "Vec<String>");
//! ```

mod api;
mod check;
mod types;

pub use api::{Group, Kind, KindNames, PrinterColumn, Scale, Scope, Subresources, Version};
pub use check::{Error, Result};
pub use types::{
    Additional, EnumDef, EnumVariant, ExternalType, Field, RootInfo, StructDef, TypeDef,
    TypeDefKind, TypeRef, UnionDef, UnionVariant,
};

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

    /// Total number of kinds in the model.
    pub fn kind_count(&self) -> usize {
        self.versions().map(|(_, v)| v.kinds.len()).sum()
    }
}
