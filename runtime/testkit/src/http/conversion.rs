//! The versions of a request's objects: for a CRD with `spec.conversion.strategy:
//! Webhook`, objects are stored at the storage version and every object read at another
//! version (get, list, watch, write answers) or written at one (request bodies, patch
//! results) goes through the CRD's conversion webhook, one ConversionReview per call
//! (one for a whole list), only for the objects not already at the desired version. With
//! strategy `None` (and for every built-in kind) nothing is called and writes go to the
//! requested version's type, as before. The cluster lock is never held across a call.
//!
//! What is sent and what an answer means is decided in
//! [`verbs::conversion`](crate::verbs::conversion); the call is [`webhook::post`], to
//! the webhook's URL or the address its `clientConfig.service` resolves to
//! ([`service::target`], when the call is made).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::http::service;
use crate::http::webhook;
use crate::store::meta;
use crate::store::registry::{Conversion, ConversionWebhook, ResourceType};
use crate::store::shared::Shared;
use crate::store::status::{ApiError, ApiResult};
use crate::verbs::conversion::{self, Subject};

/// A request's type and the type its objects are stored as, with the webhook between
/// them when the CRD has one.
#[derive(Clone)]
pub(crate) struct Versions {
    /// The server, to resolve a webhook's `clientConfig.service` when it is called.
    shared: Arc<Shared>,
    /// The type (version) the request addressed.
    served: Arc<ResourceType>,
    /// The type writes go through: the storage version's with a webhook, else `served`.
    stored: Arc<ResourceType>,
    webhook: Option<Arc<ConversionWebhook>>,
    timeout: Duration,
}

impl Versions {
    /// The versions of a request for `rt`.
    pub(crate) fn of(shared: &Arc<Shared>, rt: &Arc<ResourceType>) -> ApiResult<Self> {
        let (stored, webhook) = match &rt.conversion {
            Conversion::None => (Arc::clone(rt), None),
            Conversion::Webhook(webhook) => {
                let stored = shared
                    .lock()
                    .registry
                    .get(&rt.group, &webhook.storage_version, &rt.plural)
                    .ok_or_else(ApiError::no_route)?;
                (stored, Some(Arc::clone(webhook)))
            }
        };
        Ok(Self {
            shared: Arc::clone(shared),
            served: Arc::clone(rt),
            stored,
            webhook,
            timeout: shared.config.conversion_timeout,
        })
    }

    /// Whether objects may need the webhook (strategy `Webhook`).
    pub(crate) fn converts(&self) -> bool {
        self.webhook.is_some()
    }

    /// The type writes go through (its version is the one objects are stored at).
    pub(crate) fn stored(&self) -> &Arc<ResourceType> {
        &self.stored
    }

    /// `object` at the requested version.
    pub(crate) async fn to_served(&self, object: Arc<Value>) -> ApiResult<Arc<Value>> {
        if self.webhook.is_none() {
            return Ok(object);
        }
        let subject = subject_of(&object, &self.served.kind);
        let mut converted = self
            .convert(vec![object], &self.served, subject, false)
            .await?;
        converted
            .pop()
            .ok_or_else(|| ApiError::internal("conversion returned no object"))
    }

    /// `objects` (a list's items, a deleted collection) at the requested version, in one
    /// review.
    pub(crate) async fn all_to_served(
        &self,
        objects: Vec<Arc<Value>>,
    ) -> ApiResult<Vec<Arc<Value>>> {
        if self.webhook.is_none() {
            return Ok(objects);
        }
        let subject = Subject {
            api_version: self.stored.api_version(),
            kind: self.served.list_kind.clone(),
        };
        self.convert(objects, &self.served, subject, true).await
    }

