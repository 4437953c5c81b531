//! Names Kubernetes would reject are input errors: `file:line:column: what was expected`,
//! exit status 2, and nothing written anywhere. Names Kubernetes accepts, however odd for
//! Rust, generate code, and nothing ever lands outside the output directories.
//!
//! One case per rule (apiextensions-apiserver's CRD validation, apimachinery's DNS-1123
//! subdomain and DNS-1035 label checks), for the CRD, Rust and OpenAPI inputs.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod support;

use std::ffi::OsStr;
use std::path::Path;

use kubegen_codegen::__internal::naming::kubernetes::EXPECTED_RESOURCE_NAME;
use support::{kubegen, scratch, stderr, tree};

/// A valid CRD; each case edits one name.
const CRD: &str = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foos.example.com
spec:
  group: example.com
  names:
    kind: Foo
    plural: foos
    singular: foo
    listKind: FooList
    shortNames: [fo]
    categories: [all]
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
";

/// (rule, text to replace, replacement, line, column, start of the message).
#[rustfmt::skip]
const CRD_CASES: &[(&str, &str, &str, u64, u64, &str)] = &[
    ("group is a DNS-1123 subdomain", "group: example.com", "group: Example.com", 6, 10, "invalid group \"Example.com\": expected a DNS-1123 subdomain"),
    ("group has no empty part", "group: example.com", "group: example..com", 6, 10, "invalid group \"example..com\""),
    ("a CRD's group has a dot", "group: example.com", "group: example", 6, 10, "invalid group \"example\": expected a domain with at least one dot"),
    ("version has no dot", "- name: v1\n", "- name: v1.2\n", 16, 11, "invalid version \"v1.2\": expected a DNS-1035 label"),
    ("version has no space", "- name: v1\n", "- name: \"v1 \"\n", 16, 11, "invalid version \"v1 \""),
    ("version is lowercase", "- name: v1\n", "- name: V1\n", 16, 11, "invalid version \"V1\""),
    ("version starts with a letter", "- name: v1\n", "- name: 1v\n", 16, 11, "invalid version \"1v\""),
    ("version has no path", "- name: v1\n", "- name: ../v1\n", 16, 11, "invalid version \"../v1\""),
    ("kind has no space", "kind: Foo\n", "kind: Foo Bar\n", 8, 11, "invalid kind \"Foo Bar\": expected a name like `CronTab`"),
    ("kind starts with a letter", "kind: Foo\n", "kind: 1Foo\n", 8, 11, "invalid kind \"1Foo\""),
    ("kind has no underscore", "kind: Foo\n", "kind: Foo_Bar\n", 8, 11, "invalid kind \"Foo_Bar\""),
    ("kind ends with a letter or digit", "kind: Foo\n", "kind: Foo-\n", 8, 11, "invalid kind \"Foo-\""),
    ("listKind is kind-like", "listKind: FooList", "listKind: Foo List", 11, 15, "invalid listKind \"Foo List\""),
    ("listKind differs from kind", "listKind: FooList", "listKind: Foo", 11, 15, "invalid listKind \"Foo\": expected a list kind different from the kind"),
    ("plural is a DNS-1035 label", "plural: foos", "plural: Foos", 9, 13, "invalid plural \"Foos\""),
    ("singular is a DNS-1035 label", "singular: foo", "singular: foo_1", 10, 15, "invalid singular \"foo_1\""),
    ("short names are DNS-1035 labels", "shortNames: [fo]", "shortNames: [fo, F.o]", 12, 22, "invalid short name \"F.o\""),
    ("categories are DNS-1035 labels", "categories: [all]", "categories: [all things]", 13, 18, "invalid category \"all things\""),
    ("metadata.name is plural.group", "name: foos.example.com", "name: bars.example.com", 4, 9, "invalid metadata.name \"bars.example.com\": expected \"foos.example.com\""),
    ("one storage version", "storage: true", "storage: false", 8, 11, "expected exactly one version of kind `Foo` with `storage: true`, found 0"),
];

