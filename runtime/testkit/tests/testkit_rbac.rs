//! ServiceAccount tokens and RBAC: who a request is, and what the stored Roles,
//! ClusterRoles and their bindings let it do, with kube-apiserver's 401 and 403 answers.

mod testkit_support;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use kubegen_testkit::ApiServer;
use serde_json::{Value, json};
use testkit_support::{api_error, configmap, create_namespace, deployment, raw_with};

/// A server with RBAC on, a namespace `other`, and a client as `default/ctl`.
async fn rbac_server() -> (ApiServer, kube::Client) {
    let server = ApiServer::builder()
        .rbac(true)
        .start()
        .await
        .expect("start");
    create_namespace(&server, "other").await;
    let client = server
        .service_account_client("default", "ctl")
        .expect("client");
    (server, client)
}

/// Stores an RBAC object through the administrator's client.
async fn admin_create(server: &ApiServer, object: Value) {
    let kind = object["kind"].as_str().expect("kind").to_owned();
    let namespace = object["metadata"]["namespace"].as_str().map(str::to_owned);
    let client = server.client();
    let pp = PostParams::default();
    let done = match (kind.as_str(), namespace) {
        ("Role", Some(ns)) => Api::<Role>::namespaced(client, &ns)
            .create(&pp, &serde_json::from_value(object).expect("role"))
            .await
            .map(drop),
        ("RoleBinding", Some(ns)) => Api::<RoleBinding>::namespaced(client, &ns)
            .create(&pp, &serde_json::from_value(object).expect("binding"))
            .await
            .map(drop),
        ("ClusterRole", None) => Api::<ClusterRole>::all(client)
            .create(&pp, &serde_json::from_value(object).expect("cluster role"))
            .await
            .map(drop),
        ("ClusterRoleBinding", None) => Api::<ClusterRoleBinding>::all(client)
            .create(
                &pp,
                &serde_json::from_value(object).expect("cluster binding"),
            )
            .await
            .map(drop),
        other => panic!("not an RBAC object: {other:?}"),
    };
    done.expect("create the RBAC object");
}

fn sa_subject(namespace: &str, name: &str) -> Value {
    json!({"kind": "ServiceAccount", "name": name, "namespace": namespace})
}

/// The Status of a failed call.
fn status(result: Result<impl std::fmt::Debug, kube::Error>) -> kube::core::Status {
    match result {
        Err(kube::Error::Api(status)) => *status,
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[tokio::test]
async fn tokens_authenticate_service_accounts_and_unknown_ones_are_refused() {
    let server = ApiServer::start().await.expect("start");
    // Without RBAC, a ServiceAccount may do what the administrator may.
    let sa = server
        .service_account_client("default", "ctl")
        .expect("client");
    let configmaps: Api<ConfigMap> = Api::default_namespaced(sa);
    configmaps
        .create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("RBAC off: allowed");
    // A token the server never minted is 401, with kube-apiserver's Status.
    let mut forged = server.kube_config();
    forged.default_retry = false;
    forged.auth_info.token = Some("kubegen-testkit.forged".to_owned().into());
    let forged = kube::Client::try_from(forged).expect("client");
    let error = status(
        Api::<ConfigMap>::default_namespaced(forged)
            .list(&ListParams::default())
            .await,
    );
    assert_eq!(
        (error.code, error.reason.as_str(), error.message.as_str()),
        (401, "Unauthorized", "Unauthorized")
    );
    // The administrator (no token) is unchanged.
    let admin: Api<ConfigMap> = Api::default_namespaced(server.client());
    assert_eq!(
        admin
            .list(&ListParams::default())
            .await
            .expect("list")
            .items
            .len(),
        1
    );
}

#[tokio::test]
async fn a_denied_request_gets_kube_apiservers_forbidden_status() {
    let (server, client) = rbac_server().await;
    let configmaps: Api<ConfigMap> = Api::default_namespaced(client.clone());
    let denied = status(configmaps.list(&ListParams::default()).await);
    assert_eq!((denied.code, denied.reason.as_str()), (403, "Forbidden"));
    assert_eq!(
        denied.message,
        r#"configmaps is forbidden: User "system:serviceaccount:default:ctl" cannot list resource "configmaps" in API group "" in the namespace "default""#
    );
    let details = denied.details.expect("details");
    assert_eq!(
        (
            details.kind.as_str(),
            details.group.as_str(),
            details.name.as_str()
        ),
        ("configmaps", "", "")
    );

    let deployments: Api<Deployment> = Api::default_namespaced(client.clone());
    let denied = status(deployments.get("web").await);
    assert_eq!(
        denied.message,
        r#"deployments.apps "web" is forbidden: User "system:serviceaccount:default:ctl" cannot get resource "deployments" in API group "apps" in the namespace "default""#
    );
    assert_eq!(denied.details.expect("details").group, "apps");
    let all: Api<Deployment> = Api::all(client.clone());
    let denied = status(all.list(&ListParams::default()).await);
    assert!(
        denied.message.ends_with(
            r#"cannot list resource "deployments" in API group "apps" at the cluster scope"#
        ),
        "{}",
        denied.message
    );
    let status_patch = deployments
        .patch_status(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {}})),
        )
        .await;
    assert!(
        status(status_patch)
            .message
            .contains(r#"cannot patch resource "deployments/status""#)
    );

    // Discovery and health are every authenticated user's; other paths are not.
    client
        .list_api_groups()
        .await
        .expect("discovery is allowed");
    client
        .list_core_api_versions()
        .await
        .expect("discovery is allowed");
    let token = server.service_account_token("default", "ctl");
    let bearer = format!("Bearer {token}");
    let health = raw_with(
        &server,
        "GET",
        "/healthz",
        &[("Authorization", &bearer)],
        "",
    )
    .await;
    assert_eq!(health.status, 200);
    let post = raw_with(&server, "POST", "/apis", &[("Authorization", &bearer)], "").await;
    assert_eq!(post.status, 403);
    let body = post.json();
    assert_eq!(
        body["message"],
        r#"forbidden: User "system:serviceaccount:default:ctl" cannot post path "/apis""#
    );
    assert_eq!(body["details"], json!({}));
}

