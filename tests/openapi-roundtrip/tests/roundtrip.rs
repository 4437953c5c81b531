//! Every kind generated from the corpus OpenAPI documents (v3 per group, and v2 swagger for
//! every GA group) compiles (this crate builds), agrees with k8s-openapi on its resource
//! constants and scope, and round-trips a full object: one synthesized from the document's
//! own schema with every property set (recursively, through `$ref`s), which
//!
//! - goes through k8s-openapi's type and then the generated type, and both serialize it to
//!   the same JSON (the generated type interoperates with kube and k8s-openapi), and
//! - goes through the types generated with `generate_referenced` (no k8s-openapi types
//!   inside but `ObjectMeta`, `Time`, `MicroTime`, `Quantity`, `IntOrString`) unchanged: nothing lost or
//!   changed. (With the default mapping, fields k8s-openapi does not know, such as 1.35
//!   alpha fields inside a `PodSpec`, are dropped by k8s-openapi's types, by design.)

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

use std::collections::BTreeMap;

use kubegen_openapi_roundtrip::{CORPUS, Kind, V2_KINDS, V3_KINDS, V3FULL_KINDS, on_small_stack};
use serde_json::{Map, Value, json};

/// Named schemas of one document.
struct Doc {
    schemas: Map<String, Value>,
}

impl Doc {
    fn load(corpus: &str, file: &str) -> Self {
        let text = std::fs::read_to_string(format!("{corpus}/{file}")).expect("read document");
        let doc: Value = serde_json::from_str(&text).expect("JSON");
        let schemas = doc
            .pointer("/components/schemas")
            .or_else(|| doc.get("definitions"))
            .and_then(Value::as_object)
            .cloned()
            .expect("named schemas");
        Self { schemas }
    }

    /// A value for `schema` with every property set; `None` for schemaless nodes. Each
    /// definition is entered at most twice per path, so recursive schemas end.
    fn synthesize(&self, schema: &Value, stack: &mut Vec<String>) -> Option<Value> {
        let reference = schema
            .get("$ref")
            .or_else(|| schema.pointer("/allOf/0/$ref"))
            .and_then(Value::as_str);
        if let Some(reference) = reference {
            let name = reference.rsplit('/').next().unwrap_or_default().to_owned();
            match name.rsplit('.').next().unwrap_or_default() {
                "Time" => return Some(json!("2024-01-02T03:04:05Z")),
                "MicroTime" => return Some(json!("2024-01-02T03:04:05.000006Z")),
                "Quantity" => return Some(json!("1500m")),
                "IntOrString" => return Some(json!("25%")),
                _ => {}
            }
            if stack.iter().filter(|s| **s == name).count() >= 2 {
                return None;
            }
            let target = self.schemas.get(&name)?;
            stack.push(name);
            let mut value = self.synthesize(target, stack);
            stack.pop();
            // Embedded objects of a kind (a StatefulSet's PersistentVolumeClaims) say so.
            if let (Some(value), Some([gvk])) = (
                value.as_mut().filter(|v| v.get("apiVersion").is_some()),
                target["x-kubernetes-group-version-kind"]
                    .as_array()
                    .map(Vec::as_slice),
            ) {
                set_kind(value, gvk);
            }
            return value;
        }
        if schema.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
            return Some(json!(8080));
        }
        let ty = schema.get("type").and_then(Value::as_str);
        match ty {
            Some("object") | None if schema.get("properties").is_some() => {
                let mut out = Map::new();
                for (name, prop) in schema["properties"].as_object()? {
                    if let Some(value) = self.synthesize(prop, stack) {
                        out.insert(name.clone(), value);
                    }
                }
                Some(Value::Object(out))
            }
            Some("object") => Some(match schema.get("additionalProperties") {
                Some(Value::Bool(true)) => json!({"key": [1, "two", null]}),
                Some(value @ Value::Object(_)) => match self.synthesize(value, stack) {
                    Some(v) => json!({"key": v}),
                    None => json!({}),
                },
                _ if schema.get("x-kubernetes-preserve-unknown-fields").is_some() => {
                    json!({"anything": {"goes": [1, "two"]}})
                }
                _ => json!({}),
            }),
            Some("array") => {
                let item = self.synthesize(schema.get("items")?, stack)?;
                Some(json!([item]))
            }
            Some("string") => Some(match schema.get("format").and_then(Value::as_str) {
                Some("byte") => json!("aGVsbG8="),
                Some("date-time") => json!("2024-01-02T03:04:05Z"),
                _ => match schema.pointer("/enum/0") {
                    Some(value) => value.clone(),
                    None => json!("some-text"),
                },
            }),
            Some("integer") => Some(json!(7)),
            Some("number") => Some(json!(0.25)),
            Some("boolean") => Some(json!(true)),
            _ => None,
        }
    }
}

/// A full object of `kind`, with `apiVersion` and `kind` set as the API server sets them.
fn object(doc: &Doc, kind: &Kind) -> Value {
    let schema = &doc.schemas[kind.definition];
    let mut value = doc
        .synthesize(schema, &mut vec![kind.definition.to_owned()])
        .expect("kinds are objects");
    set_kind(&mut value, &schema["x-kubernetes-group-version-kind"][0]);
    value
}

