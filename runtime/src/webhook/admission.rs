//! Typed admission: [`Validator`] and [`Mutator`] of one kind, the [`Verdict`] they
//! answer, and the AdmissionReview in and out.

use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use axum::body::Bytes;
use futures::future::BoxFuture;
use k8s_openapi::ByteString;
use kube::core::admission::{AdmissionRequest, AdmissionReview, Operation};
use kube::core::{Resource, Status, TypeMeta};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::http::{Answer, Endpoint, check_review, wrong_review};

/// The `apiVersion` of the AdmissionReviews served.
const ADMISSION_V1: &str = "admission.k8s.io/v1";

/// What an admission webhook answers: allowed, or denied with a message and an HTTP-ish
/// code (the API server returns both to the client), and warnings for the client either
/// way.
///
/// ```
/// use kubegen_runtime::webhook::Verdict;
///
/// let verdict = Verdict::deny("spec.replicas must be odd").code(422).warning("replicas is deprecated");
/// assert!(!verdict.is_allowed());
/// assert_eq!(verdict.status_code(), 422);
/// assert_eq!(verdict.message(), "spec.replicas must be odd");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    allowed: bool,
    code: u16,
    message: String,
    warnings: Vec<String>,
}

impl Verdict {
    /// The request may go on (code 200).
    pub fn allow() -> Self {
        Self {
            allowed: true,
            code: 200,
            message: String::new(),
            warnings: Vec::new(),
        }
    }

    /// The request is refused with `message`, code 403 (`Forbidden`) unless
    /// [`code`](Self::code) says otherwise, as controller-runtime's `admission.Denied`.
    pub fn deny(message: impl Into<String>) -> Self {
        Self {
            allowed: false,
            code: 403,
            message: message.into(),
            warnings: Vec::new(),
        }
    }

    /// The HTTP status code the API server reports to the client for a denial (422 for
    /// an invalid object, 409 for a conflict...); its reason (`Invalid`, `Conflict`...)
    /// follows from the code.
    pub fn code(mut self, code: u16) -> Self {
        self.code = code;
        self
    }

    /// Adds a warning, which the API server returns to the client in a `Warning` header
    /// whether the request is allowed or not (keep it under 120 characters).
    pub fn warning(mut self, warning: impl Into<String>) -> Self {
        self.warnings.push(warning.into());
        self
    }

    /// Whether the request may go on.
    pub fn is_allowed(&self) -> bool {
        self.allowed
    }

    /// The code: 200 when allowed, 403 or the one set when denied.
    pub fn status_code(&self) -> u16 {
        self.code
    }

    /// Why the request was denied (empty when allowed).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The warnings, in the order added.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The `status` of the response: controller-runtime's shape, a code and for a
    /// denial the reason and message.
    fn status(&self) -> Status {
        let reason = match (self.allowed, self.code) {
            (true, _) => "",
            (false, 400) => "BadRequest",
            (false, 401) => "Unauthorized",
            (false, 403) => "Forbidden",
            (false, 404) => "NotFound",
            (false, 409) => "Conflict",
            (false, 422) => "Invalid",
            (false, 429) => "TooManyRequests",
            (false, 500) => "InternalError",
            (false, _) => "",
        };
        let mut status = Status::failure(&self.message, reason).with_code(self.code);
        status.status = None;
        status
    }
}

/// Validating admission of the kind `K`: a method per operation, each allowing by
/// default, so a validator implements only the operations it cares about (as
/// controller-runtime's `CustomValidator`). The request gives the rest: user, namespace,
/// dry run, subresource.
///
/// Register it with [`WebhookServer::validating`](super::WebhookServer::validating). A
/// request for another kind than `K` is answered with a `400`, and so is a `CONNECT`
/// (its object is not a `K`).
///
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kubegen_runtime::webhook::{AdmissionRequest, Validator, Verdict};
///
/// struct ModeIsImmutable;
///
/// impl Validator<ConfigMap> for ModeIsImmutable {
///     async fn validate_update(&self, old: &ConfigMap, new: &ConfigMap, _: &AdmissionRequest<ConfigMap>) -> Verdict {
///         let mode = |c: &ConfigMap| c.data.as_ref().and_then(|data| data.get("mode")).cloned();
///         if mode(new) != mode(old) {
///             return Verdict::deny("data.mode is immutable").code(422);
///         }
///         Verdict::allow()
///     }
/// }
/// ```
pub trait Validator<K: Resource>: Send + Sync + 'static {
    /// The operations the API server sends to this validator, as written in its
    /// configuration ([`WebhookServer::configurations`](super::WebhookServer::configurations)):
    /// create and update unless the validator says otherwise (add
    /// [`Operation::Delete`] when it implements `validate_delete`).
    const OPERATIONS: &'static [Operation] = &[Operation::Create, Operation::Update];

    /// Validates `object` about to be created.
    fn validate_create(
        &self,
        object: &K,
        request: &AdmissionRequest<K>,
    ) -> impl Future<Output = Verdict> + Send {
        let _ = (object, request);
        async { Verdict::allow() }
    }

    /// Validates the update of `old` to `new`.
    fn validate_update(
        &self,
        old: &K,
        new: &K,
        request: &AdmissionRequest<K>,
    ) -> impl Future<Output = Verdict> + Send {
        let _ = (old, new, request);
        async { Verdict::allow() }
    }

    /// Validates the deletion of `old`.
    fn validate_delete(
        &self,
        old: &K,
        request: &AdmissionRequest<K>,
    ) -> impl Future<Output = Verdict> + Send {
        let _ = (old, request);
        async { Verdict::allow() }
    }
}

