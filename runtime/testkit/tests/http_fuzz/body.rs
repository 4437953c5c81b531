//! Request bodies: valid objects, mutated objects, patches, DeleteOptions and garbage
//! (random JSON, wrong types, huge numbers, deep nesting, invalid UTF-8, truncated
//! protobuf envelopes, bodies over the size limit).

use serde_json::{Value, json};

use super::generate::Generator;
use super::kinds::Kind;
use super::model::Model;
use super::request::FuzzRequest;
use super::rng::Rng;

impl Generator {
    pub(super) fn body(&mut self, request: &mut FuzzRequest, kind: &Kind, model: &Model) {
        let name = request
            .name
            .clone()
            .unwrap_or_else(|| (*self.rng.pick(kind.names())).to_owned());
        let body = match request.method.as_str() {
            "POST" | "PUT" => self.object_body(request, kind, &name, model),
            "PATCH" => self.patch_body(request, kind, &name),
            "DELETE" => self.delete_body(request),
            _ if self.rng.chance(5) => self.garbage_body(),
            _ => Vec::new(),
        };
        request.body = body;
    }

    fn object_body(
        &mut self,
        request: &FuzzRequest,
        kind: &Kind,
        name: &str,
        model: &Model,
    ) -> Vec<u8> {
        if self.rng.chance(15) {
            return self.garbage_body();
        }
        let mut object = kind.valid_body(&mut self.rng, name);
        if request.method == "PUT" && self.rng.chance(60) {
            let ns = request.namespace.as_deref().unwrap_or_default();
            if let Some(rv) = request
                .kind
                .and_then(|k| model.rv(k, if kind.namespaced { ns } else { "" }, name))
            {
                object["metadata"]["resourceVersion"] = json!(rv.to_string());
            }
        }
        if self.rng.chance(12) {
            object["metadata"]["finalizers"] = json!([self.rng.pick(&[
                "fuzz.example.com/keep",
                "fuzz.example.com/keep",
                "bad finalizer!",
                "kubernetes"
            ])]);
        }
        if request.method == "POST" && self.rng.chance(10) {
            if let Some(metadata) = object["metadata"].as_object_mut() {
                metadata.remove("name");
            }
            object["metadata"]["generateName"] = json!(self.rng.pick(&["gen-", "GEN-", "", "g"]));
        }
        if self.rng.chance(25) {
            mutate(&mut self.rng, &mut object);
        }
        self.encode_object(request, &object)
    }

    fn encode_object(&mut self, request: &FuzzRequest, object: &Value) -> Vec<u8> {
        match request.content_type().as_deref() {
            Some("application/yaml" | "application/apply-patch+yaml") if self.rng.chance(70) => {
                to_yaml(object).into_bytes()
            }
            Some("application/vnd.kubernetes.protobuf") => {
                let mut bytes = b"k8s\0".to_vec();
                let tail: Vec<u8> = (0..self.rng.below(40))
                    .map(|_| self.rng.next_u64() as u8)
                    .collect();
                match self.rng.below(4) {
                    0 => {}
                    1 => bytes.truncate(self.rng.below(4)),
                    2 => bytes.extend_from_slice(&[
                        0x0a, 0x02, b'v', b'1', 0x12, 0x09, b'C', b'o', b'n', b'f', b'i', b'g',
                        b'M', b'a', b'p', 0x1a, 0xff,
                    ]),
                    _ => bytes.extend_from_slice(&tail),
                }
                bytes
            }
            _ => serde_json::to_vec(object).unwrap_or_default(),
        }
    }

