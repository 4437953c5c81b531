//! `kubegen generate`: one pipeline, every combination of inputs (`--crd`, `--openapi`,
//! `--rust`, `--kubernetes`) and outputs (`--out`, `--clients-out`). Every accepted
//! combination writes what its inputs describe and verifies clean; every other one is
//! refused by clap (exit 2) with the reason, before anything is read or written.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod support;

use std::path::Path;

use support::{fixture, kubegen, rust_apis, scratch, stderr, tree};

/// The inputs of one run.
#[derive(Clone, Copy, Debug)]
struct Inputs {
    crd: bool,
    openapi: bool,
    rust: bool,
    kubernetes: bool,
}

impl Inputs {
    fn parse(text: &str) -> Self {
        let has = |name: &str| text.split_whitespace().any(|w| w == name);
        Self {
            crd: has("crd"),
            openapi: has("openapi"),
            rust: has("rust"),
            kubernetes: has("kubernetes"),
        }
    }

    /// Every non-empty combination.
    fn all() -> Vec<Self> {
        (1..16u8)
            .map(|bits| Self {
                crd: bits & 1 != 0,
                openapi: bits & 2 != 0,
                rust: bits & 4 != 0,
                kubernetes: bits & 8 != 0,
            })
            .collect()
    }

    fn args(self, dir: &Path) -> Vec<String> {
        let mut args = Vec::new();
        if self.crd {
            args.extend(["--crd".to_owned(), fixture("versions.yaml")]);
        }
        if self.openapi {
            args.extend(["--openapi".to_owned(), fixture("openapi/v3_widgets.json")]);
        }
        if self.rust {
            let apis = rust_apis(dir);
            args.extend(["--rust".to_owned(), apis.display().to_string()]);
        }
        if self.kubernetes {
            args.push("--kubernetes".to_owned());
        }
        args
    }
}

/// Which outputs a run asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Outputs {
    Types,
    Clients,
    Both,
}

impl Outputs {
    fn parse(text: &str) -> Self {
        match text {
            "out" => Outputs::Types,
            "clients-out" => Outputs::Clients,
            _ => Outputs::Both,
        }
    }

    fn types(self) -> bool {
        self != Outputs::Clients
    }

    fn clients(self) -> bool {
        self != Outputs::Types
    }
}

/// Every combination that works (inputs, outputs), one per line of the table.
const ACCEPTED: &[(&str, &str)] = &[
    ("crd", "out"),
    ("crd", "out clients-out"),
    ("openapi", "out"),
    ("openapi", "out clients-out"),
    ("crd openapi", "out"),
    ("crd openapi", "out clients-out"),
    ("rust", "clients-out"),
    ("kubernetes", "clients-out"),
    ("rust kubernetes", "clients-out"),
    ("crd rust", "out clients-out"),
    ("crd kubernetes", "out clients-out"),
    ("crd rust kubernetes", "out clients-out"),
    ("openapi rust", "out clients-out"),
    ("openapi kubernetes", "out clients-out"),
    ("openapi rust kubernetes", "out clients-out"),
    ("crd openapi rust", "out clients-out"),
    ("crd openapi kubernetes", "out clients-out"),
    ("crd openapi rust kubernetes", "out clients-out"),
];

fn run(inputs: Inputs, outputs: Outputs, dir: &Path, verify: bool) -> std::process::Output {
    let mut args = vec!["generate".to_owned()];
    args.extend(inputs.args(dir));
    if outputs.types() {
        args.extend(["--out".to_owned(), dir.join("types").display().to_string()]);
    }
    if outputs.clients() {
        args.extend([
            "--clients-out".to_owned(),
            dir.join("clients").display().to_string(),
            "--types-module".to_owned(),
            "crate::types".to_owned(),
        ]);
    }
    if verify {
        args.push("--verify".to_owned());
    }
    kubegen(&args)
}

