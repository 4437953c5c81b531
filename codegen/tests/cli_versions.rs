//! `--versions served|storage|v1,v1beta1`: which versions of each kind are generated.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod support;

use support::{fixture, kubegen, scratch, stderr, tree};

/// The version directories `generate --crd versions.yaml --versions <versions>` writes.
/// (`Database` serves v1alpha1 and v1, stores v1, has an unserved v1beta1; `Backup` has v1.)
fn versions_written(versions: Option<&str>) -> Vec<String> {
    let dir = scratch("versions", versions.unwrap_or("default"));
    let out = dir.join("out");
    let mut args = vec![
        "generate".to_owned(),
        "--crd".to_owned(),
        fixture("versions.yaml"),
        "--out".to_owned(),
        out.display().to_string(),
    ];
    if let Some(versions) = versions {
        args.extend(["--versions".to_owned(), versions.to_owned()]);
    }
    let output = kubegen(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    let mut written: Vec<String> = tree(&out)
        .into_iter()
        .filter(|f| f.ends_with(".rs") && !f.ends_with("mod.rs"))
        .collect();
    written.sort();
    let _ = std::fs::remove_dir_all(&dir);
    written
}

#[test]
fn served_is_the_default() {
    let all = [
        "versions_example_com/v1/backup.rs",
        "versions_example_com/v1/database.rs",
        "versions_example_com/v1alpha1/database.rs",
    ];
    assert_eq!(versions_written(None), all);
    assert_eq!(versions_written(Some("served")), all);
}

#[test]
fn storage_selects_the_stored_version_of_each_kind() {
    assert_eq!(
        versions_written(Some("storage")),
        [
            "versions_example_com/v1/backup.rs",
            "versions_example_com/v1/database.rs",
        ]
    );
}

#[test]
fn a_list_selects_those_versions_served_or_not() {
    assert_eq!(
        versions_written(Some("v1alpha1,v1beta1")),
        [
            "versions_example_com/v1alpha1/database.rs",
            "versions_example_com/v1beta1/database.rs",
        ]
    );
}

#[test]
fn a_version_no_input_has_is_an_error() {
    let dir = scratch("versions", "missing");
    let out = dir.join("out");
    let output = kubegen(&[
        "generate",
        "--crd",
        &fixture("versions.yaml"),
        "--versions",
        "v1,v9",
        "--out",
        &out.display().to_string(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("failed to select versions v1,v9: no input has v9 (selected: v1)"),
        "{}",
        stderr(&output)
    );
    assert!(!out.exists(), "nothing written");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn versions_select_hand_written_and_built_in_kinds_too() {
    let dir = scratch("versions", "clients");
    let clients = dir.join("clients");
    let apis = support::rust_apis(&dir);
    let output = kubegen(&[
        "generate",
        "--kubernetes",
        "--rust",
        &apis.display().to_string(),
        "--versions",
        "v2",
        "--clients-out",
        &clients.display().to_string(),
    ]);
    // Neither the Gear (v1) nor most built-in kinds are v2: only autoscaling/v2 is.
    assert!(output.status.success(), "{}", stderr(&output));
    let clientset = std::fs::read_to_string(clients.join("clientset.rs")).unwrap();
    assert!(clientset.contains("pub fn autoscaling_v2(&self)"));
    assert!(!clientset.contains("pub fn apps_v1(&self)"));
    assert!(!clientset.contains("Gear"));
    let _ = std::fs::remove_dir_all(&dir);
}
