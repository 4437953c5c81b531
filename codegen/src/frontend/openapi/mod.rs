//! The OpenAPI front-end: Kubernetes OpenAPI v3 (per group-version, `components.schemas`)
//! and v2 (swagger, `definitions`) documents -> model, for whole API groups.
//!
//! For every selected group/version (all that the documents serve, or those chosen with
//! [`Options::group`], [`Options::version`] and [`Options::versions`]):
//!
//! - **kinds** are the resources the document's paths serve: plural,
//!   scope and the `status`/`scale` subresources come from the paths, the kind from their
//!   `x-kubernetes-group-version-kind`, its schema from the definition carrying the same
//!   `x-kubernetes-group-version-kind`;
//! - **the group's own package** is the package of those definitions
//!   (`io.k8s.api.apps.v1` for `apps/v1`); every definition in it becomes a model type
//!   named after the definition (`DeploymentSpec`), except the `<Kind>List` wrappers
//!   (kube's `ObjectList<K>` covers them). A kind's module holds its root type and the
//!   definitions first reached from it; definitions no kind reaches get a module each;
//! - **definitions of other packages** map to k8s-openapi types by one rule,
//!   [`naming::k8s_openapi_path`](crate::naming::k8s_openapi_path)
//!   (`io.k8s.api.core.v1.PodTemplateSpec` -> `::k8s_openapi::api::core::v1::PodTemplateSpec`),
//!   so output stays small and interoperates with kube. With
//!   [`Options::generate_referenced`] they are generated into the version instead
//!   (except `ObjectMeta`, `Time`, `MicroTime`, `Quantity` and `IntOrString`, which root
//!   types need or which no schema can describe exactly); definitions outside `io.k8s.`
//!   are always generated.
//!
//! `$ref`s (`#/components/schemas/...`, `#/definitions/...`, also wrapped in a one-branch
//! `allOf` as v3 does to attach a description or default) resolve to those types; the rest
//! of the schema language (`x-kubernetes-int-or-string`, `x-kubernetes-preserve-unknown-fields`,
//! `x-kubernetes-embedded-resource`, formats, enums, `default`, descriptions) is read by the
//! [schema layer](super::schema) the CRD front-end uses too. `x-kubernetes-list-type`, `x-kubernetes-list-map-keys`
//! and `x-kubernetes-map-type` are documented on the fields.
//!
//! ```
//! use kubegen_codegen::__internal::frontend::{Source, openapi};
//! use kubegen_codegen::__internal::model::{Model, Scope};
//!
//! let doc = r##"{
//!   "openapi": "3.0.0",
//!   "paths": {
//!     "/apis/example.com/v1/namespaces/{namespace}/widgets/{name}": {
//!       "get": {"x-kubernetes-group-version-kind": {"group": "example.com", "version": "v1", "kind": "Widget"}}
//!     }
//!   },
//!   "components": {"schemas": {
//!     "com.example.v1.Widget": {
//!       "type": "object",
//!       "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Widget"}],
//!       "properties": {
//!         "metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]},
//!         "spec": {"allOf": [{"$ref": "#/components/schemas/com.example.v1.WidgetSpec"}], "default": {}}
//!       }
//!     },
//!     "com.example.v1.WidgetSpec": {"type": "object", "properties": {"size": {"type": "integer", "format": "int32"}}},
//!     "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {"type": "object", "properties": {"name": {"type": "string"}}}
//!   }}
//! }"##;
//! let mut model = Model::default();
//! openapi::load(&mut model, &[Source::new("widgets.json", doc)], &openapi::Options::default()).unwrap();
//! let v1 = &model.groups["example.com"].versions["v1"];
//! assert_eq!(v1.kinds["Widget"].names.plural, "widgets");
//! assert_eq!(v1.kinds["Widget"].scope, Scope::Namespaced);
//! assert!(v1.type_named("WidgetSpec").is_some());
//!
//! let err = openapi::load(&mut Model::default(), &[Source::new("bad.json", "{\"openapi\": 3}")], &Default::default())
//!     .unwrap_err();
//! assert!(err.to_string().starts_with("bad.json:1:"), "{err}");
//! ```

mod document;
mod external;
mod prune;
mod resources;

pub use external::load_external_fields;
pub(crate) use prune::prune_for_external_fields;

use std::collections::{BTreeMap, BTreeSet};

use serde_saphyr::Spanned;

