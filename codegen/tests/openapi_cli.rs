//! `kubegen generate --openapi`: writes and verifies like `--crd`, selects groups, mixes
//! with CRDs, and reports errors as `file:line:column` with status 2 and nothing written.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod support;

use support::{fixture, kubegen, stderr};

fn scratch(name: &str) -> support::Scratch {
    support::scratch("openapi-cli", name)
}

#[test]
fn generate_select_and_verify() {
    let dir = scratch("select");
    let out = dir.join("generated");
    let out_s = out.display().to_string();
    let doc = fixture("openapi/v2_gadgets.yaml");

    let run = kubegen(&[
        "generate",
        "--openapi",
        &doc,
        "--group",
        "gadgets.example.com",
        "--version",
        "v1",
        "--out",
        &out_s,
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(out.join("gadgets_example_com/v1/gadget.rs").is_file());
    assert!(
        !out.join("gadgets_example_com/v1beta1").exists(),
        "only v1 selected"
    );
    assert!(
        !out.join("core").exists(),
        "only the gadgets group selected"
    );

    let verify = kubegen(&[
        "generate",
        "--openapi",
        &doc,
        "--group",
        "gadgets.example.com",
        "--version",
        "v1",
        "--out",
        &out_s,
        "--verify",
    ]);
    assert!(verify.status.success(), "{}", stderr(&verify));
    // The whole document is more than what was written: stale.
    let stale = kubegen(&["generate", "--openapi", &doc, "--out", &out_s, "--verify"]);
    assert_eq!(stale.status.code(), Some(1), "{}", stderr(&stale));
    assert!(String::from_utf8_lossy(&stale.stdout).contains("core/v1/pod.rs"));

    let core = kubegen(&[
        "generate",
        "--openapi",
        &doc,
        "--group",
        "core",
        "--out",
        &out_s,
    ]);
    assert!(core.status.success(), "{}", stderr(&core));
    assert!(out.join("core/v1/pod.rs").is_file());
}

#[test]
fn crds_and_openapi_documents_mix() {
    let dir = scratch("mix");
    let out = dir.join("generated");
    let out_s = out.display().to_string();
    let run = kubegen(&[
        "generate",
        "--crd",
        &fixture("versions.yaml"),
        "--openapi",
        &fixture("openapi/v3_widgets.json"),
        "--out",
        &out_s,
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(out.join("versions_example_com/v1/database.rs").is_file());
    assert!(out.join("widgets_example_com/v1/widget.rs").is_file());
}

#[test]
fn errors_name_the_place_and_write_nothing() {
    let dir = scratch("errors");
    let out = dir.join("generated");
    let out_s = out.display().to_string();
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        "{\n  \"openapi\": \"3.0.0\",\n  \"components\": {\"schemas\": 7}\n}\n",
    )
    .unwrap();
    let run = kubegen(&[
        "generate",
        "--openapi",
        &bad.display().to_string(),
        "--out",
        &out_s,
    ]);
    assert_eq!(run.status.code(), Some(2));
    let message = stderr(&run);
    assert!(
        message.starts_with(&format!("{}:3:", bad.display())),
        "{message}"
    );
    assert!(!out.exists(), "nothing written");

    let unserved = kubegen(&[
        "generate",
        "--openapi",
        &fixture("openapi/v3_widgets.json"),
        "--group",
        "apps",
        "--out",
        &out_s,
    ]);
    assert_eq!(unserved.status.code(), Some(2));
    assert!(
        stderr(&unserved)
            .contains("serve no such group/version (they serve: widgets.example.com/v1)"),
        "{}",
        stderr(&unserved)
    );
    assert!(!out.exists(), "nothing written");

    let no_input = kubegen(&["generate", "--group", "apps", "--out", &out_s]);
    assert_eq!(no_input.status.code(), Some(2), "clap usage error");
}
