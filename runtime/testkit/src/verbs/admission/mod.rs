//! Admission webhooks, decided as kube-apiserver decides them: the webhooks of the stored
//! Mutating and Validating WebhookConfigurations (configurations in name order, webhooks
//! in order), which of them a request matches (`rules`, `matchPolicy`,
//! `namespaceSelector`, `objectSelector`) and at which version, the
//! `admission.k8s.io/v1` AdmissionReview each is sent (`/scale` requests as
//! `autoscaling/v1` Scales), and what its answer means. Making the calls, converting
//! objects to the matched version and resolving `clientConfig.service` are the HTTP
//! layer's (`http/admission.rs`).

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::ByteString;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector as ApiLabelSelector;
use kubegen_runtime::labels::{Labels, Selector};
use serde_json::{Map, Value, json};

use crate::store::registry::{ResourceType, StorageKey, WebhookClient};
use crate::store::status::{ApiError, ApiResult, Cause};
use crate::store::storage::Cluster;
use crate::verbs::client_config;

/// The group of the webhook configurations.
const GROUP: &str = "admissionregistration.k8s.io";
/// Default and maximum `timeoutSeconds`.
const DEFAULT_TIMEOUT: u64 = 10;
const MAX_TIMEOUT: u64 = 30;

/// Which kind of webhook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// `MutatingWebhookConfiguration`: may patch the object; called first.
    Mutating,
    /// `ValidatingWebhookConfiguration`: allows or denies; called last.
    Validating,
}

impl Phase {
    fn plural(self) -> &'static str {
        match self {
            Self::Mutating => "mutatingwebhookconfigurations",
            Self::Validating => "validatingwebhookconfigurations",
        }
    }
}

/// The operation being admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operation {
    /// A create (POST, or an apply that creates).
    Create,
    /// An update (PUT or PATCH), of the main resource or a subresource.
    Update,
    /// A delete.
    Delete,
}

impl Operation {
    fn as_str(self) -> &'static str {
        match self {
            Self::Create => "CREATE",
            Self::Update => "UPDATE",
            Self::Delete => "DELETE",
        }
    }

    fn options_kind(self) -> &'static str {
        match self {
            Self::Create => "CreateOptions",
            Self::Update => "UpdateOptions",
            Self::Delete => "DeleteOptions",
        }
    }
}

/// One webhook of a stored configuration, read once per request.
#[derive(Debug, Clone)]
pub(crate) struct Webhook {
    /// `webhooks[].name`, the name errors and denials use.
    pub(crate) name: String,
    /// `clientConfig.url` or `clientConfig.service`.
    pub(crate) client: WebhookClient,
    /// `clientConfig.caBundle`, decoded: the PEM certificates the call trusts.
    pub(crate) ca_bundle: Vec<u8>,
    /// `timeoutSeconds` (default 10, at most 30).
    pub(crate) timeout: Duration,
    /// `failurePolicy: Ignore`: a failed call lets the request through.
    pub(crate) ignore_failures: bool,
    /// `reinvocationPolicy: IfNeeded` (mutating webhooks).
    pub(crate) reinvoke: bool,
    /// `sideEffects` is `None` or `NoneOnDryRun`: dry-run requests may call it.
    dry_run_safe: bool,
    /// `matchPolicy: Exact`: only the request's own group and version match (the
    /// default, `Equivalent`, matches a rule naming another version of the resource).
    exact: bool,
    rules: Vec<Value>,
    namespace_selector: Option<Value>,
    object_selector: Option<Value>,
}

/// The request being admitted.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Attributes<'a> {
    /// The resource type addressed.
    pub(crate) rt: &'a ResourceType,
    /// `status` or `scale`, if a subresource is addressed.
    pub(crate) subresource: Option<&'a str>,
    /// The operation.
    pub(crate) operation: Operation,
    /// The object's name.
    pub(crate) name: &'a str,
    /// The object's namespace (empty when cluster-scoped).
    pub(crate) namespace: &'a str,
    /// The object as it would be stored (none for a delete).
    pub(crate) object: Option<&'a Value>,
    /// The stored object (updates and deletes).
    pub(crate) old_object: Option<&'a Value>,
    /// `dryRun=All`.
    pub(crate) dry_run: bool,
}

/// An object's `metadata.labels`, as the runtime's selectors read them.
struct ObjectLabels<'a>(Option<&'a Map<String, Value>>);

impl Labels for ObjectLabels<'_> {
    fn label(&self, key: &str) -> Option<&str> {
        self.0?.get(key)?.as_str()
    }
}

fn labels(object: &Value) -> ObjectLabels<'_> {
    ObjectLabels(
        object
            .pointer("/metadata/labels")
            .and_then(Value::as_object),
    )
}

