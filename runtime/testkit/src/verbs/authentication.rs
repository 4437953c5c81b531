//! The `authentication.k8s.io/v1` reviews, answered from the minted tokens and never
//! stored: TokenReview ("who is this token?", how a webhook or a proxy such as
//! kube-rbac-proxy authenticates its callers) and SelfSubjectReview ("who am I?",
//! `kubectl auth whoami`).

use serde_json::{Value, json};

use crate::store::status::{ApiError, ApiResult, Cause};
use crate::store::tokens::{AUTHENTICATED, Tokens, User};

/// The group and version of the reviews.
pub(crate) const GROUP: &str = "authentication.k8s.io";
pub(crate) const VERSION: &str = "v1";

/// The user the administrator (a request without a token) is, as a kubeadm cluster's
/// admin kubeconfig names it.
const ADMIN: &str = "kubernetes-admin";

/// Which review a request creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Review {
    /// TokenReview.
    Token,
    /// SelfSubjectReview.
    SelfSubject,
}

impl Review {
    /// The review created by a POST to the cluster-scoped `plural`.
    pub(crate) fn of(plural: &str) -> Option<Self> {
        match plural {
            "tokenreviews" => Some(Review::Token),
            "selfsubjectreviews" => Some(Review::SelfSubject),
            _ => None,
        }
    }

    /// The review's kind.
    pub(crate) fn kind(self) -> &'static str {
        match self {
            Review::Token => "TokenReview",
            Review::SelfSubject => "SelfSubjectReview",
        }
    }
}

/// `userInfo` as the reviews write it: username and groups (no uid: the testkit serves
/// no ServiceAccount objects whose uid kube-apiserver's authenticator would give).
fn user_info(user: &User) -> Value {
    json!({"username": user.name, "groups": user.groups})
}

/// The review as answered: the request's object (or a new one) with `status`.
fn answered(mut review: Value, kind: Review, status: Value) -> Value {
    if !review.is_object() {
        review = json!({});
    }
    review["apiVersion"] = json!(format!("{GROUP}/{VERSION}"));
    review["kind"] = json!(kind.kind());
    if !review.get("metadata").is_some_and(Value::is_object) {
        review["metadata"] = json!({});
    }
    review["status"] = status;
    review
}

/// Answers a TokenReview: `status.authenticated` and `status.user` for a token the server
/// minted, `authenticated: false` for any other; 422 without `spec.token`.
pub(crate) fn token_review(tokens: &Tokens, review: Value) -> ApiResult<Value> {
    let token = review
        .pointer("/spec/token")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if token.is_empty() {
        let cause = Cause::invalid("spec.token", &json!(""), "token must be specified");
        return Err(ApiError::invalid(
            GROUP,
            Review::Token.kind(),
            "",
            vec![cause],
        ));
    }
    let status = match tokens.user(token) {
        Some(user) => json!({
            "authenticated": true,
            "user": user_info(user),
            "audiences": review.pointer("/spec/audiences").cloned().unwrap_or(json!([])),
        }),
        None => json!({"authenticated": false, "user": {}}),
    };
    Ok(answered(review, Review::Token, status))
}

/// Answers a SelfSubjectReview: `status.userInfo` of the requesting user; the
/// administrator is `kubernetes-admin` in `system:masters` and `system:authenticated`.
pub(crate) fn self_subject_review(user: Option<&User>, review: Value) -> Value {
    let admin;
    let user = match user {
        Some(user) => user,
        None => {
            admin = User {
                name: ADMIN.to_owned(),
                groups: vec!["system:masters".to_owned(), AUTHENTICATED.to_owned()],
            };
            &admin
        }
    };
    let status = json!({"userInfo": user_info(user)});
    answered(review, Review::SelfSubject, status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reviews_are_told_apart_by_plural() {
        assert_eq!(Review::of("tokenreviews"), Some(Review::Token));
        assert_eq!(Review::of("selfsubjectreviews"), Some(Review::SelfSubject));
        assert_eq!(Review::of("tokenrequests"), None);
    }

    #[test]
    fn a_minted_token_is_its_service_account_and_another_is_nobody() {
        let mut tokens = Tokens::default();
        let token = tokens.mint("ns1", "sa");
        let review = json!({"spec": {"token": token}});
        let answer = token_review(&tokens, review).expect("answered");
        assert_eq!(answer["kind"], "TokenReview");
        assert_eq!(answer["status"]["authenticated"], true);
        assert_eq!(
            answer["status"]["user"]["username"],
            "system:serviceaccount:ns1:sa"
        );
        assert_eq!(
            answer["status"]["user"]["groups"],
            json!([
                "system:serviceaccounts",
                "system:serviceaccounts:ns1",
                "system:authenticated"
            ])
        );
        let unknown = json!({"spec": {"token": "kubegen-testkit.nope"}});
        let answer = token_review(&tokens, unknown).expect("answered");
        assert_eq!(answer["status"]["authenticated"], false);
        let empty = token_review(&tokens, json!({"spec": {}})).expect_err("no token");
        assert_eq!(empty.code, 422);
    }

    #[test]
    fn who_am_i_is_the_caller_or_the_administrator() {
        let user = User::service_account("ns1", "sa");
        let answer = self_subject_review(Some(&user), json!({}));
        assert_eq!(answer["kind"], "SelfSubjectReview");
        assert_eq!(
            answer["status"]["userInfo"]["username"],
            "system:serviceaccount:ns1:sa"
        );
        let admin = self_subject_review(None, json!({}));
        assert_eq!(admin["status"]["userInfo"]["username"], ADMIN);
    }
}
