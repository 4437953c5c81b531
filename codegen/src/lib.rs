//! kubegen-codegen: the code generator behind `cargo kubegen` and the derives, as a
//! library for build scripts and tools.
//!
//! The API is one [`Config`], in the manner of prost-build: name the inputs (CRD YAML or
//! JSON, OpenAPI documents, a directory of `#[derive(Resource)]` structs, the built-in
//! API groups), the output directories (types, clientset/listers/informers, apply
//! configurations, conversions, CRD manifests) and the options, then
//! [`check`](Config::check) how they combine (a [`Refusal`] says why not, naming the CLI
//! flags), and [`generate`](Config::generate): every file of every output in memory, in
//! a [`Run`], which [`write`](Run::write)s the directories (each replaced whole, swapped
//! in only once complete) or [`verify`](Run::verify)s them (a diff of what is stale).
//! `cargo kubegen generate` and `cargo kubegen crd` are a parser that fills a `Config`.
//!
//! ```
//! use kubegen_codegen::Config;
//!
//! // In a build script: `let out = PathBuf::from(std::env::var("OUT_DIR")?);`
//! let out = std::env::temp_dir().join(format!("kubegen-lib-doc-{}", std::process::id()));
//! let run = Config::new()
//!     .crd_text("foo.yaml", kubegen_codegen::SAMPLE_CRD) // or .crd("crds/")
//!     .types_out(out.join("generated"))
//!     .clients_out(out.join("clients"))
//!     .generate()?;
//! for warning in &run.warnings {
//!     println!("cargo:warning={warning}");
//! }
//! let foo = &run.kinds[0];
//! assert_eq!((foo.group.as_str(), foo.kind.as_str()), ("samplecontroller.k8s.io", "Foo"));
//! assert_eq!(foo.type_path, "samplecontroller_k8s_io::v1alpha1::Foo");
//! run.write()?;
//! assert!(out.join("generated/mod.rs").is_file());
//! assert!(run.verify()?.is_empty(), "just written: up to date");
//! # std::fs::remove_dir_all(&out)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The rest of the API is what a `Config` takes and gives: [`TypesStyle`], [`Versions`],
//! [`ClientVerb`], [`ConversionWebhook`]; [`Output`], [`GeneratedFile`],
//! [`GeneratedKind`], [`Warning`] (at a [`Location`]); [`Error`]; the [`HEADER`] on top of
//! every generated Rust file; and [`SAMPLE_CRD`], a small CRD for trying it out.
//!
//! # Inside
//!
//! One pipeline, whatever the inputs (the modules are private; `__internal` re-exports
//! them for this repository's own binaries, tests, benchmarks, fuzz targets, build
//! scripts and derives, and is not API):
//!
//! ```text
//!  --crd       CRD YAML/JSON ------ frontend::crd ------┐
//!  --openapi   OpenAPI v2/v3 ------ frontend::openapi --┤   (shared JSON-schema layer)
//!  --rust      #[derive(Resource)] - frontend::rust -----┼-> model::Model --validate()--┐
//!  --kubernetes built-in table ---- frontend::builtin ---┘                              │
//!                                                                                       │
//!      ┌── emit::types   (--out: every generated type, + resource impls) ◄──────────────┤
//!      ├── emit::clients (--clients-out: clientset, listers, informers of every kind) ◄┤
//!      ├── emit::apply   (--apply-out: apply configurations of every kind) ◄────────────┤
//!      └── emit::conversion (--conversions-out: versions <-> a hub) ◄───────────────────┘
//!                         │
//!                         └──> output::write_all (atomic swap) or output::verify (--verify)
//! ```
//!
//! - `frontend`: inputs -> model. Every front-end has the same entry point,
//!   `load(model, [sources,] options)`, selects versions, and ends in `Model::validate`;
//!   `frontend::load` runs any mix of them into one model, final once returned, with
//!   every front-end's warnings.
//! - `model`: the owned IR and the only contract between front-ends and emitters: groups
//!   -> versions -> kinds (names, scope, subresources, printer columns, where the kind's
//!   Rust type lives, where its names were written) and the type model; plus the shape
//!   `#[derive(DeepCopy)]` reads. `Model::validate` enforces Kubernetes' naming rules
//!   (`file:line:column` errors) and what emitters rely on.
//! - `naming`: every identifier rule (casing, keywords, clashes, modules, accessors) and
//!   Kubernetes' rules for API names.
//! - `emit`: model -> formatted Rust files; emitters import no other emitter but the
//!   leaf `resource`. Generated types derive `Clone`; the field-wise `clone_from` of
//!   `deepcopy` is for hand-written types with `#[derive(DeepCopy)]`. Generated structs
//!   implement `Serialize` and `Deserialize` through one `macro_rules!` defined in the
//!   tree's root module (a line a field), not serde's derive, which cost rustc twice the
//!   time.
//! - `output` and `diff`: writing files all-or-nothing, and `--verify`.
//! - `pipeline`: the whole pipeline in memory on sources already read (what
//!   [`Config::generate`] runs after reading the inputs).
//! - `testkit_tables`: the testkit API server's generated facts about built-in kinds.
//! - `kubernetes_inputs`: Kubernetes' OpenAPI documents pruned to what the built-in
//!   apply configurations and the testkit tables read, for a repository to commit.
//! - `wellknown`: the schemas `crd()` writes for numbers and k8s-openapi types, a
//!   generated table `kubegen crd` reads them from.
//! - `fuzz`: arbitrary bytes through each front-end and the whole pipeline, for the
//!   fuzz targets in `fuzz/` and the stable test that replays their inputs.
//!
//! The derives use the Rust front-end and the `resource` / `deepcopy` emitters directly
//! (one struct inside rustc, no files). Features:
//!
//! - `generator`: everything above but what the derives need. Without it (the derive
//!   crate's `default-features = false`) the library is the Rust front-end's reading of
//!   one derive input, `model`, `naming` and the `resource` / `deepcopy` emitters, so
//!   an operator's first build compiles a fraction of the crate and no YAML parser or
//!   formatter for the host; the public API above needs it.
//! - `cli` (default, implies `generator`): the `cargo-kubegen` binary (clap, mimalloc).
//!   The library has no kube dependency either way.
//!
//! Generated types depend on `serde`, `serde_json` and `k8s-openapi` only; each kind's
//! root type implements `k8s_openapi::{Resource, ListableResource, Metadata}`, which makes
//! it a `kube::Resource` through kube's blanket impl. Generated clients depend on the
//! `kubegen` facade.
//!
//! # Layers
//!
//! Front-ends -> model <- emitters: the two sides meet only in the model, no front-end or
//! emitter uses another (an emitter may use the leaf `emit::resource`), and the model and
//! naming know neither side. Each row's files (under `src/`; `dir/` is every file below
//! it) may use the rows it lists; each entry is a unit whose own files may use one
//! another, and the entries of one row may use each other only where the row lists
//! itself. A file is placed by its longest entry. Orchestration may use everything; test
//! code may too. `tests/codegen_layers.rs` reads this table and checks every path of the
//! library against it (a path through a re-export counts as a use of the file that
//! defines the item), and that no two files import each other, directly or around a
//! circle (a submodule using its parent does not count).
//!
//! | layer | files | may use |
//! |-------|-------|---------|
//! | orchestration | `lib.rs`, `config.rs`, `pipeline.rs`, `fuzz.rs`, `kubernetes_inputs.rs`, `bin/` | everything |
//! | output | `output.rs`, `diff.rs` | output, emit shared |
//! | scaffold | `scaffold/` | naming |
//! | testkit tables | `testkit_tables/` | emit shared |
//! | frontend door | `frontend/mod.rs` | front-ends, frontend shared, model, naming, wellknown, parallel |
//! | front-ends | `frontend/builtin.rs`, `frontend/crd/`, `frontend/openapi/`, `frontend/rust/` | frontend door, frontend shared, model, naming, wellknown, parallel |
//! | frontend shared | `frontend/schema/`, `frontend/suggest.rs`, `frontend/versions.rs` | frontend door, frontend shared, model, naming, wellknown, parallel |
//! | emit door | `emit/mod.rs` | emitters, emit leaf, emit shared, model, naming, wellknown, parallel |
//! | emitters | `emit/annotated/`, `emit/apply/`, `emit/clients/`, `emit/conversion/`, `emit/crd/`, `emit/deepcopy.rs`, `emit/types/` | emit leaf, emit shared, model, naming, wellknown, parallel |
//! | emit leaf | `emit/resource.rs` | emit shared, model, naming, wellknown, parallel |
//! | emit shared | `emit/common.rs`, `emit/docs.rs`, `emit/generated.rs`, `emit/printer.rs`, `emit/schema/`, `emit/serde_macro.rs` | emit shared, model, naming, wellknown, parallel |
//! | model | `model/` | naming, parallel |
//! | naming | `naming/` | nothing |
//! | wellknown | `wellknown/` | nothing |
//! | parallel | `parallel.rs` | nothing |
//!
//! The CRD-schema core (`kubegen_crd_schema`: the CRD envelope, structural rules, version
//! merge and shapes the facade's `crd()` builds with too) is a dependency, as serde_json
//! is, not a layer: `emit/crd/` and `emit/schema/` map the model onto it.
//!
//! The front doors (`frontend/mod.rs`: `load`, `Input`, `Source`, `Error`; `emit/mod.rs`)
//! run or re-export their side's modules; the binaries in `bin/` are crates of their own
//! over the public API and `__internal`. `output` writes and verifies what emitters made, the scaffold
//! renders templates with kubegen's names, and the testkit tables share only
//! `GeneratedFile` and `HEADER` with the crate.

