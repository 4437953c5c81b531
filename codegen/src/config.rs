//! [`Config`]: the generator's front door, as prost-build's `Config`. It holds every
//! input, output and option of a run, [`Config::check`] holds every rule about how they
//! combine, [`Config::generate`] runs the pipeline ([`generate`](crate::pipeline::generate)) on it,
//! and the [`Run`] it returns writes or verifies the output directories. The CLI is a
//! parser that fills one; build scripts and tests fill one in code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use crate::emit::apply::ApplyOptions;
use crate::emit::clients::ClientOptions;
use crate::emit::conversion::ConversionOptions;
use crate::emit::crd::{ConversionWebhook, ManifestOptions};
use crate::emit::{self, GeneratedFile};
use crate::frontend::{self, Input, Source, Versions, Warning, builtin, crd, openapi, rust};
use crate::model::{ClientVerb, ClientVerbs};
use crate::output;
use crate::pipeline::{self, GeneratedKind, Outputs};

/// How the types of CRD kinds are written to [`Config::types_out`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TypesStyle {
    /// Generated code kubegen owns (DO NOT EDIT), rewritten by every run.
    #[default]
    Generated,
    /// Annotated `#[derive(Resource)]` sources the user owns and edits (migrating CRDs
    /// to Rust): `kubegen crd --rust` reads them back into the same CRDs.
    Derive,
}

/// One run of the generator: what it reads, what it writes where, and how.
///
/// ```
/// use kubegen_codegen::Config;
///
/// let dir = std::env::temp_dir().join(format!("kubegen-config-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("foo.yaml"), kubegen_codegen::SAMPLE_CRD)?;
/// let config = Config::new()
///     .crd(dir.join("foo.yaml"))
///     .types_out(dir.join("generated"))
///     .clients_out(dir.join("clients"));
/// config.check()?;
/// let run = config.generate()?;
/// assert_eq!(run.outputs.len(), 2);
/// assert!(run.outputs[1].files.iter().any(|f| f.path == "clientset.rs"));
/// run.write()?;
/// assert!(config.generate()?.verify()?.is_empty(), "just written: up to date");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Config {
    crds: Vec<Document>,
    openapi: Vec<Document>,
    rust: Option<PathBuf>,
    kubernetes: bool,
    kubernetes_openapi: Vec<PathBuf>,

    versions: Versions,
    rust_module: String,
    group: Option<String>,
    version: Option<String>,
    generate_referenced: bool,

    types_out: Option<PathBuf>,
    clients_out: Option<PathBuf>,
    apply_out: Option<PathBuf>,
    conversions_out: Option<PathBuf>,
    manifests_out: Option<PathBuf>,

    style: TypesStyle,
    types_module: String,
    facade_path: String,
    k8s_openapi_path: String,
    readonly_kinds: Vec<String>,
    kind_verbs: Vec<(String, BTreeSet<ClientVerb>)>,
    no_status_kinds: Vec<String>,
    conversion_hubs: Vec<(String, String)>,
    conversion_webhook: Option<ConversionWebhook>,
}

impl Default for Config {
    fn default() -> Self {
        Self::new()
    }
}

impl Config {
    /// No inputs, no outputs; served versions; the default module and crate paths
    /// (`crate::apis`, `crate::generated`, `::kubegen`, `::k8s_openapi`).
    pub fn new() -> Self {
        Self {
            crds: Vec::new(),
            openapi: Vec::new(),
            rust: None,
            kubernetes: false,
            kubernetes_openapi: Vec::new(),
            versions: Versions::default(),
            rust_module: "crate::apis".to_owned(),
            group: None,
            version: None,
            generate_referenced: false,
            types_out: None,
            clients_out: None,
            apply_out: None,
            conversions_out: None,
            manifests_out: None,
            style: TypesStyle::default(),
            types_module: "crate::generated".to_owned(),
            facade_path: "::kubegen".to_owned(),
            k8s_openapi_path: "::k8s_openapi".to_owned(),
            readonly_kinds: Vec::new(),
            kind_verbs: Vec::new(),
            no_status_kinds: Vec::new(),
            conversion_hubs: Vec::new(),
            conversion_webhook: None,
        }
    }

