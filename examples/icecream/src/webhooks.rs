//! The Icecream webhooks, served by one [`WebhookServer`]:
//!
//! - conversion between `v1alpha1` and `v1` ([`CONVERT_PATH`]): the generated
//!   conversions ([`crate::conversions`]) with [`Conversions`], the four fields only we
//!   can convert (`order` splits into `flavor` and `topping`; `podSelector` is renamed
//!   `selector`);
//! - validation of `v1` Icecreams ([`VALIDATE_PATH`]): a topping must be one of
//!   [`TOPPINGS`].
//!
//! [`server`] builds it; [`WebhookServer::configurations`] and [`crd`] give the API
//! server what points at it.

use kubegen::crd;
use kubegen::crd::CustomResourceDefinition;
use kubegen::webhook::{
    AdmissionRequest, Validator, Verdict, WebhookClient, WebhookServer, WebhookServerConfig,
    convert_with_webhook, converter_fn,
};

use crate::apis::icecream::{v1, v1alpha1};
use crate::conversions::Error as ConversionError;
use crate::conversions::icecream_example_com::icecream::{self, v1alpha1::ConvertIcecreamV1alpha1};

/// Where the conversion webhook is served.
pub const CONVERT_PATH: &str = "/convert";
/// Where the validating webhook of `v1` Icecreams is served.
pub const VALIDATE_PATH: &str = "/validate-icecream-example-com-v1-icecream";
/// The toppings an Icecream may have.
pub const TOPPINGS: &[&str] = &["sprinkles", "chocolate sauce", "nuts"];

/// How `v1alpha1`'s `order` reads: the flavor, then ` with ` and the topping.
const WITH: &str = " with ";

/// The fields of `v1alpha1` and `v1` only we can convert.
#[derive(Clone, Copy, Debug, Default)]
pub struct Conversions;

impl ConvertIcecreamV1alpha1 for Conversions {
    fn icecream_spec_order_from_hub(
        &self,
        from: &v1::IcecreamSpec,
    ) -> Result<String, ConversionError> {
        Ok(match &from.topping {
            Some(topping) => format!("{}{WITH}{topping}", from.flavor),
            None => from.flavor.clone(),
        })
    }

    fn icecream_spec_pod_selector_from_hub(
        &self,
        from: &v1::IcecreamSpec,
    ) -> Result<k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector, ConversionError>
    {
        Ok(from.selector.clone())
    }

    fn icecream_spec_flavor_to_hub(
        &self,
        from: &v1alpha1::IcecreamSpec,
    ) -> Result<String, ConversionError> {
        Ok(split_order(&from.order).0.to_owned())
    }

    fn icecream_spec_topping_to_hub(
        &self,
        from: &v1alpha1::IcecreamSpec,
    ) -> Result<Option<String>, ConversionError> {
        Ok(split_order(&from.order).1.map(str::to_owned))
    }

    fn icecream_spec_selector_to_hub(
        &self,
        from: &v1alpha1::IcecreamSpec,
    ) -> Result<k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector, ConversionError>
    {
        Ok(from.pod_selector.clone())
    }
}

/// `vanilla with sprinkles` -> (`vanilla`, `Some("sprinkles")`); `vanilla` -> (`vanilla`,
/// `None`).
fn split_order(order: &str) -> (&str, Option<&str>) {
    match order.split_once(WITH) {
        Some((flavor, topping)) => (flavor, Some(topping)),
        None => (order, None),
    }
}

/// Toppings come from the menu.
#[derive(Clone, Copy, Debug, Default)]
pub struct ToppingsOnTheMenu;

impl ToppingsOnTheMenu {
    fn check(icecream: &v1::Icecream) -> Verdict {
        match icecream.spec.topping.as_deref() {
            Some(topping) if !TOPPINGS.contains(&topping) => Verdict::deny(format!(
                "spec.topping: {topping:?} is not a topping; choose one of {}",
                TOPPINGS.join(", ")
            ))
            .code(422),
            _ => Verdict::allow(),
        }
    }
}

impl Validator<v1::Icecream> for ToppingsOnTheMenu {
    async fn validate_create(
        &self,
        object: &v1::Icecream,
        _: &AdmissionRequest<v1::Icecream>,
    ) -> Verdict {
        Self::check(object)
    }

    async fn validate_update(
        &self,
        _: &v1::Icecream,
        new: &v1::Icecream,
        _: &AdmissionRequest<v1::Icecream>,
    ) -> Verdict {
        Self::check(new)
    }
}

/// The webhook server of Icecreams: conversion and validation.
pub fn server(config: WebhookServerConfig) -> WebhookServer {
    WebhookServer::new(config)
        .conversion(
            CONVERT_PATH,
            converter_fn(|object, version| icecream::convert(&Conversions, object, version)),
        )
        .validating(VALIDATE_PATH, ToppingsOnTheMenu)
}

