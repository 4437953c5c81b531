//! Sharding a collection across replicas, as KEP-5866 (server-side sharded list and
//! watch, Kubernetes v1.36 alpha) defines it: an object's shard key is the 64-bit FNV-1a
//! hash ([`fnv1a_64`]) of its uid or its namespace ([`ShardKey`]); a shard owns half-open
//! ranges `[start, end)` of the hash space; `S` even shards split it with
//! [`ShardSelector::even`]. A [`ShardSelector`] prints and parses as the KEP's
//! `shardSelector` query parameter (`shardRange(object.metadata.uid, '0x0...',
//! '0x8...')`), which the reflector sends on list and watch
//! ([`ReflectorConfig::shard_selector`](crate::reflector::ReflectorConfig::shard_selector))
//! and also applies itself, so that a server that ignores or refuses it gives the same
//! cache.

mod fnv;
mod selector;

pub use fnv::fnv1a_64;
pub use selector::{ShardError, ShardKey, ShardRange, ShardSelector};
