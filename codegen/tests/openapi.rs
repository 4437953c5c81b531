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

use std::path::{Path, PathBuf};

use kubegen_codegen::emit::{GeneratedFile, Options};
use kubegen_codegen::frontend::{Source, openapi};
use kubegen_codegen::{diff, generate_from_openapi};

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

fn source(fixture: &Path) -> Source {
    let name = fixture.file_name().unwrap().to_string_lossy().into_owned();
    Source::new(name, std::fs::read_to_string(fixture).unwrap())
}

fn generate(fixture: &Path) -> Vec<GeneratedFile> {
    generate_from_openapi(
        &[source(fixture)],
        &openapi::Options::default(),
        &Options::default(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", fixture.display()))
}

fn golden_dir(fixture: &Path) -> PathBuf {
    let stem = fixture.file_stem().unwrap().to_string_lossy().into_owned();
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("openapi_{stem}"))
}

fn files_under(dir: &Path, base: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, base, out);
        } else {
            let relative = path.strip_prefix(base).unwrap();
            out.push(relative.to_string_lossy().replace('\\', "/"));
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
         `KUBEGEN_BLESS=1 cargo test -p kubegen-codegen --test openapi` if intended):\n{report}"
    );
}

#[test]
fn generation_is_deterministic_and_independent_of_input_order() {
    let sources: Vec<Source> = fixtures().iter().map(|f| source(f)).collect();
    assert!(sources.len() >= 2, "fixtures present");
    let run = |sources: &[Source]| {
        generate_from_openapi(sources, &openapi::Options::default(), &Options::default()).unwrap()
    };
    let forward = run(&sources);
    assert_eq!(forward, run(&sources));
    let mut reversed = sources.clone();
    reversed.reverse();
    assert_eq!(forward, run(&reversed));
}
