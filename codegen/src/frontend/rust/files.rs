//! `kubegen generate --rust <dir>`: find `#[derive(Resource)]` structs in source files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use syn::{DeriveInput, Item};

use super::{derive, location, schema};
use crate::frontend::{Error, Result, Source, Versions, Warning};
use crate::model::{Location, Model, RootType};
use crate::naming;

/// Options of the Rust front-end.
///
/// ```
/// use kubegen_codegen::__internal::frontend::rust::Options;
/// assert_eq!(Options::default().module, "crate::apis");
/// assert_eq!(Options::default().module("crate::types").module, "crate::types");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The Rust module path of the directory the sources come from (`crate::apis`):
    /// each struct's path is this, then the file's place under the directory, then
    /// inline `mod`s.
    pub module: String,
    /// Which versions to read (each struct declares one version, served and stored).
    pub versions: Versions,
    /// Whether to read the types the roots' fields use too, into
    /// [`HandWritten::types`](crate::model::HandWritten::types) (what `kubegen crd` needs for
    /// schemas; clients only need the roots).
    pub schemas: bool,
    /// Whether to read the types the roots' fields use for apply configurations: like
    /// [`Options::schemas`] but for serde's names only, keeping a type it cannot read whole
    /// instead of failing (what `--apply-out` needs to mirror nested structs). Ignored when
    /// `schemas` is set, whose stricter reading wins.
    pub apply_types: bool,
    /// Whether to read the types the roots' fields use for conversions: like
    /// [`Options::apply_types`], with each nested field's Rust type as declared (what
    /// `--conversions-out` needs to build the structs; the apply emitter reads the same
    /// model). Ignored when `schemas` is set.
    pub conversions: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            module: "crate::apis".to_owned(),
            versions: Versions::default(),
            schemas: false,
            apply_types: false,
            conversions: false,
        }
    }
}

impl Options {
    /// Sets the module path of the sources' directory.
    pub fn module(mut self, module: impl Into<String>) -> Self {
        self.module = module.into();
        self
    }

    /// Reads the types the roots' fields use too (see [`Options::schemas`]).
    pub fn schemas(mut self, schemas: bool) -> Self {
        self.schemas = schemas;
        self
    }

    /// Reads the types the roots' fields use for apply configurations (see
    /// [`Options::apply_types`]).
    pub fn apply_types(mut self, apply_types: bool) -> Self {
        self.apply_types = apply_types;
        self
    }

    /// Reads the types the roots' fields use for conversions (see
    /// [`Options::conversions`]).
    pub fn conversions(mut self, conversions: bool) -> Self {
        self.conversions = conversions;
        self
    }

    /// Selects the versions to read.
    pub fn versions(mut self, versions: Versions) -> Self {
        self.versions = versions;
        self
    }
}

