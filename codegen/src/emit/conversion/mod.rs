//! Conversions between the versions of every multi-version kind (Kubernetes'
//! conversion-gen, for Rust): each version converts to and from a hub, the storage version
//! unless another is named ([`ConversionOptions::hub`]).
//!
//! For a spoke version and the hub, the kinds' root structs are paired, then every field
//! with the same wire name on both sides, recursively through nested structs, lists,
//! maps, `Option`s and boxes:
//!
//! - where the types agree (the same scalar or k8s-openapi type, struct pairs, string
//!   enums with the same values, unions whose alternatives agree), the value is converted
//!   by generated code;
//! - where they do not (a retyped field, an enum with other values), a method of the
//!   pair's trait (`ConvertHttpRouteV1beta1`), which the user implements, computes it; a
//!   missing method is a compile error naming the type and field
//!   (`http_route_spec_hostnames_to_hub`);
//! - where each side of a struct pair has fields the other lacks (renamed, split or
//!   merged fields), each such field is computed by a user's method from the other side's
//!   struct;
//! - where a field is optional in one version and required in the other, a present value
//!   is converted, and for an absent one a user's method gives the required side's value
//!   (a marker in the annotation makes it absent again on the way back, unless the value
//!   was changed since);
//! - where only one side has fields of its own (added or removed fields), they are
//!   carried across a round trip in the `kubegen.io/conversion-data` annotation (JSON:
//!   the source's apiVersion and the values by JSON pointer), as Kubernetes' hand-written
//!   conversions do: spoke -> hub -> spoke and hub -> spoke -> hub give the object back.
//!
//! Layout of the tree: `mod.rs` (the annotation key, `Error`, `Context` and the generic
//! helpers the generated functions call), `<group>/mod.rs`, `<group>/<kind>/mod.rs`, and
//! `<group>/<kind>/<spoke version>.rs` per pair: the trait, `to_hub`, `from_hub`,
//! `round_trip_spoke`, `round_trip_hub`.
//!
//! Each kind's `mod.rs` also holds its entry point for a conversion webhook,
//! `convert(user: &C, object: serde_json::Value, desired_api_version: &str) ->
//! Result<serde_json::Value, Error>`: the object is read as the version its `apiVersion`
//! names, taken to the hub (`to_hub`) and out to the desired version (`from_hub`), and
//! written with that `apiVersion` and `kind`; an object already at the desired version
//! comes back unchanged, and a version the kind lacks is an error naming it. It is generic
//! over one user's type `C` bounded by every pair's trait
//! (`C: v1alpha1::ConvertFooV1alpha1 + v1beta1::ConvertFooV1beta1`), so one value answers
//! for the whole CRD as one webhook path serves it; `&()` does when no pair has a method.
//! With `kubegen-runtime`'s blanket `Converter` for functions,
//! `converter_fn(move |o, v| foo::convert(&Mine, o, v))` is a webhook's converter.
//!
//! Kinds come from the types kubegen generates (CRD and OpenAPI inputs) and from
//! hand-written `#[derive(Resource)]` structs (`--rust`: the same group and kind in two or
//! more version modules), whose types the generated code names by their paths (the root
//! at [`HandWritten::path`](crate::model::HandWritten::path), the types it uses where the
//! Rust front-end found them, read with
//! [`Options::conversions`](crate::frontend::rust::Options::conversions): each field with
//! the Rust type it is declared with). A type both versions name by one path (a module they
//! share) is moved as it is; a type the front-end keeps whole (it cannot read it) converts
//! only when both versions name the same one, else through a user's method. Such structs
//! need `Clone`, `PartialEq`, `Serialize` and `Deserialize`, as generated types have; their
//! hub is the version marked `#[resource(storage)]` unless another is named
//! ([`ConversionOptions::hub`], `--conversion-hub`). Built-in kinds (k8s-openapi's types)
//! get none.
//!
//! ```
//! use kubegen_codegen::__internal::emit::conversion::{generate_conversions, ConversionOptions};
//! use kubegen_codegen::__internal::frontend::{Source, crd};
//! use kubegen_codegen::__internal::model::Model;
//!
//! let two_versions = kubegen_codegen::SAMPLE_CRD.replace(
//!     "  versions:\n",
//!     "  versions:\n    - name: v1alpha0\n      served: true\n      storage: false\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            metadata:\n              type: object\n",
//! );
//! let mut model = Model::default();
//! crd::load(&mut model, &[Source::new("foo.yaml", two_versions)], &crd::Options::default()).unwrap();
//! let files = generate_conversions(&model, &ConversionOptions::default()).unwrap();
//! let paths: Vec<_> = files.iter().map(|f| f.path.as_str()).collect();
//! assert_eq!(paths, [
//!     "mod.rs",
//!     "samplecontroller_k8s_io/foo/mod.rs",
//!     "samplecontroller_k8s_io/foo/v1alpha0.rs",
//!     "samplecontroller_k8s_io/mod.rs",
//! ]);
//! assert!(files[2].contents.contains("pub fn to_hub<"));
//! ```