    // Inputs.

    /// Reads the CRDs of a file (YAML, possibly multi-document, or JSON) or a directory of
    /// them.
    pub fn crd(mut self, path: impl Into<PathBuf>) -> Self {
        self.crds.push(Document::File(path.into()));
        self
    }

    /// Reads the CRDs of `text` (YAML, possibly multi-document, or JSON), named `name` in
    /// messages: an input that is not a file (a build script's own CRD).
    pub fn crd_text(mut self, name: impl Into<String>, text: impl Into<String>) -> Self {
        self.crds.push(Document::Text(Source::new(name, text)));
        self
    }

    /// Reads an OpenAPI v3 (one group/version) or v2 document, or a directory of them.
    pub fn openapi(mut self, path: impl Into<PathBuf>) -> Self {
        self.openapi.push(Document::File(path.into()));
        self
    }

    /// Reads the OpenAPI document `text` (v3 or v2, JSON or YAML), named `name` in
    /// messages.
    pub fn openapi_text(mut self, name: impl Into<String>, text: impl Into<String>) -> Self {
        self.openapi.push(Document::Text(Source::new(name, text)));
        self
    }

    /// Reads the `#[derive(Resource)]` structs of a directory of Rust modules (with syn,
    /// nothing compiled), mounted at `module` (`crate::apis`).
    pub fn rust(mut self, dir: impl Into<PathBuf>, module: impl Into<String>) -> Self {
        self.rust = Some(dir.into());
        self.rust_module = module.into();
        self
    }

    /// Adds the built-in API groups, whose types are k8s-openapi's.
    pub fn kubernetes(mut self) -> Self {
        self.kubernetes = true;
        self
    }

    /// Reads Kubernetes' OpenAPI v3 documents (a file or directory) for the built-in
    /// kinds' fields (their apply configurations); needs [`kubernetes`](Self::kubernetes).
    pub fn kubernetes_openapi(mut self, path: impl Into<PathBuf>) -> Self {
        self.kubernetes_openapi.push(path.into());
        self
    }

    // Input options.

    /// Which versions of each kind to read.
    pub fn versions(mut self, versions: Versions) -> Self {
        self.versions = versions;
        self
    }

    /// Reads only this API group of the OpenAPI documents (`core` for the core group).
    pub fn openapi_group(mut self, group: impl Into<String>) -> Self {
        self.group = Some(group.into());
        self
    }

    /// Reads only this version of the OpenAPI documents' groups.
    pub fn openapi_version(mut self, version: impl Into<String>) -> Self {
        self.version = Some(version.into());
        self
    }

    /// Generates the definitions the selected OpenAPI groups use from other packages too,
    /// instead of naming k8s-openapi's types.
    pub fn generate_referenced(mut self, yes: bool) -> Self {
        self.generate_referenced = yes;
        self
    }

    // Outputs.

    /// Writes the types of CRD and OpenAPI kinds to `dir`.
    pub fn types_out(mut self, dir: impl Into<PathBuf>) -> Self {
        self.types_out = Some(dir.into());
        self
    }

    /// Writes the clientset, listers and informers of every kind to `dir`.
    pub fn clients_out(mut self, dir: impl Into<PathBuf>) -> Self {
        self.clients_out = Some(dir.into());
        self
    }

    /// Writes the apply configurations of every kind whose fields kubegen knows to `dir`.
    pub fn apply_out(mut self, dir: impl Into<PathBuf>) -> Self {
        self.apply_out = Some(dir.into());
        self
    }

    /// Writes the conversions of every kind with several versions to `dir`.
    pub fn conversions_out(mut self, dir: impl Into<PathBuf>) -> Self {
        self.conversions_out = Some(dir.into());
        self
    }

