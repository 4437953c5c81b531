//! Admission webhooks around a write, as kube-apiserver runs them: the write is computed
//! first (as a dry run, so the webhooks see the object as it would be stored), the
//! mutating webhooks are called and their patches applied (`reinvocationPolicy: IfNeeded`
//! webhooks called again, once, when a later webhook changed the object), the result is
//! computed again, the validating webhooks are called, and only then is it stored. The
//! cluster lock is never held across a call. With no webhook configuration stored,
//! writes go straight to the verbs.
//!
//! A webhook whose rule names another version of the resource (`matchPolicy:
//! Equivalent`) is sent the objects converted to that version ([`Versions::to_version`]:
//! the CRD's conversion webhook, or a changed `apiVersion`), and its patch, applied to
//! the converted object, is converted back. Writes through `/scale` are admitted as
//! UPDATEs of `autoscaling/v1` Scales ([`scale`]).
//!
//! Which webhooks match and what their answers mean is decided in
//! [`verbs::admission`](crate::verbs::admission); the calls are [`webhook::post`], to the
//! webhook's URL or the address its `clientConfig.service` resolves to
//! ([`service::target`]).

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::http::conversion::Versions;
use crate::http::service;
use crate::http::webhook;
use crate::store::meta::{self, meta_str};
use crate::store::registry::ResourceType;
use crate::store::shared::Shared;
use crate::store::status::{ApiError, ApiResult};
use crate::verbs::admission::{self, Attributes, Operation, Phase, Webhook};
use crate::verbs::deletion::{self, DeleteOptions};
use crate::verbs::managed_fields::Record;
use crate::verbs::objects;
use crate::verbs::place::{self, Part, Place, namespaces_key};
use crate::verbs::scale as scale_view;

/// Where a write is stored and the version it was requested at: with a conversion
/// webhook, objects are stored at the storage version (`place.rt`) while admission sees
/// the request's (`requested`), as kube-apiserver admits before storage converts.
#[derive(Clone, Copy)]
pub(crate) struct Target<'a> {
    /// The resource type the objects are stored as, and the namespace.
    pub(crate) place: &'a Place<'a>,
    /// The resource type (version) the request addressed: `requestKind` and the rules'.
    pub(crate) requested: &'a ResourceType,
}

/// A stored (or dry-run) write and the warnings the webhooks sent with it.
pub(crate) struct Admitted {
    /// What the verb returned.
    pub(crate) object: Arc<Value>,
    /// `response.warnings` of every webhook called, in order.
    pub(crate) warnings: Vec<String>,
}

impl Admitted {
    fn plain(object: Arc<Value>) -> Self {
        Self {
            object,
            warnings: Vec::new(),
        }
    }
}

/// The webhooks stored when a request arrived, the Namespace of its object and the
/// served versions of its resource.
struct Chain {
    shared: Arc<Shared>,
    mutating: Vec<Webhook>,
    validating: Vec<Webhook>,
    namespace: Option<Arc<Value>>,
    /// Every served version of the resource (`matchPolicy: Equivalent`).
    equivalents: Vec<Arc<ResourceType>>,
}

impl Chain {
    fn load(shared: &Arc<Shared>, place: &Place<'_>) -> Self {
        let mut chain = Self {
            shared: Arc::clone(shared),
            mutating: Vec::new(),
            validating: Vec::new(),
            namespace: None,
            equivalents: Vec::new(),
        };
        if admission::exempt(place.rt) {
            return chain;
        }
        let cluster = shared.lock();
        chain.mutating = admission::webhooks(&cluster, Phase::Mutating);
        chain.validating = admission::webhooks(&cluster, Phase::Validating);
        if !chain.is_empty() {
            chain.namespace = cluster.get(&namespaces_key(), "", place.namespace);
            chain.equivalents = cluster.registry.versions_of(&place.rt.storage_key());
        }
        chain
    }

    fn is_empty(&self) -> bool {
        self.mutating.is_empty() && self.validating.is_empty()
    }

    /// Calls the matching mutating webhooks; the patched object if any changed it.
    async fn mutate(
        &self,
        request: &Attributes<'_>,
        warnings: &mut Vec<String>,
    ) -> ApiResult<Option<Value>> {
        let mut object = request.object.cloned();
        let mut changed = false;
        let mut reinvocable = Vec::new();
        let mut again = BTreeSet::new();
        for (i, hook) in self.mutating.iter().enumerate() {
            if self
                .call_mutating(hook, request, &mut object, warnings)
                .await?
            {
                changed = true;
                again.extend(reinvocable.iter().copied());
            }
            if hook.reinvoke {
                reinvocable.push(i);
            }
        }
        for i in again {
            if self
                .call_mutating(&self.mutating[i], request, &mut object, warnings)
                .await?
            {
                changed = true;
            }
        }
        Ok(object.filter(|_| changed))
    }

