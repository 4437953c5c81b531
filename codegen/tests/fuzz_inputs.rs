//! Replays every committed fuzz input on stable, through the entry points the cargo-fuzz
//! targets call ([`kubegen_codegen::__internal::fuzz`]), so CI covers them without a nightly toolchain.
//!
//! Inputs live in `fuzz/seeds/<target>/` (the seed corpus) and `fuzz/regressions/<target>/`
//! (inputs that once crashed a target, kept after the fix). Every input must return
//! without panicking; seeds named `ok-*` must succeed and seeds named `err-*` must fail
//! with a `file:line:column:` message, so the seeds keep exercising both paths.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

use std::path::{Path, PathBuf};

use kubegen_codegen::__internal::fuzz;

/// What one target's entry point made of an input: `Ok` or the error message.
type Outcome = Result<(), String>;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// Every file of `fuzz/<kind>/<target>`, sorted.
fn inputs(kind: &str, target: &str) -> Vec<PathBuf> {
    let dir = fuzz_dir().join(kind).join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && !p.ends_with(".gitkeep"))
        .collect();
    files.sort();
    files
}

fn replay(target: &str, run: fn(&[u8]) -> Outcome) {
    let seeds = inputs("seeds", target);
    assert!(
        seeds.iter().any(|p| name(p).starts_with("ok-"))
            && seeds.iter().any(|p| name(p).starts_with("err-")),
        "{target}: the seed corpus has inputs that succeed and inputs that fail"
    );
    for path in seeds.iter().chain(&inputs("regressions", target)) {
        let data = std::fs::read(path).unwrap();
        let outcome = run(&data);
        let name = name(path);
        if name.starts_with("ok-") {
            assert_eq!(outcome, Ok(()), "{target}: {name}");
        } else if name.starts_with("err-") {
            let message = outcome.expect_err(&format!("{target}: {name} is refused"));
            assert!(
                message.starts_with("fuzz.") || message.starts_with("apis/fuzz.rs:"),
                "{target}: {name}: expected a file:line:column error, got {message}"
            );
        }
    }
}

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

fn outcome<T, E: std::fmt::Display>(result: Result<T, E>) -> Outcome {
    result.map(|_| ()).map_err(|e| e.to_string())
}

#[test]
fn crd_inputs() {
    replay("crd", |data| outcome(fuzz::crd(data)));
}

#[test]
fn openapi_inputs() {
    replay("openapi", |data| outcome(fuzz::openapi(data)));
}

#[test]
fn rust_inputs() {
    replay("rust", |data| outcome(fuzz::rust(data)));
}

#[test]
fn generate_inputs() {
    replay("generate", |data| outcome(fuzz::generate(data)));
}
