//! The API types, one module per group and version.

pub mod example;
pub mod samplecontroller;
