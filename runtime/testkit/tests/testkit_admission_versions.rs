//! Admission of `/scale` requests and `matchPolicy`, as kube-apiserver admits them, with
//! the runtime's real HTTPS webhook server (`kubegen_runtime::webhook::WebhookServer`)
//! as the webhooks: a write through `/scale` is an UPDATE of subresource `scale` whose
//! objects are `autoscaling/v1` Scales, matched by `deployments/scale` or `*/scale`
//! rules (never by `deployments` alone); under `matchPolicy: Equivalent` a rule naming
//! another version of a CRD is called with the object at that version.

mod webhooks;

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::autoscaling::v1::Scale;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::admission::AdmissionRequest;
use kubegen_runtime::webhook::{Mutated, Mutator, Validator, Verdict};
use kubegen_testkit::ApiServer;
use kubegen_testkit::certs::TestCa;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use webhooks::{Running, api_error, configure, rule, webhook};

/// What a webhook saw of each request: kind, requestKind, subResource, the object.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    kind: String,
    request_kind: String,
    resource: String,
    sub_resource: Option<String>,
    object: Value,
    old_object: Value,
}

type Log = Arc<Mutex<Vec<Seen>>>;

fn record<K: Serialize + kube::Resource>(log: &Log, request: &AdmissionRequest<K>) {
    let gvk = |group: &str, version: &str, kind: &str| format!("{group}/{version} {kind}");
    let seen = Seen {
        kind: gvk(
            &request.kind.group,
            &request.kind.version,
            &request.kind.kind,
        ),
        request_kind: request
            .request_kind
            .as_ref()
            .map(|k| gvk(&k.group, &k.version, &k.kind))
            .unwrap_or_default(),
        resource: format!(
            "{}/{} {}",
            request.resource.group, request.resource.version, request.resource.resource
        ),
        sub_resource: request.sub_resource.clone(),
        object: serde_json::to_value(&request.object).expect("JSON"),
        old_object: serde_json::to_value(&request.old_object).expect("JSON"),
    };
    log.lock().expect("log").push(seen);
}

fn seen(log: &Log) -> Vec<Seen> {
    log.lock().expect("log").clone()
}

/// Denies a Scale of more than five replicas, and records what it saw.
struct AtMostFive(Log);

impl Validator<Scale> for AtMostFive {
    async fn validate_update(
        &self,
        _: &Scale,
        new: &Scale,
        request: &AdmissionRequest<Scale>,
    ) -> Verdict {
        record(&self.0, request);
        match new.spec.as_ref().and_then(|spec| spec.replicas) {
            Some(replicas) if replicas > 5 => {
                Verdict::deny(format!("{replicas} replicas: at most 5"))
            }
            _ => Verdict::allow(),
        }
    }
}

/// Caps a Scale at three replicas.
struct CapAtThree(Log);

impl Mutator<Scale> for CapAtThree {
    async fn mutate(
        &self,
        mut scale: Scale,
        request: &AdmissionRequest<Scale>,
    ) -> Result<Mutated<Scale>, Verdict> {
        record(&self.0, request);
        if let Some(spec) = scale.spec.as_mut() {
            spec.replicas = spec.replicas.map(|r| r.min(3));
        }
        Ok(scale.into())
    }
}

/// Denies every Deployment update, and records what it saw.
struct NoDeploymentUpdates(Log);

impl Validator<Deployment> for NoDeploymentUpdates {
    async fn validate_update(
        &self,
        _: &Deployment,
        _: &Deployment,
        request: &AdmissionRequest<Deployment>,
    ) -> Verdict {
        record(&self.0, request);
        match request.sub_resource.as_deref() {
            Some("status") => Verdict::allow(),
            _ => Verdict::deny("deployments are frozen"),
        }
    }
}

async fn certified(
    register: impl FnOnce(
        kubegen_runtime::webhook::WebhookServer,
    ) -> kubegen_runtime::webhook::WebhookServer,
) -> Running {
    let cert = TestCa::new()
        .expect("CA")
        .serving_cert(&["127.0.0.1"])
        .expect("certificate");
    Running::start(&cert, register).await
}

fn deployment(name: &str, replicas: i32) -> Deployment {
    serde_json::from_value(json!({
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "app", "image": "nginx"}]},
            },
        },
    }))
    .expect("a deployment")
}

fn scale_body(name: &str, replicas: i32) -> Scale {
    serde_json::from_value(json!({
        "apiVersion": "autoscaling/v1", "kind": "Scale",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"replicas": replicas},
    }))
    .expect("a Scale")
}

