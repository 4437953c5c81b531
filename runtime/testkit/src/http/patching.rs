//! PATCH: the body read and checked, the patch applied to the object as the request's
//! version sees it (merge, JSON, strategic, apply with field ownership), and the result
//! written. [`patch_object`] does it under the cluster lock; [`patch_converted`] does it
//! for a CRD whose conversion webhook stands between the request's version and the
//! stored one, calling the webhook with the lock released, as kube-apiserver applies a
//! patch to the object converted to the request's version. [`patch_scale`] patches the
//! Scale view of `/scale` and writes it through [`scaling`].

use std::sync::Arc;

use serde_json::Value;

use crate::http::admission::{self, Admitted};
use crate::http::conversion::Versions;
use crate::http::scaling::{self, ScaleWrite, Scaled};
use crate::store::registry::ResourceType;
use crate::store::shared::Shared;
use crate::store::status::{ApiError, ApiResult, Cause};
use crate::verbs::collection::Query;
use crate::verbs::managed_fields::{self, Record, Writer};
use crate::verbs::objects;
use crate::verbs::patch::{self, PatchKind};
use crate::verbs::place::{self, Part, Place};
use crate::verbs::scale;
use crate::verbs::strategic;

/// How many times a converted patch is computed again when the object changed between
/// its read and its write (kube-apiserver retries such patches too).
const CONVERTED_ATTEMPTS: usize = 5;

/// The object a PATCH is for, and how the patch came.
pub(crate) struct PatchTarget<'a> {
    pub(crate) place: &'a Place<'a>,
    pub(crate) name: &'a str,
    pub(crate) part: Part,
    pub(crate) scale: bool,
    pub(crate) writer: Writer,
    /// The request's Content-Type (which patch it is).
    pub(crate) content_type: &'a str,
}

/// What a PATCH wrote (or, as a dry run, would write).
pub(crate) enum Patched {
    /// An apply created the object.
    Created { object: Arc<Value>, record: Record },
    /// The object was patched; `object` is the result, carrying the resourceVersion it
    /// was computed from until stored.
    Updated { object: Arc<Value>, record: Record },
}

/// A PATCH body, read and checked.
struct PatchRequest {
    kind: PatchKind,
    patch: Value,
    force: bool,
}

impl PatchRequest {
    fn read(query: &Query, target: &PatchTarget<'_>, body: &[u8]) -> ApiResult<Self> {
        let rt: &ResourceType = target.place.rt;
        let kind = PatchKind::from_content_type(target.content_type, !rt.custom)?;
        let patch = patch::parse_body(&kind, body)?;
        if kind == PatchKind::Apply {
            check_apply(query, target.name, &patch)?;
        }
        let force = query.get("force").is_some_and(|f| f == "true");
        Ok(Self { kind, patch, force })
    }

    /// Whether an absent object is created: an apply to the main resource.
    fn creates(&self, target: &PatchTarget<'_>) -> bool {
        self.kind == PatchKind::Apply && target.part == Part::Main && !target.scale
    }

