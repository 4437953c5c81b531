//! `cargo kubegen new`: a new operator crate for one kind, kubebuilder's `init` and
//! `create api` in one step.
//!
//! [`Scaffold::render`] turns a [`Scaffold`] (crate name, group, version, kind, scope, and
//! where the crate finds kubegen) into the files a user owns from then on: the API types,
//! a controller under a finalizer with a status condition, `main.rs` (cluster connection
//! with the embedded fallback, leader election, SIGTERM/SIGINT), a testkit integration
//! test, `config/` (RBAC, Deployment, sample), a Dockerfile, the crate's own
//! `hack/update-codegen.sh` and `hack/verify-codegen.sh`, and a README. The generated code
//! (clients and the CRD manifest) is not rendered here: the binary runs the same
//! `generate` and `crd` commands the crate's `hack/update-codegen.sh` runs, so the first
//! tree is exactly what the script keeps.
//!
//! The templates are files under `scaffold/templates/` with `{{name}}` placeholders:
//! starting points for a user to edit, not generated code, so they are text, checked by
//! the end-to-end test that builds and runs a scaffolded crate.

use std::path::{Path, PathBuf};

use crate::naming;

/// Why a crate cannot be scaffolded with these names.
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
    /// The registry, at this version (what a published kubegen gives).
    Registry,
    /// A local checkout of the kubegen repository (its root directory), with the same
    /// version requirement: how kubegen's own tests scaffold against the code under test.
    Checkout(PathBuf),
}

