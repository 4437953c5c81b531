//! The fields of kinds whose Rust types another crate has (the built-in kinds, whose types
//! are k8s-openapi's), read from Kubernetes' OpenAPI documents, so that emitters which
//! mirror fields (apply configurations) can mirror them while every type stays
//! k8s-openapi's.
//!
//! For every version of the model whose kinds are [`RootType::External`] and which a
//! document serves:
//!
//! - the version's package is the package of its kinds' definitions
//!   (`io.k8s.api.apps.v1`), and the version's [`Version::external_module`] the module
//!   k8s-openapi has for it (`k8s_openapi::api::apps::v1`);
//! - every definition reached through `$ref`s from any of those kinds, in any version,
//!   whose package is such a version's package, becomes a model type of that version, named
//!   after the definition and built by the [schema layer](crate::frontend::schema) as for
//!   [`load`](super::load): `DeploymentSpec` in `apps/v1`; `PodTemplateSpec`, reached from
//!   it, in `core/v1`, once, however many versions reach it. A kind's module holds its root
//!   type and the definitions first reached from it; definitions reached only from other
//!   versions get a module each;
//! - a `$ref` to another package is the k8s-openapi type (`TypeRef::External`), which an
//!   emitter finds in the version whose external module holds it; definitions of packages
//!   no version here has (`ObjectMeta`, `LabelSelector`, `Quantity`, `Time`,
//!   `RawExtension`...) stay k8s-openapi's;
//! - string enums become `String`, as k8s-openapi has them.
//!
//! Versions and kinds no document serves get no fields, nor do kinds whose client verbs
//! lack `patch` (the create-only reviews): there is nothing to apply to them.

use std::collections::{BTreeMap, BTreeSet};

use serde_saphyr::Spanned;

use super::document::{self, Parsed, Parser};
use super::{definition_of, existing_type, resources};
use crate::frontend::schema::{
    AdditionalProperties, Dialect, GroupVersionKind, Refs, Schema, TypeBuilder,
};
use crate::frontend::{Result, Source};
use crate::model::{ClientVerb, Model, RootType, TypeDef, TypeDefKind, TypeRef};
use crate::naming::{self, UniqueNames};

/// Adds to `model` the fields of its kinds whose types are k8s-openapi's, read from the
/// OpenAPI documents `sources` (see the [module docs](self)), then validates the model.
///
/// ```
/// use kubegen_codegen::__internal::frontend::{Source, builtin, openapi};
/// use kubegen_codegen::__internal::model::{Model, TypeDefKind};
///
/// let doc = r##"{"openapi": "3.0.0",
///   "paths": {"/api/v1/namespaces/{namespace}/configmaps/{name}": {"get":
///     {"x-kubernetes-group-version-kind": {"group": "", "version": "v1", "kind": "ConfigMap"}}}},
///   "components": {"schemas": {
///     "io.k8s.api.core.v1.ConfigMap": {"type": "object",
///       "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "ConfigMap"}],
///       "properties": {"data": {"type": "object", "additionalProperties": {"type": "string"}}}}}}}"##;
/// let mut model = Model::default();
/// builtin::load(&mut model, &builtin::Options::default())?;
/// openapi::load_external_fields(&mut model, &[Source::new("core.json", doc)])?;
/// let core = &model.groups[""].versions["v1"];
/// assert_eq!(core.external_module.as_deref(), Some("k8s_openapi::api::core::v1"));
/// assert!(matches!(&core.type_named("ConfigMap").unwrap().kind, TypeDefKind::Struct(_)));
/// assert!(model.groups["apps"].versions["v1"].types.is_empty(), "no document serves apps/v1");
/// # Ok::<(), kubegen_codegen::__internal::frontend::Error>(())
/// ```
pub fn load_external_fields(model: &mut Model, sources: &[Source]) -> Result<()> {
    crate::parallel::deep(|| {
        let original = model.clone();
        match read(model, sources, Parser::Fast) {
            Ok(_) => Ok(()),
            Err(_) => {
                *model = original;
                read(model, sources, Parser::Located).map(|_| ())
            }
        }
    })
}

