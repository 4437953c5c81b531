//! The runtime's webhook server (`kubegen_runtime::webhook::WebhookServer`) on
//! 127.0.0.1 for the testkit's admission and service tests, serving a certificate of a
//! throwaway CA (`kubegen_testkit::certs`), and the configurations that register it.
//! Each test crate including this module uses a part of it.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use kubegen_runtime::webhook::{WebhookServer, WebhookServerConfig};
use kubegen_testkit::certs::ServingCert;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A webhook server running until [`Running::stop`].
pub(crate) struct Running {
    /// Where it listens.
    pub(crate) address: SocketAddr,
    ca_pem: String,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
    dir: PathBuf,
}

impl Running {
    /// Serves what `register` adds to a server, with `cert` (written to a temporary
    /// directory the server reads).
    pub(crate) async fn start(
        cert: &ServingCert,
        register: impl FnOnce(WebhookServer) -> WebhookServer,
    ) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "kubegen-testkit-webhooks-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        cert.write_to(&dir).expect("write the certificate");
        let server = register(WebhookServer::new(
            WebhookServerConfig::default().cert_dir(&dir),
        ));
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let shutdown = async {
                let _ = stopped.await;
            };
            server.serve(listener, shutdown).await.expect("serve");
        });
        Self {
            address,
            ca_pem: cert.ca_pem().to_owned(),
            stop: Some(stop),
            task,
            dir,
        }
    }

    /// `clientConfig` by URL, for `path`.
    pub(crate) fn url_config(&self, path: &str) -> Value {
        json!({"url": format!("https://{}{path}", self.address), "caBundle": self.ca_bundle()})
    }

    /// The CA, base64 as a `caBundle`.
    pub(crate) fn ca_bundle(&self) -> String {
        base64(&self.ca_pem)
    }

    /// Stops the server and waits for it.
    pub(crate) async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        (&mut self.task).await.expect("the server task");
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `text` in base64, as Kubernetes' `[]byte` fields carry bytes.
pub(crate) fn base64(text: &str) -> String {
    serde_json::to_value(k8s_openapi::ByteString(text.as_bytes().to_vec()))
        .expect("base64")
        .as_str()
        .expect("a string")
        .to_owned()
}

/// One webhook of a configuration: `name`, its `clientConfig`, `rules` and any `extra`
/// fields (`matchPolicy`, `failurePolicy`).
pub(crate) fn webhook(name: &str, client_config: Value, rules: Value, extra: Value) -> Value {
    let mut hook = json!({
        "name": name,
        "clientConfig": client_config,
        "rules": rules,
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
    });
    if let (Some(hook), Some(extra)) = (hook.as_object_mut(), extra.as_object()) {
        for (key, value) in extra {
            hook.insert(key.clone(), value.clone());
        }
    }
    hook
}

/// A rule for `operations` on `resources` of `group` at `versions`.
pub(crate) fn rule(
    operations: &[&str],
    group: &str,
    versions: &[&str],
    resources: &[&str],
) -> Value {
    json!([{"operations": operations, "apiGroups": [group], "apiVersions": versions, "resources": resources}])
}

/// Stores a Validating (`mutating: false`) or Mutating WebhookConfiguration `name`.
pub(crate) async fn configure(
    client: &kube::Client,
    mutating: bool,
    name: &str,
    webhooks: Vec<Value>,
) {
    let kind = match mutating {
        true => "MutatingWebhookConfiguration",
        false => "ValidatingWebhookConfiguration",
    };
    let object = json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": kind,
        "metadata": {"name": name},
        "webhooks": webhooks,
    });
    let plural = format!("{}s", kind.to_lowercase());
    let resource = kube::api::ApiResource {
        group: "admissionregistration.k8s.io".to_owned(),
        version: "v1".to_owned(),
        api_version: "admissionregistration.k8s.io/v1".to_owned(),
        kind: kind.to_owned(),
        plural,
    };
    let api: kube::Api<kube::api::DynamicObject> = kube::Api::all_with(client.clone(), &resource);
    let object: kube::api::DynamicObject = serde_json::from_value(object).expect("an object");
    api.create(&kube::api::PostParams::default(), &object)
        .await
        .expect("store the configuration");
}

/// The HTTP code and message of a failed request.
pub(crate) fn api_error<T: std::fmt::Debug>(result: Result<T, kube::Error>) -> (u16, String) {
    match result {
        Err(kube::Error::Api(status)) => (status.code, status.message.clone()),
        other => panic!("expected an API error, got {other:?}"),
    }
}
