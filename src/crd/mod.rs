//! CustomResourceDefinitions for `#[derive(Resource)]` types.
//!
//! The derive emits `Foo::crd()`, which calls these helpers: [`RootSchema`] builds the
//! OpenAPI v3 schema of the root object from each field's [`JsonSchema`] (schemars 1 with
//! its OpenAPI 3 settings, subschemas inlined) and makes it structural with
//! [`make_structural`]; [`Definition`] wraps it in the `CustomResourceDefinition`;
//! [`merge`] makes the `crd()`s of a kind's versions one definition.
//! They are public so hand-written types can do the same.
//!
//! This module is the run-time reader only (schemars' output in, k8s-openapi's types
//! out): the root object's shape, the structural rules, the envelope and the merge are
//! the CRD-schema core's (`kubegen-crd-schema`), which `kubegen crd` builds its manifests
//! with too, so the two agree by construction.
//!
//! ```
//! use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
//! use kubegen::crd::{Definition, RootSchema, Scope};
//!
//! #[derive(schemars::JsonSchema)]
//! struct FooSpec { replicas: i32 }
//! struct Foo { metadata: ObjectMeta, spec: FooSpec }
//!
//! let schema = RootSchema::<Foo>::new(Some("A Foo."))
//!     .required("spec", |foo: &Foo| &foo.spec)
//!     .build()?;
//! let crd = Definition {
//!     group: "example.com", version: "v1", kind: "Foo", plural: "foos", singular: "foo",
//!     list_kind: "FooList", short_names: &[], categories: &[], scope: Scope::Namespaced,
//!     status: false, scale: None, printer_columns: &[], selectable_fields: &[],
//! }
//! .build(schema)?;
//! assert_eq!(crd.metadata.name.as_deref(), Some("foos.example.com"));
//! # Ok::<(), kubegen::crd::Error>(())
//! ```

use std::marker::PhantomData;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaProps;
use kubegen_crd_schema::{envelope, shapes};
use schemars::JsonSchema;
use schemars::generate::{GenTransform, SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value};

pub use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

/// Why a CRD could not be built.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A field's schema cannot be expressed as a structural schema.
    #[error("failed to make the schema structural at {path}: {reason}")]
    NotStructural {
        /// Where in the object (`spec.template.next`).
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The schema or the definition does not fit the apiextensions/v1 types.
    #[error("failed to build the CustomResourceDefinition of {name}: {source}")]
    Build {
        /// `plural.group`.
        name: String,
        /// The conversion error.
        source: serde_json::Error,
    },
    /// The CRDs given to [`merge`] are not versions of one kind.
    #[error("failed to merge the versions of {name}: {reason}")]
    Merge {
        /// `plural.group` of the first CRD.
        name: String,
        /// What disagrees.
        reason: String,
    },
}

impl From<kubegen_crd_schema::Error> for Error {
    fn from(error: kubegen_crd_schema::Error) -> Self {
        match error {
            kubegen_crd_schema::Error::NotStructural { path, reason } => {
                Error::NotStructural { path, reason }
            }
            kubegen_crd_schema::Error::Merge { name, reason } => Error::Merge { name, reason },
        }
    }
}

/// Rewrites `schema` in place into a structural schema. `path` names the root in errors.
/// The rules are the CRD-schema core's ([`kubegen_crd_schema::structural`]), which
/// `kubegen crd` follows too.
///
/// ```
/// use serde_json::json;
///
/// let mut schema = json!({
///     "type": "object",
///     "properties": {
///         "port": { "anyOf": [{ "type": "integer" }, { "type": "string" }] },
///         "extra": true,
///         "note": { "anyOf": [{ "type": "string" }, { "const": null, "nullable": true }] }
///     }
/// });
/// kubegen::crd::make_structural(&mut schema, "spec")?;
/// assert_eq!(schema["properties"]["port"], json!({ "x-kubernetes-int-or-string": true }));
/// assert_eq!(schema["properties"]["extra"], json!({ "x-kubernetes-preserve-unknown-fields": true }));
/// assert_eq!(schema["properties"]["note"], json!({ "type": "string", "nullable": true }));
/// # Ok::<(), kubegen::crd::Error>(())
/// ```
pub fn make_structural(schema: &mut Value, path: &str) -> Result<(), Error> {
    Ok(kubegen_crd_schema::make_structural(schema, path)?)
}

