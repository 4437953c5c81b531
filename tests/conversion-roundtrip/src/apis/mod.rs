//! A hand-written kind in two versions, `Gizmo` of `derived.kubegen.io`: `v1alpha1` and
//! `v1`, the hub (the storage version, marked `#[resource(storage)]`). They differ as the fixture CRD's `Gadget` does: v1 renamed `spec.colour`
//! `color`, split `spec.owner` ("First Last") into `ownerFirstName` and `ownerLastName`,
//! added `spec.ports[].protocol` and a `status.phase` value, and dropped
//! `spec.schedule.suspend`; both use [`common::Tier`], one type, which converts by moving.

pub mod common;
pub mod v1;
pub mod v1alpha1;
