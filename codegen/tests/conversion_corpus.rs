//! Conversions of the corpus's multi-version CRDs (`$KUBEGEN_CORPUS/crds` or
//! `../shared/corpus/crds`; skipped with a message where absent): every kind's versions
//! pair with its storage version, the output is the same bytes twice, and the figures
//! (lines of generated code and user methods per version pair) are printed:
//!
//! ```text
//! cargo test -p kubegen-codegen --test conversion_corpus -- --nocapture
//! ```

use std::path::PathBuf;

use kubegen_codegen::__internal::emit::GeneratedFile;
use kubegen_codegen::__internal::emit::conversion::{ConversionOptions, generate_conversions};
use kubegen_codegen::__internal::frontend::{Source, crd};
use kubegen_codegen::__internal::model::Model;

/// The corpus CRDs, or `None` when there is no corpus.
fn corpus_crds() -> Option<Vec<Source>> {
    let root = std::env::var_os("KUBEGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("crds"))
        .ok()?
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            name.ends_with(".yaml") && !name.ends_with(".example.yaml")
        })
        .collect();
    files.sort();
    let sources: Vec<Source> = files
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            Source::new(name, std::fs::read_to_string(p).expect("a readable CRD"))
        })
        .collect();
    Some(sources)
}

fn conversions(sources: &[Source]) -> (Model, Vec<GeneratedFile>) {
    let mut model = Model::default();
    crd::load(&mut model, sources, &crd::Options::default()).expect("the corpus loads");
    let files =
        generate_conversions(&model, &ConversionOptions::default()).expect("conversions generate");
    (model, files)
}

#[test]
fn corpus_conversions_are_deterministic_and_counted() {
    let Some(sources) = corpus_crds() else {
        eprintln!("skipped: no corpus (../shared/corpus/crds or $KUBEGEN_CORPUS)");
        return;
    };
    let (model, files) = conversions(&sources);
    let (_, again) = conversions(&sources);
    assert_eq!(files, again, "the same input gave other bytes");

    let multi: Vec<String> = model
        .groups
        .values()
        .flat_map(|g| {
            let mut kinds: Vec<String> = g
                .versions
                .values()
                .flat_map(|v| v.kinds.keys().cloned())
                .collect();
            kinds.sort();
            let mut counted: Vec<String> = Vec::new();
            for k in &kinds {
                if kinds.iter().filter(|x| *x == k).count() > 1 && !counted.contains(k) {
                    counted.push(k.clone());
                }
            }
            counted.into_iter().map(|k| format!("{}/{k}", g.module))
        })
        .collect();
    let pairs: Vec<&GeneratedFile> = files
        .iter()
        .filter(|f| f.path.matches('/').count() == 2 && !f.path.ends_with("/mod.rs"))
        .collect();
    for kind in &multi {
        let module = kind.rsplit_once('/').map(|(g, k)| {
            format!(
                "{g}/{}/",
                kubegen_codegen::__internal::naming::kind_module(k)
            )
        });
        let module = module.unwrap_or_default();
        assert!(
            pairs.iter().any(|f| f.path.starts_with(&module)),
            "{kind} has several versions but no conversions"
        );
    }
    println!(
        "{:<60} {:>7} {:>8}",
        "version pair (file)", "lines", "methods"
    );
    for file in &pairs {
        let lines = file.contents.lines().count();
        // The trait's methods are the only functions taking `&self`.
        let methods = file.contents.matches("(&self").count();
        println!("{:<60} {lines:>7} {methods:>8}", file.path);
        assert!(
            file.contents
                .starts_with(kubegen_codegen::__internal::emit::HEADER)
        );
    }
    let root = files
        .iter()
        .find(|f| f.path == "mod.rs")
        .expect("a root module");
    println!(
        "{:<60} {:>7}",
        "mod.rs (shared helpers)",
        root.contents.lines().count()
    );
}