/// What an accepted run wrote: the types of exactly the CRD and OpenAPI kinds, and clients
/// of every kind of every input, naming each kind's type where it lives.
fn check_written(inputs: Inputs, outputs: Outputs, dir: &Path, case: &str) {
    let types = tree(&dir.join("types"));
    let has_types = |group: &str| types.iter().any(|p| p.starts_with(group));
    if outputs.types() {
        assert_eq!(
            has_types("versions_example_com/v1/database.rs"),
            inputs.crd,
            "{case}: {types:?}"
        );
        assert_eq!(
            has_types("widgets_example_com/v1/widget.rs"),
            inputs.openapi,
            "{case}: {types:?}"
        );
        assert!(
            !has_types("rusty_example_com") && !has_types("apps"),
            "{case}: {types:?}"
        );
    } else {
        assert!(types.is_empty(), "{case}: no types written");
    }
    if !outputs.clients() {
        assert!(!dir.join("clients").exists(), "{case}: no clients written");
        return;
    }
    assert_eq!(
        tree(&dir.join("clients")),
        ["clientset.rs", "informers.rs", "listers.rs", "mod.rs"],
        "{case}"
    );
    let clientset = std::fs::read_to_string(dir.join("clients/clientset.rs")).unwrap();
    let expectations = [
        (
            inputs.crd,
            "crate::types::versions_example_com::v1::Database",
        ),
        (
            inputs.openapi,
            "crate::types::widgets_example_com::v1::Widget",
        ),
        (inputs.rust, "crate::apis::rusty::v1::Gear"),
        (
            inputs.kubernetes,
            "::kubegen::__private::k8s_openapi::api::apps::v1::Deployment",
        ),
    ];
    for (present, ty) in expectations {
        assert_eq!(clientset.contains(ty), present, "{case}: {ty}");
    }
}

