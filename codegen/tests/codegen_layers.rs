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
//! checker finds what it is for.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};

/// A module path inside the crate: `["emit", "types"]`; the crate root is empty.
type ModulePath = Vec<String>;

/// One source file of the crate.
#[derive(Debug)]
struct SourceFile {
    /// Relative to `src/`, with `/` separators.
    name: String,
    module: ModulePath,
    text: String,
}

impl SourceFile {
    fn new(name: &str, text: &str) -> Self {
        Self {
            name: name.to_owned(),
            module: module_of(name),
            text: text.to_owned(),
        }
    }
}

/// One row of the layer table.
#[derive(Debug)]
struct Layer {
    name: String,
    /// `dir/` (every file below it) or `file.rs`; each entry is a unit whose files may use
    /// one another.
    units: Vec<String>,
    /// The layers its files may use (units of its own layer only when it lists itself);
    /// `None`: everything.
    may_use: Option<BTreeSet<String>>,
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `src/` except the binaries (crates of their own, whose
/// `crate::` is not the library's, and which use the library through its public API).
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
                out.push(SourceFile::new(&name, &text));
            }
        }
    }
    let root = src_dir();
    let mut files = Vec::new();
    walk(&root, &root, &mut files);
    files
}

/// `emit/types/items.rs` -> `[emit, types, items]`, `emit/types/mod.rs` -> `[emit, types]`,
/// `lib.rs` -> `[]`.
fn module_of(name: &str) -> ModulePath {
    let stem = name.trim_end_matches(".rs");
    let stem = stem.strip_suffix("/mod").unwrap_or(stem);
    if stem == "lib" {
        return Vec::new();
    }
    stem.split('/').map(str::to_owned).collect()
}

/// The layer table of the crate docs: the rows of the `//!` table whose header names the
/// columns `layer`, `files` and `may use`.
fn layer_table(lib: &str) -> Vec<Layer> {
    let lines: Vec<&str> = lib
        .lines()
        .filter_map(|line| line.trim().strip_prefix("//!"))
        .map(str::trim)
        .collect();
    let cells = |line: &str| -> Vec<String> {
        line.trim_matches('|')
            .split('|')
            .map(|cell| cell.trim().to_owned())
            .collect()
    };
    let header = lines
        .iter()
        .position(|line| {
            let row = cells(line);
            line.starts_with('|') && ["layer", "files", "may use"].iter().all(|c| row.contains(&c.to_string()))
        })
        .expect("src/lib.rs documents the layers in a table with `layer`, `files` and `may use` columns");
    let head = cells(lines[header]);
    let column = |name: &str| head.iter().position(|c| c == name).expect("column");
    let (layer, files, may_use) = (column("layer"), column("files"), column("may use"));
    let list = |cell: &str| -> Vec<String> {
        cell.split(',')
            .map(|item| item.trim().trim_matches('`').to_owned())
            .filter(|item| !item.is_empty())
            .collect()
    };
    lines[header + 1..]
        .iter()
        .take_while(|line| line.starts_with('|'))
        .map(|line| cells(line))
        .filter(|row| {
            !row.iter()
                .all(|c| c.chars().all(|ch| ch == '-' || ch == ':'))
        })
        .map(|row| Layer {
            name: row[layer].clone(),
            units: list(&row[files]),
            may_use: match row[may_use].as_str() {
                "everything" => None,
                "nothing" => Some(BTreeSet::new()),
                cell => Some(list(cell).into_iter().collect()),
            },
        })
        .collect()
}

