//! Object semantics through `kube::Api`: identity, generateName, resourceVersions,
//! optimistic concurrency, generation, validation and built-in defaulting.

mod testkit_support;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Pod, PodSpec, Secret, Service};
use kube::api::{Api, DeleteParams, ListParams, ObjectMeta, Patch, PatchParams, PostParams};
use kubegen_testkit::ApiServer;
use serde_json::json;
use testkit_support::{api_error, configmap, create_namespace, deployment, meta};

#[tokio::test]
async fn create_sets_identity_and_get_returns_it() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let created = api
        .create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create");
    let meta = &created.metadata;
    assert_eq!(meta.namespace.as_deref(), Some("default"));
    assert!(meta.uid.as_ref().is_some_and(|u| u.len() == 36));
    assert!(meta.creation_timestamp.is_some());
    assert_eq!(meta.generation, None, "a ConfigMap has no generation");
    let fetched = api.get("a").await.expect("get");
    assert_eq!(fetched.metadata.uid, meta.uid);
    assert_eq!(fetched.metadata.resource_version, meta.resource_version);
    assert_eq!(fetched.data, created.data);
}

#[tokio::test]
async fn generate_name_makes_unique_names() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let template = ConfigMap {
        metadata: ObjectMeta {
            generate_name: Some("job-".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let a = api
        .create(&PostParams::default(), &template)
        .await
        .expect("first");
    let b = api
        .create(&PostParams::default(), &template)
        .await
        .expect("second");
    let (a, b) = (
        a.metadata.name.expect("name"),
        b.metadata.name.expect("name"),
    );
    assert!(a.starts_with("job-") && a.len() == 9, "{a}");
    assert_ne!(a, b);
}

#[tokio::test]
async fn every_write_gets_a_higher_resource_version() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let rv = |cm: &ConfigMap| {
        cm.metadata
            .resource_version
            .clone()
            .expect("rv")
            .parse::<u64>()
            .expect("numeric")
    };
    let created = api
        .create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create");
    let mut changed = created.clone();
    changed.data = Some([("value".to_owned(), "2".to_owned())].into());
    let updated = api
        .replace("a", &PostParams::default(), &changed)
        .await
        .expect("update");
    let patched = api
        .patch(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"value": "3"}})),
        )
        .await
        .expect("patch");
    assert!(rv(&created) < rv(&updated) && rv(&updated) < rv(&patched));
    assert_eq!(server.resource_version(), rv(&patched));
}

#[tokio::test]
async fn duplicate_create_is_already_exists_and_missing_is_not_found() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create");
    assert_eq!(
        api_error(
            api.create(&PostParams::default(), &configmap("a", "1"))
                .await
        ),
        (409, "AlreadyExists".into())
    );
    assert_eq!(
        api_error(api.get("missing").await),
        (404, "NotFound".into())
    );
    assert_eq!(
        api_error(api.delete("missing", &DeleteParams::default()).await),
        (404, "NotFound".into())
    );
}

#[tokio::test]
async fn namespaced_create_needs_an_existing_namespace() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::namespaced(server.client(), "nowhere");
    assert_eq!(
        api_error(
            api.create(&PostParams::default(), &configmap("a", "1"))
                .await
        ),
        (404, "NotFound".into())
    );
    create_namespace(&server, "nowhere").await;
    api.create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create after namespace exists");
}

#[tokio::test]
async fn invalid_names_are_rejected_with_causes() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    match api
        .create(&PostParams::default(), &configmap("Bad_Name", "1"))
        .await
    {
        Err(kube::Error::Api(status)) => {
            assert_eq!((status.code, status.reason.as_str()), (422, "Invalid"));
            assert!(
                status.message.contains("metadata.name"),
                "{}",
                status.message
            );
        }
        other => panic!("expected 422, got {other:?}"),
    }
    let unnamed = ConfigMap::default();
    assert_eq!(
        api_error(api.create(&PostParams::default(), &unnamed).await).0,
        422
    );
}

#[tokio::test]
async fn stale_updates_conflict_and_unconditional_updates_win() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let first = api
        .create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create");
    let mut second = first.clone();
    second.data = Some([("value".to_owned(), "2".to_owned())].into());
    api.replace("a", &PostParams::default(), &second)
        .await
        .expect("update with current rv");
    let mut stale = first.clone();
    stale.data = Some([("value".to_owned(), "stale".to_owned())].into());
    assert_eq!(
        api_error(api.replace("a", &PostParams::default(), &stale).await),
        (409, "Conflict".into())
    );
    stale.metadata.resource_version = None;
    let forced = api
        .replace("a", &PostParams::default(), &stale)
        .await
        .expect("unconditional update");
    assert_eq!(forced.data.expect("data")["value"], "stale");
}

