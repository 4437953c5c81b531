//! Emitters: read the [model](crate::model), produce formatted Rust files.
//!
//! | emitter        | output                                                       | used by            |
//! |----------------|--------------------------------------------------------------|--------------------|
//! | [`types`]      | the types tree: structs, enums, unions of every generated type | `--out`, [`generate`] |
//! | [`resource`]   | a root type's resource traits, `Serialize` (+ `Deserialize`, `crd()`) | `types`, `#[derive(Resource)]` |
//! | [`deepcopy`]   | an allocation-reusing `Clone`                                | `#[derive(DeepCopy)]` |
//! | [`clients`]    | clientset, listers and informers of every kind               | `--clients-out`    |
//! | [`apply`]      | apply configurations (`FooApply`) of every kind with a field model | `--apply-out` |
//! | [`crd`]        | one CustomResourceDefinition YAML per kind (not Rust)        | `kubegen crd`      |
//! | [`annotated`]  | `#[derive(Resource)]` sources of CRD kinds, for users to own | `--style derive`   |
//!
//! Emitters read only the model and their options, and import no other emitter except the
//! leaf `resource` (which `types` uses); what they share (options, crate
//! paths, identifiers, formatting, the [`Error`] type) is in a common module, and the
//! `__kubegen_serde!` macro through which generated structs and apply configurations
//! implement `Serialize` and `Deserialize` (in less code for rustc than serde's derive) is
//! in `serde_macro`. Every file is
//! built with `quote!`, laid out by one small deterministic printer (no second parse) and
//! gets a `DO NOT EDIT` header. The output is a pure function of the model: the same
//! model gives the same bytes.
//!
//! ```
//! use kubegen_codegen::{emit, frontend::{Source, crd}, model::Model};
//!
//! let mut model = Model::default();
//! crd::load(&mut model, &[Source::new("foo.yaml", kubegen_codegen::SAMPLE_CRD)], &crd::Options::default()).unwrap();
//! let files = emit::generate(&model, &emit::Options::default()).unwrap();
//! let paths: Vec<_> = files.iter().map(|f| f.path.as_str()).collect();
//! assert_eq!(paths, [
//!     "mod.rs",
//!     "samplecontroller_k8s_io/mod.rs",
//!     "samplecontroller_k8s_io/v1alpha1/foo.rs",
//!     "samplecontroller_k8s_io/v1alpha1/mod.rs",
//! ]);
//! assert!(files[2].contents.contains("pub struct FooSpec"));
//! ```

pub mod annotated;
pub mod apply;
pub mod clients;
mod common;
pub mod crd;
pub mod deepcopy;
mod docs;
mod printer;
pub mod resource;
mod serde_macro;
pub mod types;

pub use common::{Error, GeneratedFile, HEADER, Options};
pub use types::generate;