    /// Whether the patch names the resourceVersion it must apply to.
    fn has_precondition(&self) -> bool {
        self.patch
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)
            .is_some_and(|rv| !rv.is_empty())
    }

    /// The object an apply to an absent object creates, and its field ownership.
    fn created(&self, target: &PatchTarget<'_>) -> ApiResult<(Value, Record)> {
        let mut config = self.patch.clone();
        config["metadata"]["name"] = Value::String(target.name.to_owned());
        let (object, entries) = managed_fields::apply(
            target.place.rt,
            Part::Main,
            None,
            &config,
            &target.writer,
            self.force,
        )?;
        Ok((object, Record::Applied(entries)))
    }

    /// `old` (as `target`'s version serves it) patched, checked for its shape and type,
    /// and the ownership the write records.
    fn patched(&self, target: &PatchTarget<'_>, old: &Value) -> ApiResult<(Value, Record)> {
        let rt = target.place.rt;
        let name = target.name;
        let mut patched = place::render(old, rt);
        let record = if self.kind == PatchKind::Apply {
            let (merged, entries) = managed_fields::apply(
                rt,
                target.part,
                Some(&patched),
                &self.patch,
                &target.writer,
                self.force,
            )?;
            patched = merged;
            Record::Applied(entries)
        } else {
            let schema = strategic::root(&rt.group, &rt.version, &rt.kind);
            patch::apply(&self.kind, &mut patched, &self.patch, schema)?;
            Record::Update(target.writer.clone())
        };
        let stale = patched.pointer("/metadata/resourceVersion")
            != old.pointer("/metadata/resourceVersion")
            && patched
                .pointer("/metadata/resourceVersion")
                .and_then(Value::as_str)
                .is_some_and(|rv| !rv.is_empty());
        if stale {
            return Err(ApiError::stale(target.place.subject(name)));
        }
        // A patch producing a value of the wrong type is 422 Invalid on a real server (a
        // body of the wrong type is 400). Custom resources are not typed: their shape is
        // checked here.
        let shape_error = if !patched.is_object() {
            Some("the patched object is not a JSON object")
        } else if patched
            .get("metadata")
            .is_some_and(|m| !m.is_object() && !m.is_null())
        {
            Some("metadata must be an object")
        } else {
            None
        };
        if let Some(why) = shape_error {
            let cause = Cause::invalid("patch", &self.patch, why);
            return Err(ApiError::invalid(&rt.group, &rt.kind, name, vec![cause]));
        }
        let patched = objects::typed(rt, patched).map_err(|e| {
            let cause = Cause::invalid("patch", &self.patch, e.to_string());
            ApiError::invalid(&rt.group, &rt.kind, name, vec![cause])
        })?;
        Ok((patched, record))
    }

    /// The Scale of `old` (as `target`'s version serves it) patched: the object with the
    /// replicas it asks for.
    fn scaled(&self, target: &PatchTarget<'_>, old: &Value) -> ApiResult<Value> {
        let rt = target.place.rt;
        let mut wanted = scale::to_scale(rt, old)?;
        patch::apply(&self.kind, &mut wanted, &self.patch, None)?;
        scale::check_resource_version(target.place, target.name, old, &wanted)?;
        scale::apply_scale(rt, old, &wanted)
    }
}

/// An apply patch's own checks: an object, `fieldManager` set, `force` a boolean, the
/// name the URL's.
fn check_apply(query: &Query, name: &str, patch: &Value) -> ApiResult<()> {
    // An apply patch is a whole (partial) object: it may create one.
    if !patch.is_object() {
        return Err(ApiError::bad_request(
            "an apply patch must be an object, not a list or a scalar",
        ));
    }
    if patch
        .get("metadata")
        .is_some_and(|m| !m.is_object() && !m.is_null())
    {
        return Err(ApiError::bad_request("metadata must be an object"));
    }
    if query.get("fieldManager").is_none_or(String::is_empty) {
        let cause = Cause::new(
            "FieldValueRequired",
            "fieldManager",
            "Required value: is required for apply patch",
        );
        return Err(ApiError::invalid(
            "meta.k8s.io",
            "PatchOptions",
            "",
            vec![cause],
        ));
    }
    if let Some(force) = query.get("force")
        && !matches!(force.as_str(), "true" | "false")
    {
        return Err(ApiError::bad_request(format!("invalid force {force:?}")));
    }
    if let Some(patched_name) = patch.pointer("/metadata/name").and_then(Value::as_str)
        && patched_name != name
    {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({patched_name}) does not match the name on the URL ({name})"
        )));
    }
    Ok(())
}

/// Patches the object under the cluster lock (a dry run computes what would be stored).
pub(crate) fn patch_object(
    shared: &Arc<Shared>,
    query: &Query,
    target: &PatchTarget<'_>,
    body: &[u8],
    dry_run: bool,
) -> ApiResult<Patched> {
    let request = PatchRequest::read(query, target, body)?;
    let PatchTarget {
        place, name, part, ..
    } = *target;
    let rt: &ResourceType = place.rt;
    let mut cluster = shared.write(dry_run);
    let old = match place::existing(&cluster, place, name) {
        Ok(old) => old,
        Err(_) if request.creates(target) => {
            let (object, record) = request.created(target)?;
            let created = objects::create(&mut cluster, place, object.clone(), &record)?;
            // What admission stores again: the configuration as given, not the result.
            let object = if dry_run { Arc::new(object) } else { created };
            return Ok(Patched::Created { object, record });
        }
        Err(not_found) => return Err(not_found),
    };
    let (patched, record) = request.patched(target, &old)?;
    let new = objects::merge_into(rt, &old, patched, part);
    let old_rv = old.pointer("/metadata/resourceVersion").cloned();
    let stored = objects::write(&mut cluster, place, name, old, new, part, &record)?;
    let object = if dry_run {
        // Stored again through admission: only if the object is still the one patched.
        let mut object = (*stored).clone();
        object["metadata"]["resourceVersion"] = old_rv.unwrap_or(Value::Null);
        Arc::new(object)
    } else {
        stored
    };
    Ok(Patched::Updated { object, record })
}

