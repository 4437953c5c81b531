//! Runs kubegen-codegen over this crate's fixture CRD (`crds/`) and, when the shared
//! corpus is there, the corpus CRDs in [`CORPUS_CRDS`], generating their types and
//! conversions into `OUT_DIR`, and over the hand-written kinds of `src/apis/` (as
//! `generate --rust src/apis --rust-module crate::apis --conversions-out ...`; the hub is
//! v1, marked `#[resource(storage)]`), generating their conversions; `src/lib.rs` mounts
//! them as
//! `generated`, `conversions` and `derived_conversions` (through `OUT_DIR/table.rs`).
//! Both runs go through [`Config`], as `cargo kubegen generate` does.
//!
//! The corpus is `$KUBEGEN_CORPUS/crds` or `../../../shared/corpus/crds` relative to this
//! crate. With it, the build sets `cfg(corpus)` and the corpus tests run; without it they
//! say they skipped.

use std::path::{Path, PathBuf};

use kubegen_codegen::Config;

/// The corpus CRDs whose conversions are compiled, and HTTPRoute's tested: its versions
/// have the same schema. Gateway's differ in fields one version lacks (carried), and
/// cluster-api's Machine in many ways, so its conversions call 24 user methods (compiled,
/// not called: nothing implements its trait).
const CORPUS_CRDS: &[&str] = &[
    "gateway-api_httproutes.gateway.networking.k8s.io.yaml",
    "gateway-api_gateways.gateway.networking.k8s.io.yaml",
    "cluster-api_machines.cluster.x-k8s.io.yaml",
];

/// Generates and writes `config`'s outputs, passing its warnings on to cargo.
fn run(config: Config) {
    let run = config
        .generate()
        .unwrap_or_else(|e| panic!("kubegen failed: {e}"));
    for warning in &run.warnings {
        println!("cargo:warning={warning}");
    }
    run.write()
        .unwrap_or_else(|e| panic!("kubegen failed to write into OUT_DIR: {e}"));
}

fn crd(config: Config, path: &Path) -> Config {
    println!("cargo:rerun-if-changed={}", path.display());
    config.crd(path)
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

    let mut config = crd(Config::new(), &manifest.join("crds/gadgets.yaml"));
    if CORPUS_CRDS.iter().all(|name| corpus.join(name).is_file()) {
        println!("cargo:rustc-cfg=corpus");
        for name in CORPUS_CRDS {
            config = crd(config, &corpus.join(name));
        }
    } else {
        println!(
            "cargo:warning=no corpus at {}: the corpus conversions are not built",
            corpus.display()
        );
    }
    run(config
        .types_out(out.join("generated"))
        .conversions_out(out.join("conversions")));

    let apis = manifest.join("src/apis");
    println!("cargo:rerun-if-changed={}", apis.display());
    run(Config::new()
        .rust(&apis, "crate::apis")
        .conversions_out(out.join("derived_conversions")));
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
