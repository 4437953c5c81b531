//! Runs kubegen-codegen over this crate's fixture CRD (`crds/`) and, when the shared
//! corpus is there, the corpus CRDs in [`CORPUS_CRDS`], generating their types and
//! conversions into `OUT_DIR`, and over the hand-written kinds of `src/apis/` (as
//! `generate --rust src/apis --rust-module crate::apis --conversions-out ...`; the hub is
//! v1, marked `#[resource(storage)]`), generating their conversions; `src/lib.rs` mounts
//! them as
//! `generated`, `conversions` and `derived_conversions` (through `OUT_DIR/table.rs`).
//!
//! The corpus is `$KUBEGEN_CORPUS/crds` or `../../../shared/corpus/crds` relative to this
//! crate. With it, the build sets `cfg(corpus)` and the corpus tests run; without it they
//! say they skipped.

use std::path::{Path, PathBuf};

use kubegen_codegen::emit::conversion::ConversionOptions;
use kubegen_codegen::frontend::{Input, Source, crd, rust};
use kubegen_codegen::{Outputs, emit};

/// The corpus CRDs whose conversions are compiled, and HTTPRoute's tested: its versions
/// have the same schema. Gateway's differ in fields one version lacks (carried), and
/// cluster-api's Machine in many ways, so its conversions call 24 user methods (compiled,
/// not called: nothing implements its trait).
const CORPUS_CRDS: &[&str] = &[
    "gateway-api_httproutes.gateway.networking.k8s.io.yaml",
    "gateway-api_gateways.gateway.networking.k8s.io.yaml",
    "cluster-api_machines.cluster.x-k8s.io.yaml",
];

fn read(path: &Path) -> Source {
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("failed to read {}: {e}", path.display()));
    Source::new(path.display().to_string(), text)
}

fn write(dir: &Path, files: &[emit::GeneratedFile]) {
    let _ = std::fs::remove_dir_all(dir);
    for file in files {
        let path = dir.join(&file.path);
        std::fs::create_dir_all(path.parent().expect("a generated file has a parent"))
            .expect("create OUT_DIR subdirectory");
        std::fs::write(&path, &file.contents).expect("write generated file");
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=KUBEGEN_CORPUS");
    println!("cargo::rustc-check-cfg=cfg(corpus)");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo"));
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let corpus = std::env::var_os("KUBEGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../../shared/corpus"))
        .join("crds");

    let mut sources = vec![read(&manifest.join("crds/gadgets.yaml"))];
    if CORPUS_CRDS.iter().all(|name| corpus.join(name).is_file()) {
        println!("cargo:rustc-cfg=corpus");
        sources.extend(CORPUS_CRDS.iter().map(|name| read(&corpus.join(name))));
    } else {
        println!(
            "cargo:warning=no corpus at {}: the corpus conversions are not built",
            corpus.display()
        );
    }
    let inputs = [Input::Crd(&sources, crd::Options::default())];
    let outputs = Outputs {
        types: Some(emit::Options::default()),
        conversions: Some(ConversionOptions::default()),
        ..Outputs::default()
    };
    let generated = kubegen_codegen::generate(&inputs, &outputs)
        .unwrap_or_else(|e| panic!("kubegen failed: {e}"));
    write(&out.join("generated"), &generated.types);
    write(&out.join("conversions"), &generated.conversions);

    let apis = manifest.join("src/apis");
    let structs = rust::read_dir(&apis).unwrap_or_else(|e| panic!("kubegen failed: {e}"));
    for source in &structs {
        println!("cargo:rerun-if-changed={}", source.name);
    }
    let options = rust::Options::default()
        .module("crate::apis")
        .conversions(true);
    let inputs = [Input::Rust(&structs, options)];
    let outputs = Outputs {
        conversions: Some(ConversionOptions::default()),
        ..Outputs::default()
    };
    let derived = kubegen_codegen::generate(&inputs, &outputs)
        .unwrap_or_else(|e| panic!("kubegen failed: {e}"));
    write(&out.join("derived_conversions"), &derived.conversions);
    let module = |name: &str| {
        let path = out.join(name).join("mod.rs");
        format!(
            "#[rustfmt::skip]\n#[allow(missing_docs)]\n#[path = {:?}]\npub mod {name};\n",
            path.display().to_string()
        )
    };
    let table = module("generated") + &module("conversions") + &module("derived_conversions");
    std::fs::write(out.join("table.rs"), table).expect("write table.rs");
}
