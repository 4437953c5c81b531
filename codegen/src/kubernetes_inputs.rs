//! Kubernetes' OpenAPI documents pruned to what kubegen reads of them, for a repository to
//! commit (`cargo kubegen kubernetes-inputs`): generation from the pruned copies gives the
//! same output as from the whole documents, so the trees generated from them can be
//! regenerated and verified without the documents.
//!
//! From a directory laid out as Kubernetes' `api/openapi-spec/` (`swagger.json`, what
//! kube-apiserver serves at `/openapi/v2`; `v3/<path>_openapi.json` for each
//! `/openapi/v3/<path>`, `/` written `__`; the v3 documents may also sit beside
//! `swagger.json`), it writes files of the same names into one directory:
//!
//! - `swagger.json`: what [`testkit_tables`] reads ([`testkit_tables::pruned`]: the
//!   definitions the testkit's served kinds reach, whole);
//! - each `*_openapi.json` that serves a built-in kind of kubegen's table: what
//!   `generate --kubernetes --kubernetes-openapi` reads of it for the apply configurations
//!   (the kinds' resource paths and the definitions they reach, each schema node with only
//!   the keys the OpenAPI front-end reads). A document serving none is left out.
//!
//! Each file starts with [`JSON_HEADER`], then names its source document, the Kubernetes
//! version and the command that regenerates it; one path or definition per line, sorted,
//! so that a new Kubernetes version reads as a diff.
//!
//! ```
//! use kubegen_codegen::__internal::frontend::Source;
//! use kubegen_codegen::__internal::kubernetes_inputs::{Header, generate};
//!
//! let swagger = Source::new("swagger.json", r#"{"swagger": "2.0", "info": {"title": "Kubernetes"},
//!   "definitions": {"io.k8s.api.core.v1.ConfigMap": {
//!     "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "ConfigMap"}]},
//!     "io.k8s.api.core.v1.ConfigMapList": {
//!     "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "ConfigMapList"}]}}}"#);
//! let header = Header { kubernetes_version: "1.35".to_owned(), regenerate: "make inputs".to_owned() };
//! let kinds = [kubegen_codegen::__internal::testkit_tables::ServedKind { group: "", version: "v1", kind: "ConfigMap" }];
//! let files = generate(&swagger, &[], &kinds, &header)?;
//! assert_eq!(files[0].path, "swagger.json");
//! assert!(files[0].contents.contains("\"kubernetes\": \"1.35\""));
//! assert!(!files[0].contents.contains("info"), "only what is read is kept");
//! # Ok::<(), kubegen_codegen::__internal::kubernetes_inputs::Error>(())
//! ```

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::emit::{GeneratedFile, JSON_HEADER};
use crate::frontend::{self, Source, builtin, openapi};
use crate::model::Model;
use crate::testkit_tables::{self, ServedKind};

/// The name of the OpenAPI v2 document, in the directory read and in the one written.
pub const SWAGGER: &str = "swagger.json";

/// The suffix of the OpenAPI v3 documents' file names.
pub const V3_SUFFIX: &str = "_openapi.json";

/// Why the inputs could not be derived.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or directory could not be read.
    #[error("failed to read {}: {reason}", path.display())]
    Read {
        /// The path.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The directory lacks a document every run needs.
    #[error("{}: no {expected} in this directory (Kubernetes' api/openapi-spec layout: swagger.json, and *_openapi.json in it or in v3/)", dir.display())]
    Missing {
        /// The directory.
        dir: PathBuf,
        /// What is missing.
        expected: &'static str,
    },
    /// The same document name in the directory and in its `v3/`.
    #[error("{} and {}: the same document twice", first.display(), second.display())]
    Twice {
        /// One.
        first: PathBuf,
        /// The other.
        second: PathBuf,
    },
    /// `swagger.json` is not JSON.
    #[error("{file}:{line}:{column}: {reason}")]
    Json {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// serde_json's message.
        reason: String,
    },
    /// An OpenAPI v3 document is not what the OpenAPI front-end reads.
    #[error(transparent)]
    Frontend(#[from] frontend::Error),
    /// `swagger.json` lacks what the testkit's tables need.
    #[error("{file}: {error}")]
    Tables {
        /// The file.
        file: String,
        /// What is wrong.
        error: testkit_tables::Error,
    },
}

impl Error {
    /// Whether the error is in an input (exit status 2) rather than reading it.
    pub fn is_input(&self) -> bool {
        !matches!(self, Error::Read { .. })
    }
}

/// What each file says of where it comes from, after [`JSON_HEADER`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The Kubernetes version the documents are of (`1.35`): the documents do not say
    /// (`info.version` is `unversioned` in Kubernetes' `api/openapi-spec/`).
    pub kubernetes_version: String,
    /// The command that regenerates the files.
    pub regenerate: String,
}

