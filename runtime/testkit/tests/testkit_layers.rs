//! The testkit's layers, enforced: every `crate::`, `super::` and `self::` path in the
//! crate's source (imports, inline paths, paths inside macro calls, test code included)
//! and every path through a name a `use` brought in points to the same layer or one below,
//! as the layer table in the crate docs (`src/lib.rs`) says, and no two files of the crate
//! import each other, directly or around a circle (a submodule using its parent module
//! does not count).
//!
//! The table is read from `src/lib.rs`, so the documented rule and the enforced one
//! cannot drift apart. The checker is the generator's (`codegen/tests/layers_support/`),
//! shared so the two crates' rules are enforced by one implementation;
//! `the_checker_reports_a_planted_violation_and_a_circle` proves it finds what it is for
//! in this crate's table format.

#[path = "../../../codegen/tests/layers_support/mod.rs"]
mod layers_support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use layers_support::{
    Columns, Crate, Layer, SourceFile, TestCode, circles, layer_table, source_files, violations,
};

/// The columns of the layer table in `src/lib.rs`: a layer is a directory.
const COLUMNS: Columns = Columns {
    layer: "directory",
    files: "directory",
    may_use: "may import",
};

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The table's layers, and the crate root, which declares the layers and re-exports the
/// public API: it may use everything, and no layer may use it.
fn layers_of(lib: &str) -> Vec<Layer> {
    let mut layers = layer_table(lib, &COLUMNS);
    layers.push(Layer {
        name: "crate root".to_owned(),
        units: vec!["lib.rs".to_owned()],
        may_use: None,
    });
    layers
}

fn the_crate() -> (Crate, Vec<Layer>) {
    let files = source_files(&src_dir());
    let lib = files
        .iter()
        .find(|f| f.name == "lib.rs")
        .expect("src/lib.rs");
    let layers = layers_of(&lib.text);
    (Crate::new(files, TestCode::Checked), layers)
}

#[test]
fn the_crate_docs_document_the_layers_top_down() {
    let lib = std::fs::read_to_string(src_dir().join("lib.rs")).expect("src/lib.rs");
    let layers = layer_table(&lib, &COLUMNS);
    let directories: Vec<&str> = layers.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(directories, ["http", "verbs", "store", "builtin"]);
    for (i, layer) in layers.iter().enumerate() {
        assert_eq!(layer.units, [format!("{}/", layer.name)]);
        // Each layer may import itself and exactly the layers listed below it.
        let below: BTreeSet<String> = layers[i..].iter().map(|l| l.name.clone()).collect();
        assert_eq!(layer.may_use, Some(below), "row `{}/`", layer.name);
    }
}

#[test]
fn every_file_imports_only_from_its_own_layer_or_below() {
    let (krate, layers) = the_crate();
    let edges = krate.references();
    assert!(
        edges.len() > 50,
        "the scan sees the crate's imports ({} found)",
        edges.len()
    );
    let found = violations(&krate, &layers);
    assert!(
        found.is_empty(),
        "imports against the layer table in src/lib.rs:\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn no_files_import_each_other() {
    let (krate, _) = the_crate();
    let found = circles(&krate);
    assert!(
        found.is_empty(),
        "files that import each other (directly or around a circle):\n  {}",
        found
            .iter()
            .map(|cycle| cycle.join(" <-> "))
            .collect::<Vec<_>>()
            .join("\n  ")
    );
}

#[test]
fn the_checker_reports_a_planted_violation_and_a_circle() {
    let layers = layers_of(
        "//! | layer | directory | what it holds | may import |
         //! |-------|-----------|---------------|------------|
         //! | HTTP  | `http/`   | routes        | `http`, `store` |
         //! | store | `store/`  | objects       | `store` |",
    );
    let krate = Crate::new(
        vec![
            SourceFile::new("lib.rs", "mod http; mod store; pub use http::Server;"),
            SourceFile::new("http/mod.rs", "mod routes; pub struct Server;"),
            SourceFile::new(
                "http/routes.rs",
                "use crate::store::Objects; fn f() { crate::store::list(); }",
            ),
            SourceFile::new(
                "store/mod.rs",
                "mod watch; pub struct Objects; pub fn list() { watch::g(); }",
            ),
            SourceFile::new(
                "store/watch.rs",
                "pub(super) fn g() {}
                 #[cfg(test)] mod tests { fn t() { let _ = crate::Server; } }",
            ),
            SourceFile::new("store/cache.rs", "use super::index::I; pub struct C;"),
            SourceFile::new(
                "store/index.rs",
                "pub struct I; fn f(_: super::cache::C) {}",
            ),
        ],
        TestCode::Checked,
    );
    assert_eq!(
        violations(&krate, &layers),
        // Upward, from test code (checked here), through the root's re-export to the file
        // that defines it.
        ["src/store/watch.rs (store) uses crate::http::Server (src/http/mod.rs, http)"]
    );
    assert_eq!(circles(&krate), [["store/cache.rs", "store/index.rs"]]);
}
