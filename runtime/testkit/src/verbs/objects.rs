//! Object semantics of writes: create and update (main resource and status), with
//! identity, defaulting, validation, generation ([`generation`]) and no-op detection.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::builtin;
use crate::store::meta::{self, meta_str};
use crate::store::registry::ResourceType;
use crate::store::status::{ApiError, ApiResult, Cause, Subject};
use crate::store::storage::Cluster;
use crate::verbs::admission;
use crate::verbs::crd;
use crate::verbs::deletion;
use crate::verbs::generation;
use crate::verbs::managed_fields::{self, Record, Writer};
use crate::verbs::place::{Part, Place, existing, namespaces_key};
use crate::verbs::schema;

/// Checks the shape of a request body before it is used as an object.
fn check_body(place: &Place<'_>, body: &Value) -> ApiResult<()> {
    let Some(map) = body.as_object() else {
        return Err(ApiError::bad_request(
            "the body of the request was not a JSON object",
        ));
    };
    if map
        .get("metadata")
        .is_some_and(|m| !m.is_object() && !m.is_null())
    {
        return Err(ApiError::bad_request("metadata must be an object"));
    }
    let rt = place.rt;
    if let Some(kind) = map.get("kind").and_then(Value::as_str)
        && kind != rt.kind
    {
        return Err(ApiError::bad_request(format!(
            "the kind of the provided object ({kind}) does not match the kind of the requested resource ({})",
            rt.kind
        )));
    }
    if let Some(api_version) = map.get("apiVersion").and_then(Value::as_str) {
        let group = api_version.rsplit_once('/').map(|(g, _)| g).unwrap_or("");
        if group != rt.group {
            return Err(ApiError::bad_request(format!(
                "the API version in the data ({api_version}) does not match the expected API version ({})",
                rt.api_version()
            )));
        }
    }
    if let Some(namespace) = meta_str(body, "namespace").filter(|ns| !ns.is_empty())
        && rt.namespaced
        && namespace != place.namespace
    {
        return Err(ApiError::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        ));
    }
    Ok(())
}

/// Kind-specific defaulting that the real server's strategies do.
fn default_built_in(rt: &ResourceType, object: &mut Value, creating: bool) {
    match (rt.group.as_str(), rt.plural.as_str()) {
        ("", "secrets") => {
            if let Some(Value::Object(string_data)) =
                object.as_object_mut().and_then(|o| o.remove("stringData"))
            {
                for (key, value) in string_data {
                    let text = value.as_str().unwrap_or_default().to_owned();
                    object["data"][key] = json!(meta::base64(text.as_bytes()));
                }
            }
            if object.get("type").is_none() {
                object["type"] = json!("Opaque");
            }
        }
        ("", "services") if meta::get_path(object, "spec.type").is_none() => {
            meta::set_path(object, "spec.type", json!("ClusterIP"));
        }
        ("", "pods") if creating => {
            object["status"] = json!({"phase": "Pending"});
        }
        ("", "namespaces") if creating => {
            object["status"] = json!({"phase": "Active"});
        }
        ("apps", "deployments" | "replicasets")
            if meta::get_path(object, "spec.replicas").is_none() =>
        {
            meta::set_path(object, "spec.replicas", json!(1));
        }
        _ => {}
    }
}

/// A built-in object decoded through its k8s-openapi type and encoded again (unknown
/// fields dropped); custom resources unchanged (their schema prunes them).
pub(crate) fn typed(rt: &ResourceType, object: Value) -> Result<Value, builtin::TypeError> {
    if rt.custom {
        return Ok(object);
    }
    builtin::normalize(&rt.group, &rt.version, &rt.kind, object)
}

