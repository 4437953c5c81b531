//! The layer check two crates share (included by path from `codegen/tests/codegen_layers.rs`
//! and `runtime/testkit/tests/testkit_layers.rs`): a crate's source files, parsed with syn;
//! every `crate::`, `super::` and `self::` path in them (imports, inline paths, paths inside
//! macro calls other than the `quote!` family, whose paths are generated code's) and every
//! path through a name a `use` brought in, charged to the file that defines what it names
//! (through re-exports, so a front door's `pub use` is no way around the table); checked
//! against the layer table of the crate docs, read from `src/lib.rs` so the documented rule
//! and the enforced one cannot drift apart; and the files that import each other, directly
//! or around a circle (a submodule using its parent module does not count).
#![allow(dead_code, unreachable_pub)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};

/// A module path inside the crate: `["emit", "types"]`; the crate root is empty.
pub(crate) type ModulePath = Vec<String>;

/// One source file of the crate.
#[derive(Debug)]
pub(crate) struct SourceFile {
    /// Relative to `src/`, with `/` separators.
    pub(crate) name: String,
    /// The module the file is.
    pub(crate) module: ModulePath,
    /// Its text.
    pub(crate) text: String,
}

impl SourceFile {
    pub(crate) fn new(name: &str, text: &str) -> Self {
        Self {
            name: name.to_owned(),
            module: module_of(name),
            text: text.to_owned(),
        }
    }
}

/// One row of the layer table.
#[derive(Debug)]
pub(crate) struct Layer {
    pub(crate) name: String,
    /// `dir/` (every file below it) or `file.rs`; each entry is a unit whose files may use
    /// one another.
    pub(crate) units: Vec<String>,
    /// The layers its files may use (units of its own layer only when it lists itself);
    /// `None`: everything.
    pub(crate) may_use: Option<BTreeSet<String>>,
}

/// Every `.rs` file under `root` (a crate's `src/`) except the binaries (crates of their
/// own, whose `crate::` is not the library's, and which use the library through its public
/// API).
pub(crate) fn source_files(root: &Path) -> Vec<SourceFile> {
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
    let mut files = Vec::new();
    walk(root, root, &mut files);
    files
}

/// `emit/types/items.rs` -> `[emit, types, items]`, `emit/types/mod.rs` -> `[emit, types]`,
/// `lib.rs` -> `[]`.
pub(crate) fn module_of(name: &str) -> ModulePath {
    let stem = name.trim_end_matches(".rs");
    let stem = stem.strip_suffix("/mod").unwrap_or(stem);
    if stem == "lib" {
        return Vec::new();
    }
    stem.split('/').map(str::to_owned).collect()
}

/// The names of a layer table's columns: the layer's name, the files it holds, the layers
/// they may use. A name and files may be one column (`directory`: the layer `http` is the
/// files under `http/`).
pub(crate) struct Columns {
    pub(crate) layer: &'static str,
    pub(crate) files: &'static str,
    pub(crate) may_use: &'static str,
}

/// The layer table of the crate docs: the rows of the `//!` table whose header names the
/// `columns`. Names lose their backticks and a trailing `/`; a cell of layers is a
/// comma-separated list, `everything` or `nothing`.
pub(crate) fn layer_table(lib: &str, columns: &Columns) -> Vec<Layer> {
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
            line.starts_with('|')
                && [columns.layer, columns.files, columns.may_use]
                    .iter()
                    .all(|c| row.iter().any(|cell| cell == c))
        })
        .unwrap_or_else(|| {
            panic!(
                "src/lib.rs documents the layers in a table with `{}`, `{}` and `{}` columns",
                columns.layer, columns.files, columns.may_use
            )
        });
    let head = cells(lines[header]);
    let column = |name: &str| head.iter().position(|c| c == name).expect("column");
    let (layer, files, may_use) = (
        column(columns.layer),
        column(columns.files),
        column(columns.may_use),
    );
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
            name: row[layer]
                .trim_matches('`')
                .trim_end_matches('/')
                .to_owned(),
            units: list(&row[files]),
            may_use: match row[may_use].as_str() {
                "everything" => None,
                "nothing" => Some(BTreeSet::new()),
                cell => Some(
                    list(cell)
                        .into_iter()
                        .map(|name| name.trim_end_matches('/').to_owned())
                        .collect(),
                ),
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

/// Whether the scan checks test code (`#[cfg(test)]` items and the files they load).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum TestCode {
    /// Test code is checked like the rest.
    Checked,
    /// Test code is left out (a generator's test may run a front-end and an emitter
    /// together).
    Skipped,
}

/// The crate, parsed: its files (without test code, if skipped), its modules and the
/// names each module's `use` items bring in.
pub(crate) struct Crate {
    tests: TestCode,
    files: Vec<SourceFile>,
    syntax: Vec<syn::File>,
    /// Every module: the files' and inline `mod x { ... }`s.
    modules: BTreeSet<ModulePath>,
    /// Each module's `use` bindings: name -> the path as written there.
    uses: BTreeMap<ModulePath, BTreeMap<String, Vec<String>>>,
}

impl Crate {
    pub(crate) fn new(files: Vec<SourceFile>, tests: TestCode) -> Self {
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
        if tests == TestCode::Skipped {
            for (file, syntax) in files.iter().zip(&parsed) {
                test_mods(&mut file.module.clone(), &syntax.items, &mut test_modules);
            }
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
            tests: TestCode,
        ) {
            let checked = |i: &&syn::Item| tests == TestCode::Checked || !is_test(item_attrs(i));
            for item in items.iter().filter(checked) {
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
                            scan(module, items, modules, uses, tests);
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
                tests,
            );
        }
        Self {
            tests,
            files,
            syntax,
            modules,
            uses,
        }
    }

    /// The absolute path `segments`, written in module `at`, names: `None` for another
    /// crate's, a local item or a variable.
    pub(crate) fn resolve(
        &self,
        at: &[String],
        segments: &[String],
        depth: usize,
    ) -> Option<ModulePath> {
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
    pub(crate) fn file_of(&self, path: &[String]) -> &SourceFile {
        (0..=path.len())
            .rev()
            .find_map(|n| self.files.iter().find(|f| f.module == path[..n]))
            .expect("the crate root matches every path")
    }

    /// Edges between files: (from file, to file, the path resolved), test code left out.
    pub(crate) fn references(&self) -> Vec<(String, String, String)> {
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
pub(crate) struct References<'a> {
    pub(crate) krate: &'a Crate,
    /// The module the code being visited is in (the file's, plus inline modules).
    pub(crate) module: ModulePath,
    /// The module paths found, resolved.
    pub(crate) found: &'a mut Vec<ModulePath>,
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
        if self.krate.tests == TestCode::Checked || !is_test(item_attrs(item)) {
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
pub(crate) fn unit_of<'a>(layers: &'a [Layer], file: &str) -> Option<(&'a Layer, &'a str)> {
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
pub(crate) fn violations(krate: &Crate, layers: &[Layer]) -> Vec<String> {
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
pub(crate) fn circles(krate: &Crate) -> Vec<Vec<String>> {
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
pub(crate) fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
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