    fn patch_body(&mut self, request: &FuzzRequest, kind: &Kind, name: &str) -> Vec<u8> {
        if self.rng.chance(12) {
            return self.garbage_body();
        }
        let patch = match request.content_type().as_deref() {
            Some("application/json-patch+json") => self.rng.pick(&[
                json!([{"op": "add", "path": "/metadata/labels/fuzz", "value": "yes"}]),
                json!([{"op": "remove", "path": "/metadata/finalizers"}]),
                json!([{"op": "replace", "path": "/metadata/finalizers", "value": []}]),
                json!([{"op": "replace", "path": "/spec/replicas", "value": 3}]),
                json!([{"op": "add", "path": "/spec/size", "value": 1000}]),
                json!([{"op": "test", "path": "/metadata/name", "value": "nope"}]),
                json!([{"op": "move", "from": "/nope", "path": "/x"}]),
                json!([{"op": "launch"}]),
                json!({"op": "add"}),
                json!([{"op": "add", "path": "/metadata", "value": 5}]),
                json!([{"op": "add", "path": "/kind", "value": "Other"}]),
                json!([{"op": "replace", "path": "", "value": [1, 2]}]),
                json!([{"op": "add", "path": "/metadata/finalizers", "value": ["fuzz.example.com/keep"]}]),
            ]).clone(),
            _ => {
                let mut patch = self.rng.pick(&[
                    json!({"metadata": {"labels": {"fuzz": "yes"}}}),
                    json!({"metadata": {"finalizers": null}}),
                    json!({"metadata": {"finalizers": ["fuzz.example.com/keep"]}}),
                    json!({"metadata": {"labels": null, "annotations": {"a": "b"}}}),
                    json!({"spec": {"replicas": 2}}),
                    json!({"spec": {"size": 7, "color": "blue"}}),
                    json!({"spec": {"size": "seven"}}),
                    json!({"data": {"key": null, "other": "v"}}),
                    json!({"status": {"phase": "Failed"}}),
                    json!({"spec": {"containers": [{"name": "c", "image": "busybox"}]}}),
                    json!({"spec": {"containers": [{"$patch": "delete", "name": "c"}]}}),
                    json!({"$patch": "replace"}),
                    json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["fuzz.example.com/keep"]}}),
                    json!({"spec": {"$setElementOrder/containers": [{"name": "z"}]}}),
                    json!({"metadata": {"resourceVersion": "1"}}),
                    json!({"metadata": 5}),
                    json!([1, 2, 3]),
                    json!("string"),
                    json!(null),
                    json!({"kind": "Other"}),
                    json!({"apiVersion": "v9"}),
                ]).clone();
                if request.content_type().as_deref() == Some("application/apply-patch+yaml") && self.rng.chance(60) {
                    patch = kind.valid_body(&mut self.rng, name);
                    if self.rng.chance(20) {
                        mutate(&mut self.rng, &mut patch);
                    }
                }
                patch
            }
        };
        if request.content_type().as_deref() == Some("application/apply-patch+yaml")
            && self.rng.chance(50)
        {
            to_yaml(&patch).into_bytes()
        } else {
            serde_json::to_vec(&patch).unwrap_or_default()
        }
    }

    fn delete_body(&mut self, request: &mut FuzzRequest) -> Vec<u8> {
        let options = match self.rng.below(10) {
            0..5 => return Vec::new(),
            5 => {
                json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Orphan"})
            }
            6 => json!({"preconditions": {"resourceVersion": "1"}}),
            7 => {
                request.dry_run = true;
                json!({"dryRun": ["All"]})
            }
            8 => json!({"propagationPolicy": 5, "gracePeriodSeconds": "x"}),
            _ => return self.garbage_body(),
        };
        serde_json::to_vec(&options).unwrap_or_default()
    }

    /// Random JSON, wrong types, deep nesting, invalid UTF-8, huge bodies.
    fn garbage_body(&mut self) -> Vec<u8> {
        match self.rng.below(14) {
            0 => Vec::new(),
            1 => b"{".to_vec(),
            2 => b"null".to_vec(),
            3 => b"[]".to_vec(),
            4 => b"\"just a string\"".to_vec(),
            5 => b"1e999".to_vec(),
            6 => format!(
                "{{\"metadata\":{{\"name\":\"a\"}},\"data\":{{\"k\":{}}}}}",
                "9".repeat(400)
            )
            .into_bytes(),
            7 => {
                let depth = 100 + self.rng.below(20_000);
                format!("{}{}", "[".repeat(depth), "]".repeat(depth)).into_bytes()
            }
            8 => {
                let depth = 100 + self.rng.below(20_000);
                let mut text = "{\"a\":".repeat(depth);
                text.push('1');
                text.push_str(&"}".repeat(depth));
                text.into_bytes()
            }
            9 => b"{\"metadata\":{\"name\":\"a\xff\xfe\"}}".to_vec(),
            10 => b"\xef\xbb\xbf{\"metadata\":{\"name\":\"a\"}}".to_vec(),
            11 if self.rng.chance(10) => vec![b' '; 3 * 1024 * 1024 + 1 + self.rng.below(1000)],
            11 => b"metadata:\n  name: a\n  labels: &x {a: *x}\n".to_vec(),
            12 => {
                let depth = 100 + self.rng.below(20_000);
                format!("{}1", "- ".repeat(depth)).into_bytes()
            }
            _ => {
                let len = self.rng.below(64);
                (0..len).map(|_| self.rng.next_u64() as u8).collect()
            }
        }
    }
}

/// Changes one random part of a valid object: a type, a name, a huge number...
fn mutate(rng: &mut Rng, object: &mut Value) {
    let paths = leaf_paths(object, String::new());
    let Some(path) = paths.get(rng.below(paths.len())).cloned() else {
        return;
    };
    let Some(target) = object.pointer_mut(&path) else {
        return;
    };
    *target = match rng.below(12) {
        0 => json!(12345),
        1 => json!("text"),
        2 => json!([1, "two", null]),
        3 => json!({"nested": {"deeper": true}}),
        4 => Value::Null,
        5 => json!(1.0e300),
        6 => json!(u64::MAX),
        7 => json!(i64::MIN),
        8 => json!(false),
        9 => json!("x".repeat(70_000)),
        10 => json!("UPPER_and spaces!"),
        _ => json!(-1),
    };
}

fn leaf_paths(value: &Value, prefix: String) -> Vec<String> {
    let mut paths = vec![prefix.clone()];
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let escaped = key.replace('~', "~0").replace('/', "~1");
                paths.extend(leaf_paths(child, format!("{prefix}/{escaped}")));
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                paths.extend(leaf_paths(child, format!("{prefix}/{i}")));
            }
        }
        _ => {}
    }
    paths.retain(|p| !p.is_empty());
    paths
}

/// A block YAML rendering of JSON (flow style for scalars; good enough for the server's
/// YAML decoder, which reads JSON too).
fn to_yaml(value: &Value) -> String {
    fn render(value: &Value, indent: usize, out: &mut String) {
        let pad = "  ".repeat(indent);
        match value {
            Value::Object(map) if !map.is_empty() => {
                for (key, child) in map {
                    out.push_str(&format!("{pad}{}:", Value::String(key.clone())));
                    if child.as_object().is_some_and(|m| !m.is_empty())
                        || child.as_array().is_some_and(|a| !a.is_empty())
                    {
                        out.push('\n');
                        render(child, indent + 1, out);
                    } else {
                        out.push_str(&format!(" {child}\n"));
                    }
                }
            }
            Value::Array(items) if !items.is_empty() => {
                for child in items {
                    out.push_str(&format!("{pad}- {child}\n"));
                }
            }
            other => out.push_str(&format!("{pad}{other}\n")),
        }
    }
    let mut out = String::new();
    render(value, 0, &mut out);
    out
}