/// What a [`Mutator`] returns: the object as it should be stored, and warnings for the
/// client.
#[derive(Clone, Debug, PartialEq)]
pub struct Mutated<K> {
    /// The object, changed as the webhook wants it.
    pub object: K,
    /// Warnings returned to the client.
    pub warnings: Vec<String>,
}

impl<K> Mutated<K> {
    /// `object`, without warnings.
    pub fn new(object: K) -> Self {
        Self {
            object,
            warnings: Vec::new(),
        }
    }

    /// Adds a warning.
    pub fn warning(mut self, warning: impl Into<String>) -> Self {
        self.warnings.push(warning.into());
        self
    }
}

impl<K> From<K> for Mutated<K> {
    fn from(object: K) -> Self {
        Self::new(object)
    }
}

/// Mutating admission of the kind `K`: gets the object of a create or an update and
/// returns it changed; the server answers with the RFC 6902 JSON patch from the object
/// as received to the one returned. `Err(verdict)` answers with the verdict and no
/// patch: a denial, or an allowance with warnings but no change.
///
/// The patch carries the handler's change (the object decoded as `K`, against the object
/// returned) onto the object as the API server sent it, so fields `K` does not model are
/// kept. Deletes and `CONNECT`s are allowed without calling the handler.
///
/// Register it with [`WebhookServer::mutating`](super::WebhookServer::mutating).
///
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kubegen_runtime::webhook::{AdmissionRequest, Mutated, Mutator, Verdict};
///
/// struct Labeller;
///
/// impl Mutator<ConfigMap> for Labeller {
///     async fn mutate(&self, mut object: ConfigMap, _: &AdmissionRequest<ConfigMap>) -> Result<Mutated<ConfigMap>, Verdict> {
///         object.metadata.labels.get_or_insert_default().insert("team".into(), "ice".into());
///         Ok(object.into())
///     }
/// }
/// ```
pub trait Mutator<K: Resource>: Send + Sync + 'static {
    /// The operations the API server sends to this mutator, as written in its
    /// configuration ([`WebhookServer::configurations`](super::WebhookServer::configurations)):
    /// create and update unless the mutator says otherwise.
    const OPERATIONS: &'static [Operation] = &[Operation::Create, Operation::Update];

    /// Returns `object` as it should be stored, or a verdict without a patch.
    fn mutate(
        &self,
        object: K,
        request: &AdmissionRequest<K>,
    ) -> impl Future<Output = Result<Mutated<K>, Verdict>> + Send;
}

/// The bounds a kind needs to be admitted.
pub(super) trait Admitted:
    Resource<DynamicType = ()> + DeserializeOwned + Serialize + Clone + Send + Sync + 'static
{
}

impl<K> Admitted for K where
    K: Resource<DynamicType = ()> + DeserializeOwned + Serialize + Clone + Send + Sync + 'static
{
}

/// A [`Validator`] behind a path.
pub(super) struct ValidatingEndpoint<K, V> {
    validator: V,
    kind: PhantomData<fn() -> K>,
}

impl<K, V> ValidatingEndpoint<K, V> {
    pub(super) fn new(validator: V) -> Self {
        Self {
            validator,
            kind: PhantomData,
        }
    }
}

