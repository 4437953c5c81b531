//! `kubegen generate --rust <dir>`: find `#[derive(Resource)]` structs in source files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use syn::{DeriveInput, Item, Type};

use super::errors::Errors;
use super::{option_inner, resource, root_fields};
use crate::frontend::Source;
use crate::model::{
    ExternalType, Field, Model, RootInfo, StructDef, TypeDef, TypeDefKind, TypeRef,
};

/// Why Rust sources could not be loaded. Messages start with `file:line:column:`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or directory could not be read.
    #[error("failed to read {}: {reason}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        reason: std::io::Error,
    },
    /// A file is not valid Rust, or a `#[derive(Resource)]` struct is invalid.
    #[error("{file}:{line}:{column}: {message}")]
    Invalid {
        /// The file (as named by its source).
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What was expected.
        message: String,
    },
    /// The same kind is defined twice.
    #[error("{file}: kind {kind} of {group}/{version} is defined twice (first at {type_path})")]
    Duplicate {
        /// The file of the second definition.
        file: String,
        /// API group.
        group: String,
        /// API version.
        version: String,
        /// The kind.
        kind: String,
        /// The Rust path of the first definition.
        type_path: String,
    },
}

/// What [`load`] found: the model, and where each kind's Rust type lives.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RustApis {
    /// Groups, versions and kinds (each kind with its root type).
    pub model: Model,
    /// The Rust path of each kind's type, by `(group, version, kind)`
    /// (`crate::apis::samplecontroller::v1alpha1::Foo`).
    pub type_paths: BTreeMap<(String, String, String), String>,
}

/// Reads every `.rs` file under `dir` (recursively, in path order) as sources named by
/// their path relative to `dir` (`samplecontroller/v1alpha1/types.rs`).
pub fn read_dir(dir: &Path) -> Result<Vec<Source>, Error> {
    let mut files = Vec::new();
    collect(dir, &mut files)?;
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).map_err(|reason| Error::Io {
                path: path.clone(),
                reason,
            })?;
            let name = path.strip_prefix(dir).unwrap_or(&path);
            let name = name
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            Ok(Source::new(name, text))
        })
        .collect()
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), Error> {
    let io = |reason| Error::Io {
        path: dir.to_owned(),
        reason,
    };
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.is_dir() {
            collect(&path, files)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    Ok(())
}

/// The module path of a source file relative to the API root: `a/b.rs` -> `a::b`,
/// `a/mod.rs` -> `a`, `lib.rs`/`mod.rs` -> the root.
fn module_of(name: &str) -> Vec<String> {
    let mut parts: Vec<String> = name.split('/').map(str::to_owned).collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs");
        if stem != "mod" && stem != "lib" {
            parts.push(stem.to_owned());
        }
    }
    parts
}

/// Adds every `#[derive(Resource)]` struct of `sources` to a model. `root` is the Rust
/// path of the module the sources' directory is (`crate::apis`); type paths are built from
/// it and each file's place under the directory (plus inline `mod`s).
///
/// ```
/// use kubegen_codegen::frontend::{Source, rust};
///
/// let source = Source::new("samplecontroller/v1alpha1.rs", r#"
///     #[derive(Clone, Debug, kubegen::Resource)]
///     #[resource(group = "samplecontroller.k8s.io", version = "v1alpha1")]
///     pub struct Foo { pub metadata: ObjectMeta, pub spec: FooSpec }
/// "#);
/// let apis = rust::load(&[source], "crate::apis")?;
/// let key = ("samplecontroller.k8s.io".into(), "v1alpha1".into(), "Foo".into());
/// assert_eq!(apis.type_paths[&key], "crate::apis::samplecontroller::v1alpha1::Foo");
/// assert_eq!(apis.model.kind_count(), 1);
/// # Ok::<(), rust::Error>(())
/// ```
pub fn load(sources: &[Source], root: &str) -> Result<RustApis, Error> {
    let mut apis = RustApis::default();
    for source in sources {
        let file = syn::parse_file(&source.text).map_err(|e| invalid(source, &e))?;
        let mut module = vec![root.to_owned()];
        module.extend(module_of(&source.name));
        visit(&file.items, &mut module, source, &mut apis)?;
    }
    Ok(apis)
}

fn invalid(source: &Source, error: &syn::Error) -> Error {
    let start = error.span().start();
    Error::Invalid {
        file: source.name.clone(),
        line: start.line,
        column: start.column + 1,
        message: error.to_string(),
    }
}

