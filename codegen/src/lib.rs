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
//!      └── emit::apply   (--apply-out: apply configurations of every kind) ◄────────────┘
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
//! - [`wellknown`]: the schemas `crd()` writes for numbers and k8s-openapi types, a
//!   generated table `kubegen crd` reads them from.
//! - [`fuzz`]: arbitrary bytes through each front-end and the whole pipeline, for the
//!   fuzz targets in `fuzz/` and the stable test that replays their inputs.
//!
//! [`generate`] runs the whole pipeline in memory; the derives use the Rust front-end and
//! the `resource` / `deepcopy` emitters directly. The library has no clap and no kube
//! dependency (the `cli` feature adds the binary), so the derive crate can use it with
//! `default-features = false`.
//!
//! Generated types depend on `serde`, `serde_json` and `k8s-openapi` only; each kind's
//! root type implements `k8s_openapi::{Resource, ListableResource, Metadata}`, which makes
//! it a `kube::Resource` through kube's blanket impl. Generated clients depend on the
//! `kubegen` facade.

pub mod diff;
pub mod emit;
pub mod frontend;
pub mod fuzz;
pub mod model;
pub mod naming;
pub mod output;
mod parallel;
pub mod scaffold;
pub mod testkit_tables;
pub mod wellknown;

/// A small CustomResourceDefinition (the samplecontroller `Foo` from
/// k8s.io/sample-controller), embedded for `kubegen demo`, docs and tests.
pub const SAMPLE_CRD: &str = include_str!("sample_crd.yaml");

use emit::GeneratedFile;
use emit::apply::ApplyOptions;
use emit::clients::ClientOptions;
use frontend::{Input, Source};

/// Why generation failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An input is unreadable or invalid (the message starts with `file:line:column:` when
    /// it names a place), or the selection matches nothing.
    #[error(transparent)]
    Frontend(#[from] frontend::Error),
    /// Emitting failed (an option is not a Rust path, or a front-end bug).
    #[error(transparent)]
    Emit(#[from] emit::Error),
}

impl Error {
    /// Whether the inputs (not the generator) are at fault.
    pub fn is_input(&self) -> bool {
        matches!(self, Error::Frontend(_))
    }
}

/// What to emit from the model: the types tree, the clients, or both.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outputs {
    /// Emit every generated type, with these crate paths.
    pub types: Option<emit::Options>,
    /// Emit the clientset, listers and informers of every kind, with these options.
    pub clients: Option<ClientOptions>,
    /// Emit the apply configurations of every kind with a field model, with these options.
    pub apply: Option<ApplyOptions>,
}

/// The files of one run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Generated {
    /// The types tree (empty unless [`Outputs::types`]).
    pub types: Vec<GeneratedFile>,
    /// The clients (empty unless [`Outputs::clients`]).
    pub clients: Vec<GeneratedFile>,
    /// The apply configurations (empty unless [`Outputs::apply`]).
    pub apply: Vec<GeneratedFile>,
}