/// Reads every `.rs` file under `dir` (recursively, in path order) as sources named by
/// their path as `dir` was given (`src/apis/samplecontroller/v1alpha1/types.rs`), so that
/// errors point at files from where the command ran; their module paths are made of their
/// path below `dir` ([`Source::relative_name`]: `samplecontroller/v1alpha1/types.rs`).
pub fn read_dir(dir: &Path) -> Result<Vec<Source>> {
    let mut files = Vec::new();
    collect(dir, &mut files)?;
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).map_err(|reason| Error::Read {
                path: path.clone(),
                reason,
            })?;
            let relative = path.strip_prefix(dir).unwrap_or(&path);
            Ok(Source::in_dir(dir, relative, text))
        })
        .collect()
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    let io = |reason| Error::Read {
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

/// Adds the kind of every `#[derive(Resource)]` struct of `sources` (of the selected
/// versions) to `model`, each with the path of its struct: [`Options::module`], then the
/// file's place under the directory, then inline `mod`s. Then validates the model.
///
/// Returns the warnings of reading schemas ([`Options::schemas`]): fields whose types
/// Kubernetes' API conventions advise against (unsigned and floating-point numbers), each
/// once, in order of place.
///
/// ```
/// use kubegen_codegen::__internal::frontend::{Source, rust};
/// use kubegen_codegen::__internal::model::{Model, RootType};
///
/// let source = Source::new("samplecontroller/v1alpha1.rs", r#"
///     #[derive(Clone, Debug, kubegen::Resource)]
///     #[resource(group = "samplecontroller.k8s.io", version = "v1alpha1")]
///     pub struct Foo { pub metadata: ObjectMeta, pub spec: FooSpec }
/// "#);
/// let mut model = Model::default();
/// rust::load(&mut model, &[source], &rust::Options::default())?;
/// let kind = &model.groups["samplecontroller.k8s.io"].versions["v1alpha1"].kinds["Foo"];
/// assert!(matches!(&kind.root,
///     RootType::HandWritten(h) if h.path == "crate::apis::samplecontroller::v1alpha1::Foo"));
/// # Ok::<(), kubegen_codegen::__internal::frontend::Error>(())
/// ```
pub fn load(model: &mut Model, sources: &[Source], options: &Options) -> Result<Vec<Warning>> {
    // syn parses nested types and expressions recursively: on a large stack, and only
    // sources nested no deeper than the readers allow.
    crate::parallel::deep(|| read(model, sources, options))
}

fn read(model: &mut Model, sources: &[Source], options: &Options) -> Result<Vec<Warning>> {
    let mut files = Vec::with_capacity(sources.len());
    for source in sources {
        check_nesting(source)?;
        let file = syn::parse_file(&source.text).map_err(|e| invalid(source, &e))?;
        files.push(file);
    }
    // The module path of each file: the root module, then the file's path below it.
    let modules: Vec<Vec<String>> = sources
        .iter()
        .map(|source| {
            let mut module = vec![options.module.clone()];
            module.extend(module_of(source.relative_name()));
            module
        })
        .collect();
    let mut index = schema::Index::default();
    if options.schemas || options.apply_types || options.conversions {
        for ((source, file), module) in sources.iter().zip(&files).zip(&modules) {
            index.add(&source.name, module.join("::"), &file.items);
        }
    }
    let reader = Reader { options, index };
    let mut warnings = Vec::new();
    let mut versions = Vec::new();
    for ((source, file), mut module) in sources.iter().zip(&files).zip(modules) {
        let mut read = Read {
            model: &mut *model,
            warnings: &mut warnings,
            versions: &mut versions,
        };
        reader.visit(&file.items, &mut module, source, &mut read)?;
    }
    storage_versions(model, &versions, &options.versions)?;
    model.validate()?;
    // A type several kinds use is read once for each.
    warnings.sort();
    warnings.dedup();
    Ok(warnings)
}

/// Refuses a source nested deeper than [`MAX_NESTING`] levels, at the first place that
/// is, before syn's recursive parse sees it. A level is an open `(`, `[` or `{`, or a `<`
/// not yet closed within its statement (a comparison counts until the next `;`, `{` or
/// `}`, which no real source nests hundreds deep).
///
/// [`MAX_NESTING`]: crate::frontend::schema::MAX_NESTING
fn check_nesting(source: &Source) -> Result<()> {
    let max = crate::frontend::schema::MAX_NESTING;
    let (mut groups, mut angles) = (0usize, 0usize);
    let (mut line, mut column) = (1u64, 0u64);
    for c in source.text.chars() {
        if c == '\n' {
            (line, column) = (line + 1, 0);
            continue;
        }
        column += 1;
        match c {
            '(' | '[' | '{' => groups += 1,
            ')' | ']' | '}' => groups = groups.saturating_sub(1),
            '<' => angles += 1,
            '>' => angles = angles.saturating_sub(1),
            _ => {}
        }
        if matches!(c, ';' | '{' | '}') {
            angles = 0;
        }
        if groups + angles > max {
            return Err(Error::Input {
                at: Location::new(&source.name, line, column),
                message: format!("nested more than {max} levels deep"),
            });
        }
    }
    Ok(())
}

fn invalid(source: &Source, error: &syn::Error) -> Error {
    Error::Input {
        at: location(&source.name, error.span()),
        message: error.to_string(),
    }
}

/// What reading a directory needs besides the model: the options and, for schemas, every
/// type of the sources.
struct Reader<'a> {
    options: &'a Options,
    index: schema::Index<'a>,
}

