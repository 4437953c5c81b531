//! Helpers shared by the CLI and golden tests (and the scaffold benchmark, which includes
//! this file): running the binary, scratch directories, fixtures, scaffolded crates, and
//! comparing generated files with the committed goldens.

#![allow(dead_code, clippy::unwrap_used)] // Each test file uses a subset; a panic is the report.

use std::ffi::{OsStr, OsString};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kubegen_codegen::__internal::diff;
use kubegen_codegen::__internal::emit::GeneratedFile;

/// Runs `kubegen` with `args`.
pub(crate) fn kubegen<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-kubegen"))
        .args(args)
        .output()
        .unwrap()
}

/// Runs `kubegen` with `args` in the directory `cwd`, so that relative paths in `args`
/// (and in its messages) are relative to it.
pub(crate) fn kubegen_in<S: AsRef<std::ffi::OsStr>>(cwd: &Path, args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-kubegen"))
        .current_dir(cwd)
        .args(args)
        .output()
        .unwrap()
}

/// The kubegen checkout under test (the repository root).
pub(crate) fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// `$PATH` with the directory of the `cargo-kubegen` under test first, so that a
/// scaffolded crate's scripts run it as `cargo kubegen`.
pub(crate) fn path_with_cli() -> OsString {
    let bin = Path::new(env!("CARGO_BIN_EXE_cargo-kubegen"))
        .parent()
        .unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(bin.to_owned()).chain(std::env::split_paths(&path)))
        .unwrap()
}

/// Runs `cargo kubegen new DIR` for package `backup-operator`, kind `Backup` of
/// `ops.example.com/v1`, against this checkout.
pub(crate) fn new_backup_operator(dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-kubegen"))
        .args([
            "new",
            "--name",
            "backup-operator",
            "--group",
            "ops.example.com",
        ])
        .args(["--version", "v1", "--kind", "Backup", "--kubegen-path"])
        .arg(checkout())
        .arg(dir)
        .output()
        .unwrap()
}

/// Copies every file under `from` over the tree at `to` (directories created as needed).
pub(crate) fn overlay(from: &Path, to: &Path) {
    for relative in tree(from) {
        let target = to.join(&relative);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(from.join(&relative), target).unwrap();
    }
}

/// A fresh, empty directory for one test: `kubegen-<test>-<pid>-<name>` in the temporary
/// directory.
pub(crate) fn scratch(test: &str, name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("kubegen-{test}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

/// A test's scratch directory. It is removed when the test passes, and kept when it
/// panics, for a look at what the binary wrote.
pub(crate) struct Scratch(PathBuf);

impl Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<OsStr> for Scratch {
    fn as_ref(&self) -> &OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
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

/// What differs between `files` (generated from `fixture`) and the goldens in `dir`: a
/// different file set, then a unified diff per file; empty when they match. With
/// `KUBEGEN_BLESS` set, `dir` is replaced by `files` instead and the report is empty.
pub(crate) fn golden_report(fixture: &Path, dir: &Path, files: &[GeneratedFile]) -> String {
    if std::env::var_os("KUBEGEN_BLESS").is_some() {
        let _ = std::fs::remove_dir_all(dir);
        for file in files {
            let path = dir.join(&file.path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, &file.contents).unwrap();
        }
        return String::new();
    }
    let mut report = String::new();
    let on_disk = tree(dir);
    let generated: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
    if on_disk != generated {
        report.push_str(&format!(
            "{}: file set differs\n  golden:    {on_disk:?}\n  generated: {generated:?}\n",
            fixture.display()
        ));
    }
    for file in files {
        let golden = std::fs::read_to_string(dir.join(&file.path)).unwrap_or_default();
        report.push_str(&diff::unified(&file.path, &golden, &file.contents));
    }
    report
}