/// A version that gets fields: where its definitions are.
struct Target {
    group: String,
    version: String,
    /// Its definitions' package (`io.k8s.api.apps.v1`).
    package: String,
    /// Its kinds' definitions, by kind name, with the document that serves each.
    kinds: BTreeMap<String, (usize, String)>,
}

/// Reads the fields into `model`; returns, per source, the definitions built from it (each
/// with its descriptions, the only source's that are read).
fn read(model: &mut Model, sources: &[Source], parser: Parser) -> Result<Vec<BTreeSet<String>>> {
    let parsed: Vec<Parsed> = crate::parallel::map(sources, |s| document::parse(s, parser))
        .into_iter()
        .collect::<Result<_>>()?;
    let mut order: Vec<usize> = (0..parsed.len()).collect();
    order.sort_by(|a, b| parsed[*a].file.cmp(&parsed[*b].file));
    let served: Vec<BTreeMap<GroupVersionKind, resources::Resource>> = parsed
        .iter()
        .map(|doc| resources::resources(&doc.paths))
        .collect();

    let targets = targets(model, &parsed, &order, &served);
    let packages: BTreeMap<&str, usize> = targets
        .iter()
        .enumerate()
        .map(|(i, t)| (t.package.as_str(), i))
        .collect();
    // Every definition of a target's package reached from any kind, with the first
    // document (in file order) that reaches it.
    let mut reached: BTreeMap<String, usize> = BTreeMap::new();
    for (doc, seen) in walk_targets(&parsed, &targets) {
        for name in seen {
            if packages.contains_key(naming::definition_package(&name)) {
                reached.entry(name).or_insert(doc);
            }
        }
    }
    let mut built_from = vec![BTreeSet::new(); parsed.len()];
    for target in &targets {
        for (doc, name) in add_fields(model, &parsed, target, &reached)? {
            built_from[doc].insert(name);
        }
    }
    model.box_recursive_fields();
    model.validate()?;
    Ok(built_from)
}

/// The versions of `model` whose kinds are k8s-openapi's and which a document serves, in
/// (group, version) order.
fn targets(
    model: &Model,
    parsed: &[Parsed],
    order: &[usize],
    served: &[BTreeMap<GroupVersionKind, resources::Resource>],
) -> Vec<Target> {
    let mut out = Vec::new();
    for (group, version) in model.versions() {
        let mut kinds = BTreeMap::new();
        let mut package = None;
        for kind in version.kinds.values() {
            // Fields serve apply configurations: a kind that is never patched (the
            // create-only reviews) has nothing to apply.
            if !matches!(kind.root, RootType::External(_))
                || !kind.client_verbs.verbs.contains(&ClientVerb::Patch)
            {
                continue;
            }
            let gvk = GroupVersionKind {
                group: group.name.clone(),
                version: version.name.clone(),
                kind: kind.name.clone(),
            };
            let found = order.iter().find_map(|&doc| {
                if !served[doc].contains_key(&gvk) {
                    return None;
                }
                let (name, _) = definition_of(&parsed[doc].definitions, &gvk)?;
                Some((doc, name.clone()))
            });
            if let Some((doc, name)) = found {
                package.get_or_insert_with(|| naming::definition_package(&name).to_owned());
                kinds.insert(kind.name.clone(), (doc, name));
            }
        }
        if let Some(package) = package {
            out.push(Target {
                group: group.name.clone(),
                version: version.name.clone(),
                package,
                kinds,
            });
        }
    }
    out
}

/// For each target kind in turn: its document and every definition reached from its
/// definition in that document (itself included, any package).
fn walk_targets(parsed: &[Parsed], targets: &[Target]) -> Vec<(usize, BTreeSet<String>)> {
    let mut out = Vec::new();
    for target in targets {
        for (doc, definition) in target.kinds.values() {
            let mut seen = BTreeSet::new();
            walk(&parsed[*doc], definition, &mut seen);
            out.push((*doc, seen));
        }
    }
    out
}

/// What [`load_external_fields`] reads of one document for a model.
#[derive(Clone, Debug, Default)]
pub(crate) struct Read {
    /// The kinds that get fields from the document.
    pub(crate) kinds: BTreeSet<GroupVersionKind>,
    /// The definitions fields are built from in this document: the only ones whose
    /// descriptions are read.
    pub(crate) built: BTreeSet<String>,
    /// The definitions read: those kinds' and every definition they reach, of any package.
    pub(crate) definitions: BTreeSet<String>,
}

