//! Webhooks reached through `clientConfig.service`, resolved by the testkit as a cluster
//! resolves them but on loopback only: the stored Service, its port, the ready
//! addresses of its EndpointSlices or Endpoints (or a Service mapped to an address by
//! `ApiServerConfig::service_address`), the certificate verified for
//! `<service>.<namespace>.svc`. The webhooks are the runtime's real HTTPS webhook
//! server with certificates from `kubegen_testkit::certs`; the conversion webhook
//! converts the committed icecream CRD (`examples/icecream/config/crd/`) with a
//! converter of this test's own.

mod webhooks;

use k8s_openapi::api::core::v1::{ConfigMap, Service};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::admission::AdmissionRequest;
use kubegen_runtime::webhook::{Validator, Verdict, converter_fn};
use kubegen_testkit::certs::TestCa;
use kubegen_testkit::{ApiServer, ApiServerConfig};
use serde_json::{Value, json};
use webhooks::{Running, api_error, configure, rule, webhook};

/// Denies ConfigMaps holding a `forbidden` key.
struct Guard;

impl Validator<ConfigMap> for Guard {
    async fn validate_create(
        &self,
        object: &ConfigMap,
        _: &AdmissionRequest<ConfigMap>,
    ) -> Verdict {
        match object
            .data
            .as_ref()
            .is_some_and(|d| d.contains_key("forbidden"))
        {
            true => Verdict::deny("forbidden data"),
            false => Verdict::allow(),
        }
    }
}

/// The Guard served with a certificate for `names` (the service's names by default).
async fn guard(names: Option<&[&str]>) -> Running {
    let ca = TestCa::new().expect("CA");
    let cert = match names {
        Some(names) => ca.serving_cert(names),
        None => ca.service_cert("hooks", "guard"),
    }
    .expect("certificate");
    Running::start(&cert, |server| {
        server.validating::<ConfigMap, _>("/validate", Guard)
    })
    .await
}

async fn create(client: &kube::Client, value: Value) {
    let object: DynamicObject = serde_json::from_value(value.clone()).expect("an object");
    let types = object.types.clone().expect("types");
    let (group, version) = types
        .api_version
        .split_once('/')
        .unwrap_or(("", types.api_version.as_str()));
    let plural = match types.kind.as_str() {
        "Namespace" => "namespaces",
        "Service" => "services",
        "Endpoints" => "endpoints",
        "EndpointSlice" => "endpointslices",
        other => panic!("no plural for {other}"),
    };
    let resource = ApiResource {
        group: group.to_owned(),
        version: version.to_owned(),
        api_version: types.api_version.clone(),
        kind: types.kind.clone(),
        plural: plural.to_owned(),
    };
    let api: Api<DynamicObject> = match object.metadata.namespace.as_deref() {
        Some(namespace) => Api::namespaced_with(client.clone(), namespace, &resource),
        None => Api::all_with(client.clone(), &resource),
    };
    api.create(&PostParams::default(), &object)
        .await
        .unwrap_or_else(|e| panic!("create {value}: {e}"));
}

/// Stores the Guard's configuration, reaching it through Service hooks/guard.
async fn configure_guard(client: &kube::Client, hook: &Running, port: Option<u16>) {
    let mut service = json!({"namespace": "hooks", "name": "guard", "path": "/validate"});
    if let Some(port) = port {
        service["port"] = json!(port);
    }
    configure(
        client,
        false,
        "guard",
        vec![webhook(
            "guard.testkit.io",
            json!({"service": service, "caBundle": hook.ca_bundle()}),
            rule(&["CREATE"], "", &["v1"], &["configmaps"]),
            json!({}),
        )],
    )
    .await;
}

fn configmap(name: &str, key: &str) -> ConfigMap {
    serde_json::from_value(json!({"metadata": {"name": name}, "data": {key: "x"}}))
        .expect("a configmap")
}

