//! Golden tests of the apply configuration emitter: each CRD fixture in `tests/fixtures/`
//! generates exactly the files under `tests/golden_apply/<fixture>/`.
//!
//! After an intended change to the generated code, re-bless them with:
//!
//!     KUBEGEN_BLESS=1 cargo test -p kubegen-codegen --test golden_apply
//!
//! and review the diff in git. (Apply configurations of a CRD are compiled and exercised
//! by the `kubegen-e2e-api` crate, whose `crd` tree comes from the same emitter.)

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod support;

use std::path::{Path, PathBuf};

use kubegen_codegen::emit::GeneratedFile;
use kubegen_codegen::emit::apply::{ApplyOptions, generate_apply};
use kubegen_codegen::frontend::{Source, crd};
use kubegen_codegen::model::Model;

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
    generate_apply(&model, &ApplyOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", fixture.display()))
}

#[test]
fn apply_configurations_match_goldens() {
    let mut report = String::new();
    for fixture in fixtures() {
        let files = generate(&fixture);
        let stem = fixture.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden_apply")
            .join(stem);
        report.push_str(&support::golden_report(&fixture, &dir, &files));
    }
    assert!(
        report.is_empty(),
        "generated apply configurations differ from the goldens (re-bless with \
         `KUBEGEN_BLESS=1 cargo test -p kubegen-codegen --test golden_apply` if intended):\n{report}"
    );
}

#[test]
fn every_kind_gets_an_apply_configuration_with_its_setters() {
    for fixture in fixtures() {
        let files = generate(&fixture);
        let text = std::fs::read_to_string(&fixture).unwrap();
        let mut model = Model::default();
        let name = fixture.file_name().unwrap().to_string_lossy().into_owned();
        crd::load(
            &mut model,
            &[Source::new(name, text)],
            &crd::Options::default(),
        )
        .unwrap();
        for resource in model.resources() {
            let apply = format!("pub struct {}Apply {{", resource.root.name);
            let file = files
                .iter()
                .find(|f| f.contents.contains(&apply))
                .unwrap_or_else(|| panic!("{}: no {apply}", fixture.display()));
            let new = match resource.kind.scope {
                kubegen_codegen::model::Scope::Namespaced => {
                    "pub fn new(name: impl Into<String>, namespace: impl Into<String>)"
                }
                kubegen_codegen::model::Scope::Cluster => "pub fn new(name: impl Into<String>)",
            };
            assert!(file.contents.contains(new), "{}: {new}", file.path);
            if resource.kind.subresources.status {
                assert!(
                    file.contents.contains("pub fn extract_status("),
                    "{}",
                    file.path
                );
            }
        }
    }
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
