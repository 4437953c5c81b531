//! Status and scale subresources through `kube::Api`.

mod testkit_support;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kubegen_testkit::ApiServer;
use serde_json::json;
use testkit_support::{api_error, configmap, deployment};

#[tokio::test]
async fn status_subresource_separates_spec_and_status() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<Deployment> = Api::default_namespaced(server.client());
    let mut with_status = deployment("web", 1);
    with_status.status = Some(Default::default());
    with_status.status.as_mut().expect("status").replicas = Some(9);
    let created = api
        .create(&PostParams::default(), &with_status)
        .await
        .expect("create");
    assert!(
        created.status.is_none_or(|s| s.replicas.is_none()),
        "status is cleared on create"
    );

    // Status changes through the main resource are ignored...
    let main = api
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"replicas": 5}})),
        )
        .await
        .expect("main patch");
    assert!(main.status.is_none_or(|s| s.replicas.is_none()));
    // ...and spec changes through /status are ignored.
    let status = api
        .patch_status(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 7}, "status": {"replicas": 2}})),
        )
        .await
        .expect("status patch");
    assert_eq!(status.status.expect("status").replicas, Some(2));
    assert_eq!(status.spec.replicas, Some(1));

    let mut replaced = api.get_status("web").await.expect("get status");
    replaced.status.as_mut().expect("status").ready_replicas = Some(1);
    let replaced = api
        .replace_status("web", &PostParams::default(), &replaced)
        .await
        .expect("replace status");
    assert_eq!(replaced.status.expect("status").ready_replicas, Some(1));

    let configmaps: Api<ConfigMap> = Api::default_namespaced(server.client());
    configmaps
        .create(&PostParams::default(), &configmap("c", "1"))
        .await
        .expect("create cm");
    let no_status = configmaps
        .patch_status(
            "c",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {}})),
        )
        .await;
    assert_eq!(
        api_error(no_status).0,
        404,
        "types without a status subresource have no /status"
    );
}

#[tokio::test]
async fn scale_subresource_reads_and_writes_replicas() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<Deployment> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &deployment("web", 2))
        .await
        .expect("create");
    let scale = api.get_scale("web").await.expect("get scale");
    assert_eq!(scale.spec.expect("spec").replicas, Some(2));
    assert_eq!(
        scale.status.expect("status").selector.as_deref(),
        Some("app=web")
    );
    let patched = api
        .patch_scale(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 4}})),
        )
        .await
        .expect("patch scale");
    assert_eq!(patched.spec.expect("spec").replicas, Some(4));
    let mut current = api.get_scale("web").await.expect("get scale");
    current.spec.as_mut().expect("spec").replicas = Some(6);
    api.replace_scale("web", &PostParams::default(), &current)
        .await
        .expect("replace scale");
    let deployment = api.get("web").await.expect("get");
    assert_eq!(deployment.spec.replicas, Some(6));
    assert_eq!(deployment.metadata.generation, Some(3));
    // A stale Scale write conflicts like any other.
    assert_eq!(
        api_error(
            api.replace_scale("web", &PostParams::default(), &current)
                .await
        )
        .0,
        409
    );
}