#[cfg(feature = "generator")]
mod diff;
mod emit;
mod frontend;
#[cfg(feature = "generator")]
mod fuzz;
#[cfg(feature = "generator")]
mod kubernetes_inputs;
mod model;
mod naming;
#[cfg(feature = "generator")]
mod output;
mod parallel;
#[cfg(feature = "generator")]
mod scaffold;
#[cfg(feature = "generator")]
mod testkit_tables;
#[cfg(feature = "generator")]
mod wellknown;

#[cfg(feature = "generator")]
mod config;
#[cfg(feature = "generator")]
mod pipeline;

#[cfg(feature = "generator")]
pub use config::{Config, Error, Output, Refusal, Run, TypesStyle};
#[cfg(feature = "generator")]
pub use emit::crd::ConversionWebhook;
#[cfg(feature = "generator")]
pub use emit::{GeneratedFile, HEADER};
pub use frontend::{Versions, Warning};
pub use model::{ClientVerb, Location};
#[cfg(feature = "generator")]
pub use pipeline::{GeneratedKind, SAMPLE_CRD};

/// Not API: the generator's modules, for this repository's own binaries, tests,
/// benchmarks, fuzz targets, build scripts and derives. Anything here may change or go
/// in any release, patch releases included; use [`Config`](crate) and the items at the
/// crate root.
#[doc(hidden)]
pub mod __internal {
    /// Not API: see [`__internal`](self).
    pub mod emit {
        pub use crate::emit::*;
    }
    /// Not API: see [`__internal`](self).
    pub mod frontend {
        pub use crate::frontend::*;
    }
    /// Not API: see [`__internal`](self).
    pub mod model {
        pub use crate::model::*;
    }
    /// Not API: see [`__internal`](self).
    pub mod naming {
        pub use crate::naming::*;
    }
    /// Not API: see [`__internal`](self).
    #[cfg(feature = "generator")]
    pub mod diff {
        pub use crate::diff::*;
    }
    /// Not API: see [`__internal`](self).
    #[cfg(feature = "generator")]
    pub mod fuzz {
        pub use crate::fuzz::*;
    }
    /// Not API: see [`__internal`](self).
    #[cfg(feature = "generator")]
    pub mod output {
        pub use crate::output::*;
    }
    /// Not API: see [`__internal`](self).
    #[cfg(feature = "generator")]
    pub mod pipeline {
        pub use crate::pipeline::*;
    }
    /// Not API: see [`__internal`](self).
    #[cfg(feature = "generator")]
    pub mod scaffold {
        pub use crate::scaffold::*;
    }
    /// Not API: see [`__internal`](self).
    #[cfg(feature = "generator")]
    pub mod testkit_tables {
        pub use crate::testkit_tables::*;
    }
    /// Not API: see [`__internal`](self).
    #[cfg(feature = "generator")]
    pub mod kubernetes_inputs {
        pub use crate::kubernetes_inputs::*;
    }
    /// Not API: see [`__internal`](self).
    #[cfg(feature = "generator")]
    pub mod wellknown {
        pub use crate::wellknown::*;
    }
}
