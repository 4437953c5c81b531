//! HTTP routing: Kubernetes API paths to discovery documents and resource verbs.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Query as QueryExtractor, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::Value;

use crate::http::admission;
use crate::http::auth;
use crate::http::conversion::Versions;
use crate::http::discovery;
use crate::http::negotiation::{Encoded, Negotiated, Offer};
use crate::http::openapi;
use crate::http::patching::{self, PatchTarget, Patched, patch_object};
use crate::http::protobuf;
use crate::http::scaling::{self, ScaleWrite};
use crate::store::page::Page;
use crate::store::shared::{ShardSelectors, Shared};
use crate::store::status::{ApiError, ApiResult, Cause};
use crate::verbs::collection::{self, Query, WatchDefaults};
use crate::verbs::deletion::DeleteOptions;
use crate::verbs::managed_fields::{Record, Writer};
use crate::verbs::place::{self, Part, Place};
use crate::verbs::scale;
use kubegen_runtime::error::Verb;

/// A parsed API path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Route {
    Version,
    Health,
    CoreVersions,
    GroupList,
    Group(String),
    OpenApi(openapi::Document),
    ResourceList(String, String),
    Resource(ResourceRequest),
}

/// A request for a resource, a named object or one of its subresources.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ResourceRequest {
    group: String,
    version: String,
    namespace: Option<String>,
    plural: String,
    name: Option<String>,
    subresource: Option<String>,
}

fn parse_resource(group: &str, version: &str, rest: &[&str]) -> Option<Route> {
    let namespaced_path = rest.first() == Some(&"namespaces")
        && rest.len() >= 3
        && !(rest.len() == 3 && matches!(rest[2], "status" | "finalize"));
    let (namespace, rest) = if namespaced_path {
        (Some(rest[1].to_owned()), &rest[2..])
    } else {
        (None, rest)
    };
    let (plural, name, subresource) = match rest {
        [plural] => (*plural, None, None),
        [plural, name] => (*plural, Some(*name), None),
        [plural, name, sub] => (*plural, Some(*name), Some(*sub)),
        _ => return None,
    };
    Some(Route::Resource(ResourceRequest {
        group: group.to_owned(),
        version: version.to_owned(),
        namespace,
        plural: plural.to_owned(),
        name: name.map(str::to_owned),
        subresource: subresource.map(str::to_owned),
    }))
}

fn parse_path(path: &str) -> Option<Route> {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match segments.as_slice() {
        ["version"] => Some(Route::Version),
        ["healthz" | "readyz" | "livez"] => Some(Route::Health),
        ["api"] => Some(Route::CoreVersions),
        ["api", version] => Some(Route::ResourceList(String::new(), (*version).to_owned())),
        ["api", version, rest @ ..] => parse_resource("", version, rest),
        ["apis"] => Some(Route::GroupList),
        ["apis", group] => Some(Route::Group((*group).to_owned())),
        ["apis", group, version] => Some(Route::ResourceList(
            (*group).to_owned(),
            (*version).to_owned(),
        )),
        ["apis", group, version, rest @ ..] => parse_resource(group, version, rest),
        ["openapi", ..] => openapi::Document::parse(&segments).map(Route::OpenApi),
        _ => None,
    }
}

fn json(code: StatusCode, value: &Value) -> Response {
    (code, axum::Json(value)).into_response()
}

fn ok(value: &Value) -> Response {
    json(StatusCode::OK, value)
}

/// The largest request body accepted, as on a real server (3 MiB: large CRDs need it).
pub(crate) const MAX_BODY: usize = 3 * 1024 * 1024;

/// How much of an oversized body is read and discarded before answering 413, so that a
/// client still writing it (kubectl) reads the Status instead of a broken pipe.
const MAX_DISCARDED: usize = 128 * 1024 * 1024;

/// Reads a request body of at most [`MAX_BODY`] bytes; beyond that, 413 as a Status.
async fn read_body(headers: &HeaderMap, body: Body) -> ApiResult<Bytes> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    let mut stream = body.into_data_stream();
    let mut bytes = Vec::with_capacity(declared.unwrap_or(0).min(MAX_BODY));
    let mut read = 0usize;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk
            .map_err(|e| ApiError::bad_request(format!("failed to read the request body: {e}")))?;
        read += chunk.len();
        if read > MAX_DISCARDED {
            break;
        }
        if read <= MAX_BODY && declared.is_none_or(|length| length <= MAX_BODY) {
            bytes.extend_from_slice(&chunk);
        }
    }
    if read > MAX_BODY || declared.is_some_and(|length| length > MAX_BODY) {
        return Err(ApiError::request_entity_too_large(MAX_BODY));
    }
    Ok(Bytes::from(bytes))
}

