//! The `authorization.k8s.io/v1` access reviews, answered by the authorizer and never
//! stored: SelfSubjectAccessReview ("may I do this?", for the requesting user: `kubectl
//! auth can-i`), SubjectAccessReview ("may this user do this?", for `spec.user` and
//! `spec.groups`: how a proxy such as kube-rbac-proxy authorizes its callers) and
//! LocalSubjectAccessReview (the same, in the namespace of its path only); and
//! SelfSubjectRulesReview ("what may I do in this namespace?": `kubectl auth can-i
//! --list`), from the rules bound to the requesting user.

use serde_json::{Value, json};

use super::{Attributes, Decision, ResourceAttributes, Rule};
use crate::store::status::{ApiError, ApiResult, Cause};
use crate::store::tokens::User;

/// The group and version of the reviews.
pub(crate) const GROUP: &str = "authorization.k8s.io";
pub(crate) const VERSION: &str = "v1";
/// The plural of SelfSubjectAccessReviews.
pub(crate) const PLURAL: &str = "selfsubjectaccessreviews";

/// Which access review a request creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Review {
    /// SelfSubjectAccessReview: for the requesting user.
    SelfSubject,
    /// SubjectAccessReview: for the user the review names.
    Subject,
    /// LocalSubjectAccessReview: for the user the review names, in the path's namespace.
    LocalSubject,
}

impl Review {
    /// The review created by a POST to `plural` (namespaced: under `namespaces/x/`).
    pub(crate) fn of(plural: &str, namespaced: bool) -> Option<Self> {
        match (plural, namespaced) {
            (PLURAL, false) => Some(Review::SelfSubject),
            ("subjectaccessreviews", false) => Some(Review::Subject),
            ("localsubjectaccessreviews", true) => Some(Review::LocalSubject),
            _ => None,
        }
    }

    /// The review's kind.
    pub(crate) fn kind(self) -> &'static str {
        match self {
            Review::SelfSubject => "SelfSubjectAccessReview",
            Review::Subject => "SubjectAccessReview",
            Review::LocalSubject => "LocalSubjectAccessReview",
        }
    }
}

/// The plural of SelfSubjectRulesReviews.
pub(crate) const RULES_PLURAL: &str = "selfsubjectrulesreviews";

/// The namespace a SelfSubjectRulesReview asks about (`spec.namespace`); 400 without
/// one, as kube-apiserver answers.
pub(crate) fn rules_namespace(review: &Value) -> ApiResult<String> {
    review
        .pointer("/spec/namespace")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| ApiError::bad_request("no namespace on request"))
}

/// A SelfSubjectRulesReview answered with `rules` (`None`: everything, the administrator's
/// and everyone's with RBAC off): `status.resourceRules` and `status.nonResourceRules`,
/// complete.
pub(crate) fn answer_rules(mut review: Value, rules: Option<&[Rule]>) -> Value {
    let strings = |items: &[String]| json!(items);
    let (resource_rules, non_resource_rules): (Vec<Value>, Vec<Value>) = match rules {
        None => (
            vec![json!({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]})],
            vec![json!({"verbs": ["*"], "nonResourceURLs": ["*"]})],
        ),
        Some(rules) => (
            rules
                .iter()
                .filter(|r| !r.resources.is_empty())
                .map(|r| {
                    let mut rule = json!({
                        "verbs": strings(&r.verbs),
                        "apiGroups": strings(&r.api_groups),
                        "resources": strings(&r.resources),
                    });
                    if !r.resource_names.is_empty() {
                        rule["resourceNames"] = strings(&r.resource_names);
                    }
                    rule
                })
                .collect(),
            rules
                .iter()
                .filter(|r| !r.non_resource_urls.is_empty())
                .map(|r| {
                    json!({"verbs": strings(&r.verbs), "nonResourceURLs": strings(&r.non_resource_urls)})
                })
                .collect(),
        ),
    };
    review["apiVersion"] = json!(format!("{GROUP}/{VERSION}"));
    review["kind"] = json!("SelfSubjectRulesReview");
    if !review.get("metadata").is_some_and(Value::is_object) {
        review["metadata"] = json!({});
    }
    review["status"] = json!({
        "resourceRules": resource_rules,
        "nonResourceRules": non_resource_rules,
        "incomplete": false,
    });
    review
}

