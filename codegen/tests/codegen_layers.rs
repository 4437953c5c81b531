//! The generator's layers, enforced: front-ends -> model <- emitters. Every `crate::`,
//! `super::` and `self::` path in the library's source (imports, inline paths, paths inside
//! macro calls other than the `quote!` family, whose paths are the generated code's) and
//! every path through a name a `use` brought in is allowed by the layer table in the crate
//! docs (`src/lib.rs`), and no two files of the crate import each other, directly or around
//! a circle (a submodule using its parent module does not count).
//!
//! A path is charged to the file that defines what it names: through a re-export
//! (`crate::emit::Options` is `emit/common.rs`'s), so a front door's `pub use` is no way
//! around the table. Test code (`#[cfg(test)]` items and the files they load) is not
//! checked: a test may run a front-end and an emitter together.
//!
//! The table is read from `src/lib.rs`, so the documented rule and the enforced one
//! cannot drift apart; `the_checker_reports_a_planted_violation_and_a_circle` proves the
//! checker finds what it is for. The checker is `layers_support/`, which the testkit's
//! layer test shares.

mod layers_support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use layers_support::{
    Columns, Crate, Layer, References, SourceFile, TestCode, circles, cycles, layer_table,
    module_of, source_files, violations,
};
use syn::visit::Visit;

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The columns of the layer table in `src/lib.rs`.
const COLUMNS: Columns = Columns {
    layer: "layer",
    files: "files",
    may_use: "may use",
};

fn the_crate() -> (Crate, Vec<Layer>) {
    let files = source_files(&src_dir());
    let lib = files
        .iter()
        .find(|f| f.name == "lib.rs")
        .expect("src/lib.rs");
    let layers = layer_table(&lib.text, &COLUMNS);
    (Crate::new(files, TestCode::Skipped), layers)
}

/// The layer whose units include `unit`.
fn layer_with<'a>(layers: &'a [Layer], unit: &str) -> &'a Layer {
    layers
        .iter()
        .find(|l| l.units.iter().any(|u| u == unit))
        .unwrap_or_else(|| panic!("the layer table places `{unit}`"))
}

#[test]
fn the_table_keeps_front_ends_and_emitters_apart() {
    let (_, layers) = the_crate();
    let names: BTreeSet<&str> = layers.iter().map(|l| l.name.as_str()).collect();
    for layer in &layers {
        for used in layer.may_use.iter().flatten() {
            assert!(
                names.contains(used.as_str()),
                "row `{}` names `{used}`, which is no layer",
                layer.name
            );
        }
    }
    let under = |layer: &Layer, dir: &str| layer.units.iter().all(|u| u.starts_with(dir));
    let may_use = |layer: &Layer, other: &Layer| {
        layer
            .may_use
            .as_ref()
            .is_none_or(|m| m.contains(&other.name))
    };
    for layer in &layers {
        for other in &layers {
            let (front, emit) = ("frontend/", "emit/");
            if under(layer, front) && under(other, emit)
                || under(layer, emit) && under(other, front)
            {
                assert!(
                    !may_use(layer, other),
                    "`{}` may not use `{}`: front-ends and emitters meet only in the model",
                    layer.name,
                    other.name
                );
            }
            if under(layer, "model/") || under(layer, "naming/") {
                assert!(
                    !(under(other, front) || under(other, emit)) || !may_use(layer, other),
                    "`{}` may use no front-end or emitter (`{}`)",
                    layer.name,
                    other.name
                );
            }
        }
    }
    // Each front-end and each emitter is a unit of its own: the row does not list itself.
    for unit in ["frontend/crd/", "emit/types/"] {
        let layer = layer_with(&layers, unit);
        assert!(
            !may_use(layer, layer),
            "`{}` lists itself: its units could use one another",
            layer.name
        );
    }
    let emitters = layer_with(&layers, "emit/annotated/");
    for unit in [
        "emit/apply/",
        "emit/clients/",
        "emit/conversion/",
        "emit/crd/",
        "emit/deepcopy.rs",
        "emit/types/",
    ] {
        assert_eq!(
            layer_with(&layers, unit).name,
            emitters.name,
            "{unit} is an emitter"
        );
    }
    let front_ends = layer_with(&layers, "frontend/crd/");
    for unit in ["frontend/openapi/", "frontend/rust/", "frontend/builtin.rs"] {
        assert_eq!(
            layer_with(&layers, unit).name,
            front_ends.name,
            "{unit} is a front-end"
        );
    }
}

