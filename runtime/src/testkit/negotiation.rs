//! Content negotiation of resource responses, as a real API server's
//! `NegotiateOutputMediaType` and `transformObject` do it: the Accept header asks for the
//! object as stored, or for its `meta.k8s.io` PartialObjectMetadata (kube's
//! `get_metadata`, `list_metadata` and `watch_metadata`, client-go's metadata client).
//!
//! Clauses are tried in order of preference (`q`, then specificity). A clause is taken
//! when its media range covers `application/json` (the only encoding served) and its
//! `as`/`g`/`v` parameters, if any, name `PartialObjectMetadata` or
//! `PartialObjectMetadataList` in `meta.k8s.io/v1` or `v1beta1`. Anything else (Table,
//! protobuf, YAML, unknown kinds or versions) is skipped, so `...;as=Table;...,
//! application/json` falls back to the whole object; a header with no acceptable clause
//! is answered 406 NotAcceptable. As on a real server, the single-object form on a
//! list (or the list form on an object) is 406 too, except in a watch, whose events
//! fall back to the whole object when they cannot be transformed.

use serde_json::{Value, json};

use super::objects::render;
use super::registry::ResourceType;
use super::status::{ApiError, ApiResult};

/// The media type the testkit serves.
const JSON: &str = "application/json";

/// The `meta.k8s.io` version a PartialObjectMetadata response is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MetaVersion {
    V1,
    V1beta1,
}

impl MetaVersion {
    fn parse(version: &str) -> Option<Self> {
        match version {
            "v1" => Some(Self::V1),
            "v1beta1" => Some(Self::V1beta1),
            _ => None,
        }
    }

    fn api_version(self) -> &'static str {
        match self {
            Self::V1 => "meta.k8s.io/v1",
            Self::V1beta1 => "meta.k8s.io/v1beta1",
        }
    }
}

/// What a response carries, as negotiated from the Accept header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Representation {
    /// The object (or list) as stored, in the requested version.
    Full,
    /// `as=PartialObjectMetadata`: one object's metadata.
    Partial(MetaVersion),
    /// `as=PartialObjectMetadataList`: a list of metadata.
    PartialList(MetaVersion),
}

/// One clause of an Accept header.
#[derive(Debug)]
struct Clause<'a> {
    kind: &'a str,
    subkind: &'a str,
    q: f32,
    params: Vec<(&'a str, &'a str)>,
}

impl<'a> Clause<'a> {
    fn parse(text: &'a str) -> Option<Self> {
        let mut parts = text.split(';').map(str::trim);
        let (kind, subkind) = parts.next()?.split_once('/')?;
        let mut q = 1.0;
        let mut params = Vec::new();
        for param in parts {
            let Some((key, value)) = param.split_once('=') else {
                continue;
            };
            let (key, value) = (key.trim(), value.trim().trim_matches('"'));
            if key == "q" {
                q = value.parse().unwrap_or(0.0);
            } else {
                params.push((key, value));
            }
        }
        Some(Self {
            kind: kind.trim(),
            subkind: subkind.trim(),
            q,
            params,
        })
    }

    fn covers_json(&self) -> bool {
        matches!(
            (self.kind, self.subkind),
            ("application", "json") | ("application", "*") | ("*", "*")
        )
    }

    fn param(&self, key: &str) -> Option<&'a str> {
        self.params.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    /// The representation this clause asks for, if the testkit can serve it.
    fn representation(&self) -> Option<Representation> {
        if !self.covers_json() || self.param("stream").is_some_and(|s| s != "watch") {
            return None;
        }
        let (kind, group, version) = (self.param("as"), self.param("g"), self.param("v"));
        if kind.is_none() && group.is_none() && version.is_none() {
            return Some(Representation::Full);
        }
        if group != Some("meta.k8s.io") {
            return None;
        }
        let version = MetaVersion::parse(version?)?;
        match kind? {
            "PartialObjectMetadata" => Some(Representation::Partial(version)),
            "PartialObjectMetadataList" => Some(Representation::PartialList(version)),
            _ => None,
        }
    }
}

fn not_acceptable(message: impl Into<String>) -> ApiError {
    ApiError::new(406, "NotAcceptable", message)
}

fn partial(metadata: Option<&Value>, version: MetaVersion) -> Value {
    json!({
        "kind": "PartialObjectMetadata",
        "apiVersion": version.api_version(),
        "metadata": metadata.cloned().unwrap_or_else(|| json!({})),
    })
}

