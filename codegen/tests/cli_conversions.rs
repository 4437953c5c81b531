//! `generate --conversions-out`: the conversions of multi-version kinds next to their
//! types, verified like every output, and refused (status 2, nothing written) without the
//! types they convert or with a hub the kind does not have.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod support;

use support::{fixture, kubegen, stderr};

#[test]
fn conversions_are_written_then_verified() {
    let dir = support::scratch("cli_conversions", "written");
    let out = dir.join("generated").display().to_string();
    let conversions = dir.join("conversions");
    let conversions_s = conversions.display().to_string();
    let crd = fixture("versions.yaml");
    let args = [
        "generate",
        "--crd",
        &crd,
        "--out",
        &out,
        "--conversions-out",
        &conversions_s,
    ];

    let first = kubegen(&args);
    assert!(first.status.success(), "{}", stderr(&first));
    let database = conversions.join("versions_example_com/database");
    // v1beta1 is not served, so not read; v1 is the storage version, so the hub.
    let text = std::fs::read_to_string(database.join("v1alpha1.rs")).unwrap();
    assert!(text.starts_with(kubegen_codegen::__internal::emit::HEADER));
    assert!(text.contains("pub fn to_hub<"));
    assert!(!database.join("v1.rs").exists() && !database.join("v1beta1.rs").exists());

    let verify = kubegen(&[&args[..], &["--verify"]].concat());
    assert_eq!(verify.status.code(), Some(0), "{}", stderr(&verify));

    let hub = kubegen(&[&args[..], &["--conversion-hub", "Database=v1alpha1"]].concat());
    assert!(hub.status.success(), "{}", stderr(&hub));
    assert!(database.join("v1.rs").exists());
    assert!(!database.join("v1alpha1.rs").exists());
}

#[test]
fn conversions_need_the_types_they_convert() {
    let dir = support::scratch("cli_conversions", "no_types");
    let conversions = dir.join("conversions").display().to_string();
    let crd = fixture("versions.yaml");
    let output = kubegen(&["generate", "--crd", &crd, "--conversions-out", &conversions]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("--conversions-out converts"),
        "{}",
        stderr(&output)
    );
    assert!(!dir.join("conversions").exists());
}

#[test]
fn a_hub_the_kind_lacks_is_an_input_error() {
    let dir = support::scratch("cli_conversions", "bad_hub");
    let out = dir.join("generated").display().to_string();
    let conversions = dir.join("conversions").display().to_string();
    let crd = fixture("versions.yaml");
    let output = kubegen(&[
        "generate",
        "--crd",
        &crd,
        "--out",
        &out,
        "--conversions-out",
        &conversions,
        "--conversion-hub",
        "Database=v9",
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output)
            .contains("hub Database=v9: Database.versions.example.com has no version v9"),
        "{}",
        stderr(&output)
    );
    assert!(!dir.join("generated").exists() && !dir.join("conversions").exists());
}

#[test]
fn hand_written_kinds_get_conversions_through_their_storage_version() {
    let dir = support::scratch("cli_conversions", "rust");
    let conversions = dir.join("conversions");
    let conversions_s = conversions.display().to_string();
    let apis = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/conversion-roundtrip/src/apis")
        .display()
        .to_string();
    let args = [
        "generate",
        "--rust",
        &apis,
        "--rust-module",
        "crate::apis",
        "--conversions-out",
        &conversions_s,
    ];

    // The hub is the version marked #[resource(storage)]: v1.
    let named = kubegen(&args);
    assert!(named.status.success(), "{}", stderr(&named));
    let gizmo = conversions.join("derived_kubegen_io/gizmo");
    let text = std::fs::read_to_string(gizmo.join("v1alpha1.rs")).unwrap();
    assert!(
        text.contains("from: crate::apis::v1alpha1::Gizmo,"),
        "{text}"
    );
    let entry = std::fs::read_to_string(gizmo.join("mod.rs")).unwrap();
    assert!(entry.contains("pub fn convert<C>("), "{entry}");
    let verify = kubegen(&[&args[..], &["--conversion-hub", "Gizmo=v1", "--verify"]].concat());
    // Naming the storage version changes nothing.
    assert_eq!(verify.status.code(), Some(0), "{}", stderr(&verify));
}