#[test]
fn every_file_uses_only_what_its_layer_may() {
    let (krate, layers) = the_crate();
    let edges = krate.references();
    assert!(
        edges.len() > 150,
        "the scan sees the crate's imports ({} found)",
        edges.len()
    );
    let found = violations(&krate, &layers);
    assert!(
        found.is_empty(),
        "uses against the layer table in src/lib.rs:\n  {}",
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
    let layers = layer_table(
        "//! | layer | files | may use |
         //! |-------|-------|---------|
         //! | root | `lib.rs` | everything |
         //! | front door | `frontend/mod.rs` | front-ends, model |
         //! | front-ends | `frontend/rust.rs` | front door, model |
         //! | emit door | `emit/mod.rs` | emitters, model |
         //! | emitters | `emit/crd.rs`, `emit/types/` | model |
         //! | model | `model/` | nothing |
         //!
         //! | not | the | table |",
        &COLUMNS,
    );
    assert_eq!(layers.len(), 6);
    let krate = Crate::new(
        vec![
            SourceFile::new("lib.rs", "pub mod emit; pub mod frontend; pub mod model;"),
            SourceFile::new(
                "frontend/mod.rs",
                "pub mod rust; pub use rust::root_wire_name;",
            ),
            SourceFile::new("frontend/rust.rs", "pub fn root_wire_name() {}"),
            SourceFile::new(
                "emit/mod.rs",
                "pub mod crd; pub mod types; pub use types::generate;",
            ),
            SourceFile::new(
                "emit/types/mod.rs",
                "mod items; pub fn generate() { items::f(); }
             #[cfg(test)] mod tests { use crate::frontend::rust::root_wire_name; }",
            ),
            SourceFile::new(
                "emit/types/items.rs",
                "pub(super) fn f() { let _ = quote::quote! { super::super::frontend::x }; }",
            ),
            SourceFile::new(
                "emit/crd.rs",
                "use crate::model::Model;
             pub fn manifests(_: &Model) {
                 let _ = crate::frontend::root_wire_name();
                 super::generate();
             }",
            ),
            SourceFile::new("model/mod.rs", "mod check; mod names; pub struct Model;"),
            SourceFile::new(
                "model/check.rs",
                "pub struct Error; fn f() { super::names::g(); }",
            ),
            SourceFile::new(
                "model/names.rs",
                "use super::check::Error; pub(super) fn g() {}",
            ),
        ],
        TestCode::Skipped,
    );
    assert_eq!(
        violations(&krate, &layers),
        [
            // One emitter using another, through the emitters' front door.
            "src/emit/crd.rs (emitters) uses crate::emit::types::generate (src/emit/types/mod.rs, \
emitters)",
            // Through the front door's re-export, to the file that defines it.
            "src/emit/crd.rs (emitters) uses crate::frontend::rust::root_wire_name \
(src/frontend/rust.rs, front-ends)",
        ]
    );
    assert_eq!(circles(&krate), [["model/check.rs", "model/names.rs"]]);
}

#[test]
fn the_scan_resolves_paths_as_rust_does() {
    let krate = Crate::new(
        [
            ("lib.rs", "mod a; mod b;"),
            (
                "a/mod.rs",
                "mod x; pub use x::Thing as Renamed; pub fn helper() {}",
            ),
            ("a/x.rs", "mod deep; pub use deep::Thing;"),
            ("a/x/deep.rs", "pub struct Thing;"),
            ("b/y.rs", "pub struct Y;"),
            ("b/z.rs", "use crate::a::x; fn f() { x::Thing::new(); }"),
        ]
        .iter()
        .map(|(name, text)| SourceFile::new(name, text))
        .collect(),
        TestCode::Skipped,
    );
    let scan = |module: &str, source: &str| -> BTreeSet<String> {
        let mut found = Vec::new();
        References {
            krate: &krate,
            module: module_of(module),
            found: &mut found,
        }
        .visit_file(&syn::parse_file(source).expect("valid Rust"));
        found
            .iter()
            .map(|path| krate.file_of(path).name.clone())
            .collect()
    };
    assert_eq!(
        scan(
            "a/x.rs",
            "fn g() { deep::f(); helper(); std::mem::drop(1); }"
        ),
        BTreeSet::from(["a/x/deep.rs".to_owned()]),
        "submodules by their names; other crates and local items are not the crate's"
    );
    assert_eq!(
        scan(
            "b/y.rs",
            "use crate::a::{Renamed, helper};
             pub(crate) fn f() { let _ = matches!(v, crate::a::x::Thing); }
             pub(super) struct S;
             #[cfg(test)] mod tests { use crate::a::x; }"
        ),
        BTreeSet::from(["a/mod.rs".to_owned(), "a/x/deep.rs".to_owned()]),
        "re-exports and renames lead to the defining file; test code is not scanned"
    );
    assert_eq!(
        scan(
            "a/x/deep.rs",
            "use super::super::*; use self::super::Thing as T;"
        ),
        BTreeSet::from(["a/mod.rs".to_owned(), "a/x/deep.rs".to_owned()]),
        "a glob is its module; `self::super` the parent, whose re-export leads back here"
    );
    let from_z: Vec<(String, String)> = krate
        .references()
        .into_iter()
        .filter(|(from, _, _)| from == "b/z.rs")
        .map(|(_, to, path)| (to, path))
        .collect();
    assert_eq!(
        from_z,
        [
            ("a/x.rs".to_owned(), "a::x".to_owned()),
            (
                "a/x/deep.rs".to_owned(),
                "a::x::deep::Thing::new".to_owned()
            ),
        ],
        "a path through a name `use` brought in is followed"
    );
    let graph = BTreeMap::from([
        ("p".to_owned(), BTreeSet::from(["q".to_owned()])),
        ("q".to_owned(), BTreeSet::from(["r".to_owned()])),
        ("r".to_owned(), BTreeSet::from(["p".to_owned()])),
        ("s".to_owned(), BTreeSet::from(["p".to_owned()])),
    ]);
    assert_eq!(cycles(&graph), [["p", "q", "r"]]);
}
