//! Runs kubegen-codegen over the OpenAPI documents of the corpus into `OUT_DIR`:
//!
//! - `v3`: every `*_openapi.json` (v3, one group/version each) in one run;
//! - `v2`: `swagger.json` (v2, every group the API server serves);
//! - `v3full`: the v3 documents again with `generate_referenced`, so every type but
//!   `ObjectMeta`, `Time`, `MicroTime`, `Quantity` and `IntOrString` is generated (nothing k8s-openapi);
//!
//! and writes a table pairing every generated kind with its k8s-openapi type, so the tests
//! can compare their resource constants and round-trip objects between them. The codegen
//! OpenAPI goldens (`codegen/tests/golden/openapi_*`) are compiled too.
//!
//! The corpus is `$KUBEGEN_CORPUS/openapi` or `../../../shared/corpus/openapi` relative to
//! this crate. Without it, the tables are empty and the tests say they skipped.
//!
//! Each run goes through [`Config`], as `cargo kubegen generate --openapi ... --out ...`
//! does.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use kubegen_codegen::__internal::naming;
use kubegen_codegen::Config;

fn main() {
    println!("cargo:rerun-if-env-changed=KUBEGEN_CORPUS");
    println!("cargo:rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo"));
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let corpus = std::env::var_os("KUBEGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../../shared/corpus"))
        .join("openapi");
    println!("cargo:rerun-if-changed={}", corpus.display());

    let mut table = String::new();
    let mut v3_files: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .map(|dir| {
            dir.map(|e| e.expect("dir entry").path())
                .filter(|p| p.to_string_lossy().ends_with("_openapi.json"))
                .collect()
        })
        .unwrap_or_default();
    v3_files.sort();
    let swagger = corpus.join("swagger.json");
    let v2_files: Vec<PathBuf> = if swagger.is_file() {
        vec![swagger]
    } else {
        Vec::new()
    };
    writeln!(
        table,
        "/// The corpus directory read at build time (`None`: absent, nothing generated).\n\
         pub const CORPUS: Option<&str> = {};",
        if v3_files.is_empty() && v2_files.is_empty() {
            "None".to_owned()
        } else {
            format!("Some({:?})", corpus.display().to_string())
        }
    )
    .ok();
    generate("v3", &v3_files, false, &out, &mut table);
    generate("v2", &v2_files, false, &out, &mut table);
    generate("v3full", &v3_files, true, &out, &mut table);
    goldens(&manifest, &mut table);
    std::fs::write(out.join("table.rs"), table).expect("write table.rs");
}

/// An OpenAPI document: its file name and text.
struct Document {
    name: String,
    text: String,
}

/// Generates `files` into `OUT_DIR/<name>/` as module `<name>`, with a `<NAME>_KINDS` table;
/// `referenced`: generate the definitions of other packages too.
fn generate(name: &str, files: &[PathBuf], referenced: bool, out: &Path, table: &mut String) {
    let sources: Vec<Document> = files
        .iter()
        .map(|p| {
            println!("cargo:rerun-if-changed={}", p.display());
            let file = p.file_name().expect("file name").to_string_lossy();
            Document {
                name: file.into_owned(),
                text: std::fs::read_to_string(p).expect("read OpenAPI document"),
            }
        })
        .collect();
    let konst = format!("{}_KINDS", name.to_uppercase());
    writeln!(
        table,
        "/// Kinds generated from the {name} documents, each with its k8s-openapi twin.\n\
         pub const {konst}: &[Kind] = &["
    )
    .ok();
    if sources.is_empty() {
        writeln!(table, "];").ok();
        return;
    }
    let dir = out.join(name);
    let config = sources
        .iter()
        .fold(Config::new(), |config, doc| {
            config.openapi_text(&doc.name, &doc.text)
        })
        .generate_referenced(referenced)
        .types_out(&dir);
    let run = config
        .generate()
        .unwrap_or_else(|e| panic!("kubegen failed on the {name} OpenAPI corpus: {e}"));
    for warning in &run.warnings {
        println!("cargo:warning={warning}");
    }
    run.write()
        .unwrap_or_else(|e| panic!("kubegen failed to write {name} into OUT_DIR: {e}"));

    // Definition name of each kind, from the documents themselves.
    let mut definitions = Vec::new();
    for source in &sources {
        let doc: serde_json::Value = serde_json::from_str(&source.text).expect("JSON document");
        let schemas = doc
            .pointer("/components/schemas")
            .or_else(|| doc.get("definitions"))
            .and_then(|s| s.as_object())
            .cloned()
            .unwrap_or_default();
        for (def, schema) in schemas {
            let Some([gvk]) = schema["x-kubernetes-group-version-kind"]
                .as_array()
                .map(Vec::as_slice)
            else {
                continue;
            };
            let g = gvk["group"].as_str().unwrap_or_default().to_owned();
            let v = gvk["version"].as_str().unwrap_or_default().to_owned();
            let k = gvk["kind"].as_str().unwrap_or_default().to_owned();
            definitions.push(((g, v, k), def, source.name.clone()));
        }
    }
    for kind in &run.kinds {
        // k8s-openapi (`latest`) drops alpha and beta versions as Kubernetes removes
        // them; GA versions stay, so those are the ones paired.
        let ga = kind
            .version
            .strip_prefix('v')
            .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()));
        if !ga {
            continue;
        }
        let Some((_, def, doc)) = definitions
            .iter()
            .find(|((g, v, k), _, _)| *g == kind.group && *v == kind.version && *k == kind.kind)
        else {
            continue;
        };
        let k8s = naming::k8s_openapi_path(def).expect("io.k8s definition");
        let ours = format!("{name}::{}", kind.type_path);
        writeln!(
            table,
            "    Kind {{ doc: {doc:?}, definition: {def:?}, round_trip: crate::round_trip::<{ours}, ::{k8s}> }},"
        )
        .ok();
    }
    writeln!(table, "];").ok();
    writeln!(
        table,
        "#[path = {:?}]\n#[allow(missing_docs)]\npub mod {name};",
        dir.join("mod.rs").display().to_string()
    )
    .ok();
}

/// Compiles the codegen OpenAPI goldens (`golden::openapi_<fixture>`).
fn goldens(manifest: &Path, table: &mut String) {
    let dir = manifest.join("../../codegen/tests/golden");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read codegen/tests/golden")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| {
            p.join("mod.rs").is_file()
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("openapi_"))
        })
        .collect();
    fixtures.sort();
    writeln!(
        table,
        "/// The codegen OpenAPI golden files, compiled.\n#[allow(missing_docs)]\npub mod golden {{"
    )
    .ok();
    for fixture in fixtures {
        let name = fixture
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let path = fixture
            .join("mod.rs")
            .canonicalize()
            .expect("canonical path");
        writeln!(
            table,
            "    #[path = {:?}]\n    pub mod {name};",
            path.display().to_string()
        )
        .ok();
    }
    writeln!(table, "}}").ok();
}