    /// Writes one CustomResourceDefinition YAML per kind of the Rust input to `dir`.
    pub fn manifests_out(mut self, dir: impl Into<PathBuf>) -> Self {
        self.manifests_out = Some(dir.into());
        self
    }

    // Output options.

    /// How the types of CRD kinds are written.
    pub fn style(mut self, style: TypesStyle) -> Self {
        self.style = style;
        self
    }

    /// The module path the types output is mounted at, named by clients, apply
    /// configurations and conversions.
    pub fn types_module(mut self, path: impl Into<String>) -> Self {
        self.types_module = path.into();
        self
    }

    /// The path of the `kubegen` facade in generated clients (`crate` inside kubegen).
    pub fn facade_path(mut self, path: impl Into<String>) -> Self {
        self.facade_path = path.into();
        self
    }

    /// The path of the k8s-openapi crate in generated types.
    pub fn k8s_openapi_path(mut self, path: impl Into<String>) -> Self {
        self.k8s_openapi_path = path.into();
        self
    }

    /// Gives the client of every kind named `kind` get, list and watch only.
    pub fn readonly_kind(mut self, kind: impl Into<String>) -> Self {
        self.readonly_kinds.push(kind.into());
        self
    }

    /// Gives the client of every kind named `kind` these verbs only.
    pub fn kind_verbs(mut self, kind: impl Into<String>, verbs: BTreeSet<ClientVerb>) -> Self {
        self.kind_verbs.push((kind.into(), verbs));
        self
    }

    /// Leaves the status verbs out of the client of every kind named `kind`.
    pub fn no_status_verbs(mut self, kind: impl Into<String>) -> Self {
        self.no_status_kinds.push(kind.into());
        self
    }

    /// Converts `kind` (or `kind.group`) through `version` instead of its storage version.
    pub fn conversion_hub(mut self, kind: impl Into<String>, version: impl Into<String>) -> Self {
        self.conversion_hubs.push((kind.into(), version.into()));
        self
    }

    /// Makes the CRD of every kind with several versions convert through `webhook`.
    pub fn conversion_webhook(mut self, webhook: ConversionWebhook) -> Self {
        self.conversion_webhook = Some(webhook);
        self
    }

    // The run.

    /// Why these inputs, outputs and options cannot work together, if they cannot: every
    /// rule about combinations, checked before anything is read.
    pub fn check(&self) -> Result<(), Refusal> {
        self.client_verbs().map_err(Refusal::conflict)?;
        if self.manifests_out.is_some() {
            return self.check_manifests();
        }
        if self.conversion_webhook.is_some() {
            return Err(Refusal::missing(
                "a conversion webhook is written into CRD manifests: it needs the manifests \
output (`kubegen crd`)",
            ));
        }
        if self.style == TypesStyle::Derive {
            self.check_derive_style()?;
        }
        let generates_types = self.generates_types();
        let existing_types = self.rust.is_some() || self.kubernetes;
        if !generates_types && !existing_types {
            return Err(Refusal::missing(
                "nothing to generate from: give --crd, --openapi, --rust or --kubernetes",
            ));
        }
        if !self.kubernetes_openapi.is_empty() && !self.kubernetes {
            return Err(Refusal::missing(
                "--kubernetes-openapi gives the built-in kinds' fields: it needs --kubernetes",
            ));
        }
        let outputs = self.outputs();
        if outputs.iter().all(|(_, dir)| dir.is_none()) {
            return Err(Refusal::missing(
                "nowhere to write: give --out (types), --clients-out (clientset, listers, \
informers), --apply-out (apply configurations) and/or --conversions-out (conversions)",
            ));
        }
        let converts_generated = generates_types && self.types_out.is_some();
        let converts_rust = self.rust.is_some();
        if self.conversions_out.is_some()
            && (!(converts_generated || converts_rust)
                || (generates_types && self.types_out.is_none()))
        {
            return Err(Refusal::missing(
                "--conversions-out converts between the versions of the types kubegen generates \
from --crd and --openapi into --out (mounted at --types-module), and of --rust structs: give them",
            ));
        }
        if self.types_out.is_some() && !generates_types {
            return Err(Refusal::conflict(
                "--out writes the types kubegen generates from --crd and --openapi; the kinds of \
--rust and --kubernetes have their types already (your structs, k8s-openapi's): write their \
clients with --clients-out",
            ));
        }
        if existing_types
            && self.clients_out.is_none()
            && self.apply_out.is_none()
            && self.conversions_out.is_none()
        {
            return Err(Refusal::missing(
                "--rust and --kubernetes kinds only get clients (their types exist already): \
give --clients-out (and/or --apply-out, and --conversions-out for --rust kinds)",
            ));
        }
        let names_types = self.clients_out.is_some() || self.apply_out.is_some();
        if generates_types && names_types && self.types_out.is_none() {
            return Err(Refusal::missing(
                "clients of --crd and --openapi kinds name the types generated into --out \
(mounted at --types-module), and so do their apply configurations: give --out too",
            ));
        }
        separate_directories(&outputs)?;
        if self.versions == Versions::Storage && !self.openapi.is_empty() {
            return Err(Refusal::conflict(
                "--versions storage cannot select from --openapi: OpenAPI documents do not say \
which version is the storage version (name the versions, or use `served`)",
            ));
        }
        Ok(())
    }

