//! Deletion through `kube::Api`: finalizers, preconditions, collections, namespaces.

mod testkit_support;

use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{
    Api, DeleteParams, ListParams, Patch, PatchParams, PostParams, Preconditions, PropagationPolicy,
};
use kubegen_testkit::ApiServer;
use serde_json::json;
use testkit_support::{api_error, configmap, create_namespace};

#[tokio::test]
async fn finalizers_hold_deletion_until_the_last_one_goes() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let mut cm = configmap("held", "1");
    cm.metadata.finalizers = Some(vec!["example.com/a".into(), "example.com/b".into()]);
    api.create(&PostParams::default(), &cm)
        .await
        .expect("create");
    let deleted = api
        .delete("held", &DeleteParams::default())
        .await
        .expect("delete");
    let marked = deleted
        .left()
        .expect("the object comes back while finalizers remain");
    assert!(marked.metadata.deletion_timestamp.is_some());
    api.patch(
        "held",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": ["example.com/b"]}})),
    )
    .await
    .expect("drop one finalizer");
    assert!(
        api.get("held")
            .await
            .expect("still there")
            .metadata
            .deletion_timestamp
            .is_some()
    );
    api.patch(
        "held",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await
    .expect("drop the last finalizer");
    assert_eq!(api_error(api.get("held").await).0, 404);
}

#[tokio::test]
async fn delete_preconditions_and_propagation() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let created = api
        .create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create");
    let wrong_uid = DeleteParams {
        preconditions: Some(Preconditions {
            uid: Some("not-the-uid".into()),
            resource_version: None,
        }),
        ..Default::default()
    };
    assert_eq!(
        api_error(api.delete("a", &wrong_uid).await),
        (409, "Conflict".into())
    );
    let wrong_rv = DeleteParams {
        preconditions: Some(Preconditions {
            uid: None,
            resource_version: Some("1".into()),
        }),
        ..Default::default()
    };
    assert_eq!(
        api_error(api.delete("a", &wrong_rv).await),
        (409, "Conflict".into())
    );
    let right = DeleteParams {
        preconditions: Some(Preconditions {
            uid: created.metadata.uid.clone(),
            resource_version: created.metadata.resource_version.clone(),
        }),
        propagation_policy: Some(PropagationPolicy::Foreground),
        ..Default::default()
    };
    let gone = api
        .delete("a", &right)
        .await
        .expect("delete")
        .left()
        .expect("object");
    assert!(gone.metadata.resource_version > created.metadata.resource_version);
    assert_eq!(api_error(api.get("a").await).0, 404);
}

#[tokio::test]
async fn delete_collection_honours_selectors() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    for (name, app) in [("a", "web"), ("b", "web"), ("c", "db")] {
        let mut cm = configmap(name, "1");
        cm.metadata.labels = Some([("app".to_owned(), app.to_owned())].into());
        api.create(&PostParams::default(), &cm)
            .await
            .expect("create");
    }
    let deleted = api
        .delete_collection(
            &DeleteParams::default(),
            &ListParams::default().labels("app=web"),
        )
        .await
        .expect("delete collection")
        .left()
        .expect("list");
    assert_eq!(deleted.items.len(), 2);
    let left: Vec<String> = api
        .list(&ListParams::default())
        .await
        .expect("list")
        .items
        .into_iter()
        .filter_map(|c| c.metadata.name)
        .collect();
    assert_eq!(left, ["c"]);
}