/// The whole pipeline in memory: every input into one validated model, then each asked
/// for output. Nothing is written.
///
/// ```
/// use kubegen_codegen::{generate, Outputs, SAMPLE_CRD};
/// use kubegen_codegen::emit::clients::ClientOptions;
/// use kubegen_codegen::frontend::{Input, Source, builtin, crd};
///
/// let inputs = [
///     Input::Crd(&[Source::new("foo.yaml", SAMPLE_CRD)], crd::Options::default()),
///     Input::Kubernetes(&[], builtin::Options::default()),
/// ];
/// let outputs = Outputs { types: Some(Default::default()), clients: Some(ClientOptions::default()), apply: None };
/// let generated = generate(&inputs, &outputs)?;
/// assert!(generated.types.iter().all(|f| !f.path.starts_with("apps")), "built-in types are k8s-openapi's");
/// let clientset = &generated.clients[0].contents;
/// assert!(clientset.contains("pub fn samplecontroller_v1alpha1("));
/// assert!(clientset.contains("pub fn apps_v1("));
/// # Ok::<(), kubegen_codegen::Error>(())
/// ```
pub fn generate(inputs: &[Input<'_>], outputs: &Outputs) -> Result<Generated, Error> {
    // One large-stack thread for the whole run (the front-ends need one): the emitters'
    // workers then reuse the front-ends' threads' memory (see `parallel::map`).
    parallel::deep(|| generate_here(inputs, outputs))
}

fn generate_here(inputs: &[Input<'_>], outputs: &Outputs) -> Result<Generated, Error> {
    let mut model = frontend::load(inputs)?;
    if let Some(options) = &outputs.clients {
        frontend::set_client_verbs(&mut model, &options.kind_verbs)?;
    }
    let types = match &outputs.types {
        Some(options) => emit::generate(&model, options)?,
        None => Vec::new(),
    };
    let clients = match &outputs.clients {
        Some(options) => emit::clients::generate_clients(&model, options)?,
        None => Vec::new(),
    };
    let apply = match &outputs.apply {
        Some(options) => emit::apply::generate_apply(&model, options)?,
        None => Vec::new(),
    };
    // Freeing a large model is millions of small frees: spread over the threads as
    // building it was.
    let versions: Vec<model::Version> = model
        .groups
        .into_values()
        .flat_map(|group| group.versions.into_values())
        .collect();
    parallel::map_into(versions, drop);
    Ok(Generated {
        types,
        clients,
        apply,
    })
}

/// The types of CRD sources (every served version), all in memory.
///
/// ```
/// use kubegen_codegen::{frontend::Source, generate_from_crds, emit::Options, SAMPLE_CRD};
///
/// let files = generate_from_crds(&[Source::new("sample.yaml", SAMPLE_CRD)], &Options::default())?;
/// let foo = files.iter().find(|f| f.path.ends_with("/foo.rs")).unwrap();
/// assert!(foo.contents.starts_with("// @generated by kubegen "));
/// assert!(foo.contents.starts_with(kubegen_codegen::emit::HEADER));
/// assert!(foo.contents.contains("pub struct Foo {"));
/// # Ok::<(), kubegen_codegen::Error>(())
/// ```
pub fn generate_from_crds(
    sources: &[Source],
    options: &emit::Options,
) -> Result<Vec<GeneratedFile>, Error> {
    let inputs = [Input::Crd(sources, frontend::crd::Options::default())];
    let outputs = Outputs {
        types: Some(options.clone()),
        clients: None,
        apply: None,
    };
    Ok(generate(&inputs, &outputs)?.types)
}

/// The types of OpenAPI documents (v3 or v2) for the selected API groups, all in memory.
///
/// ```
/// use kubegen_codegen::{frontend::{Source, openapi}, generate_from_openapi, emit::Options};
///
/// let doc = r##"{"swagger": "2.0",
///   "paths": {"/apis/example.com/v1/gadgets/{name}": {"get": {"x-kubernetes-group-version-kind":
///     {"group": "example.com", "version": "v1", "kind": "Gadget"}}}},
///   "definitions": {"com.example.v1.Gadget": {
///     "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Gadget"}],
///     "properties": {"metadata": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
///                    "selector": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"}}},
///   "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {"properties": {"name": {"type": "string"}}},
///   "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector": {"properties": {"matchLabels": {"type": "object"}}}}}"##;
/// let files = generate_from_openapi(&[Source::new("swagger.json", doc)], &openapi::Options::default(), &Options::default())?;
/// let gadget = files.iter().find(|f| f.path == "example_com/v1/gadget.rs").unwrap();
/// assert!(gadget.contents.contains("::k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector"));
/// # Ok::<(), kubegen_codegen::Error>(())
/// ```
pub fn generate_from_openapi(
    sources: &[Source],
    selection: &frontend::openapi::Options,
    options: &emit::Options,
) -> Result<Vec<GeneratedFile>, Error> {
    let inputs = [Input::OpenApi(sources, selection.clone())];
    let outputs = Outputs {
        types: Some(options.clone()),
        clients: None,
        apply: None,
    };
    Ok(generate(&inputs, &outputs)?.types)
}
