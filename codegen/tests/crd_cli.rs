//! `kubegen crd`: CustomResourceDefinition manifests from `#[derive(Resource)]` sources.
//!
//! Each directory under `tests/fixtures/rust/` gives exactly the manifests under
//! `tests/golden/rust_<name>/`; re-bless them after an intended change with
//!
//!     KUBEGEN_BLESS=1 cargo test -p kubegen-codegen --test crd_cli
//!
//! The CLI writes and verifies them, and reports bad input as `file:line:column` with exit
//! status 2, writing nothing. (`tests/crd_manifests.rs` in the facade checks that the
//! manifests equal what `crd()` builds.)

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod support;

use std::path::{Path, PathBuf};

use kubegen_codegen::__internal::emit;
use kubegen_codegen::{Config, GeneratedFile};

use support::{kubegen, kubegen_in, stderr};

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rust");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    dirs
}

/// The fixture directory `name`.
fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rust")
        .join(name)
}

/// The manifests `kubegen crd --rust <dir>` writes, generated in memory through
/// [`Config`] (the output directory is only named, not written).
fn manifests(dir: &Path) -> Vec<GeneratedFile> {
    let run = Config::new()
        .rust(dir, "crate::apis")
        .manifests_out("config/crd")
        .generate()
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    run.outputs.into_iter().next().unwrap().files
}

fn golden_dir(fixture: &Path) -> PathBuf {
    let name = fixture.file_name().unwrap().to_string_lossy();
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/rust_{name}"))
}

#[test]
fn manifests_match_goldens() {
    let mut report = String::new();
    for fixture in fixtures() {
        let files = manifests(&fixture);
        let dir = golden_dir(&fixture);
        report.push_str(&support::golden_report(&fixture, &dir, &files));
    }
    assert!(
        report.is_empty(),
        "manifests differ from the goldens (re-bless with `KUBEGEN_BLESS=1 cargo test -p \
         kubegen-codegen --test crd_cli` if intended):\n{report}"
    );
}

#[test]
fn manifests_are_deterministic() {
    for fixture in fixtures() {
        assert_eq!(manifests(&fixture), manifests(&fixture));
    }
}

/// A fresh scratch directory for one of this file's tests.
fn scratch(name: &str) -> support::Scratch {
    support::scratch("crd", name)
}

