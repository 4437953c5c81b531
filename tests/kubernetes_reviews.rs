//! The built-in clientset's create-only reviews (`authorization_v1()`,
//! `authentication_v1()`) against the testkit with RBAC on: access and rules reviews decided by
//! the stored Role and RoleBinding, TokenReviews of minted and unknown tokens, and
//! SelfSubjectReviews of the caller, through `kubegen::kubernetes::clientset::Clientset`.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

use k8s_openapi::api::authentication::v1::{SelfSubjectReview, TokenReview, TokenReviewSpec};
use k8s_openapi::api::authorization::v1::{
    LocalSubjectAccessReview, ResourceAttributes, SelfSubjectAccessReview,
    SelfSubjectAccessReviewSpec, SelfSubjectRulesReview, SelfSubjectRulesReviewSpec,
    SubjectAccessReview, SubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::rbac::v1::{PolicyRule, Role, RoleBinding, RoleRef, Subject};
use kube::api::ObjectMeta;
use kubegen::kubernetes::clientset::Clientset;
use kubegen::testkit::ApiServer;

/// The ServiceAccount the reviews ask about, and its user.
const SA: (&str, &str) = ("ns1", "sa");
const SA_USER: &str = "system:serviceaccount:ns1:sa";

fn meta(namespace: Option<&str>, name: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_owned()),
        namespace: namespace.map(str::to_owned),
        ..ObjectMeta::default()
    }
}

/// The testkit with RBAC on, namespaces `ns1` and `ns2`, and `ns1/sa` bound to a Role
/// that allows `get configmaps` in `ns1`; the administrator's clientset.
async fn server() -> (ApiServer, Clientset) {
    let server = ApiServer::builder().rbac(true).start().await.unwrap();
    let admin = Clientset::new(server.client());
    for namespace in ["ns1", "ns2"] {
        let object = Namespace {
            metadata: meta(None, namespace),
            ..Namespace::default()
        };
        admin.core_v1().namespaces().create(&object).await.unwrap();
    }
    let role = Role {
        metadata: meta(Some("ns1"), "configmap-reader"),
        rules: Some(vec![PolicyRule {
            api_groups: Some(vec![String::new()]),
            resources: Some(vec!["configmaps".to_owned()]),
            verbs: vec!["get".to_owned()],
            ..PolicyRule::default()
        }]),
    };
    let rbac = admin.rbac_v1();
    rbac.roles("ns1").create(&role).await.unwrap();
    let binding = RoleBinding {
        metadata: meta(Some("ns1"), "read-configmaps"),
        role_ref: RoleRef {
            api_group: Some("rbac.authorization.k8s.io".to_owned()),
            kind: "Role".to_owned(),
            name: "configmap-reader".to_owned(),
        },
        subjects: Some(vec![Subject {
            kind: "ServiceAccount".to_owned(),
            name: SA.1.to_owned(),
            namespace: Some(SA.0.to_owned()),
            ..Subject::default()
        }]),
    };
    rbac.role_bindings("ns1").create(&binding).await.unwrap();
    (server, admin)
}

fn get_configmaps(namespace: &str) -> ResourceAttributes {
    ResourceAttributes {
        verb: Some("get".to_owned()),
        resource: Some("configmaps".to_owned()),
        namespace: Some(namespace.to_owned()),
        ..ResourceAttributes::default()
    }
}

/// The allowed reason kube-apiserver's RBAC authorizer gives for the fixture's binding.
const ALLOWED_BY: &str = "RBAC: allowed by RoleBinding \"read-configmaps/ns1\" of Role \"configmap-reader\" to ServiceAccount \"sa/ns1\"";

#[tokio::test]
async fn subject_access_reviews_follow_the_stored_roles() {
    let (_server, admin) = server().await;
    let reviews = admin.authorization_v1();
    let ask = |namespace: &str| SubjectAccessReview {
        spec: SubjectAccessReviewSpec {
            user: Some(SA_USER.to_owned()),
            groups: Some(vec![
                "system:serviceaccounts".to_owned(),
                "system:serviceaccounts:ns1".to_owned(),
                "system:authenticated".to_owned(),
            ]),
            resource_attributes: Some(get_configmaps(namespace)),
            ..SubjectAccessReviewSpec::default()
        },
        ..SubjectAccessReview::default()
    };
    let allowed = reviews
        .subject_access_reviews()
        .create(&ask("ns1"))
        .await
        .unwrap();
    let status = allowed.status.unwrap();
    assert!(status.allowed);
    assert_eq!(status.reason.as_deref(), Some(ALLOWED_BY));

    let denied = reviews
        .subject_access_reviews()
        .create(&ask("ns2"))
        .await
        .unwrap();
    let status = denied.status.unwrap();
    assert!(!status.allowed);
    // kube-apiserver's RBAC authorizer has no opinion, and no reason, when no rule matches.
    assert_eq!(status.reason, None);
    assert_eq!(status.denied, None);

    // The local review is in its path's namespace, whatever its attributes leave out.
    let local = |namespace: &str| LocalSubjectAccessReview {
        metadata: meta(Some(namespace), ""),
        spec: SubjectAccessReviewSpec {
            user: Some(SA_USER.to_owned()),
            resource_attributes: Some(ResourceAttributes {
                namespace: None,
                ..get_configmaps("")
            }),
            ..SubjectAccessReviewSpec::default()
        },
        ..LocalSubjectAccessReview::default()
    };
    for (namespace, expected) in [("ns1", true), ("ns2", false)] {
        let answer = reviews
            .local_subject_access_reviews(namespace)
            .create(&local(namespace))
            .await
            .unwrap();
        assert_eq!(answer.status.unwrap().allowed, expected, "{namespace}");
    }
}

