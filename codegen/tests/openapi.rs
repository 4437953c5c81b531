//! Golden tests for the OpenAPI front-end: each document in `tests/fixtures/openapi/`
//! generates exactly the files under `tests/golden/openapi_<fixture>/` (compiled, like the
//! CRD goldens, by the `kubegen-corpus-roundtrip` crate, and round-tripped by
//! `kubegen-openapi-roundtrip`).
//!
//! After an intended change to the generated code, re-bless with:
//!
//!     KUBEGEN_BLESS=1 cargo test -p kubegen-codegen --test openapi
//!
//! and review the diff in git.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod support;

use std::path::{Path, PathBuf};

use kubegen_codegen::{Config, GeneratedFile};

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/openapi");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// An OpenAPI fixture: its file name (how messages name it) and text.
fn source(fixture: &Path) -> (String, String) {
    let name = fixture.file_name().unwrap().to_string_lossy().into_owned();
    (name, std::fs::read_to_string(fixture).unwrap())
}

/// The types of `documents`, in memory, through [`Config`] (the output directory is only
/// named).
fn generate_all(documents: &[(String, String)]) -> Vec<GeneratedFile> {
    let config = documents
        .iter()
        .fold(Config::new(), |config, (name, text)| {
            config.openapi_text(name, text)
        })
        .types_out("generated");
    let run = config.generate().unwrap_or_else(|e| panic!("{e}"));
    run.outputs.into_iter().next().unwrap().files
}

fn generate(fixture: &Path) -> Vec<GeneratedFile> {
    generate_all(&[source(fixture)])
}

fn golden_dir(fixture: &Path) -> PathBuf {
    let stem = fixture.file_stem().unwrap().to_string_lossy().into_owned();
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("openapi_{stem}"))
}

#[test]
fn generated_code_matches_goldens() {
    let mut report = String::new();
    for fixture in fixtures() {
        let files = generate(&fixture);
        let dir = golden_dir(&fixture);
        report.push_str(&support::golden_report(&fixture, &dir, &files));
    }
    assert!(
        report.is_empty(),
        "generated code differs from the goldens (re-bless with \
         `KUBEGEN_BLESS=1 cargo test -p kubegen-codegen --test openapi` if intended):\n{report}"
    );
}

#[test]
fn generation_is_deterministic_and_independent_of_input_order() {
    let sources: Vec<(String, String)> = fixtures().iter().map(|f| source(f)).collect();
    assert!(sources.len() >= 2, "fixtures present");
    let forward = generate_all(&sources);
    assert_eq!(forward, generate_all(&sources));
    let mut reversed = sources.clone();
    reversed.reverse();
    assert_eq!(forward, generate_all(&reversed));
}
