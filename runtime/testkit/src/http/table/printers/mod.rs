//! The columns `kubectl get` shows for each built-in kind the testkit serves, and how
//! their cells are computed: the facts of Kubernetes' printers (`pkg/printers/internalversion`)
//! for these kinds, written down here. Column descriptions come from the generated
//! OpenAPI definitions where Kubernetes takes them from the types' documentation.

use serde_json::{Value, json};

mod cells;

use cells::{age, deployment, event, len, name, pod, replica_set, service, text};

use super::{Column, Description};
use crate::builtin;

const META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

const fn column(name: &'static str, ty: &'static str, description: Description) -> Column {
    Column {
        name,
        ty,
        format: "",
        priority: 0,
        description,
    }
}

const fn wide(mut column: Column) -> Column {
    column.priority = 1;
    column
}

const NAME: Column = Column {
    name: "Name",
    ty: "string",
    format: "name",
    priority: 0,
    description: Description::Field(META, "name"),
};
const AGE: Column = column(
    "Age",
    "string",
    Description::Field(META, "creationTimestamp"),
);

const POD: &[Column] = &[
    NAME,
    column(
        "Ready",
        "string",
        Description::Text("The aggregate readiness state of this pod for accepting traffic."),
    ),
    column(
        "Status",
        "string",
        Description::Text("The aggregate status of the containers in this pod."),
    ),
    column(
        "Restarts",
        "string",
        Description::Text(
            "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
        ),
    ),
    AGE,
    wide(column(
        "IP",
        "string",
        Description::Field("io.k8s.api.core.v1.PodStatus", "podIP"),
    )),
    wide(column(
        "Node",
        "string",
        Description::Field("io.k8s.api.core.v1.PodSpec", "nodeName"),
    )),
    wide(column(
        "Nominated Node",
        "string",
        Description::Field("io.k8s.api.core.v1.PodStatus", "nominatedNodeName"),
    )),
    wide(column(
        "Readiness Gates",
        "string",
        Description::Field("io.k8s.api.core.v1.PodSpec", "readinessGates"),
    )),
];

const WORKLOAD_WIDE: [Column; 3] = [
    wide(column(
        "Containers",
        "string",
        Description::Text("Names of each container in the template."),
    )),
    wide(column(
        "Images",
        "string",
        Description::Text("Images referenced by each container in the template."),
    )),
    wide(column(
        "Selector",
        "string",
        Description::Text(
            "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.",
        ),
    )),
];

const DEPLOYMENT: &[Column] = &[
    NAME,
    column(
        "Ready",
        "string",
        Description::Text("Number of the pod with ready state"),
    ),
    column(
        "Up-to-date",
        "integer",
        Description::Field("io.k8s.api.apps.v1.DeploymentStatus", "updatedReplicas"),
    ),
    column(
        "Available",
        "integer",
        Description::Field("io.k8s.api.apps.v1.DeploymentStatus", "availableReplicas"),
    ),
    AGE,
    WORKLOAD_WIDE[0],
    WORKLOAD_WIDE[1],
    WORKLOAD_WIDE[2],
];

const REPLICA_SET: &[Column] = &[
    NAME,
    column(
        "Desired",
        "integer",
        Description::Field("io.k8s.api.apps.v1.ReplicaSetSpec", "replicas"),
    ),
    column(
        "Current",
        "integer",
        Description::Field("io.k8s.api.apps.v1.ReplicaSetStatus", "replicas"),
    ),
    column(
        "Ready",
        "integer",
        Description::Field("io.k8s.api.apps.v1.ReplicaSetStatus", "readyReplicas"),
    ),
    AGE,
    WORKLOAD_WIDE[0],
    WORKLOAD_WIDE[1],
    WORKLOAD_WIDE[2],
];

const SERVICE: &[Column] = &[
    NAME,
    column(
        "Type",
        "string",
        Description::Field("io.k8s.api.core.v1.ServiceSpec", "type"),
    ),
    column(
        "Cluster-IP",
        "string",
        Description::Field("io.k8s.api.core.v1.ServiceSpec", "clusterIP"),
    ),
    column(
        "External-IP",
        "string",
        Description::Field("io.k8s.api.core.v1.ServiceSpec", "externalIPs"),
    ),
    column(
        "Port(s)",
        "string",
        Description::Field("io.k8s.api.core.v1.ServiceSpec", "ports"),
    ),
    AGE,
    wide(column(
        "Selector",
        "string",
        Description::Field("io.k8s.api.core.v1.ServiceSpec", "selector"),
    )),
];