/// The documents of a directory laid out as Kubernetes' `api/openapi-spec/`: its
/// `swagger.json` and the `*_openapi.json` in it and in its `v3/`, sorted by file name;
/// other files are ignored.
pub fn read_dir(dir: &Path) -> Result<(Source, Vec<Source>), Error> {
    let read = |path: &Path| {
        std::fs::read_to_string(path).map_err(|e| Error::Read {
            path: path.to_owned(),
            reason: e.to_string(),
        })
    };
    let mut v3 = v3_documents(dir)?;
    let nested = dir.join("v3");
    if nested.is_dir() {
        v3.extend(v3_documents(&nested)?);
    }
    v3.sort_by(|a, b| (a.file_name(), a).cmp(&(b.file_name(), b)));
    if let Some(pair) = v3.windows(2).find(|w| w[0].file_name() == w[1].file_name()) {
        return Err(Error::Twice {
            first: pair[0].clone(),
            second: pair[1].clone(),
        });
    }
    let swagger_path = dir.join(SWAGGER);
    if !swagger_path.is_file() {
        return Err(Error::Missing {
            dir: dir.to_owned(),
            expected: SWAGGER,
        });
    }
    if v3.is_empty() {
        return Err(Error::Missing {
            dir: dir.to_owned(),
            expected: "*_openapi.json",
        });
    }
    let source = |path: PathBuf| -> Result<Source, Error> {
        let text = read(&path)?;
        Ok(Source::new(path.display().to_string(), text))
    };
    let swagger = source(swagger_path)?;
    let documents = v3.into_iter().map(source).collect::<Result<_, _>>()?;
    Ok((swagger, documents))
}

/// The `*_openapi.json` files of `dir`.
fn v3_documents(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let failed = |e: std::io::Error| Error::Read {
        path: dir.to_owned(),
        reason: e.to_string(),
    };
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(failed)? {
        let path = entry.map_err(failed)?.path();
        let is_v3 = path
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.ends_with(V3_SUFFIX));
        if is_v3 && path.is_file() {
            out.push(path);
        }
    }
    Ok(out)
}

