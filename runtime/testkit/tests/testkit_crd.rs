//! CustomResourceDefinitions: registration at once, discovery, custom resources through
//! `DynamicObject`, subresources, selectable fields, schema validation and pruning,
//! deletion, and every CRD of the shared corpus with its example object.

mod testkit_support;

use std::path::PathBuf;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{
    Api, ApiResource, DynamicObject, GroupVersionKind, ListParams, Patch, PatchParams, PostParams,
    WatchEvent, WatchParams,
};
use kube::discovery::Discovery;
use kubegen_testkit::ApiServer;
use serde_json::{Value, json};
use testkit_support::{api_error, create_namespace, get};

fn foo_crd() -> Value {
    let schema = json!({
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "required": ["size"],
                "properties": {
                    "size": {"type": "integer"},
                    "replicas": {"type": "integer"},
                    "color": {"type": "string", "enum": ["red", "blue"]},
                    "owner": {"type": "string", "nullable": true},
                    "port": {"x-kubernetes-int-or-string": true},
                    "config": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                    "template": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}
                }
            },
            "status": {
                "type": "object",
                "properties": {"replicas": {"type": "integer"}, "selector": {"type": "string"}, "phase": {"type": "string"}}
            }
        }
    });
    let version = |name: &str, storage: bool| {
        json!({
            "name": name, "served": true, "storage": storage,
            "schema": {"openAPIV3Schema": schema},
            "subresources": {"status": {}, "scale": {
                "specReplicasPath": ".spec.replicas",
                "statusReplicasPath": ".status.replicas",
                "labelSelectorPath": ".status.selector"
            }},
            "selectableFields": [{"jsonPath": ".spec.color"}]
        })
    };
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "foos.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "foos", "singular": "foo", "kind": "Foo", "shortNames": ["fo"], "categories": ["all"]},
            "versions": [version("v1", true), version("v1beta1", false)]
        }
    })
}

fn foo_resource(version: &str) -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("example.com", version, "Foo"),
        "foos",
    )
}

async fn install(server: &ApiServer, crd: Value) -> CustomResourceDefinition {
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    let crd: CustomResourceDefinition = serde_json::from_value(crd).expect("crd type");
    crds.create(&PostParams::default(), &crd)
        .await
        .expect("create crd")
}

fn foo(name: &str, spec: Value) -> DynamicObject {
    let mut object = DynamicObject::new(name, &foo_resource("v1"));
    object.data = json!({"spec": spec});
    object
}

#[tokio::test]
async fn a_crd_is_established_and_discoverable_at_once() {
    let server = ApiServer::start().await.expect("start");
    let crd = install(&server, foo_crd()).await;
    let status = crd.status.expect("status");
    let conditions = status.conditions.expect("conditions");
    for kind in ["Established", "NamesAccepted"] {
        assert!(
            conditions
                .iter()
                .any(|c| c.type_ == kind && c.status == "True"),
            "{kind}"
        );
    }
    let accepted = status.accepted_names.expect("accepted names");
    assert_eq!(
        (accepted.plural.as_str(), accepted.kind.as_str()),
        ("foos", "Foo")
    );
    assert_eq!(accepted.list_kind.as_deref(), Some("FooList"));
    assert_eq!(status.stored_versions, Some(vec!["v1".to_owned()]));

    let group = get(&server, "/apis/example.com").await.json();
    assert_eq!(group["preferredVersion"]["version"], "v1");
    assert_eq!(group["versions"].as_array().expect("versions").len(), 2);
    let resources = get(&server, "/apis/example.com/v1").await.json();
    let entries = resources["resources"].as_array().expect("resources");
    let foos = entries.iter().find(|r| r["name"] == "foos").expect("foos");
    assert_eq!(foos["namespaced"], true);
    assert_eq!(foos["kind"], "Foo");
    assert_eq!(foos["singularName"], "foo");
    assert_eq!(foos["shortNames"], json!(["fo"]));
    assert_eq!(foos["categories"], json!(["all"]));
    assert!(
        foos["verbs"]
            .as_array()
            .expect("verbs")
            .contains(&json!("watch"))
    );
    assert!(entries.iter().any(|r| r["name"] == "foos/status"));
    assert!(
        entries
            .iter()
            .any(|r| r["name"] == "foos/scale" && r["kind"] == "Scale")
    );

    let discovery = Discovery::new(server.client())
        .run()
        .await
        .expect("discovery");
    let (resource, caps) = discovery
        .groups()
        .flat_map(|g| g.recommended_resources())
        .find(|(r, _)| r.plural == "foos")
        .expect("kube discovery finds foos");
    assert_eq!(resource.api_version, "example.com/v1");
    assert!(
        caps.subresources
            .iter()
            .any(|(sub, _)| sub.plural == "foos/status" || sub.plural == "status")
    );
}