#[tokio::test]
async fn scale_writes_are_denied_by_a_deployments_scale_rule_with_its_reason() {
    let log = Log::default();
    let hook =
        certified(|server| server.validating::<Scale, _>("/scale", AtMostFive(log.clone()))).await;
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    configure(
        &client,
        false,
        "scale",
        vec![webhook(
            "scale.testkit.io",
            hook.url_config("/scale"),
            rule(&["UPDATE"], "apps", &["v1"], &["deployments/scale"]),
            json!({}),
        )],
    )
    .await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    deployments
        .create(&PostParams::default(), &deployment("web", 1))
        .await
        .expect("a create is not a scale");
    assert!(seen(&log).is_empty());

    let denial =
        "admission webhook \"scale.testkit.io\" denied the request: 10 replicas: at most 5";
    let (code, message) = api_error(
        deployments
            .replace_scale("web", &PostParams::default(), &scale_body("web", 10))
            .await,
    );
    assert_eq!((code, message.as_str()), (403, denial));
    let patch = Patch::Merge(json!({"spec": {"replicas": 10}}));
    let (code, message) = api_error(
        deployments
            .patch_scale("web", &PatchParams::default(), &patch)
            .await,
    );
    assert_eq!((code, message.as_str()), (403, denial));
    assert_eq!(
        deployments.get("web").await.expect("get").spec.replicas,
        Some(1),
        "denied scales are not stored"
    );

    let scaled = deployments
        .replace_scale("web", &PostParams::default(), &scale_body("web", 4))
        .await
        .expect("four replicas are allowed");
    assert_eq!(scaled.spec.and_then(|s| s.replicas), Some(4));
    let patch = Patch::Merge(json!({"spec": {"replicas": 5}}));
    let scaled = deployments
        .patch_scale("web", &PatchParams::default(), &patch)
        .await
        .expect("five replicas are allowed");
    assert_eq!(scaled.spec.and_then(|s| s.replicas), Some(5));
    assert_eq!(
        deployments.get("web").await.expect("get").spec.replicas,
        Some(5)
    );

    let calls = seen(&log);
    assert_eq!(calls.len(), 4);
    let last = &calls[3];
    assert_eq!(last.kind, "autoscaling/v1 Scale");
    assert_eq!(last.request_kind, "autoscaling/v1 Scale");
    assert_eq!(last.resource, "apps/v1 deployments");
    assert_eq!(last.sub_resource.as_deref(), Some("scale"));
    assert_eq!(last.object["kind"], "Scale");
    assert_eq!(last.object["spec"]["replicas"], 5);
    assert_eq!(last.old_object["spec"]["replicas"], 4);
    assert_eq!(last.object["status"]["selector"], "app=web");
    server.shutdown().await;
    hook.stop().await;
}

#[tokio::test]
async fn a_rule_on_the_resource_alone_is_not_called_for_scale_or_status_writes_carry_their_subresource()
 {
    let log = Log::default();
    let hook = certified(|server| {
        server.validating::<Deployment, _>("/deployments", NoDeploymentUpdates(log.clone()))
    })
    .await;
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    deployments
        .create(&PostParams::default(), &deployment("web", 1))
        .await
        .expect("create");
    configure(
        &client,
        false,
        "deployments",
        vec![
            webhook(
                "deployments.testkit.io",
                hook.url_config("/deployments"),
                rule(&["UPDATE"], "apps", &["*"], &["deployments"]),
                json!({}),
            ),
            webhook(
                "status.testkit.io",
                hook.url_config("/deployments"),
                rule(&["UPDATE"], "apps", &["*"], &["deployments/status"]),
                json!({}),
            ),
        ],
    )
    .await;
    let patch = Patch::Merge(json!({"spec": {"replicas": 2}}));
    let scaled = deployments
        .patch_scale("web", &PatchParams::default(), &patch)
        .await
        .expect("no rule names deployments/scale");
    assert_eq!(scaled.spec.and_then(|s| s.replicas), Some(2));
    assert!(seen(&log).is_empty(), "{:?}", seen(&log));

    let (code, message) = api_error(
        deployments
            .patch("web", &PatchParams::default(), &patch)
            .await,
    );
    assert_eq!(code, 403);
    assert!(message.ends_with("deployments are frozen"), "{message}");
    let status = Patch::Merge(json!({"status": {"replicas": 2}}));
    deployments
        .patch_status("web", &PatchParams::default(), &status)
        .await
        .expect("status writes are allowed");
    let calls = seen(&log);
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0].sub_resource, None);
    let status = &calls[1];
    assert_eq!(status.sub_resource.as_deref(), Some("status"));
    assert_eq!(status.kind, "apps/v1 Deployment");
    assert_eq!(status.object["kind"], "Deployment");
    assert_eq!(status.object["status"]["replicas"], 2);
    assert_eq!(status.object["spec"]["replicas"], 2);
    server.shutdown().await;
    hook.stop().await;
}

