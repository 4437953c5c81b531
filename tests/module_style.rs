//! One module style across the workspace's sources: a module with submodules is a folder
//! with a `mod.rs` (as most of the tree already is), never a `foo.rs` beside a `foo/`
//! folder. A newcomer then finds a module's code in one place, and `mod.rs` is always
//! its entry.

use std::path::{Path, PathBuf};

/// The source roots checked, relative to the repository root.
const ROOTS: &[&str] = &[
    "src",
    "crd-schema/src",
    "codegen/src",
    "codegen/wellknown-schemas/src",
    "derive/src",
    "runtime/src",
    "runtime/testkit/src",
    "examples/sample-controller/src",
    "examples/icecream/src",
    "examples/secret-sync/src",
    "examples/pod-logger/src",
    "tests/e2e-api/src",
    "tests/corpus-roundtrip/src",
    "tests/openapi-roundtrip/src",
    "tests/schema-roundtrip/src",
    "tests/conversion-roundtrip/src",
    "tests/kubectl/src",
];

/// Every `foo.rs` under `dir` with a sibling folder `foo/`.
fn mixed_modules(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && path.with_extension("").is_dir()
            {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

#[test]
fn modules_with_submodules_are_folders_with_a_mod_rs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut mixed = Vec::new();
    for source in ROOTS {
        let dir = root.join(source);
        if dir.is_dir() {
            mixed.extend(mixed_modules(&dir).expect("read the sources"));
        }
    }
    assert!(
        mixed.is_empty(),
        "move each to its folder's mod.rs (git mv foo.rs foo/mod.rs): {mixed:#?}"
    );
}

#[test]
fn a_file_beside_its_folder_is_found() {
    let dir = std::env::temp_dir().join(format!("kubegen-module-style-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a/b")).expect("create");
    std::fs::write(dir.join("a/b.rs"), "mod c;").expect("write");
    std::fs::write(dir.join("a/b/c.rs"), "").expect("write");
    std::fs::create_dir_all(dir.join("d")).expect("create");
    std::fs::write(dir.join("d/mod.rs"), "").expect("write");
    let found = mixed_modules(&dir).expect("read");
    std::fs::remove_dir_all(&dir).expect("clean up");
    assert_eq!(found, vec![dir.join("a/b.rs")]);
}
