//! Content negotiation of resource responses, as a real API server's
//! `NegotiateOutputMediaType` and `transformObject` do it: the Accept header asks for the
//! object as stored, for its `meta.k8s.io` PartialObjectMetadata (kube's `get_metadata`,
//! `list_metadata` and `watch_metadata`, client-go's metadata client), or for a
//! `meta.k8s.io` Table (`kubectl get`). Every response body of a resource verb (object,
//! list, watch event) is rendered here, one way per representation.
//!
//! Clauses are tried in order of preference (`q`, then specificity). A clause is taken
//! when its media range covers `application/json` (the only encoding served) and its
//! `as`/`g`/`v` parameters, if any, name `PartialObjectMetadata`,
//! `PartialObjectMetadataList` or `Table` in `meta.k8s.io/v1` or `v1beta1`. Anything else
//! (protobuf, YAML, unknown kinds or versions) is skipped, so `...;as=Table;...,
//! application/json` falls back to the whole object when the Table clause cannot be
//! served; a header with no acceptable clause is answered 406 NotAcceptable. As on a real
//! server, the single-object form on a list (or the list form on an object) is 406 too,
//! except in a watch, whose events fall back to the whole object when they cannot be
//! transformed.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use serde::Serialize;
use serde_json::{Value, json};

use crate::http::metav1::{self, MetaVersion};
use crate::http::table::{self, TableOptions};
use crate::store::page::Page;
use crate::store::registry::ResourceType;
use crate::store::status::{ApiError, ApiResult};
use crate::store::subscription::Subscription;
use crate::store::watch::WatchItem;
use crate::verbs::place::render;

/// The media type the testkit serves.
const JSON: &str = "application/json";

/// What a response carries, as negotiated from the Accept header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Representation {
    /// The object (or list) as stored, in the requested version.
    Full,
    /// `as=PartialObjectMetadata`: one object's metadata.
    Partial(MetaVersion),
    /// `as=PartialObjectMetadataList`: a list of metadata.
    PartialList(MetaVersion),
    /// `as=Table`: printer columns, one row per object.
    Table(TableOptions),
}

/// What a clause asks for, before the query completes a Table's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    Full,
    Partial(MetaVersion),
    PartialList(MetaVersion),
    Table(MetaVersion),
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

    /// What this clause asks for, if the testkit can serve it.
    fn asked(&self) -> Option<Asked> {
        if !self.covers_json() || self.param("stream").is_some_and(|s| s != "watch") {
            return None;
        }
        let (kind, group, version) = (self.param("as"), self.param("g"), self.param("v"));
        if kind.is_none() && group.is_none() && version.is_none() {
            return Some(Asked::Full);
        }
        if group != Some("meta.k8s.io") {
            return None;
        }
        let version = MetaVersion::parse(version?)?;
        match kind? {
            "PartialObjectMetadata" => Some(Asked::Partial(version)),
            "PartialObjectMetadataList" => Some(Asked::PartialList(version)),
            "Table" => Some(Asked::Table(version)),
            _ => None,
        }
    }
}

fn not_acceptable(message: impl Into<String>) -> ApiError {
    ApiError::new(406, "NotAcceptable", message)
}

impl Representation {
    /// Negotiates an Accept header; 406 when no clause can be served. An absent or
    /// empty header gets the whole object. A Table's options come from the query
    /// parameters `includeObject` and `noHeaders`.
    pub(crate) fn negotiate(
        accept: &str,
        include_object: Option<&str>,
        no_headers: Option<&str>,
    ) -> ApiResult<Self> {
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
        let asked = clauses.iter().find_map(Clause::asked).ok_or_else(|| {
            not_acceptable(format!(
                "only the following media types are accepted: {JSON}"
            ))
        })?;
        Ok(match asked {
            Asked::Full => Self::Full,
            Asked::Partial(version) => Self::Partial(version),
            Asked::PartialList(version) => Self::PartialList(version),
            Asked::Table(version) => {
                Self::Table(TableOptions::new(version, include_object, no_headers)?)
            }
        })
    }

    /// One object (get, create, update, patch, delete) in this representation.
    pub(crate) fn object(self, object: &Value, rt: &ResourceType) -> ApiResult<Value> {
        match self {
            Self::Full => Ok(render(object, rt)),
            Self::Partial(version) => Ok(metav1::partial(object, version)),
            Self::Table(options) => Ok(table::object(rt, object, options)),
            Self::PartialList(_) => Err(not_acceptable(format!(
                "you requested PartialObjectMetadataList, but the requested object is not a list ({})",
                rt.kind
            ))),
        }
    }

    /// A list (list, deletecollection) in this representation, serialized. The whole
    /// list is serialized straight from the stored objects: a page costs its
    /// serialization, not a copy of every item.
    pub(crate) fn list(self, page: &Page, rt: &ResourceType) -> ApiResult<Bytes> {
        let version = match self {
            Self::Full => return Ok(to_bytes(page)),
            Self::Table(options) => {
                let objects = page.items.iter().map(|item| &**item);
                return Ok(to_bytes(&table::render(
                    rt,
                    objects,
                    page.metadata.clone(),
                    options,
                )));
            }
            Self::PartialList(version) => version,
            Self::Partial(_) => {
                return Err(not_acceptable(format!(
                    "you requested PartialObjectMetadata, but the requested object is a list ({})",
                    rt.list_kind
                )));
            }
        };
        let items: Vec<Value> = page
            .items
            .iter()
            .map(|item| metav1::partial(item, version))
            .collect();
        Ok(to_bytes(&json!({
            "kind": "PartialObjectMetadataList",
            "apiVersion": version.api_version(),
            "metadata": page.metadata,
            "items": items,
        })))
    }