#[tokio::test]
async fn deleting_a_namespace_deletes_its_objects() {
    let server = ApiServer::start().await.expect("start");
    create_namespace(&server, "team").await;
    let api: Api<ConfigMap> = Api::namespaced(server.client(), "team");
    api.create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create a");
    let mut held = configmap("held", "1");
    held.metadata.finalizers = Some(vec!["example.com/x".into()]);
    api.create(&PostParams::default(), &held)
        .await
        .expect("create held");
    let namespaces: Api<Namespace> = Api::all(server.client());
    namespaces
        .delete("team", &DeleteParams::default())
        .await
        .expect("delete namespace");
    assert_eq!(api_error(api.get("a").await).0, 404);
    let terminating = namespaces
        .get("team")
        .await
        .expect("namespace waits for finalizers");
    assert_eq!(
        terminating.status.and_then(|s| s.phase).as_deref(),
        Some("Terminating")
    );
    assert_eq!(
        api_error(
            api.create(&PostParams::default(), &configmap("new", "1"))
                .await
        )
        .0,
        403
    );
    api.patch(
        "held",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await
    .expect("release");
    assert_eq!(api_error(namespaces.get("team").await).0, 404);
}

fn owned_by(name: &str, owner: &ConfigMap) -> ConfigMap {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
    let mut cm = configmap(name, "1");
    cm.metadata.owner_references = Some(vec![OwnerReference {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        name: owner.metadata.name.clone().expect("name"),
        uid: owner.metadata.uid.clone().expect("uid"),
        ..Default::default()
    }]);
    cm
}

#[tokio::test]
async fn owner_deletion_cascades_to_dependents_unless_orphaned() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let owner = api
        .create(&PostParams::default(), &configmap("owner", "1"))
        .await
        .expect("owner");
    let child = api
        .create(&PostParams::default(), &owned_by("child", &owner))
        .await
        .expect("child");
    api.create(&PostParams::default(), &owned_by("grandchild", &child))
        .await
        .expect("grandchild");
    api.delete("owner", &DeleteParams::background())
        .await
        .expect("delete owner");
    for name in ["owner", "child", "grandchild"] {
        assert_eq!(
            api_error(api.get(name).await).0,
            404,
            "{name} is garbage collected"
        );
    }

    let owner = api
        .create(&PostParams::default(), &configmap("owner2", "1"))
        .await
        .expect("owner2");
    api.create(&PostParams::default(), &owned_by("kept", &owner))
        .await
        .expect("kept");
    api.delete("owner2", &DeleteParams::orphan())
        .await
        .expect("orphan delete");
    let kept = api.get("kept").await.expect("orphaned dependent stays");
    assert!(
        kept.metadata.owner_references.is_none(),
        "its owner reference is removed"
    );
}

#[tokio::test]
async fn invalid_propagation_policies_are_rejected() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create");
    let response = testkit_support::raw(
        &server,
        "DELETE",
        "/api/v1/namespaces/default/configmaps/a",
        Some("application/json"),
        r#"{"propagationPolicy":"Sometimes"}"#,
    )
    .await;
    assert_eq!(response.status, 422);
    assert_eq!(
        response.json()["details"]["causes"][0]["field"],
        "propagationPolicy"
    );
    assert!(api.get("a").await.is_ok());
}

#[tokio::test]
async fn no_finalizer_can_be_added_once_deleting_and_names_are_validated() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let mut cm = configmap("held", "1");
    cm.metadata.finalizers = Some(vec!["example.com/a".into()]);
    api.create(&PostParams::default(), &cm)
        .await
        .expect("create");
    api.delete("held", &DeleteParams::default())
        .await
        .expect("delete");
    // A controller acting on a copy read before the deletion cannot re-finalize it.
    let add = json!([{"op": "add", "path": "/metadata/finalizers/-", "value": "example.com/b"}]);
    let refused = api
        .patch(
            "held",
            &PatchParams::default(),
            &Patch::<()>::Json(serde_json::from_value(add).expect("patch")),
        )
        .await;
    match refused {
        Err(kube::Error::Api(status)) => {
            assert_eq!((status.code, status.reason.as_str()), (422, "Invalid"));
            let causes = status.details.map(|d| d.causes).unwrap_or_default();
            assert_eq!(causes.len(), 1);
            assert_eq!(causes[0].field, "metadata.finalizers");
            assert!(
                causes[0].message.contains("no new finalizers"),
                "{causes:?}"
            );
        }
        other => panic!("expected 422, got {other:?}"),
    }
    let kept = api.get("held").await.expect("still there");
    assert_eq!(kept.metadata.finalizers, Some(vec!["example.com/a".into()]));

    let mut bad = configmap("bad", "1");
    bad.metadata.finalizers = Some(vec!["not a/qualified/name".into()]);
    assert_eq!(
        api_error(api.create(&PostParams::default(), &bad).await),
        (422, "Invalid".to_owned())
    );
}