/// Whether the webhook configurations themselves are addressed: kube-apiserver never
/// calls webhooks for them, so a broken webhook can always be removed.
pub(crate) fn exempt(rt: &ResourceType) -> bool {
    rt.group == GROUP
}

/// The webhooks of one phase: configurations in name order, webhooks in their order.
pub(crate) fn webhooks(cluster: &Cluster, phase: Phase) -> Vec<Webhook> {
    let key = StorageKey {
        group: GROUP.to_owned(),
        plural: phase.plural().to_owned(),
    };
    cluster
        .current(&key)
        .values()
        .flat_map(|configuration| {
            configuration
                .get("webhooks")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|webhook| read_webhook(&webhook))
        .collect()
}

fn read_webhook(webhook: &Value) -> Option<Webhook> {
    let text = |pointer: &str| webhook.pointer(pointer).and_then(Value::as_str);
    let ca_bundle = text("/clientConfig/caBundle")
        .and_then(|b64| serde_json::from_value::<ByteString>(json!(b64)).ok())
        .map(|bytes| bytes.0)
        .unwrap_or_default();
    let timeout = webhook
        .get("timeoutSeconds")
        .and_then(Value::as_u64)
        .unwrap_or(DEFAULT_TIMEOUT)
        .clamp(1, MAX_TIMEOUT);
    Some(Webhook {
        name: text("/name")?.to_owned(),
        client: client_config::read(webhook.get("clientConfig")?)?,
        ca_bundle,
        timeout: Duration::from_secs(timeout),
        ignore_failures: text("/failurePolicy") == Some("Ignore"),
        reinvoke: text("/reinvocationPolicy") == Some("IfNeeded"),
        dry_run_safe: matches!(text("/sideEffects"), Some("None" | "NoneOnDryRun")),
        exact: text("/matchPolicy") == Some("Exact"),
        rules: webhook
            .get("rules")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        namespace_selector: webhook.get("namespaceSelector").cloned(),
        object_selector: webhook.get("objectSelector").cloned(),
    })
}

/// A `metav1.LabelSelector` (absent: everything) against some labels; a selector that
/// does not convert matches nothing.
fn selector_matches(selector: Option<&Value>, objects: &[Option<&Value>]) -> bool {
    let Some(selector) = selector.filter(|s| !s.is_null()) else {
        return true;
    };
    let Ok(api) = serde_json::from_value::<ApiLabelSelector>(selector.clone()) else {
        return false;
    };
    let Ok(selector) = Selector::try_from(&api) else {
        return false;
    };
    objects
        .iter()
        .flatten()
        .any(|object| selector.matches(&labels(object)))
}

/// One entry of a list of `rules[]` strings: `*` matches anything.
fn listed(values: Option<&Value>, wanted: &str) -> bool {
    values
        .and_then(Value::as_array)
        .is_some_and(|v| v.iter().any(|v| v == "*" || v == wanted))
}

/// `rules[].resources` against `resource` and `subresource` (`pods`, `pods/status`,
/// `pods/*`, `*`, `*/status`, `*/*`).
fn resource_listed(values: Option<&Value>, resource: &str, subresource: Option<&str>) -> bool {
    let Some(values) = values.and_then(Value::as_array) else {
        return false;
    };
    values.iter().filter_map(Value::as_str).any(|entry| {
        let (res, sub) = entry.split_once('/').unwrap_or((entry, ""));
        let resource_ok = res == "*" || res == resource;
        let sub_ok = sub == "*" || sub == subresource.unwrap_or_default();
        resource_ok && sub_ok
    })
}

impl Webhook {
    /// Whether a rule names `rt` (the request's resource at one of its versions) for
    /// this request's operation and subresource.
    fn rules_name(&self, rt: &ResourceType, request: &Attributes<'_>) -> bool {
        self.rules.iter().any(|rule| {
            let scope = rule.get("scope").and_then(Value::as_str).unwrap_or("*");
            let scope_ok = match scope {
                "Cluster" => !rt.namespaced,
                "Namespaced" => rt.namespaced,
                _ => true,
            };
            scope_ok
                && listed(rule.get("operations"), request.operation.as_str())
                && listed(rule.get("apiGroups"), &rt.group)
                && listed(rule.get("apiVersions"), &rt.version)
                && resource_listed(rule.get("resources"), &rt.plural, request.subresource)
        })
    }

    /// The version the webhook is called at for this request, as kube-apiserver picks
    /// it: the request's own if a rule names it; else, under `matchPolicy: Equivalent`,
    /// the first of `equivalents` (the resource's other served versions, with the
    /// addressed subresource) a rule names. `None` when it is not called: no rule
    /// matches, or the namespace (the Namespace object's labels) or object (new or old)
    /// selector does not select the request. `namespace` is the object's Namespace, if
    /// namespaced.
    pub(crate) fn matched<'a>(
        &self,
        request: &Attributes<'a>,
        namespace: Option<&Value>,
        equivalents: &'a [Arc<ResourceType>],
    ) -> Option<&'a ResourceType> {
        let rt = request.rt;
        let version = if self.rules_name(rt, request) {
            rt
        } else if self.exact {
            return None;
        } else {
            equivalents
                .iter()
                .map(Arc::as_ref)
                .filter(|other| other.version != rt.version)
                .find(|other| self.rules_name(other, request))?
        };
        // A Namespace is selected by its own labels; other cluster-scoped objects by any
        // namespaceSelector.
        let is_namespace = rt.group.is_empty() && rt.plural == "namespaces";
        let namespace_ok = if is_namespace {
            selector_matches(
                self.namespace_selector.as_ref(),
                &[request.object, request.old_object],
            )
        } else if rt.namespaced {
            selector_matches(self.namespace_selector.as_ref(), &[namespace])
        } else {
            true
        };
        let selected = namespace_ok
            && selector_matches(
                self.object_selector.as_ref(),
                &[request.object, request.old_object],
            );
        selected.then_some(version)
    }

    /// A dry-run request may call it only if it declares no side effects (or none on
    /// dry run); else the request is 400, whatever the failure policy.
    pub(crate) fn check_dry_run(&self, request: &Attributes<'_>) -> ApiResult<()> {
        if request.dry_run && !self.dry_run_safe {
            return Err(ApiError::bad_request(format!(
                "admission webhook {:?} does not support dry run",
                self.name
            )));
        }
        Ok(())
    }

    /// The error of a failed call (unreachable, timed out, an answer that is no valid
    /// AdmissionReview) under `failurePolicy: Fail`.
    pub(crate) fn call_failed(&self, why: &str) -> ApiError {
        ApiError::internal(format!("failed calling webhook {:?}: {why}", self.name))
    }
}

