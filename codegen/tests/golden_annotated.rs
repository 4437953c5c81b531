//! Golden tests of `--style derive`: each CRD fixture in `tests/fixtures/` gives exactly
//! the annotated sources under `tests/golden_annotated/<fixture>/` (fixtures `--style
//! derive` refuses are listed in `REFUSED`, with the reason).
//!
//! After an intended change to the annotated sources, re-bless them with:
//!
//!     KUBEGEN_BLESS=1 cargo test -p kubegen-codegen --test golden_annotated
//!
//! and review the diff in git. `tests/crd_roundtrip.rs` checks that the Rust front-end
//! reads them back into the same schemas; the repository's `tests/crd_manifests.rs`
//! compiles one of them and checks that `crd()` builds that schema too.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod support;

use std::path::{Path, PathBuf};

use kubegen_codegen::__internal::emit;
use kubegen_codegen::__internal::frontend::{Source, crd};
use kubegen_codegen::__internal::model::Model;

/// Fixtures whose root object `#[derive(Resource)]` cannot say, with the error's words.
const REFUSED: &[(&str, &str)] = &[("versions.yaml", "the root object keeps unknown fields")];

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn annotated(fixture: &Path) -> Result<Vec<emit::GeneratedFile>, String> {
    let name = fixture.file_name().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(fixture).unwrap();
    let mut model = Model::default();
    crd::load(
        &mut model,
        &[Source::new(name, text)],
        &crd::Options::default(),
    )
    .map_err(|e| e.to_string())?;
    emit::annotated::generate(&model).map_err(|e| e.to_string())
}

#[test]
fn annotated_sources_match_goldens() {
    let mut report = String::new();
    for fixture in fixtures() {
        let name = fixture.file_name().unwrap().to_string_lossy().into_owned();
        let stem = fixture.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden_annotated")
            .join(stem);
        match annotated(&fixture) {
            Ok(files) => report.push_str(&support::golden_report(&fixture, &dir, &files)),
            Err(e) => {
                let expected = REFUSED.iter().find(|(f, _)| *f == name);
                match expected {
                    Some((_, why)) if e.contains(why) => assert!(!dir.exists(), "{name}"),
                    _ => report.push_str(&format!("{name}: {e}\n")),
                }
            }
        }
    }
    assert!(
        report.is_empty(),
        "annotated sources differ from the goldens (re-bless with \
         `KUBEGEN_BLESS=1 cargo test -p kubegen-codegen --test golden_annotated` if intended):\n{report}"
    );
}

#[test]
fn annotated_sources_are_deterministic() {
    for fixture in fixtures() {
        assert_eq!(
            annotated(&fixture),
            annotated(&fixture),
            "{}",
            fixture.display()
        );
    }
}