mod entry;
mod items;
mod plan;
mod support;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use quote::quote;

use super::common::{self, Paths, ident, path};
use super::generated::{GeneratedFile, file};
use crate::model::{Group, Kind, Model, RootType, TypeDefKind, TypeRef, Version};
use crate::naming;

/// The annotation that carries, across a round trip, the fields one version lacks.
pub const ANNOTATION: &str = support::ANNOTATION;

/// Why conversions could not be generated.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A kind's versions cannot be paired with a hub (the hub is not among the versions
    /// read, or a root type is not a struct with `metadata`).
    #[error("{at}failed to generate the conversions of {kind}: {reason}")]
    Unpaired {
        /// Where the kind was written (`crds/foo.yaml:12:9: `), or nothing.
        at: String,
        /// The kind (`HTTPRoute.gateway.networking.k8s.io`).
        kind: String,
        /// Why.
        reason: String,
    },
    /// A hub named in the options does not name a version of a multi-version kind.
    #[error("failed to generate conversions: hub {key}={version}: {reason}")]
    Hub {
        /// The kind as given (`HTTPRoute` or `HTTPRoute.gateway.networking.k8s.io`).
        key: String,
        /// The version given.
        version: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Emitting failed (an option is not a Rust path, or a generator bug).
    #[error(transparent)]
    Emit(#[from] common::Error),
}

impl Error {
    /// Whether the inputs or options (not the generator) are at fault.
    pub fn is_input(&self) -> bool {
        !matches!(self, Error::Emit(_))
    }
}

/// What the conversions are generated with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversionOptions {
    types_module: String,
    hubs: BTreeMap<String, String>,
    paths: common::Options,
}

impl Default for ConversionOptions {
    fn default() -> Self {
        Self {
            types_module: "crate::generated".to_owned(),
            hubs: BTreeMap::new(),
            paths: common::Options::default(),
        }
    }
}

impl ConversionOptions {
    /// The Rust module path the generated types are mounted at (default
    /// `crate::generated`).
    pub fn types_module(mut self, module: impl Into<String>) -> Self {
        self.types_module = module.into();
        self
    }

    /// Converts through `version` for the kind `kind` (`HTTPRoute`, or
    /// `HTTPRoute.gateway.networking.k8s.io` where two groups have the kind) instead of
    /// its storage version.
    pub fn hub(mut self, kind: impl Into<String>, version: impl Into<String>) -> Self {
        self.hubs.insert(kind.into(), version.into());
        self
    }

    /// The crate paths of the generated code (those of the types tree).
    pub fn crate_paths(mut self, paths: common::Options) -> Self {
        self.paths = paths;
        self
    }
}

/// One version of a multi-version kind, as the conversions see it.
struct Member<'a> {
    /// The model's version (its name and module).
    version: &'a Version,
    /// The kind in it.
    kind: &'a Kind,
    /// The types the planner reads: the version itself for a generated kind; for a
    /// hand-written one, its root and the types the root uses
    /// ([`HandWritten::types`](crate::model::HandWritten::types)).
    types: Cow<'a, Version>,
    /// Where each type lives, by name, for a hand-written kind (the root at
    /// [`HandWritten::path`](crate::model::HandWritten::path), the others in their
    /// [`TypeDef::module`](crate::model::TypeDef)); `None`: in the types tree, at
    /// `--types-module`.
    paths: Option<BTreeMap<String, String>>,
}

impl<'a> Member<'a> {
    fn new(version: &'a Version, kind: &'a Kind) -> Option<Self> {
        let (types, paths) = match &kind.root {
            RootType::Generated(_) => (Cow::Borrowed(version), None),
            RootType::HandWritten(hand) => {
                let mut view = Version::new(&version.name);
                view.module = version.module.clone();
                view.types.push(hand.def.clone());
                view.types.extend(hand.types.iter().cloned());
                let mut paths = BTreeMap::new();
                paths.insert(hand.def.name.clone(), hand.path.clone());
                for def in &hand.types {
                    paths.insert(def.name.clone(), format!("{}::{}", def.module, def.name));
                }
                (Cow::Owned(view), Some(paths))
            }
            RootType::External(_) => return None,
        };
        Some(Self {
            version,
            kind,
            types,
            paths,
        })
    }
}