/// What [`load_external_fields`] reads of each of `sources` (in the order given) for
/// `model`. Keeping these, and dropping the rest, leaves what it builds unchanged.
pub(crate) fn definitions_read(model: &Model, sources: &[Source]) -> Result<Vec<Read>> {
    // A whole read, on a copy, says which definitions fields are built from.
    let mut copy = model.clone();
    let built = match crate::parallel::deep(|| read(&mut copy, sources, Parser::Fast)) {
        Ok(built) => built,
        Err(_) => {
            let mut copy = model.clone();
            crate::parallel::deep(|| read(&mut copy, sources, Parser::Located))?
        }
    };
    crate::parallel::deep(|| {
        let parsed: Vec<Parsed> = sources
            .iter()
            .map(|s| document::parse(s, Parser::Fast))
            .collect::<Result<_>>()?;
        let mut order: Vec<usize> = (0..parsed.len()).collect();
        order.sort_by(|a, b| parsed[*a].file.cmp(&parsed[*b].file));
        let served: Vec<BTreeMap<GroupVersionKind, resources::Resource>> = parsed
            .iter()
            .map(|doc| resources::resources(&doc.paths))
            .collect();
        let targets = targets(model, &parsed, &order, &served);
        let mut out: Vec<Read> = built
            .into_iter()
            .map(|built| Read {
                built,
                ..Read::default()
            })
            .collect();
        for target in &targets {
            for (kind, (doc, _)) in &target.kinds {
                out[*doc].kinds.insert(GroupVersionKind {
                    group: target.group.clone(),
                    version: target.version.clone(),
                    kind: kind.clone(),
                });
            }
        }
        for (doc, seen) in walk_targets(&parsed, &targets) {
            out[doc].definitions.extend(seen);
        }
        Ok(out)
    })
}

/// Collects `name` and every definition its schema reaches through `$ref`s.
fn walk(doc: &Parsed, name: &str, seen: &mut BTreeSet<String>) {
    if !seen.insert(name.to_owned()) {
        return;
    }
    let Some(schema) = doc.definitions.get(name) else {
        return;
    };
    let mut targets = Vec::new();
    references(&schema.value, doc.prefix, &mut targets);
    for target in targets {
        walk(doc, &target, seen);
    }
}

/// The definition names `schema`'s `$ref`s point at, anywhere inside it.
fn references(schema: &Schema, prefix: &str, out: &mut Vec<String>) {
    if let Some(target) = schema
        .reference
        .as_deref()
        .and_then(|r| r.strip_prefix(prefix))
    {
        out.push(target.to_owned());
    }
    for branch in schema
        .all_of
        .iter()
        .chain(&schema.one_of)
        .chain(&schema.any_of)
    {
        references(branch, prefix, out);
    }
    for prop in schema.properties.iter().flat_map(|p| p.values()) {
        references(&prop.value, prefix, out);
    }
    if let Some(items) = &schema.items {
        references(&items.value, prefix, out);
    }
    if let Some(AdditionalProperties::Schema(value)) = &schema.additional_properties {
        references(value, prefix, out);
    }
}

