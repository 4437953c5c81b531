//! Errors returned by [`TypedClient`](crate::client::TypedClient), with client-go's
//! predicates (`apierrors.IsNotFound`, `IsConflict`, ...) as methods.

use std::fmt;
use std::time::Duration;

use kube::core::Status;

/// `Result` with this module's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A request verb, as Kubernetes names it (authorization, audit, discovery): the verb of
/// a failed client call, and what testkit faults match on. A subresource (`status`,
/// `scale`) is not part of the verb: `update` of `deployments/status` is an
/// [`Update`](Verb::Update).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verb {
    /// `GET` of one object (or a subresource).
    Get,
    /// `GET` of a collection.
    List,
    /// `GET ?watch=true` of a collection.
    Watch,
    /// `POST` of a new object.
    Create,
    /// `PUT` of an object (or a subresource).
    Update,
    /// `PATCH` of an object (or a subresource).
    Patch,
    /// `DELETE` of one object.
    Delete,
    /// `DELETE` of a collection.
    DeleteCollection,
}

impl Verb {
    /// The verb as Kubernetes spells it (`get`, ..., `deletecollection`).
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Get => "get",
            Verb::List => "list",
            Verb::Watch => "watch",
            Verb::Create => "create",
            Verb::Update => "update",
            Verb::Patch => "patch",
            Verb::Delete => "delete",
            Verb::DeleteCollection => "deletecollection",
        }
    }
}

impl fmt::Display for Verb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a failed call was doing: verb, resource (plural), subresource and target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation {
    /// The verb.
    pub verb: Verb,
    /// The resource's plural name (`configmaps`).
    pub resource: String,
    /// The subresource (`status`, `scale`), for calls on one.
    pub subresource: Option<String>,
    /// The namespace the call was scoped to, if any.
    pub namespace: Option<String>,
    /// The object's name, for single-object calls.
    pub name: Option<String>,
}

impl fmt::Display for Operation {
    /// `update status of deployments "web" in namespace "default"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.verb, &self.subresource) {
            (verb, Some(sub)) => write!(f, "{verb} {sub} of {}", self.resource)?,
            (Verb::DeleteCollection, None) => write!(f, "delete collection of {}", self.resource)?,
            (verb, None) => write!(f, "{verb} {}", self.resource)?,
        }
        if let Some(name) = &self.name {
            write!(f, " {name:?}")?;
        }
        match &self.namespace {
            Some(ns) => write!(f, " in namespace {ns:?}"),
            None => Ok(()),
        }
    }
}

/// An error from a typed client call.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The API server or the transport failed the call.
    #[error("failed to {operation}")]
    Api {
        /// What the call was doing.
        operation: Box<Operation>,
        /// The underlying kube error (an `Api` status for server-side failures).
        #[source]
        source: kube::Error,
    },
    /// The server answered with a list whose page could not be continued.
    #[error("failed to {operation}: the server returned a continue token without progress")]
    Pagination {
        /// What the call was doing.
        operation: Box<Operation>,
    },
}

impl Error {
    /// The Kubernetes `Status` the server returned, when the failure came from the server.
    pub fn status(&self) -> Option<&Status> {
        match self {
            Error::Api { source, .. } => status_of(source),
            Error::Pagination { .. } => None,
        }
    }

    /// The operation that failed.
    pub fn operation(&self) -> &Operation {
        match self {
            Error::Api { operation, .. } | Error::Pagination { operation } => operation,
        }
    }

    /// The object does not exist (404 / `NotFound`).
    pub fn is_not_found(&self) -> bool {
        self.status().is_some_and(is_not_found)
    }

    /// The write used a stale resourceVersion or failed a precondition (409 / `Conflict`).
    pub fn is_conflict(&self) -> bool {
        self.status().is_some_and(is_conflict)
    }

    /// A create named an object that already exists (409 / `AlreadyExists`).
    pub fn is_already_exists(&self) -> bool {
        self.status().is_some_and(is_already_exists)
    }

    /// The requested resourceVersion is no longer available (410 / `Gone` or `Expired`).
    pub fn is_gone(&self) -> bool {
        self.status().is_some_and(is_gone)
    }

    /// The object failed validation (422 / `Invalid`).
    pub fn is_invalid(&self) -> bool {
        self.status().is_some_and(is_invalid)
    }

    /// The server is throttling the client (429 / `TooManyRequests`).
    pub fn is_too_many_requests(&self) -> bool {
        self.status().is_some_and(is_too_many_requests)
    }

