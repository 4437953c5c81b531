//! Content negotiation of resource responses, as a real API server's
//! `NegotiateOutputMediaType` and `transformObject` do it: the Accept header asks for the
//! object as stored, for its `meta.k8s.io` PartialObjectMetadata (kube's `get_metadata`,
//! `list_metadata` and `watch_metadata`, client-go's metadata client), or for a
//! `meta.k8s.io` Table (`kubectl get`), in JSON or protobuf. Both are decided here, once
//! per request, by one rule ([`Negotiated::negotiate`]), and every response body of a
//! resource verb (object, list, watch event) is rendered and encoded here.
//!
//! Clauses are tried in order of preference (`q`, then specificity, then the order
//! written). A clause is taken when the server can answer it: its media range covers
//! `application/json` (`*/*` and `application/*` mean JSON), or it is
//! `application/vnd.kubernetes.protobuf` and the response is one whole object of a
//! built-in kind ([`Offer::JsonOrProtobuf`]; lists, watches, Tables, metadata, Scales and
//! custom resources have no protobuf form here); and its `as`/`g`/`v` parameters, if any,
//! name `PartialObjectMetadata`, `PartialObjectMetadataList` or `Table` in
//! `meta.k8s.io/v1` or `v1beta1`. Anything else (YAML, unknown kinds or versions) is
//! skipped, so `...;as=Table;..., application/json` falls back to the whole object when
//! the Table clause cannot be served; a header with no acceptable clause is answered 406
//! NotAcceptable, as a real server answers when it offers none of the types asked for.
//! As on a real server, the single-object form on a list (or the list form on an object)
//! is 406 too, except in a watch, whose events fall back to the whole object when they
//! cannot be transformed.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use serde::Serialize;
use serde_json::{Value, json};

use crate::http::metav1::{self, MetaVersion};
use crate::http::protobuf;
use crate::http::table::{self, TableOptions};
use crate::store::page::Page;
use crate::store::registry::ResourceType;
use crate::store::status::{ApiError, ApiResult};
use crate::store::subscription::Subscription;
use crate::store::watch::WatchItem;
use crate::verbs::place::render;

/// The media type of every JSON response.
const JSON: &str = "application/json";

/// How a response body is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// `application/json`.
    Json,
    /// `application/vnd.kubernetes.protobuf`: the `k8s\0` envelope around the object's
    /// protobuf message.
    Protobuf,
}

/// The encodings a response can have, by what it carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Offer {
    /// Lists, watches, Scales and custom resources: JSON only.
    Json,
    /// One object of a built-in kind (get, create, update, patch, delete, `/status`).
    JsonOrProtobuf,
}

/// The outcome of negotiating one request's Accept header: what the response carries
/// and how it is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Negotiated {
    /// What the response carries.
    pub(crate) representation: Representation,
    /// How its body is encoded.
    pub(crate) encoding: Encoding,
}

/// A response body and its Content-Type.
#[derive(Debug)]
pub(crate) struct Encoded {
    /// The Content-Type header.
    pub(crate) content_type: &'static str,
    /// The body.
    pub(crate) body: Bytes,
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

    /// The encoding this clause can be answered in, given what the server offers.
    fn encoding(&self, offer: Offer) -> Option<Encoding> {
        if self.covers_json() {
            Some(Encoding::Json)
        } else if offer == Offer::JsonOrProtobuf
            && format!("{}/{}", self.kind, self.subkind) == protobuf::MEDIA_TYPE
        {
            Some(Encoding::Protobuf)
        } else {
            None
        }
    }

    fn param(&self, key: &str) -> Option<&'a str> {
        self.params.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    /// What this clause asks for and in which encoding, if the testkit can serve it.
    fn asked(&self, offer: Offer) -> Option<(Asked, Encoding)> {
        let encoding = self.encoding(offer)?;
        if self.param("stream").is_some_and(|s| s != "watch") {
            return None;
        }
        let (kind, group, version) = (self.param("as"), self.param("g"), self.param("v"));
        if kind.is_none() && group.is_none() && version.is_none() {
            return Some((Asked::Full, encoding));
        }
        // Metadata and Tables are served in JSON only.
        if group != Some("meta.k8s.io") || encoding != Encoding::Json {
            return None;
        }
        let version = MetaVersion::parse(version?)?;
        let asked = match kind? {
            "PartialObjectMetadata" => Asked::Partial(version),
            "PartialObjectMetadataList" => Asked::PartialList(version),
            "Table" => Asked::Table(version),
            _ => return None,
        };
        Some((asked, encoding))
    }
}