fn visit(
    items: &[Item],
    module: &mut Vec<String>,
    source: &Source,
    apis: &mut RustApis,
) -> Result<(), Error> {
    for item in items {
        match item {
            Item::Struct(s) if derives_resource(&s.attrs) => {
                let input = DeriveInput::from(s.clone());
                add(&input, module, source, apis)?;
            }
            Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    module.push(m.ident.to_string());
                    visit(items, module, source, apis)?;
                    module.pop();
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Whether `#[derive(...)]` lists `Resource` (by any path: `kubegen::Resource`).
fn derives_resource(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| {
            let mut found = false;
            let _ = a.parse_nested_meta(|meta| {
                found |= meta
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "Resource");
                Ok(())
            });
            found
        })
}

fn add(
    input: &DeriveInput,
    module: &[String],
    source: &Source,
    apis: &mut RustApis,
) -> Result<(), Error> {
    let def = resource(input).map_err(|e| invalid(source, &e))?;
    let mut errors = Errors::default();
    let fields = root_fields(input, &mut errors).unwrap_or_default();
    let key = (
        def.group.clone(),
        def.version.clone(),
        def.kind.name.clone(),
    );
    let type_path = format!("{}::{}", module.join("::"), def.type_name);
    if let Some(first) = apis.type_paths.get(&key) {
        return Err(Error::Duplicate {
            file: source.name.clone(),
            group: key.0,
            version: key.1,
            kind: key.2,
            type_path: first.clone(),
        });
    }
    apis.type_paths.insert(key, type_path);
    let fields = fields
        .iter()
        .map(|(field, ty)| {
            let plain = option_inner(ty).unwrap_or(ty);
            Field {
                wire_name: field.wire_name.clone(),
                rust_name: field.rust_name.trim_start_matches("r#").to_owned(),
                ty: type_ref(plain),
                required: !field.optional,
                nullable: false,
                default: None,
                docs: None,
            }
        })
        .collect();
    let version = apis.model.version_mut(&def.group, &def.version);
    version.types.push(TypeDef {
        name: def.type_name.clone(),
        module: def.kind.module.clone(),
        docs: def.docs.clone(),
        kind: TypeDefKind::Struct(StructDef {
            fields,
            additional: None,
            root: Some(RootInfo {
                kind: def.kind.name.clone(),
            }),
        }),
    });
    version.kinds.insert(def.kind.name.clone(), def.kind);
    Ok(())
}

/// The model's reference for a field type written in Rust. Types defined in the user's
/// crate (and any type kubegen has no variant for) are external, by the path as written.
fn type_ref(ty: &Type) -> TypeRef {
    let Type::Path(path) = ty else {
        return TypeRef::External(ExternalType::new(
            quote::ToTokens::to_token_stream(ty).to_string(),
            false,
        ));
    };
    let Some(last) = path.path.segments.last() else {
        return TypeRef::Json;
    };
    let args: Vec<&Type> = match &last.arguments {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|arg| match arg {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let name = last.ident.to_string();
    match (name.as_str(), args.as_slice()) {
        ("String", []) => TypeRef::String,
        ("bool", []) => TypeRef::Bool,
        ("i32", []) => TypeRef::I32,
        ("i64", []) => TypeRef::I64,
        ("f64", []) => TypeRef::F64,
        ("Value", []) => TypeRef::Json,
        ("ObjectMeta", []) => TypeRef::External(ExternalType::object_meta()),
        ("Vec", [inner]) => TypeRef::vec(type_ref(inner)),
        ("Option", [inner]) => TypeRef::option(type_ref(inner)),
        ("Box", [inner]) => TypeRef::Boxed(Box::new(type_ref(inner))),
        ("BTreeMap" | "HashMap", [_, value]) => TypeRef::map(type_ref(value)),
        _ => {
            let path = path
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect::<Vec<_>>()
                .join("::");
            TypeRef::External(ExternalType::new(path, false))
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn modules_follow_files() {
        assert_eq!(module_of("a/b.rs"), ["a", "b"]);
        assert_eq!(module_of("a/mod.rs"), ["a"]);
        assert!(module_of("lib.rs").is_empty());
        assert!(module_of("mod.rs").is_empty());
    }

    #[test]
    fn errors_name_file_line_column() {
        let source = Source::new(
            "v1/foo.rs",
            "\n#[derive(Resource)]\n#[resource(group = \"example.com\", version = \"v1\", plurl = \"x\")]\npub struct Foo { metadata: ObjectMeta }\n",
        );
        let error = load(&[source], "crate").unwrap_err().to_string();
        assert_eq!(
            error,
            "v1/foo.rs:3:51: unknown resource attribute `plurl`; did you mean `plural`?"
        );
    }

    #[test]
    fn inline_modules_and_duplicates() {
        let text = r#"
            pub mod v1 {
                #[derive(kubegen::Resource)]
                #[resource(group = "example.com", version = "v1", cluster)]
                pub struct Bar { pub metadata: ObjectMeta, pub spec: Vec<String> }
            }
        "#;
        let apis = load(&[Source::new("lib.rs", text)], "crate::apis").unwrap();
        let key = ("example.com".into(), "v1".into(), "Bar".into());
        assert_eq!(apis.type_paths[&key], "crate::apis::v1::Bar");
        let twice = [Source::new("a.rs", text), Source::new("b.rs", text)];
        let error = load(&twice, "crate").unwrap_err();
        assert!(matches!(error, Error::Duplicate { .. }), "{error}");
    }
}
