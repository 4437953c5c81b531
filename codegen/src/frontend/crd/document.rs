//! The subset of `apiextensions.k8s.io/v1` CustomResourceDefinition that code generation
//! reads, deserialized straight from YAML so that shape errors carry line and column.
//! Every name is [`Spanned`], so a name Kubernetes rejects is reported where it is.

use serde::Deserialize;
use serde::de;
use serde_saphyr::Spanned;

use crate::frontend::schema::Schema;

/// A CustomResourceDefinition document.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Crd {
    pub(crate) api_version: String,
    #[serde(default)]
    pub(crate) metadata: Option<Metadata>,
    pub(crate) spec: CrdSpec,
}

/// `metadata` (only the name is read).
#[derive(Debug, Deserialize)]
pub(crate) struct Metadata {
    #[serde(default)]
    pub(crate) name: Option<Spanned<String>>,
}

/// `spec` of a CRD.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CrdSpec {
    pub(crate) group: Spanned<String>,
    pub(crate) names: Names,
    pub(crate) scope: Scope,
    pub(crate) versions: Vec<CrdVersion>,
}

/// `spec.scope`.
#[derive(Clone, Copy, Debug, Deserialize)]
pub(crate) enum Scope {
    Namespaced,
    Cluster,
}

/// `spec.names`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
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
#[serde(rename_all = "camelCase")]
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
pub(crate) struct Validation {
    #[serde(rename = "openAPIV3Schema")]
    pub(crate) open_api_v3_schema: Option<Spanned<Schema>>,
}

/// `subresources` of a version.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Subresources {
    #[serde(default)]
    pub(crate) status: Option<de::IgnoredAny>,
    #[serde(default)]
    pub(crate) scale: Option<ScaleSpec>,
}

/// `subresources.scale`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ScaleSpec {
    pub(crate) spec_replicas_path: String,
    pub(crate) status_replicas_path: String,
    #[serde(default)]
    pub(crate) label_selector_path: Option<String>,
}

/// One of `additionalPrinterColumns`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PrinterColumn {
    pub(crate) name: String,
    #[serde(rename = "type")]
    pub(crate) type_: String,
    pub(crate) json_path: String,
    #[serde(default)]
    pub(crate) description: Option<String>,
    #[serde(default)]
    pub(crate) priority: i32,
}

/// One of `selectableFields`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SelectableField {
    pub(crate) json_path: String,
}