impl<K: Admitted, V: Validator<K>> Endpoint for ValidatingEndpoint<K, V> {
    fn call(self: Arc<Self>, body: Bytes) -> BoxFuture<'static, Answer> {
        Box::pin(async move {
            let (types, request) = match decode::<K>(&body) {
                Ok(decoded) => decoded,
                Err(message) => return Answer::bad_request(message),
            };
            let verdict = match (&request.operation, &request.object, &request.old_object) {
                (Operation::Create, Some(object), _) => {
                    self.validator.validate_create(object, &request).await
                }
                (Operation::Update, Some(new), Some(old)) => {
                    self.validator.validate_update(old, new, &request).await
                }
                (Operation::Delete, _, Some(old)) => {
                    self.validator.validate_delete(old, &request).await
                }
                (operation, _, _) => return missing(operation),
            };
            respond(&types, &request.uid, &verdict, None)
        })
    }
}

/// A [`Mutator`] behind a path.
pub(super) struct MutatingEndpoint<K, M> {
    mutator: M,
    kind: PhantomData<fn() -> K>,
}

impl<K, M> MutatingEndpoint<K, M> {
    pub(super) fn new(mutator: M) -> Self {
        Self {
            mutator,
            kind: PhantomData,
        }
    }
}

/// The object of an AdmissionReview as received, whatever fields `K` models.
#[derive(Deserialize)]
struct RawReview {
    request: RawRequest,
}

#[derive(Deserialize)]
struct RawRequest {
    object: Option<serde_json::Value>,
}

impl<K: Admitted, M: Mutator<K>> Endpoint for MutatingEndpoint<K, M> {
    fn call(self: Arc<Self>, body: Bytes) -> BoxFuture<'static, Answer> {
        Box::pin(async move {
            let (types, request) = match decode::<K>(&body) {
                Ok(decoded) => decoded,
                Err(message) => return Answer::bad_request(message),
            };
            let object = match (&request.operation, &request.object) {
                (Operation::Create | Operation::Update, Some(object)) => object.clone(),
                (Operation::Create | Operation::Update, None) => {
                    return missing(&request.operation);
                }
                (Operation::Delete | Operation::Connect, _) => {
                    return respond(&types, &request.uid, &Verdict::allow(), None);
                }
            };
            // `decode` read the same body, so these cannot fail; answer 400 if they do.
            let raw = match serde_json::from_slice::<RawReview>(&body) {
                Ok(RawReview {
                    request:
                        RawRequest {
                            object: Some(raw), ..
                        },
                }) => raw,
                Ok(_) => return missing(&request.operation),
                Err(error) => return Answer::bad_request(DecodeError(error)),
            };
            let before = match serde_json::to_value(&object) {
                Ok(before) => before,
                Err(error) => return Answer::internal_error(EncodeError(error)),
            };
            let mutated = match self.mutator.mutate(object, &request).await {
                Ok(mutated) => mutated,
                Err(verdict) => return respond(&types, &request.uid, &verdict, None),
            };
            let after = match serde_json::to_value(&mutated.object) {
                Ok(after) => after,
                Err(error) => return Answer::internal_error(EncodeError(error)),
            };
            let verdict = Verdict {
                warnings: mutated.warnings,
                ..Verdict::allow()
            };
            let patch = patch(&raw, &before, &after);
            respond(&types, &request.uid, &verdict, Some(patch))
        })
    }
}

/// The JSON patch that carries the change `before` -> `after` (both the object as `K`
/// reads and writes it) onto `raw`, the object as the API server sent it: the change is
/// applied to `raw` and the patch is `raw` against that, so fields `K` drops stay. If the
/// change does not apply to `raw` (a field `K` defaults, absent from `raw`, was
/// replaced), the patch is `raw` against `after`.
pub(super) fn patch(
    raw: &serde_json::Value,
    before: &serde_json::Value,
    after: &serde_json::Value,
) -> json_patch::Patch {
    let change = json_patch::diff(before, after);
    if change.0.is_empty() {
        return change;
    }
    let mut patched = raw.clone();
    match json_patch::patch(&mut patched, &change) {
        Ok(()) => json_patch::diff(raw, &patched),
        Err(_) => json_patch::diff(raw, after),
    }
}

/// An AdmissionReview body that is not one, as a `400`'s message.
#[derive(Debug, thiserror::Error)]
#[error("failed to decode the AdmissionReview: {0}")]
struct DecodeError(serde_json::Error);

/// An object (as received, or as the mutator returned it) or a patch that does not encode.
#[derive(Debug, thiserror::Error)]
#[error("failed to encode the object or its patch as JSON: {0}")]
struct EncodeError(serde_json::Error);