use super::schema::{self, Dialect, GroupVersionKind, Refs, Schema, TypeBuilder};
use super::{Error, Result, Source, Versions};
use crate::model::{
    ClientVerbs, ExternalType, Kind, KindNames, Model, Origin, RootType, Scale, Subresources,
    TypeRef,
};
use crate::naming::{self, UniqueNames};
use document::{Parsed, Parser};
use resources::Resource;

/// Which groups to generate, and how to treat definitions of other packages.
///
/// ```
/// use kubegen_codegen::__internal::frontend::openapi::Options;
///
/// let options = Options::default().group("apps").version("v1");
/// assert_eq!(options.group.as_deref(), Some("apps"));
/// assert!(!options.generate_referenced);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Which versions to read (default: all the documents serve). OpenAPI documents do
    /// not say which version is the storage version, so [`Versions::Storage`] is an error.
    pub versions: Versions,
    /// Only this API group (`""` or `core` for the core group); every group when `None`.
    pub group: Option<String>,
    /// Only this version; every version when `None`.
    pub version: Option<String>,
    /// Generate the definitions of other packages that the selected groups refer to,
    /// instead of mapping them to k8s-openapi types.
    pub generate_referenced: bool,
}

impl Options {
    /// Selects the API group `group` (`core` or `""` for the core group).
    pub fn group(mut self, group: impl Into<String>) -> Self {
        self.group = Some(group.into());
        self
    }

    /// Selects the version `version`.
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = Some(version.into());
        self
    }

    /// Selects versions (see the field).
    pub fn versions(mut self, versions: Versions) -> Self {
        self.versions = versions;
        self
    }

    /// Generates referenced definitions of other packages too (see the field).
    pub fn generate_referenced(mut self, yes: bool) -> Self {
        self.generate_referenced = yes;
        self
    }

    fn selects(&self, group: &str, version: &str) -> bool {
        let group_ok = match self.group.as_deref() {
            None => true,
            Some("core") => group.is_empty(),
            Some(wanted) => wanted == group,
        };
        group_ok
            && self.version.as_deref().is_none_or(|v| v == version)
            && self.versions.selects(version, true, false)
    }

    fn describe(&self) -> String {
        format!(
            "{}/{}",
            self.group.as_deref().unwrap_or("*"),
            self.version.as_deref().unwrap_or("*")
        )
    }
}

/// One group/version of one document to generate.
struct Work<'d> {
    doc: &'d Parsed,
    group: String,
    version: String,
    kinds: Vec<&'d Resource>,
}

/// Reads every OpenAPI document in `sources` and adds the selected group/versions to
/// `model`, then validates the model.
///
/// Group/versions are added in (group, version) order whatever the order of the sources,
/// so names (and the generated bytes) do not depend on how inputs were listed.
///
/// JSON documents are read with serde_json first; if anything fails, the model is restored
/// and everything is read again with source locations, so errors name `file:line:column`.
pub fn load(model: &mut Model, sources: &[Source], options: &Options) -> Result<()> {
    // Nested schemas recurse: read them on a stack deep enough for any accepted nesting.
    crate::parallel::deep(|| read(model, sources, options))
}

fn read(model: &mut Model, sources: &[Source], options: &Options) -> Result<()> {
    if options.versions == Versions::Storage {
        return Err(Error::Selection {
            versions: Versions::Storage,
            input: "OpenAPI documents",
            reason: "they do not say which version is the storage version (select versions by \
name, or `served`)",
        });
    }
    let original = model.clone();
    match load_with(model, sources, options, Parser::Fast) {
        Ok(()) => Ok(()),
        Err(_) => {
            *model = original;
            load_with(model, sources, options, Parser::Located)
        }
    }
}

fn load_with(
    model: &mut Model,
    sources: &[Source],
    options: &Options,
    parser: Parser,
) -> Result<()> {
    let parsed: Vec<Parsed> = crate::parallel::map(sources, |s| document::parse(s, parser))
        .into_iter()
        .collect::<Result<_>>()?;
    let served: Vec<BTreeMap<GroupVersionKind, Resource>> = parsed
        .iter()
        .map(|doc| resources::resources(&doc.paths))
        .collect();

    let mut work: Vec<Work<'_>> = Vec::new();
    let mut available = BTreeSet::new();
    for (doc, served) in parsed.iter().zip(&served) {
        let mut by_gv: BTreeMap<(&str, &str), Vec<&Resource>> = BTreeMap::new();
        for (gvk, resource) in served {
            available.insert(if gvk.group.is_empty() {
                gvk.version.clone()
            } else {
                format!("{}/{}", gvk.group, gvk.version)
            });
            if options.selects(&gvk.group, &gvk.version) {
                by_gv
                    .entry((&gvk.group, &gvk.version))
                    .or_default()
                    .push(resource);
            }
        }
        work.extend(by_gv.into_iter().map(|((group, version), kinds)| Work {
            doc,
            group: group.to_owned(),
            version: version.to_owned(),
            kinds,
        }));
    }
    if work.is_empty() && (options.group.is_some() || options.version.is_some()) {
        return Err(Error::NotServed {
            wanted: options.describe(),
            available: available.into_iter().collect::<Vec<_>>().join(", "),
        });
    }
    work.sort_by(|a, b| {
        (&a.group, &a.version, &a.doc.file).cmp(&(&b.group, &b.version, &b.doc.file))
    });
    for w in &work {
        add_group_version(model, w, options)?;
    }
    model.box_recursive_fields();
    model.validate()?;
    Ok(())
}

