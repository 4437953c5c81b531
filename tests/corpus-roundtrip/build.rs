//! Runs kubegen-codegen over every CRD of the corpus into `OUT_DIR`, and writes a table
//! mapping each `*.example.yaml` to a function that round-trips it through its kind's type.
//!
//! The corpus is `$KUBEGEN_CORPUS/crds` or `../../../shared/corpus/crds` relative to this
//! crate. Without it, the table is empty and the test says it skipped.
//!
//! It also generates the synthetic CRDs of `build/synthetic.rs` (module `synthetic`, with
//! each CRD's text and a full object), corpus or not, for the bounded-stack tests. Both
//! runs go through [`Config`], as `cargo kubegen generate --crd ... --out ...` does.

#[path = "build/synthetic.rs"]
mod synthetic;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use kubegen_codegen::{Config, Run};

fn main() {
    println!("cargo:rerun-if-env-changed=KUBEGEN_CORPUS");
    println!("cargo:rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo"));
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let corpus = std::env::var_os("KUBEGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../../shared/corpus"));
    let crds = corpus.join("crds");
    println!("cargo:rerun-if-changed={}", crds.display());

    let mut table = String::new();
    if crds.is_dir() {
        generate(&crds, &out, &mut table);
    } else {
        table.push_str(&format!(
            "/// No corpus at build time.\npub const CORPUS: Option<&str> = None;\n\
             /// Examples and their round-trip functions.\n\
             pub const EXAMPLES: &[Example] = &[];\n/// CRDs generated.\npub const CRDS: &[&str] = &[];\n\
             const _: &str = {:?};\n",
            crds.display().to_string()
        ));
    }
    goldens(&manifest, &mut table);
    generate_synthetic(&out, &mut table);
    std::fs::write(out.join("table.rs"), table).expect("write table.rs");
}

/// Generates the synthetic CRDs into `OUT_DIR/synthetic/` as module `synthetic`, and writes
/// their texts and full objects for the tests (`SYNTHETIC_CRD` and `SYNTHETIC_OBJECT` of
/// `deep`, `SERVING_CRD` and `SERVING_OBJECT` of `serving`).
fn generate_synthetic(out: &Path, table: &mut String) {
    println!("cargo:rerun-if-changed=build/synthetic.rs");
    let (deep_crd, deep_object) = synthetic::deep();
    let (serving_crd, serving_object) = synthetic::serving();
    let dir = out.join("synthetic");
    let config = Config::new()
        .crd_text("deep.json", deep_crd.clone())
        .crd_text("serving.json", serving_crd.clone())
        .types_out(&dir);
    run(&config, "the synthetic CRDs");
    for (name, text) in [
        ("synthetic_crd.json", deep_crd),
        ("synthetic_object.json", deep_object),
        ("serving_crd.json", serving_crd),
        ("serving_object.json", serving_object),
    ] {
        std::fs::write(out.join(name), text).expect("write a synthetic CRD or object");
    }
    writeln!(
        table,
        "/// Types of the synthetic CRDs (`build/synthetic.rs`): `Deep`, {} object levels with {} \
         properties inline in each ({} in all); `Serving`, KServe's shape with {} int-or-string \
         fields.\n#[path = {:?}]\n#[allow(missing_docs)]\npub mod synthetic;\n\
         /// The deep synthetic CRD's text.\n\
         pub const SYNTHETIC_CRD: &str = include_str!(concat!(env!(\"OUT_DIR\"), \"/synthetic_crd.json\"));\n\
         /// An object of the deep synthetic CRD with every property set (JSON).\n\
         pub const SYNTHETIC_OBJECT: &str = include_str!(concat!(env!(\"OUT_DIR\"), \"/synthetic_object.json\"));\n\
         /// The synthetic CRD of KServe's shape.\n\
         pub const SERVING_CRD: &str = include_str!(concat!(env!(\"OUT_DIR\"), \"/serving_crd.json\"));\n\
         /// An object of the synthetic CRD of KServe's shape with every property set (JSON).\n\
         pub const SERVING_OBJECT: &str = include_str!(concat!(env!(\"OUT_DIR\"), \"/serving_object.json\"));\n\
         /// Properties inline in the deep synthetic CRD's `spec`.\n\
         pub const SYNTHETIC_INLINE: usize = {};\n\
         /// Object levels below the deep synthetic CRD's `spec`.\n\
         pub const SYNTHETIC_DEPTH: usize = {};\n\
         /// Int-or-string fields in the object of KServe's shape.\n\
         pub const SERVING_INT_OR_STRINGS: usize = {};",
        synthetic::DEPTH,
        synthetic::PER_LEVEL,
        synthetic::INLINE,
        synthetic::SERVING_INT_OR_STRINGS,
        dir.join("mod.rs").display().to_string(),
        synthetic::INLINE,
        synthetic::DEPTH,
        synthetic::SERVING_INT_OR_STRINGS,
    )
    .ok();
}