/// Label, annotation and finalizer name checks every write gets, as ObjectMeta
/// validation does.
fn validate_metadata(place: &Place<'_>, name: &str, object: &Value) -> ApiResult<()> {
    let mut causes = Vec::new();
    if let Some(labels) = object
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
    {
        for (key, value) in labels {
            if let Some(why) = meta::qualified_name_error(key) {
                causes.push(Cause::invalid("metadata.labels", &json!(key), why));
            }
            match value.as_str() {
                Some(text) => {
                    if let Some(why) = meta::label_value_error(text) {
                        causes.push(Cause::invalid("metadata.labels", value, why));
                    }
                }
                None => causes.push(Cause::invalid(
                    "metadata.labels",
                    value,
                    "label values must be strings",
                )),
            }
        }
    }
    if let Some(annotations) = object
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
    {
        for key in annotations.keys() {
            if let Some(why) = meta::qualified_name_error(key) {
                causes.push(Cause::invalid("metadata.annotations", &json!(key), why));
            }
        }
    }
    for finalizer in finalizers(object) {
        if let Some(why) = meta::qualified_name_error(finalizer) {
            causes.push(Cause::invalid(
                "metadata.finalizers",
                &json!(finalizer),
                why,
            ));
        }
    }
    if causes.is_empty() {
        Ok(())
    } else {
        Err(place.invalid(name, causes))
    }
}

