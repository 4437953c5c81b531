//! Protobuf bodies encoded by k8s-pb (prost, independent of this decoder), shaped as Go's
//! encoding writes them (value fields present even when empty), decode into the JSON a
//! JSON request would carry.

use std::collections::BTreeMap;

use k8s_pb::api::apps::v1 as apps;
use k8s_pb::api::core::v1 as core;
use k8s_pb::apimachinery::pkg::api::resource::Quantity;
use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta_pb;
use k8s_pb::apimachinery::pkg::runtime::{TypeMeta, Unknown};
use k8s_pb::apimachinery::pkg::util::intstr::IntOrString;
use prost::Message as _;
use serde_json::json;

use super::*;

fn envelope(api_version: &str, kind: &str, object: &impl prost::Message) -> Vec<u8> {
    let unknown = Unknown {
        type_meta: Some(TypeMeta {
            api_version: Some(api_version.to_owned()),
            kind: Some(kind.to_owned()),
        }),
        raw: Some(object.encode_to_vec()),
        content_encoding: Some(String::new()),
        content_type: Some(String::new()),
    };
    let mut body = MAGIC.to_vec();
    body.extend(unknown.encode_to_vec());
    body
}

/// ObjectMeta as Go's encoder writes it: every value field present.
fn meta(name: &str, labels: &[(&str, &str)]) -> meta_pb::ObjectMeta {
    meta_pb::ObjectMeta {
        name: Some(name.to_owned()),
        generate_name: Some(String::new()),
        namespace: Some(String::new()),
        uid: Some(String::new()),
        resource_version: Some(String::new()),
        generation: Some(0),
        creation_timestamp: Some(meta_pb::Time {
            seconds: Some(0),
            nanos: Some(0),
        }),
        labels: labels
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        ..Default::default()
    }
}

#[test]
fn a_config_map_as_kubectl_create_sends_it() {
    let cm = core::ConfigMap {
        metadata: Some(meta("c1", &[("app", "web")])),
        data: BTreeMap::from([("a".to_owned(), "b".to_owned())]),
        binary_data: BTreeMap::from([("bin".to_owned(), vec![0, 1, 2])]),
        immutable: None,
    };
    let decoded = decode(&envelope("v1", "ConfigMap", &cm)).expect("decode");
    assert_eq!(
        decoded,
        json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "c1", "labels": {"app": "web"}},
            "data": {"a": "b"},
            "binaryData": {"bin": "AAEC"}
        })
    );
}

