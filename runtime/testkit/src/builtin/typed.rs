//! Built-in objects decoded through their k8s-openapi types on every write, as a real
//! server decodes into its Go types: a value of the wrong type is an error, and fields
//! the type does not have are dropped.

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Event, Namespace, Pod, Secret, Service};
use k8s_openapi::api::events::v1::Event as EventsV1Event;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Why an object does not decode into its type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} in version {version:?} cannot be handled as a {kind}: {reason}")]
pub(crate) struct TypeError {
    /// The kind.
    pub(crate) kind: String,
    /// The version.
    pub(crate) version: String,
    /// What the decoder said.
    pub(crate) reason: String,
}

fn through<K: DeserializeOwned + Serialize>(object: Value) -> Result<Value, String> {
    let typed: K = serde_json::from_value(object).map_err(|e| e.to_string())?;
    serde_json::to_value(&typed).map_err(|e| e.to_string())
}

/// `object` decoded through the k8s-openapi type of the built-in kind `group/version
/// kind` and encoded again (unknown fields dropped); objects of other kinds unchanged.
pub(crate) fn normalize(
    group: &str,
    version: &str,
    kind: &str,
    object: Value,
) -> Result<Value, TypeError> {
    let decoded = match (group, version, kind) {
        ("", "v1", "ConfigMap") => through::<ConfigMap>(object),
        ("", "v1", "Event") => through::<Event>(object),
        ("", "v1", "Namespace") => through::<Namespace>(object),
        ("", "v1", "Pod") => through::<Pod>(object),
        ("", "v1", "Secret") => through::<Secret>(object),
        ("", "v1", "Service") => through::<Service>(object),
        ("apps", "v1", "Deployment") => through::<Deployment>(object),
        ("apps", "v1", "ReplicaSet") => through::<ReplicaSet>(object),
        ("coordination.k8s.io", "v1", "Lease") => through::<Lease>(object),
        ("events.k8s.io", "v1", "Event") => through::<EventsV1Event>(object),
        ("apiextensions.k8s.io", "v1", "CustomResourceDefinition") => {
            through::<CustomResourceDefinition>(object)
        }
        _ => Ok(object),
    };
    decoded.map_err(|reason| TypeError {
        kind: kind.to_owned(),
        version: version.to_owned(),
        reason,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn type_errors_are_reported_and_unknown_fields_dropped() {
        let error = normalize(
            "",
            "v1",
            "ConfigMap",
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": 1}}),
        )
        .expect_err("a number is not a string");
        assert!(
            error
                .to_string()
                .starts_with("ConfigMap in version \"v1\" cannot be handled as a ConfigMap: "),
            "{error}"
        );
        let normalized = normalize(
            "apps",
            "v1",
            "Deployment",
            json!({
                "apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "d", "creationTimestamp": "2025-01-02T03:04:05Z", "bogus": 1},
                "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {}, "replicas": 2, "typo": true}
            }),
        )
        .expect("decodes");
        assert_eq!(normalized["spec"]["replicas"], 2);
        assert_eq!(
            normalized["metadata"]["creationTimestamp"],
            "2025-01-02T03:04:05Z"
        );
        assert!(normalized["spec"].get("typo").is_none());
        assert!(normalized["metadata"].get("bogus").is_none());
        let custom = json!({"spec": {"anything": [1, "x"]}});
        assert_eq!(
            normalize("example.com", "v1", "Foo", custom.clone()),
            Ok(custom)
        );
    }
}
