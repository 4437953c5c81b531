//! The whole pipeline in memory: inputs -> one validated model -> the asked-for outputs.

/// A small CustomResourceDefinition (the samplecontroller `Foo` from
/// k8s.io/sample-controller), embedded for `kubegen demo`, docs and tests.
pub const SAMPLE_CRD: &str = include_str!("sample_crd.yaml");

use crate::emit::apply::ApplyOptions;
use crate::emit::clients::ClientOptions;
use crate::emit::conversion::ConversionOptions;
use crate::emit::{self, GeneratedFile};
use crate::frontend::{self, Input, Source};
use crate::{model, parallel};

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
    /// A kind's versions cannot be paired for conversions, or a named hub is wrong.
    #[error(transparent)]
    Conversion(#[from] emit::conversion::Error),
}

impl Error {
    /// Whether the inputs (not the generator) are at fault.
    pub fn is_input(&self) -> bool {
        match self {
            Error::Frontend(_) => true,
            Error::Conversion(e) => e.is_input(),
            Error::Emit(_) => false,
        }
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
    /// Emit the conversions of every kind with several versions, with these options.
    pub conversions: Option<ConversionOptions>,
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
    /// The conversions (empty unless [`Outputs::conversions`]).
    pub conversions: Vec<GeneratedFile>,
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
/// let outputs = Outputs { types: Some(Default::default()), clients: Some(ClientOptions::default()), ..Outputs::default() };
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
    let conversions = match &outputs.conversions {
        Some(options) => emit::conversion::generate_conversions(&model, options)?,
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
        conversions,
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
        ..Outputs::default()
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
        ..Outputs::default()
    };
    Ok(generate(&inputs, &outputs)?.types)
}