/// A kind with two or more versions whose types kubegen generates or reads from
/// `#[derive(Resource)]` sources.
struct Family<'a> {
    group: &'a Group,
    kind: &'a str,
    /// Its versions, in version order.
    versions: Vec<Member<'a>>,
}

impl Family<'_> {
    fn qualified(&self) -> String {
        format!("{}.{}", self.kind, self.group.name)
    }

    fn at(&self) -> String {
        self.versions
            .iter()
            .find_map(|m| m.kind.origin.of(None))
            .map(|l| format!("{l}: "))
            .unwrap_or_default()
    }

    fn names(&self) -> String {
        self.versions
            .iter()
            .map(|m| m.version.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn families(model: &Model) -> Vec<Family<'_>> {
    let mut out = Vec::new();
    for group in model.groups.values() {
        let mut by_kind: BTreeMap<&str, Vec<Member<'_>>> = BTreeMap::new();
        for version in group.versions.values() {
            if version.external_module.is_some() {
                continue;
            }
            for kind in version.kinds.values() {
                if let Some(member) = Member::new(version, kind) {
                    by_kind.entry(&kind.name).or_default().push(member);
                }
            }
        }
        for (kind, versions) in by_kind {
            if versions.len() > 1 {
                out.push(Family {
                    group,
                    kind,
                    versions,
                });
            }
        }
    }
    out
}

/// One version pair to emit.
struct Job<'a> {
    family: &'a Family<'a>,
    spoke: &'a Member<'a>,
    hub: &'a Member<'a>,
}

