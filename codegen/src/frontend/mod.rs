//! Front-ends: read inputs and build the [model](crate::model).
//!
//! | front-end   | input                                               | kinds' Rust types        |
//! |-------------|-----------------------------------------------------|--------------------------|
//! | [`crd`]     | CustomResourceDefinition YAML or JSON               | generated from the schemas |
//! | [`openapi`] | Kubernetes OpenAPI v3 and v2 (swagger) documents    | generated from the schemas |
//! | [`rust`]    | `#[derive(Resource)]` structs, read with syn        | the structs themselves   |
//! | [`builtin`] | the built-in API groups (a committed table)         | k8s-openapi's            |
//!
//! Every front-end has the same entry point, `load(model, [sources,] options)`: it adds
//! the kinds of the selected [`Versions`] (and, for CRDs and OpenAPI, their types) to a
//! [`Model`] and ends in [`Model::validate`], so every path into the emitters goes through
//! Kubernetes' naming rules. The Rust front-end's also returns its [`Warning`]s (fields
//! whose schema it reads exactly but API conventions advise against). Errors are one [`Error`] for all of them; input errors print
//! as `file:line:column: what was expected`. The CRD and OpenAPI front-ends share the
//! JSON-schema layer ([`schema`]), which belongs to neither.
//!
//! [`load`] is the pipeline's first half: any mix of [`Input`]s into one validated model,
//! final once returned (the client verb sets are written before the last check), with
//! every front-end's warnings. Inputs are [`Source`]s (a display name and the text), so front-ends never touch the file
//! system themselves; [`read_sources`] and [`rust::read_dir`] read files for the CLI.
//!
//! ```
//! use kubegen_codegen::__internal::frontend::{self, Input, Source, crd, builtin};
//!
//! let inputs = [
//!     Input::Crd(&[Source::new("foo.yaml", kubegen_codegen::SAMPLE_CRD)], crd::Options::default()),
//!     Input::Kubernetes(&[], builtin::Options::default()),
//! ];
//! let model = frontend::load(&inputs, &Default::default())?.model;
//! assert!(model.groups.contains_key("samplecontroller.k8s.io"));
//! assert!(model.groups.contains_key("apps"));
//! # Ok::<(), frontend::Error>(())
//! ```

#[cfg(feature = "generator")]
pub mod builtin;
#[cfg(feature = "generator")]
pub mod crd;
#[cfg(feature = "generator")]
pub mod openapi;
pub mod rust;
#[cfg(feature = "generator")]
pub(crate) mod schema;
mod suggest;
mod versions;

pub use suggest::did_you_mean;
pub use versions::Versions;

#[cfg(feature = "generator")]
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::model::{self, Location};
#[cfg(feature = "generator")]
use crate::model::{ClientVerbs, Model};

/// One input document set: its display name (used in error messages) and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// How errors name the input: its path as the user gave it (`crds/foo.yaml`,
    /// `src/apis/v1/foo.rs`), so that a location can be opened from where the command ran.
    pub name: String,
    /// The whole text of the input.
    pub text: String,
    /// Its path below the directory it was read from, `/`-separated (`v1/foo.rs`), when it
    /// was read from one ([`Source::in_dir`]): the Rust front-end makes module paths of it.
    /// `None`: the name is that path.
    pub relative: Option<String>,
}

impl Source {
    /// A source from a name and its text.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            text: text.into(),
            relative: None,
        }
    }

    /// A source read from the file `relative` below the directory `dir`: named by the two
    /// joined (as `dir` was given), with `relative` kept for [`Source::relative_name`].
    ///
    /// ```
    /// use std::path::Path;
    /// use kubegen_codegen::__internal::frontend::Source;
    ///
    /// let source = Source::in_dir(Path::new("src/apis"), Path::new("v1/foo.rs"), "");
    /// assert_eq!(source.name, Path::new("src/apis/v1/foo.rs").display().to_string());
    /// assert_eq!(source.relative_name(), "v1/foo.rs");
    /// assert_eq!(Source::new("v1/foo.rs", "").relative_name(), "v1/foo.rs");
    /// ```
    pub fn in_dir(dir: &Path, relative: &Path, text: impl Into<String>) -> Self {
        let parts: Vec<_> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect();
        Self {
            name: dir.join(relative).display().to_string(),
            text: text.into(),
            relative: Some(parts.join("/")),
        }
    }

    /// Its path below the directory it was read from (its name when it was not read from
    /// one).
    pub fn relative_name(&self) -> &str {
        self.relative.as_deref().unwrap_or(&self.name)
    }
}