/// `gadgets.testkit.io`: v1alpha1 and v1 (stored), conversion `None`, with a scale
/// subresource at both versions.
fn gadgets_crd() -> CustomResourceDefinition {
    let version = |name: &str, storage: bool| {
        json!({
            "name": name, "served": true, "storage": storage,
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}, "size": {"type": "string"}}},
                "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
            }}},
            "subresources": {"status": {}, "scale": {
                "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
        })
    };
    serde_json::from_value(json!({
        "metadata": {"name": "gadgets.testkit.io"},
        "spec": {
            "group": "testkit.io",
            "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
            "versions": [version("v1alpha1", false), version("v1", true)],
        },
    }))
    .expect("a CRD")
}

fn gadgets(client: &kube::Client, version: &str) -> Api<DynamicObject> {
    let resource = ApiResource {
        group: "testkit.io".to_owned(),
        version: version.to_owned(),
        api_version: format!("testkit.io/{version}"),
        kind: "Gadget".to_owned(),
        plural: "gadgets".to_owned(),
    };
    Api::namespaced_with(client.clone(), "default", &resource)
}

fn gadget(version: &str, name: &str, replicas: i64) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": format!("testkit.io/{version}"), "kind": "Gadget",
        "metadata": {"name": name},
        "spec": {"replicas": replicas, "size": "small"},
    }))
    .expect("a gadget")
}

#[tokio::test]
async fn a_mutating_webhook_caps_replicas_on_a_crds_scale() {
    let log = Log::default();
    let hook =
        certified(|server| server.mutating::<Scale, _>("/cap", CapAtThree(log.clone()))).await;
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    Api::<CustomResourceDefinition>::all(client.clone())
        .create(&PostParams::default(), &gadgets_crd())
        .await
        .expect("CRD");
    configure(
        &client,
        true,
        "cap",
        vec![webhook(
            "cap.testkit.io",
            hook.url_config("/cap"),
            rule(&["UPDATE"], "*", &["*"], &["*/scale"]),
            json!({}),
        )],
    )
    .await;
    let api = gadgets(&client, "v1");
    api.create(&PostParams::default(), &gadget("v1", "g", 1))
        .await
        .expect("create");
    let patch = Patch::Merge(json!({"spec": {"replicas": 10}}));
    let scaled = api
        .patch_scale("g", &PatchParams::default(), &patch)
        .await
        .expect("scaled");
    assert_eq!(scaled.spec.and_then(|s| s.replicas), Some(3));
    let stored = api.get("g").await.expect("get");
    assert_eq!(stored.data["spec"]["replicas"], 3);
    assert_eq!(
        stored.data["spec"]["size"], "small",
        "only the replicas change"
    );
    let scaled = api
        .replace_scale("g", &PostParams::default(), &scale_body("g", 2))
        .await
        .expect("scaled");
    assert_eq!(scaled.spec.and_then(|s| s.replicas), Some(2));
    let calls = seen(&log);
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].kind, "autoscaling/v1 Scale");
    assert_eq!(calls[0].resource, "testkit.io/v1 gadgets");
    assert_eq!(calls[0].object["spec"]["replicas"], 10);
    server.shutdown().await;
    hook.stop().await;
}

/// A namespaced custom resource of `testkit.io` as the webhooks below decode it: its
/// apiVersion, metadata and a free-form spec.
macro_rules! custom_resource {
    ($(#[$doc:meta])* $name:ident, $kind:literal, $version:literal, $plural:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Serialize, Deserialize)]
        struct $name {
            #[serde(rename = "apiVersion")]
            api_version: String,
            metadata: ObjectMeta,
            #[serde(default)]
            spec: Value,
        }

        impl kube::Resource for $name {
            type DynamicType = ();
            type Scope = k8s_openapi::NamespaceResourceScope;

            fn kind(_: &()) -> Cow<'_, str> {
                Cow::Borrowed($kind)
            }

            fn group(_: &()) -> Cow<'_, str> {
                Cow::Borrowed("testkit.io")
            }

            fn version(_: &()) -> Cow<'_, str> {
                Cow::Borrowed($version)
            }

            fn plural(_: &()) -> Cow<'_, str> {
                Cow::Borrowed($plural)
            }

            fn meta(&self) -> &ObjectMeta {
                &self.metadata
            }

            fn meta_mut(&mut self) -> &mut ObjectMeta {
                &mut self.metadata
            }
        }
    };
}