/// The single handler behind every path; every failure is answered with a Status.
pub(crate) async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Response {
    tracing::debug!(%method, %uri, "request");
    let body = match read_body(&headers, body).await {
        Ok(body) => body,
        Err(error) => return error.into_response(),
    };
    let user = match auth::check(&shared, &method, &uri, &headers) {
        Ok(user) => user,
        Err(error) => return error.into_response(),
    };
    if let Some(review) = auth::review_of(&method, &uri) {
        return match auth::answer_review(&shared, user.as_ref(), &review, &headers, &body) {
            Ok(answer) => json(StatusCode::CREATED, &answer),
            Err(error) => error.into_response(),
        };
    }
    match dispatch(&shared, &method, &uri, &headers, body).await {
        Ok(response) => response,
        Err(error) => {
            tracing::debug!(%method, %uri, code = error.code, reason = error.reason, "request failed");
            error.into_response()
        }
    }
}

async fn dispatch(
    shared: &Arc<Shared>,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: Bytes,
) -> ApiResult<Response> {
    let route = parse_path(uri.path()).ok_or_else(ApiError::no_route)?;
    let discovery_only = !matches!(route, Route::Resource(_));
    if discovery_only && method != Method::GET {
        // A group or version that does not exist is 404 whatever the method.
        let registry = &shared.lock().registry;
        let exists = match &route {
            Route::Group(group) => discovery::group(registry, group).is_some(),
            Route::ResourceList(group, version) => {
                discovery::resource_list(registry, group, version).is_some()
            }
            Route::OpenApi(document) => openapi::document(registry, document).is_ok(),
            _ => true,
        };
        return Err(if exists {
            ApiError::method_not_allowed()
        } else {
            ApiError::no_route()
        });
    }
    match route {
        Route::Version => Ok(ok(&discovery::version())),
        Route::Health => Ok((StatusCode::OK, "ok").into_response()),
        Route::CoreVersions | Route::GroupList if discovery::wants_aggregated(accept(headers)) => {
            let document =
                discovery::aggregated(&shared.lock().registry, route == Route::CoreVersions);
            let mut response = ok(&document);
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                header::HeaderValue::from_static(discovery::AGGREGATED_CONTENT_TYPE),
            );
            Ok(response)
        }
        Route::CoreVersions => Ok(ok(&discovery::core_versions(&shared.address.to_string()))),
        Route::GroupList => Ok(ok(&discovery::group_list(&shared.lock().registry))),
        Route::Group(group) => discovery::group(&shared.lock().registry, &group)
            .map(|d| ok(&d))
            .ok_or_else(ApiError::no_route),
        Route::ResourceList(group, version) => {
            discovery::resource_list(&shared.lock().registry, &group, &version)
                .map(|d| ok(&d))
                .ok_or_else(ApiError::no_route)
        }
        Route::OpenApi(document) => {
            // client-go asks for /openapi/v2 as protobuf first; this server speaks JSON.
            if !openapi::accepts_json(accept(headers)) {
                return Err(ApiError::not_acceptable(
                    "only application/json is served for OpenAPI documents",
                ));
            }
            openapi::document(&shared.lock().registry, &document).map(|d| ok(&d))
        }
        Route::Resource(request) => {
            let mut query: Query = QueryExtractor::try_from_uri(uri)
                .map(|q| q.0)
                .unwrap_or_default();
            match shared.config.shard_selectors {
                ShardSelectors::Served => {}
                ShardSelectors::Ignored => {
                    query.remove("shardSelector");
                }
                ShardSelectors::Refused => {
                    if query.contains_key("shardSelector") {
                        return Err(ApiError::bad_request(
                            "shardSelector is not supported by this server",
                        ));
                    }
                }
            }
            resource(shared, method, headers, &query, request, body).await
        }
    }
}

fn verb_of(method: &Method, request: &ResourceRequest, query: &Query) -> ApiResult<Verb> {
    let named = request.name.is_some();
    let watch = matches!(query.get("watch").map(String::as_str), Some("true" | "1"));
    let verb = match (method.as_str(), named) {
        ("GET", true) => Verb::Get,
        ("GET", false) if watch => Verb::Watch,
        ("GET", false) => Verb::List,
        ("POST", false) => Verb::Create,
        ("PUT", true) => Verb::Update,
        ("PATCH", true) => Verb::Patch,
        ("DELETE", true) => Verb::Delete,
        ("DELETE", false) => Verb::DeleteCollection,
        _ => return Err(ApiError::method_not_allowed()),
    };
    if request.subresource.is_some() && !matches!(verb, Verb::Get | Verb::Update | Verb::Patch) {
        return Err(ApiError::method_not_allowed());
    }
    Ok(verb)
}