/// Why inputs could not be turned into a model.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An input is not what its front-end reads.
    #[error("{at}: {message}")]
    Input {
        /// Where.
        at: Location,
        /// What was expected.
        message: String,
    },
    /// A kind named by a client verb option (`--verbs Foo=get`) is in no input.
    #[error("no input has a kind `{kind}` to set the client verbs of (kinds: {found})")]
    NoSuchKind {
        /// The name given.
        kind: String,
        /// The kinds of the inputs, comma-separated.
        found: String,
    },
    /// None of the CRD inputs holds a CustomResourceDefinition (manifests of another kind,
    /// empty files): each input file, with what it holds instead and where.
    #[error("{}", no_crd_lines(found))]
    NoCrd {
        /// Each input file: where, and what it holds instead (``kind `Deployment` ``).
        found: Vec<(Location, String)>,
    },
    /// A directory given as an input holds no file of the kinds read.
    #[error(
        "{}: expected {expected} in this directory, found none{}",
        path.display(),
        if *subdirectories { " (its subdirectories are not read)" } else { "" }
    )]
    EmptyDirectory {
        /// The directory, as given.
        path: PathBuf,
        /// The files read (`*.yaml, *.yml or *.json files`).
        expected: &'static str,
        /// Whether it has subdirectories.
        subdirectories: bool,
    },
    /// A file or directory could not be read.
    #[error("failed to read {}: {reason}", path.display())]
    Read {
        /// The path that failed.
        path: PathBuf,
        /// The I/O error.
        reason: std::io::Error,
    },
    /// Two inputs (or two parts of one) define the same kind.
    #[error("{}kind `{kind}` of {api_version} is defined twice", at.as_ref().map(|a| format!("{a}: ")).unwrap_or_default())]
    DuplicateKind {
        /// Where the second definition is, when known.
        at: Option<Location>,
        /// `group/version` (`v1` for core).
        api_version: String,
        /// The kind.
        kind: String,
    },
    /// The selected OpenAPI group/version is served by none of the documents.
    #[error(
        "failed to select {wanted}: the OpenAPI documents serve no such group/version \
(they serve: {available})"
    )]
    NotServed {
        /// The selection, as `group/version` (`*` for any).
        wanted: String,
        /// What the documents serve, comma-separated.
        available: String,
    },
    /// A version named in [`Versions::Named`] is in none of the inputs.
    #[error("failed to select versions {wanted}: no input has {missing} (selected: {found})")]
    NoSuchVersion {
        /// The selection.
        wanted: String,
        /// The names no input has, comma-separated.
        missing: String,
        /// The versions that were selected, comma-separated (`nothing` when none).
        found: String,
    },
    /// The version selection cannot apply to an input.
    #[error("failed to select {versions} versions of {input}: {reason}")]
    Selection {
        /// The selection.
        versions: Versions,
        /// The input kind (`OpenAPI documents`).
        input: &'static str,
        /// Why.
        reason: &'static str,
    },
    /// The model breaks a rule: a name Kubernetes rejects (with `file:line:column` when
    /// known), or an invariant a front-end failed to keep.
    #[error(transparent)]
    Model(Box<model::Error>),
}

impl From<model::Error> for Error {
    fn from(error: model::Error) -> Self {
        Error::Model(Box::new(error))
    }
}

/// The lines of [`Error::NoCrd`].
fn no_crd_lines(found: &[(Location, String)]) -> String {
    if found.is_empty() {
        return "expected a CustomResourceDefinition, found no input".to_owned();
    }
    let lines: Vec<String> = found
        .iter()
        .map(|(at, what)| format!("{at}: expected a CustomResourceDefinition, found {what}"))
        .collect();
    lines.join("\n")
}

impl Error {
    /// An input error at `file:line:column`.
    pub fn input(file: &str, line: u64, column: u64, message: impl Into<String>) -> Self {
        Error::Input {
            at: Location::new(file, line, column),
            message: message.into(),
        }
    }
}

