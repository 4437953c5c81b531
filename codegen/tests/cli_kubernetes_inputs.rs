//! `kubegen kubernetes-inputs`: Kubernetes' OpenAPI documents pruned to what kubegen reads.
//! The same documents give the same bytes, `--verify` finds a stale or stray file, input
//! errors are `file:line:column` with exit status 2, and the committed `hack/kubernetes/`
//! is a fixed point (pruning it again gives it back byte for byte).

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod support;

use std::path::{Path, PathBuf};

use support::{checkout, kubegen, kubegen_in, stderr};

fn scratch(name: &str) -> support::Scratch {
    support::scratch("cli_kubernetes_inputs", name)
}

/// The committed inputs: pruned documents, which are documents the command reads.
fn committed() -> PathBuf {
    checkout().join("hack/kubernetes")
}

/// The files of a directory (no subdirectories here), sorted by name.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// A directory of documents: the committed swagger.json and the given v3 documents.
fn documents(dir: &Path, v3: &[(&str, &str)]) -> String {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::copy(committed().join("swagger.json"), dir.join("swagger.json")).unwrap();
    for (name, text) in v3 {
        std::fs::write(dir.join(name), text).unwrap();
    }
    dir.display().to_string()
}

fn run(openapi: &str, out: &str, verify: bool) -> std::process::Output {
    let mut args = vec![
        "kubernetes-inputs",
        "--openapi",
        openapi,
        "--kubernetes-version",
        "1.35",
        "--out",
        out,
    ];
    if verify {
        args.push("--verify");
    }
    kubegen(&args)
}

