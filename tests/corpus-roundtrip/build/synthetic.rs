//! Synthetic CRDs ten times the corpus's largest where decoding costs stack, each with a
//! full object (every property set), for the bounded-stack tests.
//!
//! - [`deep`]: the properties reachable through objects alone, which a kind's struct holds
//!   inline (arrays and maps put theirs on the heap). The corpus's largest such schema has
//!   596 (argo-cd's Application), its deepest nests objects 9 levels deep. This one nests
//!   objects [`DEPTH`] levels deep (twice the corpus's deepest, and more than KServe's
//!   InferenceService) with [`PER_LEVEL`] properties inline in each: [`INLINE`] in all, ten
//!   times the corpus's largest.
//! - [`serving`]: the shape of KServe's InferenceService (1.9 MB, 582 int-or-string fields,
//!   which overflowed a 2 MiB thread in the round trip): [`COMPONENTS`] components of
//!   [`CONTAINERS`] containers each (an inline one and three lists), every container with
//!   [`INT_OR_STRINGS`] int-or-string fields in its probes, lifecycle hooks and ports, and
//!   every property described as at length as KServe's are.
//!
//! Before `__kubegen_serde!` read nested structs onto the heap (`codegen/src/emit/serde_macro.rs`),
//! a debug build's decoding frames grew with everything nested below them: at 12 levels of
//! 144 properties (1,728) `deep` overflowed a 2 MiB stack, and at 12 levels of 45 (540) its
//! round trip needed 1180 KiB (428 KiB after). Now the debug round trip of `deep` needs
//! 1004 KiB, of `serving` 308 KiB (`examples/decode_stack.rs`). Object levels still cost a
//! generated crate rustc's recursion: at 80 levels (before the heap decoding; not measured
//! since) the crate did not compile (rustc's default `recursion_limit` of 128 no longer
//! reached the layout of the root's `Result<Kind, _>`).

use serde_json::{Map, Value, json};

/// Object levels below `spec` in [`deep`].
pub const DEPTH: usize = 20;
/// Scalars directly in each level.
const SCALARS: usize = 20;
/// Inline objects in each level.
const OBJECTS: usize = 26;
/// Scalars in each inline object (and each item of a level's `items`).
const OBJECT_SCALARS: usize = 10;
/// Properties inline at each level: the scalars, the objects and theirs, `items`, `next`.
pub const PER_LEVEL: usize = SCALARS + OBJECTS * (1 + OBJECT_SCALARS) + 2;
/// Properties inline in [`deep`]'s `spec` (the last level has no `next`).
pub const INLINE: usize = DEPTH * PER_LEVEL - 1;

/// A scalar schema and a value for it, by position.
fn scalar(i: usize) -> (Value, Value) {
    match i % 4 {
        0 => (json!({"type": "string"}), json!(format!("text-{i}"))),
        1 => (json!({"type": "integer", "format": "int64"}), json!(i)),
        2 => (json!({"type": "boolean"}), json!(i.is_multiple_of(3))),
        _ => (json!({"type": "number"}), json!(i as f64 + 0.5)),
    }
}

/// An object of `OBJECT_SCALARS` scalars: its schema and a value with every one set.
fn flat_object() -> (Value, Value) {
    let (mut properties, mut value) = (Map::new(), Map::new());
    for i in 0..OBJECT_SCALARS {
        let (schema, example) = scalar(i);
        properties.insert(format!("f{i}"), schema);
        value.insert(format!("f{i}"), example);
    }
    (
        json!({"type": "object", "properties": properties}),
        Value::Object(value),
    )
}

/// Level `level` of [`deep`]'s nesting: its schema and a value with every property set.
fn level(level: usize) -> (Value, Value) {
    let (mut properties, mut value) = (Map::new(), Map::new());
    for i in 0..SCALARS {
        let (schema, example) = scalar(i + level);
        properties.insert(format!("s{i}"), schema);
        value.insert(format!("s{i}"), example);
    }
    for i in 0..OBJECTS {
        let (schema, example) = flat_object();
        properties.insert(format!("o{i}"), schema);
        value.insert(format!("o{i}"), example);
    }
    let (item, example) = flat_object();
    properties.insert("items".into(), json!({"type": "array", "items": item}));
    value.insert("items".into(), json!([example]));
    if level + 1 < DEPTH {
        let (schema, example) = self::level(level + 1);
        properties.insert("next".into(), schema);
        value.insert("next".into(), example);
    }
    (
        json!({"type": "object", "properties": properties}),
        Value::Object(value),
    )
}

