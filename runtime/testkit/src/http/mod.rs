//! The HTTP layer: routing of Kubernetes API paths, content negotiation and the
//! documents served beside the resources (discovery, OpenAPI), and the encodings of
//! bodies (JSON, protobuf, Tables). It turns requests into
//! calls of [`verbs`](crate::verbs) and renders their results; it imports from the
//! layers below only.

pub(crate) mod admission;
pub(crate) mod auth;
#[cfg(feature = "certs")]
pub mod certs;
pub(crate) mod conversion;
pub(crate) mod discovery;
pub(crate) mod metav1;
pub(crate) mod negotiation;
pub(crate) mod openapi;
pub(crate) mod patching;
pub(crate) mod protobuf;
pub(crate) mod routes;
pub(crate) mod scaling;
pub(crate) mod server;
pub(crate) mod service;
pub(crate) mod table;
pub(crate) mod webhook;