#[test]
fn committed_inputs_are_a_fixed_point() {
    let dir = scratch("fixed_point");
    let openapi = committed().display().to_string();
    // Run where `--out hack/kubernetes` names the scratch copy, so the headers (which
    // name the command) are those of the committed files.
    let output = kubegen_in(
        &dir,
        &[
            "kubernetes-inputs",
            "--openapi",
            &openapi,
            "--kubernetes-version",
            "1.35",
            "--out",
            "hack/kubernetes",
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let again = files(&dir.join("hack/kubernetes"));
    let names: Vec<&str> = again.iter().map(|(name, _)| name.as_str()).collect();
    assert!(names.contains(&"swagger.json"), "{names:?}");
    assert!(names.contains(&"apis__apps__v1_openapi.json"), "{names:?}");
    assert!(
        again == files(&committed()),
        "pruning the committed inputs changed them"
    );
}

#[test]
fn same_documents_same_bytes_and_verify_finds_stale_files() {
    let dir = scratch("verify");
    let openapi = committed().display().to_string();
    let out = dir.join("inputs");
    let out_s = out.display().to_string();

    let first = run(&openapi, &out_s, false);
    assert!(first.status.success(), "{}", stderr(&first));
    let written = files(&out);
    let again = run(&openapi, &out_s, false);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(files(&out) == written, "a second run wrote other bytes");
    for (name, contents) in &written {
        let text = String::from_utf8_lossy(contents);
        assert!(
            text.starts_with("{\"@generated\": \"by kubegen. DO NOT EDIT.\",\n\"kubernetes\": \"1.35\",\n\"source\": "),
            "{name} lacks the header"
        );
        assert!(text.contains("--kubernetes-version 1.35 --out "), "{name}");
    }

    let current = run(&openapi, &out_s, true);
    assert_eq!(current.status.code(), Some(0), "{}", stderr(&current));

    // A hand edit and a stray file: exit 1, a diff naming both.
    let apps = out.join("apis__apps__v1_openapi.json");
    let edited = std::fs::read_to_string(&apps).unwrap().replacen(
        "\"type\":\"object\"",
        "\"type\":\"string\"",
        1,
    );
    std::fs::write(&apps, edited).unwrap();
    std::fs::write(out.join("stray_openapi.json"), "{}\n").unwrap();
    let stale = run(&openapi, &out_s, true);
    assert_eq!(stale.status.code(), Some(1), "{}", stderr(&stale));
    let diff = String::from_utf8_lossy(&stale.stdout);
    assert!(
        diff.contains("apis__apps__v1_openapi.json (on disk)"),
        "{diff}"
    );
    assert!(
        diff.contains("+") && diff.contains("\"type\":\"object\""),
        "{diff}"
    );
    assert!(diff.contains("stray_openapi.json"), "{diff}");
    assert!(stderr(&stale).contains("is stale"), "{}", stderr(&stale));

    // A file kubegen did not write makes the directory someone else's: refused, untouched.
    let refused = run(&openapi, &out_s, false);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("refusing to replace"),
        "{}",
        stderr(&refused)
    );
    assert!(out.join("stray_openapi.json").exists());

    // Without it, writing again replaces the directory as a whole.
    std::fs::remove_file(out.join("stray_openapi.json")).unwrap();
    let fixed = run(&openapi, &out_s, false);
    assert!(fixed.status.success(), "{}", stderr(&fixed));
    assert!(files(&out) == written);
}

#[test]
fn bad_documents_are_reported_at_file_line_column() {
    let dir = scratch("bad");
    let out = dir.join("out").display().to_string();

    // A v3 document whose `paths` is not a map.
    let docs = dir.join("v3");
    let openapi = documents(
        &docs,
        &[(
            "api__v1_openapi.json",
            "{\"openapi\": \"3.0.0\",\n  \"paths\": [1]}\n",
        )],
    );
    let output = run(&openapi, &out, false);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let message = stderr(&output);
    let file = docs.join("api__v1_openapi.json").display().to_string();
    assert!(message.starts_with(&format!("{file}:2:")), "{message}");
    assert!(!dir.join("out").exists(), "nothing is written on an error");

    // A swagger.json that is not JSON.
    let docs = dir.join("v2");
    let openapi = documents(
        &docs,
        &[("api__v1_openapi.json", "{\"openapi\": \"3.0.0\"}")],
    );
    std::fs::write(
        docs.join("swagger.json"),
        "{\"swagger\": \"2.0\",\n\n  \"definitions\": }",
    )
    .unwrap();
    let output = run(&openapi, &out, false);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let file = docs.join("swagger.json").display().to_string();
    assert!(
        stderr(&output).starts_with(&format!("{file}:3:18: ")),
        "{}",
        stderr(&output)
    );

    // A swagger.json without a kind the testkit serves.
    std::fs::write(
        docs.join("swagger.json"),
        "{\"swagger\": \"2.0\", \"definitions\": {}}",
    )
    .unwrap();
    let output = run(&openapi, &out, false);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("no definition in the OpenAPI document is the kind"),
        "{}",
        stderr(&output)
    );

    // A directory without the documents.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let output = run(&empty.display().to_string(), &out, false);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("no swagger.json"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn kubernetes_layout_with_a_v3_directory_gives_the_same_files() {
    let dir = scratch("layout");
    // Kubernetes' api/openapi-spec/: swagger.json, then v3/*_openapi.json.
    let spec = dir.join("api/openapi-spec");
    std::fs::create_dir_all(spec.join("v3")).unwrap();
    for (name, contents) in files(&committed()) {
        let target = match name.as_str() {
            "swagger.json" => spec.join(&name),
            _ => spec.join("v3").join(&name),
        };
        std::fs::write(target, contents).unwrap();
    }
    let output = kubegen_in(
        &dir,
        &[
            "kubernetes-inputs",
            "--openapi",
            "api/openapi-spec",
            "--kubernetes-version",
            "1.35",
            "--out",
            "hack/kubernetes",
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(files(&dir.join("hack/kubernetes")) == files(&committed()));

    // The same document beside swagger.json and in v3/ is refused.
    std::fs::copy(
        spec.join("v3/apis__apps__v1_openapi.json"),
        spec.join("apis__apps__v1_openapi.json"),
    )
    .unwrap();
    let out = dir.join("twice").display().to_string();
    let twice = run(&spec.display().to_string(), &out, false);
    assert_eq!(twice.status.code(), Some(2), "{}", stderr(&twice));
    assert!(
        stderr(&twice).contains("the same document twice"),
        "{}",
        stderr(&twice)
    );
}