#[test]
fn every_accepted_combination_writes_its_inputs_kinds_and_verifies() {
    for (i, (inputs, outputs)) in ACCEPTED.iter().enumerate() {
        let case = format!("--{inputs} -> --{outputs}");
        let (inputs, outputs) = (Inputs::parse(inputs), Outputs::parse(outputs));
        let dir = scratch("combinations", &format!("accepted-{i}"));
        let written = run(inputs, outputs, &dir, false);
        assert_eq!(
            written.status.code(),
            Some(0),
            "{case}: {}",
            stderr(&written)
        );
        check_written(inputs, outputs, &dir, &case);
        let verified = run(inputs, outputs, &dir, true);
        assert_eq!(
            verified.status.code(),
            Some(0),
            "{case}: {}",
            stderr(&verified)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Why a combination not in [`ACCEPTED`] is refused.
fn reason(inputs: Inputs, outputs: Outputs) -> &'static str {
    let generated = inputs.crd || inputs.openapi;
    let existing = inputs.rust || inputs.kubernetes;
    if outputs.types() && !generated {
        "--out writes the types kubegen generates from --crd and --openapi"
    } else if existing && !outputs.clients() {
        "--rust and --kubernetes kinds only get clients"
    } else {
        "clients of --crd and --openapi kinds name the types generated into --out"
    }
}

#[test]
fn every_other_combination_is_refused_with_the_reason() {
    let mut refused = 0;
    for inputs in Inputs::all() {
        for outputs in [Outputs::Types, Outputs::Clients, Outputs::Both] {
            let accepted = ACCEPTED.iter().any(|(i, o)| {
                let (i, o) = (Inputs::parse(i), Outputs::parse(o));
                (i.crd, i.openapi, i.rust, i.kubernetes, o)
                    == (
                        inputs.crd,
                        inputs.openapi,
                        inputs.rust,
                        inputs.kubernetes,
                        outputs,
                    )
            });
            if accepted {
                continue;
            }
            refused += 1;
            let case = format!("{inputs:?} -> {outputs:?}");
            let dir = scratch("combinations", &format!("refused-{refused}"));
            let output = run(inputs, outputs, &dir, false);
            assert_eq!(output.status.code(), Some(2), "{case}");
            let message = stderr(&output);
            assert!(
                message.starts_with("error: "),
                "{case}: clap's error: {message}"
            );
            assert!(
                message.contains(reason(inputs, outputs)),
                "{case}: {message}"
            );
            assert!(
                !dir.join("types").exists() && !dir.join("clients").exists(),
                "{case}"
            );
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
    assert_eq!(
        refused + ACCEPTED.len(),
        45,
        "15 input sets x 3 output sets"
    );
}

#[test]
fn other_impossible_requests_are_refused_with_the_reason() {
    let dir = scratch("combinations", "other");
    let out = dir.join("out").display().to_string();
    let nested = dir.join("out/clients").display().to_string();
    let crd = fixture("versions.yaml");
    let openapi = fixture("openapi/v3_widgets.json");
    #[rustfmt::skip]
    let cases: &[(&[&str], &str)] = &[
        (&["generate", "--out", &out], "nothing to generate from"),
        (&["generate", "--crd", &crd], "nowhere to write"),
        (
            &["generate", "--crd", &crd, "--out", &out, "--clients-out", &out],
            "--out and --clients-out must be separate directories",
        ),
        (
            &["generate", "--crd", &crd, "--out", &out, "--clients-out", &nested],
            "--out and --clients-out must be separate directories",
        ),
        (
            &["generate", "--openapi", &openapi, "--versions", "storage", "--out", &out],
            "OpenAPI documents do not say which version is the storage version",
        ),
        (
            &["generate", "--crd", &crd, "--versions", "v1.2", "--out", &out],
            "invalid version \"v1.2\"",
        ),
        (&["generate", "--crd", &crd, "--group", "apps", "--out", &out], "--openapi"),
        (&["generate", "--crd", &crd, "--rust-module", "crate::x", "--out", &out], "--rust"),
        (&["generate", "--crd", &crd, "--facade-path", "crate", "--out", &out], "--clients-out"),
        (
            &["generate", "--crd", &crd, "--out", &out, "--apply-out", &nested],
            "--out and --apply-out must be separate directories",
        ),
        (&["generate", "--crd", &crd, "--apply-out", &out], "give --out too"),
        (
            &["generate", "--crd", &crd, "--kubernetes-openapi", &openapi, "--out", &out],
            "required arguments were not provided:\n  --kubernetes\n",
        ),
    ];
    for (args, reason) in cases {
        let output = kubegen(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let message = stderr(&output);
        assert!(message.contains(reason), "{args:?}: {message}");
        assert!(!dir.join("out").exists(), "{args:?}: nothing written");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn openapi_kinds_get_clients() {
    let dir = scratch("combinations", "openapi-clients");
    let output = run(Inputs::parse("openapi"), Outputs::Both, &dir, false);
    assert!(output.status.success(), "{}", stderr(&output));
    let clientset = std::fs::read_to_string(dir.join("clients/clientset.rs")).unwrap();
    assert!(
        clientset.contains("pub fn widgets_v1(&self)"),
        "{clientset}"
    );
    assert!(clientset.contains("pub fn widgets(&self, namespace: &str) -> WidgetClient"));
    assert!(
        clientset.contains("pub fn gizmos(&self) -> GizmoClient"),
        "cluster-scoped"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn apply_out_writes_apply_configurations_beside_the_types() {
    let dir = scratch("combinations", "apply-out");
    let crd = fixture("versions.yaml");
    let out = dir.join("types").display().to_string();
    let apply = dir.join("apply").display().to_string();
    let args = [
        "generate",
        "--crd",
        &crd,
        "--out",
        &out,
        "--apply-out",
        &apply,
    ];
    let output = kubegen(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    let database =
        std::fs::read_to_string(dir.join("apply/versions_example_com/v1/database.rs")).unwrap();
    assert!(
        database.contains("pub struct DatabaseApply {"),
        "{database}"
    );
    assert!(database.contains("crate::generated::versions_example_com::v1::Database"));
    let verify = kubegen(&[&args[..], &["--verify"]].concat());
    assert!(verify.status.success(), "{}", stderr(&verify));
    let _ = std::fs::remove_dir_all(&dir);
}
