//! The API objects that point the API server at a [`WebhookServer`]'s webhooks, built
//! from what it serves: a ValidatingWebhookConfiguration and a
//! MutatingWebhookConfiguration with one webhook per registered validator and mutator,
//! and a CRD's `spec.conversion` for a conversion path.
//!
//! What the server was given is the one declaration: the kind a handler admits gives the
//! rule's group, version and resource, the handler's `OPERATIONS` its operations, its path
//! the client path. The rest is controller-runtime's and the API's defaults: failure
//! policy `Fail`, side effects `None`, review version `v1`, match policy `Equivalent`, a
//! 10 s timeout. The objects are k8s-openapi's types, so a deployment that wants another
//! policy or a namespace selector changes the returned object.

use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhook, MutatingWebhookConfiguration, RuleWithOperations, ServiceReference,
    ValidatingWebhook, ValidatingWebhookConfiguration, WebhookClientConfig,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiextensions;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::Resource;
use kube::core::admission::Operation;

use super::WebhookServer;
use super::server::Hook;

/// The annotation cert-manager's CA injector reads: it fills the `caBundle` of every
/// webhook of the annotated object with the CA of the named Certificate
/// (`<namespace>/<name>`).
pub const CERT_MANAGER_INJECT_CA_FROM: &str = "cert-manager.io/inject-ca-from";

/// The timeout written on every webhook, in seconds (the API's default and maximum is
/// 10 and 30).
const TIMEOUT_SECONDS: i32 = 10;

/// How the API server reaches the webhook server: a Service in the cluster (the usual
/// deployment) or a URL (a server outside the cluster, or a test's server on loopback),
/// and the CA that signed its serving certificate.
///
/// ```
/// use kubegen_runtime::webhook::WebhookClient;
///
/// let in_cluster = WebhookClient::service("icecream-system", "icecream-webhook")
///     .cert_manager("icecream-system/icecream-serving-cert");
/// let on_loopback = WebhookClient::url("https://127.0.0.1:9443").ca_bundle(b"-----BEGIN CERTIFICATE-----...".to_vec());
/// # let _ = (in_cluster, on_loopback);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookClient {
    target: Target,
    ca_bundle: Option<Vec<u8>>,
    cert_manager: Option<String>,
}

/// Where the webhook server is.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Target {
    Service {
        namespace: String,
        name: String,
        port: i32,
    },
    /// The server's base URL, without a trailing `/`.
    Url(String),
}

impl WebhookClient {
    /// The Service `namespace/name` on port 443.
    pub fn service(namespace: impl Into<String>, name: impl Into<String>) -> Self {
        Self::at(Target::Service {
            namespace: namespace.into(),
            name: name.into(),
            port: 443,
        })
    }

    /// A server at `base` (`https://host:port`); each webhook's path is appended.
    pub fn url(base: impl Into<String>) -> Self {
        let base: String = base.into();
        Self::at(Target::Url(base.trim_end_matches('/').to_owned()))
    }

    fn at(target: Target) -> Self {
        Self {
            target,
            ca_bundle: None,
            cert_manager: None,
        }
    }

    /// The Service's port (443 unless set). Has no effect on a URL.
    pub fn port(mut self, port: u16) -> Self {
        if let Target::Service { port: p, .. } = &mut self.target {
            *p = i32::from(port);
        }
        self
    }

    /// The PEM CA bundle the API server verifies the serving certificate with.
    pub fn ca_bundle(mut self, pem: Vec<u8>) -> Self {
        self.ca_bundle = Some(pem);
        self
    }

    /// Leaves the CA bundle to cert-manager: annotates every object with
    /// [`CERT_MANAGER_INJECT_CA_FROM`] naming `certificate` (`<namespace>/<name>` of a
    /// cert-manager Certificate).
    pub fn cert_manager(mut self, certificate: impl Into<String>) -> Self {
        self.cert_manager = Some(certificate.into());
        self
    }

