//! `cargo kubegen new` end to end, as a new user runs it: scaffold a crate into an empty
//! directory against this checkout, build it and run its tests, run its verify script, and
//! run its binary to convergence on the embedded API server. Then the same crate grown into
//! an operator of a real shape (a spec with unsigned and nested fields, an owned ConfigMap):
//! its regenerated manifest must equal what `crd()` builds, and its tests must pass.
//!
//! The crate builds in this workspace's target directory (cargo holds no lock while tests
//! run), with this workspace's Cargo.lock, so dependencies already built are reused.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use support::{checkout, fixture, kubegen, new_backup_operator, overlay, path_with_cli, scratch};

/// The target directory of this build (`target/`, above `debug/` and the binary).
fn target_dir() -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_cargo-kubegen"));
    bin.ancestors().nth(2).expect("target/").to_owned()
}

fn in_crate(dir: &Path, program: &str, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("PATH", path_with_cli())
        .env("CARGO_TARGET_DIR", target_dir())
        .env_remove("RUSTFLAGS")
        .env_remove("KUBECONFIG")
        // No ~/.kube/config: the binary takes the embedded default, never a real cluster.
        // Cargo and rustup keep their homes.
        .env("HOME", dir)
        .env("CARGO_HOME", tool_home("CARGO_HOME", ".cargo"))
        .env("RUSTUP_HOME", tool_home("RUSTUP_HOME", ".rustup"))
        .output()
        .unwrap_or_else(|e| panic!("{program} {args:?}: {e}"))
}

/// `$VAR`, or `~/<default>` of the real home, kept when HOME moves.
fn tool_home(var: &str, default: &str) -> PathBuf {
    std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::home_dir().unwrap_or_default().join(default))
}

#[track_caller]
fn ok(output: &Output, what: &str) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{what} failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// Scaffolds `backup-operator` in a scratch directory, with this workspace's lock file.
fn scaffold(test: &str) -> (support::Scratch, PathBuf) {
    let scratch = scratch(test, "crate");
    let dir = scratch.join("backup-operator");
    ok(&new_backup_operator(&dir), "cargo kubegen new");
    std::fs::copy(checkout().join("Cargo.lock"), dir.join("Cargo.lock")).expect("copy Cargo.lock");
    (scratch, dir)
}

/// Runs the crate's tests, its verify script, and its binary on the embedded default,
/// which must reconcile the sample; returns what the binary printed.
fn tests_verifies_and_converges(dir: &Path) -> String {
    ok(
        &in_crate(dir, "cargo", &["test", "--quiet"]),
        "cargo test in the crate",
    );
    ok(
        &in_crate(dir, "bash", &["hack/verify-codegen.sh"]),
        "hack/verify-codegen.sh",
    );
    let run = ok(
        &in_crate(dir, "cargo", &["run", "--quiet"]),
        "cargo run (embedded)",
    );
    assert!(run.contains("Backup sample reconciled"), "{run}");
    run
}

#[test]
fn a_new_crate_builds_tests_verifies_and_converges() {
    let (_scratch, dir) = scaffold("scaffold-new");
    let run = tests_verifies_and_converges(&dir);
    assert!(run.contains("No cluster configured"), "{run}");
    let args = [
        "run",
        "--quiet",
        "--",
        "--metrics-bind-address",
        "127.0.0.1:0",
        "--workers",
        "1",
    ];
    let run = ok(
        &in_crate(&dir, "cargo", &args),
        "cargo run with metrics served",
    );
    assert!(run.contains("Backup sample reconciled"), "{run}");
}

#[test]
fn new_refuses_a_directory_that_is_not_empty_and_writes_nothing() {
    let scratch = scratch("scaffold-refuse", "crate");
    std::fs::write(scratch.join("keep.txt"), "mine").expect("write");
    let output = kubegen(&[
        "new".as_ref(),
        scratch.as_os_str(),
        "--group".as_ref(),
        "ops.example.com".as_ref(),
        "--version".as_ref(),
        "v1".as_ref(),
        "--kind".as_ref(),
        "Backup".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("exists and is not empty"), "{stderr}");
    let entries: Vec<_> = std::fs::read_dir(&*scratch).expect("read").collect();
    assert_eq!(entries.len(), 1, "only keep.txt");
    assert!(
        std::fs::read_dir(scratch.parent().expect("parent"))
            .expect("read")
            .filter_map(Result::ok)
            .all(|e| !e.file_name().to_string_lossy().contains("kubegen-new-")),
        "no staging directory left"
    );
}

#[test]
fn new_refuses_names_kubernetes_would_refuse() {
    let scratch = scratch("scaffold-names", "crate");
    let dir = scratch.join("op");
    let output = kubegen(&[
        "new".as_ref(),
        dir.as_os_str(),
        "--group".as_ref(),
        "example".as_ref(),
        "--version".as_ref(),
        "v1".as_ref(),
        "--kind".as_ref(),
        "Backup".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).starts_with("invalid group `example`"));
    assert!(!dir.exists());
}

/// The scaffold grown into the operator of issue 23's report: a `Backup` with a schedule,
/// an unsigned retention with a default function, a nested target and a status with
/// conditions and a timestamp, keeping an owned ConfigMap (tests/fixtures/scaffold/backup
/// holds exactly the files a user changes). `hack/update-codegen.sh` writes the manifest
/// without compiling; the crate's test checks it equals `Backup::crd()`.
#[test]
fn a_grown_operator_regenerates_and_its_manifest_is_what_crd_builds() {
    let (_scratch, dir) = scaffold("scaffold-backup");
    overlay(Path::new(&fixture("scaffold/backup")), &dir);
    let update = in_crate(&dir, "bash", &["hack/update-codegen.sh"]);
    ok(&update, "hack/update-codegen.sh");
    let warnings = String::from_utf8_lossy(&update.stderr);
    assert!(
        warnings.contains("src/apis/ops/v1.rs:")
            && warnings.contains(
                "warning: `u32`: Kubernetes API conventions advise against unsigned integers"
            ),
        "a warning names the unsigned field's place:\n{warnings}"
    );
    let manifest = std::fs::read_to_string(dir.join("config/crd/ops.example.com_backups.yaml"))
        .expect("manifest");
    assert!(manifest.contains("retentionDays"), "{manifest}");
    tests_verifies_and_converges(&dir);
}
