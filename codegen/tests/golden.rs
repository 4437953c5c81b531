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

use std::path::{Path, PathBuf};

use kubegen_codegen::emit::{GeneratedFile, Options};
use kubegen_codegen::frontend::Source;
use kubegen_codegen::{diff, generate_from_crds};

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

fn files_under(dir: &Path, base: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, base, out);
        } else {
            out.push(
                path.strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/"),
            );
        }
    }
}

#[test]
fn generated_code_matches_goldens() {
    let bless = std::env::var_os("KUBEGEN_BLESS").is_some();
    let mut report = String::new();
    for fixture in fixtures() {
        let files = generate(&fixture);
        let dir = golden_dir(&fixture);
        if bless {
            let _ = std::fs::remove_dir_all(&dir);
            for file in &files {
                let path = dir.join(&file.path);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, &file.contents).unwrap();
            }
            continue;
        }
        let mut on_disk = Vec::new();
        files_under(&dir, &dir, &mut on_disk);
        on_disk.sort();
        let generated: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
        if on_disk != generated {
            report.push_str(&format!(
                "{}: file set differs\n  golden:    {on_disk:?}\n  generated: {generated:?}\n",
                fixture.display()
            ));
        }
        for file in &files {
            let golden = std::fs::read_to_string(dir.join(&file.path)).unwrap_or_default();
            report.push_str(&diff::unified(&file.path, &golden, &file.contents));
        }
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