    /// One watch event line, with objects in the watched version or as negotiated, and
    /// errors as a `Status`. A watch cannot fail part-way through, so what cannot be
    /// transformed (the list form asked of single objects) is sent whole, as a real
    /// server's watch does. A Table watch sends its column definitions with the first
    /// event only: this representation drops them once that event is rendered.
    pub(crate) fn watch_line(&mut self, item: &WatchItem, rt: &ResourceType) -> Bytes {
        let api_version = rt.api_version();
        match item {
            WatchItem::Event(kind, object) => match *self {
                Self::Partial(version) => line(kind.as_str(), &metav1::partial(object, version)),
                Self::Table(options) => {
                    *self = Self::Table(options.without_headers());
                    line(kind.as_str(), &table::object(rt, object, options))
                }
                Self::Full | Self::PartialList(_)
                    if object.get("apiVersion").and_then(Value::as_str)
                        == Some(api_version.as_str()) =>
                {
                    line(kind.as_str(), &**object)
                }
                Self::Full | Self::PartialList(_) => line(kind.as_str(), &render(object, rt)),
            },
            WatchItem::Bookmark { rv, initial_end } => {
                let mut metadata = json!({"resourceVersion": rv.to_string()});
                if *initial_end {
                    metadata["annotations"] = json!({"k8s.io/initial-events-end": "true"});
                }
                let bookmark =
                    json!({"kind": rt.kind, "apiVersion": api_version, "metadata": metadata});
                match *self {
                    Self::Partial(version) => {
                        line("BOOKMARK", &metav1::partial(&bookmark, version))
                    }
                    _ => line("BOOKMARK", &bookmark),
                }
            }
            WatchItem::Error(error) => line("ERROR", &error.to_status()),
        }
    }
}

impl Representation {
    /// The HTTP body of a watch: one line per event, in this representation, until the
    /// subscription ends.
    pub(crate) fn watch_body(self, subscription: Subscription, rt: Arc<ResourceType>) -> Body {
        let state = (subscription, rt, self);
        let lines =
            futures::stream::unfold(state, |(mut subscription, rt, mut shape)| async move {
                let item = subscription.next().await?;
                let line = shape.watch_line(&item, &rt);
                Some((Ok::<_, Infallible>(line), (subscription, rt, shape)))
            });
        Body::from_stream(lines)
    }
}

fn to_bytes(body: &impl Serialize) -> Bytes {
    // Serializing a JSON value or a page of them cannot fail: every map key is a string.
    Bytes::from(serde_json::to_vec(body).unwrap_or_default())
}

#[derive(Serialize)]
struct Line<'a, T> {
    #[serde(rename = "type")]
    kind: &'a str,
    object: &'a T,
}

fn line(kind: &str, object: &impl Serialize) -> Bytes {
    let mut bytes = serde_json::to_vec(&Line { kind, object }).unwrap_or_default();
    bytes.push(b'\n');
    Bytes::from(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn negotiated(accept: &str) -> Result<Representation, u16> {
        Representation::negotiate(accept, None, None).map_err(|e| e.code)
    }

    const KUBECTL: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

    fn table(version: MetaVersion) -> Representation {
        Representation::Table(TableOptions::new(version, None, None).expect("valid"))
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
        assert_eq!(
            negotiated("application/json;as=Table;v=v2;g=meta.k8s.io,application/json"),
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
            negotiated("application/json;as=Table;g=meta.k8s.io;v=v2"),
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

    #[test]
    fn tables_are_negotiated_with_their_query_options() {
        use Representation::*;
        // kubectl get: Table first, plain JSON last.
        assert_eq!(negotiated(KUBECTL), Ok(table(MetaVersion::V1)));
        assert_eq!(
            negotiated("application/json;as=Table;v=v1beta1;g=meta.k8s.io"),
            Ok(table(MetaVersion::V1beta1))
        );
        assert_eq!(
            negotiated("application/json, application/json;as=Table;v=v1;g=meta.k8s.io"),
            Ok(Full),
            "plain JSON was preferred"
        );
        let protobuf_first = "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io";
        assert_eq!(negotiated(protobuf_first), Ok(table(MetaVersion::V1)));
        let options =
            Representation::negotiate(KUBECTL, Some("None"), Some("true")).expect("valid");
        let Table(options) = options else {
            panic!("not a table: {options:?}");
        };
        assert!(!options.headers && options.include == table::IncludeObject::None);
        assert_eq!(
            Representation::negotiate(KUBECTL, Some("Everything"), None).map_err(|e| e.code),
            Err(400)
        );
        // Only a Table reads the query's options.
        assert_eq!(
            Representation::negotiate("application/json", Some("Everything"), None)
                .map_err(|e| e.code),
            Ok(Full)
        );
    }
}
