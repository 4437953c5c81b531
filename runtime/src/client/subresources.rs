//! Marker types naming the subresources a kind serves: the `S` of
//! [`TypedClient<K, S>`](super::TypedClient), which gives `update_status`/`patch_status`
//! only to sets with `/status` and `get_scale`/`update_scale` only to sets with `/scale`.

/// No subresources.
#[derive(Clone, Copy, Debug)]
pub struct None;
/// `/status`.
#[derive(Clone, Copy, Debug)]
pub struct Status;
/// `/scale`.
#[derive(Clone, Copy, Debug)]
pub struct Scale;
/// `/status` and `/scale`: also the default of a [`TypedClient`](super::TypedClient),
/// whose caller knows what the kind serves.
#[derive(Clone, Copy, Debug)]
pub struct StatusAndScale;

/// Subresource sets that include `/status`.
pub trait HasStatus {}
impl HasStatus for Status {}
impl HasStatus for StatusAndScale {}

/// Subresource sets that include `/scale`.
pub trait HasScale {}
impl HasScale for Scale {}
impl HasScale for StatusAndScale {}
