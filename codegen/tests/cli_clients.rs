//! `kubegen generate` producing clients: `--crd ... --clients-out`, `--rust`, `--kubernetes`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;
use std::process::Output;

use support::kubegen;

fn scratch(name: &str) -> support::Scratch {
    support::scratch("cli-clients", name)
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn crd_types_and_clients_then_verify() {
    let dir = scratch("crd");
    let crd = dir.join("foo.yaml");
    std::fs::write(&crd, kubegen_codegen::SAMPLE_CRD).unwrap();
    let (types, clients) = (dir.join("types"), dir.join("clients"));
    let args = |verify: bool| {
        let mut args = vec![
            "generate".to_owned(),
            "--crd".to_owned(),
            crd.display().to_string(),
            "--out".to_owned(),
            types.display().to_string(),
            "--clients-out".to_owned(),
            clients.display().to_string(),
            "--types-module".to_owned(),
            "crate::types".to_owned(),
        ];
        if verify {
            args.push("--verify".to_owned());
        }
        args
    };
    let run = |verify| {
        let args = args(verify);
        kubegen(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let output = run(false);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        files(&clients),
        ["clientset.rs", "informers.rs", "listers.rs", "mod.rs"]
    );
    let clientset = std::fs::read_to_string(clients.join("clientset.rs")).unwrap();
    assert!(clientset.contains("crate::types::samplecontroller_k8s_io::v1alpha1::Foo"));
    // The root module refuses a kubegen library of another major.minor version.
    let root = std::fs::read_to_string(clients.join("mod.rs")).unwrap();
    let check = format!(
        "const _KUBEGEN_VERSION_CHECK: () = ::kubegen::__private::VERSION_{}_{};",
        env!("CARGO_PKG_VERSION_MAJOR"),
        env!("CARGO_PKG_VERSION_MINOR")
    );
    assert!(root.contains(&check), "{root}");
    assert!(run(true).status.success());

    std::fs::write(clients.join("listers.rs"), "// edited\n").unwrap();
    let stale = run(true);
    assert_eq!(stale.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&stale.stdout).contains("-// edited"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rust_errors_name_file_line_column_and_write_nothing() {
    let dir = scratch("rust");
    let apis = dir.join("apis");
    std::fs::create_dir_all(apis.join("v1")).unwrap();
    std::fs::write(
        apis.join("v1/mod.rs"),
        "#[derive(Resource)]\n#[resource(group = \"example.com\", verison = \"v1\")]\npub struct Foo { metadata: ObjectMeta }\n",
    )
    .unwrap();
    let out = dir.join("out");
    let output = kubegen(&[
        "generate",
        "--rust",
        apis.to_str().unwrap(),
        "--clients-out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "v1/mod.rs:2:35: unknown resource attribute `verison`; did you mean `version`?"
        ),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing written on error");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kubernetes_clients() {
    let dir = scratch("kubernetes");
    let out = dir.join("kubernetes");
    let output = kubegen(&[
        "generate",
        "--kubernetes",
        "--clients-out",
        out.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let clientset = std::fs::read_to_string(out.join("clientset.rs")).unwrap();
    for accessor in [
        "pub fn core_v1(",
        "pub fn apps_v1(",
        "pub fn rbac_v1(",
        "pub fn storage_v1(",
    ] {
        assert!(clientset.contains(accessor), "{accessor}");
    }
    assert!(clientset.contains("::kubegen::__private::k8s_openapi::api::apps::v1::Deployment"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `generate` on the sample CRD (Foo, with status) writing clients to `clients` in
/// the scratch directory it returns, with `extra`.
fn sample_with(name: &str, extra: &[&str]) -> (Output, support::Scratch) {
    let dir = scratch(name);
    let crd = dir.join("foo.yaml");
    std::fs::write(&crd, kubegen_codegen::SAMPLE_CRD).unwrap();
    let (types, clients) = (dir.join("types"), dir.join("clients"));
    let mut args = vec![
        "generate".to_owned(),
        "--crd".to_owned(),
        crd.display().to_string(),
        "--out".to_owned(),
        types.display().to_string(),
        "--clients-out".to_owned(),
        clients.display().to_string(),
    ];
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    let output = kubegen(&args.iter().map(String::as_str).collect::<Vec<_>>());
    (output, dir)
}

fn foo_alias(clients: &Path) -> String {
    let clientset = std::fs::read_to_string(clients.join("clientset.rs")).unwrap();
    let flat = clientset.split_whitespace().collect::<Vec<_>>().join(" ");
    let start = flat.find("pub type FooClient").expect("a FooClient alias");
    flat[start..].split(';').next().unwrap().to_owned()
}

#[test]
fn verb_options_shape_crd_kinds_clients() {
    let (output, dir) = sample_with("readonly", &["--readonly-kind", "Foo"]);
    let clients = dir.join("clients");
    assert!(output.status.success(), "{output:?}");
    assert!(
        foo_alias(&clients).ends_with(
            "::kubegen::gentype::subresources::Status, ::kubegen::gentype::verbs::ReadOnly, >"
        ),
        "{}",
        foo_alias(&clients)
    );

    let (output, dir) = sample_with(
        "verbs",
        &["--verbs", "Foo=get,patch", "--no-status-verbs", "Foo"],
    );
    let clients = dir.join("clients");
    assert!(output.status.success(), "{output:?}");
    let alias = foo_alias(&clients);
    assert!(
        alias.contains("::kubegen::gentype::subresources::None,"),
        "{alias}"
    );
    let slots: Vec<&str> = alias
        .split("::kubegen::gentype::verbs::")
        .skip(2)
        .map(|slot| slot.trim_end_matches([',', ' ', '>']))
        .collect();
    assert_eq!(slots, ["Yes", "No", "No", "No", "No", "Yes", "No", "No"]);
}

#[test]
fn create_only_kind_gets_a_client_but_no_lister_or_informer() {
    let (output, dir) = sample_with("create-only", &["--verbs", "Foo=create"]);
    let clients = dir.join("clients");
    assert!(output.status.success(), "{output:?}");
    let alias = foo_alias(&clients);
    let slots: Vec<&str> = alias
        .split("::kubegen::gentype::verbs::")
        .skip(2)
        .map(|slot| slot.trim_end_matches([',', ' ', '>']))
        .collect();
    assert_eq!(slots, ["No", "No", "No", "Yes", "No", "No", "No", "No"]);
    let read = |file: &str| std::fs::read_to_string(clients.join(file)).unwrap();
    let clientset = read("clientset.rs");
    assert!(
        clientset.contains("pub fn samplecontroller_v1alpha1("),
        "{clientset}"
    );
    let (listers, informers) = (read("listers.rs"), read("informers.rs"));
    assert!(!listers.contains("FooLister"), "{listers}");
    assert!(
        !listers.contains("pub mod samplecontroller_k8s_io"),
        "{listers}"
    );
    assert!(!informers.contains("FooInformer"), "{informers}");
    assert!(
        !informers.contains("pub fn samplecontroller("),
        "{informers}"
    );
    assert!(
        informers.contains("pub struct InformerFactory"),
        "{informers}"
    );

    let (output, dir) = sample_with("list-no-watch", &["--verbs", "Foo=get,list"]);
    assert!(output.status.success(), "{output:?}");
    let informers = std::fs::read_to_string(dir.join("clients/informers.rs")).unwrap();
    assert!(!informers.contains("FooInformer"), "{informers}");
}

#[test]
fn bad_verb_options_exit_2() {
    let cases: [(&[&str], &str); 4] = [
        (&["--verbs", "Foo=get,lsit"], "unknown verb \"lsit\""),
        (&["--verbs", "get,list"], "expected KIND=VERB,VERB"),
        (
            &["--readonly-kind", "Foo", "--verbs", "Foo=get"],
            "kind `Foo` is given two verb sets",
        ),
        (
            &["--readonly-kind", "Bar"],
            "no input has a kind `Bar` to set the client verbs of (kinds: Foo)",
        ),
    ];
    for (i, (extra, message)) in cases.into_iter().enumerate() {
        let (output, _) = sample_with(&format!("bad-verbs-{i}"), extra);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains(message), "{extra:?}: {stderr}");
    }
}

#[test]
fn no_status_verbs_on_a_kind_without_status_is_an_input_error() {
    let dir = scratch("no-status-verbs");
    let crd = dir.join("zone.yaml");
    let without_status =
        kubegen_codegen::SAMPLE_CRD.replace("      subresources:\n        status: {}\n", "");
    assert_ne!(without_status, kubegen_codegen::SAMPLE_CRD);
    std::fs::write(&crd, &without_status).unwrap();
    let clients = dir.join("clients");
    let output = kubegen(&[
        "generate",
        "--crd",
        crd.to_str().unwrap(),
        "--out",
        dir.join("types").to_str().unwrap(),
        "--clients-out",
        clients.to_str().unwrap(),
        "--no-status-verbs",
        "Foo",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("zone.yaml:")
            && stderr.contains(
                "kind `Foo`: status verbs are left out, but the kind has no status subresource"
            ),
        "{stderr}"
    );
    assert!(!clients.exists(), "nothing is written");
}
