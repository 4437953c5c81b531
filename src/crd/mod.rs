//! CustomResourceDefinitions for `#[derive(Resource)]` types.
//!
//! The derive emits `Foo::crd()`, which calls these helpers: [`RootSchema`] builds the
//! OpenAPI v3 schema of the root object from each field's [`JsonSchema`] (schemars 1 with
//! its OpenAPI 3 settings, subschemas inlined) and makes it structural with
//! [`make_structural`]; [`Definition`] wraps it in the `CustomResourceDefinition`;
//! [`merge`] makes the `crd()`s of a kind's versions one definition.
//! They are public so hand-written types can do the same.
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

mod structural;

use std::marker::PhantomData;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaProps;
use schemars::JsonSchema;
use schemars::generate::{GenTransform, SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value, json};

pub use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
pub use structural::make_structural;

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
    let mut crds = crds.into_iter();
    let Some(mut merged) = crds.next() else {
        return Err(Error::Merge {
            name: String::new(),
            reason: "no CustomResourceDefinition given".into(),
        });
    };
    let name = merged.metadata.name.clone().unwrap_or_default();
    let refuse = |reason: String| Error::Merge {
        name: name.clone(),
        reason,
    };
    for crd in crds {
        let (a, b) = (&merged.spec, &crd.spec);
        if crd.metadata.name != merged.metadata.name || a.group != b.group {
            return Err(refuse(format!(
                "{} is another kind",
                crd.metadata
                    .name
                    .as_deref()
                    .unwrap_or("a CRD without a name")
            )));
        }
        if a.names != b.names || a.scope != b.scope {
            return Err(refuse(
                "the versions disagree on names or scope: every version of a kind must have \
                 the same kind, plural, singular, short names, categories and scope"
                    .into(),
            ));
        }
        for version in crd.spec.versions {
            if merged.spec.versions.iter().any(|v| v.name == version.name) {
                return Err(refuse(format!("version {} is given twice", version.name)));
            }
            merged.spec.versions.push(version);
        }
    }
    if !merged
        .spec
        .versions
        .iter()
        .any(|v| v.name == storage_version)
    {
        let names: Vec<&str> = merged
            .spec
            .versions
            .iter()
            .map(|v| v.name.as_str())
            .collect();
        return Err(refuse(format!(
            "the storage version {storage_version} is not among its versions ({})",
            names.join(", ")
        )));
    }
    for version in &mut merged.spec.versions {
        version.storage = version.name == storage_version;
    }
    Ok(merged)
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
/// `#[resource(validation(rule = "...", ...))]`.
#[derive(Clone, Copy, Debug, Default)]
pub struct ValidationRule {
    /// The CEL expression (`self.spec.min <= self.spec.max`).
    pub rule: &'static str,
    /// The message shown when the rule fails.
    pub message: Option<&'static str>,
    /// A CEL expression computing the message.
    pub message_expression: Option<&'static str>,
    /// The reason (`FieldValueInvalid`, `FieldValueForbidden`, `FieldValueRequired`,
    /// `FieldValueDuplicate`).
    pub reason: Option<&'static str>,
    /// The JSON path of the field the failure is reported on (`.spec.max`).
    pub field_path: Option<&'static str>,
    /// Whether the rule runs on creation too, with `oldSelf` unset.
    pub optional_old_self: Option<bool>,
}

impl ValidationRule {
    fn to_value(self) -> Value {
        let mut rule = Map::new();
        rule.insert("rule".into(), self.rule.into());
        for (key, text) in [
            ("message", self.message),
            ("messageExpression", self.message_expression),
            ("reason", self.reason),
            ("fieldPath", self.field_path),
        ] {
            if let Some(text) = text {
                rule.insert(key.into(), text.into());
            }
        }
        if let Some(optional) = self.optional_old_self {
            rule.insert("optionalOldSelf".into(), optional.into());
        }
        Value::Object(rule)
    }
}

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
        let non_empty = |values: &[&'static str]| (!values.is_empty()).then(|| values.to_vec());
        let mut subresources = Map::new();
        if self.status {
            subresources.insert("status".into(), json!({}));
        }
        if let Some(scale) = &self.scale {
            let mut paths = json!({
                "specReplicasPath": scale.spec_replicas,
                "statusReplicasPath": scale.status_replicas,
            });
            if let Some(selector) = scale.label_selector {
                paths["labelSelectorPath"] = selector.into();
            }
            subresources.insert("scale".into(), paths);
        }
        let columns: Vec<Value> = self
            .printer_columns
            .iter()
            .map(|c| {
                let mut column =
                    json!({ "name": c.name, "type": c.type_, "jsonPath": c.json_path });
                if let Some(description) = c.description {
                    column["description"] = description.into();
                }
                if c.priority != 0 {
                    column["priority"] = c.priority.into();
                }
                column
            })
            .collect();
        let selectable: Vec<Value> = self
            .selectable_fields
            .iter()
            .map(|path| json!({ "jsonPath": path }))
            .collect();
        let mut version = json!({
            "name": self.version,
            "served": true,
            "storage": true,
            "schema": { "openAPIV3Schema": schema },
        });
        if !subresources.is_empty() {
            version["subresources"] = Value::Object(subresources);
        }
        if !columns.is_empty() {
            version["additionalPrinterColumns"] = Value::Array(columns);
        }
        if !selectable.is_empty() {
            version["selectableFields"] = Value::Array(selectable);
        }
        let crd = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": { "name": self.name() },
            "spec": {
                "group": self.group,
                "names": {
                    "kind": self.kind,
                    "listKind": self.list_kind,
                    "plural": self.plural,
                    "singular": self.singular,
                    "shortNames": non_empty(self.short_names),
                    "categories": non_empty(self.categories),
                },
                "scope": match self.scope {
                    Scope::Namespaced => "Namespaced",
                    Scope::Cluster => "Cluster",
                },
                "versions": [version],
            },
        });
        serde_json::from_value(crd).map_err(|source| Error::Build {
            name: self.name(),
            source,
        })
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
    rules: Vec<Value>,
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
        let mut properties = Map::new();
        properties.insert("apiVersion".into(), json!({ "type": "string" }));
        properties.insert("kind".into(), json!({ "type": "string" }));
        properties.insert("metadata".into(), json!({ "type": "object" }));
        let mut settings = Self::settings();
        let transforms = std::mem::take(&mut settings.transforms);
        Self {
            generator: settings.into_generator(),
            transforms,
            description: description.map(str::to_owned),
            properties,
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
        self.rules.push(rule.to_value());
        self
    }

    /// `T`'s inlined schema with the OpenAPI 3 transforms applied (the generator applies
    /// them to root schemas only).
    fn schema_for<T: JsonSchema>(&mut self) -> Value {
        transformed::<T>(&mut self.generator, &mut self.transforms)
    }

    /// The structural schema.
    pub fn build(self) -> Result<JSONSchemaProps, Error> {
        let mut root = json!({ "type": "object", "properties": self.properties });
        if let Some(description) = self.description {
            root["description"] = description.into();
        }
        if !self.required.is_empty() {
            root["required"] = self.required.into();
        }
        if !self.rules.is_empty() {
            root["x-kubernetes-validations"] = Value::Array(self.rules);
        }
        make_structural(&mut root, "")?;
        serde_json::from_value(root).map_err(|source| Error::Build {
            name: "the root schema".into(),
            source,
        })
    }
}
