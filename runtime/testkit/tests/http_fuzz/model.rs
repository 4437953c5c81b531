//! What must exist on the server, tracked from the answers to successful writes, and
//! the consistency check that compares it with what the API lists.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use serde_json::Value;

use super::kinds::KINDS;
use super::request::{FuzzRequest, Shape};
use super::wire::{self, Response};

/// An object the model knows of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub rv: u64,
    pub finalizers: bool,
    pub deleting: bool,
}

/// (kind index, namespace, name).
type Key = (usize, String, String);

/// The objects that must exist, with their resourceVersions.
#[derive(Debug, Default)]
pub struct Model {
    objects: BTreeMap<Key, Entry>,
    /// The highest resourceVersion seen in any answer.
    pub max_rv: u64,
    /// The list resourceVersion of the last consistency check.
    last_list_rv: u64,
    /// Whether the model was read from the server yet.
    adopted: bool,
    /// Writes tracked and objects compared, for the report.
    pub writes_tracked: u64,
    pub objects_checked: u64,
}

fn rv_of(object: &Value) -> Result<u64, String> {
    let rv = object
        .pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("no metadata.resourceVersion in {object}"))?;
    rv.parse()
        .map_err(|_| format!("resourceVersion {rv:?} is not a number"))
}

fn meta_str<'a>(object: &'a Value, field: &str) -> Option<&'a str> {
    object
        .get("metadata")
        .and_then(|m| m.get(field))
        .and_then(Value::as_str)
}

fn has_finalizers(object: &Value) -> bool {
    object
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .is_some_and(|f| !f.is_empty())
}

impl Model {
    pub fn rv(&self, kind: usize, namespace: &str, name: &str) -> Option<u64> {
        self.objects
            .get(&(kind, namespace.to_owned(), name.to_owned()))
            .map(|e| e.rv)
    }

    pub fn len(&self) -> usize {
        self.objects.len()
    }

    /// Learns from a successful write's answer; an error is a broken property
    /// (resourceVersions that do not increase, an answer without metadata).
    pub fn observe(&mut self, request: &FuzzRequest, response: &Response) -> Result<(), String> {
        let write = matches!(request.method.as_str(), "POST" | "PUT" | "PATCH" | "DELETE");
        if !write || !(200..300).contains(&response.status) {
            return Ok(());
        }
        let Some(kind) = request.kind else {
            return Err("a write to a path naming nothing succeeded".to_owned());
        };
        if request.dry_run
            || request
                .header("accept")
                .is_some_and(|a| a.starts_with(b"application/yaml"))
        {
            return Ok(());
        }
        let body = response.json()?;
        self.writes_tracked += 1;
        let before = self.max_rv;
        if body["kind"] == "Scale" {
            let name = meta_str(&body, "name").unwrap_or_default().to_owned();
            let namespace = request.namespace.clone().unwrap_or_default();
            let rv = rv_of(&body)?;
            let key = (kind, namespace, name);
            let entry = self
                .objects
                .get_mut(&key)
                .ok_or_else(|| format!("scaled {key:?}, which the model does not have"))?;
            check_rv(entry.rv, rv, before)?;
            entry.rv = rv;
            self.max_rv = self.max_rv.max(rv);
            return Ok(());
        }
        let items: Vec<Value> = match body.get("items").and_then(Value::as_array) {
            Some(items) if request.method == "DELETE" && request.shape == Shape::Collection => {
                items.clone()
            }
            _ => vec![body],
        };
        for object in &items {
            let name = meta_str(object, "name")
                .ok_or_else(|| format!("answer has no metadata.name: {object}"))?
                .to_owned();
            let namespace = meta_str(object, "namespace").unwrap_or_default().to_owned();
            let rv = rv_of(object)?;
            let key = (kind, namespace, name);
            let deleting = meta_str(object, "deletionTimestamp").is_some();
            let finalizers = has_finalizers(object);
            let previous = self.objects.get(&key).map(|e| e.rv);
            let gone = if request.method == "DELETE" {
                !(deleting && finalizers)
            } else {
                deleting && !finalizers
            };
            if !gone {
                match previous {
                    Some(old) => check_rv(old, rv, before)?,
                    None if rv <= before => {
                        return Err(format!(
                            "new object {key:?} has resourceVersion {rv}, not above {before}"
                        ));
                    }
                    None => {}
                }
            }
            self.max_rv = self.max_rv.max(rv);
            if gone {
                self.objects.remove(&key);
            } else {
                self.objects.insert(
                    key,
                    Entry {
                        rv,
                        finalizers,
                        deleting,
                    },
                );
            }
        }
        Ok(())
    }

