//! Writes through the `scale` subresource (PUT of a Scale, or a PATCH of one): the
//! object read at the request's version (through the CRD's conversion webhook, if it
//! has one), given the replicas asked for, admitted as an UPDATE of an `autoscaling/v1`
//! Scale ([`admission::scale`]), converted back and written if the object did not
//! change meanwhile; else computed again, as kube-apiserver retries an update that
//! names no resourceVersion. Without a conversion webhook and admission webhooks, the
//! write is computed and stored under one lock, as before either existed.

use std::sync::Arc;

use serde_json::Value;

use crate::http::admission;
use crate::http::conversion::Versions;
use crate::store::shared::Shared;
use crate::store::status::ApiResult;
use crate::verbs::managed_fields::Record;
use crate::verbs::objects;
use crate::verbs::place::{self, Part, Place};
use crate::verbs::scale;

/// How many times a scale is computed again when the object changed between its read
/// and its write.
const ATTEMPTS: usize = 5;

/// A scale write: what the client asked for, how it is recorded.
pub(crate) struct ScaleWrite<'a, F> {
    /// The object addressed, at the request's version.
    pub(crate) place: &'a Place<'a>,
    pub(crate) name: &'a str,
    /// The object (as the request's version sees it) with the replicas asked for; an
    /// `Err` (a stale resourceVersion, a negative count) fails the request.
    pub(crate) scaled: F,
    /// Whether the request names the resourceVersion it applies to (then a change
    /// meanwhile is a 409, never computed again).
    pub(crate) precondition: bool,
    pub(crate) record: &'a Record,
    pub(crate) dry_run: bool,
}

/// What a scale write answers: the Scale of the stored object and the admission
/// webhooks' warnings.
pub(crate) struct Scaled {
    pub(crate) scale: Value,
    pub(crate) warnings: Vec<String>,
}

/// Writes `write` (see the module docs).
pub(crate) async fn write<F>(
    shared: &Arc<Shared>,
    versions: &Versions,
    write: ScaleWrite<'_, F>,
) -> ApiResult<Scaled>
where
    F: Fn(&Value) -> ApiResult<Value>,
{
    let ScaleWrite {
        place,
        name,
        scaled,
        precondition,
        record,
        dry_run,
    } = write;
    if !versions.converts() && !admission::registered(shared, place) {
        let mut cluster = shared.write(dry_run);
        let old = place::existing(&cluster, place, name)?;
        let new = scaled(&old)?;
        let stored = objects::write(&mut cluster, place, name, old, new, Part::Main, record)?;
        return Ok(Scaled {
            scale: scale::to_scale(place.rt, &stored)?,
            warnings: Vec::new(),
        });
    }
    let stored_place = Place {
        rt: versions.stored(),
        namespace: place.namespace,
    };
    let mut attempt = 0;
    loop {
        attempt += 1;
        let old = place::existing(&shared.lock(), place, name)?;
        let seen = versions.to_served(Arc::clone(&old)).await?;
        let new = scaled(&seen)?;
        let (new, warnings) = admission::scale(shared, place, name, &seen, new, dry_run).await?;
        let mut new = versions.to_stored(new).await?;
        new["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"].clone();
        let written = objects::update(
            &mut shared.write(dry_run),
            &stored_place,
            name,
            new,
            Part::Main,
            record,
        );
        let stored = match written {
            Err(conflict) if conflict.code == 409 && !precondition && attempt < ATTEMPTS => {
                tracing::debug!(%name, attempt, "the object changed during a scale: again");
                continue;
            }
            written => written?,
        };
        let stored = versions.to_served(stored).await?;
        return Ok(Scaled {
            scale: scale::to_scale(place.rt, &stored)?,
            warnings,
        });
    }
}