    /// The rules of a manifests run (`kubegen crd`): Rust input only, no other output.
    fn check_manifests(&self) -> Result<(), Refusal> {
        if self.rust.is_none() {
            return Err(Refusal::missing(
                "CRD manifests are written for #[derive(Resource)] structs: give --rust",
            ));
        }
        let others = self.outputs().iter().any(|(_, dir)| dir.is_some());
        if others || self.generates_types() || self.kubernetes {
            return Err(Refusal::conflict(
                "`kubegen crd` writes the manifests of --rust kinds only; generate code with \
`kubegen generate`",
            ));
        }
        Ok(())
    }

    /// The rules of `--style derive`: CRDs in, annotated sources out, nothing else.
    fn check_derive_style(&self) -> Result<(), Refusal> {
        let others = [
            ("--openapi", !self.openapi.is_empty()),
            ("--rust", self.rust.is_some()),
            ("--kubernetes", self.kubernetes),
            ("--clients-out", self.clients_out.is_some()),
            ("--apply-out", self.apply_out.is_some()),
            ("--conversions-out", self.conversions_out.is_some()),
        ];
        if let Some((name, _)) = others.iter().find(|(_, given)| *given) {
            return Err(Refusal::conflict(format!(
                "--style derive writes the types of --crd kinds to --out as sources you own \
(then `kubegen crd --rust` and `generate --rust` take over); it cannot be combined with {name}"
            )));
        }
        if self.crds.is_empty() || self.types_out.is_none() {
            return Err(Refusal::missing(
                "--style derive needs --crd (the CRDs to migrate) and --out (where the \
annotated sources go)",
            ));
        }
        Ok(())
    }