    /// Calls one mutating webhook if it matches; whether it changed `object`.
    async fn call_mutating(
        &self,
        hook: &Webhook,
        request: &Attributes<'_>,
        object: &mut Option<Value>,
        warnings: &mut Vec<String>,
    ) -> ApiResult<bool> {
        let request = Attributes {
            object: object.as_ref(),
            ..*request
        };
        let Some(patched) = self.call(hook, Phase::Mutating, &request, warnings).await? else {
            return Ok(false);
        };
        let Some(current) = object else {
            return Ok(false);
        };
        let changed = patched != *current;
        *current = patched;
        Ok(changed)
    }

    /// Calls the matching validating webhooks.
    async fn validate(
        &self,
        request: &Attributes<'_>,
        warnings: &mut Vec<String>,
    ) -> ApiResult<()> {
        for hook in &self.validating {
            self.call(hook, Phase::Validating, request, warnings)
                .await?;
        }
        Ok(())
    }

    /// Calls `hook` if it matches `request`: `Ok(Some(object))` for the object a
    /// mutating webhook's patch made (at the request's version), `Err` for a denial, or
    /// a failed call under `failurePolicy: Fail`.
    async fn call(
        &self,
        hook: &Webhook,
        phase: Phase,
        request: &Attributes<'_>,
        warnings: &mut Vec<String>,
    ) -> ApiResult<Option<Value>> {
        let Some(matched) = hook.matched(request, self.namespace.as_deref(), &self.equivalents)
        else {
            return Ok(None);
        };
        hook.check_dry_run(request)?;
        // Objects are at the version they are stored at, which with a conversion webhook
        // is not the request's: the webhook gets them at the version its rule matched. A
        // Scale is the same at every version of its resource.
        let objects_rt = self.objects_rt(request);
        let converts =
            matched.version != objects_rt.version && request.subresource != Some("scale");
        let versions = match converts {
            true => Some(Versions::of(&self.shared, &self.rt_arc(request.rt))?),
            false => None,
        };
        let (object, old_object) = match &versions {
            Some(versions) => (
                at_version(versions, request.object, matched).await?,
                at_version(versions, request.old_object, matched).await?,
            ),
            None => (None, None),
        };
        let seen = match &versions {
            Some(_) => Attributes {
                object: object.as_ref(),
                old_object: old_object.as_ref(),
                ..*request
            },
            None => *request,
        };
        let Some(patch) = self.send(hook, phase, &seen, matched, warnings).await? else {
            return Ok(None);
        };
        let Some(mut patched) = seen.object.cloned() else {
            return Ok(None);
        };
        json_patch::patch(&mut patched, &patch).map_err(|e| {
            ApiError::internal(format!(
                "JSON patch of admission webhook {:?} failed: {e}",
                hook.name
            ))
        })?;
        match &versions {
            Some(versions) => Ok(Some(versions.to_version(&patched, &objects_rt).await?)),
            None => Ok(Some(patched)),
        }
    }

    /// The served type whose version the request's objects are at: the storage
    /// version's for a CRD converting through a webhook, else the request's.
    fn objects_rt(&self, request: &Attributes<'_>) -> Arc<ResourceType> {
        let api_version = request
            .object
            .or(request.old_object)
            .and_then(|object| object.get("apiVersion"))
            .and_then(Value::as_str);
        api_version
            .and_then(|api_version| {
                self.equivalents
                    .iter()
                    .find(|rt| rt.api_version() == api_version)
                    .cloned()
            })
            .unwrap_or_else(|| self.rt_arc(request.rt))
    }

    /// The served type `rt` is, shared.
    fn rt_arc(&self, rt: &ResourceType) -> Arc<ResourceType> {
        self.equivalents
            .iter()
            .find(|other| other.version == rt.version)
            .cloned()
            .unwrap_or_else(|| Arc::new(rt.clone()))
    }

    /// Sends the review of `request` (its objects at `matched`'s version) to `hook`:
    /// `Ok(Some(patch))` for a mutating webhook's patch, `Err` for a denial, or a failed
    /// call under `failurePolicy: Fail`.
    async fn send(
        &self,
        hook: &Webhook,
        phase: Phase,
        request: &Attributes<'_>,
        matched: &ResourceType,
        warnings: &mut Vec<String>,
    ) -> ApiResult<Option<json_patch::Patch>> {
        let uid = meta::new_uid();
        let review = admission::review(request, &uid, matched);
        let body = serde_json::to_vec(&review).map_err(|e| ApiError::internal(e.to_string()))?;
        let answer = match service::target(&self.shared, &hook.client) {
            Ok(target) => match webhook::post(&target, &hook.ca_bundle, hook.timeout, body).await {
                Ok(bytes) => admission::read_answer(hook, phase, &uid, &bytes),
                Err(why) => Err(format!("failed to call webhook: {why}")),
            },
            Err(why) => Err(format!("failed to call webhook: {why}")),
        };
        let answer = match answer {
            Ok(answer) => answer,
            Err(why) if hook.ignore_failures => {
                tracing::warn!(webhook = %hook.name, "failed calling webhook, ignoring: {why}");
                return Ok(None);
            }
            Err(why) => return Err(hook.call_failed(&why)),
        };
        warnings.extend(answer.warnings);
        match answer.denied {
            Some(denied) => Err(denied),
            None => Ok(answer.patch),
        }
    }
}