#[tokio::test]
async fn a_role_grants_its_verbs_in_its_namespace_only() {
    let (server, client) = rbac_server().await;
    admin_create(&server, json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "configmap-reader", "namespace": "default"},
        "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]}]
    })).await;
    admin_create(&server, json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "ctl-reads", "namespace": "default"},
        // A ServiceAccount without a namespace is one of the binding's.
        "subjects": [{"kind": "ServiceAccount", "name": "ctl"}],
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "configmap-reader"}
    })).await;
    let here: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    here.list(&ListParams::default())
        .await
        .expect("list is granted");
    let (code, _) = api_error(
        here.create(&PostParams::default(), &configmap("x", "1"))
            .await,
    );
    assert_eq!(code, 403, "create is not");
    let there: Api<ConfigMap> = Api::namespaced(client.clone(), "other");
    assert_eq!(
        api_error(there.list(&ListParams::default()).await).0,
        403,
        "another namespace is not"
    );
    let everywhere: Api<ConfigMap> = Api::all(client.clone());
    assert_eq!(
        api_error(everywhere.list(&ListParams::default()).await).0,
        403,
        "nor all namespaces"
    );
    // Another ServiceAccount of the namespace is not bound.
    let stranger = server
        .service_account_client("default", "stranger")
        .expect("client");
    assert_eq!(
        api_error(
            Api::<ConfigMap>::default_namespaced(stranger)
                .list(&ListParams::default())
                .await
        )
        .0,
        403
    );
}

#[tokio::test]
async fn cluster_roles_apply_everywhere_through_a_cluster_binding_and_in_one_namespace_through_a_role_binding()
 {
    let (server, client) = rbac_server().await;
    admin_create(
        &server,
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "deployment-editor"},
            "rules": [
                {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["create", "get"]},
                {"apiGroups": ["apps"], "resources": ["deployments/status"], "verbs": ["patch"]}
            ]
        }),
    )
    .await;
    admin_create(&server, json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "edit-here", "namespace": "default"},
        "subjects": [sa_subject("default", "ctl")],
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "deployment-editor"}
    })).await;
    let here: Api<Deployment> = Api::namespaced(client.clone(), "default");
    here.create(&PostParams::default(), &deployment("web", 1))
        .await
        .expect("create here");
    here.patch_status(
        "web",
        &PatchParams::default(),
        &Patch::Merge(json!({"status": {"replicas": 1}})),
    )
    .await
    .expect("the status subresource is granted");
    let denied = status(
        here.patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 2}})),
        )
        .await,
    );
    assert!(
        denied
            .message
            .contains(r#"cannot patch resource "deployments" in API group "apps""#),
        "{}",
        denied.message
    );
    let there: Api<Deployment> = Api::namespaced(client.clone(), "other");
    assert_eq!(
        api_error(
            there
                .create(&PostParams::default(), &deployment("web", 1))
                .await
        )
        .0,
        403
    );

    // Bound cluster-wide to the namespace's ServiceAccounts' group, it applies in every namespace.
    admin_create(&server, json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": {"name": "edit-everywhere"},
        "subjects": [{"kind": "Group", "name": "system:serviceaccounts:default", "apiGroup": "rbac.authorization.k8s.io"}],
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "deployment-editor"}
    })).await;
    there
        .create(&PostParams::default(), &deployment("web", 1))
        .await
        .expect("create there");
}