#[tokio::test]
async fn a_service_is_resolved_through_its_endpointslices_to_a_loopback_address() {
    let hook = guard(None).await;
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    create(
        &client,
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "hooks"}}),
    )
    .await;
    configure_guard(&client, &hook, Some(8443)).await;
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let failed = |why: &str| {
        format!(
            "Internal error occurred: failed calling webhook \"guard.testkit.io\": failed to call webhook: Post \"https://guard.hooks.svc:8443/validate\": {why}"
        )
    };

    let (code, message) = api_error(
        configmaps
            .create(&PostParams::default(), &configmap("a", "ok"))
            .await,
    );
    assert_eq!(
        (code, message),
        (500, failed("service \"guard\" not found"))
    );

    create(
        &client,
        json!({"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": "guard", "namespace": "hooks"},
               "spec": {"ports": [{"name": "https", "port": 8443, "targetPort": 9443}]}}),
    )
    .await;
    let (code, message) = api_error(
        configmaps
            .create(&PostParams::default(), &configmap("a", "ok"))
            .await,
    );
    assert_eq!(
        (code, message),
        (500, failed("no endpoints available for service \"guard\""))
    );

    let port = hook.address.port();
    let slice = |name: &str, address: &str| {
        json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
               "metadata": {"name": name, "namespace": "hooks",
                            "labels": {"kubernetes.io/service-name": "guard"}},
               "addressType": "IPv4",
               "ports": [{"name": "https", "port": port, "protocol": "TCP"}],
               "endpoints": [{"addresses": [address], "conditions": {"ready": true}}]})
    };
    create(&client, slice("guard-remote", "10.0.0.7")).await;
    let (code, message) = api_error(
        configmaps
            .create(&PostParams::default(), &configmap("a", "ok"))
            .await,
    );
    assert_eq!(
        (code, message),
        (
            500,
            failed(&format!(
                "service \"hooks/guard\" resolves to 10.0.0.7:{port}: the testkit calls webhooks on loopback addresses only"
            ))
        )
    );

    create(&client, slice("guard-local", "127.0.0.1")).await;
    configmaps
        .create(&PostParams::default(), &configmap("a", "ok"))
        .await
        .expect("allowed by the webhook behind the service");
    let (code, message) = api_error(
        configmaps
            .create(&PostParams::default(), &configmap("b", "forbidden"))
            .await,
    );
    assert_eq!(
        (code, message.as_str()),
        (
            403,
            "admission webhook \"guard.testkit.io\" denied the request: forbidden data"
        )
    );
    server.shutdown().await;
    hook.stop().await;
}

#[tokio::test]
async fn endpoints_resolve_a_service_on_the_default_port() {
    let hook = guard(None).await;
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    create(
        &client,
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "hooks"}}),
    )
    .await;
    configure_guard(&client, &hook, None).await;
    create(
        &client,
        json!({"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": "guard", "namespace": "hooks"},
               "spec": {"ports": [{"port": 80, "targetPort": 9443}]}}),
    )
    .await;
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let (code, message) = api_error(
        configmaps
            .create(&PostParams::default(), &configmap("a", "ok"))
            .await,
    );
    assert_eq!(code, 500);
    assert!(
        message.ends_with(
            "Post \"https://guard.hooks.svc:443/validate\": no service port 443 found for service \"guard\""
        ),
        "{message}"
    );
    let ports = Patch::Merge(json!({"spec": {"ports": [{"port": 443, "targetPort": 9443}]}}));
    Api::<Service>::namespaced(client.clone(), "hooks")
        .patch("guard", &PatchParams::default(), &ports)
        .await
        .expect("the Service on port 443");
    create(
        &client,
        json!({"apiVersion": "v1", "kind": "Endpoints",
               "metadata": {"name": "guard", "namespace": "hooks"},
               "subsets": [{"addresses": [{"ip": "127.0.0.1"}],
                            "notReadyAddresses": [{"ip": "127.0.0.2"}],
                            "ports": [{"port": hook.address.port()}]}]}),
    )
    .await;
    let (code, message) = api_error(
        configmaps
            .create(&PostParams::default(), &configmap("b", "forbidden"))
            .await,
    );
    assert_eq!(
        (code, message.as_str()),
        (
            403,
            "admission webhook \"guard.testkit.io\" denied the request: forbidden data"
        )
    );
    server.shutdown().await;
    hook.stop().await;
}

