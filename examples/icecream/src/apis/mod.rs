//! The icecream controller's API types, written by hand.
//!
//! `kube::Resource`, serde with `apiVersion`/`kind` and the CRD manifest are spelled out
//! here because kubegen's `#[derive(Resource)]` was not yet available on this branch when
//! the example was written. With the derive, this module shrinks to the structs and one
//! `#[resource(...)]` attribute, and nothing outside it changes.

pub mod icecream;