/// Result of the front-ends.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Something an input says that a front-end reads exactly but advises against (a `u32`
/// field, which Kubernetes' API conventions advise against): the CLI prints it and goes on.
///
/// ```
/// use kubegen_codegen::{Location, Warning};
///
/// let warning = Warning { at: Location::new("v1.rs", 4, 30), message: "`u32`: ...".into() };
/// assert_eq!(warning.to_string(), "v1.rs:4:30: warning: `u32`: ...");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Warning {
    /// Where.
    pub at: Location,
    /// What, and what to do instead.
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: warning: {}", self.at, self.message)
    }
}

#[cfg(feature = "generator")]
/// One input of a generation run, as the CLI's flags name them, with its front-end's
/// options (which include the [`Versions`] to select).
#[derive(Clone, Debug)]
pub enum Input<'a> {
    /// CustomResourceDefinitions (`--crd`).
    Crd(&'a [Source], crd::Options),
    /// OpenAPI documents (`--openapi`).
    OpenApi(&'a [Source], openapi::Options),
    /// Rust sources with `#[derive(Resource)]` structs (`--rust`).
    Rust(&'a [Source], rust::Options),
    /// The built-in API groups (`--kubernetes`, [`builtin::load`]), with Kubernetes'
    /// OpenAPI documents for their fields (`--kubernetes-openapi`, read by
    /// [`openapi::load_external_fields`]; none: no field model).
    Kubernetes(&'a [Source], builtin::Options),
}

#[cfg(feature = "generator")]
impl Input<'_> {
    /// The versions this input selects.
    pub fn versions(&self) -> &Versions {
        match self {
            Input::Crd(_, o) => &o.versions,
            Input::OpenApi(_, o) => &o.versions,
            Input::Rust(_, o) => &o.versions,
            Input::Kubernetes(_, o) => &o.versions,
        }
    }
}

#[cfg(feature = "generator")]
/// What [`load`] made of the inputs: the validated model, final (nothing writes to it
/// afterwards), and the warnings of every front-end, in input order.
#[derive(Debug)]
pub struct Loaded {
    /// The model.
    pub model: Model,
    /// What the inputs hold that works but is advised against.
    pub warnings: Vec<Warning>,
}

#[cfg(feature = "generator")]
/// Builds one model from every input, in order, through each front-end's `load` (which
/// validates), gives the kinds named in `client_verbs` their verb sets (the CLI's
/// `--verbs`, `--readonly-kind`, `--no-status-verbs`; a name matching no kind is an
/// error), and validates the whole once more when there are several inputs or verb sets.
/// A version named in a [`Versions::Named`] selection that no input has is an error.
pub fn load(inputs: &[Input<'_>], client_verbs: &BTreeMap<String, ClientVerbs>) -> Result<Loaded> {
    let mut model = Model::default();
    let mut warnings = Vec::new();
    for input in inputs {
        match input {
            Input::Crd(sources, options) => crd::load(&mut model, sources, options)?,
            Input::OpenApi(sources, options) => openapi::load(&mut model, sources, options)?,
            Input::Rust(sources, options) => {
                warnings.extend(rust::load(&mut model, sources, options)?);
            }
            Input::Kubernetes(documents, options) => {
                builtin::load(&mut model, options)?;
                if !documents.is_empty() {
                    openapi::load_external_fields(&mut model, documents)?;
                }
            }
        }
    }
    let found: BTreeSet<&str> = model.versions().map(|(_, v)| v.name.as_str()).collect();
    for input in inputs {
        if let Versions::Named(names) = input.versions() {
            let missing: Vec<&str> = names
                .iter()
                .map(String::as_str)
                .filter(|n| !found.contains(n))
                .collect();
            if !missing.is_empty() {
                let found: Vec<&str> = found.iter().copied().collect();
                return Err(Error::NoSuchVersion {
                    wanted: input.versions().to_string(),
                    missing: missing.join(", "),
                    found: if found.is_empty() {
                        "nothing".to_owned()
                    } else {
                        found.join(", ")
                    },
                });
            }
        }
    }
    set_client_verbs(&mut model, client_verbs)?;
    // Each front-end's `load` validated the model it left; only inputs added together
    // can clash (two groups on one module, a kind defined twice), and only verb sets can
    // change a kind afterwards, so a model built from one input without them is not
    // checked a second time.
    if inputs.len() > 1 || !client_verbs.is_empty() {
        model.validate()?;
    }
    Ok(Loaded { model, warnings })
}

#[cfg(feature = "generator")]
/// Gives every kind named in `verbs` that verb set; a name matching no kind is an error.
fn set_client_verbs(model: &mut Model, verbs: &BTreeMap<String, ClientVerbs>) -> Result<()> {
    if verbs.is_empty() {
        return Ok(());
    }
    let mut used = BTreeSet::new();
    let mut found = BTreeSet::new();
    for group in model.groups.values_mut() {
        for version in group.versions.values_mut() {
            for kind in version.kinds.values_mut() {
                found.insert(kind.name.clone());
                if let Some(set) = verbs.get(&kind.name) {
                    kind.client_verbs = set.clone();
                    used.insert(kind.name.clone());
                }
            }
        }
    }
    if let Some(kind) = verbs.keys().find(|k| !used.contains(*k)) {
        return Err(Error::NoSuchKind {
            kind: kind.clone(),
            found: found.into_iter().collect::<Vec<_>>().join(", "),
        });
    }
    Ok(())
}

#[cfg(feature = "generator")]
fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |reason| Error::Read {
        path: path.to_owned(),
        reason,
    }
}

#[cfg(feature = "generator")]
/// Reads `paths` into sources: files as given, directories expanded (non-recursively) to
/// their `*.yaml`, `*.yml` and `*.json` files in name order; a directory without any is an
/// error. Names are the paths as given (a directory's files are joined to it).
pub fn read_sources(paths: &[PathBuf]) -> Result<Vec<Source>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(io(path))?
                .map(|e| e.map(|e| e.path()))
                .collect::<Result<_, _>>()
                .map_err(io(path))?;
            let subdirectories = entries.iter().any(|p| p.is_dir());
            entries.retain(|p| {
                p.is_file()
                    && p.extension()
                        .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
            });
            if entries.is_empty() {
                return Err(Error::EmptyDirectory {
                    path: path.clone(),
                    expected: "*.yaml, *.yml or *.json files",
                    subdirectories,
                });
            }
            entries.sort();
            files.extend(entries);
        } else {
            files.push(path.clone());
        }
    }
    // Read at once: the first error, in order, is reported.
    crate::parallel::map(&files, |path| {
        let text = std::fs::read_to_string(path).map_err(io(path))?;
        Ok(Source::new(path.display().to_string(), text))
    })
    .into_iter()
    .collect()
}