/// Sets `apiVersion` and `kind` as the API server does for `gvk`.
fn set_kind(value: &mut Value, gvk: &Value) {
    let group = gvk["group"].as_str().unwrap_or_default();
    let version = gvk["version"].as_str().unwrap_or_default();
    value["apiVersion"] = json!(if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    });
    value["kind"] = gvk["kind"].clone();
}

/// The JSON paths where `a` and `b` differ (at most a few).
fn differences(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    if out.len() >= 5 || a == b {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for key in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                let (va, vb) = (
                    x.get(key).unwrap_or(&Value::Null),
                    y.get(key).unwrap_or(&Value::Null),
                );
                if x.contains_key(key) != y.contains_key(key) {
                    out.push(format!(
                        "{path}/{key}: {} vs {}",
                        short(x.get(key)),
                        short(y.get(key))
                    ));
                } else {
                    differences(va, vb, &format!("{path}/{key}"), out);
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                differences(va, vb, &format!("{path}/{i}"), out);
            }
        }
        _ => out.push(format!("{path}: {a} vs {b}")),
    }
}

fn short(value: Option<&Value>) -> String {
    match value {
        None => "(absent)".to_owned(),
        Some(v) => {
            let text = v.to_string();
            if text.len() > 60 {
                format!("{}...", &text[..60])
            } else {
                text
            }
        }
    }
}

fn diff(a: &Value, b: &Value) -> String {
    let mut out = Vec::new();
    differences(a, b, "", &mut out);
    out.join("; ")
}

/// Counts the leaves of a JSON value (how much an object exercises).
fn leaves(value: &Value) -> usize {
    match value {
        Value::Object(map) => map.values().map(leaves).sum(),
        Value::Array(items) => items.iter().map(leaves).sum(),
        _ => 1,
    }
}

/// What a run checks.
#[derive(Clone, Copy, PartialEq)]
enum Check {
    /// k8s-openapi's type and the generated one agree.
    Interop,
    /// The generated type returns the object unchanged.
    Lossless,
}

/// Checks every kind of `kinds` on a thread with a 2 MiB stack, whatever `RUST_MIN_STACK`
/// says: the harness must not need more than a spawned thread's default.
fn check_all(kinds: &'static [Kind], what: &'static str, check: Check) {
    on_small_stack(move || check_kinds(kinds, what, check));
}

fn check_kinds(kinds: &[Kind], what: &str, check: Check) {
    let Some(corpus) = CORPUS else {
        println!(
            "SKIPPED: no OpenAPI corpus at build time (set KUBEGEN_CORPUS or add ../shared/corpus/openapi)"
        );
        return;
    };
    assert!(!kinds.is_empty(), "{what}: kinds were generated");
    let mut docs: BTreeMap<&str, Doc> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut total_leaves = 0;
    for kind in kinds {
        let doc = docs
            .entry(kind.doc)
            .or_insert_with(|| Doc::load(corpus, kind.doc));
        let value = object(doc, kind);
        total_leaves += leaves(&value);
        match (kind.round_trip)(value.clone()) {
            Err(e) => failures.push(format!("{}: {e}", kind.definition)),
            Ok(trip) => {
                if check == Check::Lossless && trip.direct != value {
                    failures.push(format!(
                        "{}: changed by the generated type: {}",
                        kind.definition,
                        diff(&value, &trip.direct)
                    ));
                }
                if check == Check::Interop && trip.via_k8s_openapi != trip.k8s_openapi {
                    failures.push(format!(
                        "{}: k8s-openapi and the generated type disagree: {}",
                        kind.definition,
                        diff(&trip.k8s_openapi, &trip.via_k8s_openapi)
                    ));
                }
            }
        }
    }
    println!(
        "{what}: {} kinds round-tripped, {total_leaves} leaf values in all",
        kinds.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn v3_kinds_round_trip_with_k8s_openapi() {
    check_all(V3_KINDS, "v3", Check::Interop);
    if CORPUS.is_some() {
        // The groups the issue names are all there.
        for wanted in [
            "io.k8s.api.apps.v1.Deployment",
            "io.k8s.api.apps.v1.StatefulSet",
            "io.k8s.api.batch.v1.Job",
            "io.k8s.api.batch.v1.CronJob",
            "io.k8s.api.coordination.v1.Lease",
            "io.k8s.api.core.v1.Pod",
            "io.k8s.api.networking.v1.Ingress",
            "io.k8s.api.rbac.v1.ClusterRole",
            "io.k8s.api.policy.v1.PodDisruptionBudget",
            "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler",
            "io.k8s.api.storage.v1.StorageClass",
            "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
        ] {
            assert!(
                V3_KINDS.iter().any(|k| k.definition == wanted),
                "{wanted} generated"
            );
        }
    }
}

#[test]
fn v2_kinds_round_trip_with_k8s_openapi() {
    check_all(V2_KINDS, "v2", Check::Interop);
}

#[test]
fn v3_kinds_generated_with_referenced_packages_lose_nothing() {
    check_all(V3FULL_KINDS, "v3full", Check::Lossless);
}
