//! Golden tests: each CRD fixture in `tests/fixtures/` generates exactly the files under
//! `tests/golden/<fixture>/`.
//!
//! After an intended change to the generated code, re-bless all goldens with:
//!
//!     KUBEGEN_BLESS=1 cargo test -p kubegen-codegen --test golden
//!
//! and review the diff in git. (The goldens are also compiled, and round-tripped with
//! explicit nulls, by the `kubegen-corpus-roundtrip` crate.)

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod support;

use std::path::{Path, PathBuf};

use kubegen_codegen::{Config, GeneratedFile};

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        // `fixtures/openapi/` holds the OpenAPI front-end's fixtures (tests/openapi.rs).
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// A CRD fixture: its file name (how messages name it) and text.
fn input(fixture: &Path) -> (String, String) {
    let name = fixture.file_name().unwrap().to_string_lossy().into_owned();
    (name, std::fs::read_to_string(fixture).unwrap())
}

/// The types of `crds`, in memory, through [`Config`] (the output directory is only
/// named).
fn generate_all(crds: &[(String, String)]) -> Vec<GeneratedFile> {
    let config = crds
        .iter()
        .fold(Config::new(), |config, (name, text)| {
            config.crd_text(name, text)
        })
        .types_out("generated");
    let run = config.generate().unwrap_or_else(|e| panic!("{e}"));
    run.outputs.into_iter().next().unwrap().files
}

fn generate(fixture: &Path) -> Vec<GeneratedFile> {
    generate_all(&[input(fixture)])
}

fn golden_dir(fixture: &Path) -> PathBuf {
    let stem = fixture.file_stem().unwrap().to_string_lossy().into_owned();
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(stem)
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
         `KUBEGEN_BLESS=1 cargo test -p kubegen-codegen --test golden` if intended):\n{report}"
    );
}

#[test]
fn generation_is_deterministic() {
    for fixture in fixtures() {
        assert_eq!(
            generate(&fixture),
            generate(&fixture),
            "{}",
            fixture.display()
        );
    }
}

#[test]
fn input_order_does_not_change_output() {
    let sources: Vec<(String, String)> = fixtures().iter().map(|f| input(f)).collect();
    let mut reversed = sources.clone();
    reversed.reverse();
    let forward = generate_all(&sources);
    let backward = generate_all(&reversed);
    assert_eq!(forward, backward);
}
