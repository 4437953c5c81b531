//! Server-side apply with field ownership: two managers applying different fields of one
//! Deployment keep each other's fields, drop only their own, conflict (409) on fields
//! another manager owns unless forced, and `metadata.managedFields` holds what a real
//! API server writes. Expected field sets follow the server-side apply documentation
//! (https://kubernetes.io/docs/reference/using-api/server-side-apply/): an Apply entry
//! owns exactly the fields of its configuration; list items and map entries are
//! members, structs on the way are not.

mod testkit_support;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{
    Api, ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams, PostParams,
};
use kubegen_testkit::ApiServer;
use serde_json::{Value, json};
use testkit_support::{raw, raw_with};

const PATH: &str = "/apis/apps/v1/namespaces/default/deployments/web";

fn web() -> Deployment {
    serde_json::from_value(json!({
        "metadata": {"name": "web"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx"}]},
            },
        },
    }))
    .expect("deployment")
}

/// `(manager, operation, subresource) -> fieldsV1` of an object's entries, in order,
/// after checking the fields every entry has.
fn owners(object: &Value) -> Vec<(String, String, String, Value)> {
    let entries = object["metadata"]["managedFields"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    entries
        .iter()
        .map(|e| {
            assert_eq!(e["fieldsType"], "FieldsV1", "{e}");
            assert!(e["apiVersion"].is_string(), "{e}");
            let time = e["time"].as_str().expect("time");
            assert!(time.len() == 20 && time.ends_with('Z'), "{time}");
            (
                e["manager"].as_str().unwrap_or_default().to_owned(),
                e["operation"].as_str().unwrap_or_default().to_owned(),
                e["subresource"].as_str().unwrap_or_default().to_owned(),
                e["fieldsV1"].clone(),
            )
        })
        .collect()
}

fn owner<'a>(object: &'a [(String, String, String, Value)], manager: &str) -> Option<&'a Value> {
    object
        .iter()
        .find(|(m, op, _, _)| m == manager && op == "Apply")
        .map(|(_, _, _, fields)| fields)
}

async fn apply(
    api: &Api<Deployment>,
    manager: &str,
    force: bool,
    config: Value,
) -> Result<Value, kube::Error> {
    let mut params = PatchParams::apply(manager);
    params.force = force;
    let mut config = config;
    config["apiVersion"] = json!("apps/v1");
    config["kind"] = json!("Deployment");
    config["metadata"]["name"] = json!("web");
    let applied = api.patch("web", &params, &Patch::Apply(&config)).await?;
    Ok(serde_json::to_value(applied).expect("json"))
}

/// A raw apply, to see the whole Status of a failure.
async fn raw_apply(server: &ApiServer, query: &str, config: Value) -> (u16, Value) {
    let mut config = config;
    config["apiVersion"] = json!("apps/v1");
    config["kind"] = json!("Deployment");
    config["metadata"]["name"] = json!("web");
    let response = raw(
        server,
        "PATCH",
        &format!("{PATH}?{query}"),
        Some("application/apply-patch+yaml"),
        &config.to_string(),
    )
    .await;
    (response.status, response.json())
}