#[tokio::test]
async fn a_no_op_update_keeps_the_resource_version() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let created = api
        .create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create");
    let same = api
        .replace("a", &PostParams::default(), &created)
        .await
        .expect("no-op update");
    assert_eq!(
        same.metadata.resource_version,
        created.metadata.resource_version
    );
}

#[tokio::test]
async fn generation_is_set_where_the_kinds_registry_strategy_sets_it() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<Deployment> = Api::default_namespaced(server.client());
    let created = api
        .create(&PostParams::default(), &deployment("web", 1))
        .await
        .expect("create");
    assert_eq!(created.metadata.generation, Some(1));
    let labelled = api
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"x": "y"}}})),
        )
        .await
        .expect("label");
    assert_eq!(
        labelled.metadata.generation,
        Some(1),
        "label changes do not bump generation"
    );
    let status = api
        .patch_status(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"replicas": 1}})),
        )
        .await
        .expect("status");
    assert_eq!(
        status.metadata.generation,
        Some(1),
        "status changes do not bump generation"
    );
    let ignored = api
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"generation": 40}, "status": {"replicas": 5}})),
        )
        .await
        .expect("generation and status through the main resource");
    assert_eq!(
        ignored.metadata.generation,
        Some(1),
        "a request cannot set generation"
    );
    let scaled = api
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 3}})),
        )
        .await
        .expect("spec");
    assert_eq!(scaled.metadata.generation, Some(2));
    let annotated = api
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"annotations": {"a": "b"}}})),
        )
        .await
        .expect("annotate");
    assert_eq!(
        annotated.metadata.generation,
        Some(3),
        "a Deployment's annotations count, as its registry strategy says"
    );

    let configmaps: Api<ConfigMap> = Api::default_namespaced(server.client());
    let created = configmaps
        .create(&PostParams::default(), &configmap("c", "1"))
        .await
        .expect("create cm");
    assert_eq!(created.metadata.generation, None);
    let changed = configmaps
        .patch(
            "c",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"value": "2"}, "metadata": {"annotations": {"a": "b"}}})),
        )
        .await
        .expect("patch cm");
    assert_eq!(
        changed.metadata.generation, None,
        "a ConfigMap never gets a generation"
    );
    let mut replaced = changed.clone();
    replaced.data = Some([("value".to_owned(), "3".to_owned())].into());
    let replaced = configmaps
        .replace("c", &PostParams::default(), &replaced)
        .await
        .expect("replace cm");
    assert_eq!(replaced.metadata.generation, None);
    // Marking it deleted (it has a finalizer) does not give it one either.
    configmaps
        .patch(
            "c",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"finalizers": ["example.com/hold"]}})),
        )
        .await
        .expect("add finalizer");
    configmaps
        .delete("c", &DeleteParams::default())
        .await
        .expect("delete");
    let marked = configmaps.get("c").await.expect("marked");
    assert!(marked.metadata.deletion_timestamp.is_some());
    assert_eq!(marked.metadata.generation, None);
    // A Deployment's is bumped by the mark.
    api.patch(
        "web",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": ["example.com/hold"]}})),
    )
    .await
    .expect("add finalizer");
    api.delete("web", &DeleteParams::default())
        .await
        .expect("delete");
    let marked = api.get("web").await.expect("marked");
    assert_eq!(marked.metadata.generation, Some(4));
}