/// The pruned copies of `swagger` (for the testkit's tables of `served` kinds) and of
/// `documents` (for the apply configurations of kubegen's built-in kinds), as files named
/// after the sources' file names (see the [module docs](self)).
pub fn generate(
    swagger: &Source,
    documents: &[Source],
    served: &[ServedKind],
    header: &Header,
) -> Result<Vec<GeneratedFile>, Error> {
    let v2: Value = serde_json::from_str(&swagger.text).map_err(|e| Error::Json {
        file: swagger.name.clone(),
        line: e.line(),
        column: e.column(),
        reason: e.to_string(),
    })?;
    let v2 = testkit_tables::pruned(&v2, served).map_err(|error| Error::Tables {
        file: swagger.name.clone(),
        error,
    })?;
    let mut files = vec![GeneratedFile {
        path: SWAGGER.to_owned(),
        contents: render(SWAGGER, &v2, header),
    }];
    let mut model = Model::default();
    builtin::load(&mut model, &builtin::Options::default())?;
    let pruned = openapi::prune_for_external_fields(&model, documents)?;
    for (source, document) in documents.iter().zip(pruned) {
        let serves_none = document
            .get("paths")
            .and_then(Value::as_object)
            .is_none_or(Map::is_empty);
        if serves_none {
            continue;
        }
        let name = file_name(&source.name);
        files.push(GeneratedFile {
            path: name.to_owned(),
            contents: render(name, &document, header),
        });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// The last component of a source's name.
fn file_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

/// The endpoint kube-apiserver serves a document of Kubernetes' `api/openapi-spec/` at.
fn endpoint(file: &str) -> String {
    match file.strip_suffix(V3_SUFFIX) {
        Some(path) => format!("/openapi/v3/{}", path.replace("__", "/")),
        None => "/openapi/v2".to_owned(),
    }
}

/// One JSON object: the header members, then the document's members, objects of many
/// entries (`paths`, `definitions`, `components.schemas`) one entry per line.
fn render(file: &str, document: &Value, header: &Header) -> String {
    let string = |text: &str| Value::String(text.to_owned()).to_string();
    let mut lines = vec![
        format!("\"kubernetes\": {}", string(&header.kubernetes_version)),
        format!(
            "\"source\": {}",
            string(&format!(
                "{file} of Kubernetes {} (kube-apiserver's {}), pruned to what kubegen reads",
                header.kubernetes_version,
                endpoint(file)
            ))
        ),
        format!("\"regenerate\": {}", string(&header.regenerate)),
    ];
    for (key, value) in document.as_object().into_iter().flatten() {
        let rendered = match (key.as_str(), value) {
            ("paths" | "definitions", Value::Object(entries)) => entries_per_line(entries),
            ("components", Value::Object(components)) => {
                let members: Vec<String> = components
                    .iter()
                    .map(|(name, value)| match value {
                        Value::Object(entries) => {
                            format!("{}: {}", string(name), entries_per_line(entries))
                        }
                        other => format!("{}: {other}", string(name)),
                    })
                    .collect();
                format!("{{{}}}", members.join(", "))
            }
            _ => value.to_string(),
        };
        lines.push(format!("{}: {rendered}", string(key)));
    }
    format!("{JSON_HEADER}{}\n}}\n", lines.join(",\n"))
}

fn entries_per_line(entries: &Map<String, Value>) -> String {
    if entries.is_empty() {
        return "{}".to_owned();
    }
    let lines: Vec<String> = entries
        .iter()
        .map(|(name, value)| format!("{}: {value}", Value::String(name.clone())))
        .collect();
    format!("{{\n{}\n}}", lines.join(",\n"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const SWAGGER_DOC: &str = r##"{"swagger": "2.0", "definitions": {
      "io.k8s.api.core.v1.ConfigMap": {"description": "cm",
        "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "ConfigMap"}]},
      "io.k8s.api.core.v1.ConfigMapList": {
        "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "ConfigMapList"}]},
      "io.k8s.api.core.v1.Unused": {"type": "object"}}}"##;

    const CORE: &str = r##"{"openapi": "3.0.0", "info": {"version": "unversioned"},
      "paths": {
        "/api/v1/namespaces/{namespace}/configmaps/{name}": {"parameters": [{"name": "name"}],
          "get": {"description": "read", "x-kubernetes-group-version-kind": {"group": "", "version": "v1", "kind": "ConfigMap"}}},
        "/api/v1/watch/namespaces/{namespace}/configmaps": {
          "get": {"x-kubernetes-group-version-kind": {"group": "", "version": "v1", "kind": "ConfigMap"}}},
        "/api/v1/namespaces/{namespace}/bindings": {
          "post": {"x-kubernetes-group-version-kind": {"group": "", "version": "v1", "kind": "Binding"}}}},
      "components": {"schemas": {
        "io.k8s.api.core.v1.ConfigMap": {"type": "object", "description": "A map.",
          "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "ConfigMap"}],
          "properties": {
            "metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "default": {}},
            "data": {"type": "object", "additionalProperties": {"type": "string", "example": "x"}}}},
        "io.k8s.api.core.v1.Binding": {"type": "object",
          "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "Binding"}]},
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {"type": "object", "externalDocs": {"url": "x"},
          "properties": {"name": {"type": "string", "uniqueItems": false}}}}}}"##;

    /// apps/v1 Deployment reaching core/v1 PodTemplateSpec, which the core document above
    /// does not reach: its fields are built from this document's copy.
    const APPS: &str = r##"{"openapi": "3.0.0",
      "paths": {"/apis/apps/v1/namespaces/{namespace}/deployments": {
        "get": {"x-kubernetes-group-version-kind": {"group": "apps", "version": "v1", "kind": "Deployment"}}}},
      "components": {"schemas": {
        "io.k8s.api.apps.v1.Deployment": {"type": "object", "description": "A Deployment.",
          "x-kubernetes-group-version-kind": [{"group": "apps", "version": "v1", "kind": "Deployment"}],
          "properties": {
            "metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]},
            "template": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodTemplateSpec"}]}}},
        "io.k8s.api.core.v1.PodTemplateSpec": {"type": "object", "description": "A template.",
          "properties": {"metadata": {"description": "Its metadata.",
            "allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]}}},
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {"type": "object", "description": "Metadata.",
          "properties": {"name": {"type": "string", "description": "The name."}}}}}}"##;

    const SERVED: &[ServedKind] = &[ServedKind {
        group: "",
        version: "v1",
        kind: "ConfigMap",
    }];

    fn header() -> Header {
        Header {
            kubernetes_version: "1.35".to_owned(),
            regenerate: "cargo kubegen kubernetes-inputs".to_owned(),
        }
    }

    fn files() -> Vec<GeneratedFile> {
        let swagger = Source::new("dir/swagger.json", SWAGGER_DOC);
        let core = Source::new("dir/api__v1_openapi.json", CORE);
        let apps = Source::new("dir/apis__apps__v1_openapi.json", APPS);
        generate(&swagger, &[core, apps], SERVED, &header()).unwrap()
    }

    fn file<'f>(files: &'f [GeneratedFile], name: &str) -> &'f str {
        &files.iter().find(|f| f.path == name).unwrap().contents
    }

    #[test]
    fn documents_keep_what_is_read_one_entry_per_line() {
        let files = files();
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "api__v1_openapi.json",
                "apis__apps__v1_openapi.json",
                "swagger.json"
            ]
        );
        let core = file(&files, "api__v1_openapi.json");
        assert!(core.starts_with(JSON_HEADER), "{core}");
        assert!(
            core.contains("kube-apiserver's /openapi/v3/api/v1"),
            "{core}"
        );
        let value: Value = serde_json::from_str(core).unwrap();
        let paths: Vec<&String> = value["paths"].as_object().unwrap().keys().collect();
        assert_eq!(
            paths,
            ["/api/v1/namespaces/{namespace}/configmaps/{name}"],
            "only the resource paths of kinds that get fields"
        );
        assert_eq!(
            value["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"],
            serde_json::json!({"get": {"x-kubernetes-group-version-kind":
                {"group": "", "version": "v1", "kind": "ConfigMap"}}})
        );
        let schemas = &value["components"]["schemas"];
        assert!(schemas.get("io.k8s.api.core.v1.Binding").is_none());
        assert_eq!(
            schemas["io.k8s.api.core.v1.ConfigMap"]["properties"]["data"],
            serde_json::json!({"type": "object", "additionalProperties": {"type": "string"}}),
            "keys the front-end does not read are dropped at every depth"
        );
        assert_eq!(
            schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"],
            serde_json::json!({"type": "object", "properties": {"name": {"type": "string", "uniqueItems": false}}})
        );
        assert!(value.get("info").is_none());
        assert_eq!(
            core.lines().filter(|l| l.starts_with("\"io.k8s.")).count(),
            2,
            "one definition per line:\n{core}"
        );
        let v2: Value = serde_json::from_str(file(&files, "swagger.json")).unwrap();
        assert_eq!(
            v2["definitions"]["io.k8s.api.core.v1.ConfigMap"]["description"], "cm",
            "testkit definitions are kept whole"
        );
        assert!(v2["definitions"].get("io.k8s.api.core.v1.Unused").is_none());
    }

    #[test]
    fn descriptions_are_kept_where_fields_are_built_from() {
        let files = files();
        let apps: Value =
            serde_json::from_str(file(&files, "apis__apps__v1_openapi.json")).unwrap();
        let schemas = &apps["components"]["schemas"];
        assert_eq!(
            schemas["io.k8s.api.apps.v1.Deployment"]["description"],
            "A Deployment."
        );
        assert_eq!(
            schemas["io.k8s.api.core.v1.PodTemplateSpec"]["properties"]["metadata"]["description"],
            "Its metadata.",
            "core/v1 gets PodTemplateSpec's fields from this copy"
        );
        assert_eq!(
            schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"],
            serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}}),
            "ObjectMeta stays k8s-openapi's: read for its shape only"
        );
    }

    #[test]
    fn the_pruned_documents_build_the_same_model() {
        let build = |core: &str, apps: &str| {
            let mut model = Model::default();
            builtin::load(&mut model, &builtin::Options::default()).unwrap();
            let sources = [
                Source::new("api__v1_openapi.json", core),
                Source::new("apis__apps__v1_openapi.json", apps),
            ];
            openapi::load_external_fields(&mut model, &sources).unwrap();
            model
        };
        let files = files();
        let pruned = build(
            file(&files, "api__v1_openapi.json"),
            file(&files, "apis__apps__v1_openapi.json"),
        );
        assert_eq!(pruned, build(CORE, APPS));
        assert!(
            pruned.groups[""].versions["v1"]
                .type_named("PodTemplateSpec")
                .is_some()
        );
    }

    #[test]
    fn output_is_deterministic() {
        assert_eq!(files(), files());
    }

    #[test]
    fn errors_say_where() {
        let swagger = Source::new("s/swagger.json", "{\"swagger\": \n  [");
        let err = generate(&swagger, &[], SERVED, &header()).unwrap_err();
        assert!(err.to_string().starts_with("s/swagger.json:2:"), "{err}");
        let swagger = Source::new("s/swagger.json", SWAGGER_DOC);
        let bad = Source::new(
            "s/api__v1_openapi.json",
            "{\"openapi\": \"3.0.0\",\n \"paths\": 7}",
        );
        let err = generate(&swagger, &[bad], SERVED, &header()).unwrap_err();
        assert!(
            err.to_string().starts_with("s/api__v1_openapi.json:2:"),
            "{err}"
        );
        assert!(err.is_input());
    }
}
