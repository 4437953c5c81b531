//! API group `example.com`.

pub mod v1;