#[tokio::test]
async fn custom_resources_are_served_in_every_version_with_subresources() {
    let server = ApiServer::start().await.expect("start");
    install(&server, foo_crd()).await;
    let v1: Api<DynamicObject> = Api::default_namespaced_with(server.client(), &foo_resource("v1"));
    let v1beta1: Api<DynamicObject> =
        Api::default_namespaced_with(server.client(), &foo_resource("v1beta1"));
    let created = v1
        .create(
            &PostParams::default(),
            &foo("a", json!({"size": 1, "replicas": 2, "color": "red"})),
        )
        .await
        .expect("create");
    assert_eq!(created.metadata.generation, Some(1));
    let other_version = v1beta1.get("a").await.expect("get in v1beta1");
    assert_eq!(
        other_version.types.expect("types").api_version,
        "example.com/v1beta1"
    );
    v1.create(
        &PostParams::default(),
        &foo("b", json!({"size": 1, "color": "blue"})),
    )
    .await
    .expect("create b");

    let blue = v1
        .list(&ListParams::default().fields("spec.color=blue"))
        .await
        .expect("selectable field");
    assert_eq!(blue.items.len(), 1);
    assert_eq!(blue.items[0].metadata.name.as_deref(), Some("b"));
    assert_eq!(
        api_error(v1.list(&ListParams::default().fields("spec.size=1")).await).0,
        400
    );

    let status = v1
        .patch_status(
            "a",
            &PatchParams::default(),
            &Patch::Merge(
                json!({"spec": {"size": 9}, "status": {"replicas": 2, "selector": "app=a"}}),
            ),
        )
        .await
        .expect("status");
    assert_eq!(status.data["spec"]["size"], 1, "spec is ignored on /status");
    assert_eq!(status.data["status"]["replicas"], 2);
    assert_eq!(status.metadata.generation, Some(1));
    let main = v1
        .patch(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"size": 3}, "status": {"replicas": 0}})),
        )
        .await
        .expect("main");
    assert_eq!(
        main.data["status"]["replicas"], 2,
        "status is ignored on the main resource"
    );
    assert_eq!(main.metadata.generation, Some(2));

    let scale = v1.get_scale("a").await.expect("scale");
    assert_eq!(scale.spec.expect("spec").replicas, Some(2));
    assert_eq!(
        scale.status.expect("status").selector.as_deref(),
        Some("app=a")
    );
    v1.patch_scale(
        "a",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"replicas": 5}})),
    )
    .await
    .expect("scale");
    assert_eq!(v1.get("a").await.expect("get").data["spec"]["replicas"], 5);
}

#[tokio::test]
async fn schema_violations_are_422_with_every_field_path() {
    let server = ApiServer::start().await.expect("start");
    install(&server, foo_crd()).await;
    let api: Api<DynamicObject> =
        Api::default_namespaced_with(server.client(), &foo_resource("v1"));
    let bad = foo(
        "bad",
        json!({"size": "big", "color": "green", "port": true}),
    );
    match api.create(&PostParams::default(), &bad).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!((status.code, status.reason.as_str()), (422, "Invalid"));
            let mut fields: Vec<String> = status
                .details
                .expect("details")
                .causes
                .into_iter()
                .map(|c| c.field)
                .collect();
            fields.sort();
            assert_eq!(fields, ["spec.color", "spec.port", "spec.size"]);
            assert!(
                status
                    .message
                    .starts_with("Foo.example.com \"bad\" is invalid"),
                "{}",
                status.message
            );
        }
        other => panic!("expected 422, got {other:?}"),
    }
    let missing = foo("missing", json!({"color": "red"}));
    match api.create(&PostParams::default(), &missing).await {
        Err(kube::Error::Api(status)) => {
            let causes = status.details.expect("details").causes;
            assert_eq!(causes.len(), 1);
            assert_eq!(
                (causes[0].field.as_str(), causes[0].reason.as_str()),
                ("spec.size", "FieldValueRequired")
            );
        }
        other => panic!("expected 422, got {other:?}"),
    }
    // Updates are validated too.
    api.create(&PostParams::default(), &foo("ok", json!({"size": 1})))
        .await
        .expect("valid");
    let bad_patch = api
        .patch(
            "ok",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"size": "x"}})),
        )
        .await;
    assert_eq!(api_error(bad_patch).0, 422);
}

