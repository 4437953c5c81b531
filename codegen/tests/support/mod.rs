//! Helpers shared by the CLI tests: running the binary, scratch directories, fixtures.

#![allow(dead_code, clippy::unwrap_used)] // Each test file uses a subset; a panic is the report.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `kubegen` with `args`.
pub(crate) fn kubegen<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kubegen"))
        .args(args)
        .output()
        .unwrap()
}

/// A fresh, empty directory for one test.
pub(crate) fn scratch(test: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kubegen-{test}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The path of a file under `tests/fixtures`.
pub(crate) fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// Stderr as text.
pub(crate) fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Every file under `dir`, relative to it, sorted.
pub(crate) fn tree(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, base, out);
            } else {
                let relative = path.strip_prefix(base).unwrap();
                out.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// A directory of Rust API sources with one `#[derive(Resource)]` kind, `Gear` of
/// `rusty.example.com/v1`, under `dir/apis`.
pub(crate) fn rust_apis(dir: &Path) -> PathBuf {
    let apis = dir.join("apis");
    std::fs::create_dir_all(apis.join("rusty")).unwrap();
    std::fs::write(
        apis.join("rusty/v1.rs"),
        "#[derive(Clone, Debug, kubegen::Resource)]\n\
         #[resource(group = \"rusty.example.com\", version = \"v1\", status)]\n\
         pub struct Gear { pub metadata: ObjectMeta, pub spec: GearSpec, pub status: Option<GearStatus> }\n",
    )
    .unwrap();
    apis
}