#[tokio::test]
async fn two_managers_own_different_fields_without_clobbering() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<Deployment> = Api::default_namespaced(server.client());
    let params = PostParams {
        field_manager: Some("creator".to_owned()),
        ..Default::default()
    };
    let created = api.create(&params, &web()).await.expect("create");
    let created = serde_json::to_value(created).expect("json");
    let entries = owners(&created);
    assert_eq!(entries.len(), 1, "{entries:?}");
    let (manager, operation, subresource, fields) = &entries[0];
    assert_eq!(
        (manager.as_str(), operation.as_str(), subresource.as_str()),
        ("creator", "Update", "")
    );
    // The creator owns what it sent and what defaulting set (replicas), never the
    // metadata the server sets.
    assert_eq!(fields["f:spec"]["f:replicas"], json!({}));
    assert_eq!(
        fields["f:spec"]["f:selector"],
        json!({}),
        "an atomic struct is a leaf"
    );
    assert_eq!(
        fields["f:spec"]["f:template"]["f:metadata"]["f:labels"],
        json!({".": {}, "f:app": {}}),
        "a map added by an update is owned with its entries"
    );
    assert_eq!(
        fields["f:spec"]["f:template"]["f:spec"]["f:containers"],
        json!({"k:{\"name\":\"web\"}": {".": {}, "f:image": {}, "f:name": {}}})
    );
    assert!(fields.get("f:metadata").is_none(), "{fields}");

    // Manager a applies replicas: the creator owns it (defaulted to 1), so 409...
    let a_config = json!({"metadata": {}, "spec": {"replicas": 3, "minReadySeconds": 5}});
    let (code, status) = raw_apply(&server, "fieldManager=a", a_config.clone()).await;
    assert_eq!(code, 409, "{status}");
    assert_eq!(status["reason"], "Conflict");
    let causes = status["details"]["causes"].as_array().expect("causes");
    assert_eq!(causes.len(), 1, "{status}");
    assert_eq!(causes[0]["reason"], "FieldManagerConflict");
    assert_eq!(causes[0]["field"], ".spec.replicas");
    let message = causes[0]["message"].as_str().expect("message");
    assert!(
        message.starts_with("conflict with \"creator\" using apps/v1 at "),
        "{message}"
    );
    assert!(
        status["message"]
            .as_str()
            .expect("message")
            .starts_with("Apply failed with 1 conflict: conflict with \"creator\" using apps/v1"),
        "{status}"
    );
    // ...and forcing takes it over.
    let forced = apply(&api, "a", true, a_config)
        .await
        .expect("forced apply");
    assert_eq!(forced["spec"]["replicas"], 3);
    let entries = owners(&forced);
    assert_eq!(
        owner(&entries, "a"),
        Some(&json!({"f:spec": {"f:minReadySeconds": {}, "f:replicas": {}}}))
    );
    let creator = &entries
        .iter()
        .find(|e| e.0 == "creator")
        .expect("creator")
        .3;
    assert!(creator["f:spec"].get("f:replicas").is_none(), "{creator}");
    assert_eq!(entries[0].1, "Apply", "Apply entries sort first");

    // Manager b applies a label and an annotation: no conflict, a's fields untouched.
    let b_config = json!({"metadata": {"labels": {"team": "x"}, "annotations": {"note": "y"}}});
    let both = apply(&api, "b", false, b_config).await.expect("b applies");
    assert_eq!(both["spec"]["replicas"], 3);
    assert_eq!(both["spec"]["minReadySeconds"], 5);
    let entries = owners(&both);
    assert_eq!(
        owner(&entries, "b"),
        Some(&json!({"f:metadata": {"f:annotations": {"f:note": {}}, "f:labels": {"f:team": {}}}}))
    );
    assert_eq!(
        owner(&entries, "a"),
        Some(&json!({"f:spec": {"f:minReadySeconds": {}, "f:replicas": {}}}))
    );

    // a re-applies without minReadySeconds: it goes, b's label and annotation stay.
    let a_again = apply(
        &api,
        "a",
        false,
        json!({"metadata": {}, "spec": {"replicas": 3}}),
    )
    .await
    .expect("a re-applies");
    assert!(
        a_again["spec"].get("minReadySeconds").is_none(),
        "{a_again}"
    );
    assert_eq!(a_again["metadata"]["labels"]["team"], "x");
    assert_eq!(a_again["metadata"]["annotations"]["note"], "y");
    assert_eq!(
        owner(&owners(&a_again), "a"),
        Some(&json!({"f:spec": {"f:replicas": {}}}))
    );
    // b re-applies without the annotation: it goes, a's replicas stay.
    let b_again = apply(
        &api,
        "b",
        false,
        json!({"metadata": {"labels": {"team": "x"}}}),
    )
    .await
    .expect("b re-applies");
    assert!(
        b_again["metadata"].get("annotations").is_none(),
        "{b_again}"
    );
    assert_eq!(b_again["metadata"]["labels"]["team"], "x");
    assert_eq!(
        b_again["metadata"]["labels"].as_object().map(|l| l.len()),
        Some(1)
    );
    assert_eq!(b_again["spec"]["replicas"], 3);
    assert_eq!(
        owner(&owners(&b_again), "b"),
        Some(&json!({"f:metadata": {"f:labels": {"f:team": {}}}}))
    );

    // b applying a different replicas conflicts with a (an Apply manager)...
    let replicas = |n: u32| json!({"metadata": {"labels": {"team": "x"}}, "spec": {"replicas": n}});
    let (code, status) = raw_apply(&server, "fieldManager=b", replicas(5)).await;
    assert_eq!(code, 409, "{status}");
    assert_eq!(
        status["details"]["causes"][0]["message"],
        "conflict with \"a\""
    );
    assert_eq!(
        status["message"],
        "Apply failed with 1 conflict: conflict with \"a\": .spec.replicas"
    );
    // ...the same value is shared ownership...
    let shared = apply(&api, "b", false, replicas(3))
        .await
        .expect("same value");
    let entries = owners(&shared);
    assert_eq!(
        owner(&entries, "a"),
        Some(&json!({"f:spec": {"f:replicas": {}}}))
    );
    assert_eq!(
        owner(&entries, "b"),
        Some(&json!({"f:metadata": {"f:labels": {"f:team": {}}}, "f:spec": {"f:replicas": {}}}))
    );
    // ...and forcing transfers it: a owned nothing else, so its entry goes.
    let taken = apply(&api, "b", true, replicas(5)).await.expect("force");
    assert_eq!(taken["spec"]["replicas"], 5);
    let entries = owners(&taken);
    assert_eq!(owner(&entries, "a"), None, "{entries:?}");
    // a dropping a field it no longer owns does not remove b's value.
    let a_empty = apply(&api, "a", false, json!({"metadata": {}}))
        .await
        .expect("a empty");
    assert_eq!(a_empty["spec"]["replicas"], 5);

    // An update that changes b's label moves it to the updater...
    let editor = PatchParams {
        field_manager: Some("editor".to_owned()),
        ..Default::default()
    };
    let edited = api
        .patch(
            "web",
            &editor,
            &Patch::Merge(json!({"metadata": {"labels": {"team": "z"}}})),
        )
        .await
        .expect("merge patch");
    let edited = serde_json::to_value(edited).expect("json");
    let entries = owners(&edited);
    let editor_fields = &entries
        .iter()
        .find(|e| e.0 == "editor" && e.1 == "Update")
        .expect("editor")
        .3;
    assert_eq!(
        editor_fields,
        &json!({"f:metadata": {"f:labels": {"f:team": {}}}})
    );
    assert_eq!(
        owner(&entries, "b"),
        Some(&json!({"f:spec": {"f:replicas": {}}}))
    );
    // ...so b re-applying its old value conflicts with the updater.
    let (code, status) = raw_apply(&server, "fieldManager=b", replicas(5)).await;
    assert_eq!(code, 409, "{status}");
    let message = status["details"]["causes"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.starts_with("conflict with \"editor\" using apps/v1 at "),
        "{status}"
    );
    assert_eq!(
        status["details"]["causes"][0]["field"],
        ".metadata.labels.team"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn status_apply_and_list_items_owned_by_key() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<Deployment> = Api::default_namespaced(server.client());
    // Apply creates; each container is owned by its name, each port by its keys.
    let config = json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx",
                    "ports": [{"containerPort": 80, "protocol": "TCP"}]}]},
            },
        },
    });
    let created = api
        .patch(
            "web",
            &PatchParams::apply("deployer"),
            &Patch::Apply(&config),
        )
        .await
        .expect("apply creates");
    let created = serde_json::to_value(created).expect("json");
    assert_eq!(
        owners(&created),
        vec![(
            "deployer".to_owned(),
            "Apply".to_owned(),
            String::new(),
            json!({"f:spec": {
                "f:selector": {},
                "f:template": {
                    "f:metadata": {"f:labels": {"f:app": {}}},
                    "f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {
                        ".": {}, "f:image": {}, "f:name": {},
                        "f:ports": {"k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {
                            ".": {}, "f:containerPort": {}, "f:protocol": {}
                        }},
                    }}},
                },
            }}),
        )]
    );
    // A sidecar applied by another manager is merged into the list by name.
    let sidecar = json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [{"name": "log", "image": "busybox"}]}}},
    });
    let merged = api
        .patch(
            "web",
            &PatchParams::apply("sidecar"),
            &Patch::Apply(&sidecar),
        )
        .await
        .expect("sidecar");
    let merged = serde_json::to_value(merged).expect("json");
    let containers = merged["spec"]["template"]["spec"]["containers"]
        .as_array()
        .cloned();
    let names: Vec<Value> = containers
        .unwrap_or_default()
        .iter()
        .map(|c| c["name"].clone())
        .collect();
    assert_eq!(names, [json!("web"), json!("log")]);

    // Status applied through /status is owned with subresource "status".
    let status = json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "status": {"replicas": 2, "observedGeneration": 1},
    });
    let with_status = api
        .patch_status(
            "web",
            &PatchParams::apply("status-writer"),
            &Patch::Apply(&status),
        )
        .await
        .expect("status apply");
    assert_eq!(
        with_status.status.as_ref().and_then(|s| s.replicas),
        Some(2)
    );
    let with_status = serde_json::to_value(with_status).expect("json");
    let entry = owners(&with_status)
        .into_iter()
        .find(|e| e.0 == "status-writer")
        .expect("status entry");
    assert_eq!(
        (entry.1.as_str(), entry.2.as_str(), entry.3),
        (
            "Apply",
            "status",
            json!({"f:status": {"f:observedGeneration": {}, "f:replicas": {}}})
        )
    );
    // Status sent to the main resource is neither stored nor owned.
    let mut main = status.clone();
    main["status"]["replicas"] = json!(7);
    let ignored = api
        .patch(
            "web",
            &PatchParams::apply("main-writer"),
            &Patch::Apply(&main),
        )
        .await
        .expect("main apply");
    assert_eq!(ignored.status.as_ref().and_then(|s| s.replicas), Some(2));
    let ignored = serde_json::to_value(ignored).expect("json");
    assert!(
        owners(&ignored).iter().all(|e| e.0 != "main-writer"),
        "an apply owning nothing has no entry"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn field_managers_default_to_the_user_agent_and_are_validated() {
    let server = ApiServer::start().await.expect("start");
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ua"}, "data": {"k": "v"}});
    let created = raw_with(
        &server,
        "POST",
        "/api/v1/namespaces/default/configmaps",
        &[
            ("Content-Type", "application/json"),
            ("User-Agent", "my-tool/1.2 (linux/amd64)"),
        ],
        &body.to_string(),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    // As a real server records the creation of a ConfigMap: its data map is new, so it
    // is owned with its entries.
    let created = created.json();
    assert_eq!(
        owners(&created),
        vec![(
            "my-tool".to_owned(),
            "Update".to_owned(),
            String::new(),
            json!({"f:data": {".": {}, "f:k": {}}})
        )]
    );
    assert_eq!(created["metadata"]["managedFields"][0]["apiVersion"], "v1");
    let long = "m".repeat(129);
    let refused = raw(
        &server,
        "POST",
        &format!("/api/v1/namespaces/default/configmaps?fieldManager={long}"),
        Some("application/json"),
        &json!({"metadata": {"name": "long"}}).to_string(),
    )
    .await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    let message = refused.json()["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        message.contains("fieldManager: Too long: may not be more than 128 bytes"),
        "{message}"
    );
    // A no-op update records nothing new and keeps the resourceVersion.
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let current = api.get("ua").await.expect("get");
    let params = PostParams {
        field_manager: Some("other".to_owned()),
        ..Default::default()
    };
    let same = api.replace("ua", &params, &current).await.expect("replace");
    assert_eq!(
        same.metadata.resource_version,
        current.metadata.resource_version
    );
    assert_eq!(
        same.metadata.managed_fields,
        current.metadata.managed_fields
    );
    server.shutdown().await;
}

fn route_crd() -> CustomResourceDefinition {
    let schema = json!({
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {
            "ports": {
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["port"],
                "items": {"type": "object", "properties": {
                    "port": {"type": "integer"}, "name": {"type": "string"},
                }},
            },
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "hosts": {"type": "array", "items": {"type": "string"}},
        }}},
    });
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "routes.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "routes", "singular": "route", "kind": "Route"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                          "schema": {"openAPIV3Schema": schema}}],
        },
    }))
    .expect("crd")
}

