//! The sample controller's API types, written by hand.
//!
//! These are the types a user writes; `kube::Resource`, serde with `apiVersion`/`kind`
//! and the CRD manifest are spelled out here because kubegen's `#[derive(Resource)]`
//! was not yet available on this branch when the example was written. With the derive,
//! this module shrinks to the three structs and one `#[resource(...)]` attribute, and
//! nothing outside it changes.

pub mod samplecontroller;