/// The definition whose `x-kubernetes-group-version-kind` is `gvk` (preferring one that
/// names only that kind).
fn definition_of<'d>(
    definitions: &'d BTreeMap<String, Spanned<Schema>>,
    gvk: &GroupVersionKind,
) -> Option<(&'d String, &'d Spanned<Schema>)> {
    definitions
        .iter()
        .filter(|(_, s)| s.value.group_version_kinds.contains(gvk))
        .min_by_key(|(name, s)| (s.value.group_version_kinds.len(), *name))
}

/// The type a definition of another package maps to, if it has one.
fn existing_type(
    name: &str,
    schema: &Schema,
    definitions: &BTreeMap<String, Spanned<Schema>>,
    generate_referenced: bool,
) -> Option<TypeRef> {
    match name {
        "io.k8s.apimachinery.pkg.apis.meta.v1.Time" => return Some(TypeRef::DateTime),
        "io.k8s.apimachinery.pkg.api.resource.Quantity" => return Some(TypeRef::Quantity),
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString" => return Some(TypeRef::IntOrString),
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" => {
            return Some(TypeRef::External(ExternalType::object_meta()));
        }
        // Microsecond timestamps: a plain `date-time` (`Time`) would drop the fraction.
        "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime" => {
            return Some(TypeRef::External(ExternalType::new(
                "k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime",
                false,
            )));
        }
        _ => {}
    }
    if generate_referenced {
        return None;
    }
    let path = naming::k8s_openapi_path(name)?;
    Some(TypeRef::External(ExternalType::new(
        path,
        k8s_openapi_has_default(schema, definitions, 0),
    )))
}

/// Whether k8s-openapi's type for `schema` implements `Default`: it derives it for structs
/// generated from object schemas unless a required field (transitively) holds a `Time` or
/// `MicroTime`, which have none (`Condition`, `EventSeries`). Newtypes over other shapes
/// are not assumed to have one.
fn k8s_openapi_has_default(
    schema: &Schema,
    definitions: &BTreeMap<String, Spanned<Schema>>,
    depth: usize,
) -> bool {
    let Some(props) = schema.properties.as_ref().filter(|p| !p.is_empty()) else {
        return false;
    };
    if depth > 16 {
        return false;
    }
    schema.required.iter().all(|required| {
        let Some(prop) = props.get(required) else {
            return true;
        };
        let target = prop.value.reference.as_deref().or_else(|| {
            prop.value
                .all_of
                .iter()
                .find_map(|b| b.reference.as_deref())
        });
        let Some(target) = target.and_then(|t| t.rsplit('/').next()) else {
            return true;
        };
        match naming::definition_short_name(target) {
            "Time" | "MicroTime" => false,
            _ => definitions.get(target).is_none_or(|d| {
                d.value.properties.is_none()
                    || k8s_openapi_has_default(&d.value, definitions, depth + 1)
            }),
        }
    })
}

