//! kubegen-derive: the `Resource` and `DeepCopy` derives.
//!
//! The derives parse with the Rust front-end of `kubegen-codegen` and emit with its
//! emitters, so a struct annotated by hand and the same type generated from its CRD
//! produce the same client surface.