/// `object` at `matched`'s version, if there is an object.
async fn at_version(
    versions: &Versions,
    object: Option<&Value>,
    matched: &ResourceType,
) -> ApiResult<Option<Value>> {
    match object {
        Some(object) => Ok(Some(versions.to_version(object, matched).await?)),
        None => Ok(None),
    }
}

/// Whether any webhook configuration could be called for a write to `place`.
pub(crate) fn registered(shared: &Arc<Shared>, place: &Place<'_>) -> bool {
    !Chain::load(shared, place).is_empty()
}

/// A write through `/scale`, admitted as kube-apiserver admits it: an UPDATE of
/// subresource `scale` whose `object` and `oldObject` are the `autoscaling/v1` Scales of
/// `scaled` (the object with the replicas asked for) and `old` (both as the request's
/// version sees them). A mutating webhook's patch changes the Scale, whose replicas are
/// put on the object; the validating webhooks see the Scale of the result. Returns the
/// object to write and the webhooks' warnings.
pub(crate) async fn scale(
    shared: &Arc<Shared>,
    place: &Place<'_>,
    name: &str,
    old: &Value,
    scaled: Value,
    dry_run: bool,
) -> ApiResult<(Value, Vec<String>)> {
    let chain = Chain::load(shared, place);
    if chain.is_empty() {
        return Ok((scaled, Vec::new()));
    }
    let rt = place.rt;
    let old_scale = scale_view::to_scale(rt, old)?;
    let asked = scale_view::to_scale(rt, &scaled)?;
    let mut warnings = Vec::new();
    let request = Attributes {
        rt,
        subresource: Some("scale"),
        operation: Operation::Update,
        name,
        namespace: place.namespace,
        object: Some(&asked),
        old_object: Some(&old_scale),
        dry_run,
    };
    let (scaled, checked) = match chain.mutate(&request, &mut warnings).await? {
        Some(mutated) => {
            let scaled = scale_view::apply_scale(rt, &scaled, &mutated)?;
            let checked = scale_view::to_scale(rt, &scaled)?;
            (scaled, checked)
        }
        None => (scaled, asked.clone()),
    };
    let request = Attributes {
        object: Some(&checked),
        ..request
    };
    chain.validate(&request, &mut warnings).await?;
    Ok((scaled, warnings))
}

/// An object to store again: without the resourceVersion a create must not carry.
fn without_resource_version(mut object: Value) -> Value {
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("resourceVersion");
    }
    object
}

/// POST through admission.
pub(crate) async fn create(
    shared: &Arc<Shared>,
    target: Target<'_>,
    object: Value,
    record: &Record,
    dry_run: bool,
) -> ApiResult<Admitted> {
    let Target { place, requested } = target;
    let chain = Chain::load(shared, place);
    if chain.is_empty() {
        let stored = objects::create(&mut shared.write(dry_run), place, object, record)?;
        return Ok(Admitted::plain(stored));
    }
    let candidate = objects::create(&mut shared.write(true), place, object, record)?;
    let name = meta_str(&candidate, "name").unwrap_or_default().to_owned();
    let mut warnings = Vec::new();
    let request = Attributes {
        rt: requested,
        subresource: None,
        operation: Operation::Create,
        name: &name,
        namespace: place.namespace,
        object: Some(&candidate),
        old_object: None,
        dry_run,
    };
    let mutated = chain.mutate(&request, &mut warnings).await?;
    let (body, checked) = match mutated {
        Some(mutated) => {
            let body = without_resource_version(mutated);
            let again = objects::create(&mut shared.write(true), place, body.clone(), record)?;
            (body, again)
        }
        None => (
            without_resource_version((*candidate).clone()),
            Arc::clone(&candidate),
        ),
    };
    let request = Attributes {
        object: Some(&checked),
        ..request
    };
    chain.validate(&request, &mut warnings).await?;
    let stored = objects::create(&mut shared.write(dry_run), place, body, record)?;
    Ok(Admitted {
        object: stored,
        warnings,
    })
}

