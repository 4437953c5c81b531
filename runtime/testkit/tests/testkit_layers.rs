//! The testkit's layers, enforced: every `crate::`, `super::` and `self::` path in the
//! crate's source (imports, inline paths, paths inside macro calls) points to the same
//! layer or one below, as the layer table in the crate docs (`src/lib.rs`) says, and no
//! two files of the crate import each other, directly or around a circle (a submodule
//! using its parent module does not count).
//!
//! The table is read from `src/lib.rs`, so the documented rule and the enforced one
//! cannot drift apart.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};

/// A module path inside the crate: `["http", "routes"]`; the crate root is empty.
type ModulePath = Vec<String>;

/// One source file of the crate.
#[derive(Debug)]
struct SourceFile {
    /// Relative to `src/`, with `/` separators.
    name: String,
    module: ModulePath,
    text: String,
}

/// One row of the layer table: a directory and the layers its files may import.
#[derive(Debug)]
struct Layer {
    directory: String,
    may_import: BTreeSet<String>,
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `src/` except the binaries (separate crates that use the
/// library through its public API).
fn source_files() -> Vec<SourceFile> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<SourceFile>) {
        let mut entries: Vec<_> = fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
            .map(|entry| entry.expect("directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path
                .strip_prefix(root)
                .expect("under src")
                .to_string_lossy()
                .replace('\\', "/");
            if path.is_dir() {
                if name != "bin" {
                    walk(&path, root, out);
                }
            } else if name.ends_with(".rs") {
                let text = fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
                out.push(SourceFile {
                    module: module_of(&name),
                    name,
                    text,
                });
            }
        }
    }
    let root = src_dir();
    let mut files = Vec::new();
    walk(&root, &root, &mut files);
    files
}

/// `http/routes.rs` -> `[http, routes]`, `http/table/mod.rs` -> `[http, table]`,
/// `lib.rs` -> `[]`.
fn module_of(name: &str) -> ModulePath {
    let stem = name.trim_end_matches(".rs");
    let stem = stem.strip_suffix("/mod").unwrap_or(stem);
    if stem == "lib" {
        return Vec::new();
    }
    stem.split('/').map(str::to_owned).collect()
}

/// The layer table of the crate docs: rows `| ... | `dir/` | `a`, `b` |` after a header
/// row naming the columns `directory` and `may import`.
fn layer_table(lib: &str) -> Vec<Layer> {
    let rows: Vec<Vec<String>> = lib
        .lines()
        .filter_map(|line| line.trim().strip_prefix("//!"))
        .map(str::trim)
        .filter(|line| line.starts_with('|'))
        .map(|line| {
            line.trim_matches('|')
                .split('|')
                .map(|cell| cell.trim().to_owned())
                .collect()
        })
        .collect();
    let header = rows
        .iter()
        .position(|row| {
            row.iter().any(|c| c == "directory") && row.iter().any(|c| c == "may import")
        })
        .expect(
            "src/lib.rs documents the layers in a table with `directory` and `may import` columns",
        );
    let column = |name: &str| rows[header].iter().position(|c| c == name).expect("column");
    let (directory, may_import) = (column("directory"), column("may import"));
    rows[header + 1..]
        .iter()
        .skip_while(|row| {
            row.iter()
                .all(|c| c.chars().all(|ch| ch == '-' || ch == ':'))
        })
        .take_while(|row| row.len() > directory.max(may_import) && row[directory].ends_with("/`"))
        .map(|row| Layer {
            directory: row[directory]
                .trim_matches('`')
                .trim_end_matches('/')
                .to_owned(),
            may_import: row[may_import]
                .split(',')
                .map(|name| name.trim().trim_matches('`').to_owned())
                .collect(),
        })
        .collect()
}

/// Collects the module paths a file refers to through `crate::`, `super::` and `self::`,
/// and through the names of its own submodules (`printers::row`).
struct References<'a> {
    /// The module the code being visited is in (the file's, plus inline modules).
    module: ModulePath,
    /// Every module that has a file.
    files: &'a BTreeSet<ModulePath>,
    found: &'a mut Vec<ModulePath>,
}