    /// A request body (at the requested version) at the storage version. Bodies of
    /// another group or kind are left for the write's checks to refuse.
    pub(crate) async fn to_stored(&self, mut body: Value) -> ApiResult<Value> {
        if self.webhook.is_none() || !self.of_this_kind(&body) {
            return Ok(body);
        }
        if let Some(map) = body.as_object_mut() {
            map.insert("apiVersion".to_owned(), json!(self.served.api_version()));
            map.insert("kind".to_owned(), json!(self.served.kind));
        }
        let subject = subject_of(&body, &self.served.kind);
        let mut converted = self
            .convert(vec![Arc::new(body)], &self.stored, subject, false)
            .await?;
        let object = converted
            .pop()
            .ok_or_else(|| ApiError::internal("conversion returned no object"))?;
        Ok(Arc::unwrap_or_clone(object))
    }

    /// `object` (of this resource, at any of its versions) at `desired`'s version, as
    /// admission sends it to a webhook whose rule named that version: through the
    /// conversion webhook with strategy `Webhook`, else with its `apiVersion` changed.
    pub(crate) async fn to_version(
        &self,
        object: &Value,
        desired: &ResourceType,
    ) -> ApiResult<Value> {
        let api_version = desired.api_version();
        if object.get("apiVersion").and_then(Value::as_str) == Some(api_version.as_str()) {
            return Ok(object.clone());
        }
        if self.webhook.is_none() {
            let mut object = object.clone();
            object["apiVersion"] = json!(api_version);
            return Ok(object);
        }
        let subject = subject_of(object, &desired.kind);
        let mut converted = self
            .convert(vec![Arc::new(object.clone())], desired, subject, false)
            .await?;
        let object = converted
            .pop()
            .ok_or_else(|| ApiError::internal("conversion returned no object"))?;
        Ok(Arc::unwrap_or_clone(object))
    }

    /// Whether `body` is an object of the requested group and kind (or says neither).
    fn of_this_kind(&self, body: &Value) -> bool {
        let Some(map) = body.as_object() else {
            return false;
        };
        let kind_ok = map
            .get("kind")
            .and_then(Value::as_str)
            .is_none_or(|kind| kind == self.served.kind);
        let group_ok = map
            .get("apiVersion")
            .and_then(Value::as_str)
            .is_none_or(|api_version| {
                api_version.rsplit_once('/').map(|(g, _)| g) == Some(self.served.group.as_str())
            });
        kind_ok && group_ok
    }

    /// Sends the objects of `objects` not at `desired`'s version to the webhook, in one
    /// review, and puts the answers in their places.
    async fn convert(
        &self,
        mut objects: Vec<Arc<Value>>,
        desired: &ResourceType,
        subject: Subject,
        list: bool,
    ) -> ApiResult<Vec<Arc<Value>>> {
        let Some(webhook) = &self.webhook else {
            return Ok(objects);
        };
        let desired = desired.api_version();
        let indexes = conversion::to_convert(objects.iter().map(|o| &**o), &desired);
        if indexes.is_empty() {
            return Ok(objects);
        }
        let sent: Vec<&Value> = indexes.iter().map(|&i| &*objects[i]).collect();
        let uid = meta::new_uid();
        let body = conversion::review(&uid, &desired, &sent);
        let failed = |why: String| {
            conversion::failed(format!("conversion webhook for {subject} failed: {why}"))
        };
        let target = service::target(&self.shared, &webhook.client).map_err(failed)?;
        let bytes = webhook::post(&target, &webhook.ca_bundle, self.timeout, body)
            .await
            .map_err(failed)?;
        let converted = conversion::read_answer(&bytes, &uid, &desired, &sent, &subject, list)
            .map_err(conversion::failed)?;
        for (i, object) in indexes.into_iter().zip(converted) {
            objects[i] = Arc::new(object);
        }
        Ok(objects)
    }
}

/// The subject of one object's conversion: its own version and `kind`.
fn subject_of(object: &Value, kind: &str) -> Subject {
    Subject {
        api_version: object
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        kind: kind.to_owned(),
    }
}