/// Builds the reached definitions of `target`'s package into its version; returns the
/// definitions built, each with the document it was built from.
fn add_fields(
    model: &mut Model,
    parsed: &[Parsed],
    target: &Target,
    reached: &BTreeMap<String, usize>,
) -> Result<Vec<(usize, String)>> {
    let version = model.version_mut(&target.group, &target.version);
    let mut names = UniqueNames::camel();
    let mut modules = UniqueNames::snake();
    modules.reserve("mod");
    for ty in &version.types {
        names.reserve(&ty.name);
    }
    for module in version.modules() {
        modules.reserve(module);
    }
    // Kinds first (each in its own module), then what only other versions reach.
    let mut jobs: Vec<(usize, &str, Option<String>)> = target
        .kinds
        .iter()
        .map(|(kind, (doc, name))| (*doc, name.as_str(), Some(naming::kind_module(kind))))
        .collect();
    jobs.extend(
        reached
            .iter()
            .filter(|(name, _)| naming::definition_package(name) == target.package)
            .map(|(name, doc)| (*doc, name.as_str(), None)),
    );
    // Definition name -> its Rust name, once built.
    let mut built: BTreeMap<String, String> = BTreeMap::new();
    let mut types = Vec::new();
    let mut built_from = Vec::new();
    for (doc_index, name, kind_module) in jobs {
        if built.contains_key(name) {
            continue;
        }
        let doc = &parsed[doc_index];
        let module = match kind_module {
            Some(module) => modules.claim(module),
            None => modules.claim(naming::kind_module(naming::definition_short_name(name))),
        };
        let mut refs = Refs::new(doc.prefix, &doc.definitions);
        for (other, schema) in &doc.definitions {
            let package = naming::definition_package(other);
            if package == target.package {
                if let Some(rust) = built.get(other) {
                    refs.resolved
                        .insert(other.clone(), TypeRef::Named(rust.clone()));
                }
                continue;
            }
            if let Some(ty) = existing_type(other, &schema.value, &doc.definitions, false) {
                refs.resolved.insert(other.clone(), ty);
            }
        }
        let mut builder = TypeBuilder {
            file: &doc.file,
            line_offset: 0,
            module,
            names: &mut names,
            types: Vec::new(),
            dialect: Dialect::OpenApi,
            refs: Some(refs),
            fixed_name: None,
            name_parts: Default::default(),
        };
        let at = builder.at(&definition_location(doc, name));
        builder.definition(name, at)?;
        let resolved = builder.refs.take().map(|r| r.resolved).unwrap_or_default();
        for (other, ty) in resolved {
            if let TypeRef::Named(rust) = ty
                && naming::definition_package(&other) == target.package
            {
                built_from.push((doc_index, other.clone()));
                built.insert(other, rust);
            }
        }
        types.append(&mut builder.types);
    }
    plain_strings(&mut types);
    version.types.append(&mut types);
    let module = naming::k8s_openapi_path(&format!("{}.X", target.package))
        .and_then(|path| path.strip_suffix("::X").map(str::to_owned));
    version.external_module = module;
    Ok(built_from)
}

fn definition_location(doc: &Parsed, name: &str) -> serde_saphyr::Location {
    doc.definitions
        .get(name)
        .map_or(serde_saphyr::Location::UNKNOWN, |s: &Spanned<Schema>| {
            s.referenced
        })
}

/// Replaces string enums by `String` (k8s-openapi has no enum types) and drops them.
fn plain_strings(types: &mut Vec<TypeDef>) {
    let enums: BTreeSet<String> = types
        .iter()
        .filter(|t| matches!(t.kind, TypeDefKind::Enum(_)))
        .map(|t| t.name.clone())
        .collect();
    if enums.is_empty() {
        return;
    }
    types.retain(|t| !enums.contains(&t.name));
    for ty in types.iter_mut() {
        if let TypeDefKind::Struct(s) = &mut ty.kind {
            for field in &mut s.fields {
                replace_enums(&mut field.ty, &enums);
            }
            if let Some(extra) = &mut s.additional {
                replace_enums(&mut extra.value, &enums);
            }
        }
    }
}

