//! `cargo kubegen new` writes a new operator crate (see `kubegen_codegen::__internal::scaffold`) and
//! runs the crate's own `generate` and `crd` commands in it, all in a staging directory
//! that becomes the crate only when everything succeeded. `cargo kubegen add` adds a kind
//! to such a crate and regenerates, restoring every file it touched if that fails.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser};
use kubegen_codegen::__internal::scaffold::{
    self, CRD_ARGS, Edit, GENERATE_ARGS, Kind, Scaffold, Source,
};

use crate::{Cli, Command, EXIT_FAILED, EXIT_INPUT, fail};

pub(crate) const NEW_HELP: &str = "\
Writes DIR as a new crate: the API types of the kind, a controller reconciling it under a \
finalizer, main.rs (cluster connection with an embedded API server when none is configured, \
--leader-elect, SIGTERM and SIGINT), a test against kubegen's testkit API server, config/ (CRD, \
RBAC, Deployment, sample), a Dockerfile, hack/update-codegen.sh and hack/verify-codegen.sh, and \
the generated clients. DIR must not exist or be empty; nothing is written unless all of it is.

Examples:
  cargo kubegen new backup-operator --group ops.example.com --version v1 --kind Backup
  cargo kubegen new cluster-op --group ops.example.com --version v1alpha1 --kind Tenant --cluster-scoped
  cd backup-operator && cargo run && cargo test";

#[derive(Args)]
pub(crate) struct NewArgs {
    /// The directory of the new crate; its name is the package name unless --name says
    /// otherwise.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// The package name (default: DIR's name).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    #[command(flatten)]
    kind: KindArgs,
    /// Take the kubegen crates from this checkout of the kubegen repository instead of
    /// the registry (same version requirement).
    #[arg(long, value_name = "PATH")]
    kubegen_path: Option<PathBuf>,
}

/// The kind to scaffold, for `new` and `add`.
#[derive(Args)]
pub(crate) struct KindArgs {
    /// The API group of the kind (a DNS subdomain with a dot: ops.example.com).
    #[arg(long, value_name = "GROUP")]
    group: String,
    /// The API version of the kind (v1, v1alpha1, v2beta3).
    #[arg(long = "version", value_name = "VERSION")]
    api_version: String,
    /// The kind (UpperCamelCase: Backup).
    #[arg(long, value_name = "KIND")]
    kind: String,
    /// Objects of the kind are cluster-scoped (default: namespaced).
    #[arg(long)]
    cluster_scoped: bool,
}

impl KindArgs {
    fn kind(&self) -> Kind {
        Kind {
            group: self.group.clone(),
            version: self.api_version.clone(),
            kind: self.kind.clone(),
            namespaced: !self.cluster_scoped,
        }
    }
}

pub(crate) const ADD_HELP: &str = "\
Run in a crate made by `cargo kubegen new`. Writes the kind's types (a new version module, or a \
submodule of an existing version), declares the modules, writes a sample, and regenerates \
src/generated and config/crd as hack/update-codegen.sh does. Nothing is replaced; if \
generation fails, every file touched is restored and the generated code written again from them. Wire a controller for the kind in \
src/controller.rs (the first kind's is the pattern) and add its RBAC rules to \
config/rbac/role.yaml.

Examples:
  cargo kubegen add --group ops.example.com --version v1 --kind Restore
  cargo kubegen add --group storage.example.com --version v1alpha1 --kind Volume --cluster-scoped";

#[derive(Args)]
pub(crate) struct AddArgs {
    #[command(flatten)]
    kind: KindArgs,
    /// The crate's root directory.
    #[arg(long, value_name = "DIR", default_value = ".")]
    dir: PathBuf,
}

pub(crate) fn add(args: &AddArgs) -> ExitCode {
    let kind = args.kind.kind();
    let edits = match kind.add_to(&args.dir) {
        Ok(edits) => edits,
        Err(error) => return fail(EXIT_INPUT, &error),
    };
    let mut undo: Vec<(PathBuf, Option<String>)> = Vec::new();
    let applied = edits
        .iter()
        .try_for_each(|edit| apply(&args.dir, edit, &mut undo));
    let generated = applied.and_then(|()| generate_in(&args.dir));
    if let Err(message) = generated {
        for (path, before) in undo.into_iter().rev() {
            let _ = match before {
                Some(text) => std::fs::write(&path, text),
                None => std::fs::remove_file(&path),
            };
        }
        // `generate` may have replaced src/generated before `crd` failed: the restored
        // sources write the trees they had.
        if let Err(again) = generate_in(&args.dir) {
            return fail(
                EXIT_FAILED,
                &format!("{message}; regenerating from the restored sources failed too: {again}"),
            );
        }
        return fail(EXIT_FAILED, &message);
    }
    println!(
        "Added {} ({}/{}). Wire a controller for it in src/controller.rs and its RBAC in config/rbac/role.yaml.",
        kind.kind, kind.group, kind.version
    );
    ExitCode::SUCCESS
}

/// Applies one edit under `root`, remembering in `undo` what the file held before.
fn apply(
    root: &Path,
    edit: &Edit,
    undo: &mut Vec<(PathBuf, Option<String>)>,
) -> Result<(), String> {
    match edit {
        Edit::Create(file) => {
            undo.push((root.join(&file.path), None));
            write_file(root, file)
        }
        Edit::Append { path, text } => {
            let path = root.join(path);
            let before = std::fs::read_to_string(&path).map_err(io(&path))?;
            undo.push((path.clone(), Some(before.clone())));
            std::fs::write(&path, before + text).map_err(io(&path))
        }
    }
}

