//! Where a type written in the sources lives: the module of each file (and inline `mod`),
//! its `use` imports, and the path from the crate root that a type name written there
//! stands for. Apply configurations name the types they keep whole by these paths.

use std::collections::BTreeMap;

use syn::{Item, UseTree};

/// One module of the sources: a file, or an inline `mod` in it.
#[derive(Debug)]
pub(super) struct Scope {
    /// Its path from the crate root (`crate::apis::samplecontroller::v1alpha1`).
    pub(super) path: String,
    /// The names its `use` items bring in, with the paths they stand for (globs are not
    /// followed).
    uses: BTreeMap<String, String>,
}

/// Primitive and prelude types: their names mean the same in every module.
const PRELUDE: &[&str] = &[
    "bool", "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64",
    "i128", "isize", "f32", "f64", "String",
];

impl Scope {
    /// The module `path` holding `items`.
    pub(super) fn new(path: String, items: &[Item]) -> Self {
        let mut scope = Self {
            path,
            uses: BTreeMap::new(),
        };
        for item in items {
            if let Item::Use(item) = item {
                let mut prefix = Vec::new();
                if item.leading_colon.is_some() {
                    prefix.push(String::new());
                }
                scope.add_use(&item.tree, &mut prefix);
            }
        }
        scope
    }

    fn add_use(&mut self, tree: &UseTree, prefix: &mut Vec<String>) {
        match tree {
            UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.add_use(&p.tree, prefix);
                prefix.pop();
            }
            UseTree::Name(n) if n.ident == "self" => {
                if let Some(last) = prefix.last() {
                    self.uses.insert(last.clone(), prefix.join("::"));
                }
            }
            UseTree::Name(n) => {
                let name = n.ident.to_string();
                self.uses
                    .insert(name.clone(), format!("{}::{name}", prefix.join("::")));
            }
            UseTree::Rename(r) => {
                self.uses.insert(
                    r.rename.to_string(),
                    format!("{}::{}", prefix.join("::"), r.ident),
                );
            }
            UseTree::Group(g) => {
                for tree in &g.items {
                    self.add_use(tree, prefix);
                }
            }
            UseTree::Glob(_) => {}
        }
    }

    /// The path from the crate root of the type written `segments` (a plain path, without
    /// generics) in this module: a prelude name as it is; a name imported by `use` through
    /// its import; `self::`/`super::` against this module; a name of `defined` (the path of
    /// the module that declares a type of that name, when the sources declare one) there;
    /// `crate::` and other crates' paths as they are. `is_module` says whether a path is a
    /// module of the sources (`use v1::Foo` names a child module, not a crate).
    pub(super) fn resolve(
        &self,
        segments: &[String],
        absolute: bool,
        defined: Option<&str>,
        is_module: &dyn Fn(&str) -> bool,
    ) -> String {
        if absolute {
            return format!("::{}", segments.join("::"));
        }
        let Some((first, rest)) = segments.split_first() else {
            return String::new();
        };
        if rest.is_empty() {
            if PRELUDE.contains(&first.as_str()) {
                return first.clone();
            }
            if let Some(import) = self.uses.get(first) {
                return self.expand(import, is_module);
            }
            let module = defined.unwrap_or(&self.path);
            return format!("{module}::{first}");
        }
        let head = match self.uses.get(first) {
            Some(import) => self.expand(import, is_module),
            None => self.expand(first, is_module),
        };
        format!("{head}::{}", rest.join("::"))
    }

    /// An imported or written path made absolute: `self`/`super` against this module, a
    /// child module of this one under it, anything else (`crate::`, other crates) as is.
    fn expand(&self, path: &str, is_module: &dyn Fn(&str) -> bool) -> String {
        if let Some(rest) = path.strip_prefix("::") {
            return format!("::{rest}");
        }
        let mut module: Vec<&str> = self.path.split("::").collect();
        let mut segments: Vec<&str> = path.split("::").collect();
        let mut relative = false;
        while let Some(first) = segments.first().copied() {
            match first {
                "self" => relative = true,
                "super" if module.len() > 1 => {
                    relative = true;
                    module.pop();
                }
                _ => break,
            }
            segments.remove(0);
        }
        let child = segments
            .first()
            .is_some_and(|first| is_module(&format!("{}::{first}", self.path)));
        if relative || child {
            module.extend(segments);
            module.join("::")
        } else {
            segments.join("::")
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn scope(text: &str) -> Scope {
        let file: syn::File = syn::parse_str(text).unwrap();
        Scope::new("crate::apis::v1".to_owned(), &file.items)
    }

    fn resolve(scope: &Scope, written: &str, defined: Option<&str>) -> String {
        let segments: Vec<String> = written
            .trim_start_matches("::")
            .split("::")
            .map(str::to_owned)
            .collect();
        scope.resolve(&segments, written.starts_with("::"), defined, &|m| {
            m == "crate::apis::v1::child"
        })
    }

    #[test]
    fn names_resolve_through_imports_and_modules() {
        let scope = scope(
            "use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time as T};\n\
             use super::common::{self, Shared};\nuse child::Inner;\nuse ::other::Thing;\n",
        );
        let cases = [
            ("u32", None, "u32"),
            (
                "Condition",
                None,
                "k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition",
            ),
            (
                "T",
                None,
                "k8s_openapi::apimachinery::pkg::apis::meta::v1::Time",
            ),
            ("Shared", None, "crate::apis::common::Shared"),
            ("common::Other", None, "crate::apis::common::Other"),
            ("Inner", None, "crate::apis::v1::child::Inner"),
            ("Thing", None, "::other::Thing"),
            ("Local", None, "crate::apis::v1::Local"),
            (
                "Elsewhere",
                Some("crate::apis::v2"),
                "crate::apis::v2::Elsewhere",
            ),
            ("self::Local", None, "crate::apis::v1::Local"),
            ("super::v2::X", None, "crate::apis::v2::X"),
            ("crate::x::Y", None, "crate::x::Y"),
            ("::k8s_openapi::Y", None, "::k8s_openapi::Y"),
        ];
        for (written, defined, expected) in cases {
            assert_eq!(resolve(&scope, written, defined), expected, "{written}");
        }
    }
}