/// The user a SubjectAccessReview or LocalSubjectAccessReview asks about: `spec.user` in
/// `spec.groups` (nothing is added: a review for a ServiceAccount lists its groups, as
/// kube-apiserver's webhook token authenticator and kube-rbac-proxy do); 422 without
/// either.
pub(crate) fn subject(review: &Value, kind: Review) -> ApiResult<User> {
    let spec = review.get("spec");
    let name = spec
        .and_then(|s| s.get("user"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let groups: Vec<String> = spec
        .and_then(|s| s.get("groups"))
        .and_then(Value::as_array)
        .map(|groups| {
            groups
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if name.is_empty() && groups.is_empty() {
        let cause = Cause::invalid(
            "spec.user",
            &json!(""),
            "at least one of user or group must be specified",
        );
        return Err(ApiError::invalid(GROUP, kind.kind(), "", vec![cause]));
    }
    Ok(User { name, groups })
}

/// A LocalSubjectAccessReview's attributes in the namespace of its path: a resource
/// review whose namespace is empty takes it, another namespace is 400 and a non-resource
/// review 422, as kube-apiserver answers them.
pub(crate) fn local(request: Attributes, namespace: &str) -> ApiResult<Attributes> {
    match request {
        Attributes::Resource(mut resource) => {
            if resource.namespace.is_empty() {
                resource.namespace = namespace.to_owned();
            }
            if resource.namespace != namespace {
                return Err(ApiError::bad_request(format!(
                    "spec.resourceAttributes.namespace must match namespace: {namespace}"
                )));
            }
            Ok(Attributes::Resource(resource))
        }
        Attributes::NonResource { .. } => {
            let cause = Cause::invalid(
                "spec.nonResourceAttributes",
                &json!(true),
                "disallowed on this kind of request",
            );
            Err(ApiError::invalid(
                GROUP,
                Review::LocalSubject.kind(),
                "",
                vec![cause],
            ))
        }
    }
}

/// What a review asks about: exactly one of `spec.resourceAttributes` and
/// `spec.nonResourceAttributes`, else 422 Invalid.
pub(crate) fn attributes(review: &Value, kind: Review) -> ApiResult<Attributes> {
    let spec = review.get("spec");
    let resource = spec
        .and_then(|s| s.get("resourceAttributes"))
        .filter(|v| v.is_object());
    let non_resource = spec
        .and_then(|s| s.get("nonResourceAttributes"))
        .filter(|v| v.is_object());
    let text = |value: &Value, field: &str| {
        value
            .get(field)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    match (resource, non_resource) {
        (Some(r), None) => Ok(Attributes::Resource(ResourceAttributes {
            verb: text(r, "verb"),
            group: text(r, "group"),
            resource: text(r, "resource"),
            subresource: Some(text(r, "subresource")).filter(|s| !s.is_empty()),
            namespace: text(r, "namespace"),
            name: text(r, "name"),
        })),
        (None, Some(n)) => Ok(Attributes::NonResource {
            verb: text(n, "verb"),
            path: text(n, "path"),
        }),
        (resource, _) => {
            let given = json!({
                "resourceAttributes": resource.is_some(),
                "nonResourceAttributes": non_resource.is_some(),
            });
            let cause = Cause::invalid(
                "spec.resourceAttributes",
                &given,
                "exactly one of nonResourceAttributes or resourceAttributes must be specified",
            );
            Err(ApiError::invalid(GROUP, kind.kind(), "", vec![cause]))
        }
    }
}

/// The review answered: the request's object with its `status` set.
pub(crate) fn answer(mut review: Value, kind: Review, decision: &Decision) -> Value {
    let mut status = json!({"allowed": decision.allowed});
    if !decision.reason.is_empty() {
        status["reason"] = json!(decision.reason);
    }
    review["apiVersion"] = json!(format!("{GROUP}/{VERSION}"));
    review["kind"] = json!(kind.kind());
    if !review.get("metadata").is_some_and(Value::is_object) {
        review["metadata"] = json!({});
    }
    review["status"] = status;
    review
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_review_asks_about_a_resource_or_a_path_never_both() {
        let review = json!({"spec": {"resourceAttributes": {"verb": "update", "group": "apps", "resource": "deployments", "subresource": "status", "namespace": "ns"}}});
        let Ok(Attributes::Resource(resource)) = attributes(&review, Review::SelfSubject) else {
            panic!("a resource review");
        };
        assert_eq!(resource.subresource.as_deref(), Some("status"));
        assert_eq!(
            (resource.namespace.as_str(), resource.name.as_str()),
            ("ns", "")
        );
        let path = json!({"spec": {"nonResourceAttributes": {"verb": "get", "path": "/healthz"}}});
        assert_eq!(
            attributes(&path, Review::SelfSubject).ok(),
            Some(Attributes::NonResource {
                verb: "get".into(),
                path: "/healthz".into()
            })
        );
        let neither = attributes(&json!({"spec": {}}), Review::Subject).expect_err("neither");
        assert_eq!(neither.code, 422);
        let both = json!({"spec": {"resourceAttributes": {}, "nonResourceAttributes": {}}});
        assert_eq!(
            attributes(&both, Review::SelfSubject)
                .expect_err("both")
                .code,
            422
        );
    }

    #[test]
    fn the_answer_is_the_review_with_its_status() {
        let decision = Decision {
            allowed: false,
            reason: String::new(),
        };
        let answered = answer(json!({"spec": {}}), Review::Subject, &decision);
        assert_eq!(answered["status"], json!({"allowed": false}));
        assert_eq!(answered["kind"], "SubjectAccessReview");
        assert_eq!(answered["apiVersion"], "authorization.k8s.io/v1");
    }

    #[test]
    fn reviews_are_told_apart_by_plural_and_scope() {
        assert_eq!(Review::of(PLURAL, false), Some(Review::SelfSubject));
        assert_eq!(
            Review::of("subjectaccessreviews", false),
            Some(Review::Subject)
        );
        assert_eq!(
            Review::of("localsubjectaccessreviews", true),
            Some(Review::LocalSubject)
        );
        assert_eq!(Review::of("localsubjectaccessreviews", false), None);
        assert_eq!(Review::of("subjectaccessreviews", true), None);
    }

    #[test]
    fn a_subject_review_names_its_user_and_groups() {
        let review = json!({"spec": {"user": "system:serviceaccount:ns1:sa", "groups": ["system:authenticated"]}});
        let user = subject(&review, Review::Subject).expect("a subject");
        assert_eq!(user.name, "system:serviceaccount:ns1:sa");
        assert_eq!(user.groups, ["system:authenticated"]);
        let nobody = subject(&json!({"spec": {}}), Review::Subject).expect_err("nobody");
        assert_eq!(nobody.code, 422);
    }

    #[test]
    fn a_local_review_is_in_the_namespace_of_its_path() {
        let asked = |namespace: &str| {
            Attributes::Resource(ResourceAttributes {
                verb: "get".into(),
                group: String::new(),
                resource: "configmaps".into(),
                subresource: None,
                namespace: namespace.into(),
                name: String::new(),
            })
        };
        assert_eq!(local(asked(""), "ns1").ok(), Some(asked("ns1")));
        assert_eq!(local(asked("ns1"), "ns1").ok(), Some(asked("ns1")));
        assert_eq!(local(asked("ns2"), "ns1").expect_err("other").code, 400);
        let path = Attributes::NonResource {
            verb: "get".into(),
            path: "/metrics".into(),
        };
        assert_eq!(local(path, "ns1").expect_err("a path").code, 422);
    }

    #[test]
    fn a_rules_review_lists_resource_and_path_rules_apart() {
        let rules = [
            Rule {
                verbs: vec!["get".into()],
                api_groups: vec![String::new()],
                resources: vec!["configmaps".into()],
                ..Rule::default()
            },
            Rule {
                verbs: vec!["get".into()],
                non_resource_urls: vec!["/healthz".into()],
                ..Rule::default()
            },
        ];
        let answer = answer_rules(json!({"spec": {"namespace": "ns1"}}), Some(&rules));
        assert_eq!(answer["kind"], "SelfSubjectRulesReview");
        assert_eq!(
            answer["status"]["resourceRules"],
            json!([{"verbs": ["get"], "apiGroups": [""], "resources": ["configmaps"]}])
        );
        assert_eq!(
            answer["status"]["nonResourceRules"],
            json!([{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}])
        );
        let everything = answer_rules(json!({}), None);
        assert_eq!(
            everything["status"]["resourceRules"][0]["resources"],
            json!(["*"])
        );
        assert_eq!(
            rules_namespace(&json!({"spec": {}}))
                .expect_err("none")
                .code,
            400
        );
    }
}