    /// Checks, reads the inputs and generates every output in memory, in the order types,
    /// clients, apply configurations, conversions, manifests. Nothing is written: the
    /// [`Run`] writes or verifies.
    pub fn generate(&self) -> Result<Run, Error> {
        self.check()?;
        let crds = read(&self.crds)?;
        let documents = read(&self.openapi)?;
        let structs = match &self.rust {
            Some(dir) => rust::read_dir(dir).map_err(Kind::Input)?,
            None => Vec::new(),
        };
        let kubernetes = frontend::read_sources(&self.kubernetes_openapi).map_err(Kind::Input)?;
        let inputs = self.inputs(&crds, &documents, &structs, &kubernetes);
        if let Some(dir) = &self.manifests_out {
            // `check` let only the Rust input through, whose schemas are read for manifests.
            let loaded = frontend::load(&inputs, &BTreeMap::new()).map_err(Kind::Input)?;
            let options = ManifestOptions {
                conversion: self.conversion_webhook.clone(),
            };
            let files =
                emit::crd::manifests(&loaded.model, &options).map_err(Kind::Unrepresentable)?;
            let output = Output::new(dir, files);
            return Ok(Run::new(vec![output], Vec::new(), loaded.warnings));
        }
        if let (TypesStyle::Derive, Some(dir)) = (self.style, &self.types_out) {
            let loaded = frontend::load(&inputs, &BTreeMap::new()).map_err(Kind::Input)?;
            let files = emit::annotated::generate(&loaded.model).map_err(Kind::Unrepresentable)?;
            let kinds = pipeline::generated_kinds(&loaded.model);
            return Ok(Run::new(
                vec![Output::new(dir, files)],
                kinds,
                loaded.warnings,
            ));
        }
        let generated = pipeline::generate(&inputs, &self.emitters()).map_err(Kind::Generate)?;
        let outputs = [
            (&self.types_out, generated.types),
            (&self.clients_out, generated.clients),
            (&self.apply_out, generated.apply),
            (&self.conversions_out, generated.conversions),
        ];
        let outputs = outputs
            .into_iter()
            .filter_map(|(dir, files)| dir.as_ref().map(|dir| Output::new(dir, files)))
            .collect();
        Ok(Run::new(outputs, generated.kinds, generated.warnings))
    }

    fn generates_types(&self) -> bool {
        !self.crds.is_empty() || !self.openapi.is_empty()
    }

    /// The code outputs by their flags.
    fn outputs(&self) -> [(&'static str, &Option<PathBuf>); 4] {
        [
            ("--out", &self.types_out),
            ("--clients-out", &self.clients_out),
            ("--apply-out", &self.apply_out),
            ("--conversions-out", &self.conversions_out),
        ]
    }

    /// The client verb sets by kind, or why they contradict each other.
    fn client_verbs(&self) -> Result<BTreeMap<String, ClientVerbs>, String> {
        let mut sets = BTreeMap::new();
        let readonly = self
            .readonly_kinds
            .iter()
            .map(|k| (k, ClientVerbs::read_only()));
        let listed = self.kind_verbs.iter().map(|(k, verbs)| {
            let set = ClientVerbs {
                verbs: verbs.clone(),
                no_status: false,
            };
            (k, set)
        });
        for (kind, set) in readonly.chain(listed) {
            if sets.insert(kind.clone(), set).is_some() {
                return Err(format!(
                    "kind `{kind}` is given two verb sets (--readonly-kind, --verbs): give one"
                ));
            }
        }
        for kind in &self.no_status_kinds {
            sets.entry(kind.clone())
                .or_insert_with(ClientVerbs::default)
                .no_status = true;
        }
        Ok(sets)
    }

    fn inputs<'a>(
        &self,
        crds: &'a [Source],
        documents: &'a [Source],
        structs: &'a [Source],
        kubernetes: &'a [Source],
    ) -> Vec<Input<'a>> {
        let versions = &self.versions;
        let mut inputs = Vec::new();
        if !self.crds.is_empty() {
            inputs.push(Input::Crd(
                crds,
                crd::Options::default().versions(versions.clone()),
            ));
        }
        if !self.openapi.is_empty() {
            let options = openapi::Options {
                group: self.group.clone(),
                version: self.version.clone(),
                generate_referenced: self.generate_referenced,
                versions: versions.clone(),
            };
            inputs.push(Input::OpenApi(documents, options));
        }
        if self.rust.is_some() {
            let options = rust::Options::default()
                .module(self.rust_module.clone())
                .versions(versions.clone())
                .apply_types(self.apply_out.is_some())
                .conversions(self.conversions_out.is_some())
                .schemas(self.manifests_out.is_some());
            inputs.push(Input::Rust(structs, options));
        }
        if self.kubernetes {
            let options = builtin::Options::default().versions(versions.clone());
            inputs.push(Input::Kubernetes(kubernetes, options));
        }
        inputs
    }

    /// What the pipeline emits, with which options.
    fn emitters(&self) -> Outputs {
        let paths = emit::Options {
            k8s_openapi: self.k8s_openapi_path.clone(),
            ..emit::Options::default()
        };
        Outputs {
            types: self.types_out.as_ref().map(|_| paths.clone()),
            clients: self.clients_out.as_ref().map(|_| ClientOptions {
                facade: self.facade_path.clone(),
                types_module: self.types_module.clone(),
                // `check` has refused contradictory sets.
                kind_verbs: self.client_verbs().unwrap_or_default(),
            }),
            apply: self.apply_out.as_ref().map(|_| {
                ApplyOptions::default()
                    .facade(self.facade_path.clone())
                    .types_module(self.types_module.clone())
            }),
            conversions: self.conversions_out.as_ref().map(|_| {
                let options = ConversionOptions::default()
                    .types_module(self.types_module.clone())
                    .crate_paths(paths.clone());
                self.conversion_hubs
                    .iter()
                    .fold(options, |options, (kind, version)| {
                        options.hub(kind, version)
                    })
            }),
        }
    }
}

