//! Authentication and authorization of each request, before it is routed: who sends it
//! (a bearer token the server minted, or nobody: the administrator), what it asks for
//! (kube-apiserver's `RequestInfo`, parsed from the method, path and query alone), and,
//! with RBAC on, whether that user may. Also answers SelfSubjectAccessReviews, which
//! need the requesting user.

use axum::extract::Query as QueryExtractor;
use axum::http::{HeaderMap, Method, Uri, header};
use serde_json::Value;

use crate::http::protobuf;
use crate::store::shared::Shared;
use crate::store::status::{ApiError, ApiResult};
use crate::store::tokens::User;
use crate::verbs::collection::Query;
use crate::verbs::rbac::{self, Attributes, Decision, ResourceAttributes, review};

/// Who sent the request: `None` for the administrator (no bearer token), 401 for a
/// token the server never minted.
fn authenticate(shared: &Shared, headers: &HeaderMap) -> ApiResult<Option<User>> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let token = value
        .to_str()
        .ok()
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    match token {
        // Other schemes (basic, ...) are not authenticators the testkit runs.
        None => Ok(None),
        Some(token) => shared
            .tokens()
            .user(token)
            .cloned()
            .map(Some)
            .ok_or_else(ApiError::unauthorized),
    }
}

/// What the request asks for, as kube-apiserver's `RequestInfoFactory` parses it:
/// `/api/{version}/...` and `/apis/{group}/{version}/...` with a resource are resource
/// requests, everything else a path.
pub(crate) fn attributes(method: &Method, uri: &Uri) -> Attributes {
    let path = uri.path();
    let parts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let non_resource = || Attributes::NonResource {
        verb: method.as_str().to_lowercase(),
        path: path.to_owned(),
    };
    let (group, rest) = match parts.as_slice() {
        ["api", _version, rest @ ..] if !rest.is_empty() => ("", rest),
        ["apis", group, _version, rest @ ..] if !rest.is_empty() => (*group, rest),
        _ => return non_resource(),
    };
    let mut namespace = "";
    let mut rest = rest;
    if rest[0] == "namespaces" && rest.len() > 1 {
        namespace = rest[1];
        if rest.len() > 2 && !matches!(rest[2], "status" | "finalize") {
            rest = &rest[2..];
        }
    }
    let resource = rest[0];
    let mut name = rest.get(1).copied().unwrap_or_default().to_owned();
    let subresource = rest.get(2).map(|s| (*s).to_owned());
    let query: Query = QueryExtractor::try_from_uri(uri)
        .map(|q| q.0)
        .unwrap_or_default();
    let verb = match *method {
        Method::GET | Method::HEAD if name.is_empty() => {
            // A list or watch of one name (client-go's single-object informers) names it.
            if let Some(named) = query.get("fieldSelector").and_then(|s| exact_name(s)) {
                name = named;
            }
            let watch = matches!(query.get("watch").map(String::as_str), Some("true" | "1"));
            if watch { "watch" } else { "list" }
        }
        Method::GET | Method::HEAD => "get",
        Method::POST => "create",
        Method::PUT => "update",
        Method::PATCH => "patch",
        Method::DELETE if name.is_empty() => "deletecollection",
        Method::DELETE => "delete",
        _ => return non_resource(),
    };
    Attributes::Resource(ResourceAttributes {
        verb: verb.to_owned(),
        group: group.to_owned(),
        resource: resource.to_owned(),
        subresource,
        namespace: namespace.to_owned(),
        name,
    })
}

/// The name a field selector requires exactly (`metadata.name=x`, among other terms).
fn exact_name(selector: &str) -> Option<String> {
    selector.split(',').find_map(|term| {
        let value = term
            .strip_prefix("metadata.name==")
            .or_else(|| term.strip_prefix("metadata.name="))?;
        Some(value.to_owned()).filter(|v| !v.is_empty())
    })
}

/// Authenticates the request and, with RBAC on, authorizes it: the user (`None`: the
/// administrator), 401 for an unknown token, 403 for a denied request.
pub(crate) fn check(
    shared: &Shared,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
) -> ApiResult<Option<User>> {
    let user = authenticate(shared, headers)?;
    if let Some(user) = &user
        && shared.config.rbac
    {
        let request = attributes(method, uri);
        if !rbac::authorize(&shared.lock(), user, &request).allowed {
            tracing::debug!(user = user.name, ?request, "forbidden");
            return Err(rbac::forbidden(user, &request));
        }
    }
    Ok(user)
}

