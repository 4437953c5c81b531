//! `kubegen generate` given input that is not what it reads (issue 23): no CRD in the
//! `--crd` files, a directory without YAML, misspelt schema keywords and CRD fields, bad
//! printer columns, a v1beta1 CRD. Each is an input error at `file:line:column`, the path
//! as the user gave it: exit status 2, and the previous output untouched.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod support;

use std::path::{Path, PathBuf};

use support::{fixture, kubegen_in, stderr, tree};

const FOO: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: foos.example.com}
spec:
  group: example.com
  names: {kind: Foo, plural: foos}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer}
";

const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec: {replicas: 1}
";

/// A scratch directory holding `deploy/` (empty) and `out/`, generated from a valid CRD:
/// the output a failing run must leave as it is.
fn workspace(name: &str) -> support::Scratch {
    let dir = support::scratch("cli-inputs", name);
    std::fs::create_dir_all(dir.join("deploy")).unwrap();
    let ok = kubegen_in(
        &dir,
        &[
            "generate",
            "--crd",
            &fixture("versions.yaml"),
            "--out",
            "out",
        ],
    );
    assert!(ok.status.success(), "{}", stderr(&ok));
    dir
}

/// Every file under `dir` with its bytes.
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    tree(dir)
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(dir.join(&path)).unwrap();
            (path, bytes)
        })
        .collect()
}

/// Runs `generate --crd <crd...> --out out` in `dir` and asserts an input error whose
/// stderr is `expected` (a line, or the start of one), with `out` untouched.
fn refused(dir: &Path, crds: &[&str], expected: &str) -> String {
    let before = contents(&dir.join("out"));
    let mut args = vec!["generate"];
    for crd in crds {
        args.extend(["--crd", crd]);
    }
    args.extend(["--out", "out"]);
    let output = kubegen_in(dir, &args);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{crds:?}: {message}");
    assert!(
        message.starts_with(expected),
        "{crds:?}:\n  got:  {message}\n  want: {expected}"
    );
    assert_eq!(
        contents(&dir.join("out")),
        before,
        "{crds:?}: out was touched"
    );
    message
}