/// What to scaffold.
#[derive(Clone, Debug)]
pub struct Scaffold {
    /// The Cargo package name (`backup-operator`).
    pub crate_name: String,
    /// The API group (`ops.example.com`).
    pub group: String,
    /// The API version (`v1`).
    pub version: String,
    /// The kind (`Backup`).
    pub kind: String,
    /// Whether objects of the kind live in namespaces.
    pub namespaced: bool,
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

/// (path in the crate, template, executable). Paths hold placeholders too.
const TEMPLATES: &[(&str, &str, bool)] = &[
    (
        "Cargo.toml",
        include_str!("templates/Cargo.toml.tmpl"),
        false,
    ),
    (
        ".gitignore",
        include_str!("templates/gitignore.tmpl"),
        false,
    ),
    ("README.md", include_str!("templates/README.md.tmpl"), false),
    (
        "Dockerfile",
        include_str!("templates/Dockerfile.tmpl"),
        false,
    ),
    (
        "hack/update-codegen.sh",
        include_str!("templates/update-codegen.sh.tmpl"),
        true,
    ),
    (
        "hack/verify-codegen.sh",
        include_str!("templates/verify-codegen.sh.tmpl"),
        true,
    ),
    (
        "hack/codegen.sh",
        include_str!("templates/codegen.sh.tmpl"),
        false,
    ),
    ("src/main.rs", include_str!("templates/main.rs.tmpl"), false),
    ("src/lib.rs", include_str!("templates/lib.rs.tmpl"), false),
    (
        "src/controller.rs",
        include_str!("templates/controller.rs.tmpl"),
        false,
    ),
    (
        "src/apis/mod.rs",
        include_str!("templates/apis_mod.rs.tmpl"),
        false,
    ),
    (
        "src/apis/{{group_dir}}/mod.rs",
        include_str!("templates/group_mod.rs.tmpl"),
        false,
    ),
    (
        "src/apis/{{group_dir}}/{{version_module}}.rs",
        include_str!("templates/types.rs.tmpl"),
        false,
    ),
    (
        "tests/controller.rs",
        include_str!("templates/test.rs.tmpl"),
        false,
    ),
    (
        "tests/crd.rs",
        include_str!("templates/crd_test.rs.tmpl"),
        false,
    ),
    (
        "config/rbac/service_account.yaml",
        include_str!("templates/service_account.yaml.tmpl"),
        false,
    ),
    (
        "config/rbac/role.yaml",
        include_str!("templates/role.yaml.tmpl"),
        false,
    ),
    (
        "config/rbac/role_binding.yaml",
        include_str!("templates/role_binding.yaml.tmpl"),
        false,
    ),
    (
        "config/manager/deployment.yaml",
        include_str!("templates/deployment.yaml.tmpl"),
        false,
    ),
    (
        "config/samples/{{group_dir}}_{{version}}_{{kind_module}}.yaml",
        include_str!("templates/sample.yaml.tmpl"),
        false,
    ),
];

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
        let api_name = |what, value: &str, check: fn(&str) -> Result<(), &'static str>| {
            check(value).map_err(|reason| Error::ApiName {
                what,
                value: value.to_owned(),
                reason,
            })
        };
        api_name("group", &self.group, naming::kubernetes::check_crd_group)?;
        api_name("version", &self.version, naming::kubernetes::check_version)?;
        api_name("kind", &self.kind, naming::kubernetes::check_kind)?;
        let struct_name = self.kind.starts_with(|c: char| c.is_ascii_uppercase())
            && naming::is_identifier(&self.kind)
            && naming::escape_keyword(self.kind.clone()) == self.kind;
        if !struct_name {
            return Err(Error::ApiName {
                what: "kind",
                value: self.kind.clone(),
                reason: "the kind names a Rust struct: expected UpperCamelCase such as `Backup`",
            });
        }
        Ok(())
    }

    /// The placeholders and their values.
    fn values(&self) -> Vec<(&'static str, String)> {
        let kubegen_source = match &self.source {
            Source::Registry => format!("version = \"{VERSION}\""),
            Source::Checkout(root) => format!(
                "version = \"{VERSION}\", path = {}",
                toml_string(&root.display().to_string())
            ),
        };
        let testkit_source = match &self.source {
            Source::Registry => format!("version = \"{VERSION}\""),
            Source::Checkout(root) => format!(
                "version = \"{VERSION}\", path = {}",
                toml_string(&root.join("runtime").join("testkit").display().to_string())
            ),
        };
        let group_dir = naming::group_short(&self.group);
        let version_module = naming::version_module(&self.version);
        let accessor = naming::kind_accessor(&self.kind);
        let namespace_arg = if self.namespaced {
            "key.namespace().unwrap_or_default()"
        } else {
            ""
        };
        vec![
            ("crate_name", self.crate_name.clone()),
            ("crate_ident", self.crate_name.replace('-', "_")),
            ("group", self.group.clone()),
            ("group_dir", group_dir.clone()),
            ("group_module", naming::group_module(&self.group)),
            ("version", self.version.clone()),
            ("version_module", version_module.clone()),
            ("kind", self.kind.clone()),
            ("kind_module", naming::kind_module(&self.kind)),
            ("plural", naming::plural(&self.kind)),
            ("accessor", accessor),
            (
                "clientset_accessor",
                format!("{group_dir}_{version_module}"),
            ),
            (
                "scope_attr",
                if self.namespaced { "namespaced, " } else { "" }.to_owned(),
            ),
            (
                "scope",
                if self.namespaced {
                    "Namespaced"
                } else {
                    "Cluster"
                }
                .to_owned(),
            ),
            ("namespace_arg", namespace_arg.to_owned()),
            (
                "sample_namespace",
                if self.namespaced {
                    "\n  namespace: default"
                } else {
                    ""
                }
                .to_owned(),
            ),
            (
                "demo_namespace",
                if self.namespaced { "\"default\"" } else { "" }.to_owned(),
            ),
            ("kubegen_source", kubegen_source),
            ("testkit_source", testkit_source),
            ("kubegen_version", VERSION.to_owned()),
        ]
    }

    /// The files of the scaffold, in a fixed order; the same scaffold gives the same bytes.
    pub fn render(&self) -> Result<Vec<File>, Error> {
        self.check()?;
        let values = self.values();
        TEMPLATES
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

    /// The `cargo kubegen generate` arguments that write the crate's generated clients
    /// (what its `hack/update-codegen.sh` runs, from the crate root).
    pub fn generate_args() -> [&'static str; 7] {
        [
            "generate",
            "--rust",
            "src/apis",
            "--rust-module",
            "crate::apis",
            "--clients-out",
            "src/generated",
        ]
    }

    /// The `cargo kubegen crd` arguments that write the crate's CRD manifests.
    pub fn crd_args() -> [&'static str; 5] {
        ["crd", "--rust", "src/apis", "--out", "config/crd"]
    }
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