/// Whether attributes hold `#[cfg(test)]` (or `#[cfg(all(test, ...))]`).
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        let syn::Meta::List(list) = &attr.meta else {
            return false;
        };
        if !list.path.is_ident("cfg") {
            return false;
        }
        let tokens: Vec<TokenTree> = list.tokens.clone().into_iter().collect();
        match tokens.as_slice() {
            [TokenTree::Ident(test)] => test == "test",
            [TokenTree::Ident(all), TokenTree::Group(args)] if all == "all" => args
                .stream()
                .into_iter()
                .any(|t| matches!(&t, TokenTree::Ident(test) if test == "test")),
            _ => false,
        }
    })
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// Macros whose tokens are the generated code, not the generator's: their paths
/// (`super::#name`) are not the crate's.
const QUOTING_MACROS: &[&str] = &[
    "quote",
    "quote_spanned",
    "parse_quote",
    "parse_quote_spanned",
];

/// Calls `each(binding, path as written)` for every name a `use` tree brings in; a glob
/// brings in no name this scan knows.
fn use_bindings(
    prefix: &mut Vec<String>,
    tree: &syn::UseTree,
    each: &mut impl FnMut(String, Vec<String>),
) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            use_bindings(prefix, &path.tree, each);
            prefix.pop();
        }
        syn::UseTree::Name(name) if name.ident == "self" => {
            if let Some(last) = prefix.last() {
                each(last.clone(), prefix.clone());
            }
        }
        syn::UseTree::Name(name) => {
            let mut path = prefix.clone();
            path.push(name.ident.to_string());
            each(name.ident.to_string(), path);
        }
        syn::UseTree::Rename(rename) => {
            let mut path = prefix.clone();
            path.push(rename.ident.to_string());
            if rename.ident == "self" {
                path.pop();
            }
            each(rename.rename.to_string(), path);
        }
        syn::UseTree::Glob(_) => {}
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                use_bindings(prefix, tree, each);
            }
        }
    }
}

/// The crate, parsed: its non-test files, its modules and the names each module's `use`
/// items bring in.
struct Crate {
    files: Vec<SourceFile>,
    syntax: Vec<syn::File>,
    /// Every module: the files' and inline `mod x { ... }`s.
    modules: BTreeSet<ModulePath>,
    /// Each module's `use` bindings: name -> the path as written there.
    uses: BTreeMap<ModulePath, BTreeMap<String, Vec<String>>>,
}

impl Crate {
    fn new(files: Vec<SourceFile>) -> Self {
        let parsed: Vec<syn::File> = files
            .iter()
            .map(|f| {
                syn::parse_file(&f.text).unwrap_or_else(|e| panic!("parsing src/{}: {e}", f.name))
            })
            .collect();
        // Files only tests load: `#[cfg(test)] mod tests;`.
        let mut test_modules = BTreeSet::new();
        fn test_mods(module: &mut ModulePath, items: &[syn::Item], out: &mut BTreeSet<ModulePath>) {
            for item in items {
                if let syn::Item::Mod(m) = item {
                    module.push(m.ident.to_string());
                    if is_test(&m.attrs) {
                        out.insert(module.clone());
                    } else if let Some((_, items)) = &m.content {
                        test_mods(module, items, out);
                    }
                    module.pop();
                }
            }
        }
        for (file, syntax) in files.iter().zip(&parsed) {
            test_mods(&mut file.module.clone(), &syntax.items, &mut test_modules);
        }
        let (files, syntax): (Vec<_>, Vec<_>) = files
            .into_iter()
            .zip(parsed)
            .filter(|(f, _)| !test_modules.iter().any(|t| f.module.starts_with(t)))
            .unzip();

        let mut modules: BTreeSet<ModulePath> = files.iter().map(|f| f.module.clone()).collect();
        let mut uses = BTreeMap::new();
        fn scan(
            module: &mut ModulePath,
            items: &[syn::Item],
            modules: &mut BTreeSet<ModulePath>,
            uses: &mut BTreeMap<ModulePath, BTreeMap<String, Vec<String>>>,
        ) {
            for item in items.iter().filter(|i| !is_test(item_attrs(i))) {
                match item {
                    syn::Item::Use(u) => {
                        let bindings: &mut BTreeMap<String, Vec<String>> =
                            uses.entry(module.clone()).or_default();
                        use_bindings(&mut Vec::new(), &u.tree, &mut |name, path| {
                            bindings.insert(name, path);
                        });
                    }
                    syn::Item::Mod(m) => {
                        if let Some((_, items)) = &m.content {
                            module.push(m.ident.to_string());
                            modules.insert(module.clone());
                            scan(module, items, modules, uses);
                            module.pop();
                        }
                    }
                    _ => {}
                }
            }
        }
        for (file, syntax) in files.iter().zip(&syntax) {
            scan(
                &mut file.module.clone(),
                &syntax.items,
                &mut modules,
                &mut uses,
            );
        }
        Self {
            files,
            syntax,
            modules,
            uses,
        }
    }

