//! Generates `kubegen-codegen`'s table of well-known schemas (`codegen/src/wellknown/generated`):
//! for each Rust type a `#[derive(Resource)]` kind may use without `kubegen crd` being able to
//! read its source (the numbers beside `i32` and `i64`, and the k8s-openapi types operators
//! embed), the schema `crd()` writes for a field of that type and the type's `Default` value
//! as `#[serde(default)]` makes schemars write it.
//!
//! The schemas are computed by [`kubegen::crd::field_schema`], the very code path of `crd()`
//! (schemars' `JsonSchema` impls, k8s-openapi's among them, then `make_structural`), so the
//! table cannot disagree with `crd()` unless it is stale, which `--verify` and this crate's
//! test catch. A struct schema nested in another entry's schema is written once: the nested
//! node is `{"$ref": "<path of the entry>"}` plus the keys that differ (its description);
//! `kubegen_codegen::__internal::wellknown::Table` expands them, and [`generate`] checks that every
//! expanded entry equals the computed one before it writes anything.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kubegen_codegen::__internal::emit::{GeneratedFile, HEADER};
use kubegen_codegen::__internal::wellknown::{self, REF, Table};
use quote::quote;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

/// Why the table could not be generated.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `crd()` cannot build a schema for the type.
    #[error("failed to build the schema of {path}: {source}")]
    Schema {
        /// The type's path.
        path: String,
        /// Why.
        source: kubegen::crd::Error,
    },
    /// The type's `Default` value does not serialize.
    #[error("failed to serialize the default value of {path}: {source}")]
    Default {
        /// The type's path.
        path: String,
        /// Why.
        source: serde_json::Error,
    },
    /// The generated table does not read back as what was computed (a bug of the
    /// compression or of the reader).
    #[error("the generated table does not read back: {0}")]
    ReadBack(String),
}

/// One type of the table, computed.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The path `kubegen crd` resolves a field type to (`u32`,
    /// `k8s_openapi::api::core::v1::Toleration`).
    pub path: String,
    /// The schema `crd()` writes for a field of the type.
    pub schema: Value,
    /// The type's `Default` value serialized, when it has one.
    pub default: Option<Value>,
}

fn with_default<T: JsonSchema + Default + Serialize>(path: &str) -> Result<Entry, Error> {
    let mut entry = without_default::<T>(path)?;
    let default = serde_json::to_value(T::default()).map_err(|source| Error::Default {
        path: entry.path.clone(),
        source,
    })?;
    entry.default = Some(default);
    Ok(entry)
}

fn without_default<T: JsonSchema>(path: &str) -> Result<Entry, Error> {
    // `stringify!` spaces the path's `::`.
    let path: String = path.split_whitespace().collect();
    let schema = kubegen::crd::field_schema::<T>().map_err(|source| Error::Schema {
        path: path.clone(),
        source,
    })?;
    Ok(Entry {
        path,
        schema,
        default: None,
    })
}

/// The entries of types with `Default`, then of types without, each named by the path
/// written (aliases of this file's imports are expanded by [`canonical`]).
macro_rules! entries {
    (default: [$($d:ty),* $(,)?], no_default: [$($n:ty),* $(,)?] $(,)?) => {
        vec![
            $(with_default::<$d>(&canonical(stringify!($d)))?,)*
            $(without_default::<$n>(&canonical(stringify!($n)))?,)*
        ]
    };
}

/// The path from a crate root of a type written with this file's module aliases.
fn canonical(written: &str) -> String {
    let written: String = written.split_whitespace().collect();
    let aliases = [
        ("core::", "k8s_openapi::api::core::v1::"),
        ("meta::", "k8s_openapi::apimachinery::pkg::apis::meta::v1::"),
        (
            "Quantity",
            "k8s_openapi::apimachinery::pkg::api::resource::Quantity",
        ),
        (
            "IntOrString",
            "k8s_openapi::apimachinery::pkg::util::intstr::IntOrString",
        ),
    ];
    for (alias, path) in aliases {
        if let Some(rest) = written.strip_prefix(alias) {
            return format!("{path}{rest}");
        }
    }
    written
}