/// The one CustomResourceDefinition of a kind with several versions, from the `crd()` of
/// each (`[v1::Icecream::crd()?, v1alpha1::Icecream::crd()?]`): their versions in the order
/// given (list them newest first, as `kubegen crd` writes them), `storage_version` the
/// only one stored. The CRDs must agree on everything but their versions: group, names
/// and scope.
///
/// ```
/// use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
/// use kubegen::crd::{Definition, RootSchema, Scope, merge};
///
/// struct Foo { metadata: ObjectMeta }
/// let foo = |version| Definition {
///     group: "example.com", version, kind: "Foo", plural: "foos", singular: "foo",
///     list_kind: "FooList", short_names: &[], categories: &[], scope: Scope::Namespaced,
///     status: false, scale: None, printer_columns: &[], selectable_fields: &[],
/// }
/// .build(RootSchema::<Foo>::new(None).build()?);
/// let crd = merge([foo("v1")?, foo("v1alpha1")?], "v1")?;
/// let versions: Vec<_> = crd.spec.versions.iter().map(|v| (v.name.as_str(), v.storage)).collect();
/// assert_eq!(versions, [("v1", true), ("v1alpha1", false)]);
/// # Ok::<(), kubegen::crd::Error>(())
/// ```
pub fn merge(
    crds: impl IntoIterator<Item = CustomResourceDefinition>,
    storage_version: &str,
) -> Result<CustomResourceDefinition, Error> {
    let crds: Vec<Value> = crds
        .into_iter()
        .map(|crd| {
            let name = crd.metadata.name.clone().unwrap_or_default();
            serde_json::to_value(crd).map_err(|source| Error::Build { name, source })
        })
        .collect::<Result<_, _>>()?;
    let mut merged = kubegen_crd_schema::merge(crds)?;
    kubegen_crd_schema::set_storage(&mut merged, storage_version)?;
    typed(merged)
}

/// A CRD built as JSON, as k8s-openapi's type.
fn typed(crd: Value) -> Result<CustomResourceDefinition, Error> {
    let name = crd["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    serde_json::from_value(crd).map_err(|source| Error::Build { name, source })
}

/// Whether objects live in namespaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Namespaced objects.
    Namespaced,
    /// Cluster-wide objects.
    Cluster,
}

/// The scale subresource's JSON paths.
#[derive(Clone, Copy, Debug)]
pub struct ScalePaths {
    /// Desired replicas (`.spec.replicas`).
    pub spec_replicas: &'static str,
    /// Observed replicas (`.status.replicas`).
    pub status_replicas: &'static str,
    /// The label selector (`.status.selector`), if any.
    pub label_selector: Option<&'static str>,
}

/// An additional printer column.
#[derive(Clone, Copy, Debug)]
pub struct PrinterColumn {
    /// Column header.
    pub name: &'static str,
    /// `integer`, `number`, `string`, `boolean` or `date`.
    pub type_: &'static str,
    /// JSON path of the value.
    pub json_path: &'static str,
    /// Description.
    pub description: Option<&'static str>,
    /// Priority (0 shows in the standard view).
    pub priority: i32,
}

/// A CEL rule on the whole object (`x-kubernetes-validations` of the root schema), from
/// `#[resource(validation(rule = "...", ...))]`: the CRD-schema core's rule
/// ([`kubegen_crd_schema::shapes::Rule`]), which `kubegen crd` writes too.
///
/// ```
/// let rule = kubegen::crd::ValidationRule {
///     rule: "self.spec.min <= self.spec.max",
///     message: Some("min is at most max"),
///     ..Default::default()
/// };
/// assert_eq!(rule.to_value()["message"], "min is at most max");
/// ```
pub type ValidationRule = shapes::Rule<'static>;

/// Everything a CustomResourceDefinition says besides the schema (one served, stored
/// version).
#[derive(Clone, Copy, Debug)]
pub struct Definition {
    /// API group.
    pub group: &'static str,
    /// API version.
    pub version: &'static str,
    /// Kind.
    pub kind: &'static str,
    /// Plural resource name.
    pub plural: &'static str,
    /// Singular resource name.
    pub singular: &'static str,
    /// List kind.
    pub list_kind: &'static str,
    /// Short names.
    pub short_names: &'static [&'static str],
    /// Categories.
    pub categories: &'static [&'static str],
    /// Scope.
    pub scope: Scope,
    /// Whether the status subresource is served.
    pub status: bool,
    /// The scale subresource, if served.
    pub scale: Option<ScalePaths>,
    /// Printer columns.
    pub printer_columns: &'static [PrinterColumn],
    /// Selectable fields (JSON paths).
    pub selectable_fields: &'static [&'static str],
}

impl Definition {
    /// `plural.group`, the CRD's name.
    pub fn name(&self) -> String {
        format!("{}.{}", self.plural, self.group)
    }

