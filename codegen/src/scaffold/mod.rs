//! `cargo kubegen new` and `cargo kubegen add`: a new operator crate for one kind
//! (kubebuilder's `init` and `create api` in one step), and one more kind in such a crate.
//!
//! [`Scaffold::render`] turns a [`Scaffold`] (crate name, a [`Kind`], and where the crate
//! finds kubegen) into the files a user owns from then on: the API types, a controller
//! under a finalizer with a status condition, `main.rs` (cluster connection with the
//! embedded fallback, leader election, SIGTERM/SIGINT), a testkit integration test and a
//! manifest test, `config/` (RBAC, Deployment, sample), a Dockerfile, the crate's own
//! `hack/update-codegen.sh` and `hack/verify-codegen.sh`, and a README.
//! [`Kind::add_to`] plans the edits that add a kind's types and sample to an existing
//! crate. The generated code (clients and the CRD manifests) is not rendered here: the
//! binary runs the `generate` and `crd` commands the crate's `hack/update-codegen.sh`
//! runs, so the first tree is exactly what the script keeps.
//!
//! The templates are files under `scaffold/templates/` with `{{name}}` placeholders:
//! starting points for a user to edit, not generated code, so they are text, checked by
//! the end-to-end tests that build, test and run scaffolded crates.

mod kind;
mod templates;

use std::path::{Path, PathBuf};

pub use kind::{Edit, Kind};

/// Why a crate or a kind cannot be scaffolded.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The crate name is not a valid Cargo package name.
    #[error(
        "invalid crate name `{0}`: expected ASCII letters, digits, `-` and `_`, starting with a letter"
    )]
    CrateName(String),
    /// The group, version or kind is not one Kubernetes accepts.
    #[error("invalid {what} `{value}`: {reason}")]
    ApiName {
        /// `group`, `version` or `kind`.
        what: &'static str,
        /// The value given.
        value: String,
        /// What Kubernetes expects.
        reason: &'static str,
    },
    /// `cargo kubegen add` was run outside a crate laid out as `cargo kubegen new` lays
    /// one out.
    #[error(
        "{0}: no src/apis/mod.rs here; run `cargo kubegen add` in a crate made by `cargo kubegen new`"
    )]
    NotACrate(PathBuf),
    /// The kind is already defined where it would go.
    #[error("{path}: already defines `{kind}`")]
    KindExists {
        /// The file.
        path: PathBuf,
        /// The kind.
        kind: String,
    },
    /// A file the kind needs exists already.
    #[error("{0}: exists already; move it away or choose another kind")]
    FileExists(PathBuf),
    /// A file could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A template names a placeholder the scaffold does not define (a bug in kubegen).
    #[error("template {template} names the unknown placeholder `{{{{{name}}}}}`")]
    Placeholder {
        /// The template's path.
        template: &'static str,
        /// The placeholder.
        name: String,
    },
}

/// Where the scaffolded crate takes the kubegen crates from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The registry, at [`VERSION`] (what a published kubegen gives).
    Registry,
    /// A local checkout of the kubegen repository (its root directory), with the same
    /// version requirement: how kubegen's own tests scaffold against the code under test.
    Checkout(PathBuf),
}

/// What `cargo kubegen new` scaffolds.
#[derive(Clone, Debug)]
pub struct Scaffold {
    /// The Cargo package name (`backup-operator`).
    pub crate_name: String,
    /// The kind the crate starts with.
    pub kind: Kind,
    /// Where the kubegen crates come from.
    pub source: Source,
}

/// One file of the scaffold: its path relative to the crate root and its contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    /// Path relative to the crate root.
    pub path: PathBuf,
    /// Contents.
    pub contents: String,
    /// Whether the file is a script to mark executable.
    pub executable: bool,
}

/// The version of kubegen this generator belongs to: the scaffold's dependencies ask
/// for it, and its scripts refuse a `cargo kubegen` of another version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The `cargo kubegen generate` arguments that write a scaffolded crate's generated
/// clients (what its `hack/update-codegen.sh` runs, from the crate root).
pub const GENERATE_ARGS: [&str; 7] = [
    "generate",
    "--rust",
    "src/apis",
    "--rust-module",
    "crate::apis",
    "--clients-out",
    "src/generated",
];

/// The `cargo kubegen crd` arguments that write a scaffolded crate's CRD manifests.
pub const CRD_ARGS: [&str; 5] = ["crd", "--rust", "src/apis", "--out", "config/crd"];

impl Scaffold {
    /// Checks the names as Cargo and Kubernetes would.
    pub fn check(&self) -> Result<(), Error> {
        let crate_ok = self
            .crate_name
            .starts_with(|c: char| c.is_ascii_alphabetic())
            && self
                .crate_name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !crate_ok {
            return Err(Error::CrateName(self.crate_name.clone()));
        }
        self.kind.check()
    }

    /// The command that installs the `cargo kubegen` this crate's generated code needs
    /// (from the registry, or from the checkout the crate depends on), as one shell word.
    fn install_command(&self) -> String {
        let command = match &self.source {
            Source::Registry => {
                format!("cargo install --locked kubegen-codegen --version {VERSION}")
            }
            Source::Checkout(root) => format!(
                "cargo install --locked --path {}",
                root.join("codegen").display()
            ),
        };
        shell_quote(&command)
    }

    /// The placeholders and their values: the kind's and the crate's.
    fn values(&self) -> Vec<(&'static str, String)> {
        let source = |path: &[&str]| match &self.source {
            Source::Registry => format!("version = \"{VERSION}\""),
            Source::Checkout(root) => {
                let dir = path.iter().fold(root.clone(), |dir, part| dir.join(part));
                format!(
                    "version = \"{VERSION}\", path = {}",
                    toml_string(&dir.display().to_string())
                )
            }
        };
        let mut values = self.kind.values();
        values.extend([
            ("crate_name", self.crate_name.clone()),
            ("crate_ident", self.crate_name.replace('-', "_")),
            ("kubegen_source", source(&[])),
            ("testkit_source", source(&["runtime", "testkit"])),
            ("kubegen_version", VERSION.to_owned()),
            ("install_generator", self.install_command()),
        ]);
        values
    }

    /// The files of the scaffold, in a fixed order; the same scaffold gives the same bytes.
    pub fn render(&self) -> Result<Vec<File>, Error> {
        self.check()?;
        let values = self.values();
        templates::CRATE
            .iter()
            .map(|&(path, template, executable)| {
                Ok(File {
                    path: PathBuf::from(substitute(path, path, &values)?),
                    contents: substitute(path, template, &values)?,
                    executable,
                })
            })
            .collect()
    }
}

/// `text` as one single-quoted shell word.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// The default crate directory's name as the package name (`cargo new`'s rule).
pub fn crate_name_of(dir: &Path) -> Option<String> {
    dir.file_name()?.to_str().map(str::to_owned)
}

/// `text` with every `{{name}}` replaced by its value.
fn substitute(
    template: &'static str,
    text: &str,
    values: &[(&'static str, String)],
) -> Result<String, Error> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let name = &after[..end];
        let Some((_, value)) = values.iter().find(|(key, _)| *key == name) else {
            return Err(Error::Placeholder {
                template,
                name: name.to_owned(),
            });
        };
        out.push_str(value);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A TOML basic string holding `text`.
fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests;
