//! kubegen-codegen: the code generator behind the `kubegen` CLI and the derives.
//!
//! Front-ends (CRD YAML, OpenAPI documents, annotated Rust) build an owned [model];
//! emitters read only the model and produce formatted, deterministic Rust.

pub mod model;
pub mod naming;