impl Negotiated {
    /// Negotiates an Accept header for a response that can be encoded as `offer` says;
    /// 406 when no clause can be served. An absent or empty header gets the whole object
    /// in JSON. A Table's options come from the query parameters `includeObject` and
    /// `noHeaders`.
    pub(crate) fn negotiate(
        accept: &str,
        offer: Offer,
        include_object: Option<&str>,
        no_headers: Option<&str>,
    ) -> ApiResult<Self> {
        if accept.trim().is_empty() {
            return Ok(Self {
                representation: Representation::Full,
                encoding: Encoding::Json,
            });
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
        let (asked, encoding) = clauses
            .iter()
            .find_map(|clause| clause.asked(offer))
            .ok_or_else(|| {
                let offered = match offer {
                    Offer::Json => JSON.to_owned(),
                    Offer::JsonOrProtobuf => format!("{JSON}, {}", protobuf::MEDIA_TYPE),
                };
                ApiError::not_acceptable(format!(
                    "only the following media types are accepted: {offered}"
                ))
            })?;
        let representation = match asked {
            Asked::Full => Representation::Full,
            Asked::Partial(version) => Representation::Partial(version),
            Asked::PartialList(version) => Representation::PartialList(version),
            Asked::Table(version) => {
                Representation::Table(TableOptions::new(version, include_object, no_headers)?)
            }
        };
        Ok(Self {
            representation,
            encoding,
        })
    }

    /// One object (get, create, update, patch, delete) as negotiated, encoded. An object
    /// of a built-in kind was decoded through its type when it was written, so its
    /// protobuf form exists: failing to encode it is a 500, as a server bug would be.
    pub(crate) fn object(self, object: &Value, rt: &ResourceType) -> ApiResult<Encoded> {
        let object = self.representation.object(object, rt)?;
        match self.encoding {
            Encoding::Json => Ok(Encoded {
                content_type: JSON,
                body: to_bytes(&object),
            }),
            Encoding::Protobuf => {
                let body = protobuf::encode(&object).map_err(|e| {
                    ApiError::internal(format!("encoding {} as protobuf: {e}", rt.kind))
                })?;
                Ok(Encoded {
                    content_type: protobuf::MEDIA_TYPE,
                    body: Bytes::from(body),
                })
            }
        }
    }
}

impl Representation {
    /// One object (get, create, update, patch, delete) in this representation.
    fn object(self, object: &Value, rt: &ResourceType) -> ApiResult<Value> {
        match self {
            Self::Full => Ok(render(object, rt)),
            Self::Partial(version) => Ok(metav1::partial(object, version)),
            Self::Table(options) => Ok(table::object(rt, object, options)),
            Self::PartialList(_) => Err(ApiError::not_acceptable(format!(
                "you requested PartialObjectMetadataList, but the requested object is not a list ({})",
                rt.kind
            ))),
        }
    }

