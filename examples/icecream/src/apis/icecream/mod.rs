//! API group `icecream.example.com`.

pub mod v1;