impl Representation {
    /// Negotiates an Accept header; 406 when no clause can be served. An absent or
    /// empty header gets the whole object.
    pub(crate) fn negotiate(accept: &str) -> ApiResult<Self> {
        if accept.trim().is_empty() {
            return Ok(Self::Full);
        }
        let mut clauses: Vec<Clause<'_>> = accept
            .split(',')
            .filter_map(Clause::parse)
            .filter(|c| c.q > 0.0)
            .collect();
        // Stable: equally preferred clauses keep the order the client wrote them in.
        clauses.sort_by(|a, b| {
            b.q.total_cmp(&a.q)
                .then((a.kind == "*").cmp(&(b.kind == "*")))
                .then((a.subkind == "*").cmp(&(b.subkind == "*")))
        });
        clauses
            .iter()
            .find_map(Clause::representation)
            .ok_or_else(|| {
                not_acceptable(format!(
                    "only the following media types are accepted: {JSON}"
                ))
            })
    }

    /// One object (get, create, update, patch, delete) in this representation.
    pub(crate) fn object(self, object: &Value, rt: &ResourceType) -> ApiResult<Value> {
        match self {
            Self::Full => Ok(render(object, rt)),
            Self::Partial(version) => Ok(partial(object.get("metadata"), version)),
            Self::PartialList(_) => Err(not_acceptable(format!(
                "you requested PartialObjectMetadataList, but the requested object is not a list ({})",
                rt.kind
            ))),
        }
    }

    /// A list (built with whole items) in this representation.
    pub(crate) fn list(self, mut list: Value, rt: &ResourceType) -> ApiResult<Value> {
        let version = match self {
            Self::Full => return Ok(list),
            Self::PartialList(version) => version,
            Self::Partial(_) => {
                return Err(not_acceptable(format!(
                    "you requested PartialObjectMetadata, but the requested object is a list ({})",
                    rt.list_kind
                )));
            }
        };
        let items: Vec<Value> = list
            .get("items")
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .map(|item| partial(item.get("metadata"), version))
                    .collect()
            })
            .unwrap_or_default();
        let metadata = list.get_mut("metadata").map(Value::take);
        Ok(json!({
            "kind": "PartialObjectMetadataList",
            "apiVersion": version.api_version(),
            "metadata": metadata.unwrap_or_else(|| json!({})),
            "items": items,
        }))
    }

    /// The object of a watch event (bookmarks included) in this representation, or
    /// `None` to send it whole. A watch cannot fail part-way through, so what cannot be
    /// transformed (the list form asked of single objects) is sent whole, as a real
    /// server's watch does.
    pub(crate) fn watch_object(self, object: &Value) -> Option<Value> {
        match self {
            Self::Partial(version) => Some(partial(object.get("metadata"), version)),
            Self::Full | Self::PartialList(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn negotiated(accept: &str) -> Result<Representation, u16> {
        Representation::negotiate(accept).map_err(|e| e.code)
    }

    #[test]
    fn kube_and_client_go_metadata_headers_are_served() {
        use Representation::*;
        assert_eq!(
            negotiated("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"),
            Ok(PartialList(MetaVersion::V1))
        );
        assert_eq!(
            negotiated("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"),
            Ok(Partial(MetaVersion::V1))
        );
        // client-go's metadata client: protobuf first, then JSON metadata, then JSON.
        assert_eq!(
            negotiated(
                "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
            ),
            Ok(PartialList(MetaVersion::V1))
        );
        assert_eq!(
            negotiated("application/json; as=PartialObjectMetadata; g=meta.k8s.io; v=v1beta1"),
            Ok(Partial(MetaVersion::V1beta1))
        );
    }

    #[test]
    fn unserved_clauses_fall_back_to_later_ones_or_406() {
        use Representation::*;
        assert_eq!(negotiated(""), Ok(Full));
        assert_eq!(negotiated("*/*"), Ok(Full));
        assert_eq!(negotiated("application/json;stream=watch"), Ok(Full));
        // kubectl get: Table first, plain JSON last.
        assert_eq!(
            negotiated(
                "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
            ),
            Ok(Full)
        );
        assert_eq!(
            negotiated("application/vnd.kubernetes.protobuf,application/json"),
            Ok(Full)
        );
        assert_eq!(
            negotiated("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2,*/*"),
            Ok(Full)
        );
        assert_eq!(
            negotiated("application/json;as=Table;g=meta.k8s.io;v=v1"),
            Err(406)
        );
        assert_eq!(negotiated("application/json;as=Pod;g=;v=v1"), Err(406));
        assert_eq!(negotiated("application/yaml"), Err(406));
        assert_eq!(negotiated("application/json;q=0"), Err(406));
    }

    #[test]
    fn preference_orders_clauses() {
        use Representation::*;
        assert_eq!(
            negotiated(
                "application/json;q=0.5,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
            ),
            Ok(Partial(MetaVersion::V1))
        );
        assert_eq!(
            negotiated("*/*,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"),
            Ok(PartialList(MetaVersion::V1))
        );
    }
}
