//! PATCH: merge patch, JSON patch, server-side apply (create if absent, fieldManager
//! required; ownership in testkit_apply.rs) and strategic merge patch (built-in kinds; 415 for
//! custom resources, as on a real server).

mod testkit_support;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kubegen_testkit::ApiServer;
use serde_json::json;
use testkit_support::{api_error, configmap, create_json, raw};

#[tokio::test]
async fn merge_patch_adds_replaces_and_removes() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let mut cm = configmap("a", "1");
    cm.data
        .as_mut()
        .expect("data")
        .insert("gone".into(), "x".into());
    api.create(&PostParams::default(), &cm)
        .await
        .expect("create");
    let patched = api
        .patch(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"value": "2", "gone": null, "new": "n"}})),
        )
        .await
        .expect("merge");
    let data = patched.data.expect("data");
    assert_eq!(
        (
            data["value"].as_str(),
            data.get("gone"),
            data["new"].as_str()
        ),
        ("2", None, "n")
    );
}

#[tokio::test]
async fn json_patch_applies_operations_and_fails_tests_with_422() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create");
    let ops: json_patch::Patch = serde_json::from_value(json!([
        {"op": "test", "path": "/data/value", "value": "1"},
        {"op": "replace", "path": "/data/value", "value": "2"},
        {"op": "add", "path": "/metadata/labels", "value": {"x": "y"}}
    ]))
    .expect("ops");
    let patched = api
        .patch("a", &PatchParams::default(), &Patch::<()>::Json(ops))
        .await
        .expect("json patch");
    assert_eq!(patched.data.expect("data")["value"], "2");
    assert_eq!(patched.metadata.labels.expect("labels")["x"], "y");
    let failing: json_patch::Patch =
        serde_json::from_value(json!([{"op": "test", "path": "/data/value", "value": "1"}]))
            .expect("ops");
    assert_eq!(
        api_error(
            api.patch("a", &PatchParams::default(), &Patch::<()>::Json(failing))
                .await
        )
        .0,
        422
    );
}