    /// The `clientConfig` of the webhook at `path`.
    fn admission_client(&self, path: &str) -> WebhookClientConfig {
        let (service, url) = match &self.target {
            Target::Service {
                namespace,
                name,
                port,
            } => (
                Some(ServiceReference {
                    namespace: namespace.clone(),
                    name: name.clone(),
                    path: Some(path.to_owned()),
                    port: Some(*port),
                }),
                None,
            ),
            Target::Url(base) => (None, Some(format!("{base}{path}"))),
        };
        WebhookClientConfig {
            ca_bundle: self.ca_bundle.clone().map(ByteString),
            service,
            url,
        }
    }

    /// The `clientConfig` of a CRD's conversion webhook at `path` (the same fields
    /// under another API group's types).
    fn conversion_client(&self, path: &str) -> apiextensions::WebhookClientConfig {
        let WebhookClientConfig {
            ca_bundle,
            service,
            url,
        } = self.admission_client(path);
        apiextensions::WebhookClientConfig {
            ca_bundle,
            service: service.map(|s| apiextensions::ServiceReference {
                namespace: s.namespace,
                name: s.name,
                path: s.path,
                port: s.port,
            }),
            url,
        }
    }

    /// `metadata` named `name`, with the cert-manager annotation if asked for.
    fn metadata(&self, name: &str) -> ObjectMeta {
        let annotations = self.cert_manager.as_ref().map(|certificate| {
            BTreeMap::from([(CERT_MANAGER_INJECT_CA_FROM.to_owned(), certificate.clone())])
        });
        ObjectMeta {
            name: Some(name.to_owned()),
            annotations,
            ..ObjectMeta::default()
        }
    }
}

/// What one validating or mutating webhook admits: a kind's resource and the operations.
#[derive(Clone, Debug)]
pub(super) struct AdmissionTarget {
    group: String,
    version: String,
    plural: String,
    operations: &'static [Operation],
}

impl AdmissionTarget {
    /// The resource of `K`, for `operations`.
    pub(super) fn of<K: Resource<DynamicType = ()>>(operations: &'static [Operation]) -> Self {
        Self {
            group: K::group(&()).into_owned(),
            version: K::version(&()).into_owned(),
            plural: K::plural(&()).into_owned(),
            operations,
        }
    }

    /// The webhook's name: `<prefix>.<plural>.<group>` (`core` for the core group), three
    /// or more segments as the API requires, unique per kind and kind of webhook.
    fn name(&self, prefix: &str) -> String {
        let group = if self.group.is_empty() {
            "core"
        } else {
            &self.group
        };
        format!("{prefix}.{}.{group}", self.plural)
    }

    fn rule(&self) -> RuleWithOperations {
        RuleWithOperations {
            api_groups: Some(vec![self.group.clone()]),
            api_versions: Some(vec![self.version.clone()]),
            resources: Some(vec![self.plural.clone()]),
            operations: Some(self.operations.iter().map(operation_name).collect()),
            scope: None,
        }
    }
}

fn operation_name(operation: &Operation) -> String {
    match operation {
        Operation::Create => "CREATE",
        Operation::Update => "UPDATE",
        Operation::Delete => "DELETE",
        Operation::Connect => "CONNECT",
    }
    .to_owned()
}

/// The webhook configurations of a [`WebhookServer`]: `None` where it serves no webhook
/// of that type.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WebhookConfigurations {
    /// One webhook per validator.
    pub validating: Option<ValidatingWebhookConfiguration>,
    /// One webhook per mutator.
    pub mutating: Option<MutatingWebhookConfiguration>,
}

