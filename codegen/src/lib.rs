//! kubegen-codegen: the code generator behind the `kubegen` CLI and the derives.
//!
//! One pipeline, whatever the inputs:
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
//! - [`frontend`]: inputs -> model. Every front-end has the same entry point,
//!   `load(model, [sources,] options)`, selects versions ([`frontend::Versions`]), and ends
//!   in [`Model::validate`](model::Model::validate); [`frontend::load`] runs any mix of
//!   them into one model.
//! - [`model`]: the owned IR and the only contract between front-ends and emitters: groups
//!   -> versions -> kinds (names, scope, subresources, printer columns, where the kind's
//!   Rust type lives, where its names were written) and the type model; plus the shape
//!   `#[derive(DeepCopy)]` reads. [`Model::validate`](model::Model::validate) enforces
//!   Kubernetes' naming rules (`file:line:column` errors) and what emitters rely on.
//! - [`naming`]: every identifier rule (casing, keywords, clashes, modules, accessors) and
//!   Kubernetes' rules for API names.
//! - [`emit`]: model -> formatted Rust files; emitters import no other emitter but the
//!   leaf `resource`. Generated types derive `Clone`; the field-wise `clone_from` of
//!   `deepcopy` is for hand-written types with `#[derive(DeepCopy)]`. Generated structs
//!   implement `Serialize` and `Deserialize` through one `macro_rules!` defined in the
//!   tree's root module (a line a field), not serde's derive, which cost rustc twice the
//!   time.
//! - [`output`] and [`diff`]: writing files all-or-nothing, and `--verify`.
//! - [`testkit_tables`]: the testkit API server's generated facts about built-in kinds.
//! - [`kubernetes_inputs`]: Kubernetes' OpenAPI documents pruned to what the built-in
//!   apply configurations and the testkit tables read, for a repository to commit.
//! - [`wellknown`]: the schemas `crd()` writes for numbers and k8s-openapi types, a
//!   generated table `kubegen crd` reads them from.
//! - [`fuzz`]: arbitrary bytes through each front-end and the whole pipeline, for the
//!   fuzz targets in `fuzz/` and the stable test that replays their inputs.
//!
//! [`Config`] is the front door: every input, output and option of a run, the rules of
//! how they combine ([`Config::check`]), and the run ([`Config::generate`], `write`,
//! `verify`); the CLI only fills one. [`generate`] is the pipeline it runs, in memory,
//! on sources already read; the derives use the Rust front-end and the `resource` /
//! `deepcopy` emitters directly (one struct inside rustc, no files). Features:
//!
//! - `generator`: everything above but what the derives need. Without it (the derive
//!   crate's `default-features = false`) the library is the Rust front-end's reading of
//!   one derive input, [`model`], [`naming`] and the `resource` / `deepcopy` emitters, so
//!   an operator's first build compiles a fraction of the crate and no YAML parser or
//!   formatter for the host.
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
//! over the public API. `output` writes and verifies what emitters made, the scaffold
//! renders templates with kubegen's names, and the testkit tables share only
//! `GeneratedFile` and `HEADER` with the crate.

#[cfg(feature = "generator")]
pub mod diff;
pub mod emit;
pub mod frontend;
#[cfg(feature = "generator")]
pub mod fuzz;
#[cfg(feature = "generator")]
pub mod kubernetes_inputs;
pub mod model;
pub mod naming;
#[cfg(feature = "generator")]
pub mod output;
mod parallel;
#[cfg(feature = "generator")]
pub mod scaffold;
#[cfg(feature = "generator")]
pub mod testkit_tables;
#[cfg(feature = "generator")]
pub mod wellknown;

#[cfg(feature = "generator")]
pub mod config;
#[cfg(feature = "generator")]
mod pipeline;

#[cfg(feature = "generator")]
pub use config::Config;
#[cfg(feature = "generator")]
pub use pipeline::{
    Error, Generated, Outputs, SAMPLE_CRD, generate, generate_from_crds, generate_from_openapi,
};
