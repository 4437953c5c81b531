//! PATCH bodies: JSON merge patch, JSON patch, strategic merge patch (built-in kinds
//! only, as on a real server) and server-side apply (merged by field ownership in
//! [`crate::managed_fields`]; with merge semantics here, for the scale subresource).

use serde_json::Value;

use crate::store::status::{ApiError, ApiResult};
use crate::verbs::strategic;

/// The patch types the server accepts, by Content-Type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PatchKind {
    /// `application/merge-patch+json` (RFC 7386).
    Merge,
    /// `application/json-patch+json` (RFC 6902).
    Json,
    /// `application/apply-patch+yaml`: server-side apply ([`crate::managed_fields`]);
    /// [`apply`] gives it merge semantics (used for the scale subresource).
    Apply,
    /// `application/strategic-merge-patch+json`: built-in kinds only.
    Strategic,
}

impl PatchKind {
    /// The kind for a Content-Type; 415 for anything else, and for strategic merge patch
    /// on custom resources (`builtin` false), as a real server answers.
    pub(crate) fn from_content_type(content_type: &str, builtin: bool) -> ApiResult<Self> {
        let media = content_type.split(';').next().unwrap_or_default().trim();
        match media {
            "application/merge-patch+json" => Ok(Self::Merge),
            "application/json-patch+json" => Ok(Self::Json),
            "application/apply-patch+yaml" => Ok(Self::Apply),
            "application/strategic-merge-patch+json" if builtin => Ok(Self::Strategic),
            _ => Err(ApiError::unsupported_patch_type(content_type, builtin)),
        }
    }
}

/// Parses a request body as JSON, or YAML for apply patches.
pub(crate) fn parse_body(kind: &PatchKind, body: &[u8]) -> ApiResult<Value> {
    match serde_json::from_slice(body) {
        Ok(value) => Ok(value),
        Err(json_error) if *kind == PatchKind::Apply => {
            let text = std::str::from_utf8(body).map_err(|e| {
                ApiError::bad_request(format!("apply patch body is not UTF-8: {e}"))
            })?;
            serde_saphyr::from_str(text).map_err(|e| {
                ApiError::bad_request(format!(
                    "error decoding YAML apply patch: {e} (as JSON: {json_error})"
                ))
            })
        }
        Err(e) => Err(ApiError::bad_request(format!("error decoding patch: {e}"))),
    }
}

/// Applies a parsed patch to `target`; `schema` is the target's strategic merge patch
/// schema (see [`strategic::root`]).
pub(crate) fn apply(
    kind: &PatchKind,
    target: &mut Value,
    patch: &Value,
    schema: strategic::Schema,
) -> ApiResult<()> {
    match kind {
        PatchKind::Strategic => {
            strategic::apply(target, patch, schema).map_err(|e| match e.code() {
                400 => ApiError::bad_request(e.to_string()),
                422 => ApiError::new(422, "Invalid", e.to_string()),
                _ => ApiError::internal(e.to_string()),
            })
        }
        PatchKind::Merge | PatchKind::Apply => {
            if !patch.is_object() {
                return Err(ApiError::bad_request("a merge patch must be a JSON object"));
            }
            json_patch::merge(target, patch);
            Ok(())
        }
        PatchKind::Json => {
            let operations: json_patch::Patch = serde_json::from_value(patch.clone())
                .map_err(|e| ApiError::bad_request(format!("error decoding JSON patch: {e}")))?;
            apply_json_patch(target, &operations)
        }
    }
}

/// Applies a JSON patch as a real API server does (evanphx/json-patch): every operation
/// as RFC 6902 says, except that a `test` against `null` of a member absent from an
/// existing object passes. The server tests the object as it serializes it, and Go
/// leaves empty fields out, so "absent" is what `null` means there (kube-runtime's
/// `finalizer()` tests `/metadata/finalizers` against `null` before adding the first
/// one). Any failing operation is 422 and leaves `target` as it was.
fn apply_json_patch(
    target: &mut Value,
    operations: &[json_patch::PatchOperation],
) -> ApiResult<()> {
    let mut patched = target.clone();
    for (index, operation) in operations.iter().enumerate() {
        if let json_patch::PatchOperation::Test(test) = operation
            && test.value.is_null()
            && absent_member(&patched, &test.path)
        {
            continue;
        }
        json_patch::patch_unsafe(&mut patched, std::slice::from_ref(operation)).map_err(|e| {
            ApiError::new(
                422,
                "Invalid",
                format!(
                    "the server rejected our request due to an error in our request: \
                     operation '/{index}' failed at path '{}': {}",
                    e.path, e.kind
                ),
            )
        })?;
    }
    *target = patched;
    Ok(())
}