    /// Lists every kind through the API and compares with the model; the first call
    /// adopts what the server holds.
    pub async fn check(&mut self, address: SocketAddr) -> Result<(), String> {
        let mut listed: BTreeMap<Key, Entry> = BTreeMap::new();
        for (index, kind) in KINDS.iter().enumerate() {
            let list = get_json(address, &kind.collection(None)).await?;
            let list_rv: u64 = list
                .pointer("/metadata/resourceVersion")
                .and_then(Value::as_str)
                .and_then(|rv| rv.parse().ok())
                .ok_or_else(|| format!("list of {} has no resourceVersion", kind.plural))?;
            if list_rv < self.last_list_rv || list_rv < self.max_rv {
                return Err(format!(
                    "list of {} at resourceVersion {list_rv}, behind {} (last list) or {} (last write)",
                    kind.plural, self.last_list_rv, self.max_rv
                ));
            }
            self.last_list_rv = list_rv;
            let items = list["items"]
                .as_array()
                .ok_or_else(|| format!("list of {} has no items", kind.plural))?;
            for item in items {
                kind.decode(item)
                    .map_err(|e| format!("listed {} does not decode: {e}: {item}", kind.plural))?;
                let name = meta_str(item, "name").unwrap_or_default().to_owned();
                let namespace = meta_str(item, "namespace").unwrap_or_default().to_owned();
                let rv = rv_of(item)?;
                if rv > list_rv {
                    return Err(format!(
                        "{}/{name} at {rv}, after its list's {list_rv}",
                        kind.plural
                    ));
                }
                let got = get_json(address, &kind.object(&namespace, &name)).await?;
                if &got != item {
                    return Err(format!(
                        "list and get disagree on {namespace}/{name}:\nlist: {item}\nget:  {got}"
                    ));
                }
                let entry = Entry {
                    rv,
                    finalizers: has_finalizers(item),
                    deleting: meta_str(item, "deletionTimestamp").is_some(),
                };
                listed.insert((index, namespace, name), entry);
                self.objects_checked += 1;
            }
        }
        if !self.adopted {
            self.adopted = true;
            self.max_rv = self
                .max_rv
                .max(listed.values().map(|e| e.rv).max().unwrap_or(0));
            self.objects = listed;
            return Ok(());
        }
        if listed != self.objects {
            let mut diff = Vec::new();
            for (key, entry) in &self.objects {
                match listed.get(key) {
                    None => diff.push(format!("missing on the server: {key:?} {entry:?}")),
                    Some(got) if got != entry => {
                        diff.push(format!("{key:?}: model {entry:?}, server {got:?}"))
                    }
                    Some(_) => {}
                }
            }
            for (key, entry) in &listed {
                if !self.objects.contains_key(key) {
                    diff.push(format!("unexpected on the server: {key:?} {entry:?}"));
                }
            }
            return Err(format!(
                "stored state differs from the model:\n{}",
                diff.join("\n")
            ));
        }
        Ok(())
    }
}

/// A write's new resourceVersion is its old one (a no-op) or above every one seen.
fn check_rv(old: u64, new: u64, max_before: u64) -> Result<(), String> {
    if new == old || new > max_before {
        Ok(())
    } else {
        Err(format!(
            "resourceVersion went from {old} to {new}, not above the highest seen ({max_before})"
        ))
    }
}

async fn get_json(address: SocketAddr, path: &str) -> Result<Value, String> {
    let request = FuzzRequest {
        method: "GET".to_owned(),
        target: path.to_owned(),
        headers: Vec::new(),
        body: Vec::new(),
        kind: None,
        shape: Shape::Collection,
        namespace: None,
        name: None,
        dry_run: false,
        watch: false,
    };
    let response = wire::send(address, &request).await?;
    if response.status != 200 {
        return Err(format!(
            "GET {path}: {} {}",
            response.status,
            response.text()
        ));
    }
    response.json().map_err(|e| format!("GET {path}: {e}"))
}