    /// The CustomResourceDefinition with `schema` as the version's schema.
    pub fn build(&self, schema: JSONSchemaProps) -> Result<CustomResourceDefinition, Error> {
        let schema = serde_json::to_value(schema).map_err(|source| Error::Build {
            name: self.name(),
            source,
        })?;
        let owned = |values: &[&str]| values.iter().map(|v| (*v).to_owned()).collect();
        let version = envelope::Version {
            status: self.status,
            scale: self.scale.map(|scale| envelope::Scale {
                spec_replicas: scale.spec_replicas.to_owned(),
                status_replicas: scale.status_replicas.to_owned(),
                label_selector: scale.label_selector.map(str::to_owned),
            }),
            printer_columns: self
                .printer_columns
                .iter()
                .map(|c| envelope::PrinterColumn {
                    name: c.name.to_owned(),
                    type_: c.type_.to_owned(),
                    json_path: c.json_path.to_owned(),
                    description: c.description.map(str::to_owned),
                    priority: c.priority,
                })
                .collect(),
            selectable_fields: owned(self.selectable_fields),
            ..envelope::Version::new(self.version, schema)
        };
        let definition = envelope::Definition {
            group: self.group.to_owned(),
            names: envelope::Names {
                kind: self.kind.to_owned(),
                list_kind: self.list_kind.to_owned(),
                plural: self.plural.to_owned(),
                singular: self.singular.to_owned(),
                short_names: owned(self.short_names),
                categories: owned(self.categories),
            },
            scope: match self.scope {
                Scope::Namespaced => envelope::Scope::Namespaced,
                Scope::Cluster => envelope::Scope::Cluster,
            },
            versions: vec![version],
        };
        typed(definition.to_value())
    }
}

/// The structural schema `crd()` writes for a field of type `T` that has no attributes of
/// its own (no doc comment, default or validation): `T`'s inlined schema, with the OpenAPI
/// 3 transforms, made structural. A field's doc comment then replaces the `description`.
///
/// `kubegen crd` cannot compile `T`: it reads the schemas of numbers and k8s-openapi types
/// from a table in `kubegen-codegen` that this function generated
/// (`hack/codegen-targets.sh`, target `wellknown-schemas`).
///
/// ```
/// use serde_json::json;
///
/// let schema = kubegen::crd::field_schema::<u8>()?;
/// assert_eq!(schema, json!({ "type": "integer", "minimum": 0, "maximum": 255 }));
/// # Ok::<(), kubegen::crd::Error>(())
/// ```
pub fn field_schema<T: JsonSchema>() -> Result<Value, Error> {
    let mut settings = RootSchema::<()>::settings();
    let mut transforms = std::mem::take(&mut settings.transforms);
    let mut schema = transformed::<T>(&mut settings.into_generator(), &mut transforms);
    make_structural(&mut schema, "")?;
    Ok(schema)
}

/// `T`'s inlined schema from `generator`, with `transforms` applied.
fn transformed<T: JsonSchema>(
    generator: &mut SchemaGenerator,
    transforms: &mut [Box<dyn GenTransform>],
) -> Value {
    let mut schema = generator.subschema_for::<T>();
    for transform in transforms {
        transform.transform(&mut schema);
    }
    schema.to_value()
}

/// The schema of a root object (`apiVersion`, `kind`, `metadata` and the given fields),
/// built field by field. The field accessors only name each field's type for inference
/// (`|foo: &Foo| &foo.spec`); they are never called.
pub struct RootSchema<K> {
    generator: SchemaGenerator,
    transforms: Vec<Box<dyn GenTransform>>,
    description: Option<String>,
    properties: Map<String, Value>,
    required: Vec<String>,
    rules: Vec<ValidationRule>,
    object: PhantomData<fn(&K)>,
}

impl<K> RootSchema<K> {
    /// The schema generator settings: OpenAPI 3 with every subschema inlined.
    pub fn settings() -> SchemaSettings {
        SchemaSettings::openapi3().with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
    }

    /// A root schema with an optional description (the type's doc comment).
    pub fn new(description: Option<&str>) -> Self {
        let mut settings = Self::settings();
        let transforms = std::mem::take(&mut settings.transforms);
        Self {
            generator: settings.into_generator(),
            transforms,
            description: description.map(str::to_owned),
            properties: Map::new(),
            required: Vec::new(),
            rules: Vec::new(),
            object: PhantomData,
        }
    }

    /// Adds a required field of type `T`.
    pub fn required<T: JsonSchema>(mut self, name: &str, _field: fn(&K) -> &T) -> Self {
        let schema = self.schema_for::<T>();
        self.properties.insert(name.to_owned(), schema);
        self.required.push(name.to_owned());
        self
    }