impl References<'_> {
    /// Resolves a path's segments against the current module; `None` for paths that do
    /// not start at the crate, a parent or this module.
    fn resolve(&self, segments: &[String]) -> Option<ModulePath> {
        let (first, rest) = segments.split_first()?;
        let mut base = match first.as_str() {
            "crate" => Vec::new(),
            "self" | "super" => self.module.clone(),
            child => {
                let mut path = self.module.clone();
                path.push(child.to_owned());
                if !self.files.contains(&path) {
                    return None; // Another crate, a local item or a variable.
                }
                path.extend(rest.iter().cloned());
                return Some(path);
            }
        };
        let mut rest = if first == "super" {
            base.pop();
            rest
        } else {
            rest
        };
        while let Some(("super", tail)) = rest.split_first().map(|(h, t)| (h.as_str(), t)) {
            base.pop();
            rest = tail;
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    fn record(&mut self, segments: &[String]) {
        if let Some(path) = self.resolve(segments) {
            self.found.push(path);
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                self.use_tree(prefix, &path.tree);
                prefix.pop();
            }
            syn::UseTree::Name(name) => {
                prefix.push(name.ident.to_string());
                self.record(prefix);
                prefix.pop();
            }
            syn::UseTree::Rename(rename) => {
                prefix.push(rename.ident.to_string());
                self.record(prefix);
                prefix.pop();
            }
            syn::UseTree::Glob(_) => self.record(prefix),
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }

    /// Paths written inside macro calls (`matches!`, `json!`, `format!`), which syn does
    /// not parse: `crate`, `self` or `super` followed by `::ident` pairs.
    fn tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            match &tokens[i] {
                TokenTree::Group(group) => self.tokens(group.stream()),
                TokenTree::Ident(ident)
                    if matches!(ident.to_string().as_str(), "crate" | "self" | "super") =>
                {
                    let mut segments = vec![ident.to_string()];
                    let mut j = i + 1;
                    while let (
                        Some(TokenTree::Punct(a)),
                        Some(TokenTree::Punct(b)),
                        Some(TokenTree::Ident(next)),
                    ) = (tokens.get(j), tokens.get(j + 1), tokens.get(j + 2))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        segments.push(next.to_string());
                        j += 3;
                    }
                    if segments.len() > 1 {
                        self.record(&segments);
                    }
                    i = j - 1;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

impl<'ast> Visit<'ast> for References<'_> {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &item.tree);
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.module.push(item.ident.to_string());
        visit::visit_item_mod(self, item);
        self.module.pop();
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.record(&segments);
        visit::visit_path(self, path);
    }

    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {
        // `pub(crate)`, `pub(super)`: who may see an item, not what it uses.
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        visit::visit_macro(self, mac);
    }
}

/// The file a module path lives in: the longest prefix that is a file's module.
fn file_of<'a>(files: &'a [SourceFile], path: &[String]) -> Option<&'a SourceFile> {
    (0..=path.len())
        .rev()
        .find_map(|n| files.iter().find(|f| f.module == path[..n]))
}

/// Edges between files: (from file, to file, the path as written, resolved).
fn references(files: &[SourceFile]) -> Vec<(String, String, String)> {
    let mut edges = Vec::new();
    let modules: BTreeSet<ModulePath> = files.iter().map(|f| f.module.clone()).collect();
    for file in files {
        let syntax = syn::parse_file(&file.text)
            .unwrap_or_else(|e| panic!("parsing src/{}: {e}", file.name));
        let mut found = Vec::new();
        References {
            module: file.module.clone(),
            files: &modules,
            found: &mut found,
        }
        .visit_file(&syntax);
        for path in found {
            let target = file_of(files, &path).expect("the crate root matches every path");
            if target.name != file.name {
                edges.push((file.name.clone(), target.name.clone(), path.join("::")));
            }
        }
    }
    edges.sort();
    edges.dedup();
    edges
}

/// Strongly connected components of more than one node (Tarjan's algorithm).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, node: &'a str) {
            let n = self.index.len();
            self.index.insert(node, n);
            self.low.insert(node, n);
            self.stack.push(node);
            self.on_stack.insert(node);
            for next in self.graph.get(node).into_iter().flatten() {
                if !self.index.contains_key(next.as_str()) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next.as_str()]);
                    self.low.insert(node, low);
                } else if self.on_stack.contains(next.as_str()) {
                    let low = self.low[node].min(self.index[next.as_str()]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut component = Vec::new();
                while let Some(top) = self.stack.pop() {
                    self.on_stack.remove(top);
                    component.push(top.to_owned());
                    if top == node {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.out.push(component);
                }
            }
        }
    }
    let mut tarjan = Tarjan {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for node in graph.keys() {
        if !tarjan.index.contains_key(node.as_str()) {
            tarjan.visit(node);
        }
    }
    tarjan.out
}

fn crate_files() -> (Vec<SourceFile>, Vec<Layer>) {
    let files = source_files();
    let lib = files
        .iter()
        .find(|f| f.name == "lib.rs")
        .expect("src/lib.rs");
    let layers = layer_table(&lib.text);
    (files, layers)
}