    /// A failure worth another attempt: the server throttled the request (429), failed
    /// (5xx), or never answered (transport errors carry no status).
    pub fn is_transient(&self) -> bool {
        self.status()
            .is_none_or(|status| status.code == 429 || status.code >= 500)
    }

    /// How long the server asked the client to wait (`details.retryAfterSeconds`), if it did.
    pub fn retry_after(&self) -> Option<Duration> {
        self.status().and_then(retry_after)
    }
}

/// The `Status` inside a kube error, when the error came from the server.
pub(crate) fn status_of(error: &kube::Error) -> Option<&Status> {
    match error {
        kube::Error::Api(status) => Some(status),
        _ => None,
    }
}

/// client-go's `reasonForError` rule: the reason decides when the server set one,
/// the HTTP code decides otherwise.
fn reason_or_code(status: &Status, reason: &str, code: u16) -> bool {
    if status.reason.is_empty() {
        status.code == code
    } else {
        status.reason == reason
    }
}

pub(crate) fn is_not_found(status: &Status) -> bool {
    reason_or_code(status, "NotFound", 404)
}

pub(crate) fn is_conflict(status: &Status) -> bool {
    reason_or_code(status, "Conflict", 409)
}

pub(crate) fn is_already_exists(status: &Status) -> bool {
    status.reason == "AlreadyExists"
}

pub(crate) fn is_gone(status: &Status) -> bool {
    status.reason == "Gone" || status.reason == "Expired" || status.code == 410
}

pub(crate) fn is_invalid(status: &Status) -> bool {
    reason_or_code(status, "Invalid", 422)
}

pub(crate) fn is_too_many_requests(status: &Status) -> bool {
    reason_or_code(status, "TooManyRequests", 429)
}

pub(crate) fn retry_after(status: &Status) -> Option<Duration> {
    status
        .details
        .as_ref()
        .map(|d| d.retry_after_seconds)
        .filter(|secs| *secs > 0)
        .map(|secs| Duration::from_secs(u64::from(secs)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use kube::core::response::StatusDetails;

    fn api_error(code: u16, reason: &str) -> Error {
        Error::Api {
            operation: Box::new(Operation {
                verb: Verb::Update,
                resource: "configmaps".into(),
                subresource: None,
                namespace: Some("default".into()),
                name: Some("a".into()),
            }),
            source: kube::Error::Api(Status::failure("boom", reason).with_code(code).boxed()),
        }
    }

    #[test]
    fn predicates_follow_reason_then_code() {
        assert!(api_error(404, "NotFound").is_not_found());
        assert!(api_error(404, "").is_not_found());
        assert!(!api_error(404, "Gone").is_not_found());
        assert!(api_error(409, "Conflict").is_conflict());
        assert!(!api_error(409, "AlreadyExists").is_conflict());
        assert!(api_error(409, "AlreadyExists").is_already_exists());
        assert!(api_error(410, "Expired").is_gone());
        assert!(api_error(410, "").is_gone());
        assert!(api_error(422, "Invalid").is_invalid());
        assert!(api_error(429, "TooManyRequests").is_too_many_requests());
        assert!(api_error(429, "").is_too_many_requests());
        assert!(!api_error(500, "InternalError").is_too_many_requests());
    }

    #[test]
    fn retry_after_comes_from_status_details() {
        let mut err = api_error(429, "TooManyRequests");
        assert_eq!(err.retry_after(), None);
        if let Error::Api {
            source: kube::Error::Api(status),
            ..
        } = &mut err
        {
            status.details = Some(StatusDetails {
                name: String::new(),
                group: String::new(),
                kind: String::new(),
                uid: String::new(),
                causes: Vec::new(),
                retry_after_seconds: 3,
            });
        }
        assert_eq!(err.retry_after(), Some(Duration::from_secs(3)));
    }

    #[test]
    fn message_names_the_operation() {
        let err = api_error(409, "Conflict");
        assert_eq!(
            err.to_string(),
            "failed to update configmaps \"a\" in namespace \"default\""
        );
        let op = |verb, subresource: Option<&str>| Operation {
            verb,
            resource: "deployments".into(),
            subresource: subresource.map(str::to_owned),
            namespace: None,
            name: None,
        };
        assert_eq!(
            op(Verb::Patch, Some("status")).to_string(),
            "patch status of deployments"
        );
        assert_eq!(
            op(Verb::DeleteCollection, None).to_string(),
            "delete collection of deployments"
        );
        assert_eq!(Verb::DeleteCollection.to_string(), "deletecollection");
    }
}