/// What a converted PATCH answers: the object (at the request's version), and whether
/// the patch created it.
pub(crate) struct ConvertedPatch {
    pub(crate) created: bool,
    pub(crate) admitted: Admitted,
}

/// A PATCH of `/scale`: the patch applied to the Scale of the object as the request's
/// version sees it, the replicas it asks for written through [`scaling::write`].
pub(crate) async fn patch_scale(
    shared: &Arc<Shared>,
    versions: &Versions,
    query: &Query,
    target: &PatchTarget<'_>,
    body: &[u8],
    dry_run: bool,
) -> ApiResult<Scaled> {
    let request = PatchRequest::read(query, target, body)?;
    let record = Record::Update(target.writer.clone());
    let write = ScaleWrite {
        place: target.place,
        name: target.name,
        scaled: |old: &Value| request.scaled(target, old),
        precondition: request.has_precondition(),
        record: &record,
        dry_run,
    };
    scaling::write(shared, versions, write).await
}

/// Patches an object whose CRD converts through a webhook: the stored object converted
/// to the request's version, patched there, converted back to the storage version and
/// written (through admission) only if the object did not change meanwhile, else
/// computed again (up to [`CONVERTED_ATTEMPTS`] times; a patch naming a
/// resourceVersion gets 409 at once); the answer converted to the request's version.
pub(crate) async fn patch_converted(
    shared: &Arc<Shared>,
    versions: &Versions,
    query: &Query,
    target: &PatchTarget<'_>,
    body: &[u8],
    dry_run: bool,
) -> ApiResult<ConvertedPatch> {
    let request = PatchRequest::read(query, target, body)?;
    let stored_place = Place {
        rt: versions.stored(),
        namespace: target.place.namespace,
    };
    let name = target.name;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let existing = place::existing(&shared.lock(), target.place, name);
        let old = match existing {
            Ok(old) => old,
            Err(_) if request.creates(target) => {
                let (object, record) = request.created(target)?;
                let object = versions.to_stored(object).await?;
                let admitted = admission::create(
                    shared,
                    admission::Target {
                        place: &stored_place,
                        requested: target.place.rt,
                    },
                    object,
                    &record,
                    dry_run,
                )
                .await?;
                let object = versions.to_served(admitted.object).await?;
                let admitted = Admitted {
                    object,
                    warnings: admitted.warnings,
                };
                return Ok(ConvertedPatch {
                    created: true,
                    admitted,
                });
            }
            Err(not_found) => return Err(not_found),
        };
        let seen = versions.to_served(Arc::clone(&old)).await?;
        let pinned = |mut object: Value| {
            object["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"].clone();
            object
        };
        let written = {
            let (patched, record) = request.patched(target, &seen)?;
            let new = pinned(versions.to_stored(patched).await?);
            admission::update(
                shared,
                admission::Target {
                    place: &stored_place,
                    requested: target.place.rt,
                },
                name,
                new,
                target.part,
                &record,
                dry_run,
            )
            .await
        };
        let admitted = match written {
            Err(conflict)
                if conflict.code == 409
                    && !request.has_precondition()
                    && attempt < CONVERTED_ATTEMPTS =>
            {
                tracing::debug!(%name, attempt, "the object changed during a converted patch: again");
                continue;
            }
            Err(error) => return Err(error),
            Ok(admitted) => admitted,
        };
        let object = versions.to_served(admitted.object).await?;
        let admitted = Admitted {
            object,
            warnings: admitted.warnings,
        };
        return Ok(ConvertedPatch {
            created: false,
            admitted,
        });
    }
}
