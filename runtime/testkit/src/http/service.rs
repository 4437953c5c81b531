//! Where a webhook call goes: a `clientConfig.url` as it is, a `clientConfig.service`
//! resolved as kube-apiserver's endpoint resolver does, on loopback only. A service is
//! either mapped to an address by [`ApiServerConfig::service_address`] or looked up in
//! the cluster: the stored Service (`ClusterIP`, `NodePort` or `LoadBalancer`), its
//! port numbered `service.port`, and the ready addresses of its EndpointSlices (label
//! `kubernetes.io/service-name`) or of its Endpoints, on the endpoint port named as the
//! Service's port. Only loopback addresses are called: the testkit never sends webhook
//! traffic elsewhere. The certificate is verified for `<service>.<namespace>.svc`.
//!
//! Errors use kube-apiserver's words (`service "x" not found`, `no endpoints available
//! for service "x"`), prefixed with `Post "<url>": ` as Go's HTTP client reports a
//! failed dial.
//!
//! [`ApiServerConfig::service_address`]: crate::ApiServerConfig::service_address

use std::net::{IpAddr, SocketAddr};

use serde_json::Value;

use crate::http::webhook::Target;
use crate::store::registry::{ServiceReference, StorageKey, WebhookClient};
use crate::store::shared::Shared;

/// The label that ties an EndpointSlice to its Service.
const SERVICE_NAME_LABEL: &str = "kubernetes.io/service-name";

/// Where a call to `client` goes now; `Err` is the reason the call fails.
pub(crate) fn target(shared: &Shared, client: &WebhookClient) -> Result<Target, String> {
    match client {
        WebhookClient::Url(url) => Target::of_url(url),
        WebhookClient::Service(service) => {
            let url = service.url();
            let address = resolve(shared, service).map_err(|why| format!("Post {url:?}: {why}"))?;
            Ok(Target {
                url,
                host: address.ip().to_string(),
                port: address.port(),
                server_name: service.server_name(),
            })
        }
    }
}

/// The loopback address `service` resolves to.
fn resolve(shared: &Shared, service: &ServiceReference) -> Result<SocketAddr, String> {
    let key = (service.namespace.clone(), service.name.clone());
    let address = match shared.config.services.get(&key) {
        Some(address) => *address,
        None => from_cluster(shared, service)?,
    };
    if !address.ip().is_loopback() {
        return Err(format!(
            "service \"{}/{}\" resolves to {address}: the testkit calls webhooks on loopback addresses only",
            service.namespace, service.name
        ));
    }
    Ok(address)
}

/// `service` resolved from the stored Service and its EndpointSlices or Endpoints.
fn from_cluster(shared: &Shared, service: &ServiceReference) -> Result<SocketAddr, String> {
    let cluster = shared.lock();
    let core = |plural: &str| StorageKey {
        group: String::new(),
        plural: plural.to_owned(),
    };
    let name = &service.name;
    let stored = cluster
        .get(&core("services"), &service.namespace, name)
        .ok_or_else(|| format!("service {name:?} not found"))?;
    let port_name = service_port_name(&stored, service.port).ok_or_else(|| {
        format!(
            "no service port {} found for service {name:?}",
            service.port
        )
    })?;
    let kind = stored
        .pointer("/spec/type")
        .and_then(Value::as_str)
        .unwrap_or("ClusterIP");
    if !matches!(kind, "ClusterIP" | "NodePort" | "LoadBalancer") {
        return Err(format!("unsupported service type {kind:?}"));
    }
    let slices_key = StorageKey {
        group: "discovery.k8s.io".to_owned(),
        plural: "endpointslices".to_owned(),
    };
    let mut addresses: Vec<SocketAddr> = cluster
        .current(&slices_key)
        .iter()
        .filter(|((namespace, _), _)| *namespace == service.namespace)
        .filter(|(_, slice)| {
            slice
                .pointer("/metadata/labels")
                .and_then(|labels| labels.get(SERVICE_NAME_LABEL))
                .and_then(Value::as_str)
                == Some(name)
        })
        .flat_map(|(_, slice)| slice_addresses(slice, port_name))
        .collect();
    if addresses.is_empty()
        && let Some(endpoints) = cluster.get(&core("endpoints"), &service.namespace, name)
    {
        addresses = endpoints_addresses(&endpoints, port_name);
    }
    // The first loopback address, or the first at all for the caller to refuse.
    addresses
        .iter()
        .find(|address| address.ip().is_loopback())
        .or_else(|| addresses.first())
        .copied()
        .ok_or_else(|| format!("no endpoints available for service {name:?}"))
}

