//! The whole pipeline in memory: inputs -> one validated model -> the asked-for outputs.

/// A small CustomResourceDefinition (the samplecontroller `Foo` from
/// k8s.io/sample-controller), embedded for `kubegen demo`, docs and tests.
pub const SAMPLE_CRD: &str = include_str!("sample_crd.yaml");

use crate::emit::apply::ApplyOptions;
use crate::emit::clients::ClientOptions;
use crate::emit::conversion::ConversionOptions;
use crate::emit::{self, GeneratedFile};
use crate::frontend::{self, Input, Source, Warning};
use crate::model::{Model, RootType};
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
    /// The kinds whose types the run generates (from CRDs and OpenAPI documents), in
    /// model order, whether or not [`Outputs::types`] asked for them.
    pub kinds: Vec<GeneratedKind>,
    /// What the inputs hold that works but is advised against, in input order.
    pub warnings: Vec<Warning>,
}

/// A kind whose Rust type kubegen generates, and where the type is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedKind {
    /// The API group (empty for the core group).
    pub group: String,
    /// The version (`v1alpha1`).
    pub version: String,
    /// The kind (`Foo`).
    pub kind: String,
    /// The path of its root type below the types output's module,
    /// `<group module>::<version module>::<Type>` (`samplecontroller_k8s_io::v1alpha1::Foo`).
    pub type_path: String,
}

/// The kinds of `model` whose root type is generated, with the paths of those types.
pub(crate) fn generated_kinds(model: &Model) -> Vec<GeneratedKind> {
    let mut kinds = Vec::new();
    for (group, version) in model.versions() {
        for kind in version.kinds.values() {
            if let RootType::Generated(name) = &kind.root {
                kinds.push(GeneratedKind {
                    group: group.name.clone(),
                    version: version.name.clone(),
                    kind: kind.name.clone(),
                    type_path: format!("{}::{}::{name}", group.module, version.module),
                });
            }
        }
    }
    kinds
}

/// The whole pipeline in memory: every input into one validated model, then each asked
/// for output. Nothing is written.
///
/// ```
/// use kubegen_codegen::SAMPLE_CRD;
/// use kubegen_codegen::__internal::pipeline::{generate, Outputs};
/// use kubegen_codegen::__internal::emit::clients::ClientOptions;
/// use kubegen_codegen::__internal::frontend::{Input, Source, builtin, crd};
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
/// # Ok::<(), kubegen_codegen::__internal::pipeline::Error>(())
/// ```
pub fn generate(inputs: &[Input<'_>], outputs: &Outputs) -> Result<Generated, Error> {
    // One large-stack thread for the whole run (the front-ends need one): the emitters'
    // workers then reuse the front-ends' threads' memory (see `parallel::map`).
    parallel::deep(|| generate_here(inputs, outputs))
}

fn generate_here(inputs: &[Input<'_>], outputs: &Outputs) -> Result<Generated, Error> {
    let no_verbs = Default::default();
    let client_verbs = match &outputs.clients {
        Some(options) => &options.kind_verbs,
        None => &no_verbs,
    };
    let frontend::Loaded { model, warnings } = frontend::load(inputs, client_verbs)?;
    let kinds = generated_kinds(&model);
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
        kinds,
        warnings,
    })
}

/// The types of CRD sources (every served version), all in memory.
///
/// ```
/// use kubegen_codegen::SAMPLE_CRD;
/// use kubegen_codegen::__internal::{frontend::Source, pipeline::generate_from_crds, emit::Options};
///
/// let files = generate_from_crds(&[Source::new("sample.yaml", SAMPLE_CRD)], &Options::default())?;
/// let foo = files.iter().find(|f| f.path.ends_with("/foo.rs")).unwrap();
/// assert!(foo.contents.starts_with("// @generated by kubegen "));
/// assert!(foo.contents.starts_with(kubegen_codegen::HEADER));
/// assert!(foo.contents.contains("pub struct Foo {"));
/// # Ok::<(), kubegen_codegen::__internal::pipeline::Error>(())
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
/// use kubegen_codegen::__internal::{frontend::{Source, openapi}, pipeline::generate_from_openapi, emit::Options};
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
/// # Ok::<(), kubegen_codegen::__internal::pipeline::Error>(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::clients::ClientOptions;
    use crate::frontend::rust;

    #[test]
    fn the_warnings_of_every_input_come_with_the_files() {
        let text = r#"
            #[derive(Clone, Debug, kubegen::Resource)]
            #[resource(group = "example.com", version = "v1")]
            pub struct Gauge { pub metadata: ObjectMeta, pub spec: GaugeSpec }
            pub struct GaugeSpec { pub count: u32 }
        "#;
        let structs = [Source::new("example/v1.rs", text)];
        let crds = [Source::new("foo.yaml", SAMPLE_CRD)];
        let inputs = [
            Input::Crd(&crds, frontend::crd::Options::default()),
            Input::Rust(&structs, rust::Options::default().schemas(true)),
        ];
        let outputs = Outputs {
            types: Some(emit::Options::default()),
            clients: Some(ClientOptions::default()),
            ..Outputs::default()
        };
        let generated = generate(&inputs, &outputs).expect("both inputs generate");
        assert!(!generated.clients.is_empty());
        assert_eq!(generated.warnings.len(), 1, "{:?}", generated.warnings);
        assert!(generated.warnings[0].message.starts_with("`u32`"));
        let kinds: Vec<&str> = generated.kinds.iter().map(|k| k.kind.as_str()).collect();
        assert_eq!(
            kinds,
            ["Foo"],
            "hand-written kinds have their types already"
        );
    }
}