fn add_group_version(model: &mut Model, w: &Work<'_>, options: &Options) -> Result<()> {
    let doc = w.doc;
    let input = |location: &serde_saphyr::Location, message: String| Error::Input {
        at: schema::location(&doc.file, 0, location),
        message,
    };
    // Each kind with its definition.
    let mut kinds = Vec::with_capacity(w.kinds.len());
    for resource in &w.kinds {
        let Some((name, schema)) = definition_of(&doc.definitions, &resource.kind) else {
            return Err(input(
                &resource.location,
                format!(
                    "expected a schema with x-kubernetes-group-version-kind {{group: {:?}, \
version: {:?}, kind: {:?}}}, the kind path `{}` serves",
                    resource.kind.group, resource.kind.version, resource.kind.kind, resource.path
                ),
            ));
        };
        kinds.push((*resource, name.as_str(), schema));
    }
    kinds.sort_by(|a, b| a.0.kind.kind.cmp(&b.0.kind.kind));
    let packages: BTreeSet<&str> = kinds
        .iter()
        .map(|(_, name, _)| naming::definition_package(name))
        .collect();
    let list_kinds: BTreeSet<String> = kinds
        .iter()
        .map(|(r, _, _)| format!("{}List", r.kind.kind))
        .collect();
    let own: Vec<&String> = doc
        .definitions
        .keys()
        .filter(|name| {
            packages.contains(naming::definition_package(name))
                && !list_kinds.contains(naming::definition_short_name(name))
        })
        .collect();

    let target = model.version_mut(&w.group, &w.version);
    for (resource, _, _) in &kinds {
        if target.kinds.contains_key(&resource.kind.kind) {
            return Err(Error::DuplicateKind {
                at: Some(schema::location(&doc.file, 0, &resource.location)),
                api_version: naming::api_version(&w.group, &w.version),
                kind: resource.kind.kind.clone(),
            });
        }
    }
    let mut names = UniqueNames::camel();
    let mut modules = UniqueNames::snake();
    modules.reserve("mod");
    for ty in &target.types {
        names.reserve(&ty.name);
    }
    for module in target.modules() {
        modules.reserve(module);
    }
    let mut refs = Refs::new(doc.prefix, &doc.definitions);
    for name in &own {
        let short = naming::definition_short_name(name);
        refs.reserved
            .insert((*name).clone(), names.claim(naming::type_name(&[short])));
    }
    for (name, schema) in &doc.definitions {
        if packages.contains(naming::definition_package(name)) {
            continue;
        }
        if let Some(ty) = existing_type(
            name,
            &schema.value,
            &doc.definitions,
            options.generate_referenced,
        ) {
            refs.resolved.insert(name.clone(), ty);
        }
    }

    let mut builder = TypeBuilder {
        file: &doc.file,
        line_offset: 0,
        module: String::new(),
        names: &mut names,
        types: Vec::new(),
        dialect: Dialect::OpenApi,
        refs: Some(refs),
        fixed_name: None,
        name_parts: Default::default(),
    };
    for (resource, name, schema) in &kinds {
        let kind_name = &resource.kind.kind;
        let module = modules.claim(naming::kind_module(kind_name));
        builder.module.clone_from(&module);
        let root_type = builder.root_definition(kind_name, name, schema)?;
        target.kinds.insert(
            kind_name.clone(),
            Kind {
                name: kind_name.clone(),
                names: KindNames {
                    plural: resource.plural.clone(),
                    singular: kind_name.to_lowercase(),
                    short_names: Vec::new(),
                    categories: Vec::new(),
                    list_kind: format!("{kind_name}List"),
                },
                scope: resource.scope,
                // The document lists what the server serves; which version is stored is
                // not part of OpenAPI.
                served: true,
                storage: false,
                deprecated: None,
                client_verbs: ClientVerbs::default(),
                subresources: Subresources {
                    status: resource.status,
                    // Built-in scale subresources read `.spec.replicas` and
                    // `.status.replicas`; the selector is computed by the server.
                    scale: resource.scale.then(|| Scale {
                        spec_replicas_path: ".spec.replicas".to_owned(),
                        status_replicas_path: ".status.replicas".to_owned(),
                        label_selector_path: None,
                    }),
                },
                printer_columns: Vec::new(),
                selectable_fields: Vec::new(),
                validation: Default::default(),
                root: RootType::Generated(root_type),
                module,
                origin: origin(&doc.file, resource),
            },
        );
    }
    for name in own {
        let built = builder
            .refs
            .as_ref()
            .is_some_and(|r| r.resolved.contains_key(name.as_str()));
        if built {
            continue;
        }
        let schema = &doc.definitions[name.as_str()];
        builder.module = modules.claim(naming::kind_module(naming::definition_short_name(name)));
        let at = builder.at(&schema.referenced);
        builder.definition(name, at)?;
    }
    target.types.append(&mut builder.types);
    Ok(())
}

/// Where a resource's names are: the path that serves it, for all of them (group,
/// version, kind and plural all come from that path and its operations).
fn origin(file: &str, resource: &Resource) -> Origin {
    let at = Some(schema::location(file, 0, &resource.location));
    Origin {
        group: at.clone(),
        version: at.clone(),
        kind: at.clone(),
        plural: at,
        ..Origin::default()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