/// Found by the HTTP fuzzer: a patch turning a custom resource (which has no typed form
/// to reject it) into something other than an object, or its metadata into a scalar,
/// panicked the handler.
#[tokio::test]
async fn patches_that_break_a_custom_resources_shape_are_invalid() {
    let server = ApiServer::start().await.expect("start");
    install(&server, foo_crd()).await;
    let api: Api<DynamicObject> =
        Api::default_namespaced_with(server.client(), &foo_resource("v1"));
    let created = api
        .create(&PostParams::default(), &foo("shape", json!({"size": 1})))
        .await
        .expect("create");
    let patches = [
        Patch::Merge(json!({"metadata": 5})),
        Patch::Json(
            serde_json::from_value(json!([{"op": "add", "path": "/metadata", "value": "x"}]))
                .expect("json patch"),
        ),
        Patch::Json(
            serde_json::from_value(json!([{"op": "replace", "path": "", "value": [1, 2]}]))
                .expect("json patch"),
        ),
    ];
    for patch in &patches {
        let (code, reason) = api_error(api.patch("shape", &PatchParams::default(), patch).await);
        assert_eq!((code, reason.as_str()), (422, "Invalid"), "{patch:?}");
    }
    let unchanged = api.get("shape").await.expect("still there");
    assert_eq!(
        unchanged.metadata.resource_version,
        created.metadata.resource_version
    );
}

#[tokio::test]
async fn unknown_fields_are_pruned_unless_preserved() {
    let server = ApiServer::start().await.expect("start");
    install(&server, foo_crd()).await;
    let api: Api<DynamicObject> =
        Api::default_namespaced_with(server.client(), &foo_resource("v1"));
    let mut object = foo(
        "p",
        json!({
            "size": 1, "unknown": "dropped", "owner": null, "port": "http",
            "config": {"free": {"form": [1, 2]}},
            "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "inner"}, "spec": {"x": 1}}
        }),
    );
    object.data["topLevelJunk"] = json!(true);
    object.metadata.labels = Some([("kept".to_owned(), "yes".to_owned())].into());
    let created = api
        .create(&PostParams::default(), &object)
        .await
        .expect("create");
    assert!(created.data.get("topLevelJunk").is_none());
    assert!(created.data["spec"].get("unknown").is_none());
    assert_eq!(
        created.data["spec"]["owner"],
        Value::Null,
        "nullable keeps null"
    );
    assert_eq!(created.data["spec"]["port"], "http");
    assert_eq!(
        created.data["spec"]["config"]["free"]["form"],
        json!([1, 2])
    );
    assert_eq!(
        created.data["spec"]["template"]["metadata"]["name"],
        "inner"
    );
    assert_eq!(
        created.metadata.labels.expect("labels")["kept"],
        "yes",
        "metadata is never pruned"
    );
}

#[tokio::test]
async fn cluster_scoped_crds_serve_objects_without_namespace() {
    let server = ApiServer::start().await.expect("start");
    let mut crd = foo_crd();
    crd["metadata"]["name"] = json!("bars.example.com");
    crd["spec"]["scope"] = json!("Cluster");
    crd["spec"]["names"] = json!({"plural": "bars", "kind": "Bar"});
    install(&server, crd).await;
    let resource = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("example.com", "v1", "Bar"),
        "bars",
    );
    let api: Api<DynamicObject> = Api::all_with(server.client(), &resource);
    let mut bar = DynamicObject::new("global", &resource);
    bar.data = json!({"spec": {"size": 1}});
    let created = api
        .create(&PostParams::default(), &bar)
        .await
        .expect("create");
    assert!(created.metadata.namespace.is_none());
    let entry = get(&server, "/apis/example.com/v1").await.json()["resources"][0].clone();
    assert_eq!(
        (
            entry["name"].clone(),
            entry["namespaced"].clone(),
            entry["singularName"].clone()
        ),
        (json!("bars"), json!(false), json!("bar"))
    );
}

