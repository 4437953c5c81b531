//! A webhook's `clientConfig`, for admission webhooks and CRD conversion webhooks alike:
//! checked as kube-apiserver validates it when a configuration or CRD is written
//! (exactly one of `url` and `service`; an `https` URL; a service's `name`,
//! `namespace`, `port` and `path`), and read into a [`WebhookClient`]. Resolving a
//! service to an address is the HTTP layer's (`http/service.rs`), when the webhook is
//! called.

use serde_json::{Value, json};

use crate::store::meta::subdomain_error;
use crate::store::registry::{ServiceReference, WebhookClient};
use crate::store::status::Cause;

/// kube-apiserver's default `service.port`.
const DEFAULT_PORT: u16 = 443;

/// The problems of `client` (the `clientConfig` at `field`), as the causes of a 422.
pub(crate) fn check(client: Option<&Value>, field: &str) -> Vec<Cause> {
    let url = client.and_then(|c| c.get("url")).filter(|u| !u.is_null());
    let service = client
        .and_then(|c| c.get("service"))
        .filter(|s| !s.is_null());
    match (url, service) {
        (Some(url), None) => check_url(url, &format!("{field}.url")),
        (None, Some(service)) => check_service(service, &format!("{field}.service")),
        _ => vec![Cause::new(
            "FieldValueRequired",
            field,
            "Required value: exactly one of url or service is required",
        )],
    }
}

fn check_url(url: &Value, field: &str) -> Vec<Cause> {
    match url.as_str() {
        Some(text) if text.starts_with("https://") => Vec::new(),
        _ => vec![Cause::invalid(
            field,
            url,
            "'https' is the only allowed URL scheme",
        )],
    }
}

/// kube-apiserver's `ValidateWebhookService`.
fn check_service(service: &Value, field: &str) -> Vec<Cause> {
    let mut causes = Vec::new();
    let text = |key: &str| service.get(key).and_then(Value::as_str).unwrap_or_default();
    for (key, what) in [("name", "service name"), ("namespace", "service namespace")] {
        if text(key).is_empty() {
            causes.push(Cause::new(
                "FieldValueRequired",
                format!("{field}.{key}"),
                format!("Required value: {what} is required"),
            ));
        }
    }
    if let Some(port) = service.get("port").filter(|p| !p.is_null())
        && !port
            .as_u64()
            .is_some_and(|p| (1..=u64::from(u16::MAX)).contains(&p))
    {
        causes.push(Cause::invalid(
            format!("{field}.port"),
            port,
            "port is not valid: must be between 1 and 65535, inclusive",
        ));
    }
    causes.extend(check_path(text("path"), &format!("{field}.path")));
    causes
}

/// A service path: `/`-separated DNS-1123 subdomains, as kube-apiserver checks it.
fn check_path(path: &str, field: &str) -> Vec<Cause> {
    if path.is_empty() || path == "/" {
        return Vec::new();
    }
    let invalid = |why: String| Cause::invalid(field, &json!(path), why);
    if path == "//" {
        return vec![invalid("segment[0] may not be empty".to_owned())];
    }
    let mut causes = Vec::new();
    if !path.starts_with('/') {
        causes.push(invalid("must start with a '/'".to_owned()));
    }
    // kube-apiserver drops the first character, whatever it is.
    let mut rest = path.chars();
    rest.next();
    let steps = rest.as_str();
    let steps = steps.strip_suffix('/').unwrap_or(steps);
    for (i, step) in steps.split('/').enumerate() {
        if step.is_empty() {
            causes.push(invalid(format!("segment[{i}] may not be empty")));
        } else if let Some(why) = subdomain_error(step) {
            causes.push(invalid(format!("segment[{i}]: {why}")));
        }
    }
    causes
}

/// Reads a `clientConfig` that [`check`] accepted; `None` if it names neither a URL nor
/// a service.
pub(crate) fn read(client: &Value) -> Option<WebhookClient> {
    if let Some(url) = client.get("url").and_then(Value::as_str) {
        return Some(WebhookClient::Url(url.to_owned()));
    }
    let service = client.get("service").filter(|s| s.is_object())?;
    let text = |key: &str| {
        service
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let port = service
        .get("port")
        .and_then(Value::as_u64)
        .and_then(|p| u16::try_from(p).ok())
        .unwrap_or(DEFAULT_PORT);
    Some(WebhookClient::Service(ServiceReference {
        namespace: text("namespace"),
        name: text("name"),
        path: text("path"),
        port,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(client: Value) -> Vec<String> {
        check(Some(&client), "c")
            .into_iter()
            .map(|cause| format!("{}: {}", cause.field, cause.message))
            .collect::<Vec<_>>()
    }

    #[test]
    fn exactly_one_of_url_and_service() {
        let both = json!({"url": "https://a", "service": {"name": "s", "namespace": "n"}});
        assert_eq!(
            messages(both),
            ["c: Required value: exactly one of url or service is required"]
        );
        assert_eq!(messages(json!({})).len(), 1);
        assert!(messages(json!({"url": "https://127.0.0.1:1/x"})).is_empty());
        assert_eq!(
            messages(json!({"url": "http://127.0.0.1:1/x"})),
            [
                "c.url: Invalid value: \"http://127.0.0.1:1/x\": 'https' is the only allowed URL scheme"
            ]
        );
    }

    #[test]
    fn services_are_checked_as_kube_apiserver_checks_them() {
        assert!(
            messages(json!({"service": {"name": "s", "namespace": "n", "path": "/convert", "port": 8443}}))
                .is_empty()
        );
        assert_eq!(
            messages(json!({"service": {"port": 0, "path": "/a//B/"}})),
            [
                "c.service.name: Required value: service name is required".to_owned(),
                "c.service.namespace: Required value: service namespace is required".to_owned(),
                "c.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive".to_owned(),
                "c.service.path: Invalid value: \"/a//B/\": segment[1] may not be empty".to_owned(),
                format!(
                    "c.service.path: Invalid value: \"/a//B/\": segment[2]: {}",
                    subdomain_error("B").unwrap_or_default()
                ),
            ]
        );
        assert_eq!(
            messages(json!({"service": {"name": "s", "namespace": "n", "path": "x"}})),
            [
                "c.service.path: Invalid value: \"x\": must start with a '/'",
                "c.service.path: Invalid value: \"x\": segment[0] may not be empty",
            ]
        );
    }

    #[test]
    fn a_service_reads_with_its_defaults() {
        let client = json!({"service": {"name": "hook", "namespace": "system"}});
        let Some(WebhookClient::Service(service)) = read(&client) else {
            panic!("a service");
        };
        assert_eq!((service.port, service.path.as_str()), (443, ""));
        assert_eq!(service.url(), "https://hook.system.svc:443");
        assert_eq!(service.server_name(), "hook.system.svc");
    }
}