/// An I/O error as a message naming `path`.
fn io(path: &Path) -> impl Fn(std::io::Error) -> String + '_ {
    move |e| format!("{}: {e}", path.display())
}

pub(crate) fn new(args: &NewArgs) -> ExitCode {
    let Some(crate_name) = args
        .name
        .clone()
        .or_else(|| scaffold::crate_name_of(&args.dir))
    else {
        return fail(
            EXIT_INPUT,
            &format!(
                "{}: no directory name to take the crate name from; pass --name",
                args.dir.display()
            ),
        );
    };
    if let Some(code) = refuse_existing(&args.dir) {
        return code;
    }
    let source = match &args.kubegen_path {
        None => Source::Registry,
        Some(path) => match checkout(path) {
            Ok(root) => Source::Checkout(root),
            Err(message) => return fail(EXIT_INPUT, &message),
        },
    };
    let scaffold = Scaffold {
        crate_name,
        kind: args.kind.kind(),
        source,
    };
    let files = match scaffold.render() {
        Ok(files) => files,
        Err(error) => return fail(EXIT_INPUT, &error),
    };
    let staging = staging_dir(&args.dir);
    let written = files
        .iter()
        .try_for_each(|file| write_file(&staging, file))
        .and_then(|()| generate_in(&staging));
    let moved = written.and_then(|()| {
        // An empty directory given as DIR is replaced by the staged crate.
        if args.dir.is_dir() {
            std::fs::remove_dir(&args.dir).map_err(io(&args.dir))?;
        }
        std::fs::rename(&staging, &args.dir).map_err(io(&args.dir))
    });
    if let Err(message) = moved {
        let _ = std::fs::remove_dir_all(&staging);
        return fail(EXIT_FAILED, &message);
    }
    let dir = args.dir.display();
    println!(
        "Created {} ({}/{} {}) in {dir}. Next:\n  cd {dir}\n  cargo run     # an embedded API server, a sample {}, reconciled\n  cargo test    # the controller against the testkit API server\nEdit src/apis/ and src/controller.rs; after changing the types, run hack/update-codegen.sh.",
        scaffold.crate_name,
        scaffold.kind.group,
        scaffold.kind.version,
        scaffold.kind.kind,
        scaffold.kind.kind
    );
    ExitCode::SUCCESS
}

/// Exit status 2 when `dir` exists and is not an empty directory.
fn refuse_existing(dir: &Path) -> Option<ExitCode> {
    if !dir.exists() {
        return None;
    }
    let empty = std::fs::read_dir(dir).map(|mut entries| entries.next().is_none());
    match empty {
        Ok(true) => None,
        Ok(false) => Some(fail(
            EXIT_INPUT,
            &format!(
                "{}: exists and is not empty; `cargo kubegen new` writes a new crate (choose another directory)",
                dir.display()
            ),
        )),
        Err(error) => Some(fail(
            EXIT_INPUT,
            &format!(
                "{}: not a directory a crate can be written to: {error}",
                dir.display()
            ),
        )),
    }
}

/// The absolute root of a kubegen checkout, or what is wrong with `path`.
fn checkout(path: &Path) -> Result<PathBuf, String> {
    let root = path
        .canonicalize()
        .map_err(|e| format!("--kubegen-path {}: {e}", path.display()))?;
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default();
    if !manifest.contains("name = \"kubegen-rs\"") {
        return Err(format!(
            "--kubegen-path {}: not a checkout of kubegen (its Cargo.toml has no package kubegen-rs)",
            path.display()
        ));
    }
    Ok(root)
}

/// A sibling of `dir` to build the crate in.
fn staging_dir(dir: &Path) -> PathBuf {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    parent.join(format!(".{name}.kubegen-new-{}", std::process::id()))
}

/// Writes `file` under `root`, creating its directory, executable if it is a script.
fn write_file(root: &Path, file: &scaffold::File) -> Result<(), String> {
    let path = root.join(&file.path);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    std::fs::write(&path, &file.contents).map_err(io(&path))?;
    if file.executable {
        make_executable(&path)?;
    }
    Ok(())
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).map_err(io(path))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<(), String> {
    Ok(())
}

/// Runs the crate's `generate` and `crd` commands (what its hack/update-codegen.sh runs)
/// in `root`, as the script does from the crate root: their messages name the crate's
/// own paths (`src/generated`), not where the crate is staged.
fn generate_in(root: &Path) -> Result<(), String> {
    let previous = std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?;
    std::env::set_current_dir(root).map_err(io(root))?;
    let generated = [&GENERATE_ARGS[..], &CRD_ARGS[..]]
        .into_iter()
        .try_for_each(|args| {
            let line = std::iter::once("cargo-kubegen").chain(args.iter().copied());
            let cli = Cli::try_parse_from(line).map_err(|e| e.to_string())?;
            let code = match cli.command {
                Command::Generate(args) => crate::run("generate", &args.config(), false),
                Command::Crd(args) => crate::run("crd", &args.config(), false),
                _ => ExitCode::FAILURE,
            };
            if code == ExitCode::SUCCESS {
                Ok(())
            } else {
                Err("the crate's generated code could not be written (see above)".to_owned())
            }
        });
    std::env::set_current_dir(&previous).map_err(io(&previous))?;
    generated
}