/// A namespaced CRD of one served version `v1` of `group`'s `kind` (plural `plural`),
/// whose `spec` is `spec`, and an object of it whose `spec` is `example`: both as JSON text
/// (which is YAML).
fn crd_and_object(
    group: &str,
    kind: &str,
    plural: &str,
    spec: Value,
    example: Value,
) -> (String, String) {
    let singular = kind.to_lowercase();
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": {
            "group": group,
            "names": {"kind": kind, "plural": plural, "singular": singular, "listKind": format!("{kind}List")},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1",
                "served": true,
                "storage": true,
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {
                        "apiVersion": {"type": "string"},
                        "kind": {"type": "string"},
                        "metadata": {"type": "object"},
                        "spec": spec,
                    },
                }},
            }],
        },
    });
    let object = json!({
        "apiVersion": format!("{group}/v1"),
        "kind": kind,
        "metadata": {"name": singular, "namespace": "default"},
        "spec": example,
    });
    (
        serde_json::to_string_pretty(&crd).expect("JSON"),
        serde_json::to_string_pretty(&object).expect("JSON"),
    )
}

/// The deep CRD (`Deep` of `stack.example.com`) and a full object of its kind.
pub fn deep() -> (String, String) {
    let (spec, example) = level(0);
    crd_and_object("stack.example.com", "Deep", "deeps", spec, example)
}

/// Components of [`serving`]'s `spec`, as KServe's predictor, transformer and explainer.
pub const COMPONENTS: usize = 11;
/// Containers in each component: an inline `model`, and one item each of `containers`,
/// `initContainers` and `sidecars`.
pub const CONTAINERS: usize = 4;
/// Int-or-string fields in each container: `port` of `httpGet` and `tcpSocket` in three
/// probes and three lifecycle hooks, `targetPort` of its ports, and `maxSurge`.
pub const INT_OR_STRINGS: usize = 3 * 2 + 3 * 2 + 2;
/// Int-or-string fields in [`serving`]'s full object.
pub const SERVING_INT_OR_STRINGS: usize = COMPONENTS * CONTAINERS * INT_OR_STRINGS;

/// A description as long as KServe's usual ones (they are copied from the core types').
fn described(mut schema: Value, what: &str) -> Value {
    let text = format!(
        "{what}. This field is described at the length of the Kubernetes core types' \
         descriptions, which KServe copies for every container of every component: what \
         it holds, when the kubelet reads it, which defaults apply when it is not set, \
         and which fields it cannot be combined with. More info: \
         https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle#container-probes"
    );
    schema["description"] = Value::String(text);
    schema
}

/// An object schema of `properties` (name, schema, value) and a value with each set.
fn object(what: &str, properties: Vec<(&str, (Value, Value))>) -> (Value, Value) {
    let (mut schemas, mut value) = (Map::new(), Map::new());
    for (name, (schema, example)) in properties {
        schemas.insert(name.to_owned(), described(schema, name));
        value.insert(name.to_owned(), example);
    }
    (
        described(json!({"type": "object", "properties": schemas}), what),
        Value::Object(value),
    )
}

/// A string property with `value`.
fn string(value: &str) -> (Value, Value) {
    (json!({"type": "string"}), json!(value))
}

/// An int32 property with `value`.
fn int(value: i32) -> (Value, Value) {
    (json!({"type": "integer", "format": "int32"}), json!(value))
}

/// An int-or-string property, set to a number (`n` even) or a name.
fn int_or_string(n: usize) -> (Value, Value) {
    let value = if n.is_multiple_of(2) {
        json!(8000 + n)
    } else {
        json!(format!("port-{n}"))
    };
    (
        json!({"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": true}),
        value,
    )
}