#[test]
fn a_deployment_keeps_explicit_zeros_quantities_and_int_or_strings() {
    let container = core::Container {
        name: Some("web".to_owned()),
        image: Some("nginx".to_owned()),
        working_dir: Some(String::new()),
        tty: Some(false),
        ports: vec![core::ContainerPort {
            container_port: Some(80),
            protocol: Some("TCP".to_owned()),
            ..Default::default()
        }],
        resources: Some(core::ResourceRequirements {
            limits: BTreeMap::from([(
                "cpu".to_owned(),
                Quantity {
                    string: Some("500m".to_owned()),
                },
            )]),
            ..Default::default()
        }),
        readiness_probe: Some(core::Probe {
            handler: Some(core::ProbeHandler {
                http_get: Some(core::HttpGetAction {
                    path: Some("/healthz".to_owned()),
                    port: Some(IntOrString {
                        r#type: Some(1),
                        int_val: Some(0),
                        str_val: Some("http".to_owned()),
                    }),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            period_seconds: Some(-1),
            ..Default::default()
        }),
        ..Default::default()
    };
    let deployment = apps::Deployment {
        metadata: Some(meta("d1", &[])),
        spec: Some(apps::DeploymentSpec {
            replicas: Some(0),
            selector: Some(meta_pb::LabelSelector {
                match_labels: BTreeMap::from([("app".to_owned(), "d1".to_owned())]),
                ..Default::default()
            }),
            template: Some(core::PodTemplateSpec {
                metadata: Some(meta("", &[("app", "d1")])),
                spec: Some(core::PodSpec {
                    containers: vec![container],
                    ..Default::default()
                }),
            }),
            ..Default::default()
        }),
        status: Some(apps::DeploymentStatus::default()),
    };
    let decoded = decode(&envelope("apps/v1", "Deployment", &deployment)).expect("decode");
    assert_eq!(decoded["spec"]["replicas"], 0, "an explicit zero survives");
    let web = &decoded["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(
        web,
        &json!({
            "name": "web",
            "image": "nginx",
            "ports": [{"containerPort": 80, "protocol": "TCP"}],
            "resources": {"limits": {"cpu": "500m"}},
            "readinessProbe": {"httpGet": {"path": "/healthz", "port": "http"}, "periodSeconds": -1}
        })
    );
    assert_eq!(
        decoded["spec"]["selector"],
        json!({"matchLabels": {"app": "d1"}})
    );
    assert_eq!(decoded["status"], json!({}));
    assert_eq!(decoded["apiVersion"], "apps/v1");
}

#[test]
fn secrets_services_and_times() {
    let secret = core::Secret {
        metadata: Some(meta("s", &[])),
        data: BTreeMap::from([("token".to_owned(), b"hunter2".to_vec())]),
        r#type: Some("Opaque".to_owned()),
        ..Default::default()
    };
    let decoded = decode(&envelope("v1", "Secret", &secret)).expect("secret");
    assert_eq!(decoded["data"], json!({"token": "aHVudGVyMg=="}));
    let service = core::Service {
        metadata: Some(meta_pb::ObjectMeta {
            name: Some("svc".to_owned()),
            creation_timestamp: Some(meta_pb::Time {
                seconds: Some(1_709_251_199),
                nanos: Some(0),
            }),
            ..Default::default()
        }),
        spec: Some(core::ServiceSpec {
            ports: vec![core::ServicePort {
                port: Some(80),
                target_port: Some(IntOrString {
                    r#type: Some(0),
                    int_val: Some(8080),
                    str_val: Some(String::new()),
                }),
                ..Default::default()
            }],
            selector: BTreeMap::from([("app".to_owned(), "web".to_owned())]),
            r#type: Some("ClusterIP".to_owned()),
            ..Default::default()
        }),
        status: None,
    };
    let decoded = decode(&envelope("v1", "Service", &service)).expect("service");
    assert_eq!(
        decoded["metadata"]["creationTimestamp"],
        "2024-02-29T23:59:59Z"
    );
    assert_eq!(
        decoded["spec"]["ports"],
        json!([{"port": 80, "targetPort": 8080}])
    );
}

#[test]
fn malformed_bodies_are_errors() {
    assert_eq!(decode(b"{}"), Err(Error::Magic));
    assert!(matches!(decode(b"k8s\0\x0a\xff"), Err(Error::Malformed(_))));
    let pod = core::Pod::default();
    assert!(matches!(
        decode(&envelope("example.com/v1", "Foo", &pod)),
        Err(Error::UnknownKind(_))
    ));
}

#[test]
fn zeros_are_kept_only_for_pointer_fields() {
    let spec = apps::DeploymentSpec {
        replicas: Some(0),
        min_ready_seconds: Some(0),
        revision_history_limit: Some(0),
        paused: Some(false),
        ..Default::default()
    };
    let deployment = apps::Deployment {
        metadata: Some(meta("d", &[])),
        spec: Some(spec),
        status: None,
    };
    let decoded = decode(&envelope("apps/v1", "Deployment", &deployment)).expect("decode");
    assert_eq!(
        decoded["spec"],
        json!({"replicas": 0, "revisionHistoryLimit": 0})
    );
}

#[test]
fn encoded_objects_decode_back() {
    let objects = [
        json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {
                "name": "d1", "namespace": "default", "uid": "u-1", "resourceVersion": "7",
                "generation": 2, "creationTimestamp": "2024-02-29T23:59:59Z",
                "labels": {"app": "d1"},
                "managedFields": [{"manager": "kubectl", "operation": "Update",
                    "time": "2024-02-29T23:59:59Z", "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:spec": {"f:replicas": {}}}}]
            },
            "spec": {
                "replicas": 0,
                "selector": {"matchLabels": {"app": "d1"}},
                "strategy": {"type": "RollingUpdate",
                    "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}},
                "template": {
                    "metadata": {"labels": {"app": "d1"}},
                    "spec": {"containers": [{
                        "name": "web", "image": "nginx", "args": ["-g", "daemon off;"],
                        "ports": [{"containerPort": 80, "protocol": "TCP"}],
                        "resources": {"limits": {"cpu": "500m", "memory": "1Gi"}},
                        "readinessProbe": {"httpGet": {"path": "/", "port": "http"},
                            "periodSeconds": -1}
                    }]}
                }
            },
            "status": {"replicas": 3, "conditions": [{"type": "Available", "status": "True",
                "lastTransitionTime": "2024-03-01T00:00:00Z"}]}
        }),
        json!({
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "s"},
            "type": "Opaque",
            "data": {"token": "aHVudGVyMg=="},
            "immutable": true
        }),
    ];
    for object in objects {
        let body = encode(&object).expect("encode");
        assert_eq!(decode(&body).expect("decode"), object);
    }
}

#[test]
fn only_built_in_kinds_encode() {
    let foo = json!({"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "f"}});
    assert!(matches!(encode(&foo), Err(Error::UnknownKind(_))));
    let wrong = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": 1}});
    assert!(matches!(encode(&wrong), Err(Error::Unencodable(_))));
}

#[test]
fn self_subject_access_reviews_decode_their_attributes() {
    use k8s_pb::api::authorization::v1 as authorization;
    let review = authorization::SelfSubjectAccessReview {
        spec: Some(authorization::SelfSubjectAccessReviewSpec {
            resource_attributes: Some(authorization::ResourceAttributes {
                namespace: Some("ns".into()),
                verb: Some("update".into()),
                group: Some("apps".into()),
                resource: Some("deployments".into()),
                subresource: Some("status".into()),
                ..Default::default()
            }),
            non_resource_attributes: Some(authorization::NonResourceAttributes {
                path: Some("/healthz".into()),
                verb: Some("get".into()),
            }),
        }),
        ..Default::default()
    };
    let body = envelope(
        "authorization.k8s.io/v1",
        "SelfSubjectAccessReview",
        &review,
    );
    let decoded = decode_self_subject_access_review(&body).expect("decoded");
    assert_eq!(
        decoded["spec"],
        json!({
            "resourceAttributes": {"namespace": "ns", "verb": "update", "group": "apps", "resource": "deployments", "subresource": "status"},
            "nonResourceAttributes": {"path": "/healthz", "verb": "get"}
        })
    );
    let other = envelope("v1", "ConfigMap", &core::ConfigMap::default());
    assert!(
        decode_self_subject_access_review(&other).is_err(),
        "another kind"
    );
}