/// Every entry of the table, computed as `crd()` computes it, sorted by path.
pub fn entries() -> Result<Vec<Entry>, Error> {
    let mut entries = entries! {
        default: [
            // Numbers other than i32 and i64 (which kubegen reads natively). Kubernetes' API
            // conventions advise against unsigned and floating-point fields; `kubegen crd`
            // warns about them (`kubegen_codegen::__internal::wellknown::advice`).
            i8, i16, isize, u8, u16, u32, u64, usize, f32, f64,
            // apimachinery.
            Quantity,
            IntOrString,
            meta::LabelSelector,
            meta::LabelSelectorRequirement,
            meta::ObjectMeta,
            meta::OwnerReference,
            // core/v1: references and selectors.
            core::ObjectReference,
            core::LocalObjectReference,
            core::TypedLocalObjectReference,
            core::TypedObjectReference,
            core::SecretReference,
            core::SecretKeySelector,
            core::ConfigMapKeySelector,
            core::ObjectFieldSelector,
            core::ResourceFieldSelector,
            // core/v1: what a pod template is made of.
            core::PodTemplateSpec,
            core::PodSpec,
            core::Container,
            core::ContainerPort,
            core::EnvVar,
            core::EnvVarSource,
            core::EnvFromSource,
            core::ConfigMapEnvSource,
            core::SecretEnvSource,
            core::ResourceRequirements,
            core::ResourceClaim,
            core::VolumeResourceRequirements,
            core::Volume,
            core::VolumeMount,
            core::KeyToPath,
            core::Probe,
            core::Lifecycle,
            core::LifecycleHandler,
            core::ExecAction,
            core::HTTPGetAction,
            core::TCPSocketAction,
            core::GRPCAction,
            core::SecurityContext,
            core::PodSecurityContext,
            core::Capabilities,
            core::SeccompProfile,
            core::SELinuxOptions,
            core::Toleration,
            core::Affinity,
            core::NodeAffinity,
            core::NodeSelector,
            core::NodeSelectorTerm,
            core::NodeSelectorRequirement,
            core::PreferredSchedulingTerm,
            core::PodAffinity,
            core::PodAntiAffinity,
            core::PodAffinityTerm,
            core::WeightedPodAffinityTerm,
            core::TopologySpreadConstraint,
            core::HostAlias,
            // core/v1: storage and services.
            core::PersistentVolumeClaimSpec,
            core::PersistentVolumeClaimTemplate,
            core::ServicePort,
        ],
        no_default: [
            meta::Condition,
            meta::Time,
            meta::MicroTime,
        ],
    };
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(entries)
}

/// The table's files (`mod.rs` and `schemas.json`), checked to read back, through
/// `kubegen-codegen`'s reader, as exactly `entries`.
pub fn generate(entries: &[Entry]) -> Result<Vec<GeneratedFile>, Error> {
    let json = table_json(entries);
    check(&json, entries)?;
    let mut text =
        serde_json::to_string_pretty(&json).map_err(|e| Error::ReadBack(e.to_string()))?;
    text.push('\n');
    let tokens = quote! {
        /// The table, as JSON: each type's path, with its `schema` and, when it has a
        /// `Default`, its `default`.
        pub(super) const SCHEMAS: &str = include_str!("schemas.json");
    };
    let file: syn::File = syn::parse2(tokens).map_err(|e| Error::ReadBack(e.to_string()))?;
    let doc = "//! The schemas `crd()` writes for the numbers and k8s-openapi types in \
`schemas.json`, computed by\n//! `kubegen::crd::field_schema` and written by \
`kubegen-wellknown-schemas` (run by `hack/update-codegen.sh`).\n\n";
    Ok(vec![
        GeneratedFile {
            path: "mod.rs".to_owned(),
            contents: format!("{HEADER}{doc}{}", prettyplease::unparse(&file)),
        },
        GeneratedFile {
            path: "schemas.json".to_owned(),
            contents: text,
        },
    ])
}

/// Checks that the table `text` (the committed `schemas.json`) holds exactly `entries`.
pub fn check_text(text: &str, entries: &[Entry]) -> Result<(), Error> {
    let json: Value = serde_json::from_str(text).map_err(|e| Error::ReadBack(e.to_string()))?;
    check(&json, entries)
}