#[tokio::test]
async fn deleting_a_crd_removes_its_resources_and_objects() {
    let server = ApiServer::start().await.expect("start");
    install(&server, foo_crd()).await;
    let api: Api<DynamicObject> =
        Api::default_namespaced_with(server.client(), &foo_resource("v1"));
    api.create(&PostParams::default(), &foo("a", json!({"size": 1})))
        .await
        .expect("create");
    let mut watch = api
        .watch(&WatchParams::default().disable_bookmarks(), "0")
        .await
        .expect("watch")
        .boxed();
    assert!(matches!(
        watch.try_next().await.expect("event"),
        Some(WatchEvent::Added(_))
    ));
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    crds.delete("foos.example.com", &Default::default())
        .await
        .expect("delete crd");
    assert!(matches!(
        watch.try_next().await.expect("event"),
        Some(WatchEvent::Deleted(_))
    ));
    assert!(
        watch.next().await.is_none(),
        "watches of the removed resource end"
    );
    assert_eq!(api_error(api.get("a").await).0, 404);
    assert_eq!(get(&server, "/apis/example.com/v1").await.status, 404);
    assert!(
        get(&server, "/apis").await.json()["groups"]
            .as_array()
            .expect("groups")
            .iter()
            .all(|g| g["name"] != "example.com")
    );
    // Re-creating the CRD starts from an empty store.
    install(&server, foo_crd()).await;
    assert!(
        api.list(&ListParams::default())
            .await
            .expect("list")
            .items
            .is_empty()
    );
}

#[tokio::test]
async fn invalid_crds_are_rejected() {
    let server = ApiServer::start().await.expect("start");
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    let mut wrong_name = foo_crd();
    wrong_name["metadata"]["name"] = json!("foos.other.com");
    let mut two_storage = foo_crd();
    two_storage["spec"]["versions"][1]["storage"] = json!(true);
    for crd in [wrong_name, two_storage] {
        let crd: CustomResourceDefinition = serde_json::from_value(crd).expect("crd");
        assert_eq!(
            api_error(crds.create(&PostParams::default(), &crd).await),
            (422, "Invalid".into())
        );
    }
}

fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("KUBEGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"))
        .join("crds");
    dir.is_dir().then_some(dir)
}

