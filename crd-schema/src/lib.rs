//! The one CRD-schema core of kubegen: what a `CustomResourceDefinition` looks like, as
//! JSON, whoever reads the Rust types it describes.
//!
//! Two readers describe a kind's types: at run time the facade's `Foo::crd()` asks
//! schemars (`kubegen::crd`), and without compiling `kubegen crd` reads the sources with
//! syn into kubegen-codegen's model (`emit::crd`, `emit::schema`). Both hand their schema
//! nodes to this crate, which owns everything after the reading:
//!
//! - [`envelope`]: the `apiextensions.k8s.io/v1` `CustomResourceDefinition` around the
//!   schemas (names, scope, versions with served/storage/deprecation, the status and scale
//!   subresources, printer columns, selectable fields, categories and short names,
//!   `spec.conversion` through a webhook);
//! - [`structural`]: the rules kube-apiserver enforces on structural schemas, applied to
//!   a schema node ([`make_structural`], [`make_nullable`]);
//! - [`merge`](mod@merge): several versions of one kind made one CRD, in Kubernetes'
//!   version priority ([`compare_versions`]);
//! - [`shapes`]: the schema nodes both readers write the same way (the root object's
//!   `apiVersion`, `kind` and `metadata`, the primitive types, int-or-string, unknown
//!   fields kept, maps of any JSON) and the keys they use, CEL rules among them
//!   ([`shapes::Rule`]).
//!
//! **Does not:** read Rust (no syn), ask Rust types for their schema (no schemars), or
//! know Kubernetes' Rust types (no kube, no k8s-openapi): its inputs and outputs are
//! `serde_json::Value`s and small structs of its own, and the callers turn them into
//! k8s-openapi's types or YAML. The schemas of k8s-openapi types that `kubegen crd` cannot
//! compile are a table generated from `crd()`'s own path, in kubegen-codegen
//! (`kubegen-codegen`'s `wellknown` module), not here.
//!
//! ```
//! use kubegen_crd_schema::envelope::{Definition, Names, Scope, Version};
//! use kubegen_crd_schema::{make_structural, shapes};
//! use serde_json::json;
//!
//! let root = shapes::root(Some("A Foo."), [("spec".to_owned(), json!({ "type": "object", "additionalProperties": true }))]);
//! let mut schema = serde_json::Value::Object(root);
//! make_structural(&mut schema, "")?;
//! let crd = Definition {
//!     group: "example.com".into(),
//!     names: Names::new("Foo", "foos", "foo"),
//!     scope: Scope::Namespaced,
//!     versions: vec![Version::new("v1", schema)],
//! }
//! .to_value();
//! assert_eq!(crd["metadata"]["name"], "foos.example.com");
//! assert_eq!(
//!     crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"],
//!     json!({ "type": "object", "x-kubernetes-preserve-unknown-fields": true })
//! );
//! # Ok::<(), kubegen_crd_schema::Error>(())
//! ```

pub mod envelope;
pub mod merge;
pub mod shapes;
pub mod structural;

pub use envelope::Definition;
pub use merge::{compare_versions, merge, set_storage, sort_versions};
pub use structural::{make_nullable, make_structural};

/// Why a schema or a CRD could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A schema node cannot be expressed as a structural schema.
    #[error("failed to make the schema structural at {path}: {reason}")]
    NotStructural {
        /// Where in the object (`spec.template.next`).
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The CRDs given to [`merge()`] are not versions of one kind, or the storage version
    /// is not among them.
    #[error("failed to merge the versions of {name}: {reason}")]
    Merge {
        /// `plural.group` of the first CRD.
        name: String,
        /// What disagrees.
        reason: String,
    },
}
