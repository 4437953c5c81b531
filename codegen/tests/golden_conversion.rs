//! Golden tests of the conversion emitter: each multi-version CRD fixture in
//! `tests/fixtures/`, and the fixture of `tests/conversion-roundtrip` (a renamed, a split,
//! an added, a removed and a newly required field, an enum with a value more), generates
//! exactly the files under `tests/golden_conversion/<fixture>/`; the hand-written kinds of
//! `tests/conversion-roundtrip/src/apis/` (`generate --rust`), those under
//! `tests/golden_conversion/derived/`.
//!
//! After an intended change to the generated code, re-bless them with:
//!
//!     KUBEGEN_BLESS=1 cargo test -p kubegen-codegen --test golden_conversion
//!
//! and review the diff in git. (The fixture's conversions are compiled and run by the
//! `kubegen-conversion-roundtrip` crate.)

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod support;

use std::path::{Path, PathBuf};

use kubegen_codegen::__internal::emit::GeneratedFile;
use kubegen_codegen::__internal::emit::conversion::{ConversionOptions, generate_conversions};
use kubegen_codegen::__internal::frontend::{Source, crd, rust};
use kubegen_codegen::__internal::model::Model;

fn fixtures() -> Vec<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(manifest.join("tests/fixtures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files.push(manifest.join("../tests/conversion-roundtrip/crds/gadgets.yaml"));
    files
}

fn generate(fixture: &Path) -> Vec<GeneratedFile> {
    let name = fixture.file_name().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(fixture).unwrap();
    let mut model = Model::default();
    crd::load(
        &mut model,
        &[Source::new(name, text)],
        &crd::Options::default(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", fixture.display()));
    generate_conversions(&model, &ConversionOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", fixture.display()))
}

#[test]
fn conversions_match_goldens() {
    let mut report = String::new();
    let mut compared = 0;
    for fixture in fixtures() {
        let files = generate(&fixture);
        let stem = fixture.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden_conversion")
            .join(stem);
        if files.is_empty() && !dir.exists() {
            continue;
        }
        compared += 1;
        report.push_str(&support::golden_report(&fixture, &dir, &files));
    }
    assert!(
        compared >= 2,
        "only {compared} fixtures have several versions"
    );
    report.push_str(&derived());
    assert!(
        report.is_empty(),
        "generated conversions differ from the goldens (bless with KUBEGEN_BLESS=1):\n{report}"
    );
}

/// The report of the hand-written kinds' conversions against their goldens.
fn derived() -> String {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let apis = manifest.join("../tests/conversion-roundtrip/src/apis");
    let sources = rust::read_dir(&apis).unwrap();
    let mut model = Model::default();
    let options = rust::Options::default()
        .module("crate::apis")
        .conversions(true);
    rust::load(&mut model, &sources, &options).unwrap();
    let files = generate_conversions(&model, &ConversionOptions::default()).unwrap();
    assert_eq!(files.len(), 4, "{files:?}");
    support::golden_report(
        &apis,
        &manifest.join("tests/golden_conversion/derived"),
        &files,
    )
}
