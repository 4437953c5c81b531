//! The `meta.k8s.io` shapes responses are transformed into: the API version a client asked
//! for and `PartialObjectMetadata`.

use serde_json::{Value, json};

/// The `meta.k8s.io` version a transformed response (PartialObjectMetadata, Table) is
/// written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MetaVersion {
    V1,
    V1beta1,
}

impl MetaVersion {
    /// The version named by an Accept header's `v` parameter.
    pub(crate) fn parse(version: &str) -> Option<Self> {
        match version {
            "v1" => Some(Self::V1),
            "v1beta1" => Some(Self::V1beta1),
            _ => None,
        }
    }

    /// `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`.
    pub(crate) fn api_version(self) -> &'static str {
        match self {
            Self::V1 => "meta.k8s.io/v1",
            Self::V1beta1 => "meta.k8s.io/v1beta1",
        }
    }
}

/// An object's `PartialObjectMetadata`: its metadata only.
pub(crate) fn partial(object: &Value, version: MetaVersion) -> Value {
    json!({
        "kind": "PartialObjectMetadata",
        "apiVersion": version.api_version(),
        "metadata": object.get("metadata").cloned().unwrap_or_else(|| json!({})),
    })
}
