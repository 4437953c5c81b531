//! `authorization.k8s.io/v1` SelfSubjectAccessReview: "may I do this?", answered by the
//! authorizer for the requesting user (`kubectl auth can-i`). Reviews are not stored.

use serde_json::{Value, json};

use super::{Attributes, Decision, ResourceAttributes};
use crate::store::status::{ApiError, ApiResult, Cause};

/// The group, version and plural of the review.
pub(crate) const GROUP: &str = "authorization.k8s.io";
pub(crate) const VERSION: &str = "v1";
pub(crate) const PLURAL: &str = "selfsubjectaccessreviews";

/// What a review asks about: exactly one of `spec.resourceAttributes` and
/// `spec.nonResourceAttributes`, else 422 Invalid.
pub(crate) fn attributes(review: &Value) -> ApiResult<Attributes> {
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
            Err(ApiError::invalid(
                GROUP,
                "SelfSubjectAccessReview",
                "",
                vec![cause],
            ))
        }
    }
}

/// The review answered: the request's object with its `status` set.
pub(crate) fn answer(mut review: Value, decision: &Decision) -> Value {
    let mut status = json!({"allowed": decision.allowed});
    if !decision.reason.is_empty() {
        status["reason"] = json!(decision.reason);
    }
    review["apiVersion"] = json!(format!("{GROUP}/{VERSION}"));
    review["kind"] = json!("SelfSubjectAccessReview");
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
        let Ok(Attributes::Resource(resource)) = attributes(&review) else {
            panic!("a resource review");
        };
        assert_eq!(resource.subresource.as_deref(), Some("status"));
        assert_eq!(
            (resource.namespace.as_str(), resource.name.as_str()),
            ("ns", "")
        );
        let path = json!({"spec": {"nonResourceAttributes": {"verb": "get", "path": "/healthz"}}});
        assert_eq!(
            attributes(&path).ok(),
            Some(Attributes::NonResource {
                verb: "get".into(),
                path: "/healthz".into()
            })
        );
        let neither = attributes(&json!({"spec": {}})).expect_err("neither");
        assert_eq!(neither.code, 422);
        let both = json!({"spec": {"resourceAttributes": {}, "nonResourceAttributes": {}}});
        assert_eq!(attributes(&both).expect_err("both").code, 422);
    }

    #[test]
    fn the_answer_is_the_review_with_its_status() {
        let decision = Decision {
            allowed: false,
            reason: String::new(),
        };
        let answered = answer(json!({"spec": {}}), &decision);
        assert_eq!(answered["status"], json!({"allowed": false}));
        assert_eq!(answered["kind"], "SelfSubjectAccessReview");
        assert_eq!(answered["apiVersion"], "authorization.k8s.io/v1");
    }
}
