//! The `scale` subresource: an `autoscaling/v1` Scale view of an object's replicas.

use serde_json::{Value, json};

use crate::store::meta;
use crate::store::registry::{ResourceType, SelectorSource};
use crate::store::selectors::label_selector_string;
use crate::store::status::{ApiError, ApiResult};
use crate::verbs::place::Place;

/// 409 Conflict when a Scale sent with a `resourceVersion` names another version of
/// the object than `old`.
pub(crate) fn check_resource_version(
    place: &Place<'_>,
    name: &str,
    old: &Value,
    scale: &Value,
) -> ApiResult<()> {
    let wanted = scale
        .pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .filter(|rv| !rv.is_empty());
    match wanted {
        Some(rv)
            if Some(rv)
                != old
                    .pointer("/metadata/resourceVersion")
                    .and_then(Value::as_str) =>
        {
            Err(ApiError::stale(place.subject(name)))
        }
        _ => Ok(()),
    }
}

/// The Scale of `object`; 404 when `rt` has no scale subresource.
pub(crate) fn to_scale(rt: &ResourceType, object: &Value) -> ApiResult<Value> {
    let paths = rt.scale.as_ref().ok_or_else(ApiError::no_route)?;
    let metadata = object.get("metadata").cloned().unwrap_or_else(|| json!({}));
    let mut scale_meta = json!({});
    for field in [
        "name",
        "namespace",
        "uid",
        "resourceVersion",
        "creationTimestamp",
    ] {
        if let Some(value) = metadata.get(field) {
            scale_meta[field] = value.clone();
        }
    }
    let replicas = |path: &str| {
        meta::get_path(object, path)
            .and_then(Value::as_i64)
            .unwrap_or(0)
    };
    let mut status = json!({"replicas": replicas(&paths.status_replicas)});
    let selector = match &paths.selector {
        Some(SelectorSource::LabelSelectorAt(path)) => meta::get_path(object, path)
            .filter(|selector| !selector.is_null())
            .map(label_selector_string)
            .transpose()?,
        Some(SelectorSource::StringAt(path)) => meta::get_path(object, path)
            .and_then(Value::as_str)
            .map(str::to_owned),
        None => None,
    };
    if let Some(selector) = selector.filter(|s| !s.is_empty()) {
        status["selector"] = json!(selector);
    }
    Ok(json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": scale_meta,
        "spec": {"replicas": replicas(&paths.spec_replicas)},
        "status": status,
    }))
}

/// `object` with its desired replicas taken from a Scale body.
pub(crate) fn apply_scale(rt: &ResourceType, object: &Value, scale: &Value) -> ApiResult<Value> {
    let paths = rt.scale.as_ref().ok_or_else(ApiError::no_route)?;
    let replicas = scale
        .pointer("/spec/replicas")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    if replicas < 0 {
        let cause = crate::store::status::Cause::invalid(
            "spec.replicas",
            &json!(replicas),
            "must be greater than or equal to 0",
        );
        let name = meta::meta_str(object, "name").unwrap_or_default();
        return Err(ApiError::invalid("autoscaling", "Scale", name, vec![cause]));
    }
    let mut updated = object.clone();
    meta::set_path(&mut updated, &paths.spec_replicas, json!(replicas));
    Ok(updated)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::registry::Registry;

    #[test]
    fn deployments_scale_with_their_selector() {
        let registry = Registry::with_built_ins();
        let deployments = registry
            .get("apps", "v1", "deployments")
            .expect("deployments");
        let deployment = json!({
            "metadata": {"name": "web", "namespace": "ns", "resourceVersion": "7"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}},
            "status": {"replicas": 2}
        });
        let scale = to_scale(&deployments, &deployment).expect("scale");
        assert_eq!(scale["spec"]["replicas"], 3);
        assert_eq!(
            scale["status"],
            json!({"replicas": 2, "selector": "app=web"})
        );
        let scaled = apply_scale(&deployments, &deployment, &json!({"spec": {"replicas": 5}}))
            .expect("apply");
        assert_eq!(scaled["spec"]["replicas"], 5);
    }
}