    /// The absolute path `segments`, written in module `at`, names: `None` for another
    /// crate's, a local item or a variable.
    fn resolve(&self, at: &[String], segments: &[String], depth: usize) -> Option<ModulePath> {
        if depth > 16 {
            return None;
        }
        let (first, mut rest) = segments.split_first()?;
        let mut base: ModulePath = match first.as_str() {
            "crate" => Vec::new(),
            "self" => at.to_vec(),
            "super" => {
                let mut parent = at.to_vec();
                parent.pop()?;
                parent
            }
            name => {
                let mut child = at.to_vec();
                child.push(name.to_owned());
                if self.modules.contains(&child) {
                    child
                } else {
                    let bound = self.uses.get(at)?.get(name)?;
                    self.resolve(at, bound, depth + 1)?
                }
            }
        };
        while let Some((head, tail)) = rest.split_first() {
            match head.as_str() {
                "super" => {
                    base.pop()?;
                }
                "self" => {}
                _ => break,
            }
            rest = tail;
        }
        base.extend(rest.iter().cloned());
        Some(self.canonical(base, depth + 1))
    }

    /// Follows re-exports and imports: `[emit, Options]` -> `[emit, common, Options]`.
    fn canonical(&self, mut path: ModulePath, depth: usize) -> ModulePath {
        for _ in 0..16 {
            let n = (0..=path.len())
                .rev()
                .find(|n| self.modules.contains(&path[..*n]))
                .unwrap_or(0);
            if n == path.len() {
                break;
            }
            let module = &path[..n];
            let Some(bound) = self.uses.get(module).and_then(|u| u.get(&path[n])) else {
                break;
            };
            let Some(mut target) = self.resolve(module, bound, depth + 1) else {
                break;
            };
            target.extend(path[n + 1..].iter().cloned());
            if target == path {
                break;
            }
            path = target;
        }
        path
    }

    /// The file a module path lives in: the longest prefix that is a file's module.
    fn file_of(&self, path: &[String]) -> &SourceFile {
        (0..=path.len())
            .rev()
            .find_map(|n| self.files.iter().find(|f| f.module == path[..n]))
            .expect("the crate root matches every path")
    }

    /// Edges between files: (from file, to file, the path resolved), test code left out.
    fn references(&self) -> Vec<(String, String, String)> {
        let mut edges = Vec::new();
        for (file, syntax) in self.files.iter().zip(&self.syntax) {
            let mut found = Vec::new();
            References {
                krate: self,
                module: file.module.clone(),
                found: &mut found,
            }
            .visit_file(syntax);
            for path in found {
                let target = self.file_of(&path);
                if target.name != file.name {
                    edges.push((file.name.clone(), target.name.clone(), path.join("::")));
                }
            }
        }
        edges.sort();
        edges.dedup();
        edges
    }
}

/// Collects the module paths a file refers to.
struct References<'a> {
    krate: &'a Crate,
    /// The module the code being visited is in (the file's, plus inline modules).
    module: ModulePath,
    found: &'a mut Vec<ModulePath>,
}

