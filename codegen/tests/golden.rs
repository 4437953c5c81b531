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

use kubegen_codegen::emit::{GeneratedFile, Options};
use kubegen_codegen::frontend::Source;
use kubegen_codegen::generate_from_crds;

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

fn generate(fixture: &Path) -> Vec<GeneratedFile> {
    let name = fixture.file_name().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(fixture).unwrap();
    generate_from_crds(&[Source::new(name, text)], &Options::default())
        .unwrap_or_else(|e| panic!("{}: {e}", fixture.display()))
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
    let sources: Vec<Source> = fixtures()
        .iter()
        .map(|f| {
            Source::new(
                f.file_name().unwrap().to_string_lossy(),
                std::fs::read_to_string(f).unwrap(),
            )
        })
        .collect();
    let mut reversed = sources.clone();
    reversed.reverse();
    let forward = generate_from_crds(&sources, &Options::default()).unwrap();
    let backward = generate_from_crds(&reversed, &Options::default()).unwrap();
    assert_eq!(forward, backward);
}