/// What a [`Config`] generated: the files of each output directory, the kinds whose
/// types it generated, and the warnings about the inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// The output directories, in the order types, clients, apply configurations,
    /// conversions, manifests.
    pub outputs: Vec<Output>,
    /// The kinds whose types kubegen generates (CRD and OpenAPI inputs), with the path of
    /// each type below the types output, in API group and version order.
    pub kinds: Vec<GeneratedKind>,
    /// What the inputs hold that works but is advised against (`file:line:column:
    /// warning: ...`), whatever the outputs.
    pub warnings: Vec<Warning>,
}

impl Run {
    fn new(outputs: Vec<Output>, kinds: Vec<GeneratedKind>, warnings: Vec<Warning>) -> Self {
        Self {
            outputs,
            kinds,
            warnings,
        }
    }

    /// Writes every output directory; stops at the first that fails.
    pub fn write(&self) -> Result<(), Error> {
        self.outputs.iter().try_for_each(Output::write)
    }

    /// The unified diff of every stale output directory (none: all up to date).
    pub fn verify(&self) -> Result<Vec<(PathBuf, String)>, Error> {
        let mut stale = Vec::new();
        for output in &self.outputs {
            if let Some(diff) = output.verify()? {
                stale.push((output.dir.clone(), diff));
            }
        }
        Ok(stale)
    }
}

/// The files of one output directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    /// The directory, as configured.
    pub dir: PathBuf,
    /// Its files, paths relative to it.
    pub files: Vec<GeneratedFile>,
}

impl Output {
    fn new(dir: &Path, files: Vec<GeneratedFile>) -> Self {
        Self {
            dir: dir.to_owned(),
            files,
        }
    }

    /// Replaces the directory with the files, swapped in only once complete; a
    /// non-empty directory kubegen did not write is refused.
    pub fn write(&self) -> Result<(), Error> {
        output::write_all(&self.dir, &self.files).map_err(Kind::Output)?;
        Ok(())
    }

    /// The unified diff from what the directory holds to the files, or `None` when it is
    /// up to date.
    pub fn verify(&self) -> Result<Option<String>, Error> {
        let diff = output::verify(&self.dir, &self.files).map_err(Kind::Output)?;
        Ok((!diff.is_empty()).then_some(diff))
    }
}

/// Why a [`Config`] cannot run: an input or output missing for what was asked, or two
/// settings that contradict each other.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Refusal {
    /// Whether something is missing (rather than contradicting).
    pub missing: bool,
    /// Why, naming the CLI flags.
    pub message: String,
}

impl Refusal {
    fn missing(message: impl Into<String>) -> Self {
        Self {
            missing: true,
            message: message.into(),
        }
    }

    fn conflict(message: impl Into<String>) -> Self {
        Self {
            missing: false,
            message: message.into(),
        }
    }
}

/// Why a [`Config`] run, or writing or verifying what it generated, failed. Its message
/// says what and where (`file:line:column: ...` for an input error).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct Error(#[from] Kind);