fn write(dir: &Path, path: &str, text: &str) -> PathBuf {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_file_without_a_crd_is_an_error_and_touches_nothing() {
    let dir = workspace("no-crd");
    write(&dir, "deploy/x.yaml", DEPLOYMENT);
    refused(
        &dir,
        &["deploy/x.yaml"],
        "deploy/x.yaml:2:7: expected a CustomResourceDefinition, found kind `Deployment`\n",
    );
    // Every file is named, with what it holds.
    write(&dir, "deploy/empty.yaml", "");
    let message = refused(
        &dir,
        &["deploy/x.yaml", "deploy/empty.yaml"],
        "deploy/x.yaml:2:7: expected a CustomResourceDefinition, found kind `Deployment`\n\
         deploy/empty.yaml:1:1: expected a CustomResourceDefinition, found an empty file\n",
    );
    assert_eq!(message.lines().count(), 2, "{message}");
    // A directory of them too.
    let message = refused(
        &dir,
        &["deploy"],
        "deploy/empty.yaml:1:1: expected a CustomResourceDefinition, found an empty file\n\
         deploy/x.yaml:2:7: expected a CustomResourceDefinition, found kind `Deployment`\n",
    );
    assert_eq!(message.lines().count(), 2, "{message}");
}

#[test]
fn a_directory_without_yaml_is_an_error() {
    let dir = workspace("empty-dir");
    write(&dir, "deploy/README.md", "# not YAML\n");
    refused(
        &dir,
        &["deploy"],
        "deploy: expected *.yaml, *.yml or *.json files in this directory, found none\n",
    );
    write(&dir, "deploy/crds/foo.yaml", FOO);
    refused(
        &dir,
        &["deploy"],
        "deploy: expected *.yaml, *.yml or *.json files in this directory, found none (its \
         subdirectories are not read)\n",
    );
}

/// As `kubectl apply -f` takes a directory of mixed manifests, other kinds beside CRDs are
/// skipped, in the same file or another.
#[test]
fn other_kinds_beside_crds_are_skipped() {
    let dir = workspace("mixed");
    write(&dir, "deploy/app.yaml", &format!("{DEPLOYMENT}---\n{FOO}"));
    write(
        &dir,
        "deploy/service.yaml",
        "apiVersion: v1\nkind: Service\n",
    );
    let output = kubegen_in(&dir, &["generate", "--crd", "deploy", "--out", "out"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(dir.join("out/example_com/v1/foo.rs").is_file());
}

#[test]
fn misspelt_schema_keywords_and_fields_are_errors_with_help() {
    let dir = workspace("typos");
    let cases = [
        (
            "            properties:\n              replicas",
            "            propertes:\n              replicas",
            "deploy/foo.yaml:18:13: unknown schema keyword `propertes`; did you mean \
             `properties`?\n",
        ),
        (
            "{type: integer}",
            "{type: integer, minimun: 0}",
            "deploy/foo.yaml:19:41: unknown schema keyword `minimun`; did you mean `minimum`?\n",
        ),
        (
            "    served: true",
            "    servd: true",
            "deploy/foo.yaml:10:5: unknown field `servd`; did you mean `served`?\n",
        ),
        (
            "  scope: Namespaced",
            "  scpoe: Namespaced",
            "deploy/foo.yaml:7:3: unknown field `scpoe`; did you mean `scope`?\n",
        ),
    ];
    for (from, to, expected) in cases {
        let text = FOO.replace(from, to);
        assert_ne!(text, FOO, "{from}");
        write(&dir, "deploy/foo.yaml", &text);
        refused(&dir, &["deploy/foo.yaml"], expected);
    }
}

#[test]
fn bad_printer_columns_are_errors_where_they_are_written() {
    let dir = workspace("columns");
    let column = |column: &str| {
        FOO.replace(
            "    storage: true\n",
            &format!("    storage: true\n    additionalPrinterColumns:\n    - {column}\n"),
        )
    };
    let cases = [
        (
            "{name: Replicas, type: int, jsonPath: .spec.replicas}",
            "deploy/foo.yaml:13:30: invalid type \"int\" of printer column `Replicas`; did you \
             mean `integer`?\n",
        ),
        (
            "{name: Age, type: date, format: time, jsonPath: .metadata.creationTimestamp}",
            "deploy/foo.yaml:13:39: invalid format \"time\" of printer column `Age`",
        ),
        (
            "{name: Replicas, type: integer}",
            "deploy/foo.yaml:13:14: printer column `Replicas` needs a `jsonPath`",
        ),
    ];
    for (spec, expected) in cases {
        write(&dir, "deploy/foo.yaml", &column(spec));
        refused(&dir, &["deploy/foo.yaml"], expected);
    }
}

#[test]
fn a_v1beta1_crd_says_how_to_convert_it() {
    let dir = workspace("v1beta1");
    write(
        &dir,
        "deploy/old.yaml",
        concat!(
            "apiVersion: apiextensions.k8s.io/v1beta1\n",
            "kind: CustomResourceDefinition\n",
            "metadata: {name: foos.example.com}\n",
            "spec:\n",
            "  group: example.com\n",
            "  version: v1\n",
            "  names: {kind: Foo, plural: foos}\n",
            "  validation: {openAPIV3Schema: {type: object}}\n",
        ),
    );
    let message = refused(
        &dir,
        &["deploy/old.yaml"],
        "deploy/old.yaml:1:13: apiextensions.k8s.io/v1beta1 CustomResourceDefinitions were \
         removed in Kubernetes 1.22; convert this one to `apiVersion: apiextensions.k8s.io/v1`",
    );
    assert!(message.contains("spec.versions[]"), "{message}");
    assert!(!message.contains("missing field"), "{message}");
}

/// Error paths are the paths as given, relative to the current directory: a `--crd` or
/// `--openapi` file or directory, and the files below a `--rust` directory.
#[test]
fn error_paths_are_as_the_user_gave_them() {
    let dir = workspace("paths");
    write(
        &dir,
        "deploy/crds/foo.yaml",
        &FOO.replace("{type: integer}", "{type: int}"),
    );
    refused(
        &dir,
        &["deploy/crds"],
        "deploy/crds/foo.yaml:19:25: expected `type` to be one of",
    );
    refused(
        &dir,
        &["./deploy/crds/foo.yaml"],
        "./deploy/crds/foo.yaml:19:25:",
    );

    write(
        &dir,
        "openapi/bad.json",
        "{\n  \"openapi\": \"3.0.0\",\n  \"components\": {\"schemas\": 7}\n}\n",
    );
    let output = kubegen_in(
        &dir,
        &["generate", "--openapi", "openapi", "--out", "fresh"],
    );
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(message.starts_with("openapi/bad.json:3:"), "{message}");

    write(
        &dir,
        "src/apis/example/v1.rs",
        "#[derive(Resource)]\n#[resource(group = \"example.com\", verison = \"v1\")]\n\
         pub struct Foo { metadata: ObjectMeta }\n",
    );
    let output = kubegen_in(
        &dir,
        &["generate", "--rust", "src/apis", "--clients-out", "clients"],
    );
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.starts_with(
            "src/apis/example/v1.rs:2:35: unknown resource attribute `verison`; did you mean \
             `version`?"
        ),
        "{message}"
    );
    let output = kubegen_in(&dir, &["crd", "--rust", "src/apis", "--out", "manifests"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).starts_with("src/apis/example/v1.rs:2:35: "),
        "{}",
        stderr(&output)
    );
    for written in ["fresh", "clients", "manifests"] {
        assert!(!dir.join(written).exists(), "{written} was written");
    }
}