fn read_yaml(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).expect("read");
    let text = text.trim_start_matches("---\n");
    serde_saphyr::from_str(text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[tokio::test]
async fn every_corpus_crd_registers_and_accepts_its_example() {
    let Some(dir) = corpus_dir() else {
        println!("skipping: CRD corpus not found (set KUBEGEN_CORPUS to the corpus directory)");
        return;
    };
    let server = ApiServer::start().await.expect("start");
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read corpus")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    let mut installed = 0;
    for path in files.iter().filter(|p| {
        p.extension().is_some_and(|e| e == "yaml")
            && !p.to_string_lossy().ends_with(".example.yaml")
    }) {
        let crd: CustomResourceDefinition = serde_json::from_value(read_yaml(path))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let created = crds
            .create(&PostParams::default(), &crd)
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(created.status.is_some_and(|s| {
            s.conditions
                .is_some_and(|c| c.iter().any(|c| c.type_ == "Established"))
        }));
        installed += 1;
    }
    assert!(installed > 10, "the corpus holds many CRDs");
    let namespaces: Api<Namespace> = Api::all(server.client());
    let mut accepted = 0;
    for path in files
        .iter()
        .filter(|p| p.to_string_lossy().ends_with(".example.yaml"))
    {
        let example = read_yaml(path);
        let api_version = example["apiVersion"].as_str().expect("apiVersion");
        let kind = example["kind"].as_str().expect("kind");
        let (group, version) = api_version.split_once('/').expect("group/version");
        let crd = crds
            .list(&ListParams::default())
            .await
            .expect("list crds")
            .items
            .into_iter()
            .find(|c| c.spec.group == group && c.spec.names.kind == kind)
            .unwrap_or_else(|| panic!("{}: no CRD for {api_version} {kind}", path.display()));
        let resource = ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk(group, version, kind),
            &crd.spec.names.plural,
        );
        let object: DynamicObject =
            serde_json::from_value(example.clone()).expect("dynamic object");
        let api: Api<DynamicObject> = if crd.spec.scope == "Namespaced" {
            let namespace = object
                .metadata
                .namespace
                .clone()
                .unwrap_or_else(|| "default".to_owned());
            if namespaces
                .get_opt(&namespace)
                .await
                .expect("get namespace")
                .is_none()
            {
                create_namespace(&server, &namespace).await;
            }
            Api::namespaced_with(server.client(), &namespace, &resource)
        } else {
            Api::all_with(server.client(), &resource)
        };
        let created = api
            .create(&PostParams::default(), &object)
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        match (&object.metadata.name, &object.metadata.generate_name) {
            (Some(name), _) => assert_eq!(created.metadata.name.as_ref(), Some(name)),
            (None, Some(prefix)) => assert!(
                created
                    .metadata
                    .name
                    .expect("generated")
                    .starts_with(prefix.as_str())
            ),
            (None, None) => panic!("{}: example without a name", path.display()),
        }
        accepted += 1;
    }
    assert!(accepted > 5, "the corpus holds examples");
    println!("corpus: {installed} CRDs installed, {accepted} examples accepted");
}

#[tokio::test]
async fn updating_a_crd_changes_what_is_served() {
    let server = ApiServer::start().await.expect("start");
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    install(&server, foo_crd()).await;
    let api: Api<DynamicObject> =
        Api::default_namespaced_with(server.client(), &foo_resource("v1"));
    api.create(&PostParams::default(), &foo("kept", json!({"size": 1})))
        .await
        .expect("create");
    // Add a served v2 that preserves unknown fields, and stop serving v1beta1.
    let patch = json!({"spec": {"versions": [
        foo_crd()["spec"]["versions"][0].clone(),
        {"name": "v1beta1", "served": false, "storage": false, "schema": {"openAPIV3Schema": {"type": "object"}}},
        {"name": "v2", "served": true, "storage": false,
         "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}
    ]}});
    let updated = crds
        .patch(
            "foos.example.com",
            &PatchParams::default(),
            &Patch::Merge(patch),
        )
        .await
        .expect("update crd");
    assert_eq!(updated.metadata.generation, Some(2));
    assert_eq!(get(&server, "/apis/example.com/v1beta1").await.status, 404);
    let group = get(&server, "/apis/example.com").await.json();
    let versions: Vec<&str> = group["versions"]
        .as_array()
        .expect("versions")
        .iter()
        .filter_map(|v| v["version"].as_str())
        .collect();
    assert_eq!(versions, ["v2", "v1"]);
    let v2: Api<DynamicObject> = Api::default_namespaced_with(server.client(), &foo_resource("v2"));
    let kept = v2.get("kept").await.expect("objects survive a CRD update");
    assert_eq!(kept.types.expect("types").api_version, "example.com/v2");
    let mut free = DynamicObject::new("free", &foo_resource("v2"));
    free.data = json!({"spec": {"anything": {"goes": true}}, "extra": 1});
    let created = v2
        .create(&PostParams::default(), &free)
        .await
        .expect("v2 preserves unknown fields");
    assert_eq!(created.data["spec"]["anything"]["goes"], true);
    assert_eq!(created.data["extra"], 1);

    // Serving no version at all removes the group from discovery.
    let mut unserved = updated.clone();
    for version in &mut unserved.spec.versions {
        version.served = false;
    }
    crds.replace("foos.example.com", &PostParams::default(), &unserved)
        .await
        .expect("unserve");
    assert_eq!(get(&server, "/apis/example.com").await.status, 404);
    assert_eq!(api_error(v2.get("kept").await).0, 404);
}