/// The review in `body`, checked to be an `admission.k8s.io/v1` AdmissionReview with a
/// request for the kind `K`; for any other body, the message of a `400`.
fn decode<K: Admitted>(body: &[u8]) -> Result<(TypeMeta, AdmissionRequest<K>), String> {
    let review: AdmissionReview<K> = serde_json::from_slice(body).map_err(|error| {
        // Another review says so, rather than how it failed to decode as this one.
        wrong_review(body, ADMISSION_V1, "AdmissionReview")
            .unwrap_or_else(|| DecodeError(error).to_string())
    })?;
    if let Some(wrong) = check_review(&review.types, ADMISSION_V1, "AdmissionReview") {
        return Err(wrong);
    }
    let types = review.types;
    let Some(request) = review.request else {
        return Err("the AdmissionReview holds no request".into());
    };
    let kind = &request.kind;
    let (group, version, expected) = (K::group(&()), K::version(&()), K::kind(&()));
    if kind.group != group || kind.version != version || kind.kind != expected {
        return Err(format!(
            "this webhook admits {}, the request is for {}",
            gvk(&group, &version, &expected),
            gvk(&kind.group, &kind.version, &kind.kind),
        ));
    }
    Ok((types, request))
}

fn gvk(group: &str, version: &str, kind: &str) -> String {
    match group {
        "" => format!("{version} {kind}"),
        group => format!("{group}/{version} {kind}"),
    }
}

/// A request whose operation lacks the object(s) it needs, or a `CONNECT`.
fn missing(operation: &Operation) -> Answer {
    Answer::bad_request(match operation {
        Operation::Create => "a CREATE request without an object",
        Operation::Update => "an UPDATE request without its object and oldObject",
        Operation::Delete => "a DELETE request without an oldObject",
        Operation::Connect => "CONNECT requests are not admitted by typed webhooks",
    })
}

/// The AdmissionReview out: the `response` as the API documents it, with the patch
/// base64-encoded. (kube's `AdmissionResponse` writes it as an array of numbers, which
/// Go's decoder also accepts but the API does not document.)
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReviewOut<'a> {
    api_version: &'a str,
    kind: &'a str,
    response: ResponseOut<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResponseOut<'a> {
    uid: &'a str,
    allowed: bool,
    status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    patch: Option<ByteString>,
    #[serde(skip_serializing_if = "Option::is_none")]
    patch_type: Option<&'static str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    warnings: &'a [String],
}

fn respond(
    types: &TypeMeta,
    uid: &str,
    verdict: &Verdict,
    patch: Option<json_patch::Patch>,
) -> Answer {
    let patch = match patch.filter(|patch| !patch.0.is_empty()) {
        Some(patch) => match serde_json::to_vec(&patch) {
            Ok(json) => Some(ByteString(json)),
            Err(error) => return Answer::internal_error(EncodeError(error)),
        },
        None => None,
    };
    let review = ReviewOut {
        api_version: &types.api_version,
        kind: &types.kind,
        response: ResponseOut {
            uid,
            allowed: verdict.allowed,
            status: verdict.status(),
            patch_type: patch.as_ref().map(|_| "JSONPatch"),
            patch,
            warnings: &verdict.warnings,
        },
    };
    Answer::review(&review, !verdict.allowed)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    #[test]
    fn denial_status_has_code_reason_and_message() {
        let status = serde_json::to_value(Verdict::deny("no").code(422).status()).unwrap();
        assert_eq!(
            status,
            json!({"code": 422, "reason": "Invalid", "message": "no"})
        );
        let status = serde_json::to_value(Verdict::allow().status()).unwrap();
        assert_eq!(status, json!({"code": 200}));
    }

    #[test]
    fn patch_keeps_fields_the_kind_does_not_model() {
        // `K` drops `spec.extra` and defaults `spec.size` to 1.
        let raw = json!({"spec": {"extra": "kept", "name": "a"}});
        let before = json!({"spec": {"name": "a", "size": 1}});
        let after = json!({"spec": {"name": "b", "size": 1}});
        let patch = patch(&raw, &before, &after);
        let mut patched = raw.clone();
        json_patch::patch(&mut patched, &patch).unwrap();
        assert_eq!(patched, json!({"spec": {"extra": "kept", "name": "b"}}));
    }

    #[test]
    fn patch_falls_back_to_the_returned_object_when_the_change_does_not_apply() {
        // The handler changed a field `K` defaults and `raw` lacks: `replace` would fail.
        let raw = json!({"spec": {"name": "a"}});
        let before = json!({"spec": {"name": "a", "size": 1}});
        let after = json!({"spec": {"name": "a", "size": 3}});
        let patch = patch(&raw, &before, &after);
        let mut patched = raw.clone();
        json_patch::patch(&mut patched, &patch).unwrap();
        assert_eq!(patched, after);
    }

    #[test]
    fn no_change_is_no_patch() {
        let raw = json!({"spec": {"name": "a"}});
        assert!(patch(&raw, &raw, &raw).0.is_empty());
    }
}