/// The webhook server running in this process, and how the API server reaches it.
#[derive(Debug)]
pub struct Serving {
    /// How the API server reaches the server: its URL or Service, and its CA.
    pub client: WebhookClient,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<kubegen::webhook::Result<()>>,
    /// The throwaway certificates' directory, removed on [`stop`](Self::stop).
    scratch: Option<std::path::PathBuf>,
}

impl Serving {
    /// Serves the webhooks on 127.0.0.1 (a free port) with a throwaway CA and serving
    /// certificate: for the embedded API server, which calls them by URL.
    pub async fn on_loopback() -> Result<Self, Box<dyn std::error::Error>> {
        use kubegen::testkit::certs::TestCa;
        // One directory per server: a process (a test binary) may run several.
        static SERVERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = SERVERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let scratch =
            std::env::temp_dir().join(format!("icecream-webhook-{}-{n}", std::process::id()));
        let ca = TestCa::new()?;
        ca.serving_cert(&["127.0.0.1"])?.write_to(&scratch)?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let client = WebhookClient::url(format!("https://{}", listener.local_addr()?))
            .ca_bundle(ca.cert_pem().as_bytes().to_vec());
        let mut serving = Self::start(
            WebhookServerConfig::default().cert_dir(&scratch),
            listener,
            client,
        );
        serving.scratch = Some(scratch);
        Ok(serving)
    }

    /// Serves the webhooks on `listener` with the certificate in `config`'s directory
    /// (cert-manager's Secret, reloaded when renewed); `client` is how the API server
    /// reaches them.
    pub fn start(
        config: WebhookServerConfig,
        listener: tokio::net::TcpListener,
        client: WebhookClient,
    ) -> Self {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(server(config).serve(listener, async {
            let _ = stopped.await;
        }));
        Self {
            client,
            stop: Some(stop),
            task,
            scratch: None,
        }
    }

    /// Stops serving (requests in flight finish) and returns why it stopped early, if it
    /// did.
    pub async fn stop(mut self) -> Result<(), Box<dyn std::error::Error>> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let served = (&mut self.task).await;
        if let Some(scratch) = self.scratch.take() {
            let _ = std::fs::remove_dir_all(scratch);
        }
        Ok(served??)
    }
}

/// The Icecream CustomResourceDefinition, both versions (`v1` stored), converted through
/// the webhook `client` reaches.
pub fn crd(client: &WebhookClient) -> Result<CustomResourceDefinition, crd::Error> {
    let mut crd = crd::merge(
        [v1::Icecream::try_crd()?, v1alpha1::Icecream::try_crd()?],
        v1::VERSION,
    )?;
    convert_with_webhook(&mut crd, client, CONVERT_PATH);
    Ok(crd)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a failed call is a failed test
mod tests {
    use super::*;

    #[test]
    fn orders_split_and_join() {
        assert_eq!(
            split_order("vanilla with sprinkles"),
            ("vanilla", Some("sprinkles"))
        );
        assert_eq!(split_order("vanilla"), ("vanilla", None));
        let spec = v1::IcecreamSpec {
            flavor: "mint".into(),
            topping: Some("nuts".into()),
            ..Default::default()
        };
        assert_eq!(
            Conversions.icecream_spec_order_from_hub(&spec).unwrap(),
            "mint with nuts"
        );
    }

    #[test]
    fn a_v1alpha1_object_converts_to_v1_and_back_unchanged() {
        let old = serde_json::json!({
            "apiVersion": "icecream.example.com/v1alpha1",
            "kind": "Icecream",
            "metadata": {"name": "vanilla", "namespace": "default"},
            "spec": {"order": "vanilla with sprinkles", "podSelector": {"matchLabels": {"app": "vanilla"}}},
            "status": {"nodes": ["node-a"], "pods": [{"name": "vanilla-1", "nodeName": "node-a"}]}
        });
        let new = icecream::convert(&Conversions, old.clone(), "icecream.example.com/v1").unwrap();
        assert_eq!(new["apiVersion"], "icecream.example.com/v1");
        assert_eq!(new["spec"]["flavor"], "vanilla");
        assert_eq!(new["spec"]["topping"], "sprinkles");
        assert_eq!(new["spec"]["selector"]["matchLabels"]["app"], "vanilla");
        assert_eq!(new["status"], old["status"]);
        let back = icecream::convert(&Conversions, new, "icecream.example.com/v1alpha1").unwrap();
        assert_eq!(back, old);
    }

    #[test]
    fn the_crd_serves_both_versions_and_converts_through_the_webhook() {
        let client = WebhookClient::service("icecream-system", "icecream-webhook");
        let crd = crd(&client).unwrap();
        let versions: Vec<_> = crd
            .spec
            .versions
            .iter()
            .map(|v| (v.name.as_str(), v.storage))
            .collect();
        assert_eq!(versions, [("v1", true), ("v1alpha1", false)]);
        assert_eq!(crd.spec.conversion.unwrap().strategy, "Webhook");
    }
}