#[tokio::test]
async fn server_side_apply_creates_merges_and_removes() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let params = PatchParams::apply("kubegen-test").force();
    let applied = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied"}, "data": {"a": "1"}});
    let created = api
        .patch("applied", &params, &Patch::Apply(&applied))
        .await
        .expect("apply creates");
    assert_eq!(created.metadata.generation, None, "ConfigMaps have none");
    // Another manager's configuration is merged in...
    let again = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied"}, "data": {"b": "2"}});
    let merged = api
        .patch(
            "applied",
            &PatchParams::apply("other"),
            &Patch::Apply(&again),
        )
        .await
        .expect("apply merges");
    let data = merged.data.expect("data");
    assert_eq!((data["a"].as_str(), data["b"].as_str()), ("1", "2"));
    // ...while a manager re-applying without a field it owned alone removes it.
    let dropped = api
        .patch("applied", &params, &Patch::Apply(&again))
        .await
        .expect("apply drops");
    let data = dropped.data.expect("data");
    assert_eq!((data.get("a"), data["b"].as_str()), (None, "2"));
    // An apply without a field manager is invalid, as on a real server.
    let no_manager = raw(
        &server,
        "PATCH",
        "/api/v1/namespaces/default/configmaps/applied",
        Some("application/apply-patch+yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  c: \"3\"\n",
    )
    .await;
    assert_eq!(no_manager.status, 422);
    // A YAML apply body works.
    let yaml = raw(
        &server,
        "PATCH",
        "/api/v1/namespaces/default/configmaps/applied?fieldManager=yaml",
        Some("application/apply-patch+yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  c: \"3\"\n",
    )
    .await;
    assert_eq!(yaml.status, 200, "{}", yaml.body);
    assert_eq!(yaml.json()["data"]["c"], "3");
}

/// Found by the HTTP fuzzer: an apply patch that is not an object (or whose metadata
/// is not one) for an absent object panicked the handler while naming the new object.
#[tokio::test]
async fn apply_patch_that_is_not_an_object_is_bad_request() {
    let server = ApiServer::start().await.expect("start");
    let path = "/api/v1/namespaces/default/configmaps/absent?fieldManager=fuzz";
    for body in [
        "- 1\n- 2\n",
        "[1, 2]",
        "\"text\"",
        "7",
        "{\"metadata\": 5}",
        "metadata: [a]\n",
    ] {
        let answer = raw(
            &server,
            "PATCH",
            path,
            Some("application/apply-patch+yaml"),
            body,
        )
        .await;
        assert_eq!(answer.status, 400, "{body}: {}", answer.body);
        let status = answer.json();
        assert_eq!(
            (status["kind"].as_str(), status["code"].as_u64()),
            (Some("Status"), Some(400))
        );
    }
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    assert_eq!(
        api_error(api.get("absent").await).0,
        404,
        "nothing was created"
    );
}

#[tokio::test]
async fn strategic_merge_patch_merges_lists_by_their_merge_keys() {
    let server = ApiServer::start().await.expect("start");
    let deployments: Api<Deployment> = Api::default_namespaced(server.client());
    let deployment: Deployment = serde_json::from_value(json!({
        "metadata": {"name": "web", "finalizers": ["example.com/a"]},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [
                    {"name": "web", "image": "nginx:1.25", "ports": [{"containerPort": 80}]},
                    {"name": "log", "image": "busybox"}
                ]}
            }
        }
    }))
    .expect("deployment");
    deployments
        .create(&PostParams::default(), &deployment)
        .await
        .expect("create");
    // What `kubectl apply` sends after the image of one container changed and the other
    // container was removed from the manifest.
    let patch = json!({
        "metadata": {"$deleteFromPrimitiveList/finalizers": ["example.com/a"]},
        "spec": {"template": {"spec": {
            "$setElementOrder/containers": [{"name": "web"}],
            "containers": [{"image": "nginx:1.26", "name": "web"}, {"$patch": "delete", "name": "log"}]
        }}}
    });
    let patched = deployments
        .patch("web", &PatchParams::default(), &Patch::Strategic(patch))
        .await
        .expect("strategic merge patch");
    let spec = patched.spec.template.spec.expect("pod spec");
    assert_eq!(spec.containers.len(), 1);
    assert_eq!(spec.containers[0].image.as_deref(), Some("nginx:1.26"));
    assert_eq!(
        spec.containers[0]
            .ports
            .as_ref()
            .map(|p| p[0].container_port),
        Some(80),
        "merged into the container, not replacing it"
    );
    assert!(patched.metadata.finalizers.unwrap_or_default().is_empty());
    assert_eq!(patched.metadata.generation, Some(2));

    let configmaps: Api<ConfigMap> = Api::default_namespaced(server.client());
    configmaps
        .create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create");
    let cm = configmaps
        .patch(
            "a",
            &PatchParams::default(),
            &Patch::Strategic(json!({"data": {"value": "2", "b": "3"}})),
        )
        .await
        .expect("kubectl patch cm a -p ...");
    assert_eq!(
        cm.data,
        Some(
            [
                ("value".to_owned(), "2".to_owned()),
                ("b".to_owned(), "3".to_owned())
            ]
            .into()
        )
    );
    let bad = configmaps
        .patch(
            "a",
            &PatchParams::default(),
            &Patch::Strategic(json!({"metadata": {"$setElementOrder/finalizers": "x"}})),
        )
        .await;
    assert_eq!(api_error(bad), (400, "BadRequest".into()));
}

#[tokio::test]
async fn strategic_merge_patch_of_a_custom_resource_is_unsupported_media_type() {
    let server = ApiServer::start().await.expect("start");
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object", "x-kubernetes-preserve-unknown-fields": true
            }}}]
        }
    });
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    create_json(&server, crds, &crd).await;
    let widgets = "/apis/example.com/v1/namespaces/default/widgets";
    let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"a": 1}});
    create_json(&server, widgets, &widget).await;
    let strategic = raw(
        &server,
        "PATCH",
        &format!("{widgets}/w"),
        Some("application/strategic-merge-patch+json"),
        r#"{"spec": {"a": 2}}"#,
    )
    .await;
    assert_eq!(strategic.status, 415);
    assert_eq!(strategic.json()["reason"], "UnsupportedMediaType");
    let message = strategic.json()["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        message.contains("application/merge-patch+json"),
        "{message}"
    );
    assert!(!message.contains("accepted media types include: application/strategic"));
}

#[tokio::test]
async fn patches_with_a_stale_resource_version_conflict() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let created = api
        .create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create");
    let rv = created.metadata.resource_version.expect("rv");
    let guarded = |value: &str| {
        Patch::Merge(json!({"metadata": {"resourceVersion": rv}, "data": {"value": value}}))
    };
    api.patch("a", &PatchParams::default(), &guarded("2"))
        .await
        .expect("current rv");
    assert_eq!(
        api_error(api.patch("a", &PatchParams::default(), &guarded("3")).await),
        (409, "Conflict".into())
    );
    assert_eq!(
        api_error(
            api.patch("missing", &PatchParams::default(), &Patch::Merge(json!({})))
                .await
        )
        .0,
        404
    );
}