custom_resource!(
    /// A Gadget at `testkit.io/v1`, as the validators below decode it.
    GadgetV1, "Gadget", "v1", "gadgets"
);

/// Records every v1 Gadget it is sent, allowing it.
struct RecordsGadgets(Log);

impl Validator<GadgetV1> for RecordsGadgets {
    async fn validate_create(&self, _: &GadgetV1, request: &AdmissionRequest<GadgetV1>) -> Verdict {
        record(&self.0, request);
        Verdict::allow()
    }
}

/// Labels every v1 Gadget `seen-at: <its apiVersion's version>`.
struct LabelsGadgets;

impl Mutator<GadgetV1> for LabelsGadgets {
    async fn mutate(
        &self,
        mut gadget: GadgetV1,
        _: &AdmissionRequest<GadgetV1>,
    ) -> Result<Mutated<GadgetV1>, Verdict> {
        let version = gadget
            .api_version
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_owned();
        gadget
            .metadata
            .labels
            .get_or_insert_default()
            .insert("seen-at".to_owned(), version);
        Ok(gadget.into())
    }
}

#[tokio::test]
async fn equivalent_rules_get_the_object_at_their_version_and_exact_ones_are_not_called() {
    let equivalent = Log::default();
    let exact = Log::default();
    let hook = certified(|server| {
        server
            .validating::<GadgetV1, _>("/equivalent", RecordsGadgets(equivalent.clone()))
            .validating::<GadgetV1, _>("/exact", RecordsGadgets(exact.clone()))
            .mutating::<GadgetV1, _>("/label", LabelsGadgets)
    })
    .await;
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    Api::<CustomResourceDefinition>::all(client.clone())
        .create(&PostParams::default(), &gadgets_crd())
        .await
        .expect("CRD");
    let on_v1 = rule(&["CREATE"], "testkit.io", &["v1"], &["gadgets"]);
    configure(
        &client,
        false,
        "policies",
        vec![
            // matchPolicy defaults to Equivalent in admissionregistration.k8s.io/v1.
            webhook(
                "equivalent.testkit.io",
                hook.url_config("/equivalent"),
                on_v1.clone(),
                json!({}),
            ),
            webhook(
                "exact.testkit.io",
                hook.url_config("/exact"),
                on_v1.clone(),
                json!({"matchPolicy": "Exact"}),
            ),
        ],
    )
    .await;
    configure(
        &client,
        true,
        "label",
        vec![webhook(
            "label.testkit.io",
            hook.url_config("/label"),
            on_v1,
            json!({"matchPolicy": "Equivalent"}),
        )],
    )
    .await;

    let created = gadgets(&client, "v1alpha1")
        .create(&PostParams::default(), &gadget("v1alpha1", "old", 1))
        .await
        .expect("create at v1alpha1");
    assert_eq!(
        created.types.as_ref().map(|t| t.api_version.as_str()),
        Some("testkit.io/v1alpha1"),
        "the answer is at the request's version"
    );
    assert_eq!(
        created
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get("seen-at"))
            .map(String::as_str),
        Some("v1"),
        "the mutating webhook saw the object at v1 and its patch came back"
    );
    assert!(seen(&exact).is_empty(), "{:?}", seen(&exact));
    let calls = seen(&equivalent);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].kind, "testkit.io/v1 Gadget");
    assert_eq!(calls[0].request_kind, "testkit.io/v1alpha1 Gadget");
    assert_eq!(calls[0].resource, "testkit.io/v1 gadgets");
    assert_eq!(calls[0].object["apiVersion"], "testkit.io/v1");
    assert_eq!(calls[0].object["metadata"]["labels"]["seen-at"], "v1");

    gadgets(&client, "v1")
        .create(&PostParams::default(), &gadget("v1", "new", 1))
        .await
        .expect("create at v1");
    let calls = seen(&exact);
    assert_eq!(calls.len(), 1, "an Exact rule is called at its own version");
    assert_eq!(calls[0].request_kind, "testkit.io/v1 Gadget");
    assert_eq!(seen(&equivalent).len(), 2);
    server.shutdown().await;
    hook.stop().await;
}