fn generate(crds: &Path, out: &Path, table: &mut String) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(crds)
        .expect("read corpus dir")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    entries.sort();
    let (examples, crd_files): (Vec<PathBuf>, Vec<PathBuf>) = entries
        .into_iter()
        .partition(|p| p.to_string_lossy().ends_with(".example.yaml"));

    let only = std::env::var("KUBEGEN_CORPUS_ONLY").ok();
    println!("cargo:rerun-if-env-changed=KUBEGEN_CORPUS_ONLY");
    let selected: Vec<&PathBuf> = crd_files
        .iter()
        .filter(|p| {
            only.as_deref()
                .is_none_or(|o| p.to_string_lossy().contains(o))
        })
        .collect();
    let dir = out.join("generated");
    let config = selected.iter().fold(Config::new(), |config, p| {
        println!("cargo:rerun-if-changed={}", p.display());
        config.crd(p)
    });
    let run = run(&config.types_out(&dir), "the corpus");

    writeln!(table, "/// The corpus directory read at build time.").ok();
    writeln!(
        table,
        "pub const CORPUS: Option<&str> = Some({:?});",
        crds.display().to_string()
    )
    .ok();
    writeln!(
        table,
        "#[path = {:?}]\n#[allow(missing_docs)]\npub mod generated;",
        dir.join("mod.rs").display().to_string()
    )
    .ok();
    writeln!(
        table,
        "/// CRD files generated.\npub const CRDS: &[&str] = &["
    )
    .ok();
    for p in &selected {
        let name = p.file_name().expect("file name").to_string_lossy();
        writeln!(table, "    {name:?},").ok();
    }
    writeln!(table, "];").ok();
    writeln!(
        table,
        "/// Examples and their round-trip functions.\npub const EXAMPLES: &[Example] = &["
    )
    .ok();
    for example in &examples {
        println!("cargo:rerun-if-changed={}", example.display());
        let text = std::fs::read_to_string(example).expect("read example");
        let value: serde_json::Value = serde_saphyr::from_str(&text).expect("example is YAML");
        let api_version = value["apiVersion"].as_str().unwrap_or_default();
        let kind = value["kind"].as_str().unwrap_or_default();
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        let name = example
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let found = run
            .kinds
            .iter()
            .find(|k| k.group == group && k.version == version && k.kind == kind)
            .map(|k| format!("generated::{}", k.type_path));
        match found {
            Some(path) => writeln!(
                table,
                "    Example {{ file: {name:?}, kind: {:?}, round_trip: crate::round_trip::<{path}> }},",
                format!("{api_version} {kind}")
            ),
            None => writeln!(
                table,
                "    Example {{ file: {name:?}, kind: {:?}, round_trip: crate::no_type }},",
                format!("{api_version} {kind}")
            ),
        }
        .ok();
    }
    writeln!(table, "];").ok();
}

/// Generates and writes `config`'s types, passing its warnings on to cargo.
fn run(config: &Config, what: &str) -> Run {
    let run = config
        .generate()
        .unwrap_or_else(|e| panic!("kubegen failed on {what}: {e}"));
    for warning in &run.warnings {
        println!("cargo:warning={warning}");
    }
    run.write()
        .unwrap_or_else(|e| panic!("kubegen failed to write {what} into OUT_DIR: {e}"));
    run
}

/// Compiles the codegen golden files too (`golden::<fixture>`), so a golden that does not
/// compile fails here, and `tests/fixtures.rs` can round-trip values through them.
fn goldens(manifest: &Path, table: &mut String) {
    let dir = manifest.join("../../codegen/tests/golden");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read codegen/tests/golden")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.join("mod.rs").is_file())
        .collect();
    fixtures.sort();
    writeln!(
        table,
        "/// The codegen golden files, compiled.\n#[allow(missing_docs)]\npub mod golden {{"
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
