//! A generative test of the testkit API server over HTTP: seeded random requests
//! (methods, paths, query strings, headers, bodies; valid and broken), per-answer
//! properties, and a consistency check of the stored state after every batch.
#![allow(dead_code, unreachable_pub, missing_docs)]

pub mod body;
pub mod generate;
pub mod kinds;
pub mod model;
pub mod oracle;
pub mod panics;
pub mod request;
pub mod rng;
pub mod wire;
