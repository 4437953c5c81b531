//! Golden tests of the apply configuration emitter: each CRD fixture in `tests/fixtures/`
//! generates exactly the files under `tests/golden_apply/<fixture>/`; and the built-in kinds'
//! apply configurations from cut-down Kubernetes OpenAPI documents (the whole output, from
//! `hack/kubernetes/`, is the committed `src/generated/applyconfigurations`, checked by
//! verify-codegen).
//!
//! After an intended change to the generated code, re-bless them with:
//!
//!     KUBEGEN_BLESS=1 cargo test -p kubegen-codegen --test golden_apply
//!
//! and review the diff in git. (Apply configurations of a CRD are compiled and exercised
//! by the `kubegen-e2e-api` crate, whose `crd` tree comes from the same emitter.)

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod support;

use std::path::{Path, PathBuf};

use kubegen_codegen::__internal::emit::GeneratedFile;
use kubegen_codegen::__internal::emit::apply::{ApplyOptions, generate_apply};
use kubegen_codegen::__internal::frontend::{Source, crd};
use kubegen_codegen::__internal::model::Model;

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn generate(fixture: &Path) -> Vec<GeneratedFile> {
    let name = fixture.file_name().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(fixture).unwrap();
    let mut model = Model::default();
    crd::load(
        &mut model,
        &[Source::new(name, text)],
        &crd::Options::default(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", fixture.display()));
    generate_apply(&model, &ApplyOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", fixture.display()))
}

#[test]
fn apply_configurations_match_goldens() {
    let mut report = String::new();
    for fixture in fixtures() {
        let files = generate(&fixture);
        let stem = fixture.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden_apply")
            .join(stem);
        report.push_str(&support::golden_report(&fixture, &dir, &files));
    }
    assert!(
        report.is_empty(),
        "generated apply configurations differ from the goldens (re-bless with \
         `KUBEGEN_BLESS=1 cargo test -p kubegen-codegen --test golden_apply` if intended):\n{report}"
    );
}

#[test]
fn every_kind_gets_an_apply_configuration_with_its_setters() {
    for fixture in fixtures() {
        let files = generate(&fixture);
        let text = std::fs::read_to_string(&fixture).unwrap();
        let mut model = Model::default();
        let name = fixture.file_name().unwrap().to_string_lossy().into_owned();
        crd::load(
            &mut model,
            &[Source::new(name, text)],
            &crd::Options::default(),
        )
        .unwrap();
        for resource in model.resources() {
            let apply = format!("pub struct {}Apply {{", resource.root.name);
            let file = files
                .iter()
                .find(|f| f.contents.contains(&apply))
                .unwrap_or_else(|| panic!("{}: no {apply}", fixture.display()));
            let new = match resource.kind.scope {
                kubegen_codegen::__internal::model::Scope::Namespaced => {
                    "pub fn new(name: impl Into<String>, namespace: impl Into<String>)"
                }
                kubegen_codegen::__internal::model::Scope::Cluster => {
                    "pub fn new(name: impl Into<String>)"
                }
            };
            assert!(file.contents.contains(new), "{}: {new}", file.path);
            let metadata = format!(
                "impl ::kubegen::runtime::apply::ApplyMetadata for {}Apply {{",
                resource.root.name
            );
            assert!(
                file.contents.contains(&metadata),
                "{}: {metadata}",
                file.path
            );
            if resource.kind.subresources.status {
                assert!(
                    file.contents.contains("pub fn extract_status("),
                    "{}",
                    file.path
                );
            }
        }
    }
}

#[test]
fn generation_is_deterministic() {
    for fixture in fixtures() {
        assert_eq!(
            generate(&fixture),
            generate(&fixture),
            "{}",
            fixture.display()
        );
    }
}

/// Two of Kubernetes' OpenAPI v3 documents, cut down: apps/v1 Deployment reaching core/v1
/// PodTemplateSpec, and core/v1 serving Pod and the cluster-scoped Namespace.
const APPS_V1: &str = r##"{"openapi": "3.0.0",
  "paths": {"/apis/apps/v1/namespaces/{namespace}/deployments/{name}": {"get":
    {"x-kubernetes-group-version-kind": {"group": "apps", "version": "v1", "kind": "Deployment"}}}},
  "components": {"schemas": {
    "io.k8s.api.apps.v1.Deployment": {"type": "object",
      "x-kubernetes-group-version-kind": [{"group": "apps", "version": "v1", "kind": "Deployment"}],
      "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"},
        "metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]},
        "spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec"}]}}},
    "io.k8s.api.apps.v1.DeploymentSpec": {"type": "object", "required": ["template"], "properties": {
      "replicas": {"type": "integer", "format": "int32"},
      "template": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodTemplateSpec"}]}}},
    "io.k8s.api.core.v1.PodTemplateSpec": {"type": "object", "properties": {
      "metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]},
      "spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodSpec"}]}}},
    "io.k8s.api.core.v1.PodSpec": {"type": "object", "properties": {
      "containers": {"type": "array", "items": {"type": "string"},
        "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]}}},
    "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {"type": "object", "properties": {"name": {"type": "string"}}}
  }}}"##;