impl WebhookServer {
    /// The ValidatingWebhookConfiguration and MutatingWebhookConfiguration, both named
    /// `name`, that send the API server's admission requests for the registered
    /// validators and mutators to this server through `client`. Webhooks are in path
    /// order; each is named `validate.<plural>.<group>` or `mutate.<plural>.<group>`.
    ///
    /// ```
    /// use k8s_openapi::api::core::v1::ConfigMap;
    /// use kubegen_runtime::webhook::{Validator, WebhookClient, WebhookServer, WebhookServerConfig};
    ///
    /// struct AnyConfigMap;
    /// impl Validator<ConfigMap> for AnyConfigMap {}
    ///
    /// let server = WebhookServer::new(WebhookServerConfig::default())
    ///     .validating("/validate-configmaps", AnyConfigMap);
    /// let configurations = server.configurations(
    ///     "configmap-policy",
    ///     &WebhookClient::service("policy-system", "policy-webhook").cert_manager("policy-system/serving-cert"),
    /// );
    /// let validating = configurations.validating.unwrap();
    /// let webhook = &validating.webhooks.unwrap()[0];
    /// assert_eq!(webhook.name, "validate.configmaps.core");
    /// assert_eq!(webhook.client_config.service.as_ref().unwrap().path.as_deref(), Some("/validate-configmaps"));
    /// assert!(configurations.mutating.is_none());
    /// ```
    pub fn configurations(&self, name: &str, client: &WebhookClient) -> WebhookConfigurations {
        let mut validating = Vec::new();
        let mut mutating = Vec::new();
        for (path, registered) in &self.endpoints {
            match &registered.hook {
                Hook::Conversion => {}
                Hook::Mutating(target) => mutating.push(MutatingWebhook {
                    name: target.name("mutate"),
                    client_config: client.admission_client(path),
                    rules: Some(vec![target.rule()]),
                    admission_review_versions: vec!["v1".to_owned()],
                    side_effects: "None".to_owned(),
                    failure_policy: Some("Fail".to_owned()),
                    match_policy: Some("Equivalent".to_owned()),
                    timeout_seconds: Some(TIMEOUT_SECONDS),
                    reinvocation_policy: Some("Never".to_owned()),
                    ..MutatingWebhook::default()
                }),
                Hook::Validating(target) => validating.push(ValidatingWebhook {
                    name: target.name("validate"),
                    client_config: client.admission_client(path),
                    rules: Some(vec![target.rule()]),
                    admission_review_versions: vec!["v1".to_owned()],
                    side_effects: "None".to_owned(),
                    failure_policy: Some("Fail".to_owned()),
                    match_policy: Some("Equivalent".to_owned()),
                    timeout_seconds: Some(TIMEOUT_SECONDS),
                    ..ValidatingWebhook::default()
                }),
            }
        }
        WebhookConfigurations {
            validating: (!validating.is_empty()).then(|| ValidatingWebhookConfiguration {
                metadata: client.metadata(name),
                webhooks: Some(validating),
            }),
            mutating: (!mutating.is_empty()).then(|| MutatingWebhookConfiguration {
                metadata: client.metadata(name),
                webhooks: Some(mutating),
            }),
        }
    }
}

/// Sets `crd`'s `spec.conversion` to strategy `Webhook`, calling the conversion webhook
/// at `path` through `client` (ConversionReview `v1`), and adds the cert-manager
/// annotation if `client` asks for it.
///
/// ```
/// use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
/// use kubegen_runtime::webhook::{WebhookClient, convert_with_webhook};
///
/// let mut crd = CustomResourceDefinition::default();
/// convert_with_webhook(&mut crd, &WebhookClient::url("https://127.0.0.1:9443"), "/convert");
/// let conversion = crd.spec.conversion.unwrap();
/// assert_eq!(conversion.strategy, "Webhook");
/// assert_eq!(conversion.webhook.unwrap().client_config.unwrap().url.as_deref(), Some("https://127.0.0.1:9443/convert"));
/// ```
pub fn convert_with_webhook(
    crd: &mut apiextensions::CustomResourceDefinition,
    client: &WebhookClient,
    path: &str,
) {
    crd.spec.conversion = Some(apiextensions::CustomResourceConversion {
        strategy: "Webhook".to_owned(),
        webhook: Some(apiextensions::WebhookConversion {
            client_config: Some(client.conversion_client(path)),
            conversion_review_versions: vec!["v1".to_owned()],
        }),
    });
    if let Some(certificate) = &client.cert_manager {
        crd.metadata
            .annotations
            .get_or_insert_default()
            .insert(CERT_MANAGER_INJECT_CA_FROM.to_owned(), certificate.clone());
    }
}