/// What failed, kept private so that the generator's internal errors are not API.
#[derive(Debug, thiserror::Error)]
enum Kind {
    /// The configuration cannot work.
    #[error(transparent)]
    Refused(Refusal),
    /// An input could not be read or is invalid.
    #[error(transparent)]
    Input(frontend::Error),
    /// Generation failed.
    #[error(transparent)]
    Generate(pipeline::Error),
    /// The inputs hold what the output cannot express (a CRD manifest, annotated
    /// sources).
    #[error(transparent)]
    Unrepresentable(emit::Error),
    /// An output directory could not be written or compared.
    #[error(transparent)]
    Output(output::Error),
}

impl From<Refusal> for Error {
    fn from(refusal: Refusal) -> Self {
        Error(Kind::Refused(refusal))
    }
}

impl Error {
    /// Whether the inputs or the configuration (not the generator or the file system) are
    /// at fault.
    pub fn is_input(&self) -> bool {
        match &self.0 {
            Kind::Refused(_) | Kind::Input(_) | Kind::Unrepresentable(_) => true,
            Kind::Generate(e) => e.is_input(),
            Kind::Output(_) => false,
        }
    }

    /// The refusal, when the configuration could not work ([`Config::check`]).
    pub fn refusal(&self) -> Option<&Refusal> {
        match &self.0 {
            Kind::Refused(refusal) => Some(refusal),
            _ => None,
        }
    }
}

/// An input given by path or as text.
#[derive(Clone, Debug)]
enum Document {
    /// A file or a directory of files.
    File(PathBuf),
    /// A text already read.
    Text(Source),
}

/// The sources of `documents`, in order: files read (directories expanded), texts as
/// given.
fn read(documents: &[Document]) -> Result<Vec<Source>, Error> {
    let mut sources = Vec::new();
    let mut paths = Vec::new();
    for document in documents {
        match document {
            Document::File(path) => paths.push(path.clone()),
            Document::Text(source) => {
                // The files before it, read together (in parallel).
                sources.extend(frontend::read_sources(&paths).map_err(Kind::Input)?);
                paths.clear();
                sources.push(source.clone());
            }
        }
    }
    sources.extend(frontend::read_sources(&paths).map_err(Kind::Input)?);
    Ok(sources)
}