#[test]
fn writes_then_verifies() {
    let dir = scratch("verify");
    let out = dir.join("crd");
    let out_s = out.display().to_string();
    let fixture = fixture("widgets").display().to_string();
    let first = kubegen(&["crd", "--rust", &fixture, "--out", &out_s]);
    assert!(first.status.success(), "{}", stderr(&first));
    let ok = kubegen(&["crd", "--rust", &fixture, "--out", &out_s, "--verify"]);
    assert!(ok.status.success(), "{}", stderr(&ok));

    let path = out.join("widgets.example.com_widgets.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("minimum: 1", "minimum: 2")).unwrap();
    let stale = kubegen(&["crd", "--rust", &fixture, "--out", &out_s, "--verify"]);
    assert_eq!(stale.status.code(), Some(1));
    let diff = String::from_utf8_lossy(&stale.stdout).into_owned();
    assert!(
        diff.contains("-                      minimum: 2\n+                      minimum: 1\n"),
        "{diff}"
    );

    // Rewriting replaces the generated directory as a whole.
    std::fs::write(out.join("old_manifest.yaml"), emit::crd::YAML_HEADER).unwrap();
    let again = kubegen(&["crd", "--rust", &fixture, "--out", &out_s]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(!out.join("old_manifest.yaml").exists());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn refuses_a_directory_it_did_not_write() {
    let dir = scratch("foreign");
    let out = dir.join("crd");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("mine.yaml"), "kind: Namespace\n").unwrap();
    let fixture = fixture("widgets").display().to_string();
    let output = kubegen(&[
        "crd",
        "--rust",
        &fixture,
        "--out",
        &out.display().to_string(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("refusing to replace"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        std::fs::read_to_string(out.join("mine.yaml")).unwrap(),
        "kind: Namespace\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each bad source is an input error at its place, named as the path was given (relative
/// to the current directory, below `--rust`): exit status 2, nothing written.
#[test]
fn bad_input_names_file_line_column_and_writes_nothing() {
    let header = "#[derive(Resource)]\n#[resource(group = \"example.com\", version = \"v1\")]\npub struct Foo { pub metadata: ObjectMeta, pub spec: FooSpec }\n";
    let cases: &[(&str, &str)] = &[
        (
            "pub struct FooSpec { pub size: u128 }\n",
            "src/v1.rs:4:32: `kubegen crd` cannot read the schema of `u128` (not defined once in the sources, nor a number or k8s-openapi type whose schema it knows); give the field `#[schemars(schema_with",
        ),
        (
            "pub struct FooSpec { pub selector: LabelSelector }\n",
            "src/v1.rs:4:36: `kubegen crd` cannot read the schema of `LabelSelector` (not defined once in the sources, nor a number or k8s-openapi type whose schema it knows); if it is k8s-openapi's, import it by its path: `use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;`",
        ),
        (
            "#[serde(rename_all = \"camelcase\")]\npub struct FooSpec { pub a: String }\n",
            "src/v1.rs:4:22: unknown rename_all rule; expected one of lowercase, UPPERCASE",
        ),
        (
            "pub struct FooSpec { #[serde(flaten)] pub a: Other }\n",
            "src/v1.rs:4:30: `kubegen crd` cannot follow `#[serde(flaten)]` without compiling the crate; did you mean `flatten`? (it reads rename, default,",
        ),
        (
            "pub struct FooSpec { #[serde(flatten)] pub a: Other }\npub struct Other { pub b: String }\n",
            "src/v1.rs:4:44: `kubegen crd` reads `#[serde(flatten)]` on maps with `String` keys",
        ),
        (
            "pub struct FooSpec { #[serde(default = \"three\")] pub a: i32 }\n",
            "src/v1.rs:4:40: `kubegen crd` cannot find the default function `three` in the sources",
        ),
        (
            "pub struct FooSpec { #[serde(default = \"three\")] pub a: i32 }\nfn three() -> i32 { 1 + 2 }\n",
            "src/v1.rs:5:21: `kubegen crd` reads default functions whose body is a literal",
        ),
        (
            "pub struct FooSpec { pub next: Option<Box<FooSpec>> }\n",
            "src/v1.rs:4:12: `FooSpec` contains itself",
        ),
        (
            "pub struct FooSpec { #[schemars(schema_with = \"s\")] pub a: X }\nfn s(_: &mut G) -> Schema { build() }\n",
            "src/v1.rs:5:4: `kubegen crd` reads `schema_with` functions that end in a `json_schema!({...})` literal",
        ),
        (
            "pub struct FooSpec { #[schemars(extend(\"x-kubernetes-list-type\" = \"list\"))] pub a: Vec<String> }\n",
            "src/v1.rs:4:81: `x-kubernetes-list-type` must be `atomic`, `set` or `map`",
        ),
        (
            "pub enum FooSpec { A(String) }\n",
            "src/v1.rs:4:20: `kubegen crd` reads enums of unit variants",
        ),
    ];
    let dir = scratch("bad");
    let out = dir.join("crd");
    for (spec, expected) in cases {
        let src = dir.join("src");
        let _ = std::fs::remove_dir_all(&src);
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("v1.rs"), format!("{header}{spec}")).unwrap();
        let output = kubegen_in(&dir, &["crd", "--rust", "src", "--out", "crd"]);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{spec}: {message}");
        assert!(
            message.starts_with(expected),
            "{spec}:\n  got:  {message}\n  want: {expected}"
        );
        assert!(!out.exists(), "{spec}: something was written");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 23: the kinds `crd()` accepts, `kubegen crd` writes (the manifest is the golden
/// `rust_backups`, which `tests/crd_manifests.rs` checks against `crd()`), warning at their
/// places about the numbers Kubernetes' API conventions advise against.
#[test]
fn warns_about_numbers_and_writes_the_manifest() {
    let dir = scratch("backups");
    let out = dir.join("crd");
    let fixture = fixture("backups");
    let output = kubegen(&[
        "crd".as_ref(),
        "--rust".as_ref(),
        fixture.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let message = stderr(&output);
    assert!(output.status.success(), "{message}");
    assert_number_warnings(&fixture, &message);
    let written = std::fs::read_to_string(out.join("ops.example.com_backups.yaml")).unwrap();
    let golden =
        std::fs::read_to_string(golden_dir(&fixture).join("ops.example.com_backups.yaml")).unwrap();
    assert_eq!(written, golden);
}

/// `message` warns at the places of `backups`' unsigned and floating-point fields.
fn assert_number_warnings(fixture: &Path, message: &str) {
    let warnings: Vec<&str> = message
        .lines()
        .filter(|line| line.contains(": warning: "))
        .collect();
    // Places are printed as the user named the file: under the --rust directory given.
    let prefix = format!("{}/", fixture.display());
    let places: Vec<&str> = warnings
        .iter()
        .map(|w| w.split(": warning: ").next().unwrap_or_default())
        .map(|place| place.strip_prefix(prefix.as_str()).unwrap_or(place))
        .collect();
    assert_eq!(
        places,
        [
            "v1.rs:45:25",
            "v1.rs:47:28",
            "v1.rs:58:27",
            "v1.rs:106:19",
            "v1.rs:109:15"
        ],
        "{message}"
    );
    assert!(
        warnings[0].ends_with(
            "warning: `u32`: Kubernetes API conventions advise against unsigned integers: use \
             i32 or i64 (with `#[schemars(range(min = 0))]` if negative values are invalid)"
        ),
        "{message}"
    );
    assert!(
        warnings[2]
            .contains("`f64`: Kubernetes API conventions advise against floating-point numbers"),
        "{message}"
    );
}

/// A CRD whose extensions have the wrong shape is an input error where it is written.
#[test]
fn bad_extensions_in_crd_input_are_located() {
    let crd = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: pools.example.com}
spec:
  group: example.com
  names: {kind: Pool, plural: pools}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          zones:
            type: array
            x-kubernetes-list-type: list
            items: {type: string}
";
    let error = Config::new()
        .crd_text("bad.yaml", crd)
        .types_out("generated")
        .generate()
        .unwrap_err();
    assert!(error.is_input());
    assert_eq!(
        error.to_string(),
        "bad.yaml:17:13: `x-kubernetes-list-type` must be `atomic`, `set` or `map`"
    );
}

/// A kind with several versions is one CRD, newest version first, the version marked
/// `#[resource(storage)]` stored; `--conversion-webhook` makes it convert through a
/// Service, with cert-manager's CA injection; `--versions storage` keeps one version.
#[test]
fn a_kind_with_several_versions_is_one_crd_converted_by_the_webhook_named() {
    let dir = scratch("versions");
    let out = dir.join("crd");
    let out_s = out.display().to_string();
    let fixture = fixture("multiversion").display().to_string();
    let written = kubegen(&[
        "crd",
        "--rust",
        &fixture,
        "--out",
        &out_s,
        "--conversion-webhook",
        "gadget-system/gadget-webhook:9443",
        "--cert-manager",
        "gadget-system/serving-cert",
    ]);
    assert!(written.status.success(), "{}", stderr(&written));
    let text = std::fs::read_to_string(out.join("gadgets.example.com_gadgets.yaml")).unwrap();
    let crd: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    let versions: Vec<(&str, bool)> = crd["spec"]["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["name"].as_str().unwrap(), v["storage"].as_bool().unwrap()))
        .collect();
    assert_eq!(versions, [("v1", true), ("v1alpha1", false)]);
    assert_eq!(
        crd["spec"]["conversion"],
        serde_json::json!({
            "strategy": "Webhook",
            "webhook": {
                "conversionReviewVersions": ["v1"],
                "clientConfig": {"service": {"namespace": "gadget-system", "name": "gadget-webhook", "path": "/convert", "port": 9443}}
            }
        })
    );
    assert_eq!(
        crd["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
        "gadget-system/serving-cert"
    );

    let storage_only = kubegen(&[
        "crd",
        "--rust",
        &fixture,
        "--out",
        &out_s,
        "--versions",
        "storage",
    ]);
    assert!(storage_only.status.success(), "{}", stderr(&storage_only));
    let text = std::fs::read_to_string(out.join("gadgets.example.com_gadgets.yaml")).unwrap();
    let crd: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    assert_eq!(crd["spec"]["versions"].as_array().unwrap().len(), 1);
    assert_eq!(crd["spec"]["versions"][0]["name"], "v1");
    assert!(crd["spec"].get("conversion").is_none());

    let bad = kubegen(&[
        "crd",
        "--rust",
        &fixture,
        "--out",
        &out_s,
        "--conversion-webhook",
        "gadget-webhook",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("expected NAMESPACE/SERVICE[:PORT][/PATH]"),
        "{}",
        stderr(&bad)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two versions of a kind and no `#[resource(storage)]`, or two of them: refused at the
/// struct, nothing written.
#[test]
fn several_versions_need_exactly_one_storage_mark() {
    let dir = scratch("storage");
    let version = |v: &str, storage: &str| {
        format!(
            "#[derive(Resource)]\n#[resource(group = \"example.com\", version = \"{v}\"{storage})]\npub struct Foo {{ pub metadata: ObjectMeta }}\n"
        )
    };
    for (storage, expected) in [
        (
            "",
            "src/v1.rs:3:12: kind `Foo` of group `example.com` has versions v1, v1alpha1: exactly one must be the storage version, marked #[resource(storage)] (found 0)",
        ),
        (
            ", storage",
            "src/v1alpha1.rs:3:12: kind `Foo` of group `example.com` has versions v1, v1alpha1: exactly one must be the storage version, marked #[resource(storage)] (found 2)",
        ),
    ] {
        let src = dir.join("src");
        let _ = std::fs::remove_dir_all(&src);
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("v1.rs"), version("v1", storage)).unwrap();
        std::fs::write(src.join("v1alpha1.rs"), version("v1alpha1", storage)).unwrap();
        let output = kubegen_in(&dir, &["crd", "--rust", "src", "--out", "crd"]);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert!(
            stderr(&output).starts_with(expected),
            "got: {}",
            stderr(&output)
        );
        assert!(!dir.join("crd").exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
