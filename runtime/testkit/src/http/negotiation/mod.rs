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

use crate::http::conversion::Versions;
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
    /// subscription ends; and its Content-Type. With a conversion webhook, each event's
    /// object is converted to the watched version first (a failed conversion is the
    /// stream's last event, an ERROR carrying the failure).
    pub(crate) fn watch(
        self,
        subscription: Subscription,
        rt: Arc<ResourceType>,
        versions: Versions,
    ) -> (&'static str, Body) {
        debug_assert_eq!(
            self.encoding,
            Encoding::Json,
            "watches are offered in JSON only"
        );
        let state = (subscription, rt, self.representation, versions);
        let lines = futures::stream::unfold(
            state,
            |(mut subscription, rt, mut shape, versions)| async move {
                let item = match subscription.next().await? {
                    WatchItem::Event(kind, object) if versions.converts() => {
                        match versions.to_served(object).await {
                            Ok(object) => WatchItem::Event(kind, object),
                            Err(error) => {
                                subscription.finished = true;
                                WatchItem::Error(error)
                            }
                        }
                    }
                    item => item,
                };
                let line = shape.watch_line(&item, &rt);
                Some((
                    Ok::<_, Infallible>(line),
                    (subscription, rt, shape, versions),
                ))
            },
        );
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
mod tests;
