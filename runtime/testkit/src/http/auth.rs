//! Authentication and authorization of each request, before it is routed: who sends it
//! (a bearer token the server minted, or nobody: the administrator), what it asks for
//! (kube-apiserver's `RequestInfo`, parsed from the method, path and query alone), and,
//! with RBAC on, whether that user may. Also answers the reviews, created and never
//! stored: the access reviews of `authorization.k8s.io` (`verbs/rbac/review.rs`) and
//! TokenReviews and SelfSubjectReviews of `authentication.k8s.io`
//! (`verbs/authentication.rs`), some of which need the requesting user.

use axum::extract::Query as QueryExtractor;
use axum::http::{HeaderMap, Method, Uri, header};
use serde_json::Value;

use crate::http::protobuf;
use crate::store::shared::Shared;
use crate::store::status::{ApiError, ApiResult};
use crate::store::tokens::User;
use crate::verbs::authentication;
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

/// A review a request creates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Review {
    /// An access review of `authorization.k8s.io`, with the namespace of its path.
    Access(review::Review, String),
    /// A SelfSubjectRulesReview.
    Rules,
    /// A review of `authentication.k8s.io`.
    Authentication(authentication::Review),
}

/// The review the request creates, if it is a POST of one.
pub(crate) fn review_of(method: &Method, uri: &Uri) -> Option<Review> {
    if method != Method::POST {
        return None;
    }
    let parts: Vec<&str> = uri.path().split('/').filter(|s| !s.is_empty()).collect();
    match parts.as_slice() {
        ["apis", review::GROUP, review::VERSION, review::RULES_PLURAL] => Some(Review::Rules),
        ["apis", review::GROUP, review::VERSION, plural] => {
            review::Review::of(plural, false).map(|r| Review::Access(r, String::new()))
        }
        [
            "apis",
            review::GROUP,
            review::VERSION,
            "namespaces",
            namespace,
            plural,
        ] => review::Review::of(plural, true).map(|r| Review::Access(r, (*namespace).to_owned())),
        [
            "apis",
            authentication::GROUP,
            authentication::VERSION,
            plural,
        ] => authentication::Review::of(plural).map(Review::Authentication),
        _ => None,
    }
}

/// The body of a review: JSON, or protobuf where kubectl sends it: a
/// SelfSubjectAccessReview (`kubectl auth can-i`) is decoded, and a SelfSubjectReview
/// (`kubectl auth whoami`), which has nothing but metadata to ask with, is read as an
/// empty review; others are 415.
fn review_body(headers: &HeaderMap, body: &[u8], kind: &Review) -> ApiResult<Value> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/json");
    let media = content_type.split(';').next().unwrap_or_default().trim();
    match (media, kind) {
        ("application/json" | "" | "*/*", _) => serde_json::from_slice(body).map_err(|e| {
            ApiError::bad_request(format!("error decoding request body as JSON: {e}"))
        }),
        (protobuf::MEDIA_TYPE, Review::Access(review::Review::SelfSubject, _)) => {
            protobuf::decode_self_subject_access_review(body).map_err(|e| {
                ApiError::bad_request(format!("error decoding request body as protobuf: {e}"))
            })
        }
        (protobuf::MEDIA_TYPE, Review::Authentication(authentication::Review::SelfSubject)) => {
            Ok(Value::Object(serde_json::Map::new()))
        }
        _ => Err(ApiError::unsupported_media_type(content_type)),
    }
}

/// Answers `kind` for `user` (the requester, `None` for the administrator). An access
/// review asks the RBAC authorizer about its subject (the requester for a
/// SelfSubjectAccessReview: the administrator, and anyone with RBAC off, may do
/// everything; the user it names for the others, whom RBAC decides for whenever it is
/// on).
pub(crate) fn answer_review(
    shared: &Shared,
    user: Option<&User>,
    kind: &Review,
    headers: &HeaderMap,
    body: &[u8],
) -> ApiResult<Value> {
    let asked = review_body(headers, body, kind)?;
    match kind {
        Review::Authentication(authentication::Review::Token) => {
            authentication::token_review(&shared.tokens(), asked)
        }
        Review::Authentication(authentication::Review::SelfSubject) => {
            Ok(authentication::self_subject_review(user, asked))
        }
        Review::Rules => {
            let namespace = review::rules_namespace(&asked)?;
            Ok(match user {
                Some(user) if shared.config.rbac => {
                    let rules = rbac::rules_of(&shared.lock(), user, &namespace);
                    review::answer_rules(asked, Some(&rules))
                }
                _ => review::answer_rules(asked, None),
            })
        }
        Review::Access(access, namespace) => {
            let mut request = review::attributes(&asked, *access)?;
            if *access == review::Review::LocalSubject {
                request = review::local(request, namespace)?;
            }
            let allow_all = Decision {
                allowed: true,
                reason: String::new(),
            };
            let decision = match access {
                review::Review::SelfSubject => match user {
                    Some(user) if shared.config.rbac => {
                        rbac::authorize(&shared.lock(), user, &request)
                    }
                    _ => allow_all,
                },
                review::Review::Subject | review::Review::LocalSubject => {
                    let subject = review::subject(&asked, *access)?;
                    if shared.config.rbac {
                        rbac::authorize(&shared.lock(), &subject, &request)
                    } else {
                        allow_all
                    }
                }
            };
            Ok(review::answer(asked, *access, &decision))
        }
    }
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
    fn posts_of_reviews_are_told_apart() {
        let of = |method: Method, uri: &str| review_of(&method, &uri.parse().expect("uri"));
        assert_eq!(
            of(
                Method::POST,
                "/apis/authorization.k8s.io/v1/subjectaccessreviews"
            ),
            Some(Review::Access(review::Review::Subject, String::new()))
        );
        assert_eq!(
            of(
                Method::POST,
                "/apis/authorization.k8s.io/v1/namespaces/ns1/localsubjectaccessreviews"
            ),
            Some(Review::Access(review::Review::LocalSubject, "ns1".into()))
        );
        assert_eq!(
            of(Method::POST, "/apis/authentication.k8s.io/v1/tokenreviews"),
            Some(Review::Authentication(authentication::Review::Token))
        );
        assert_eq!(
            of(Method::GET, "/apis/authentication.k8s.io/v1/tokenreviews"),
            None
        );
        assert_eq!(of(Method::POST, "/api/v1/namespaces/ns1/configmaps"), None);
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