fn replace_enums(ty: &mut TypeRef, enums: &BTreeSet<String>) {
    match ty {
        TypeRef::Named(name) if enums.contains(name.as_str()) => *ty = TypeRef::String,
        TypeRef::Vec(inner)
        | TypeRef::Map(inner)
        | TypeRef::Option(inner)
        | TypeRef::Boxed(inner) => replace_enums(inner, enums),
        _ => {}
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::frontend::builtin;
    use crate::model::Field;

    /// apps/v1 Deployment reaching core/v1 PodTemplateSpec, with a string enum; core/v1
    /// served by its own document.
    const APPS: &str = r##"{"openapi": "3.0.0",
      "paths": {"/apis/apps/v1/namespaces/{namespace}/deployments/{name}": {"get":
        {"x-kubernetes-group-version-kind": {"group": "apps", "version": "v1", "kind": "Deployment"}}}},
      "components": {"schemas": {
        "io.k8s.api.apps.v1.Deployment": {"type": "object",
          "x-kubernetes-group-version-kind": [{"group": "apps", "version": "v1", "kind": "Deployment"}],
          "properties": {
            "metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]},
            "spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec"}]}}},
        "io.k8s.api.apps.v1.DeploymentSpec": {"type": "object", "properties": {
          "strategy": {"type": "string", "enum": ["Recreate", "RollingUpdate"]},
          "template": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodTemplateSpec"}]}}},
        "io.k8s.api.apps.v1.Unused": {"type": "object", "properties": {"x": {"type": "string"}}},
        "io.k8s.api.core.v1.PodTemplateSpec": {"type": "object", "properties": {
          "spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodSpec"}]}}},
        "io.k8s.api.core.v1.PodSpec": {"type": "object", "properties": {
          "containers": {"type": "array", "items": {"type": "string"},
            "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name"}}},
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {"type": "object", "properties": {"name": {"type": "string"}}}
      }}}"##;

    const CORE: &str = r##"{"openapi": "3.0.0",
      "paths": {"/api/v1/namespaces/{namespace}/pods/{name}": {"get":
        {"x-kubernetes-group-version-kind": {"group": "", "version": "v1", "kind": "Pod"}}}},
      "components": {"schemas": {
        "io.k8s.api.core.v1.Pod": {"type": "object",
          "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "Pod"}],
          "properties": {"spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodSpec"}]}}},
        "io.k8s.api.core.v1.PodSpec": {"type": "object", "properties": {
          "containers": {"type": "array", "items": {"type": "string"},
            "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name"}}}
      }}}"##;

    fn model() -> Model {
        let mut model = Model::default();
        builtin::load(&mut model, &builtin::Options::default()).unwrap();
        load_external_fields(
            &mut model,
            &[
                Source::new("apps.json", APPS),
                Source::new("core.json", CORE),
            ],
        )
        .unwrap();
        model
    }

    fn field<'m>(model: &'m Model, group: &str, ty: &str, name: &str) -> &'m Field {
        let def = model.groups[group].versions["v1"].type_named(ty).unwrap();
        let TypeDefKind::Struct(s) = &def.kind else {
            panic!("{ty} is not a struct")
        };
        s.fields.iter().find(|f| f.wire_name == name).unwrap()
    }

    #[test]
    fn each_definition_is_built_once_in_its_own_version() {
        let model = model();
        let apps = &model.groups["apps"].versions["v1"];
        let core = &model.groups[""].versions["v1"];
        let names = |v: &crate::model::Version| -> Vec<(String, String)> {
            v.types
                .iter()
                .map(|t| (t.name.clone(), t.module.clone()))
                .collect()
        };
        assert_eq!(
            names(apps),
            [
                ("Deployment".to_owned(), "deployment".to_owned()),
                ("DeploymentSpec".to_owned(), "deployment".to_owned())
            ]
        );
        assert_eq!(
            names(core),
            [
                ("Pod".to_owned(), "pod".to_owned()),
                ("PodSpec".to_owned(), "pod".to_owned()),
                ("PodTemplateSpec".to_owned(), "pod_template_spec".to_owned())
            ]
        );
        assert_eq!(
            apps.external_module.as_deref(),
            Some("k8s_openapi::api::apps::v1")
        );
        assert!(matches!(
            &field(&model, "apps", "DeploymentSpec", "template").ty,
            TypeRef::External(t) if t.path == "k8s_openapi::api::core::v1::PodTemplateSpec"
        ));
        assert_eq!(
            field(&model, "apps", "Deployment", "metadata").ty,
            TypeRef::External(crate::model::ExternalType::object_meta())
        );
    }

    #[test]
    fn enums_are_strings_and_patch_strategies_are_documented() {
        let model = model();
        assert_eq!(
            field(&model, "apps", "DeploymentSpec", "strategy").ty,
            TypeRef::String
        );
        let docs = field(&model, "", "PodSpec", "containers").docs.clone();
        assert_eq!(
            docs.as_deref(),
            Some("Patch strategy `merge` on key `name` (strategic merge patch).")
        );
    }
}