fn accept(headers: &HeaderMap) -> &str {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

fn content_type(headers: &HeaderMap) -> &str {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/json")
}

/// A response with a negotiated and encoded body.
fn encoded(code: StatusCode, encoded: Encoded) -> Response {
    let content_type = header::HeaderValue::from_static(encoded.content_type);
    (code, [(header::CONTENT_TYPE, content_type)], encoded.body).into_response()
}

/// Decodes a create/update body (JSON, YAML for `application/yaml`, or protobuf for a
/// built-in kind).
fn decode_object(headers: &HeaderMap, body: &[u8], builtin: bool) -> ApiResult<Value> {
    let content_type = content_type(headers);
    let media = content_type.split(';').next().unwrap_or_default().trim();
    match media {
        "application/json" | "" | "*/*" => serde_json::from_slice(body).map_err(|e| {
            ApiError::bad_request(format!("error decoding request body as JSON: {e}"))
        }),
        "application/yaml" => {
            let text = std::str::from_utf8(body)
                .map_err(|e| ApiError::bad_request(format!("request body is not UTF-8: {e}")))?;
            serde_saphyr::from_str(text).map_err(|e| {
                ApiError::bad_request(format!("error decoding request body as YAML: {e}"))
            })
        }
        protobuf::MEDIA_TYPE if builtin => protobuf::decode(body).map_err(|e| {
            ApiError::bad_request(format!("error decoding request body as protobuf: {e}"))
        }),
        _ => Err(ApiError::unsupported_media_type(content_type)),
    }
}

async fn resource(
    shared: &Arc<Shared>,
    method: &Method,
    headers: &HeaderMap,
    query: &Query,
    request: ResourceRequest,
    body: Bytes,
) -> ApiResult<Response> {
    let rt = shared
        .lock()
        .registry
        .get(&request.group, &request.version, &request.plural)
        .ok_or_else(ApiError::no_route)?;
    let verb = verb_of(method, &request, query)?;
    match (&request.namespace, rt.namespaced) {
        (Some(_), false) => return Err(ApiError::no_route()),
        (None, true) if !matches!(verb, Verb::List | Verb::Watch) => {
            return Err(ApiError::no_route());
        }
        _ => {}
    }
    let part = match request.subresource.as_deref() {
        None => Part::Main,
        Some("status") if rt.status => Part::Status,
        Some("scale") if rt.scale.is_some() => Part::Main,
        Some(_) => return Err(ApiError::no_route()),
    };
    let (delay, failure) =
        shared
            .faults()
            .on_request(verb, &rt.plural, request.subresource.as_deref());
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    if let Some(failure) = failure {
        return Err(failure);
    }
    let dry_run = match query.get("dryRun").map(String::as_str) {
        None | Some("") => false,
        Some("All") => true,
        Some(other) => {
            let cause = Cause::new(
                "FieldValueNotSupported",
                "dryRun",
                format!("Unsupported value: {other:?}: supported values: \"All\""),
            );
            return Err(ApiError::invalid(
                "meta.k8s.io",
                "CreateOptions",
                "",
                vec![cause],
            ));
        }
    };

    let namespace = request.namespace.as_deref().unwrap_or_default();
    let place = Place { rt: &rt, namespace };
    let versions = Versions::of(shared, &rt)?;
    // Writes go through the storage version's type (the requested one without a
    // conversion webhook).
    let stored_place = Place {
        rt: versions.stored(),
        namespace,
    };
    let name = request.name.as_deref().unwrap_or_default();
    let scale = request.subresource.as_deref() == Some("scale");
    // Only one whole object of a built-in kind has a protobuf form here.
    let offer = match verb {
        Verb::List | Verb::Watch | Verb::DeleteCollection => Offer::Json,
        _ if scale || rt.custom => Offer::Json,
        _ => Offer::JsonOrProtobuf,
    };
    let negotiated = Negotiated::negotiate(
        accept(headers),
        offer,
        query.get("includeObject").map(String::as_str),
        query.get("noHeaders").map(String::as_str),
    )?;
    match verb {
        Verb::List => {
            let mut page =
                collection::list(&shared.lock(), &rt, request.namespace.as_deref(), query)?;
            if versions.converts() {
                page.items = versions.all_to_served(page.items).await?;
            }
            // Serialized from the stored objects, outside the lock.
            Ok(encoded(StatusCode::OK, negotiated.list(&page, &rt)?))
        }
        Verb::Watch => {
            let defaults = WatchDefaults {
                bookmark_interval: shared.config.bookmark_interval,
                timeout: shared.config.watch_timeout,
            };
            let subscription =
                collection::watch(shared, &rt, request.namespace.as_deref(), query, defaults)?;
            let (content_type, body) = negotiated.watch(subscription, rt.clone(), versions);
            let mut response = Response::new(body);
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                header::HeaderValue::from_static(content_type),
            );
            Ok(response)
        }
        Verb::Get => {
            let object = place::existing(&shared.lock(), &place, name)?;
            let object = versions.to_served(object).await?;
            if scale {
                Ok(ok(&scale::to_scale(&rt, &object)?))
            } else {
                Ok(encoded(StatusCode::OK, negotiated.object(&object, &rt)?))
            }
        }
        Verb::Create => {
            let record = Record::Update(writer(query, headers, None, "CreateOptions")?);
            let object = decode_object(headers, &body, !rt.custom)?;
            let object = versions.to_stored(object).await?;
            let created = admission::create(
                shared,
                admission::Target {
                    place: &stored_place,
                    requested: &rt,
                },
                object,
                &record,
                dry_run,
            )
            .await?;
            let object = versions.to_served(created.object).await?;
            let response = encoded(StatusCode::CREATED, negotiated.object(&object, &rt)?);
            Ok(with_warnings(response, &created.warnings))
        }
        Verb::Update => {
            let subresource = request.subresource.as_deref();
            let record = Record::Update(writer(query, headers, subresource, "UpdateOptions")?);
            let object = decode_object(headers, &body, !rt.custom)?;
            if scale {
                let write = ScaleWrite {
                    place: &place,
                    name,
                    scaled: |old: &Value| {
                        scale::check_resource_version(&place, name, old, &object)?;
                        scale::apply_scale(&rt, old, &object)
                    },
                    precondition: object
                        .pointer("/metadata/resourceVersion")
                        .and_then(Value::as_str)
                        .is_some_and(|rv| !rv.is_empty()),
                    record: &record,
                    dry_run,
                };
                let scaled = scaling::write(shared, &versions, write).await?;
                return Ok(with_warnings(ok(&scaled.scale), &scaled.warnings));
            }
            let object = versions.to_stored(object).await?;
            let updated = admission::update(
                shared,
                admission::Target {
                    place: &stored_place,
                    requested: &rt,
                },
                name,
                object,
                part,
                &record,
                dry_run,
            )
            .await?;
            let object = versions.to_served(updated.object).await?;
            let response = encoded(StatusCode::OK, negotiated.object(&object, &rt)?);
            Ok(with_warnings(response, &updated.warnings))
        }
        Verb::Patch => {
            let target = PatchTarget {
                place: &place,
                name,
                part,
                scale,
                writer: writer(
                    query,
                    headers,
                    request.subresource.as_deref(),
                    "PatchOptions",
                )?,
                content_type: content_type(headers),
            };
            // `dryRun` was validated above: only "All" gets here.
            if scale {
                let scaled =
                    patching::patch_scale(shared, &versions, query, &target, &body, dry_run)
                        .await?;
                return Ok(with_warnings(ok(&scaled.scale), &scaled.warnings));
            }
            if versions.converts() {
                let patched =
                    patching::patch_converted(shared, &versions, query, &target, &body, dry_run)
                        .await?;
                let code = match patched.created {
                    true => StatusCode::CREATED,
                    false => StatusCode::OK,
                };
                let admitted = patched.admitted;
                let response = encoded(code, negotiated.object(&admitted.object, &rt)?);
                return Ok(with_warnings(response, &admitted.warnings));
            }
            if !admission::registered(shared, &place) {
                return Ok(
                    match patch_object(shared, query, &target, &body, dry_run)? {
                        Patched::Created { object, .. } => {
                            encoded(StatusCode::CREATED, negotiated.object(&object, &rt)?)
                        }
                        Patched::Updated { object, .. } => {
                            encoded(StatusCode::OK, negotiated.object(&object, &rt)?)
                        }
                    },
                );
            }
            // Computed as a dry run, then admitted and stored as the create or update it is.
            let (code, admitted) = match patch_object(shared, query, &target, &body, true)? {
                Patched::Created { object, record } => {
                    let object = (*object).clone();
                    let admitted = admission::create(
                        shared,
                        admission::Target {
                            place: &place,
                            requested: &rt,
                        },
                        object,
                        &record,
                        dry_run,
                    )
                    .await?;
                    (StatusCode::CREATED, admitted)
                }
                Patched::Updated { object, record } => {
                    let object = (*object).clone();
                    let admitted = admission::update(
                        shared,
                        admission::Target {
                            place: &place,
                            requested: &rt,
                        },
                        name,
                        object,
                        part,
                        &record,
                        dry_run,
                    )
                    .await?;
                    (StatusCode::OK, admitted)
                }
            };
            let response = encoded(code, negotiated.object(&admitted.object, &rt)?);
            Ok(with_warnings(response, &admitted.warnings))
        }
        Verb::Delete => {
            let options =
                DeleteOptions::parse(&body, query.get("propagationPolicy").map(String::as_str))?;
            let dry_run = dry_run || options.dry_run;
            let deleted = admission::delete(
                shared,
                admission::Target {
                    place: &place,
                    requested: &rt,
                },
                name,
                &options,
                dry_run,
            )
            .await?;
            let object = versions.to_served(deleted.object).await?;
            let response = encoded(StatusCode::OK, negotiated.object(&object, &rt)?);
            Ok(with_warnings(response, &deleted.warnings))
        }
        Verb::DeleteCollection => {
            let options =
                DeleteOptions::parse(&body, query.get("propagationPolicy").map(String::as_str))?;
            let filter = collection::filter(&rt, request.namespace.as_deref(), query)?;
            let dry_run = dry_run || options.dry_run;
            let matching = |o: &Value| filter.matches(o);
            let (deleted, warnings) = admission::delete_collection(
                shared,
                admission::Target {
                    place: &place,
                    requested: &rt,
                },
                matching,
                &options,
                dry_run,
            )
            .await?;
            let deleted = versions.all_to_served(deleted).await?;
            let rv = shared.lock().current_rv().to_string();
            let metadata = serde_json::json!({"resourceVersion": rv});
            let page = Page::new(&rt, metadata, deleted);
            let response = encoded(StatusCode::OK, negotiated.list(&page, &rt)?);
            Ok(with_warnings(response, &warnings))
        }
    }
}

