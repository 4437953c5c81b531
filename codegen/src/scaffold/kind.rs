//! A kind: its names, the placeholders they give the templates, and the edits that add it
//! to an existing crate (`cargo kubegen add`).

use std::path::{Path, PathBuf};

use super::{Error, File, substitute, templates};
use crate::naming;

/// A kind of the crate's API.
#[derive(Clone, Debug)]
pub struct Kind {
    /// The API group (`ops.example.com`).
    pub group: String,
    /// The API version (`v1`).
    pub version: String,
    /// The kind (`Backup`).
    pub kind: String,
    /// Whether objects of the kind live in namespaces.
    pub namespaced: bool,
}

/// One change to an existing crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edit {
    /// A new file (it does not exist yet).
    Create(File),
    /// Text added at the end of an existing file.
    Append {
        /// The file, relative to the crate root.
        path: PathBuf,
        /// What to add.
        text: String,
    },
}

impl Kind {
    /// Checks the names as Kubernetes would, and that the kind can name a Rust struct.
    pub fn check(&self) -> Result<(), Error> {
        let api_name = |what, value: &str, check: fn(&str) -> Result<(), &'static str>| {
            check(value).map_err(|reason| Error::ApiName {
                what,
                value: value.to_owned(),
                reason,
            })
        };
        api_name("group", &self.group, naming::kubernetes::check_crd_group)?;
        api_name("version", &self.version, naming::kubernetes::check_version)?;
        api_name("kind", &self.kind, naming::kubernetes::check_kind)?;
        let struct_name = self.kind.starts_with(|c: char| c.is_ascii_uppercase())
            && naming::is_identifier(&self.kind)
            && naming::escape_keyword(self.kind.clone()) == self.kind;
        if !struct_name {
            return Err(Error::ApiName {
                what: "kind",
                value: self.kind.clone(),
                reason: "the kind names a Rust struct: expected UpperCamelCase such as `Backup`",
            });
        }
        Ok(())
    }

    /// The placeholders the kind gives the templates.
    pub(super) fn values(&self) -> Vec<(&'static str, String)> {
        let group_dir = naming::group_short(&self.group);
        let version_module = naming::version_module(&self.version);
        let scoped = |namespaced: &str, cluster: &str| {
            if self.namespaced { namespaced } else { cluster }.to_owned()
        };
        vec![
            ("group", self.group.clone()),
            ("group_dir", group_dir.clone()),
            ("group_module", naming::group_module(&self.group)),
            ("version", self.version.clone()),
            ("version_module", version_module.clone()),
            ("kind", self.kind.clone()),
            ("kind_module", naming::kind_module(&self.kind)),
            ("plural", naming::plural(&self.kind)),
            ("accessor", naming::kind_accessor(&self.kind)),
            (
                "clientset_accessor",
                format!("{group_dir}_{version_module}"),
            ),
            ("scope_attr", scoped("namespaced, ", "")),
            (
                "namespace_arg",
                scoped("key.namespace().unwrap_or_default()", ""),
            ),
            ("sample_namespace", scoped("\n  namespace: default", "")),
            ("demo_namespace", scoped("\"default\"", "")),
        ]
    }

    /// The edits that add this kind's types and sample to the crate at `root`: the
    /// version's module when the version is new (declared in its group's module, and the
    /// group in `src/apis/mod.rs` when the group is new too), or a submodule of the
    /// version when the version exists. Nothing existing is replaced.
    pub fn add_to(&self, root: &Path) -> Result<Vec<Edit>, Error> {
        self.check()?;
        let apis = root.join("src/apis/mod.rs");
        if !apis.is_file() {
            return Err(Error::NotACrate(root.to_owned()));
        }
        let values = self.values();
        let render = |template: &'static str, text: &str| substitute(template, text, &values);
        let path = |template: &'static str| render(template, template).map(PathBuf::from);
        let create = |at: PathBuf, contents: String| -> Result<Edit, Error> {
            if root.join(&at).exists() {
                return Err(Error::FileExists(at));
            }
            Ok(Edit::Create(File {
                path: at,
                contents,
                executable: false,
            }))
        };
        let mut edits = Vec::new();
        let version_path = path(templates::VERSION_PATH)?;
        let kind_module = naming::kind_module(&self.kind);
        if let Some(text) = read_if_present(&root.join(&version_path))? {
            let defines = |name: &str| {
                text.contains(&format!("pub struct {name} "))
                    || text.contains(&format!("pub struct {name}{{"))
            };
            if defines(&self.kind) || declares(&text, &kind_module) {
                return Err(Error::KindExists {
                    path: version_path,
                    kind: self.kind.clone(),
                });
            }
            edits.push(create(
                path(templates::KIND_PATH)?,
                render(templates::KIND_PATH, templates::TYPES)?,
            )?);
            edits.push(append(
                version_path,
                &format!("\n/// The `{}` kind.\npub mod {kind_module};\n", self.kind),
            ));
        } else {
            edits.push(create(
                version_path,
                render(templates::VERSION_PATH, templates::TYPES)?,
            )?);
            let group_path = path(templates::GROUP_MOD_PATH)?;
            let version_module = naming::version_module(&self.version);
            match read_if_present(&root.join(&group_path))? {
                Some(group) if declares(&group, &version_module) => {}
                Some(_) => edits.push(append(group_path, &format!("pub mod {version_module};\n"))),
                None => {
                    edits.push(create(
                        group_path,
                        render(templates::GROUP_MOD_PATH, templates::GROUP_MOD)?,
                    )?);
                    let group_dir = naming::group_short(&self.group);
                    let apis_text = read_if_present(&apis)?.unwrap_or_default();
                    if !declares(&apis_text, &group_dir) {
                        edits.push(append(
                            "src/apis/mod.rs".into(),
                            &format!("pub mod {group_dir};\n"),
                        ));
                    }
                }
            }
        }
        edits.push(create(
            path(templates::SAMPLE_PATH)?,
            render(templates::SAMPLE_PATH, templates::SAMPLE)?,
        )?);
        Ok(edits)
    }
}

fn append(path: PathBuf, text: &str) -> Edit {
    Edit::Append {
        path,
        text: text.to_owned(),
    }
}

/// Whether `text` declares the module `name` (`pub mod name;` or `mod name;`).
fn declares(text: &str, name: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim();
        line == format!("pub mod {name};") || line == format!("mod {name};")
    })
}

fn read_if_present(path: &Path) -> Result<Option<String>, Error> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(Error::Read {
            path: path.to_owned(),
            source,
        }),
    }
}
