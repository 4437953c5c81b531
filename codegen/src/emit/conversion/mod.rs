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
//! `round_trip_spoke`, `round_trip_hub`. Kinds come from the types kubegen generates
//! (CRD and OpenAPI inputs); hand-written (`--rust`) and built-in kinds get none.
//!
//! ```
//! use kubegen_codegen::emit::conversion::{generate_conversions, ConversionOptions};
//! use kubegen_codegen::frontend::{Source, crd};
//! use kubegen_codegen::model::Model;
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

mod items;
mod plan;
mod support;

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

/// A kind with two or more versions whose types kubegen generates.
struct Family<'a> {
    group: &'a Group,
    kind: &'a str,
    /// `(version, its kind)`, in version order.
    versions: Vec<(&'a Version, &'a Kind)>,
}

impl Family<'_> {
    fn qualified(&self) -> String {
        format!("{}.{}", self.kind, self.group.name)
    }

    fn at(&self) -> String {
        self.versions
            .iter()
            .find_map(|(_, k)| k.origin.of(None))
            .map(|l| format!("{l}: "))
            .unwrap_or_default()
    }

    fn names(&self) -> String {
        self.versions
            .iter()
            .map(|(v, _)| v.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn families(model: &Model) -> Vec<Family<'_>> {
    let mut out = Vec::new();
    for group in model.groups.values() {
        let mut by_kind: BTreeMap<&str, Vec<(&Version, &Kind)>> = BTreeMap::new();
        for version in group.versions.values() {
            if version.external_module.is_some() {
                continue;
            }
            for kind in version.kinds.values() {
                if matches!(kind.root, RootType::Generated(_)) {
                    by_kind.entry(&kind.name).or_default().push((version, kind));
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
    spoke: &'a Version,
    hub: &'a Version,
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
        for (version, _) in &family.versions {
            root_struct(family, version)?;
        }
        hubs.push(hub);
    }
    for (family, hub) in families.iter().zip(&hubs) {
        for (version, _) in &family.versions {
            if version.name != hub.name {
                jobs.push(Job {
                    family,
                    spoke: version,
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
        let spokes: Vec<_> = family
            .versions
            .iter()
            .filter(|(v, _)| v.name != hub.name)
            .map(|(v, _)| ident(&v.module))
            .collect();
        let doc = format!(
            " `{}` conversions: each version to and from the hub `{}`.",
            family.kind,
            naming::api_version(&family.group.name, &hub.name)
        );
        files.push(file(
            &format!(
                "{}/{}/mod.rs",
                family.group.module,
                naming::kind_module(family.kind)
            ),
            quote! {
                #![doc = #doc]
                #(pub mod #spokes;)*
            },
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
    let plan = plan::plan(job.spoke, spoke_root, job.hub, hub_root);
    let pair = items::Pair {
        group: family.group,
        kind: family.kind,
        spoke: job.spoke,
        hub: job.hub,
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
            job.spoke.module
        ),
        tokens,
    )?)
}

/// The hub of `family`: the named one, else the storage version.
fn hub_of<'a>(family: &Family<'a>, options: &ConversionOptions) -> Result<&'a Version, Error> {
    let named = options
        .hubs
        .get(&family.qualified())
        .or_else(|| options.hubs.get(family.kind));
    let found = match named {
        Some(name) => family.versions.iter().find(|(v, _)| &v.name == name),
        None => family.versions.iter().find(|(_, k)| k.storage),
    };
    match (found, named) {
        (Some((version, _)), _) => Ok(version),
        (None, Some(name)) => Err(Error::Unpaired {
            at: family.at(),
            kind: family.qualified(),
            reason: format!(
                "the hub {name} is not among the versions read ({}); name one of them",
                family.names()
            ),
        }),
        (None, None) => Err(Error::Unpaired {
            at: family.at(),
            kind: family.qualified(),
            reason: format!(
                "no version read ({}) is the storage version, which is the hub by default; \
                 read it too (--versions) or name a hub (--conversion-hub KIND=VERSION)",
                family.names()
            ),
        }),
    }
}

/// The root struct's name of `family` in `version`, which must be a struct with
/// `metadata` (where the annotation goes).
fn root_struct<'a>(family: &Family<'a>, version: &'a Version) -> Result<&'a str, Error> {
    let unpaired = |reason: String| Error::Unpaired {
        at: family.at(),
        kind: family.qualified(),
        reason,
    };
    let Some((_, kind)) = family.versions.iter().find(|(v, _)| v.name == version.name) else {
        return Err(unpaired(format!("no version {}", version.name)));
    };
    let name = kind.root.name();
    let Some(def) = version.type_named(name) else {
        return Err(unpaired(format!(
            "{} has no root type {name}",
            version.name
        )));
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
            "the root type {name} of {} is not an object with metadata",
            version.name
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
                    "the kind has one version read, or types kubegen does not generate \
                     (--rust, --kubernetes): nothing to convert"
                        .to_owned()
                } else {
                    "no kind of that name was read".to_owned()
                }));
            }
            [family] if !family.versions.iter().any(|(v, _)| v.name == *version) => {
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