#[tokio::test]
async fn custom_resources_merge_lists_by_their_schema_list_types() {
    let server = ApiServer::start().await.expect("start");
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    crds.create(&PostParams::default(), &route_crd())
        .await
        .expect("crd");
    let resource = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("example.com", "v1", "Route"),
        "routes",
    );
    let api: Api<DynamicObject> = Api::default_namespaced_with(server.client(), &resource);
    let apply = |manager: &'static str, spec: Value| {
        let api = api.clone();
        async move {
            let config = json!({
                "apiVersion": "example.com/v1", "kind": "Route",
                "metadata": {"name": "r"}, "spec": spec,
            });
            api.patch("r", &PatchParams::apply(manager), &Patch::Apply(&config))
                .await
                .map(|o| serde_json::to_value(o).expect("json"))
        }
    };
    apply(
        "one",
        json!({"ports": [{"port": 80, "name": "http"}], "tags": ["a"], "hosts": ["x"]}),
    )
    .await
    .expect("one applies");
    let both = apply(
        "two",
        json!({"ports": [{"port": 443, "name": "https"}], "tags": ["b"]}),
    )
    .await
    .expect("two applies");
    assert_eq!(
        both["spec"],
        json!({
            "ports": [{"port": 80, "name": "http"}, {"port": 443, "name": "https"}],
            "tags": ["a", "b"],
            "hosts": ["x"],
        })
    );
    let entries = owners(&both);
    assert_eq!(
        owner(&entries, "one"),
        Some(&json!({"f:spec": {
            "f:hosts": {},
            "f:ports": {"k:{\"port\":80}": {".": {}, "f:name": {}, "f:port": {}}},
            "f:tags": {"v:\"a\"": {}},
        }}))
    );
    assert_eq!(
        owner(&entries, "two"),
        Some(&json!({"f:spec": {
            "f:ports": {"k:{\"port\":443}": {".": {}, "f:name": {}, "f:port": {}}},
            "f:tags": {"v:\"b\"": {}},
        }}))
    );
    // An atomic list is owned as a whole: another value conflicts.
    let conflict = apply("two", json!({"hosts": ["y"]})).await;
    match conflict {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 409);
            assert_eq!(
                status.message,
                "Apply failed with 1 conflict: conflict with \"one\": .spec.hosts"
            );
        }
        other => panic!("expected a conflict, got {other:?}"),
    }
    // Dropping an item removes it alone.
    let dropped = apply("one", json!({"tags": ["a"], "hosts": ["x"]}))
        .await
        .expect("one drops its port");
    assert_eq!(
        dropped["spec"]["ports"],
        json!([{"port": 443, "name": "https"}])
    );
    assert_eq!(dropped["spec"]["tags"], json!(["a", "b"]));
    server.shutdown().await;
}
