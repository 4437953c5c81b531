//! Front-ends: read inputs and build the [model](crate::model).
//!
//! - [`crd`]: CustomResourceDefinition YAML or JSON (`apiextensions.k8s.io/v1`).
//! - [`rust`]: annotated Rust structs (`#[derive(Resource)]`), read with syn.
//! - [`builtin`]: the built-in API groups (kinds from a table, types from k8s-openapi).
//! - [`openapi`]: Kubernetes OpenAPI v3 and v2 (swagger) documents, for whole API groups.
//!
//! Inputs are [`Source`]s (a display name and the text), so front-ends never touch the
//! file system themselves; [`read_sources`] expands files and directories for the CLI.

pub mod builtin;
pub mod crd;
pub mod openapi;
pub mod rust;

use std::path::{Path, PathBuf};

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ReadError + '_ {
    move |reason| ReadError::Io {
        path: path.to_owned(),
        reason,
    }
}

/// One input document set: its display name (used in error messages) and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// How errors name the input (`crds/foo.yaml`).
    pub name: String,
    /// The whole text of the input.
    pub text: String,
}

impl Source {
    /// A source from a name and its text.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            text: text.into(),
        }
    }
}

/// Why inputs could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// A file or directory could not be read.
    #[error("failed to read {}: {reason}", path.display())]
    Io {
        /// The path that failed.
        path: PathBuf,
        /// The I/O error.
        reason: std::io::Error,
    },
}

/// Reads `paths` into sources: files as given, directories expanded (non-recursively) to
/// their `*.yaml`, `*.yml` and `*.json` files in name order. Names are the paths as given.
pub fn read_sources(paths: &[PathBuf]) -> Result<Vec<Source>, ReadError> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(io(path))?
                .map(|e| e.map(|e| e.path()))
                .collect::<Result<_, _>>()
                .map_err(io(path))?;
            entries.retain(|p| {
                p.is_file()
                    && p.extension()
                        .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
            });
            entries.sort();
            files.extend(entries);
        } else {
            files.push(path.clone());
        }
    }
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).map_err(io(&path))?;
            Ok(Source::new(path.display().to_string(), text))
        })
        .collect()
}
