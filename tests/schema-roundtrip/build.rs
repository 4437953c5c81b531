//! Generates random structural CRDs from a seed, runs kubegen over all of them at once
//! (the whole in-memory pipeline the CLI runs), writes the types into `OUT_DIR`, and a
//! table of random valid instances per kind for `tests/roundtrip.rs` to round-trip.
//!
//! - `KUBEGEN_SCHEMA_SEED` (default 1): the seed; printed with every build and failure.
//! - `KUBEGEN_SCHEMA_CASES` (default 300): how many CRDs (one kind each, 1-2 versions).
//! - `KUBEGEN_SCHEMA_INSTANCES` (default 8): instances per version of each kind.
//!
//! Each CRD is also written to `OUT_DIR/crds/case-N.json`, so a failure can be rerun with
//! `kubegen generate --crd` alone.

#[path = "build/instance.rs"]
mod instance;
#[path = "build/rng.rs"]
mod rng;
#[path = "build/schema.rs"]
mod schema;

use std::fmt::Write as _;
use std::path::PathBuf;

use kubegen_codegen::Config;

fn setting(name: &str, default: u64) -> u64 {
    println!("cargo:rerun-if-env-changed={name}");
    match std::env::var(name) {
        Ok(text) => text
            .parse()
            .unwrap_or_else(|_| panic!("{name}={text:?} is not a number")),
        Err(_) => default,
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build");
    let seed = setting("KUBEGEN_SCHEMA_SEED", 1);
    let cases = setting("KUBEGEN_SCHEMA_CASES", 300) as usize;
    let per_version = setting("KUBEGEN_SCHEMA_INSTANCES", 8) as usize;
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo"));
    let crds_dir = out.join("crds");
    let _ = std::fs::remove_dir_all(&crds_dir);
    std::fs::create_dir_all(&crds_dir).expect("create OUT_DIR/crds");

    let mut rng = rng::Rng::new(seed);
    let crds: Vec<schema::Crd> = (0..cases).map(|i| schema::crd(&mut rng, i)).collect();
    for (i, c) in crds.iter().enumerate() {
        let path = crds_dir.join(format!("case-{i}.json"));
        std::fs::write(&path, &c.text).expect("write CRD");
    }

    let run = Config::new()
        .crd(&crds_dir)
        .types_out(out.join("generated"))
        .generate()
        .unwrap_or_else(|e| {
            panic!("kubegen refused random CRDs (KUBEGEN_SCHEMA_SEED={seed}): {e}")
        });
    run.write().expect("write the generated types into OUT_DIR");

    let mut table = String::new();
    writeln!(table, "/// The seed the schemas and instances came from.").ok();
    writeln!(table, "pub const SEED: u64 = {seed};").ok();
    writeln!(table, "/// The CRDs generated, one kind each.").ok();
    writeln!(table, "pub const CASES: usize = {cases};").ok();
    writeln!(
        table,
        "#[path = {:?}]\n#[allow(missing_docs, unreachable_pub)]\npub mod generated;",
        out.join("generated/mod.rs").display().to_string()
    )
    .ok();
    writeln!(
        table,
        "/// Every version of every kind with its instances.\npub const KINDS: &[Kind] = &["
    )
    .ok();
    for (i, crd) in crds.iter().enumerate() {
        for (api_version, version, root) in &crd.versions {
            let (group, _) = api_version
                .rsplit_once('/')
                .expect("group/version of a CRD");
            let kind = run
                .kinds
                .iter()
                .find(|k| k.group == group && k.version == *version && k.kind == crd.kind)
                .expect("every kind of the CRDs is generated");
            let path = format!("generated::{}", kind.type_path);
            let instances: Vec<String> = (0..per_version)
                .map(|_| instance::root(&mut rng, root, api_version, &crd.kind).to_string())
                .collect();
            writeln!(
                table,
                "    Kind {{ case: {i}, api_version: {api_version:?}, kind: {:?}, instances: &{instances:?}, round_trip: crate::round_trip::<{path}> }},",
                crd.kind
            )
            .ok();
        }
    }
    writeln!(table, "];").ok();
    writeln!(
        table,
        "/// Where the CRD of each case is.\npub const CRDS_DIR: &str = {:?};",
        crds_dir.display().to_string()
    )
    .ok();
    std::fs::write(out.join("table.rs"), table).expect("write table.rs");
    println!(
        "cargo:warning=schema-roundtrip: KUBEGEN_SCHEMA_SEED={seed}, {cases} CRDs, {} generated files",
        run.outputs[0].files.len()
    );
}