/// A list of one item.
fn list((item, example): (Value, Value)) -> (Value, Value) {
    (json!({"type": "array", "items": item}), json!([example]))
}

/// An HTTP GET action (`port` int-or-string).
fn http_get(n: usize) -> (Value, Value) {
    let header = object(
        "HTTPHeader",
        vec![("name", string("X-Probe")), ("value", string("1"))],
    );
    object(
        "HTTPGetAction",
        vec![
            ("host", string("localhost")),
            ("httpHeaders", list(header)),
            ("path", string("/healthz")),
            ("port", int_or_string(n)),
            ("scheme", string("HTTP")),
        ],
    )
}

/// A TCP socket action (`port` int-or-string).
fn tcp_socket(n: usize) -> (Value, Value) {
    object(
        "TCPSocketAction",
        vec![("host", string("localhost")), ("port", int_or_string(n))],
    )
}

/// A probe: two int-or-string ports.
fn probe(n: usize) -> (Value, Value) {
    object(
        "Probe",
        vec![
            ("failureThreshold", int(3)),
            (
                "grpc",
                object(
                    "GRPCAction",
                    vec![("port", int(9000)), ("service", string("health"))],
                ),
            ),
            ("httpGet", http_get(n)),
            ("initialDelaySeconds", int(1)),
            ("periodSeconds", int(10)),
            ("successThreshold", int(1)),
            ("tcpSocket", tcp_socket(n + 1)),
            ("timeoutSeconds", int(1)),
        ],
    )
}

/// A lifecycle hook: two int-or-string ports.
fn handler(n: usize) -> (Value, Value) {
    let exec = object("ExecAction", vec![("command", list(string("true")))]);
    object(
        "LifecycleHandler",
        vec![
            ("exec", exec),
            ("httpGet", http_get(n)),
            ("tcpSocket", tcp_socket(n + 1)),
        ],
    )
}

/// A container: [`INT_OR_STRINGS`] int-or-string fields, the first numbered `n`.
fn container(n: usize) -> (Value, Value) {
    let lifecycle = object(
        "Lifecycle",
        vec![
            ("postStart", handler(n + 6)),
            ("preStop", handler(n + 8)),
            ("postStop", handler(n + 10)),
        ],
    );
    let port = object(
        "ContainerPort",
        vec![
            ("containerPort", int(8080)),
            ("name", string("http")),
            ("protocol", string("TCP")),
            ("targetPort", int_or_string(n + 12)),
        ],
    );
    object(
        "Container",
        vec![
            ("args", list(string("--port=8080"))),
            ("image", string("kserve/sklearnserver:latest")),
            ("lifecycle", lifecycle),
            ("livenessProbe", probe(n)),
            ("maxSurge", int_or_string(n + 13)),
            ("name", string("kserve-container")),
            ("ports", list(port)),
            ("readinessProbe", probe(n + 2)),
            ("startupProbe", probe(n + 4)),
        ],
    )
}

/// A component (as KServe's predictor): [`CONTAINERS`] containers, the first numbered `n`.
fn component(n: usize) -> (Value, Value) {
    let step = INT_OR_STRINGS;
    object(
        "Component",
        vec![
            ("containers", list(container(n + step))),
            ("initContainers", list(container(n + 2 * step))),
            ("minReplicas", int(1)),
            ("model", container(n)),
            ("serviceAccountName", string("default")),
            ("sidecars", list(container(n + 3 * step))),
        ],
    )
}

/// The CRD of KServe's shape (`Serving` of `serving.example.com`) and a full object of its
/// kind.
pub fn serving() -> (String, String) {
    let names: Vec<String> = (0..COMPONENTS).map(|i| format!("component{i}")).collect();
    let components = names
        .iter()
        .enumerate()
        .map(|(i, name)| (name.as_str(), component(i * CONTAINERS * INT_OR_STRINGS)))
        .collect();
    let (spec, example) = object("InferenceServiceSpec", components);
    crd_and_object("serving.example.com", "Serving", "servings", spec, example)
}