    /// Adds an optional field of type `Option<T>` (described by `T`'s schema).
    pub fn optional<T: JsonSchema>(mut self, name: &str, _field: fn(&K) -> &Option<T>) -> Self {
        let schema = self.schema_for::<T>();
        self.properties.insert(name.to_owned(), schema);
        self
    }

    /// Adds a CEL rule on the whole object (`x-kubernetes-validations`).
    pub fn validation(mut self, rule: ValidationRule) -> Self {
        self.rules.push(rule);
        self
    }

    /// `T`'s inlined schema with the OpenAPI 3 transforms applied (the generator applies
    /// them to root schemas only).
    fn schema_for<T: JsonSchema>(&mut self) -> Value {
        transformed::<T>(&mut self.generator, &mut self.transforms)
    }

    /// The structural schema.
    pub fn build(self) -> Result<JSONSchemaProps, Error> {
        let mut node = shapes::root(self.description.as_deref(), self.properties);
        shapes::set_required(&mut node, self.required);
        shapes::set_rules(&mut node, self.rules);
        let mut root = Value::Object(node);
        make_structural(&mut root, "")?;
        serde_json::from_value(root).map_err(|source| Error::Build {
            name: "the root schema".into(),
            source,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;

    struct Foo {
        #[allow(dead_code)]
        metadata: ObjectMeta,
        spec: Option<String>,
    }

    fn foo(version: &'static str, scope: Scope) -> CustomResourceDefinition {
        let schema = RootSchema::<Foo>::new(Some("A Foo."))
            .optional("spec", |foo: &Foo| &foo.spec)
            .validation(ValidationRule {
                rule: "has(self.spec)",
                message: Some("a Foo has a spec"),
                ..ValidationRule::default()
            })
            .build()
            .expect("schema");
        Definition {
            group: "example.com",
            version,
            kind: "Foo",
            plural: "foos",
            singular: "foo",
            list_kind: "FooList",
            short_names: &["fo"],
            categories: &[],
            scope,
            status: true,
            scale: None,
            printer_columns: &[],
            selectable_fields: &[],
        }
        .build(schema)
        .expect("crd")
    }

    #[test]
    fn the_root_schema_and_envelope_are_the_cores() {
        let crd = foo("v1", Scope::Namespaced);
        let schema = serde_json::to_value(&crd.spec.versions[0].schema).unwrap();
        let root = &schema["openAPIV3Schema"];
        assert_eq!(root["description"], "A Foo.");
        assert_eq!(root["properties"]["apiVersion"], json_string());
        assert_eq!(root["properties"]["spec"], json_string());
        assert_eq!(
            root["x-kubernetes-validations"],
            serde_json::json!([{ "rule": "has(self.spec)", "message": "a Foo has a spec" }])
        );
        assert!(root.get("required").is_none());
        assert_eq!(crd.spec.names.short_names, Some(vec!["fo".to_owned()]));
        assert_eq!(crd.spec.names.categories, None);
        assert!(
            crd.spec.versions[0]
                .subresources
                .as_ref()
                .unwrap()
                .status
                .is_some()
        );
    }

    fn json_string() -> Value {
        serde_json::json!({ "type": "string" })
    }

    #[test]
    fn merge_keeps_the_order_given_and_reports_the_cores_refusals() {
        let crd = merge(
            [
                foo("v1alpha1", Scope::Namespaced),
                foo("v1", Scope::Namespaced),
            ],
            "v1",
        )
        .unwrap();
        let versions: Vec<_> = crd
            .spec
            .versions
            .iter()
            .map(|v| (v.name.as_str(), v.storage))
            .collect();
        assert_eq!(versions, [("v1alpha1", false), ("v1", true)]);

        let error = merge(
            [foo("v1", Scope::Namespaced), foo("v2", Scope::Cluster)],
            "v1",
        )
        .unwrap_err();
        assert!(
            matches!(&error, Error::Merge { name, reason } if name == "foos.example.com" && reason.contains("scope")),
            "{error}"
        );
        let error = merge([foo("v1", Scope::Namespaced)], "v2").unwrap_err();
        assert!(
            error.to_string().contains("the storage version v2"),
            "{error}"
        );
    }

    #[test]
    fn schemas_that_cannot_be_structural_name_their_path() {
        let mut schema = serde_json::json!({ "properties": { "next": { "$ref": "#/x" } } });
        let error = make_structural(&mut schema, "spec").unwrap_err();
        assert!(
            matches!(&error, Error::NotStructural { path, .. } if path == "spec.next"),
            "{error}"
        );
    }
}