#[tokio::test]
async fn a_mapped_service_needs_no_endpoints_and_its_certificate_must_name_the_service() {
    let wrong_name = guard(Some(&["127.0.0.1", "localhost"])).await;
    let config = ApiServerConfig::default().service_address("hooks", "guard", wrong_name.address);
    let server = ApiServer::start_with(config).await.expect("server");
    let client = server.client();
    configure_guard(&client, &wrong_name, None).await;
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let (code, message) = api_error(
        configmaps
            .create(&PostParams::default(), &configmap("a", "ok"))
            .await,
    );
    assert_eq!(code, 500);
    assert!(
        message.starts_with(
            "Internal error occurred: failed calling webhook \"guard.testkit.io\": failed to call webhook: Post \"https://guard.hooks.svc:443/validate\": tls: "
        ),
        "{message}"
    );
    server.shutdown().await;
    wrong_name.stop().await;

    let right_name = guard(None).await;
    let config = ApiServerConfig::default().service_address("hooks", "guard", right_name.address);
    let server = ApiServer::start_with(config).await.expect("server");
    let client = server.client();
    configure_guard(&client, &right_name, None).await;
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    configmaps
        .create(&PostParams::default(), &configmap("a", "ok"))
        .await
        .expect("allowed");
    let (code, _) = api_error(
        configmaps
            .create(&PostParams::default(), &configmap("b", "forbidden"))
            .await,
    );
    assert_eq!(code, 403);
    server.shutdown().await;
    right_name.stop().await;
}

/// The committed icecream CRD, its conversion webhook's CA bundle set to `ca_bundle`.
fn icecream_crd(ca_bundle: &str) -> CustomResourceDefinition {
    let yaml =
        include_str!("../../../examples/icecream/config/crd/icecream.example.com_icecreams.yaml");
    let mut crd: Value = serde_saphyr::from_str(yaml).expect("the CRD's YAML");
    crd["spec"]["conversion"]["webhook"]["clientConfig"]["caBundle"] = json!(ca_bundle);
    serde_json::from_value(crd).expect("a CRD")
}

/// v1alpha1 `spec.order` ("<flavor> with <topping>") and `spec.podSelector` <-> v1
/// `spec.flavor`, `spec.topping` and `spec.selector`.
fn convert_icecream(mut object: Value, desired: &str) -> Result<Value, String> {
    let spec = object
        .get_mut("spec")
        .and_then(Value::as_object_mut)
        .ok_or("an Icecream has a spec")?;
    match desired {
        "icecream.example.com/v1" => {
            let order = spec.remove("order").unwrap_or(json!(""));
            let order = order.as_str().unwrap_or_default().to_owned();
            let (flavor, topping) = match order.split_once(" with ") {
                Some((flavor, topping)) => (flavor.to_owned(), json!(topping)),
                None => (order, Value::Null),
            };
            spec.insert("flavor".to_owned(), json!(flavor));
            spec.insert("topping".to_owned(), topping);
            let selector = spec.remove("podSelector").unwrap_or(json!({}));
            spec.insert("selector".to_owned(), selector);
        }
        "icecream.example.com/v1alpha1" => {
            let flavor = spec.remove("flavor").unwrap_or(json!(""));
            let flavor = flavor.as_str().unwrap_or_default();
            let order = match spec.remove("topping").as_ref().and_then(Value::as_str) {
                Some(topping) => format!("{flavor} with {topping}"),
                None => flavor.to_owned(),
            };
            spec.insert("order".to_owned(), json!(order));
            let selector = spec.remove("selector").unwrap_or(json!({}));
            spec.insert("podSelector".to_owned(), selector);
        }
        other => return Err(format!("unknown version {other}")),
    }
    object["apiVersion"] = json!(desired);
    Ok(object)
}