/// Whether the request creates a SelfSubjectAccessReview.
pub(crate) fn is_review(method: &Method, uri: &Uri) -> bool {
    let path = format!(
        "/apis/{}/{}/{}",
        review::GROUP,
        review::VERSION,
        review::PLURAL
    );
    method == Method::POST && uri.path().trim_end_matches('/') == path
}

/// Answers a SelfSubjectAccessReview for `user` (the administrator, or anyone with RBAC
/// off, may do everything); JSON and protobuf bodies are read, others are 415.
pub(crate) fn answer_review(
    shared: &Shared,
    user: Option<&User>,
    headers: &HeaderMap,
    body: &[u8],
) -> ApiResult<Value> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/json");
    let media = content_type.split(';').next().unwrap_or_default().trim();
    let asked: Value = match media {
        "application/json" | "" | "*/*" => serde_json::from_slice(body).map_err(|e| {
            ApiError::bad_request(format!("error decoding request body as JSON: {e}"))
        })?,
        protobuf::MEDIA_TYPE => protobuf::decode_self_subject_access_review(body).map_err(|e| {
            ApiError::bad_request(format!("error decoding request body as protobuf: {e}"))
        })?,
        _ => return Err(ApiError::unsupported_media_type(content_type)),
    };
    let request = review::attributes(&asked)?;
    let decision = match user {
        Some(user) if shared.config.rbac => rbac::authorize(&shared.lock(), user, &request),
        _ => Decision {
            allowed: true,
            reason: String::new(),
        },
    };
    Ok(review::answer(asked, &decision))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(method: Method, uri: &str) -> ResourceAttributes {
        match attributes(&method, &uri.parse().expect("uri")) {
            Attributes::Resource(r) => r,
            other => panic!("{uri}: {other:?}"),
        }
    }

    #[test]
    fn requests_parse_as_kube_apiservers_request_info() {
        let r = resource(Method::GET, "/api/v1/namespaces/ns/pods?watch=true");
        assert_eq!(
            (
                r.verb.as_str(),
                r.namespace.as_str(),
                r.resource.as_str(),
                r.name.as_str()
            ),
            ("watch", "ns", "pods", "")
        );
        let r = resource(
            Method::PUT,
            "/apis/apps/v1/namespaces/ns/deployments/d/status",
        );
        assert_eq!(
            (r.verb.as_str(), r.group.as_str(), r.subresource.as_deref()),
            ("update", "apps", Some("status"))
        );
        let r = resource(Method::DELETE, "/apis/apps/v1/namespaces/ns/deployments");
        assert_eq!(r.verb, "deletecollection");
        let r = resource(Method::GET, "/api/v1/namespaces/ns");
        assert_eq!(
            (r.resource.as_str(), r.namespace.as_str(), r.name.as_str()),
            ("namespaces", "ns", "ns"),
            "a namespace is in itself"
        );
        let r = resource(Method::GET, "/api/v1/namespaces");
        assert_eq!((r.verb.as_str(), r.namespace.as_str()), ("list", ""));
        let r = resource(Method::PUT, "/api/v1/namespaces/ns/finalize");
        assert_eq!(
            (r.name.as_str(), r.subresource.as_deref()),
            ("ns", Some("finalize"))
        );
        let r = resource(
            Method::GET,
            "/apis/coordination.k8s.io/v1/namespaces/ns/leases?fieldSelector=metadata.name%3Dlock",
        );
        assert_eq!((r.verb.as_str(), r.name.as_str()), ("list", "lock"));
        let r = resource(Method::GET, "/api/v1/pods");
        assert_eq!((r.verb.as_str(), r.namespace.as_str()), ("list", ""));
    }

    #[test]
    fn discovery_and_other_paths_are_non_resource_requests() {
        for path in [
            "/api",
            "/api/v1",
            "/apis/apps",
            "/apis/apps/v1",
            "/openapi/v2",
            "/healthz",
            "/version",
        ] {
            assert_eq!(
                attributes(&Method::GET, &path.parse().expect("uri")),
                Attributes::NonResource {
                    verb: "get".into(),
                    path: path.into()
                },
            );
        }
    }
}