/// The `kind` of a `/scale` request's objects, whatever the resource.
const SCALE_KIND: (&str, &str, &str) = ("autoscaling", "v1", "Scale");

/// The AdmissionReview sent for `request`, with request `uid`, to a webhook that matched
/// it at `matched` (the request's resource at the version a rule named): `kind` and
/// `resource` are at that version, `requestKind` and `requestResource` at the
/// request's; `/scale` requests carry `autoscaling/v1` Scales. `request`'s objects are
/// already at `matched`'s version.
pub(crate) fn review(request: &Attributes<'_>, uid: &str, matched: &ResourceType) -> Value {
    let rt = request.rt;
    let kind_of = |rt: &ResourceType| match request.subresource {
        Some("scale") => {
            let (group, version, kind) = SCALE_KIND;
            json!({"group": group, "version": version, "kind": kind})
        }
        _ => json!({"group": rt.group, "version": rt.version, "kind": rt.kind}),
    };
    let resource_of = |rt: &ResourceType| json!({"group": rt.group, "version": rt.version, "resource": rt.plural});
    let mut body = json!({
        "uid": uid,
        "kind": kind_of(matched),
        "resource": resource_of(matched),
        "requestKind": kind_of(rt),
        "requestResource": resource_of(rt),
        "name": request.name,
        "operation": request.operation.as_str(),
        "userInfo": {"username": "system:admin", "groups": ["system:masters", "system:authenticated"]},
        "object": request.object.cloned().unwrap_or(Value::Null),
        "oldObject": request.old_object.cloned().unwrap_or(Value::Null),
        "dryRun": request.dry_run,
        "options": {"apiVersion": "meta.k8s.io/v1", "kind": request.operation.options_kind()},
    });
    if let Some(subresource) = request.subresource {
        body["subResource"] = json!(subresource);
        body["requestSubResource"] = json!(subresource);
    }
    if !request.namespace.is_empty() {
        body["namespace"] = json!(request.namespace);
    }
    json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": body})
}

/// What a webhook answered.
#[derive(Debug)]
pub(crate) struct Answer {
    /// `response.warnings`.
    pub(crate) warnings: Vec<String>,
    /// The denial to return to the client, if denied.
    pub(crate) denied: Option<ApiError>,
    /// `response.patch`, decoded (mutating webhooks).
    pub(crate) patch: Option<json_patch::Patch>,
}