custom_resource!(
    /// A Paint at `testkit.io/v1alpha1` (`spec.colour`; v1, the storage version, says
    /// `spec.color`), as the webhooks below decode it.
    PaintV1Alpha1, "Paint", "v1alpha1", "paints"
);

/// Records every v1alpha1 Paint it is sent, allowing it.
struct RecordsPaints(Log);

impl Validator<PaintV1Alpha1> for RecordsPaints {
    async fn validate_create(
        &self,
        _: &PaintV1Alpha1,
        request: &AdmissionRequest<PaintV1Alpha1>,
    ) -> Verdict {
        record(&self.0, request);
        Verdict::allow()
    }
}

/// Repaints red v1alpha1 Paints blue.
struct Repaints;

impl Mutator<PaintV1Alpha1> for Repaints {
    async fn mutate(
        &self,
        mut paint: PaintV1Alpha1,
        _: &AdmissionRequest<PaintV1Alpha1>,
    ) -> Result<Mutated<PaintV1Alpha1>, Verdict> {
        if paint.spec["colour"] == "red" {
            paint.spec["colour"] = json!("blue");
        }
        Ok(paint.into())
    }
}

/// v1alpha1 `spec.colour` <-> v1 `spec.color`.
fn convert_paint(mut object: Value, desired: &str) -> Result<Value, String> {
    let (from, to) = match desired {
        "testkit.io/v1" => ("colour", "color"),
        "testkit.io/v1alpha1" => ("color", "colour"),
        other => return Err(format!("unknown version {other}")),
    };
    if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut)
        && let Some(value) = spec.remove(from)
    {
        spec.insert(to.to_owned(), value);
    }
    object["apiVersion"] = json!(desired);
    Ok(object)
}

/// `paints.testkit.io`: v1alpha1 and v1 (stored), converted by the webhook at `url`.
fn paints_crd(url: &str, ca_bundle: &str) -> CustomResourceDefinition {
    let version = |name: &str, field: &str, storage: bool| {
        json!({
            "name": name, "served": true, "storage": storage,
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {field: {"type": "string"}}},
            }}},
        })
    };
    serde_json::from_value(json!({
        "metadata": {"name": "paints.testkit.io"},
        "spec": {
            "group": "testkit.io",
            "scope": "Namespaced",
            "names": {"plural": "paints", "singular": "paint", "kind": "Paint", "listKind": "PaintList"},
            "versions": [version("v1alpha1", "colour", false), version("v1", "color", true)],
            "conversion": {"strategy": "Webhook", "webhook": {
                "clientConfig": {"url": url, "caBundle": ca_bundle},
                "conversionReviewVersions": ["v1"],
            }},
        },
    }))
    .expect("a CRD")
}

/// A testkit server holding `paints.testkit.io`, converted by `hook`'s `/convert`.
async fn paints_server(hook: &Running) -> (ApiServer, kube::Client) {
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    let url = hook.url_config("/convert")["url"]
        .as_str()
        .expect("a URL")
        .to_owned();
    Api::<CustomResourceDefinition>::all(client.clone())
        .create(&PostParams::default(), &paints_crd(&url, &hook.ca_bundle()))
        .await
        .expect("CRD");
    (server, client)
}

#[tokio::test]
async fn an_equivalent_rule_gets_the_object_through_the_conversion_webhook() {
    let log = Log::default();
    let hook = certified(|server| {
        server
            .conversion(
                "/convert",
                kubegen_runtime::webhook::converter_fn(convert_paint),
            )
            .validating::<PaintV1Alpha1, _>("/record", RecordsPaints(log.clone()))
            .mutating::<PaintV1Alpha1, _>("/repaint", Repaints)
    })
    .await;
    let (server, client) = paints_server(&hook).await;
    let on_alpha = rule(&["CREATE"], "testkit.io", &["v1alpha1"], &["paints"]);
    configure(
        &client,
        true,
        "repaint",
        vec![webhook(
            "repaint.testkit.io",
            hook.url_config("/repaint"),
            on_alpha.clone(),
            json!({}),
        )],
    )
    .await;
    configure(
        &client,
        false,
        "record",
        vec![webhook(
            "record.testkit.io",
            hook.url_config("/record"),
            on_alpha,
            json!({}),
        )],
    )
    .await;
    let resource = ApiResource {
        group: "testkit.io".to_owned(),
        version: "v1".to_owned(),
        api_version: "testkit.io/v1".to_owned(),
        kind: "Paint".to_owned(),
        plural: "paints".to_owned(),
    };
    let paints: Api<DynamicObject> = Api::namespaced_with(client.clone(), "default", &resource);
    let paint: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "testkit.io/v1", "kind": "Paint",
        "metadata": {"name": "wall"}, "spec": {"color": "red"},
    }))
    .expect("a paint");
    let created = paints
        .create(&PostParams::default(), &paint)
        .await
        .expect("create at v1");
    assert_eq!(
        created.data["spec"],
        json!({"color": "blue"}),
        "the patch made at v1alpha1 came back through the conversion webhook"
    );
    let calls = seen(&log);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].kind, "testkit.io/v1alpha1 Paint");
    assert_eq!(calls[0].request_kind, "testkit.io/v1 Paint");
    assert_eq!(calls[0].object["apiVersion"], "testkit.io/v1alpha1");
    assert_eq!(calls[0].object["spec"], json!({"colour": "blue"}));
    server.shutdown().await;
    hook.stop().await;
}