impl Reader<'_> {
    fn visit(
        &self,
        items: &[Item],
        module: &mut Vec<String>,
        source: &Source,
        read: &mut Read<'_>,
    ) -> Result<()> {
        for item in items {
            match item {
                Item::Struct(s) if derives_resource(&s.attrs) => {
                    let input = DeriveInput::from(s.clone());
                    self.add(&input, module, source, read)?;
                }
                Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        module.push(m.ident.to_string());
                        self.visit(items, module, source, read)?;
                        module.pop();
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn add(
        &self,
        input: &DeriveInput,
        module: &[String],
        source: &Source,
        read: &mut Read<'_>,
    ) -> Result<()> {
        let Read {
            model,
            warnings,
            versions,
        } = read;
        let mut derived = derive(input, Some(&source.name)).map_err(|e| invalid(source, &e))?;
        // `--versions storage` is applied once every version of the kind is known.
        let named = matches!(self.options.versions, Versions::Named(_));
        if named && !self.options.versions.selects(&derived.version, true, true) {
            return Ok(());
        }
        if let RootType::HandWritten(hand) = &mut derived.kind.root {
            hand.path = format!("{}::{}", module.join("::"), input.ident);
        }
        let options = self.options;
        let purpose = if options.schemas {
            Some(schema::Purpose::Schema)
        } else if options.conversions {
            Some(schema::Purpose::Conversion)
        } else if options.apply_types {
            Some(schema::Purpose::Apply)
        } else {
            None
        };
        if let Some(purpose) = purpose {
            let at = (source.name.as_str(), module.join("::"));
            warnings.extend(schema::resolve(
                &self.index,
                (at.0, &at.1),
                input,
                &mut derived.kind.root,
                purpose,
            )?);
        }
        let version = model.version_mut(&derived.group, &derived.version);
        if version.kinds.contains_key(&derived.kind.name) {
            return Err(Error::DuplicateKind {
                at: Some(location(&source.name, input.ident.span())),
                api_version: naming::api_version(&derived.group, &derived.version),
                kind: derived.kind.name.clone(),
            });
        }
        versions.push(KindVersion {
            group: derived.group.clone(),
            kind: derived.kind.name.clone(),
            version: derived.version.clone(),
            storage_marked: derived.storage_marked,
            at: location(&source.name, input.ident.span()),
        });
        derived.add_to(model);
        Ok(())
    }
}

/// What reading the sources adds to: the model, the warnings, and each kind version read.
struct Read<'a> {
    model: &'a mut Model,
    warnings: &'a mut Vec<Warning>,
    versions: &'a mut Vec<KindVersion>,
}

/// One version of a hand-written kind, and whether it says it is the storage version.
struct KindVersion {
    group: String,
    kind: String,
    version: String,
    storage_marked: bool,
    at: Location,
}

/// Settles which version of each kind is stored: the only one, or among several the one
/// marked `#[resource(storage)]` (exactly one must be); then, for `--versions storage`,
/// drops the others.
fn storage_versions(model: &mut Model, read: &[KindVersion], versions: &Versions) -> Result<()> {
    let mut kinds: BTreeMap<(&str, &str), Vec<&KindVersion>> = BTreeMap::new();
    for version in read {
        kinds
            .entry((version.group.as_str(), version.kind.as_str()))
            .or_default()
            .push(version);
    }
    for ((group, kind), read) in kinds {
        let marked: Vec<&&KindVersion> = read.iter().filter(|v| v.storage_marked).collect();
        let stored = match (read.as_slice(), marked.as_slice()) {
            ([only], _) => only.version.as_str(),
            (_, [one]) => one.version.as_str(),
            (_, _) => {
                let names: Vec<&str> = read.iter().map(|v| v.version.as_str()).collect();
                let at = marked.get(1).map_or(&read[0].at, |v| &v.at).clone();
                let message = format!(
                    "kind `{kind}` of group `{group}` has versions {}: exactly one must be \
                     the storage version, marked #[resource(storage)] (found {})",
                    names.join(", "),
                    marked.len()
                );
                return Err(Error::Input { at, message });
            }
        };
        for version in &read {
            let is_stored = version.version == stored;
            let keep = !matches!(versions, Versions::Storage) || is_stored;
            let Some(group) = model.groups.get_mut(group) else {
                continue;
            };
            if let Some(found) = group.versions.get_mut(&version.version) {
                match keep {
                    true => {
                        if let Some(k) = found.kinds.get_mut(kind) {
                            k.storage = is_stored;
                        }
                    }
                    false => {
                        found.kinds.remove(kind);
                    }
                }
            }
        }
    }
    model.groups.retain(|_, group| {
        group
            .versions
            .retain(|_, version| !version.kinds.is_empty());
        !group.versions.is_empty()
    });
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

    fn load_all(sources: &[Source], module: &str) -> Result<Model> {
        let mut model = Model::default();
        load(&mut model, sources, &Options::default().module(module))?;
        Ok(model)
    }

    #[test]
    fn errors_name_file_line_column() {
        let source = Source::new(
            "v1/foo.rs",
            "\n#[derive(Resource)]\n#[resource(group = \"example.com\", version = \"v1\", plurl = \"x\")]\npub struct Foo { metadata: ObjectMeta }\n",
        );
        let error = load_all(&[source], "crate").unwrap_err().to_string();
        assert_eq!(
            error,
            "v1/foo.rs:3:51: unknown resource attribute `plurl`; did you mean `plural`?"
        );
    }

    #[test]
    fn sources_of_a_directory_are_named_as_it_was_given_and_moduled_below_it() {
        let dir = Path::new("src/apis");
        let text = "\n#[derive(Resource)]\n#[resource(group = \"example.com\", version = \"v1\")]\npub struct Foo { metadata: ObjectMeta }\n";
        let source = Source::in_dir(dir, Path::new("v1/foo.rs"), text);
        let model = load_all(&[source], "crate::apis").unwrap();
        let kind = &model.groups["example.com"].versions["v1"].kinds["Foo"];
        assert!(
            matches!(&kind.root, RootType::HandWritten(h) if h.path == "crate::apis::v1::foo::Foo"),
            "{:?}",
            kind.root
        );
        let bad = Source::in_dir(
            dir,
            Path::new("v1/foo.rs"),
            text.replace("\")]", "\", plurl = \"x\")]"),
        );
        let error = load_all(&[bad], "crate::apis").unwrap_err().to_string();
        let expected = format!(
            "{}:3:51: unknown resource attribute `plurl`; did you mean `plural`?",
            dir.join("v1/foo.rs").display()
        );
        assert_eq!(error, expected);
    }

    #[test]
    fn inline_modules_and_duplicates() {
        let text = r#"
            pub mod v1 {
                #[derive(kubegen::Resource)]
                #[resource(group = "example.com", version = "v1", cluster)]
                pub struct Bar { pub metadata: ObjectMeta, pub spec: Vec<String>, pub r#type: String }
            }
        "#;
        let model = load_all(&[Source::new("lib.rs", text)], "crate::apis").unwrap();
        let kind = &model.groups["example.com"].versions["v1"].kinds["Bar"];
        assert!(matches!(&kind.root, RootType::HandWritten(h) if h.path == "crate::apis::v1::Bar"));
        let twice = [Source::new("a.rs", text), Source::new("b.rs", text)];
        let error = load_all(&twice, "crate").unwrap_err();
        assert!(matches!(error, Error::DuplicateKind { .. }), "{error}");
        assert!(
            error
                .to_string()
                .starts_with("b.rs:5:28: kind `Bar` of example.com/v1 is defined twice"),
            "{error}"
        );
    }

    #[test]
    fn versions_select_structs() {
        let text = r#"
            #[derive(Resource)]
            #[resource(group = "example.com", version = "v1")]
            pub struct A { pub metadata: ObjectMeta }
            #[derive(Resource)]
            #[resource(group = "example.com", version = "v2")]
            pub struct B { pub metadata: ObjectMeta }
        "#;
        let mut model = Model::default();
        let options = Options::default().versions("v2".parse().unwrap());
        load(&mut model, &[Source::new("lib.rs", text)], &options).unwrap();
        let versions: Vec<&String> = model.groups["example.com"].versions.keys().collect();
        assert_eq!(versions, ["v2"]);
    }
}