#[test]
fn the_crate_docs_document_the_layers_top_down() {
    let (_, layers) = crate_files();
    let directories: Vec<&str> = layers.iter().map(|l| l.directory.as_str()).collect();
    assert_eq!(directories, ["http", "verbs", "store", "builtin"]);
    // Each layer may import itself and exactly the layers listed below it.
    for (i, layer) in layers.iter().enumerate() {
        let below: BTreeSet<String> = layers[i..].iter().map(|l| l.directory.clone()).collect();
        assert_eq!(layer.may_import, below, "row `{}/`", layer.directory);
    }
}

#[test]
fn every_file_imports_only_from_its_own_layer_or_below() {
    let (files, layers) = crate_files();
    let layer_of = |name: &str| {
        let top = name.split('/').next().unwrap_or_default();
        layers.iter().find(|l| l.directory == top)
    };
    let mut violations = Vec::new();
    for file in files.iter().filter(|f| f.name != "lib.rs") {
        if layer_of(&file.name).is_none() {
            violations.push(format!("src/{} is in no layer's directory", file.name));
        }
    }
    let edges = references(&files);
    assert!(
        edges.len() > 50,
        "the scan sees the crate's imports ({} found)",
        edges.len()
    );
    for (from, to, path) in &edges {
        if from == "lib.rs" {
            continue; // The crate root declares the layers and re-exports the public API.
        }
        let Some(layer) = layer_of(from) else {
            continue;
        };
        let allowed = to != "lib.rs"
            && layer_of(to).is_some_and(|target| layer.may_import.contains(&target.directory));
        if !allowed {
            violations.push(format!("src/{from} uses crate::{path} (src/{to})"));
        }
    }
    assert!(
        violations.is_empty(),
        "imports against the layer table in src/lib.rs:\n  {}",
        violations.join("\n  ")
    );
}

/// Whether `ancestor` is a module that `file` is a submodule of (at any depth).
fn is_ancestor(ancestor: &SourceFile, file: &SourceFile) -> bool {
    ancestor.module.len() < file.module.len() && file.module.starts_with(&ancestor.module)
}

#[test]
fn no_files_import_each_other() {
    let (files, _) = crate_files();
    let by_name: BTreeMap<&str, &SourceFile> = files.iter().map(|f| (f.name.as_str(), f)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to, _) in references(&files) {
        // The crate root declares everything; a submodule may use its parent, whose
        // private items Rust lets it see (`super::Column` in `http/table/printers/`).
        if from == "lib.rs" || is_ancestor(by_name[to.as_str()], by_name[from.as_str()]) {
            continue;
        }
        graph.entry(from).or_default().insert(to);
    }
    let found = cycles(&graph);
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
fn the_scan_resolves_paths_as_rust_does() {
    let files: Vec<SourceFile> = ["lib.rs", "a/mod.rs", "a/x.rs", "a/x/deep.rs", "b/y.rs"]
        .iter()
        .map(|name| SourceFile {
            name: (*name).to_owned(),
            module: module_of(name),
            text: String::new(),
        })
        .collect();
    let modules: BTreeSet<ModulePath> = files.iter().map(|f| f.module.clone()).collect();
    let mut found = Vec::new();
    let mut scan = References {
        module: module_of("a/x.rs"),
        files: &modules,
        found: &mut found,
    };
    let source =
        syn::parse_file("use deep::Thing; fn g() { deep::f(); helper(); }").expect("valid Rust");
    scan.visit_file(&source);
    let targets: Vec<&str> = found
        .iter()
        .map(|path| file_of(&files, path).expect("root").name.as_str())
        .collect();
    assert_eq!(
        targets,
        ["a/x/deep.rs", "a/x/deep.rs"],
        "submodules by their names"
    );

    let mut found = Vec::new();
    let mut scan = References {
        module: module_of("a/x/deep.rs"),
        files: &modules,
        found: &mut found,
    };
    let source = syn::parse_file(
        "use super::{Thing, other::Item};
         use crate::b::y::{self, Y};
         pub(crate) fn f() { let _ = super::super::helper(); matches!(v, crate::b::y::Z); }
         pub(super) struct S;
         mod tests { use super::*; }",
    )
    .expect("valid Rust");
    scan.visit_file(&source);
    let targets: BTreeSet<&str> = found
        .iter()
        .map(|path| file_of(&files, path).expect("root").name.as_str())
        .collect();
    assert_eq!(
        targets,
        BTreeSet::from(["a/x.rs", "b/y.rs", "a/mod.rs", "a/x/deep.rs"])
    );
    let graph = BTreeMap::from([
        ("p".to_owned(), BTreeSet::from(["q".to_owned()])),
        ("q".to_owned(), BTreeSet::from(["r".to_owned()])),
        ("r".to_owned(), BTreeSet::from(["p".to_owned()])),
        ("s".to_owned(), BTreeSet::from(["p".to_owned()])),
    ]);
    assert_eq!(cycles(&graph), [["p", "q", "r"]]);
}