#[tokio::test]
async fn wildcards_and_resource_names_match_as_kube_apiserver_matches_them() {
    let (server, client) = rbac_server().await;
    admin_create(&server, json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": "one-configmap-and-every-status"},
        "rules": [
            {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["settings"], "verbs": ["*"]},
            {"apiGroups": ["*"], "resources": ["*/status"], "verbs": ["get"]}
        ]
    })).await;
    admin_create(&server, json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": {"name": "ctl"},
        "subjects": [{"kind": "User", "name": "system:serviceaccount:default:ctl"}],
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "one-configmap-and-every-status"}
    })).await;
    Api::<ConfigMap>::default_namespaced(server.client())
        .create(&PostParams::default(), &configmap("settings", "1"))
        .await
        .expect("admin creates");
    Api::<Deployment>::default_namespaced(server.client())
        .create(&PostParams::default(), &deployment("web", 1))
        .await
        .expect("admin creates");
    let configmaps: Api<ConfigMap> = Api::default_namespaced(client.clone());
    configmaps
        .get("settings")
        .await
        .expect("the named configmap");
    configmaps
        .patch(
            "settings",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"value": "2"}})),
        )
        .await
        .expect("every verb on it");
    assert_eq!(
        api_error(configmaps.get("other").await).0,
        403,
        "another name"
    );
    assert_eq!(
        api_error(configmaps.list(&ListParams::default()).await).0,
        403,
        "a list names none"
    );
    let deployments: Api<Deployment> = Api::default_namespaced(client.clone());
    deployments.get_status("web").await.expect("*/status");
    assert_eq!(
        api_error(deployments.get("web").await).0,
        403,
        "not the object"
    );
}

#[tokio::test]
async fn self_subject_access_reviews_answer_for_the_requesting_user() {
    let (server, client) = rbac_server().await;
    admin_create(&server, json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "lease-holder", "namespace": "default"},
        "rules": [{"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["get", "update"]}]
    })).await;
    admin_create(&server, json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "hold", "namespace": "default"},
        "subjects": [sa_subject("default", "ctl")],
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "lease-holder"}
    })).await;
    let review = |verb: &str, namespace: &str| SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                verb: Some(verb.to_owned()),
                group: Some("coordination.k8s.io".to_owned()),
                resource: Some("leases".to_owned()),
                namespace: Some(namespace.to_owned()),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let reviews: Api<SelfSubjectAccessReview> = Api::all(client);
    let pp = PostParams::default();
    let allowed = reviews
        .create(&pp, &review("update", "default"))
        .await
        .expect("review");
    let allowed = allowed.status.expect("status");
    assert!(allowed.allowed);
    assert_eq!(
        allowed.reason.as_deref(),
        Some(
            r#"RBAC: allowed by RoleBinding "hold/default" of Role "lease-holder" to ServiceAccount "ctl/default""#
        )
    );
    let create = reviews
        .create(&pp, &review("create", "default"))
        .await
        .expect("review");
    assert!(!create.status.expect("status").allowed);
    let elsewhere = reviews
        .create(&pp, &review("get", "other"))
        .await
        .expect("review");
    assert!(!elsewhere.status.expect("status").allowed);
    // The administrator may do everything.
    let admin: Api<SelfSubjectAccessReview> = Api::all(server.client());
    assert!(
        admin
            .create(&pp, &review("create", "other"))
            .await
            .expect("review")
            .status
            .expect("status")
            .allowed
    );
}