fn icecreams(client: &kube::Client, version: &str) -> Api<DynamicObject> {
    let resource = ApiResource {
        group: "icecream.example.com".to_owned(),
        version: version.to_owned(),
        api_version: format!("icecream.example.com/{version}"),
        kind: "Icecream".to_owned(),
        plural: "icecreams".to_owned(),
    };
    Api::namespaced_with(client.clone(), "default", &resource)
}

fn order(text: &str) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": "icecream.example.com/v1alpha1", "kind": "Icecream",
        "metadata": {"name": "cone"},
        "spec": {"order": text, "podSelector": {"matchLabels": {"app": "shop"}}},
    }))
    .expect("an Icecream")
}

#[tokio::test]
async fn the_icecream_crd_converts_through_its_service() {
    let cert = TestCa::new()
        .expect("CA")
        .service_cert("icecream-system", "icecream-webhook")
        .expect("certificate");
    let hook = Running::start(&cert, |server| {
        server.conversion("/convert", converter_fn(convert_icecream))
    })
    .await;

    // Without the service, conversions fail with kube-apiserver's words.
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    Api::<CustomResourceDefinition>::all(client.clone())
        .create(&PostParams::default(), &icecream_crd(&hook.ca_bundle()))
        .await
        .expect("the CRD naming a service is accepted");
    let (code, message) = api_error(
        icecreams(&client, "v1alpha1")
            .create(&PostParams::default(), &order("vanilla with sprinkles"))
            .await,
    );
    assert_eq!(
        (code, message.as_str()),
        (
            500,
            "conversion webhook for icecream.example.com/v1alpha1, Kind=Icecream failed: Post \"https://icecream-webhook.icecream-system.svc:443/convert\": service \"icecream-webhook\" not found"
        )
    );
    server.shutdown().await;

    let config = ApiServerConfig::default().service_address(
        "icecream-system",
        "icecream-webhook",
        hook.address,
    );
    let server = ApiServer::start_with(config).await.expect("server");
    let client = server.client();
    Api::<CustomResourceDefinition>::all(client.clone())
        .create(&PostParams::default(), &icecream_crd(&hook.ca_bundle()))
        .await
        .expect("CRD");
    let created = icecreams(&client, "v1alpha1")
        .create(&PostParams::default(), &order("vanilla with sprinkles"))
        .await
        .expect("created through the conversion webhook");
    assert_eq!(created.data["spec"]["order"], "vanilla with sprinkles");
    let stored = icecreams(&client, "v1")
        .get("cone")
        .await
        .expect("get at v1");
    assert_eq!(stored.data["spec"]["flavor"], "vanilla");
    assert_eq!(stored.data["spec"]["topping"], "sprinkles");
    assert_eq!(
        stored.data["spec"]["selector"]["matchLabels"]["app"],
        "shop"
    );
    server.shutdown().await;
    hook.stop().await;
}

#[tokio::test]
async fn an_unresolvable_service_is_skipped_under_failure_policy_ignore() {
    let server = ApiServer::start().await.expect("server");
    let client = server.client();
    let ca = TestCa::new().expect("CA");
    let unresolvable = json!({
        "service": {"namespace": "hooks", "name": "absent", "path": "/validate"},
        "caBundle": webhooks::base64(ca.cert_pem()),
    });
    configure(
        &client,
        false,
        "absent",
        vec![webhook(
            "absent.testkit.io",
            unresolvable,
            rule(&["CREATE"], "", &["v1"], &["configmaps"]),
            json!({"failurePolicy": "Ignore"}),
        )],
    )
    .await;
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    configmaps
        .create(&PostParams::default(), &configmap("a", "forbidden"))
        .await
        .expect("an unreachable webhook is ignored under failurePolicy: Ignore");
    server.shutdown().await;
}
