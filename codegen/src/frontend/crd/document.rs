//! `apiextensions.k8s.io/v1` CustomResourceDefinition as code generation reads it,
//! deserialized straight from YAML so that shape errors carry line and column. Every name
//! is [`Spanned`], so a name Kubernetes rejects is reported where it is.
//!
//! Each object has every field its API type has, those code generation does not need as
//! [`IgnoredAny`], and refuses any other key (`deny_unknown_fields`), as the API server
//! does under strict field validation (kubectl's default): a misspelt `servd` is an error
//! at its key, with "did you mean" help, rather than a default. The schemas' keys are
//! checked the same way ([`schema::checking_keywords`]). The contents of `status`,
//! `spec.conversion` and `metadata` values are not read, nor checked.

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};
use serde_saphyr::Spanned;

use crate::frontend::schema::{self, Schema};

/// A CustomResourceDefinition document (its `apiVersion` and `kind` are checked before it
/// is parsed).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Crd {
    // Fields the API type has that are not read start with `_`.
    #[serde(rename = "apiVersion")]
    _api_version: IgnoredAny,
    #[serde(rename = "kind")]
    _kind: IgnoredAny,
    #[serde(default)]
    pub(crate) metadata: Option<Metadata>,
    pub(crate) spec: CrdSpec,
    #[serde(default, rename = "status")]
    _status: Option<IgnoredAny>,
}

/// `metadata`, an ObjectMeta (only the name is read).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Metadata {
    #[serde(default)]
    pub(crate) name: Option<Spanned<String>>,
    #[serde(default, rename = "annotations")]
    _annotations: Option<IgnoredAny>,
    #[serde(default, rename = "creationTimestamp")]
    _creation_timestamp: Option<IgnoredAny>,
    #[serde(default, rename = "deletionGracePeriodSeconds")]
    _deletion_grace_period_seconds: Option<IgnoredAny>,
    #[serde(default, rename = "deletionTimestamp")]
    _deletion_timestamp: Option<IgnoredAny>,
    #[serde(default, rename = "finalizers")]
    _finalizers: Option<IgnoredAny>,
    #[serde(default, rename = "generateName")]
    _generate_name: Option<IgnoredAny>,
    #[serde(default, rename = "generation")]
    _generation: Option<IgnoredAny>,
    #[serde(default, rename = "labels")]
    _labels: Option<IgnoredAny>,
    #[serde(default, rename = "managedFields")]
    _managed_fields: Option<IgnoredAny>,
    #[serde(default, rename = "namespace")]
    _namespace: Option<IgnoredAny>,
    #[serde(default, rename = "ownerReferences")]
    _owner_references: Option<IgnoredAny>,
    #[serde(default, rename = "resourceVersion")]
    _resource_version: Option<IgnoredAny>,
    #[serde(default, rename = "selfLink")]
    _self_link: Option<IgnoredAny>,
    #[serde(default, rename = "uid")]
    _uid: Option<IgnoredAny>,
}

/// `spec` of a CRD.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct CrdSpec {
    pub(crate) group: Spanned<String>,
    pub(crate) names: Names,
    pub(crate) scope: Scope,
    pub(crate) versions: Vec<CrdVersion>,
    #[serde(default, rename = "conversion")]
    _conversion: Option<IgnoredAny>,
    #[serde(default, rename = "preserveUnknownFields")]
    _preserve_unknown_fields: Option<IgnoredAny>,
}

/// `spec.scope`.
#[derive(Clone, Copy, Debug, Deserialize)]
pub(crate) enum Scope {
    Namespaced,
    Cluster,
}

/// `spec.names`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Names {
    pub(crate) kind: Spanned<String>,
    pub(crate) plural: Spanned<String>,
    #[serde(default)]
    pub(crate) singular: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) short_names: Vec<Spanned<String>>,
    #[serde(default)]
    pub(crate) categories: Vec<Spanned<String>>,
    #[serde(default)]
    pub(crate) list_kind: Option<Spanned<String>>,
}

/// One entry of `spec.versions`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct CrdVersion {
    pub(crate) name: Spanned<String>,
    pub(crate) served: bool,
    pub(crate) storage: bool,
    #[serde(default)]
    pub(crate) deprecated: bool,
    #[serde(default)]
    pub(crate) deprecation_warning: Option<String>,
    #[serde(default)]
    pub(crate) schema: Option<Validation>,
    #[serde(default)]
    pub(crate) subresources: Option<Subresources>,
    #[serde(default)]
    pub(crate) additional_printer_columns: Vec<PrinterColumn>,
    #[serde(default)]
    pub(crate) selectable_fields: Vec<SelectableField>,
}

/// `schema` of a version.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Validation {
    /// Read with its keywords checked.
    #[serde(
        rename = "openAPIV3Schema",
        default,
        deserialize_with = "checked_schema"
    )]
    pub(crate) open_api_v3_schema: Option<Spanned<Schema>>,
}

/// A CRD schema, each of its keys one of JSONSchemaProps' fields.
fn checked_schema<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Spanned<Schema>>, D::Error> {
    schema::checking_keywords(|| Option::<Spanned<Schema>>::deserialize(deserializer))
}

/// `subresources` of a version.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Subresources {
    #[serde(default)]
    pub(crate) status: Option<StatusSubresource>,
    #[serde(default)]
    pub(crate) scale: Option<ScaleSpec>,
}

/// `subresources.status`, which has no fields.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StatusSubresource {}

/// `subresources.scale`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ScaleSpec {
    pub(crate) spec_replicas_path: String,
    pub(crate) status_replicas_path: String,
    #[serde(default)]
    pub(crate) label_selector_path: Option<String>,
}

/// One of `additionalPrinterColumns`. What the API server requires of it (a `jsonPath`, a
/// known `type` and `format`) is checked once it is read, where each is written.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct PrinterColumn {
    pub(crate) name: Spanned<String>,
    #[serde(rename = "type")]
    pub(crate) type_: Spanned<String>,
    #[serde(default)]
    pub(crate) format: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) json_path: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) description: Option<String>,
    #[serde(default)]
    pub(crate) priority: i32,
}

/// One of `selectableFields`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct SelectableField {
    pub(crate) json_path: String,
}
