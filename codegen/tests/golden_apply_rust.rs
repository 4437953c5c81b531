//! Golden tests of the apply configurations of hand-written kinds: each directory of Rust
//! sources in `tests/fixtures/rust/` (the `kubegen crd` fixtures) and
//! `tests/fixtures/rust_apply/` (types only apply configurations can read), read as
//! `crate::apis` with the front-end's `apply_types`, generates exactly the files under
//! `tests/golden_apply_rust/<fixture>/`.
//!
//! After an intended change to the generated code, re-bless them with:
//!
//!     KUBEGEN_BLESS=1 cargo test -p kubegen-codegen --test golden_apply_rust
//!
//! and review the diff in git. (The examples and `kubegen-e2e-api` compile and run the
//! apply configurations of their own hand-written kinds.)

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod support;

use std::path::{Path, PathBuf};

use kubegen_codegen::__internal::emit::GeneratedFile;
use kubegen_codegen::__internal::emit::apply::{ApplyOptions, generate_apply};
use kubegen_codegen::__internal::frontend::rust;
use kubegen_codegen::__internal::model::Model;

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut dirs: Vec<PathBuf> = ["rust", "rust_apply"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(root.join(dir)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort_by_key(|p| p.file_name().map(ToOwned::to_owned));
    dirs
}

fn generate(fixture: &Path) -> Vec<GeneratedFile> {
    let sources = rust::read_dir(fixture).unwrap();
    let mut model = Model::default();
    rust::load(
        &mut model,
        &sources,
        &rust::Options::default().apply_types(true),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", fixture.display()));
    generate_apply(&model, &ApplyOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", fixture.display()))
}

#[test]
fn apply_configurations_of_hand_written_kinds_match_goldens() {
    let mut report = String::new();
    for fixture in fixtures() {
        let files = generate(&fixture);
        let stem = fixture.file_name().unwrap().to_string_lossy().into_owned();
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden_apply_rust")
            .join(stem);
        report.push_str(&support::golden_report(&fixture, &dir, &files));
    }
    assert!(
        report.is_empty(),
        "generated apply configurations differ from the goldens (re-bless with \
         `KUBEGEN_BLESS=1 cargo test -p kubegen-codegen --test golden_apply_rust` if intended):\n{report}"
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
fn two_nested_types_of_one_name_in_one_version_are_refused() {
    let kind = |name: &str, field: &str| {
        format!(
            "#[derive(Resource)]\n#[resource(group = \"example.com\", version = \"v1\")]\n\
             pub struct {name} {{ pub metadata: ObjectMeta, pub spec: Spec }}\n\
             pub struct Spec {{ pub {field}: String }}\n"
        )
    };
    let sources = [
        kubegen_codegen::__internal::frontend::Source::new("a.rs", kind("Apple", "color")),
        kubegen_codegen::__internal::frontend::Source::new("b.rs", kind("Banana", "length")),
    ];
    let mut model = Model::default();
    rust::load(
        &mut model,
        &sources,
        &rust::Options::default().apply_types(true),
    )
    .unwrap();
    let error = generate_apply(&model, &ApplyOptions::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "failed to emit the apply configurations of example.com/v1: two types are named \
         `Spec` (crate::apis::a::Spec and crate::apis::b::Spec); rename one"
    );
}