fn check(json: &Value, entries: &[Entry]) -> Result<(), Error> {
    let table = Table::from_json(json).map_err(|e| Error::ReadBack(e.to_string()))?;
    let paths: Vec<&str> = table.paths().collect();
    let expected: Vec<&str> = entries.iter().map(|e| e.path.as_str()).collect();
    if paths != expected {
        return Err(Error::ReadBack(format!(
            "the table has the types {paths:?}, not {expected:?}"
        )));
    }
    for entry in entries {
        let schema = table.schema(&entry.path);
        if schema != Some(&entry.schema) {
            return Err(Error::ReadBack(format!(
                "the schema of {} reads back as {}, not {}",
                entry.path,
                schema.cloned().unwrap_or_default(),
                entry.schema
            )));
        }
        if table.default(&entry.path) != entry.default.as_ref() {
            return Err(Error::ReadBack(format!(
                "the default of {} reads back differently",
                entry.path
            )));
        }
    }
    Ok(())
}

/// The table as JSON: a schema nested in an entry's schema that equals another k8s-openapi
/// entry's (up to its description) becomes a reference to it.
fn table_json(entries: &[Entry]) -> Value {
    // The described entries (k8s-openapi's types, not numbers) by their schema without
    // description.
    let mut targets: Targets<'_> = BTreeMap::new();
    for entry in entries {
        if let Some(description) = entry.schema.get("description") {
            targets
                .entry(undescribed(&entry.schema))
                .or_default()
                .push((entry.path.as_str(), description));
        }
    }
    let mut table = Map::new();
    for entry in entries {
        let mut schema = entry.schema.clone();
        wellknown::visit_children(&mut schema, &mut |child| refer(child, &targets));
        let mut row = Map::new();
        if let Some(default) = &entry.default {
            row.insert("default".into(), default.clone());
        }
        row.insert("schema".into(), schema);
        table.insert(entry.path.clone(), Value::Object(row));
    }
    Value::Object(table)
}

/// Entries (path and description) by their schema without description.
type Targets<'e> = BTreeMap<String, Vec<(&'e str, &'e Value)>>;

/// Replaces `node` by a reference to the entry it equals, else looks inside it.
fn refer(node: &mut Value, targets: &Targets<'_>) {
    if let Some(candidates) = targets.get(&undescribed(node)) {
        // The entry with the node's own description, else the one entry of that shape when
        // the node has a description of its own to put beside the reference (which can
        // replace the entry's description, not remove it). A shape several entries share
        // (`Time`, `MicroTime`) stays inline: a reference would name the wrong type.
        let own = node.get("description");
        let same = candidates.iter().find(|(_, d)| Some(*d) == own);
        let only = match candidates.as_slice() {
            [one] if own.is_some() => Some(one),
            _ => None,
        };
        let chosen = same.or(only);
        if let Some((path, description)) = chosen {
            let mut reference = Map::new();
            reference.insert(REF.into(), Value::String((*path).to_owned()));
            if let Some(own) = own.filter(|own| *own != *description) {
                reference.insert("description".into(), own.clone());
            }
            *node = Value::Object(reference);
            return;
        }
    }
    wellknown::visit_children(node, &mut |child| refer(child, targets));
}

/// A schema without its top-level description, as canonical text.
fn undescribed(schema: &Value) -> String {
    let mut schema = schema.clone();
    if let Value::Object(map) = &mut schema {
        map.remove("description");
    }
    schema.to_string()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// The committed table is what `crd()` computes for every entry, byte for byte.
    #[test]
    fn committed_table_is_fresh() {
        let entries = entries().unwrap();
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../src/wellknown/generated");
        let committed = std::fs::read_to_string(dir.join("schemas.json")).unwrap();
        // Entry by entry first, for a readable failure.
        check_text(&committed, &entries).unwrap();
        let diff = kubegen_codegen::__internal::output::verify(&dir, &generate(&entries).unwrap())
            .unwrap();
        assert!(
            diff.is_empty(),
            "the committed table is stale; run hack/update-codegen.sh:\n{diff}"
        );
    }

    #[test]
    fn numbers_are_what_schemars_writes_made_structural() {
        let entries = entries().unwrap();
        let schema = |path: &str| &entries.iter().find(|e| e.path == path).expect(path).schema;
        assert_eq!(
            schema("u32"),
            &serde_json::json!({ "type": "integer", "minimum": 0 })
        );
        assert_eq!(
            schema("f64"),
            &serde_json::json!({ "type": "number", "format": "double" })
        );
    }

    #[test]
    fn nested_structs_become_references() {
        let entries = entries().unwrap();
        let json = table_json(&entries);
        let template = &json["k8s_openapi::api::core::v1::PodTemplateSpec"]["schema"];
        assert_eq!(
            template["properties"]["spec"][REF],
            "k8s_openapi::api::core::v1::PodSpec"
        );
    }
}