/// The name of the Service's port numbered `port` (`""` when unnamed).
fn service_port_name(service: &Value, port: u16) -> Option<&str> {
    service
        .pointer("/spec/ports")?
        .as_array()?
        .iter()
        .find(|p| p.get("port").and_then(Value::as_u64) == Some(u64::from(port)))
        .map(|p| p.get("name").and_then(Value::as_str).unwrap_or_default())
}

/// The port named `name` in a list of endpoint ports (`""` matches an unnamed one).
fn named_port(ports: Option<&Value>, name: &str) -> Option<u16> {
    ports?
        .as_array()?
        .iter()
        .find(|p| p.get("name").and_then(Value::as_str).unwrap_or_default() == name)
        .and_then(|p| p.get("port")?.as_u64())
        .and_then(|p| u16::try_from(p).ok())
}

/// An address string with a port, if it is an IP address.
fn socket(ip: &str, port: u16) -> Option<SocketAddr> {
    ip.parse::<IpAddr>()
        .ok()
        .map(|ip| SocketAddr::new(ip, port))
}

/// The ready addresses of an EndpointSlice (`conditions.ready` unset counts as ready),
/// on its port named `port_name`.
fn slice_addresses(slice: &Value, port_name: &str) -> Vec<SocketAddr> {
    let Some(port) = named_port(slice.get("ports"), port_name) else {
        return Vec::new();
    };
    slice
        .get("endpoints")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|endpoint| endpoint.pointer("/conditions/ready") != Some(&Value::Bool(false)))
        .flat_map(|endpoint| {
            endpoint
                .get("addresses")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .filter_map(Value::as_str)
        .filter_map(|ip| socket(ip, port))
        .collect()
}

/// The ready addresses (`subsets[].addresses`, not `notReadyAddresses`) of an Endpoints
/// object, on the port named `port_name` of each subset.
fn endpoints_addresses(endpoints: &Value, port_name: &str) -> Vec<SocketAddr> {
    endpoints
        .get("subsets")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .flat_map(|subset| {
            let port = named_port(subset.get("ports"), port_name);
            subset
                .get("addresses")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|address| address.get("ip").and_then(Value::as_str))
                .filter_map(move |ip| socket(ip, port?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn ready_slice_addresses_on_the_named_port() {
        let slice = json!({
            "ports": [{"name": "https", "port": 9443}, {"name": "metrics", "port": 8080}],
            "endpoints": [
                {"addresses": ["127.0.0.1"], "conditions": {"ready": true}},
                {"addresses": ["127.0.0.2"], "conditions": {"ready": false}},
                {"addresses": ["::1"]},
            ],
        });
        let found = slice_addresses(&slice, "https");
        assert_eq!(
            found,
            [
                "127.0.0.1:9443".parse::<SocketAddr>().expect("address"),
                "[::1]:9443".parse().expect("address")
            ]
        );
        assert!(slice_addresses(&slice, "").is_empty());
    }

    #[test]
    fn endpoints_give_their_ready_addresses() {
        let endpoints = json!({"subsets": [{
            "addresses": [{"ip": "127.0.0.1"}],
            "notReadyAddresses": [{"ip": "127.0.0.9"}],
            "ports": [{"port": 8443}],
        }]});
        assert_eq!(
            endpoints_addresses(&endpoints, ""),
            ["127.0.0.1:8443".parse::<SocketAddr>().expect("address")]
        );
    }

    #[test]
    fn the_service_port_is_found_by_number() {
        let service =
            json!({"spec": {"ports": [{"name": "webhook", "port": 443, "targetPort": 9443}]}});
        assert_eq!(service_port_name(&service, 443), Some("webhook"));
        assert_eq!(service_port_name(&service, 80), None);
    }
}