#[tokio::test]
async fn a_service_account_reviews_itself() {
    let (server, _admin) = server().await;
    let sa = Clientset::new(server.service_account_client(SA.0, SA.1).unwrap());
    let ask = |namespace: &str| SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(get_configmaps(namespace)),
            ..SelfSubjectAccessReviewSpec::default()
        },
        ..SelfSubjectAccessReview::default()
    };
    let reviews = sa.authorization_v1();
    let clients = reviews.self_subject_access_reviews();
    let here = clients.create(&ask("ns1")).await.unwrap();
    let status = here.status.unwrap();
    assert!(status.allowed);
    assert_eq!(status.reason.as_deref(), Some(ALLOWED_BY));
    let there = clients.create(&ask("ns2")).await.unwrap();
    assert!(!there.status.unwrap().allowed);

    // Who am I: the ServiceAccount's user, as `kubectl auth whoami` shows it.
    let me = sa
        .authentication_v1()
        .self_subject_reviews()
        .create(&SelfSubjectReview::default())
        .await
        .unwrap();
    let info = me.status.unwrap().user_info.unwrap();
    assert_eq!(info.username.as_deref(), Some(SA_USER));
    assert!(
        info.groups
            .unwrap()
            .contains(&"system:serviceaccounts:ns1".to_owned())
    );

    // What may I do: the Role's rule in ns1 (beside the default roles'), not in ns2.
    let rules_in = |namespace: &str| SelfSubjectRulesReview {
        spec: SelfSubjectRulesReviewSpec {
            namespace: Some(namespace.to_owned()),
        },
        ..SelfSubjectRulesReview::default()
    };
    let rules = reviews.self_subject_rules_reviews();
    let reads_configmaps = |review: SelfSubjectRulesReview| {
        let status = review.status.unwrap();
        assert!(!status.incomplete);
        status.resource_rules.iter().any(|rule| {
            rule.verbs == ["get"] && rule.resources.as_deref() == Some(&["configmaps".to_owned()])
        })
    };
    assert!(reads_configmaps(
        rules.create(&rules_in("ns1")).await.unwrap()
    ));
    assert!(!reads_configmaps(
        rules.create(&rules_in("ns2")).await.unwrap()
    ));

    // A SubjectAccessReview needs `create subjectaccessreviews`, which `sa` lacks.
    let review = SubjectAccessReview {
        spec: SubjectAccessReviewSpec {
            user: Some(SA_USER.to_owned()),
            resource_attributes: Some(get_configmaps("ns1")),
            ..SubjectAccessReviewSpec::default()
        },
        ..SubjectAccessReview::default()
    };
    let refused = reviews.subject_access_reviews().create(&review).await;
    let error = refused.expect_err("forbidden");
    assert_eq!(error.status().map(|s| s.code), Some(403), "{error}");
}

#[tokio::test]
async fn token_reviews_authenticate_minted_tokens_only() {
    let (server, admin) = server().await;
    let token = server.service_account_token(SA.0, SA.1);
    let review = |token: String| TokenReview {
        spec: TokenReviewSpec {
            token,
            ..TokenReviewSpec::default()
        },
        ..TokenReview::default()
    };
    let tokens = admin.authentication_v1();
    let answer = tokens.token_reviews().create(&review(token)).await.unwrap();
    let status = answer.status.unwrap();
    assert_eq!(status.authenticated, Some(true));
    let user = status.user.unwrap();
    assert_eq!(user.username.as_deref(), Some(SA_USER));
    // The testkit serves no ServiceAccount objects, so there is no uid to give.
    assert_eq!(user.uid, None);
    assert_eq!(
        user.groups.unwrap(),
        [
            "system:serviceaccounts",
            "system:serviceaccounts:ns1",
            "system:authenticated"
        ]
    );

    let unknown = tokens
        .token_reviews()
        .create(&review("kubegen-testkit.unknown".to_owned()))
        .await
        .unwrap();
    let status = unknown.status.unwrap();
    assert_eq!(status.authenticated, Some(false));
    assert_eq!(status.user.and_then(|u| u.username), None);
}