#[tokio::test]
async fn built_in_defaults_for_secrets_pods_services_and_leases() {
    let server = ApiServer::start().await.expect("start");
    let secrets: Api<Secret> = Api::default_namespaced(server.client());
    let secret = Secret {
        metadata: meta("s"),
        string_data: Some([("user".to_owned(), "admin".to_owned())].into()),
        ..Default::default()
    };
    let created = secrets
        .create(&PostParams::default(), &secret)
        .await
        .expect("secret");
    assert_eq!(created.data.expect("data")["user"].0, b"admin".to_vec());
    assert_eq!(created.type_.as_deref(), Some("Opaque"));
    assert!(created.string_data.is_none());

    let pods: Api<Pod> = Api::default_namespaced(server.client());
    let pod = Pod {
        metadata: meta("p"),
        spec: Some(PodSpec::default()),
        ..Default::default()
    };
    let pod = pods
        .create(&PostParams::default(), &pod)
        .await
        .expect("pod");
    assert_eq!(pod.status.and_then(|s| s.phase).as_deref(), Some("Pending"));

    let services: Api<Service> = Api::default_namespaced(server.client());
    services
        .create(
            &PostParams::default(),
            &Service {
                metadata: meta("svc"),
                ..Default::default()
            },
        )
        .await
        .expect("service");
    let leases: Api<Lease> = Api::namespaced(server.client(), "kube-system");
    leases
        .create(
            &PostParams::default(),
            &Lease {
                metadata: meta("leader"),
                ..Default::default()
            },
        )
        .await
        .expect("lease");
    assert!(leases.get("leader").await.is_ok());
}

#[tokio::test]
async fn cluster_scoped_objects_have_no_namespace() {
    let server = ApiServer::start().await.expect("start");
    let namespaces: Api<Namespace> = Api::all(server.client());
    let names: Vec<String> = namespaces
        .list(&ListParams::default())
        .await
        .expect("list")
        .items
        .into_iter()
        .filter_map(|n| n.metadata.name)
        .collect();
    for expected in ["default", "kube-system"] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} exists at start"
        );
    }
    let created = namespaces
        .create(
            &PostParams::default(),
            &Namespace {
                metadata: meta("x"),
                ..Default::default()
            },
        )
        .await
        .expect("create");
    assert!(created.metadata.namespace.is_none());
    assert_eq!(
        created.status.and_then(|s| s.phase).as_deref(),
        Some("Active")
    );
}

#[tokio::test]
async fn invalid_labels_and_annotations_are_rejected() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let mut bad_value = configmap("a", "1");
    bad_value.metadata.labels = Some([("app".to_owned(), "not valid!".to_owned())].into());
    assert_eq!(
        api_error(api.create(&PostParams::default(), &bad_value).await),
        (422, "Invalid".into())
    );
    let mut bad_key = configmap("a", "1");
    bad_key.metadata.annotations = Some([("bad key".to_owned(), "x".to_owned())].into());
    assert_eq!(
        api_error(api.create(&PostParams::default(), &bad_key).await).0,
        422
    );
    let mut good = configmap("a", "1");
    good.metadata.labels = Some([("app.kubernetes.io/name".to_owned(), "web-1".to_owned())].into());
    api.create(&PostParams::default(), &good)
        .await
        .expect("valid labels");
    let relabel =
        Patch::Merge(json!({"metadata": {"labels": {"app.kubernetes.io/name": "-bad-"}}}));
    assert_eq!(
        api_error(api.patch("a", &PatchParams::default(), &relabel).await).0,
        422,
        "updates are validated too"
    );
}

#[tokio::test]
async fn dry_run_writes_are_validated_but_not_stored() {
    let server = ApiServer::start().await.expect("start");
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let dry = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let before = server.resource_version();
    let would_be = api
        .create(&dry, &configmap("a", "1"))
        .await
        .expect("dry-run create");
    assert_eq!(would_be.metadata.name.as_deref(), Some("a"));
    assert_eq!(api_error(api.get("a").await).0, 404, "nothing was stored");
    assert_eq!(server.resource_version(), before);
    assert_eq!(
        api_error(api.create(&dry, &configmap("Bad_Name", "1")).await).0,
        422,
        "still validated"
    );

    api.create(&PostParams::default(), &configmap("a", "1"))
        .await
        .expect("create");
    let patch = Patch::Merge(json!({"data": {"value": "2"}}));
    let patched = api
        .patch("a", &PatchParams::default().dry_run(), &patch)
        .await
        .expect("dry-run patch");
    assert_eq!(patched.data.expect("data")["value"], "2");
    assert_eq!(
        api.get("a").await.expect("get").data.expect("data")["value"],
        "1"
    );
    let delete = DeleteParams {
        dry_run: true,
        ..Default::default()
    };
    api.delete("a", &delete).await.expect("dry-run delete");
    assert!(
        api.get("a").await.is_ok(),
        "still there after a dry-run delete"
    );
    let bogus = testkit_support::raw(
        &server,
        "DELETE",
        "/api/v1/namespaces/default/configmaps/a?dryRun=Some",
        None,
        "",
    )
    .await;
    assert_eq!(bogus.status, 422);
}