/// A request at v1alpha1 of a CRD stored at v1 through a conversion webhook is admitted
/// at v1alpha1, as kube-apiserver admits it before storage converts it: an `Exact` rule
/// on v1alpha1 is called with the object and `requestKind` at v1alpha1, its patch is
/// stored (converted to v1), and an `Exact` rule on v1 is not called.
#[tokio::test]
async fn a_request_at_a_non_storage_version_is_admitted_at_that_version() {
    let at_alpha = Log::default();
    let at_v1 = Log::default();
    let hook = certified(|server| {
        server
            .conversion(
                "/convert",
                kubegen_runtime::webhook::converter_fn(convert_paint),
            )
            .validating::<PaintV1Alpha1, _>("/record-alpha", RecordsPaints(at_alpha.clone()))
            .validating::<PaintV1Alpha1, _>("/record-v1", RecordsPaints(at_v1.clone()))
            .mutating::<PaintV1Alpha1, _>("/repaint", Repaints)
    })
    .await;
    let (server, client) = paints_server(&hook).await;
    let exact = json!({"matchPolicy": "Exact"});
    let on = |version: &str| rule(&["CREATE"], "testkit.io", &[version], &["paints"]);
    configure(
        &client,
        true,
        "repaint",
        vec![webhook(
            "repaint.testkit.io",
            hook.url_config("/repaint"),
            on("v1alpha1"),
            exact.clone(),
        )],
    )
    .await;
    configure(
        &client,
        false,
        "record",
        vec![
            webhook(
                "alpha.record.testkit.io",
                hook.url_config("/record-alpha"),
                on("v1alpha1"),
                exact.clone(),
            ),
            webhook(
                "v1.record.testkit.io",
                hook.url_config("/record-v1"),
                on("v1"),
                exact,
            ),
        ],
    )
    .await;
    let resource = |version: &str| ApiResource {
        group: "testkit.io".to_owned(),
        version: version.to_owned(),
        api_version: format!("testkit.io/{version}"),
        kind: "Paint".to_owned(),
        plural: "paints".to_owned(),
    };
    let alpha: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), "default", &resource("v1alpha1"));
    let paint: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "testkit.io/v1alpha1", "kind": "Paint",
        "metadata": {"name": "door"}, "spec": {"colour": "red"},
    }))
    .expect("a paint");
    let created = alpha
        .create(&PostParams::default(), &paint)
        .await
        .expect("create at v1alpha1");
    assert_eq!(created.data["spec"], json!({"colour": "blue"}));
    let calls = seen(&at_alpha);
    assert_eq!(calls.len(), 1, "the v1alpha1 rule is called: {calls:?}");
    assert_eq!(calls[0].kind, "testkit.io/v1alpha1 Paint");
    assert_eq!(calls[0].request_kind, "testkit.io/v1alpha1 Paint");
    assert_eq!(calls[0].object["apiVersion"], "testkit.io/v1alpha1");
    assert_eq!(calls[0].object["spec"], json!({"colour": "blue"}));
    assert!(
        seen(&at_v1).is_empty(),
        "an Exact rule on v1 matches no request at v1alpha1"
    );
    let stored: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), "default", &resource("v1"));
    let door = stored.get("door").await.expect("read at v1");
    assert_eq!(door.data["spec"], json!({"color": "blue"}));
    server.shutdown().await;
    hook.stop().await;
}
