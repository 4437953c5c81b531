//! `kubegen generate --style derive`: annotated sources a user owns, which `kubegen crd
//! --rust` reads back; refused where it makes no sense.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod support;

use support::{fixture, kubegen, scratch, stderr};

#[test]
fn derive_style_sources_read_back_into_the_crd() {
    let out = scratch("derive-style", "apis");
    let crds = scratch("derive-style", "crds");
    let crd = fixture("validations.yaml");
    let generate = [
        "generate",
        "--crd",
        crd.as_str(),
        "--out",
        out.to_str().unwrap(),
        "--style",
        "derive",
    ];
    let output = kubegen(&generate);
    assert!(output.status.success(), "{}", stderr(&output));
    let pool = std::fs::read_to_string(out.join("validations_example_com/v1/pool.rs")).unwrap();
    assert!(
        pool.contains("#[derive(Clone, Debug, PartialEq, Resource)]"),
        "{pool}"
    );
    assert!(!pool.contains("DO NOT EDIT"), "the sources are the user's");

    let mut verify = generate.to_vec();
    verify.push("--verify");
    let output = kubegen(&verify);
    assert!(output.status.success(), "{}", stderr(&output));

    let output = kubegen(&[
        "crd",
        "--rust",
        out.to_str().unwrap(),
        "--out",
        crds.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let manifest =
        std::fs::read_to_string(crds.join("validations.example.com_pools.yaml")).unwrap();
    assert!(
        manifest.contains("rule: self.minSize <= self.maxSize"),
        "{manifest}"
    );
    assert!(
        manifest.contains("pattern: ^[a-z]([-a-z0-9]*[a-z0-9])?$"),
        "{manifest}"
    );
}

#[test]
fn derive_style_is_refused_where_it_makes_no_sense() {
    let out = scratch("derive-style-refused", "out");
    let out = out.to_str().unwrap();
    let crd = fixture("validations.yaml");
    let openapi = fixture("wellknown.json");
    let cases: [(&[&str], &str); 3] = [
        (
            &[
                "generate",
                "--openapi",
                &openapi,
                "--out",
                out,
                "--style",
                "derive",
            ],
            "cannot be combined with --openapi",
        ),
        (
            &[
                "generate",
                "--crd",
                &crd,
                "--clients-out",
                out,
                "--style",
                "derive",
            ],
            "cannot be combined with --clients-out",
        ),
        (
            &["generate", "--crd", &crd, "--style", "derive"],
            "--style derive needs --crd",
        ),
    ];
    for (args, expected) in cases {
        let output = kubegen(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).contains(expected),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    // A root object `#[derive(Resource)]` cannot say: file:line:column, exit 2, nothing written.
    let versions = fixture("versions.yaml");
    let output = kubegen(&[
        "generate", "--crd", &versions, "--out", out, "--style", "derive",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(message.starts_with(&format!("{versions}:")), "{message}");
    assert!(
        message.contains("the root object keeps unknown fields"),
        "{message}"
    );
    assert!(!std::path::Path::new(out).join("mod.rs").exists());
    let output = kubegen(&["generate", "--crd", &crd, "--out", out, "--style", "kopium"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("possible values: generated, derive"),
        "{}",
        stderr(&output)
    );
}