#[cfg(all(test, feature = "generator"))]
mod tests {
    use super::*;

    fn sample() -> [Source; 1] {
        [Source::new("foo.yaml", crate::SAMPLE_CRD)]
    }

    #[test]
    fn client_verbs_are_part_of_the_model_load_returns() {
        let sources = sample();
        let inputs = [Input::Crd(&sources, crd::Options::default())];
        let verbs = BTreeMap::from([("Foo".to_owned(), ClientVerbs::read_only())]);
        let loaded = load(&inputs, &verbs).expect("the sample CRD loads");
        let (_, version) = loaded.model.versions().next().expect("one version");
        assert_eq!(version.kinds["Foo"].client_verbs, ClientVerbs::read_only());
        let default = load(&inputs, &BTreeMap::new()).expect("loads");
        let (_, version) = default.model.versions().next().expect("one version");
        assert_eq!(version.kinds["Foo"].client_verbs, ClientVerbs::default());

        let unknown = BTreeMap::from([("Bar".to_owned(), ClientVerbs::read_only())]);
        let error = load(&inputs, &unknown).expect_err("no kind Bar");
        assert!(
            matches!(&error, Error::NoSuchKind { kind, found } if kind == "Bar" && found == "Foo"),
            "{error}"
        );
    }

    #[test]
    fn load_returns_the_warnings_of_rust_input() {
        let text = r#"
            #[derive(Clone, Debug, kubegen::Resource)]
            #[resource(group = "example.com", version = "v1")]
            pub struct Gauge { pub metadata: ObjectMeta, pub spec: GaugeSpec }
            pub struct GaugeSpec { pub count: u32 }
        "#;
        let sources = [Source::new("example/v1.rs", text)];
        let options = rust::Options::default().schemas(true);
        let loaded = load(&[Input::Rust(&sources, options)], &BTreeMap::new())
            .expect("a u32 field is read, with a warning");
        assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
        assert_eq!(loaded.warnings[0].at.file, "example/v1.rs");
        assert!(loaded.warnings[0].message.starts_with("`u32`"));
        assert!(loaded.model.groups.contains_key("example.com"));
    }
}