/// Adds the admission webhooks' warnings as `Warning: 299 - "..."` headers.
fn with_warnings(mut response: Response, warnings: &[String]) -> Response {
    for warning in warnings {
        let text = warning.replace(['"', '\\'], "'");
        if let Ok(value) = header::HeaderValue::from_str(&format!("299 - \"{text}\"")) {
            response.headers_mut().append(header::WARNING, value);
        }
    }
    response
}

/// The field manager of a write request (`?fieldManager`, else from the User-Agent).
fn writer(
    query: &Query,
    headers: &HeaderMap,
    subresource: Option<&str>,
    options_kind: &str,
) -> ApiResult<Writer> {
    Writer::from_request(
        query.get("fieldManager").map(String::as_str),
        headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok()),
        subresource,
        options_kind,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(
        namespace: Option<&str>,
        plural: &str,
        name: Option<&str>,
        sub: Option<&str>,
    ) -> Route {
        Route::Resource(ResourceRequest {
            group: String::new(),
            version: "v1".to_owned(),
            namespace: namespace.map(str::to_owned),
            plural: plural.to_owned(),
            name: name.map(str::to_owned),
            subresource: sub.map(str::to_owned),
        })
    }

    #[test]
    fn paths_parse_like_the_apiserver() {
        assert_eq!(
            parse_path("/api/v1/namespaces"),
            Some(resource(None, "namespaces", None, None))
        );
        assert_eq!(
            parse_path("/api/v1/namespaces/ns"),
            Some(resource(None, "namespaces", Some("ns"), None))
        );
        assert_eq!(
            parse_path("/api/v1/namespaces/ns/status"),
            Some(resource(None, "namespaces", Some("ns"), Some("status")))
        );
        assert_eq!(
            parse_path("/api/v1/namespaces/ns/pods"),
            Some(resource(Some("ns"), "pods", None, None))
        );
        assert_eq!(
            parse_path("/api/v1/namespaces/ns/pods/p/status"),
            Some(resource(Some("ns"), "pods", Some("p"), Some("status")))
        );
        assert_eq!(
            parse_path("/apis/apps/v1"),
            Some(Route::ResourceList("apps".to_owned(), "v1".to_owned()))
        );
        assert_eq!(parse_path("/apis"), Some(Route::GroupList));
        assert_eq!(
            parse_path("/openapi/v3/apis/apps/v1"),
            Some(Route::OpenApi(openapi::Document::V3 {
                group: "apps".to_owned(),
                version: "v1".to_owned()
            }))
        );
        assert_eq!(parse_path("/openapi/v4"), None);
        assert_eq!(parse_path("/nope"), None);
    }
}