/// PUT of the main resource or `status` through admission. The write that is stored
/// must find the object the webhooks saw (409 Conflict otherwise).
pub(crate) async fn update(
    shared: &Arc<Shared>,
    target: Target<'_>,
    name: &str,
    body: Value,
    part: Part,
    record: &Record,
    dry_run: bool,
) -> ApiResult<Admitted> {
    let Target { place, requested } = target;
    let chain = Chain::load(shared, place);
    if chain.is_empty() {
        let stored = objects::update(&mut shared.write(dry_run), place, name, body, part, record)?;
        return Ok(Admitted::plain(stored));
    }
    let (old, candidate) = {
        let mut cluster = shared.write(true);
        let old = place::existing(&cluster, place, name)?;
        let candidate = objects::update(&mut cluster, place, name, body, part, record)?;
        (old, candidate)
    };
    let mut warnings = Vec::new();
    let request = Attributes {
        rt: requested,
        subresource: (part == Part::Status).then_some("status"),
        operation: Operation::Update,
        name,
        namespace: place.namespace,
        object: Some(&candidate),
        old_object: Some(&old),
        dry_run,
    };
    let mutated = chain.mutate(&request, &mut warnings).await?;
    let pinned = |mut object: Value| {
        object["metadata"]["resourceVersion"] = json!(meta_str(&old, "resourceVersion"));
        object
    };
    let (body, checked) = match mutated {
        Some(mutated) => {
            let body = pinned(mutated);
            let again = objects::update(
                &mut shared.write(true),
                place,
                name,
                body.clone(),
                part,
                record,
            )?;
            (body, again)
        }
        None => (pinned((*candidate).clone()), Arc::clone(&candidate)),
    };
    let request = Attributes {
        object: Some(&checked),
        ..request
    };
    chain.validate(&request, &mut warnings).await?;
    let stored = objects::update(&mut shared.write(dry_run), place, name, body, part, record)?;
    Ok(Admitted {
        object: stored,
        warnings,
    })
}

/// DELETE through admission: the webhooks get the stored object as `oldObject`.
pub(crate) async fn delete(
    shared: &Arc<Shared>,
    target: Target<'_>,
    name: &str,
    options: &DeleteOptions,
    dry_run: bool,
) -> ApiResult<Admitted> {
    let Target { place, requested } = target;
    let chain = Chain::load(shared, place);
    if chain.is_empty() {
        let deleted = deletion::delete(&mut shared.write(dry_run), place, name, options)?;
        return Ok(Admitted::plain(deleted));
    }
    let old = place::existing(&shared.lock(), place, name)?;
    let mut warnings = Vec::new();
    let request = Attributes {
        rt: requested,
        subresource: None,
        operation: Operation::Delete,
        name,
        namespace: place.namespace,
        object: None,
        old_object: Some(&old),
        dry_run,
    };
    chain.mutate(&request, &mut warnings).await?;
    chain.validate(&request, &mut warnings).await?;
    let deleted = deletion::delete(&mut shared.write(dry_run), place, name, options)?;
    Ok(Admitted {
        object: deleted,
        warnings,
    })
}

/// DELETE of a collection through admission: each object matching `matching` is
/// admitted and deleted as its own DELETE, as kube-apiserver does; the first denial or
/// failure ends the request (objects deleted before it stay deleted). Returns the
/// deleted objects and the warnings.
pub(crate) async fn delete_collection(
    shared: &Arc<Shared>,
    target: Target<'_>,
    matching: impl Fn(&Value) -> bool,
    options: &DeleteOptions,
    dry_run: bool,
) -> ApiResult<(Vec<Arc<Value>>, Vec<String>)> {
    let Target { place, requested } = target;
    if !registered(shared, place) {
        let mut cluster = shared.write(dry_run);
        let deleted =
            deletion::delete_collection(&mut cluster, place.rt, matching, options.propagation)?;
        return Ok((deleted, Vec::new()));
    }
    let targets: Vec<(String, String)> = shared
        .lock()
        .current(&place.rt.storage_key())
        .values()
        .filter(|object| matching(object))
        .map(|object| {
            let text = |field| meta_str(object, field).unwrap_or_default().to_owned();
            (text("namespace"), text("name"))
        })
        .collect();
    let mut deleted = Vec::new();
    let mut warnings = Vec::new();
    for (namespace, name) in targets {
        let place = Place {
            rt: place.rt,
            namespace: &namespace,
        };
        match delete(
            shared,
            Target {
                place: &place,
                requested,
            },
            &name,
            options,
            dry_run,
        )
        .await
        {
            Ok(admitted) => {
                deleted.push(admitted.object);
                warnings.extend(admitted.warnings);
            }
            // Gone meanwhile (a cascade, another client): nothing to delete.
            Err(error) if error.code == 404 => {}
            Err(error) => return Err(error),
        }
    }
    Ok((deleted, warnings))
}