    /// A list (list, deletecollection) in this representation, serialized. The whole
    /// list is serialized straight from the stored objects: a page costs its
    /// serialization, not a copy of every item.
    fn list(self, page: &Page, rt: &ResourceType) -> ApiResult<Bytes> {
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
                return Err(ApiError::not_acceptable(format!(
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
    fn watch_line(&mut self, item: &WatchItem, rt: &ResourceType) -> Bytes {
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

impl Negotiated {
    /// A list (list, deletecollection) as negotiated: JSON, serialized straight from the
    /// stored objects.
    pub(crate) fn list(self, page: &Page, rt: &ResourceType) -> ApiResult<Encoded> {
        debug_assert_eq!(
            self.encoding,
            Encoding::Json,
            "lists are offered in JSON only"
        );
        Ok(Encoded {
            content_type: JSON,
            body: self.representation.list(page, rt)?,
        })
    }

    /// The JSON body of a watch: one line per event, as negotiated, until the
    /// subscription ends; and its Content-Type.
    pub(crate) fn watch(
        self,
        subscription: Subscription,
        rt: Arc<ResourceType>,
    ) -> (&'static str, Body) {
        debug_assert_eq!(
            self.encoding,
            Encoding::Json,
            "watches are offered in JSON only"
        );
        let state = (subscription, rt, self.representation);
        let lines =
            futures::stream::unfold(state, |(mut subscription, rt, mut shape)| async move {
                let item = subscription.next().await?;
                let line = shape.watch_line(&item, &rt);
                Some((Ok::<_, Infallible>(line), (subscription, rt, shape)))
            });
        (JSON, Body::from_stream(lines))
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
        Negotiated::negotiate(accept, Offer::Json, None, None)
            .map(|n| n.representation)
            .map_err(|e| e.code)
    }

    /// The encoding chosen for a whole built-in object (`JsonOrProtobuf`) and for what
    /// has no protobuf form (`Json`).
    fn encodings(accept: &str) -> [Result<(Representation, Encoding), u16>; 2] {
        [Offer::JsonOrProtobuf, Offer::Json].map(|offer| {
            Negotiated::negotiate(accept, offer, None, None)
                .map(|n| (n.representation, n.encoding))
                .map_err(|e| e.code)
        })
    }

    fn negotiated_with(accept: &str, include_object: Option<&str>) -> Result<Representation, u16> {
        Negotiated::negotiate(accept, Offer::Json, include_object, None)
            .map(|n| n.representation)
            .map_err(|e| e.code)
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
        let options = Negotiated::negotiate(KUBECTL, Offer::Json, Some("None"), Some("true"))
            .expect("valid")
            .representation;
        let Table(options) = options else {
            panic!("not a table: {options:?}");
        };
        assert!(!options.headers && options.include == table::IncludeObject::None);
        assert_eq!(negotiated_with(KUBECTL, Some("Everything")), Err(400));
        // Only a Table reads the query's options.
        assert_eq!(
            negotiated_with("application/json", Some("Everything")),
            Ok(Full)
        );
    }

    const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";

    #[test]
    fn protobuf_is_chosen_by_the_same_rule_as_everything_else() {
        use Encoding::*;
        use Representation::*;
        // kubectl and client-go's protobuf clients: protobuf first, JSON as the fallback.
        assert_eq!(
            encodings("application/vnd.kubernetes.protobuf,application/json"),
            [Ok((Full, Protobuf)), Ok((Full, Json))]
        );
        assert_eq!(
            encodings("application/vnd.kubernetes.protobuf, */*"),
            [Ok((Full, Protobuf)), Ok((Full, Json))]
        );
        // Protobuf alone: a whole built-in object is served; a list, watch, Scale or
        // custom resource (no protobuf form) is 406, as a real server answers when it
        // offers none of the types asked for.
        assert_eq!(encodings(PROTOBUF), [Ok((Full, Protobuf)), Err(406)]);
        assert_eq!(
            encodings("application/vnd.kubernetes.protobuf;stream=watch"),
            [Ok((Full, Protobuf)), Err(406)]
        );
        // Preference decides, not position alone.
        assert_eq!(
            encodings("application/json, application/vnd.kubernetes.protobuf"),
            [Ok((Full, Json)), Ok((Full, Json))]
        );
        assert_eq!(
            encodings("application/json;q=0.5, application/vnd.kubernetes.protobuf"),
            [Ok((Full, Protobuf)), Ok((Full, Json))]
        );
        assert_eq!(
            encodings("*/*, application/vnd.kubernetes.protobuf"),
            [Ok((Full, Protobuf)), Ok((Full, Json))],
            "a wildcard is less specific"
        );
        assert_eq!(
            encodings("application/vnd.kubernetes.protobuf;q=0"),
            [Err(406), Err(406)]
        );
    }

    #[test]
    fn tables_and_metadata_are_never_protobuf() {
        use Encoding::*;
        use Representation::*;
        let table_protobuf = "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io";
        assert_eq!(encodings(table_protobuf), [Err(406), Err(406)]);
        // kubectl get with protobuf: the JSON Table clause after it is taken.
        let kubectl = format!(
            "{table_protobuf},application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
        );
        assert_eq!(
            encodings(&kubectl),
            [
                Ok((table(MetaVersion::V1), Json)),
                Ok((table(MetaVersion::V1), Json))
            ]
        );
        let metadata =
            "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
        assert_eq!(encodings(metadata), [Err(406), Err(406)]);
        assert_eq!(
            encodings(&format!("{metadata},{PROTOBUF}")),
            [Ok((Full, Protobuf)), Err(406)],
            "the whole object in protobuf is the next servable clause"
        );
        assert_eq!(
            encodings(&format!(
                "{metadata},application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
            )),
            [
                Ok((Partial(MetaVersion::V1), Json)),
                Ok((Partial(MetaVersion::V1), Json))
            ]
        );
    }

    #[test]
    fn the_406_names_what_is_offered() {
        let message = |offer| {
            Negotiated::negotiate("application/yaml", offer, None, None)
                .expect_err("406")
                .message
        };
        assert_eq!(
            message(Offer::Json),
            "only the following media types are accepted: application/json"
        );
        assert_eq!(
            message(Offer::JsonOrProtobuf),
            "only the following media types are accepted: application/json, application/vnd.kubernetes.protobuf"
        );
    }
}