/// Generates the conversions of every kind with several versions, sorted by path; no
/// files when there is none.
pub fn generate_conversions(
    model: &Model,
    options: &ConversionOptions,
) -> Result<Vec<GeneratedFile>, Error> {
    let paths = Paths::new(&options.paths)?;
    path(&options.types_module)?;
    let families = families(model);
    check_hubs(model, &families, options)?;
    let mut jobs = Vec::new();
    let mut hubs = Vec::new();
    for family in &families {
        let hub = hub_of(family, options)?;
        for member in &family.versions {
            root_struct(family, member)?;
        }
        hubs.push(hub);
    }
    for (family, hub) in families.iter().zip(&hubs) {
        for member in &family.versions {
            if member.version.name != hub.version.name {
                jobs.push(Job {
                    family,
                    spoke: member,
                    hub,
                });
            }
        }
    }
    if jobs.is_empty() {
        return Ok(Vec::new());
    }
    // Token streams are not `Send`: each job parses the paths itself.
    let results = crate::parallel::map(&jobs, |job| pair_file(job, options));
    let mut files = results.into_iter().collect::<Result<Vec<_>, _>>()?;

    let mut groups: BTreeMap<&str, (&Group, BTreeSet<String>)> = BTreeMap::new();
    for family in &families {
        groups
            .entry(&family.group.name)
            .or_insert_with(|| (family.group, BTreeSet::new()))
            .1
            .insert(naming::kind_module(family.kind));
    }
    let root_doc = " Conversions between the versions of every kind with several, through \
                    a hub version, generated by kubegen.";
    let children: Vec<_> = groups.values().map(|(g, _)| ident(&g.module)).collect();
    let support = support::items(&paths);
    files.push(file(
        "mod.rs",
        quote! {
            #![doc = #root_doc]
            #support
            #(pub mod #children;)*
        },
    )?);
    for (group, kinds) in groups.values() {
        let doc = format!(" Conversions of {}.", naming::describe_group(&group.name));
        let kinds: Vec<_> = kinds.iter().map(|k| ident(k)).collect();
        files.push(file(
            &format!("{}/mod.rs", group.module),
            quote! {
                #![doc = #doc]
                #(pub mod #kinds;)*
            },
        )?);
    }
    for (family, hub) in families.iter().zip(&hubs) {
        let spokes: Vec<entry::Spoke<'_>> = family
            .versions
            .iter()
            .filter(|m| m.version.name != hub.version.name)
            .map(|m| -> Result<_, Error> {
                Ok(entry::Spoke {
                    version: m.version,
                    root: root_struct(family, m)?,
                })
            })
            .collect::<Result<_, _>>()?;
        let kind = entry::KindModule {
            group: family.group,
            kind: family.kind,
            hub: hub.version,
            spokes: &spokes,
            paths: &paths,
        };
        files.push(file(
            &format!(
                "{}/{}/mod.rs",
                family.group.module,
                naming::kind_module(family.kind)
            ),
            entry::items(&kind),
        )?);
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

fn pair_file(job: &Job<'_>, options: &ConversionOptions) -> Result<GeneratedFile, Error> {
    let paths = &Paths::new(&options.paths)?;
    let types = &path(&options.types_module)?;
    let family = job.family;
    let spoke_root = root_struct(family, job.spoke)?;
    let hub_root = root_struct(family, job.hub)?;
    // Two hand-written versions naming one type (a module both share) move it as it is.
    let same = |spoke: &str, hub: &str| match (&job.spoke.paths, &job.hub.paths) {
        (Some(s), Some(h)) => s.get(spoke).is_some_and(|p| h.get(hub) == Some(p)),
        _ => false,
    };
    let plan = plan::plan(
        (&job.spoke.types, spoke_root),
        (&job.hub.types, hub_root),
        &same,
    );
    let pair = items::Pair {
        group: family.group,
        kind: family.kind,
        spoke: job.spoke.version,
        hub: job.hub.version,
        spoke_paths: job.spoke.paths.as_ref(),
        hub_paths: job.hub.paths.as_ref(),
        plan: &plan,
        paths,
        types,
    };
    let tokens = items::items(&pair)?;
    Ok(file(
        &format!(
            "{}/{}/{}.rs",
            family.group.module,
            naming::kind_module(family.kind),
            job.spoke.version.module
        ),
        tokens,
    )?)
}

/// The hub of `family`: the named one, else the storage version (for hand-written kinds,
/// the struct marked `#[resource(storage)]`).
fn hub_of<'a>(
    family: &'a Family<'a>,
    options: &ConversionOptions,
) -> Result<&'a Member<'a>, Error> {
    let named = options
        .hubs
        .get(&family.qualified())
        .or_else(|| options.hubs.get(family.kind));
    let unpaired = |reason: String| Error::Unpaired {
        at: family.at(),
        kind: family.qualified(),
        reason,
    };
    let found = match named {
        Some(name) => family.versions.iter().find(|m| &m.version.name == name),
        None => family.versions.iter().find(|m| m.kind.storage),
    };
    match (found, named) {
        (Some(member), _) => Ok(member),
        (None, Some(name)) => Err(unpaired(format!(
            "the hub {name} is not among the versions read ({}); name one of them",
            family.names()
        ))),
        (None, None) => Err(unpaired(format!(
            "no version read ({}) is the storage version, which is the hub by default; \
             read it too (--versions) or name a hub (--conversion-hub KIND=VERSION)",
            family.names()
        ))),
    }
}

/// The root struct's name of `member`, which must be a struct with `metadata` (where the
/// annotation goes).
fn root_struct<'a>(family: &Family<'_>, member: &'a Member<'_>) -> Result<&'a str, Error> {
    let unpaired = |reason: String| Error::Unpaired {
        at: family.at(),
        kind: family.qualified(),
        reason,
    };
    let version = &member.version.name;
    let name = member.kind.root.name();
    let Some(def) = member.types.type_named(name) else {
        return Err(unpaired(format!("{version} has no root type {name}")));
    };
    match &def.kind {
        TypeDefKind::Struct(s)
            if s.fields.iter().any(|f| {
                f.wire_name == "metadata"
                    && matches!(&f.ty, TypeRef::External(e) if e.name() == "ObjectMeta")
            }) =>
        {
            Ok(&def.name)
        }
        _ => Err(unpaired(format!(
            "the root type {name} of {version} is not an object with metadata"
        ))),
    }
}

/// Every named hub must name a version of a multi-version kind.
fn check_hubs(
    model: &Model,
    families: &[Family<'_>],
    options: &ConversionOptions,
) -> Result<(), Error> {
    for (key, version) in &options.hubs {
        let matches: Vec<&Family<'_>> = families
            .iter()
            .filter(|f| f.kind == key || f.qualified() == *key)
            .collect();
        let hub_error = |reason: String| Error::Hub {
            key: key.clone(),
            version: version.clone(),
            reason,
        };
        match matches.as_slice() {
            [] => {
                let known = model
                    .kinds()
                    .any(|(g, _, k)| k.name == *key || format!("{}.{}", k.name, g.name) == *key);
                return Err(hub_error(if known {
                    "the kind has one version read, or k8s-openapi's types (--kubernetes): \
                     nothing to convert"
                        .to_owned()
                } else {
                    "no kind of that name was read".to_owned()
                }));
            }
            [family] if !family.versions.iter().any(|m| m.version.name == *version) => {
                return Err(hub_error(format!(
                    "{} has no version {version} (read: {})",
                    family.qualified(),
                    family.names()
                )));
            }
            several if several.len() > 1 && !key.contains('.') => {
                let names: Vec<String> = several.iter().map(|f| f.qualified()).collect();
                return Err(hub_error(format!(
                    "several groups have the kind ({}): qualify it",
                    names.join(", ")
                )));
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // Tests: a panic is the failure report.
mod tests;
