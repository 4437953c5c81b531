//! The built-in printers' cells, as `kubectl get` shows them.

use serde_json::{Value, json};

use super::*;

/// 2025-01-01T00:00:00Z.
const NOW: i64 = 1_735_689_600;

fn row(group: &str, kind: &str, object: Value) -> Vec<Value> {
    let (columns, cells) = builtin(group, kind);
    let row = cells(&object, NOW);
    assert_eq!(row.len(), columns.len(), "{kind}: one cell per column");
    row
}

fn created(minutes_ago: i64) -> String {
    let secs = NOW - minutes_ago * 60;
    crate::store::meta::format_rfc3339(secs as u64)
}

#[test]
fn every_column_has_a_description() {
    for (group, kind) in [
        ("", "Pod"),
        ("", "Service"),
        ("", "ConfigMap"),
        ("", "Secret"),
        ("", "Namespace"),
        ("", "Event"),
        ("apps", "Deployment"),
        ("apps", "ReplicaSet"),
        ("coordination.k8s.io", "Lease"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ] {
        for column in builtin(group, kind).0 {
            assert!(
                !describe(column.description).is_empty(),
                "{kind}.{}",
                column.name
            );
        }
    }
}

#[test]
fn pods_show_readiness_status_and_restarts() {
    let pending = row(
        "",
        "Pod",
        json!({
            "metadata": {"name": "p", "creationTimestamp": created(5)},
            "spec": {"containers": [{"name": "a"}, {"name": "b"}]},
            "status": {"phase": "Pending"}
        }),
    );
    assert_eq!(
        pending,
        [
            json!("p"),
            json!("0/2"),
            json!("Pending"),
            json!("0"),
            json!("5m"),
            json!("<none>"),
            json!("<none>"),
            json!("<none>"),
            json!("<none>")
        ]
    );
    let crashing = row(
        "",
        "Pod",
        json!({
            "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "a"}, {"name": "b"}], "nodeName": "n1"},
            "status": {"phase": "Running", "podIPs": [{"ip": "10.0.0.7"}], "containerStatuses": [
                {"name": "a", "ready": true, "restartCount": 0, "state": {"running": {}}},
                {"name": "b", "ready": false, "restartCount": 4, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}
            ]}
        }),
    );
    assert_eq!(
        &crashing[1..4],
        [json!("1/2"), json!("CrashLoopBackOff"), json!("4")]
    );
    assert_eq!(&crashing[5..7], [json!("10.0.0.7"), json!("n1")]);
    let init = row(
        "",
        "Pod",
        json!({
            "metadata": {"name": "p"},
            "spec": {"initContainers": [{"name": "i"}, {"name": "j"}], "containers": [{"name": "a"}]},
            "status": {"phase": "Pending", "initContainerStatuses": [
                {"name": "i", "restartCount": 0, "state": {"terminated": {"exitCode": 0}}},
                {"name": "j", "restartCount": 0, "state": {"running": {}}}
            ]}
        }),
    );
    assert_eq!(init[2], "Init:1/2");
    let deleting = row(
        "",
        "Pod",
        json!({"metadata": {"name": "p", "deletionTimestamp": created(0)}, "spec": {"containers": []}, "status": {"phase": "Running"}}),
    );
    assert_eq!(deleting[2], "Terminating");
}

#[test]
fn workloads_show_replica_counts_and_their_template() {
    let deployment = row(
        "apps",
        "Deployment",
        json!({
            "metadata": {"name": "web", "creationTimestamp": created(90)},
            "spec": {
                "replicas": 3,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {"spec": {"containers": [{"name": "web", "image": "nginx"}, {"name": "log", "image": "busybox"}]}}
            },
            "status": {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2}
        }),
    );
    assert_eq!(
        deployment,
        [
            json!("web"),
            json!("2/3"),
            json!(3),
            json!(2),
            json!("90m"),
            json!("web,log"),
            json!("nginx,busybox"),
            json!("app=web")
        ]
    );
    let replica_set = row(
        "apps",
        "ReplicaSet",
        json!({"metadata": {"name": "rs"}, "spec": {"replicas": 2}, "status": {"replicas": 2, "readyReplicas": 1}}),
    );
    assert_eq!(
        &replica_set[..4],
        [json!("rs"), json!(2), json!(2), json!(1)]
    );
}

#[test]
fn services_show_addresses_and_ports() {
    let cluster_ip = row(
        "",
        "Service",
        json!({
            "metadata": {"name": "svc"},
            "spec": {"type": "ClusterIP", "clusterIPs": ["10.96.0.10"], "selector": {"b": "2", "a": "1"},
                     "ports": [{"port": 80, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}]}
        }),
    );
    assert_eq!(
        cluster_ip,
        [
            json!("svc"),
            json!("ClusterIP"),
            json!("10.96.0.10"),
            json!("<none>"),
            json!("80/TCP,53/UDP"),
            json!("<unknown>"),
            json!("a=1,b=2")
        ]
    );
    let balancer = row(
        "",
        "Service",
        json!({"metadata": {"name": "lb"}, "spec": {"type": "LoadBalancer", "ports": [{"port": 443, "nodePort": 30443}]}}),
    );
    assert_eq!(
        &balancer[2..5],
        [json!("<none>"), json!("<pending>"), json!("443:30443/TCP")]
    );
    let external = row(
        "",
        "Service",
        json!({"metadata": {"name": "x"}, "spec": {"type": "ExternalName", "externalName": "example.com"}}),
    );
    assert_eq!(&external[3..5], [json!("example.com"), json!("<none>")]);
}

#[test]
fn config_secrets_namespaces_and_leases() {
    assert_eq!(
        row(
            "",
            "ConfigMap",
            json!({"metadata": {"name": "c"}, "data": {"a": "1", "b": "2"}, "binaryData": {"c": "AA=="}})
        ),
        [json!("c"), json!(3), json!("<unknown>")]
    );
    assert_eq!(
        row(
            "",
            "Secret",
            json!({"metadata": {"name": "s"}, "type": "Opaque", "data": {"a": "MQ=="}})
        ),
        [json!("s"), json!("Opaque"), json!(1), json!("<unknown>")]
    );
    assert_eq!(
        row(
            "",
            "Namespace",
            json!({"metadata": {"name": "ns", "creationTimestamp": created(3 * 24 * 60)}, "status": {"phase": "Active"}})
        ),
        [json!("ns"), json!("Active"), json!("3d")]
    );
    assert_eq!(
        row(
            "coordination.k8s.io",
            "Lease",
            json!({"metadata": {"name": "l"}, "spec": {"holderIdentity": "pod-1"}})
        ),
        [json!("l"), json!("pod-1"), json!("<unknown>")]
    );
    assert_eq!(
        row(
            "apiextensions.k8s.io",
            "CustomResourceDefinition",
            json!({"metadata": {"name": "foos.example.com", "creationTimestamp": "2024-05-06T07:08:09Z"}})
        ),
        [json!("foos.example.com"), json!("2024-05-06T07:08:09Z")]
    );
}

#[test]
fn events_of_both_groups_print_alike() {
    let core = row(
        "",
        "Event",
        json!({
            "metadata": {"name": "web.1"},
            "involvedObject": {"kind": "Deployment", "name": "web", "fieldPath": "spec"},
            "reason": "ScalingReplicaSet", "type": "Normal", "message": " Scaled up \n",
            "source": {"component": "deployment-controller"},
            "firstTimestamp": created(10), "lastTimestamp": created(2), "count": 3
        }),
    );
    assert_eq!(
        core,
        [
            json!("2m"),
            json!("Normal"),
            json!("ScalingReplicaSet"),
            json!("deployment/web"),
            json!("spec"),
            json!("deployment-controller"),
            json!("Scaled up"),
            json!("10m"),
            json!(3),
            json!("web.1")
        ]
    );
    let events_v1 = row(
        "events.k8s.io",
        "Event",
        json!({
            "metadata": {"name": "e"},
            "regarding": {"kind": "Pod", "name": "p"},
            "reason": "Started", "type": "Normal", "note": "started",
            "reportingController": "kubelet", "reportingInstance": "node-1",
            "eventTime": created(1)
        }),
    );
    assert_eq!(
        events_v1[0], "60s",
        "no lastTimestamp: the first (event) time"
    );
    assert_eq!(events_v1[3], "pod/p");
    assert_eq!(events_v1[5], "kubelet, node-1");
    assert_eq!(events_v1[8], json!(1), "a singleton event counts once");
}
