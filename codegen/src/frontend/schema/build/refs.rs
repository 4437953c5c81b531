//! `$ref` resolution for OpenAPI documents: named schemas become named types (or map to
//! existing ones), built once, recursion allowed through objects; and the list/map
//! semantics notes OpenAPI fields get in their docs.

use std::collections::{BTreeMap, BTreeSet};

use serde_saphyr::Spanned;

use super::{At, TypeBuilder, merged};
use crate::frontend::Error;
use crate::frontend::schema::Schema;
use crate::model::TypeRef;
use crate::naming;

/// The named schemas `$ref`s point at, and what each resolves to.
pub(crate) struct Refs<'a> {
    /// The prefix of every `$ref` (`#/components/schemas/` or `#/definitions/`).
    pub(crate) prefix: &'static str,
    /// Every named schema of the document.
    pub(crate) definitions: &'a BTreeMap<String, Spanned<Schema>>,
    /// Definition name -> its type: seeded with the definitions that map to existing
    /// (k8s-openapi) types, completed as definitions are built.
    pub(crate) resolved: BTreeMap<String, TypeRef>,
    /// Definition name -> the Rust name reserved for it (the group's own definitions).
    pub(crate) reserved: BTreeMap<String, String>,
    /// Definitions being built, with their Rust names (a `$ref` back to one is recursion).
    in_progress: BTreeMap<String, String>,
    /// Definitions referred to while being built.
    recursive: BTreeSet<String>,
}

impl<'a> Refs<'a> {
    /// Refs into `definitions`, all of which are still to build.
    pub(crate) fn new(
        prefix: &'static str,
        definitions: &'a BTreeMap<String, Spanned<Schema>>,
    ) -> Self {
        Self {
            prefix,
            definitions,
            resolved: BTreeMap::new(),
            reserved: BTreeMap::new(),
            in_progress: BTreeMap::new(),
            recursive: BTreeSet::new(),
        }
    }
}

impl TypeBuilder<'_> {
    /// Builds the definition `name` (a key of [`Refs::definitions`]) unless it is built or
    /// mapped already, and returns its type: a named type called after the definition, or
    /// what the schema is when it names no type of its own (`type: string`...).
    pub(crate) fn definition(&mut self, name: &str, at: At) -> Result<TypeRef, Error> {
        let Some(refs) = self.refs.as_mut() else {
            return Err(self.error(
                at,
                format!("expected a self-contained schema, found `$ref` to `{name}`"),
            ));
        };
        if let Some(ty) = refs.resolved.get(name) {
            return Ok(ty.clone());
        }
        if let Some(rust_name) = refs.in_progress.get(name) {
            let ty = TypeRef::Named(rust_name.clone());
            refs.recursive.insert(name.to_owned());
            return Ok(ty);
        }
        let definitions = refs.definitions;
        let reserved = refs.reserved.get(name).cloned();
        let Some(schema) = definitions.get(name) else {
            return Err(self.error(
                at,
                format!("expected `$ref` to a schema of the document, found `{name}`"),
            ));
        };
        let short = naming::definition_short_name(name);
        let rust_name = match reserved {
            Some(reserved) => reserved,
            None => self.names.claim(naming::type_name(&[short])),
        };
        if let Some(refs) = self.refs.as_mut() {
            refs.in_progress.insert(name.to_owned(), rust_name.clone());
        }
        let def_at = self.at(&schema.referenced);
        let node = merged(&schema.value);
        self.fixed_name = Some(rust_name.clone());
        let built = self.type_ref(&node, &[short.to_owned()], def_at);
        self.fixed_name = None;
        let ty = built?;
        let Some(refs) = self.refs.as_mut() else {
            return Ok(ty);
        };
        refs.in_progress.remove(name);
        if refs.recursive.contains(name) && ty != TypeRef::Named(rust_name) {
            return Err(self.error(
                def_at,
                format!(
                    "expected schema `{name}` to be an object, enum or union where it refers to \
itself"
                ),
            ));
        }
        refs.resolved.insert(name.to_owned(), ty.clone());
        Ok(ty)
    }

    /// Builds the root struct of `kind` from the definition `name`, recording that `$ref`s
    /// to it mean the root type.
    pub(crate) fn root_definition(
        &mut self,
        kind: &str,
        name: &str,
        schema: &Spanned<Schema>,
    ) -> Result<String, Error> {
        let reserved = self
            .refs
            .as_ref()
            .and_then(|r| r.reserved.get(name).cloned());
        if let (Some(rust_name), Some(refs)) = (&reserved, self.refs.as_mut()) {
            refs.resolved
                .insert(name.to_owned(), TypeRef::Named(rust_name.clone()));
        }
        self.fixed_name = reserved;
        let root = self.root(kind, schema);
        self.fixed_name = None;
        root
    }
}

/// Appends what `x-kubernetes-list-type`, `x-kubernetes-list-map-keys` and
/// `x-kubernetes-map-type` say about merging (server-side apply), and what
/// `x-kubernetes-patch-strategy` and `x-kubernetes-patch-merge-key` say (strategic merge
/// patch), to a field's docs.
pub(super) fn with_list_semantics(docs: Option<String>, node: &Schema) -> Option<String> {
    let note = match (node.list_type.as_deref(), node.map_type.as_deref()) {
        (Some("map"), _) if !node.list_map_keys.is_empty() => {
            let keys: Vec<String> = node
                .list_map_keys
                .iter()
                .map(|k| format!("`{k}`"))
                .collect();
            Some(format!(
                "List type `map`: entries are merged by key ({}).",
                keys.join(", ")
            ))
        }
        (Some("set"), _) => Some("List type `set`: entries are unique and merged.".to_owned()),
        (Some("atomic"), _) => Some("List type `atomic`: replaced as a whole.".to_owned()),
        (Some(other), _) => Some(format!("List type `{other}`.")),
        (None, Some("atomic")) => Some("Map type `atomic`: replaced as a whole.".to_owned()),
        (None, Some("granular")) => Some("Map type `granular`: merged key by key.".to_owned()),
        _ => None,
    };
    let patch = match (
        node.patch_strategy.as_deref(),
        node.patch_merge_key.as_deref(),
    ) {
        (Some(strategy), Some(key)) => Some(format!(
            "Patch strategy `{strategy}` on key `{key}` (strategic merge patch)."
        )),
        (Some(strategy), None) => Some(format!(
            "Patch strategy `{strategy}` (strategic merge patch)."
        )),
        (None, Some(key)) => Some(format!("Patch merge key `{key}` (strategic merge patch).")),
        (None, None) => None,
    };
    let note = match (note, patch) {
        (Some(n), Some(p)) => Some(format!("{n} {p}")),
        (n, p) => n.or(p),
    };
    match (docs, note) {
        (Some(d), Some(n)) => Some(format!("{d}\n\n{n}")),
        (d, n) => d.or(n),
    }
}