fn finalizers(object: &Value) -> Vec<&str> {
    object
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .map(|f| f.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Once an object is being deleted, finalizers can only be removed (ObjectMeta update
/// validation): a controller acting on a stale copy cannot re-finalize it.
fn check_no_new_finalizers(
    place: &Place<'_>,
    name: &str,
    old: &Value,
    new: &Value,
) -> ApiResult<()> {
    if meta_str(old, "deletionTimestamp").is_none() {
        return Ok(());
    }
    let before = finalizers(old);
    let added: Vec<&str> = finalizers(new)
        .into_iter()
        .filter(|f| !before.contains(f))
        .collect();
    if added.is_empty() {
        return Ok(());
    }
    let listed: Vec<String> = added.iter().map(|f| format!("{f:?}")).collect();
    let cause = Cause::new(
        "FieldValueForbidden",
        "metadata.finalizers",
        format!(
            "Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}",
            listed.join(", ")
        ),
    );
    Err(place.invalid(name, vec![cause]))
}

/// Schema validation and pruning for custom resources.
fn validate(place: &Place<'_>, name: &str, object: &mut Value) -> ApiResult<()> {
    if let Some(schema) = &place.rt.schema {
        let causes = schema::apply(schema, object);
        if !causes.is_empty() {
            return Err(place.invalid(name, causes));
        }
    }
    Ok(())
}

/// Webhook configurations the testkit can call (see [`admission::check_configuration`]).
fn check_webhooks(place: &Place<'_>, name: &str, object: &Value) -> ApiResult<()> {
    let causes = admission::check_configuration(place.rt, object);
    if causes.is_empty() {
        Ok(())
    } else {
        Err(place.invalid(name, causes))
    }
}

fn check_namespace(cluster: &Cluster, place: &Place<'_>) -> ApiResult<()> {
    if !place.rt.namespaced {
        return Ok(());
    }
    let Some(namespace) = cluster.get(&namespaces_key(), "", place.namespace) else {
        return Err(ApiError::not_found(Subject {
            group: "",
            resource: "namespaces",
            name: place.namespace,
        }));
    };
    if meta_str(&namespace, "deletionTimestamp").is_some() {
        let message = format!(
            "unable to create new content in namespace {} because it is being terminated",
            place.namespace
        );
        return Err(ApiError::forbidden(place.subject(""), message));
    }
    Ok(())
}

/// POST: stores a new object.
pub(crate) fn create(
    cluster: &mut Cluster,
    place: &Place<'_>,
    mut object: Value,
    record: &Record,
) -> ApiResult<Arc<Value>> {
    check_body(place, &object)?;
    let rt = place.rt;
    // The type may have gone (its CRD deleted) since the request was routed.
    if cluster
        .registry
        .get(&rt.group, &rt.version, &rt.plural)
        .is_none()
    {
        return Err(ApiError::no_route());
    }
    object["apiVersion"] = json!(rt.api_version());
    object["kind"] = json!(rt.kind);
    if object.get("metadata").is_none_or(Value::is_null) {
        object["metadata"] = json!({});
    }
    if meta_str(&object, "resourceVersion").is_some_and(|rv| !rv.is_empty()) {
        return Err(ApiError::internal(
            "resourceVersion should not be set on objects to be created",
        ));
    }
    if rt.namespaced {
        object["metadata"]["namespace"] = json!(place.namespace);
    } else if let Some(metadata) = object["metadata"].as_object_mut() {
        metadata.remove("namespace");
    }
    check_namespace(cluster, place)?;

    let generate = meta_str(&object, "generateName")
        .filter(|g| !g.is_empty())
        .map(str::to_owned);
    let (name, explicit_name) = match (
        meta_str(&object, "name").filter(|n| !n.is_empty()),
        &generate,
    ) {
        (Some(name), _) => (name.to_owned(), true),
        (None, Some(prefix)) => (format!("{prefix}{}", meta::name_suffix()), false),
        (None, None) => {
            let cause = Cause::new(
                "FieldValueRequired",
                "metadata.name",
                "Required value: name or generateName is required",
            );
            return Err(place.invalid("", vec![cause]));
        }
    };
    let name_error = if rt.plural == "namespaces" && rt.group.is_empty() {
        meta::label_error(&name)
    } else {
        meta::subdomain_error(&name)
    };
    if let Some(why) = name_error {
        return Err(place.invalid(
            &name,
            vec![Cause::invalid("metadata.name", &json!(name), why)],
        ));
    }
    object["metadata"]["name"] = json!(name);
    if let Some(metadata) = object["metadata"].as_object_mut() {
        for field in [
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "managedFields",
            "resourceVersion",
        ] {
            metadata.remove(field);
        }
    }
    object["metadata"]["uid"] = json!(meta::new_uid());
    object["metadata"]["creationTimestamp"] = json!(meta::now_rfc3339());
    generation::on_create(rt, &mut object);
    if rt.status
        && let Some(map) = object.as_object_mut()
    {
        map.remove("status");
    }
    default_built_in(rt, &mut object, true);
    let mut object = typed(rt, object).map_err(|e| ApiError::bad_request(e.to_string()))?;
    validate_metadata(place, &name, &object)?;
    validate(place, &name, &mut object)?;
    check_webhooks(place, &name, &object)?;
    let new_types = if crd::is_crd(rt) {
        Some(crd::prepare(&mut object, None)?)
    } else {
        None
    };

    let storage = rt.storage_key();
    let mut name = name;
    let mut attempts = 0;
    while cluster.get(&storage, place.namespace, &name).is_some() {
        attempts += 1;
        match &generate {
            Some(prefix) if !explicit_name && attempts < 8 => {
                name = format!("{prefix}{}", meta::name_suffix());
                object["metadata"]["name"] = json!(name);
            }
            _ => return Err(ApiError::already_exists(place.subject(&name))),
        }
    }
    managed_fields::record(rt, Part::Main, None, &mut object, record);
    let stored = cluster.create(&storage, object);
    if let Some(types) = new_types {
        crd::register(cluster, types);
    }
    Ok(stored)
}

/// PUT: replaces an object (or its status). A set resourceVersion must be current.
pub(crate) fn update(
    cluster: &mut Cluster,
    place: &Place<'_>,
    name: &str,
    body: Value,
    part: Part,
    record: &Record,
) -> ApiResult<Arc<Value>> {
    check_body(place, &body)?;
    match meta_str(&body, "name") {
        Some(body_name) if body_name != name => {
            return Err(ApiError::bad_request(format!(
                "the name of the object ({body_name}) does not match the name on the URL ({name})"
            )));
        }
        _ => {}
    }
    let old = existing(cluster, place, name)?;
    if let Some(rv) = meta_str(&body, "resourceVersion").filter(|rv| !rv.is_empty())
        && Some(rv) != meta_str(&old, "resourceVersion")
    {
        return Err(ApiError::stale(place.subject(name)));
    }
    let new = merge_into(place.rt, &old, body, part);
    write(cluster, place, name, old, new, part, record)
}

/// Builds the object an update stores from the old object and the request body.
pub(crate) fn merge_into(rt: &ResourceType, old: &Value, body: Value, part: Part) -> Value {
    match part {
        Part::Status => {
            let mut new = old.clone();
            match body.get("status") {
                Some(status) => new["status"] = status.clone(),
                None => {
                    if let Some(map) = new.as_object_mut() {
                        map.remove("status");
                    }
                }
            }
            new
        }
        Part::Main => {
            let mut new = body;
            if new.get("metadata").is_none_or(Value::is_null) {
                new["metadata"] = json!({});
            }
            for field in [
                "name",
                "namespace",
                "uid",
                "creationTimestamp",
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
                "generation",
            ] {
                match old.get("metadata").and_then(|m| m.get(field)) {
                    Some(value) => new["metadata"][field] = value.clone(),
                    None => {
                        if let Some(metadata) = new["metadata"].as_object_mut() {
                            metadata.remove(field);
                        }
                    }
                }
            }
            if let Some(metadata) = new["metadata"].as_object_mut() {
                metadata.remove("managedFields");
            }
            if rt.status {
                match old.get("status") {
                    Some(status) => new["status"] = status.clone(),
                    None => {
                        if let Some(map) = new.as_object_mut() {
                            map.remove("status");
                        }
                    }
                }
            }
            new
        }
    }
}

/// Stores `new` in place of `old`: validation, generation, field ownership (`record`),
/// no-op detection and deletion once the last finalizer of a deleted object is gone.
pub(crate) fn write(
    cluster: &mut Cluster,
    place: &Place<'_>,
    name: &str,
    old: Arc<Value>,
    mut new: Value,
    part: Part,
    record: &Record,
) -> ApiResult<Arc<Value>> {
    let rt = place.rt;
    new["apiVersion"] = json!(rt.api_version());
    new["kind"] = json!(rt.kind);
    default_built_in(rt, &mut new, false);
    let mut new = typed(rt, new).map_err(|e| ApiError::bad_request(e.to_string()))?;
    validate_metadata(place, name, &new)?;
    check_no_new_finalizers(place, name, &old, &new)?;
    validate(place, name, &mut new)?;
    check_webhooks(place, name, &new)?;
    let new_types = if crd::is_crd(rt) {
        Some(crd::prepare(&mut new, Some(&old))?)
    } else {
        None
    };
    if part == Part::Main {
        generation::on_update(rt, &old, &mut new);
    }
    managed_fields::record(rt, part, Some(&old), &mut new, record);
    new["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"].clone();
    if new == *old {
        return Ok(old);
    }
    let storage = rt.storage_key();
    let finalizers_left = new
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .is_some_and(|f| !f.is_empty());
    if meta_str(&new, "deletionTimestamp").is_some() && !finalizers_left {
        return Ok(deletion::remove(
            cluster,
            rt,
            new,
            old,
            deletion::Propagation::Cascade,
        ));
    }
    let stored = cluster.update(&storage, new, old);
    if let Some(types) = new_types {
        crd::register(cluster, types);
    }
    Ok(stored)
}

/// Creates the namespaces a fresh server has.
pub(crate) fn bootstrap(cluster: &mut Cluster) -> ApiResult<()> {
    let Some(rt) = cluster.registry.get("", "v1", "namespaces") else {
        return Err(ApiError::internal(
            "the namespaces resource is not registered",
        ));
    };
    for name in ["default", "kube-system", "kube-public", "kube-node-lease"] {
        let place = Place {
            rt: &rt,
            namespace: "",
        };
        let record = Record::Update(Writer::server("kube-apiserver"));
        create(
            cluster,
            &place,
            json!({"metadata": {"name": name}}),
            &record,
        )?;
    }
    Ok(())
}