/// Reads a webhook's AdmissionReview answer to the request `uid`; `Err` says why it is
/// no valid answer (the failure policy applies).
pub(crate) fn read_answer(
    webhook: &Webhook,
    phase: Phase,
    uid: &str,
    body: &[u8],
) -> Result<Answer, String> {
    let review: Value = serde_json::from_slice(body)
        .map_err(|e| format!("received invalid webhook response: {e}"))?;
    if review.get("apiVersion").and_then(Value::as_str) != Some("admission.k8s.io/v1")
        || review.get("kind").and_then(Value::as_str) != Some("AdmissionReview")
    {
        return Err(
            "received invalid webhook response: expected an admission.k8s.io/v1 AdmissionReview"
                .to_owned(),
        );
    }
    let Some(response) = review.get("response").filter(|r| r.is_object()) else {
        return Err("webhook response was absent".to_owned());
    };
    let got = response.get("uid").and_then(Value::as_str).unwrap_or("");
    if got != uid {
        return Err(format!("expected response.uid={uid:?}, got {got:?}"));
    }
    let warnings = response
        .get("warnings")
        .and_then(Value::as_array)
        .map(|w| {
            w.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let allowed = response
        .get("allowed")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if !allowed {
        return Ok(Answer {
            warnings,
            denied: Some(denial(&webhook.name, response.get("status"))),
            patch: None,
        });
    }
    let patch = match response.get("patch").and_then(Value::as_str) {
        None => None,
        Some(_) if phase == Phase::Validating => {
            return Err("validating webhook may not return a patch".to_owned());
        }
        Some(encoded) => {
            match response.get("patchType").and_then(Value::as_str) {
                Some("JSONPatch") => {}
                other => return Err(format!("unsupported patch type {other:?}")),
            }
            let bytes = serde_json::from_value::<ByteString>(json!(encoded))
                .map_err(|e| format!("the patch is not base64: {e}"))?;
            let patch = serde_json::from_slice::<json_patch::Patch>(&bytes.0)
                .map_err(|e| format!("the patch is no JSONPatch: {e}"))?;
            Some(patch)
        }
    };
    Ok(Answer {
        warnings,
        denied: None,
        patch,
    })
}

/// A denial as kube-apiserver returns it: the webhook's `status` (code default 403), its
/// message prefixed with `admission webhook "<name>" denied the request`.
fn denial(name: &str, status: Option<&Value>) -> ApiError {
    let text = |field: &str| {
        status
            .and_then(|s| s.get(field))
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
    };
    let denied_by = format!("admission webhook {name:?} denied the request");
    let message = match text("message").or_else(|| text("reason")) {
        Some(why) => format!("{denied_by}: {why}"),
        None => format!("{denied_by} without explanation"),
    };
    let code = status
        .and_then(|s| s.get("code"))
        .and_then(Value::as_u64)
        .and_then(|c| u16::try_from(c).ok())
        .filter(|c| (400..600).contains(c))
        .unwrap_or(403);
    ApiError::new(code, reason_of(code), message)
}

/// The `metav1.StatusReason` kube-apiserver gives an HTTP code.
fn reason_of(code: u16) -> &'static str {
    match code {
        400 => "BadRequest",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "NotFound",
        405 => "MethodNotAllowed",
        406 => "NotAcceptable",
        409 => "Conflict",
        410 => "Gone",
        415 => "UnsupportedMediaType",
        422 => "Invalid",
        429 => "TooManyRequests",
        503 => "ServiceUnavailable",
        504 => "Timeout",
        _ => "InternalError",
    }
}

/// Validation of a webhook configuration being written, as kube-apiserver validates
/// it: each webhook's `clientConfig` (exactly one of an `https` URL and a service),
/// `matchPolicy` (`Exact` or `Equivalent`) and `timeoutSeconds` (1 to 30).
pub(crate) fn check_configuration(rt: &ResourceType, object: &Value) -> Vec<Cause> {
    if !exempt(rt) {
        return Vec::new();
    }
    let mut causes = Vec::new();
    let webhooks = object
        .get("webhooks")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (i, webhook) in webhooks.iter().enumerate() {
        let field = |name: &str| format!("webhooks[{i}].{name}");
        causes.extend(client_config::check(
            webhook.get("clientConfig"),
            &field("clientConfig"),
        ));
        if let Some(policy) = webhook.get("matchPolicy").filter(|p| !p.is_null())
            && !matches!(policy.as_str(), Some("Exact" | "Equivalent"))
        {
            causes.push(Cause::new(
                "FieldValueNotSupported",
                field("matchPolicy"),
                format!(
                    "Unsupported value: {}: supported values: \"Equivalent\", \"Exact\"",
                    crate::store::status::render_value(policy)
                ),
            ));
        }
        if let Some(timeout) = webhook.get("timeoutSeconds")
            && !timeout
                .as_u64()
                .is_some_and(|t| (1..=MAX_TIMEOUT).contains(&t))
        {
            causes.push(Cause::invalid(
                field("timeoutSeconds"),
                timeout,
                "the timeout value must be between 1 and 30 seconds",
            ));
        }
    }
    causes
}

#[cfg(test)]
mod tests;
