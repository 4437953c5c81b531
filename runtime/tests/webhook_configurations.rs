//! The webhook configurations a [`WebhookServer`] writes for itself, stored in the testkit
//! API server: the server's validators and mutators are then called by the API server
//! on the operations they declare, over HTTPS with the CA bundle the configuration
//! carries, and a denial reaches the client with its reason.
#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

mod webhook_support;

use std::collections::BTreeMap;

use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, ObjectMeta, PostParams};
use kubegen_runtime::webhook::{
    AdmissionRequest, Mutated, Mutator, Operation, Validator, Verdict, WebhookClient,
    WebhookConfigurations, WebhookServer, WebhookServerConfig,
};
use kubegen_testkit::ApiServer;
use webhook_support::start;

/// Passwords belong in Secrets (create, update); `protected` ConfigMaps stay (delete).
struct Policy;

impl Validator<ConfigMap> for Policy {
    const OPERATIONS: &'static [Operation] =
        &[Operation::Create, Operation::Update, Operation::Delete];

    async fn validate_create(
        &self,
        object: &ConfigMap,
        _: &AdmissionRequest<ConfigMap>,
    ) -> Verdict {
        let password = object
            .data
            .as_ref()
            .is_some_and(|d| d.contains_key("password"));
        match password {
            true => Verdict::deny("passwords belong in Secrets"),
            false => Verdict::allow(),
        }
    }

    async fn validate_delete(&self, old: &ConfigMap, _: &AdmissionRequest<ConfigMap>) -> Verdict {
        let labels = old.metadata.labels.as_ref();
        match labels.is_some_and(|l| l.contains_key("protected")) {
            true => Verdict::deny("this ConfigMap is protected"),
            false => Verdict::allow(),
        }
    }
}

/// Labels every ConfigMap `team: ice`.
struct Labeller;

impl Mutator<ConfigMap> for Labeller {
    async fn mutate(
        &self,
        mut object: ConfigMap,
        _: &AdmissionRequest<ConfigMap>,
    ) -> Result<Mutated<ConfigMap>, Verdict> {
        let labels = object.metadata.labels.get_or_insert_default();
        labels.insert("team".into(), "ice".into());
        Ok(object.into())
    }
}

fn webhooks(config: WebhookServerConfig) -> WebhookServer {
    WebhookServer::new(config)
        .validating("/validate-configmaps", Policy)
        .mutating("/mutate-configmaps", Labeller)
}

fn config_map(name: &str, data: &[(&str, &str)], labels: &[(&str, &str)]) -> ConfigMap {
    let pairs = |items: &[(&str, &str)]| -> BTreeMap<String, String> {
        items
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    };
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            labels: (!labels.is_empty()).then(|| pairs(labels)),
            ..ObjectMeta::default()
        },
        data: Some(pairs(data)),
        ..ConfigMap::default()
    }
}

#[test]
fn a_service_configuration_names_its_webhooks_rules_and_cert_manager() {
    let client = WebhookClient::service("policy-system", "policy-webhook")
        .port(8443)
        .cert_manager("policy-system/serving-cert");
    let WebhookConfigurations {
        validating,
        mutating,
    } = webhooks(WebhookServerConfig::default()).configurations("policy", &client);
    let manifest = serde_json::to_value((validating.unwrap(), mutating.unwrap())).unwrap();
    let expected = serde_json::json!([
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "policy", "annotations": {"cert-manager.io/inject-ca-from": "policy-system/serving-cert"}},
            "webhooks": [{
                "name": "validate.configmaps.core",
                "admissionReviewVersions": ["v1"],
                "clientConfig": {"service": {"namespace": "policy-system", "name": "policy-webhook", "path": "/validate-configmaps", "port": 8443}},
                "failurePolicy": "Fail",
                "matchPolicy": "Equivalent",
                "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"], "operations": ["CREATE", "UPDATE", "DELETE"]}],
                "sideEffects": "None",
                "timeoutSeconds": 10
            }]
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "MutatingWebhookConfiguration",
            "metadata": {"name": "policy", "annotations": {"cert-manager.io/inject-ca-from": "policy-system/serving-cert"}},
            "webhooks": [{
                "name": "mutate.configmaps.core",
                "admissionReviewVersions": ["v1"],
                "clientConfig": {"service": {"namespace": "policy-system", "name": "policy-webhook", "path": "/mutate-configmaps", "port": 8443}},
                "failurePolicy": "Fail",
                "matchPolicy": "Equivalent",
                "reinvocationPolicy": "Never",
                "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"], "operations": ["CREATE", "UPDATE"]}],
                "sideEffects": "None",
                "timeoutSeconds": 10
            }]
        }
    ]);
    assert_eq!(manifest, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_server_calls_the_webhooks_its_configurations_declare() {
    let running = start(webhooks).await;
    let client = WebhookClient::url(format!("https://127.0.0.1:{}", running.addr.port()))
        .ca_bundle(running.ca.cert_pem().as_bytes().to_vec());
    let configurations = webhooks(WebhookServerConfig::default()).configurations("policy", &client);

    let server = ApiServer::start().await.unwrap();
    let kube = server.client();
    let post = PostParams::default();
    Api::<ValidatingWebhookConfiguration>::all(kube.clone())
        .create(&post, &configurations.validating.unwrap())
        .await
        .unwrap();
    Api::<MutatingWebhookConfiguration>::all(kube.clone())
        .create(&post, &configurations.mutating.unwrap())
        .await
        .unwrap();
    let config_maps = Api::<ConfigMap>::namespaced(kube, "default");

    let stored = config_maps
        .create(
            &post,
            &config_map("plain", &[("mode", "fast")], &[("protected", "yes")]),
        )
        .await
        .unwrap();
    let labels = stored.metadata.labels.unwrap();
    assert_eq!(
        labels.get("team").map(String::as_str),
        Some("ice"),
        "{labels:?}"
    );

    let refused = config_maps
        .create(
            &post,
            &config_map("secretive", &[("password", "hunter2")], &[]),
        )
        .await
        .unwrap_err();
    let kube::Error::Api(status) = refused else {
        panic!("expected the API server's refusal, got {refused}");
    };
    assert_eq!(
        status.message,
        "admission webhook \"validate.configmaps.core\" denied the request: passwords belong in Secrets"
    );

    let kept = config_maps
        .delete("plain", &DeleteParams::default())
        .await
        .unwrap_err();
    assert!(
        kept.to_string().contains("this ConfigMap is protected"),
        "{kept}"
    );
    config_maps.get("plain").await.unwrap();
    running.stop().await.unwrap();
}
