//! How much code the conversions are: lines per version pair file
//! (`<group>/<kind>/<spoke>.rs`: the trait, `to_hub`, `from_hub`, the round-trip checks and
//! the per-type functions), per kind module (its `convert`), and per tree root (the shared
//! helpers), for every tree `build.rs` generated. Print them with
//!
//!     cargo test -p kubegen-conversion-roundtrip --test lines -- --nocapture

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, as its path relative to `dir`, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(at) = pending.pop() {
        for entry in std::fs::read_dir(&at).expect("a generated directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path.strip_prefix(dir).expect("under dir").to_owned());
            }
        }
    }
    found.sort();
    found
}

#[test]
fn lines_of_generated_conversions_per_version_pair() {
    let out = Path::new(env!("OUT_DIR"));
    let mut pairs = Vec::new();
    for tree in ["conversions", "derived_conversions"] {
        let dir = out.join(tree);
        for file in files(&dir) {
            let text = std::fs::read_to_string(dir.join(&file)).expect("a generated file");
            let lines = text.lines().count();
            let parts: Vec<String> = file
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            let what = match parts.as_slice() {
                [root] if root == "mod.rs" => "root (helpers)".to_owned(),
                [_, _] => continue,
                [group, kind, name] if name == "mod.rs" => format!("{group}/{kind} (convert)"),
                [group, kind, spoke] => {
                    pairs.push(format!("{group}/{kind}/{spoke}"));
                    format!("{group}/{kind} {} <-> hub", spoke.trim_end_matches(".rs"))
                }
                _ => panic!("unexpected file {}", file.display()),
            };
            println!("{tree}: {what}: {lines} lines");
            assert!(lines > 3, "{}: only a header", file.display());
        }
    }
    let mut expected = vec![
        "conversion_kubegen_io/gadget/v1alpha1.rs",
        "derived_kubegen_io/gizmo/v1alpha1.rs",
    ];
    if cfg!(corpus) {
        expected.extend([
            "cluster_x_k8s_io/machine/v1beta1.rs",
            "gateway_networking_k8s_io/gateway/v1beta1.rs",
            "gateway_networking_k8s_io/http_route/v1beta1.rs",
        ]);
    }
    pairs.sort();
    expected.sort_unstable();
    assert_eq!(pairs, expected);
}
