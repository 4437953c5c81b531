//! The verbs: what get, list, watch, create, update, patch, delete, deletecollection
//! and the subresources do to the cluster state, with a real server's validation,
//! defaulting and cascades. It knows nothing of HTTP and imports from
//! [`store`](crate::store) (and the generated [`builtin`](crate::builtin) facts) only.

pub(crate) mod admission;
pub(crate) mod authentication;
pub(crate) mod client_config;
pub(crate) mod collection;
pub(crate) mod collector;
pub(crate) mod conversion;
pub(crate) mod crd;
pub(crate) mod deletion;
pub(crate) mod generation;
pub(crate) mod managed_fields;
pub(crate) mod objects;
pub(crate) mod patch;
pub(crate) mod place;
pub(crate) mod rbac;
pub(crate) mod scale;
pub(crate) mod schema;
pub(crate) mod strategic;
