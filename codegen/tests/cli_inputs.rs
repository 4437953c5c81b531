//! `kubegen generate` given input that is not what it reads (issue 23): misspelt schema
//! keywords and CRD fields, bad printer columns. Each is an input error at
//! `file:line:column`, the path as the user gave it: exit status 2, and the previous output
//! untouched.

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

/// A scratch directory holding `deploy/` (empty) and `out/`, generated from a valid CRD:
/// the output a failing run must leave as it is.
fn workspace(name: &str) -> support::Scratch {
    let dir = support::scratch("cli-inputs", name);
    std::fs::create_dir_all(dir.join("deploy")).unwrap();
    let ok = kubegen_in(
        &dir,
        &["generate", "--crd", &fixture("versions.yaml"), "--out", "out"],
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
    assert_eq!(contents(&dir.join("out")), before, "{crds:?}: out was touched");
    message
}

fn write(dir: &Path, path: &str, text: &str) -> PathBuf {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
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
    let output = kubegen_in(&dir, &["generate", "--openapi", "openapi", "--out", "fresh"]);
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