/// Runs `generate` on `file` (as `--crd`, `--openapi` or `--rust`) with both outputs and
/// checks the error and that `dir` holds nothing but the inputs afterwards.
fn assert_rejected(flag: &str, file: &Path, dir: &Path, line: u64, column: u64, start: &str) {
    let before = tree(dir);
    let rust = flag == "--rust";
    let input = if rust { file.parent().unwrap() } else { file };
    let mut args = vec![
        std::ffi::OsString::from("generate"),
        flag.into(),
        input.into(),
    ];
    if !rust {
        // Hand-written kinds have their types already: only clients are written.
        args.extend(["--out".into(), dir.join("out").into_os_string()]);
    }
    args.extend(["--clients-out".into(), dir.join("clients").into_os_string()]);
    let output = kubegen(&args);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    // The path as given: a --rust file's is the directory joined with its name.
    let prefix = format!("{}:{line}:{column}: {start}", file.display());
    assert!(
        message.starts_with(&prefix),
        "expected `{prefix}...`, got `{message}`"
    );
    assert_eq!(tree(dir), before, "nothing written");
}

#[test]
fn every_crd_name_kubernetes_rejects_is_an_input_error() {
    for (i, (rule, from, to, line, column, start)) in CRD_CASES.iter().enumerate() {
        let dir = scratch("names", &format!("crd-{i}"));
        let text = CRD.replacen(from, to, 1);
        assert_ne!(text, CRD, "{rule}: the case edits the CRD");
        let file = dir.join("crd.yaml");
        std::fs::write(&file, text).unwrap();
        println!("{rule}");
        assert_rejected("--crd", &file, &dir, *line, *column, start);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn two_kinds_cannot_share_a_plural() {
    let dir = scratch("names", "plural");
    let bar = CRD.replacen("kind: Foo\n", "kind: Bar\n", 1).replacen(
        "listKind: FooList",
        "listKind: BarList",
        1,
    );
    let file = dir.join("crds.yaml");
    std::fs::write(&file, format!("{CRD}---\n{bar}")).unwrap();
    // Kinds are read in name order: `Bar` claims `foos` first, so the error is at the
    // plural of `Foo`, in the first document.
    assert_rejected("--crd", &file, &dir, 9, 13, "invalid plural \"foos\"");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_bad_name_is_reported_in_one_run() {
    let dir = scratch("names", "many");
    let foo = CRD.replacen("plural: foos", "plural: Foos", 1);
    let bar = [
        ("name: foos.example.com", "name: bars.example.com"),
        ("kind: Foo\n", "kind: Bar\n"),
        ("plural: foos", "plural: bars"),
        ("singular: foo", "singular: bar"),
        ("listKind: FooList", "listKind: BarList"),
        ("shortNames: [fo]", "shortNames: [b_r]"),
        ("categories: [all]", "categories: [all things]"),
        ("- name: v1\n", "- name: v2\n"),
    ]
    .iter()
    .fold(CRD.to_owned(), |text, (from, to)| {
        text.replacen(from, to, 1)
    });
    let text = format!("{foo}---\n{bar}");
    let file = dir.join("crds.yaml");
    std::fs::write(&file, &text).unwrap();
    let before = tree(&dir);
    let out = dir.join("out");
    let output = kubegen(&[
        OsStr::new("generate"),
        OsStr::new("--crd"),
        file.as_os_str(),
        OsStr::new("--out"),
        out.as_os_str(),
    ]);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    let at = |name: &str| {
        let (index, line) = text
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains(name))
            .unwrap();
        let column = line.find(name).unwrap() + 1;
        format!("{}:{}:{column}", file.display(), index + 1)
    };
    let expected = EXPECTED_RESOURCE_NAME;
    // In model order (`v1` holds Foo, `v2` Bar), each where it was written, one a line.
    assert_eq!(
        message.lines().collect::<Vec<_>>(),
        [
            format!("{}: invalid plural \"Foos\": {expected}", at("Foos")),
            format!("{}: invalid short name \"b_r\": {expected}", at("b_r")),
            format!(
                "{}: invalid category \"all things\": {expected}",
                at("all things")
            ),
        ]
    );
    assert_eq!(tree(&dir), before, "nothing written");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rust_names_kubernetes_rejects_are_input_errors() {
    #[rustfmt::skip]
    let cases = [
        ("group = \"example\"", 2, 20, "invalid group \"example\""),
        ("group = \"example.com\", version = \"v1.2\"", 2, 45, "invalid version \"v1.2\""),
        ("group = \"example.com\", version = \"v1\", kind = \"1Foo\"", 2, 58, "invalid kind \"1Foo\""),
        ("group = \"example.com\", version = \"v1\", plural = \"Foos\"", 2, 60, "invalid plural \"Foos\""),
    ];
    for (i, (attrs, line, column, start)) in cases.into_iter().enumerate() {
        let dir = scratch("names", &format!("rust-{i}"));
        std::fs::create_dir_all(dir.join("apis")).unwrap();
        let file = dir.join("apis/foo.rs");
        std::fs::write(
            &file,
            format!(
                "#[derive(Resource)]\n#[resource({attrs})]\npub struct Foo {{ metadata: ObjectMeta }}\n"
            ),
        )
        .unwrap();
        assert_rejected("--rust", &file, &dir, line, column, start);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn openapi_names_kubernetes_rejects_are_input_errors() {
    let dir = scratch("names", "openapi");
    let text = std::fs::read_to_string(support::fixture("openapi/v3_widgets.json"))
        .unwrap()
        .replace("\"Gizmo\"", "\"Giz mo\"");
    let file = dir.join("doc.json");
    std::fs::write(&file, &text).unwrap();
    // The path that serves the kind is where its names come from.
    let (index, path) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("/v1/gizmos\""))
        .unwrap();
    let column = path.find('{').unwrap() as u64 + 1;
    assert_rejected(
        "--openapi",
        &file,
        &dir,
        index as u64 + 1,
        column,
        "invalid kind \"Giz mo\"",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Names Kubernetes accepts: a dashed kind, keyword kinds and versions, a dashed
/// version, hostile property names. Everything generated lands under the two outputs.
#[test]
fn accepted_odd_names_generate_only_under_the_outputs() {
    let dir = scratch("names", "accepted");
    let text = CRD
        .replacen("kind: Foo\n", "kind: a-b\n", 1)
        .replacen("listKind: FooList", "listKind: a-bList", 1)
        .replacen("- name: v1\n", "- name: fn\n", 1)
        .replacen(
            "properties: {size: {type: integer}}",
            "properties: {\"../../escape\": {type: string}, \"/etc/passwd\": {type: string}, \
             self: {type: string}, \"mod.rs\": {type: string}}",
            1,
        );
    std::fs::write(dir.join("crd.yaml"), text).unwrap();
    let output = kubegen(&[
        "generate".as_ref(),
        "--crd".as_ref(),
        dir.join("crd.yaml").as_os_str(),
        "--out".as_ref(),
        dir.join("out").as_os_str(),
        "--clients-out".as_ref(),
        dir.join("clients").as_os_str(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let files = tree(&dir);
    assert!(
        files
            .iter()
            .all(|f| f == "crd.yaml" || f.starts_with("out/") || f.starts_with("clients/")),
        "{files:?}"
    );
    assert!(
        files.contains(&"out/example_com/fn_/a_b.rs".to_owned()),
        "{files:?}"
    );
    let types = std::fs::read_to_string(dir.join("out/example_com/fn_/a_b.rs")).unwrap();
    for field in [
        "pub escape: ",
        "pub etc_passwd: ",
        "pub self_: ",
        "pub mod_rs: ",
    ] {
        assert!(types.contains(field), "{field}\n{types}");
    }
    assert!(types.contains("const KIND: &'static str = \"a-b\";"));
    let clientset = std::fs::read_to_string(dir.join("clients/clientset.rs")).unwrap();
    assert!(
        clientset.contains("pub fn example_fn_(&self) -> example_com::fn_::Client"),
        "{clientset}"
    );
    assert!(
        clientset.contains("pub fn a_bs(&self, namespace: &str) -> ABClient"),
        "{clientset}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