impl References<'_> {
    fn record(&mut self, segments: &[String]) {
        if let Some(path) = self.krate.resolve(&self.module, segments, 0) {
            self.found.push(path);
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
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !is_test(item_attrs(item)) {
            visit::visit_item(self, item);
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut paths = Vec::new();
        use_bindings(&mut Vec::new(), &item.tree, &mut |_, path| paths.push(path));
        // `use super::*`: the module itself.
        glob_prefixes(&mut Vec::new(), &item.tree, &mut paths);
        for path in paths {
            self.record(&path);
        }
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
        let quoting = mac
            .path
            .segments
            .last()
            .is_some_and(|s| QUOTING_MACROS.iter().any(|q| s.ident == q));
        if !quoting {
            self.tokens(mac.tokens.clone());
        }
        visit::visit_macro(self, mac);
    }
}

/// The module paths of a `use` tree's globs (`use super::*` -> `super`).
fn glob_prefixes(prefix: &mut Vec<String>, tree: &syn::UseTree, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            glob_prefixes(prefix, &path.tree, out);
            prefix.pop();
        }
        syn::UseTree::Glob(_) => out.push(prefix.clone()),
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                glob_prefixes(prefix, tree, out);
            }
        }
        syn::UseTree::Name(_) | syn::UseTree::Rename(_) => {}
    }
}

/// The unit a file belongs to: the longest table entry that names it or a directory
/// above it, with its layer.
fn unit_of<'a>(layers: &'a [Layer], file: &str) -> Option<(&'a Layer, &'a str)> {
    layers
        .iter()
        .flat_map(|layer| layer.units.iter().map(move |unit| (layer, unit.as_str())))
        .filter(|(_, unit)| {
            if unit.ends_with('/') {
                file.starts_with(unit)
            } else {
                file == *unit
            }
        })
        .max_by_key(|(_, unit)| unit.len())
}

/// Every use against the table, and every file the table does not place.
fn violations(krate: &Crate, layers: &[Layer]) -> Vec<String> {
    let mut found = Vec::new();
    for file in &krate.files {
        if unit_of(layers, &file.name).is_none() {
            found.push(format!("src/{} is in no row of the layer table", file.name));
        }
    }
    for (from, to, path) in krate.references() {
        let (Some((layer, unit)), Some((target, target_unit))) =
            (unit_of(layers, &from), unit_of(layers, &to))
        else {
            continue;
        };
        let allowed = unit == target_unit
            || layer
                .may_use
                .as_ref()
                .is_none_or(|may_use| may_use.contains(&target.name));
        if !allowed {
            found.push(format!(
                "src/{from} ({}) uses crate::{path} (src/{to}, {})",
                layer.name, target.name
            ));
        }
    }
    found
}

/// Whether `ancestor` is a module that `file` is a submodule of (at any depth).
fn is_ancestor(ancestor: &SourceFile, file: &SourceFile) -> bool {
    ancestor.module.len() < file.module.len() && file.module.starts_with(&ancestor.module)
}

/// Files that import each other, directly or around a circle; a submodule using its
/// parent (whose private items Rust lets it see) does not count.
fn circles(krate: &Crate) -> Vec<Vec<String>> {
    let by_name: BTreeMap<&str, &SourceFile> =
        krate.files.iter().map(|f| (f.name.as_str(), f)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to, _) in krate.references() {
        if !is_ancestor(by_name[to.as_str()], by_name[from.as_str()]) {
            graph.entry(from).or_default().insert(to);
        }
    }
    cycles(&graph)
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

fn the_crate() -> (Crate, Vec<Layer>) {
    let files = source_files();
    let lib = files
        .iter()
        .find(|f| f.name == "lib.rs")
        .expect("src/lib.rs");
    let layers = layer_table(&lib.text);
    (Crate::new(files), layers)
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
    );
    assert_eq!(layers.len(), 6);
    let krate = Crate::new(vec![
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
    ]);
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