/// Whether `path` names a member missing from an object that exists. A missing parent,
/// an array index out of range or the document root are not absent members: a `test`
/// of those fails on a real server too.
fn absent_member(document: &Value, path: &json_patch::jsonptr::Pointer) -> bool {
    let Some((parent, key)) = path.split_back() else {
        return false;
    };
    match document.pointer(parent.as_str()) {
        Some(Value::Object(members)) => !members.contains_key(key.decoded().as_ref()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn content_types_map_to_patch_kinds() {
        assert_eq!(
            PatchKind::from_content_type("application/merge-patch+json", false).ok(),
            Some(PatchKind::Merge)
        );
        assert_eq!(
            PatchKind::from_content_type("application/json-patch+json; charset=utf-8", false).ok(),
            Some(PatchKind::Json)
        );
        assert_eq!(
            PatchKind::from_content_type("application/apply-patch+yaml", false).ok(),
            Some(PatchKind::Apply)
        );
        let strategic = "application/strategic-merge-patch+json";
        assert_eq!(
            PatchKind::from_content_type(strategic, true).ok(),
            Some(PatchKind::Strategic)
        );
        let custom =
            PatchKind::from_content_type(strategic, false).map_err(|e| (e.code, e.message));
        let (code, message) = custom.expect_err("custom resources refuse strategic merge");
        assert_eq!(code, 415);
        assert!(
            !message.contains("accepted media types include: application/strategic"),
            "{message}"
        );
    }

    #[test]
    fn merge_json_and_yaml_apply_patches() {
        let mut target = json!({"a": 1, "b": {"c": 2}});
        apply(
            &PatchKind::Merge,
            &mut target,
            &json!({"b": {"c": null, "d": 3}}),
            None,
        )
        .expect("merge");
        assert_eq!(target, json!({"a": 1, "b": {"d": 3}}));
        let ops = json!([{"op": "replace", "path": "/a", "value": 5}, {"op": "test", "path": "/a", "value": 5}]);
        apply(&PatchKind::Json, &mut target, &ops, None).expect("json patch");
        assert_eq!(target["a"], 5);
        let failing = json!([{"op": "test", "path": "/a", "value": 6}]);
        assert_eq!(
            apply(&PatchKind::Json, &mut target, &failing, None).map_err(|e| e.code),
            Err(422)
        );
        let yaml = parse_body(&PatchKind::Apply, b"b:\n  e: x\n").expect("yaml");
        apply(&PatchKind::Apply, &mut target, &yaml, None).expect("apply");
        assert_eq!(target["b"], json!({"d": 3, "e": "x"}));
    }

    /// The finalizer patch kube-runtime sends, on an object without finalizers.
    fn add_first_finalizer() -> Value {
        json!([
            {"op": "test", "path": "/metadata/finalizers", "value": null},
            {"op": "add", "path": "/metadata/finalizers", "value": ["example.com/cleanup"]}
        ])
    }

    fn json_patched(target: &Value, ops: &Value) -> Result<Value, (u16, String)> {
        let mut patched = target.clone();
        match apply(&PatchKind::Json, &mut patched, ops, None) {
            Ok(()) => Ok(patched),
            Err(e) => {
                assert_eq!(
                    &patched, target,
                    "a failed patch leaves the target as it was"
                );
                Err((e.code, e.message))
            }
        }
    }

    #[test]
    fn json_patch_test_of_an_absent_member_against_null_passes() {
        let target = json!({"metadata": {"name": "a"}});
        let patched = json_patched(&target, &add_first_finalizer()).expect("absent is null");
        assert_eq!(
            patched["metadata"]["finalizers"],
            json!(["example.com/cleanup"])
        );
        let explicit_null = json!({"metadata": {"name": "a", "finalizers": null}});
        json_patched(&explicit_null, &add_first_finalizer()).expect("null is null");
        // An escaped key is looked up decoded.
        let ops = json!([{"op": "test", "path": "/metadata/annotations/a~1b", "value": null}]);
        json_patched(&json!({"metadata": {"annotations": {"c": "d"}}}), &ops)
            .expect("a/b is absent");
    }

    #[test]
    fn json_patch_test_against_null_fails_where_a_real_server_fails() {
        // A present value is not null: kube-runtime's patch conflicts, as on a cluster.
        let with_finalizer = json!({"metadata": {"finalizers": ["other"]}});
        let (code, message) =
            json_patched(&with_finalizer, &add_first_finalizer()).expect_err("present");
        assert_eq!(code, 422);
        assert!(
            message.contains("operation '/0' failed at path '/metadata/finalizers'"),
            "{message}"
        );
        for (target, path) in [
            // The parent is missing.
            (json!({"metadata": {}}), "/spec/replicas"),
            // An array has no absent members: out of range is an error.
            (
                json!({"metadata": {"finalizers": ["a"]}}),
                "/metadata/finalizers/3",
            ),
            // The parent is not an object.
            (json!({"metadata": {"name": "a"}}), "/metadata/name/x"),
            // The root is the whole document.
            (json!({"metadata": {}}), ""),
        ] {
            let ops = json!([{"op": "test", "path": path, "value": null}]);
            assert_eq!(
                json_patched(&target, &ops).map_err(|(code, _)| code),
                Err(422),
                "test of {path:?} against null"
            );
        }
        // An absent member is only null: any other value fails.
        let ops = json!([{"op": "test", "path": "/metadata/finalizers", "value": []}]);
        assert_eq!(
            json_patched(&json!({"metadata": {}}), &ops).map_err(|(code, _)| code),
            Err(422)
        );
    }

    #[test]
    fn json_patch_failures_name_the_operation_and_undo_the_earlier_ones() {
        let target = json!({"a": 1, "metadata": {}});
        let ops = json!([
            {"op": "replace", "path": "/a", "value": 2},
            {"op": "test", "path": "/metadata/finalizers", "value": null},
            {"op": "test", "path": "/a", "value": 3}
        ]);
        let (code, message) = json_patched(&target, &ops).expect_err("third fails");
        assert_eq!(code, 422);
        assert!(
            message.ends_with("operation '/2' failed at path '/a': value did not match"),
            "{message}"
        );
    }
}
