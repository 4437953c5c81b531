//! The OpenAPI documents of the shared corpus (`$KUBEGEN_CORPUS/openapi` or
//! `../shared/corpus/openapi`; skipped with a message where absent) all generate, the same
//! bytes every time, with kinds whose plural, scope and subresources are what the API
//! server serves. (That the output compiles and round-trips objects with k8s-openapi is
//! checked by the `kubegen-openapi-roundtrip` crate.)

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

use std::collections::BTreeMap;
use std::path::PathBuf;

use kubegen_codegen::__internal::emit::{self, GeneratedFile};
use kubegen_codegen::__internal::frontend::{Source, openapi};
use kubegen_codegen::__internal::model::{Model, Scope};

fn corpus() -> Option<Vec<Source>> {
    let root = std::env::var_os("KUBEGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    let dir = root.join("openapi");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return None;
    }
    Some(
        paths
            .iter()
            .map(|p| {
                Source::new(
                    p.file_name().unwrap().to_string_lossy(),
                    std::fs::read_to_string(p).unwrap(),
                )
            })
            .collect(),
    )
}

fn skip() {
    println!("SKIPPED: no OpenAPI corpus (set KUBEGEN_CORPUS or add ../shared/corpus/openapi)");
}

fn load(sources: &[Source], options: &openapi::Options) -> Model {
    let mut model = Model::default();
    openapi::load(&mut model, sources, options).unwrap_or_else(|e| panic!("{e}"));
    model
}

#[test]
fn every_document_generates_deterministically() {
    let Some(sources) = corpus() else {
        return skip();
    };
    let mut lines: BTreeMap<String, usize> = BTreeMap::new();
    for source in &sources {
        let generate = || -> Vec<GeneratedFile> {
            let model = load(std::slice::from_ref(source), &openapi::Options::default());
            emit::generate(&model, &emit::Options::default()).unwrap()
        };
        let files = generate();
        assert_eq!(files, generate(), "{}: deterministic", source.name);
        assert!(files.len() > 2, "{}: generates kinds", source.name);
        if source.name == "swagger.json" {
            continue;
        }
        for file in &files {
            if let Some((group, _)) = file.path.split_once('/') {
                *lines.entry(group.to_owned()).or_default() += file.contents.lines().count();
            }
        }
    }
    println!("lines generated per group (v3 documents): {lines:?}");
}

#[test]
fn kinds_are_what_the_server_serves() {
    let Some(sources) = corpus() else {
        return skip();
    };
    let v3: Vec<Source> = sources
        .into_iter()
        .filter(|s| s.name != "swagger.json")
        .collect();
    let model = load(&v3, &openapi::Options::default());
    let kind = |group: &str, version: &str, kind: &str| {
        let k = &model.groups[group].versions[version].kinds[kind];
        (
            k.names.plural.as_str(),
            k.scope,
            k.subresources.status,
            k.subresources.scale.is_some(),
        )
    };
    assert_eq!(
        kind("apps", "v1", "Deployment"),
        ("deployments", Scope::Namespaced, true, true)
    );
    assert_eq!(
        kind("apps", "v1", "ControllerRevision"),
        ("controllerrevisions", Scope::Namespaced, false, false)
    );
    assert_eq!(
        kind("batch", "v1", "Job"),
        ("jobs", Scope::Namespaced, true, false)
    );
    assert_eq!(
        kind("coordination.k8s.io", "v1", "Lease"),
        ("leases", Scope::Namespaced, false, false)
    );
    assert_eq!(
        kind("", "v1", "Node"),
        ("nodes", Scope::Cluster, true, false)
    );
    assert_eq!(
        kind("", "v1", "Namespace"),
        ("namespaces", Scope::Cluster, true, false)
    );
    assert_eq!(
        kind("", "v1", "ReplicationController"),
        ("replicationcontrollers", Scope::Namespaced, true, true)
    );
    assert_eq!(
        kind("", "v1", "Endpoints"),
        ("endpoints", Scope::Namespaced, false, false)
    );
    assert_eq!(
        kind("rbac.authorization.k8s.io", "v1", "ClusterRole"),
        ("clusterroles", Scope::Cluster, false, false)
    );
    assert_eq!(
        kind("storage.k8s.io", "v1", "StorageClass"),
        ("storageclasses", Scope::Cluster, false, false)
    );
    assert_eq!(
        kind("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
        ("customresourcedefinitions", Scope::Cluster, true, false)
    );
    // Only the group's own package is generated: PodTemplateSpec is k8s-openapi's.
    let apps = &model.groups["apps"].versions["v1"];
    assert!(apps.type_named("DeploymentSpec").is_some());
    assert!(apps.type_named("PodTemplateSpec").is_none());
    assert!(apps.type_named("DeploymentList").is_none());
}

#[test]
fn one_group_of_the_swagger_document() {
    let Some(sources) = corpus() else {
        return skip();
    };
    let swagger: Vec<Source> = sources
        .into_iter()
        .filter(|s| s.name == "swagger.json")
        .collect();
    if swagger.is_empty() {
        return skip();
    }
    let model = load(
        &swagger,
        &openapi::Options::default().group("batch").version("v1"),
    );
    let groups: Vec<&String> = model.groups.keys().collect();
    assert_eq!(groups, ["batch"]);
    let kinds: Vec<&String> = model.groups["batch"].versions["v1"].kinds.keys().collect();
    assert_eq!(kinds, ["CronJob", "Job"]);
}