/// Refuses two output directories of which one is, or is inside, the other: each is
/// replaced as a whole.
fn separate_directories(outputs: &[(&'static str, &Option<PathBuf>)]) -> Result<(), Refusal> {
    for (i, (a, first)) in outputs.iter().enumerate() {
        for (b, second) in &outputs[i + 1..] {
            let (Some(first), Some(second)) = (first, second) else {
                continue;
            };
            let (first, second) = (absolute(first), absolute(second));
            if first.starts_with(&second) || second.starts_with(&first) {
                return Err(Refusal::conflict(format!(
                    "{a} and {b} must be separate directories, neither inside the other: each \
is replaced as a whole"
                )));
            }
        }
    }
    Ok(())
}

/// `path` made absolute against the current directory, with `.` and `..` resolved
/// lexically (the directories may not exist yet).
fn absolute(path: &Path) -> PathBuf {
    let joined = std::env::current_dir()
        .map(|cwd| cwd.join(path))
        .unwrap_or_else(|_| path.to_owned());
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(config: &Config) -> String {
        match config.check() {
            Ok(()) => panic!("expected a refusal"),
            Err(refusal) => refusal.message,
        }
    }

    #[test]
    fn every_combination_rule_is_checked_before_reading() {
        let crd = || Config::new().crd("crds/");
        assert!(refusal(&Config::new().types_out("out")).starts_with("nothing to generate from"));
        assert!(refusal(&crd()).starts_with("nowhere to write"));
        assert!(refusal(&crd().clients_out("clients")).contains("give --out too"));
        assert!(refusal(&Config::new().kubernetes().types_out("out")).starts_with("--out writes"));
        assert!(refusal(&crd().types_out("out").clients_out("out/clients")).contains("separate"));
        let twice = crd()
            .types_out("out")
            .clients_out("clients")
            .readonly_kind("Foo")
            .kind_verbs("Foo", BTreeSet::from([ClientVerb::Get]));
        assert!(refusal(&twice).contains("two verb sets"));
        let manifests = Config::new().manifests_out("config/crd");
        assert!(refusal(&manifests).contains("give --rust"));
        let webhook = crd()
            .types_out("out")
            .conversion_webhook(ConversionWebhook::service("ns", "svc"));
        assert!(refusal(&webhook).contains("manifests"));
        assert_eq!(
            crd().types_out("out").clients_out("clients").check(),
            Ok(())
        );
        assert_eq!(
            Config::new()
                .rust("src/apis", "crate::apis")
                .manifests_out("config/crd")
                .check(),
            Ok(())
        );
    }

    #[test]
    fn a_text_is_an_input_as_a_file_is_and_the_run_names_its_kinds() {
        let config = || Config::new().types_out("generated");
        let run = config()
            .crd_text("foo.yaml", crate::SAMPLE_CRD)
            .generate()
            .expect("the sample CRD generates");
        let foo = GeneratedKind {
            group: "samplecontroller.k8s.io".to_owned(),
            version: "v1alpha1".to_owned(),
            kind: "Foo".to_owned(),
            type_path: "samplecontroller_k8s_io::v1alpha1::Foo".to_owned(),
        };
        assert_eq!(run.kinds, [foo]);
        assert_eq!(run.outputs.len(), 1);
        assert_eq!(run.outputs[0].dir, Path::new("generated"));
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/sample_crd.yaml");
        let from_file = config().crd(file).generate().expect("the same CRD, read");
        assert_eq!(from_file.outputs, run.outputs);
        let error = config()
            .crd_text("bad.yaml", "kind: [")
            .generate()
            .expect_err("not YAML");
        assert!(error.is_input() && error.refusal().is_none());
        assert!(error.to_string().starts_with("bad.yaml:1:"), "{error}");
    }

    /// The places of the warnings of `tests/fixtures/rust/backups`, relative to it.
    fn warning_places(run: &Run) -> Vec<String> {
        run.warnings
            .iter()
            .map(|w| {
                let at = Path::new(&w.at.file);
                let file = at.file_name().unwrap_or_default().to_string_lossy();
                format!("{file}:{}:{}", w.at.line, w.at.column)
            })
            .collect()
    }

    #[test]
    fn the_warnings_of_rust_input_reach_the_run() {
        let backups = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rust/backups");
        let rust = || Config::new().rust(&backups, "crate::apis");
        let places = [
            "v1.rs:45:25",
            "v1.rs:47:28",
            "v1.rs:58:27",
            "v1.rs:106:19",
            "v1.rs:109:15",
        ];
        let manifests = rust().manifests_out("config/crd").generate();
        assert_eq!(warning_places(&manifests.expect("manifests")), places);
        // The Rust front-end warns when it reads schemas for manifests; apply
        // configurations and clients read fields as Rust types, with nothing to advise.
        let apply = rust().apply_out("apply").clients_out("clients").generate();
        assert!(apply.expect("apply configurations").warnings.is_empty());
    }

    #[test]
    fn a_refusal_is_an_input_error_that_says_so() {
        let error = Config::new().generate().expect_err("nothing to generate");
        assert!(error.is_input());
        let refusal = error.refusal().expect("refused before reading");
        assert!(refusal.missing);
        assert_eq!(error.to_string(), refusal.message);
    }

    #[test]
    fn a_missing_input_is_an_input_error_naming_it() {
        let config = Config::new()
            .crd("/nonexistent/kubegen/crds")
            .types_out("/nonexistent/kubegen/out");
        let error = config.generate().expect_err("no such input");
        assert!(error.is_input());
        assert!(
            error.to_string().contains("/nonexistent/kubegen/crds"),
            "{error}"
        );
    }
}