const CORE_V1: &str = r##"{"openapi": "3.0.0",
  "paths": {
    "/api/v1/namespaces/{namespace}/pods/{name}": {"get":
      {"x-kubernetes-group-version-kind": {"group": "", "version": "v1", "kind": "Pod"}}},
    "/api/v1/namespaces/{name}": {"get":
      {"x-kubernetes-group-version-kind": {"group": "", "version": "v1", "kind": "Namespace"}}}},
  "components": {"schemas": {
    "io.k8s.api.core.v1.Pod": {"type": "object",
      "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "Pod"}],
      "properties": {"spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodSpec"}]}}},
    "io.k8s.api.core.v1.Namespace": {"type": "object",
      "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "Namespace"}],
      "properties": {"spec": {"type": "object", "properties": {"finalizers": {"type": "array", "items": {"type": "string"}}}}}},
    "io.k8s.api.core.v1.PodSpec": {"type": "object", "properties": {
      "containers": {"type": "array", "items": {"type": "string"},
        "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]}}}
  }}}"##;

#[test]
fn built_in_kinds_mirror_each_definition_once_in_its_own_version() {
    use kubegen_codegen::__internal::frontend::{Input, builtin};
    let documents = [
        Source::new("apis__apps__v1_openapi.json", APPS_V1),
        Source::new("api__v1_openapi.json", CORE_V1),
    ];
    let outputs = kubegen_codegen::__internal::pipeline::Outputs {
        apply: Some(ApplyOptions::default()),
        ..Default::default()
    };
    let generated = kubegen_codegen::__internal::pipeline::generate(
        &[Input::Kubernetes(&documents, builtin::Options::default())],
        &outputs,
    )
    .unwrap();
    let file = |path: &str| {
        generated
            .apply
            .iter()
            .find(|f| f.path == path)
            .unwrap_or_else(|| panic!("no {path}"))
            .contents
            .replace(char::is_whitespace, "")
    };
    let deployment = file("apps/v1/deployment.rs");
    assert!(deployment.contains("pubstructDeploymentSpecApply{"));
    assert!(
        deployment.contains("Option<super::super::super::core::v1::PodTemplateSpecApply>"),
        "{deployment}"
    );
    assert!(deployment.contains(
        "ApplyConfiguration<::kubegen::__private::k8s_openapi::api::apps::v1::Deployment,>forDeploymentApply"
    ), "{deployment}");
    let pod = file("core/v1/pod.rs");
    assert!(pod.contains("Listtype`map`:entriesaremergedbykey(`name`)."));
    assert!(file("core/v1/namespace.rs").contains("pubfnnew(name:implInto<String>)->Self"));
    // The metadata setters: on every root, and on a nested struct with object metadata.
    for (path, name) in [
        ("apps/v1/deployment.rs", "DeploymentApply"),
        ("core/v1/pod.rs", "PodApply"),
        ("core/v1/pod_template_spec.rs", "PodTemplateSpecApply"),
    ] {
        let metadata = format!("::kubegen::runtime::apply::ApplyMetadatafor{name}{{");
        assert!(file(path).contains(&metadata), "{path}: {metadata}");
    }
    assert!(!deployment.contains("ApplyMetadataforDeploymentSpecApply"));
    // Each definition once, whoever reaches it; kinds no document serves get nothing.
    for name in ["PodTemplateSpecApply", "PodSpecApply"] {
        let defined = generated
            .apply
            .iter()
            .filter(|f| f.contents.contains(&format!("pub struct {name} {{")))
            .count();
        assert_eq!(defined, 1, "{name}");
    }
    assert!(generated.apply.iter().all(|f| !f.path.starts_with("batch")));
}