const CONFIG_MAP: &[Column] = &[
    NAME,
    column(
        "Data",
        "integer",
        Description::Field("io.k8s.api.core.v1.ConfigMap", "data"),
    ),
    AGE,
];

const SECRET: &[Column] = &[
    NAME,
    column(
        "Type",
        "string",
        Description::Field("io.k8s.api.core.v1.Secret", "type"),
    ),
    column(
        "Data",
        "integer",
        Description::Field("io.k8s.api.core.v1.Secret", "data"),
    ),
    AGE,
];

const NAMESPACE: &[Column] = &[
    NAME,
    column(
        "Status",
        "string",
        Description::Text("The status of the namespace"),
    ),
    AGE,
];

const LEASE: &[Column] = &[
    NAME,
    column(
        "Holder",
        "string",
        Description::Field("io.k8s.api.coordination.v1.LeaseSpec", "holderIdentity"),
    ),
    AGE,
];

const EVENT: &[Column] = &[
    column(
        "Last Seen",
        "string",
        Description::Field("io.k8s.api.core.v1.Event", "lastTimestamp"),
    ),
    column(
        "Type",
        "string",
        Description::Field("io.k8s.api.core.v1.Event", "type"),
    ),
    column(
        "Reason",
        "string",
        Description::Field("io.k8s.api.core.v1.Event", "reason"),
    ),
    column(
        "Object",
        "string",
        Description::Field("io.k8s.api.core.v1.Event", "involvedObject"),
    ),
    wide(column(
        "Subobject",
        "string",
        Description::Field("io.k8s.api.core.v1.ObjectReference", "fieldPath"),
    )),
    wide(column(
        "Source",
        "string",
        Description::Field("io.k8s.api.core.v1.Event", "source"),
    )),
    column(
        "Message",
        "string",
        Description::Field("io.k8s.api.core.v1.Event", "message"),
    ),
    wide(column(
        "First Seen",
        "string",
        Description::Field("io.k8s.api.core.v1.Event", "firstTimestamp"),
    )),
    wide(column(
        "Count",
        "string",
        Description::Field("io.k8s.api.core.v1.Event", "count"),
    )),
    wide(Column {
        format: "name",
        ..column("Name", "string", Description::Field(META, "name"))
    }),
];

/// The `rest.DefaultTableConvertor` columns (kinds without a printer, e.g. CRDs).
const DEFAULT: &[Column] = &[
    NAME,
    Column {
        format: "",
        ..column(
            "Created At",
            "date",
            Description::Field(META, "creationTimestamp"),
        )
    },
];

/// Computes a row's cells from an object at `now` (seconds since the epoch).
pub(crate) type Cells = fn(&Value, i64) -> Vec<Value>;

/// The columns of a built-in kind, and the function computing a row's cells.
pub(crate) fn builtin(group: &str, kind: &str) -> (&'static [Column], Cells) {
    match (group, kind) {
        ("", "Pod") => (POD, pod),
        ("", "Service") => (SERVICE, service),
        ("", "ConfigMap") => (CONFIG_MAP, |o, now| {
            let data = len(o, &["data"]) + len(o, &["binaryData"]);
            vec![name(o), json!(data), age(o, now)]
        }),
        ("", "Secret") => (SECRET, |o, now| {
            let ty = text(o, &["type"]).unwrap_or_default();
            vec![name(o), json!(ty), json!(len(o, &["data"])), age(o, now)]
        }),
        ("", "Namespace") => (NAMESPACE, |o, now| {
            vec![
                name(o),
                json!(text(o, &["status", "phase"]).unwrap_or_default()),
                age(o, now),
            ]
        }),
        ("", "Event") => (EVENT, |o, now| event(o, now, false)),
        ("events.k8s.io", "Event") => (EVENT, |o, now| event(o, now, true)),
        ("apps", "Deployment") => (DEPLOYMENT, deployment),
        ("apps", "ReplicaSet") => (REPLICA_SET, replica_set),
        ("coordination.k8s.io", "Lease") => (LEASE, |o, now| {
            let holder = text(o, &["spec", "holderIdentity"]).unwrap_or_default();
            vec![name(o), json!(holder), age(o, now)]
        }),
        _ => (DEFAULT, |o, _| {
            vec![
                name(o),
                json!(text(o, &["metadata", "creationTimestamp"]).unwrap_or_default()),
            ]
        }),
    }
}

/// The description a column's definition carries.
pub(crate) fn describe(description: Description) -> &'static str {
    match description {
        Description::Text(text) => text,
        Description::Field(definition, field) => builtin::description(definition, field),
    }
}

#[cfg(test)]
mod tests;
