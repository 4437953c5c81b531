//! `cargo kubegen new`: writes a new operator crate (see `kubegen_codegen::scaffold`), then
//! runs the crate's own `generate` and `crd` commands in it, all in a staging directory
//! that becomes the crate only when everything succeeded.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser};
use kubegen_codegen::scaffold::{self, Scaffold, Source};

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
    /// Take the kubegen crates from this checkout of the kubegen repository instead of
    /// the registry (same version requirement).
    #[arg(long, value_name = "PATH")]
    kubegen_path: Option<PathBuf>,
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
        group: args.group.clone(),
        version: args.api_version.clone(),
        kind: args.kind.clone(),
        namespaced: !args.cluster_scoped,
        source,
    };
    let files = match scaffold.render() {
        Ok(files) => files,
        Err(error) => return fail(EXIT_INPUT, &error),
    };
    let staging = staging_dir(&args.dir);
    let written = write_files(&staging, &files).and_then(|()| generate_in(&staging));
    let moved = written.and_then(|()| {
        // An empty directory given as DIR is replaced by the staged crate.
        if args.dir.is_dir() {
            std::fs::remove_dir(&args.dir).map_err(|e| format!("{}: {e}", args.dir.display()))?;
        }
        std::fs::rename(&staging, &args.dir).map_err(|e| format!("{}: {e}", args.dir.display()))
    });
    if let Err(message) = moved {
        let _ = std::fs::remove_dir_all(&staging);
        return fail(EXIT_FAILED, &message);
    }
    let dir = args.dir.display();
    println!(
        "Created {} ({}/{} {}) in {dir}. Next:\n  cd {dir}\n  cargo run     # an embedded API server, a sample {}, reconciled\n  cargo test    # the controller against the testkit API server\nEdit src/apis/ and src/controller.rs; after changing the types, run hack/update-codegen.sh.",
        scaffold.crate_name, scaffold.group, scaffold.version, scaffold.kind, scaffold.kind
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

fn write_files(root: &Path, files: &[scaffold::File]) -> Result<(), String> {
    for file in files {
        let path = root.join(&file.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&path, &file.contents).map_err(|e| format!("{}: {e}", path.display()))?;
        if file.executable {
            make_executable(&path)?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<(), String> {
    Ok(())
}

/// Runs the crate's `generate` and `crd` commands (what its hack/update-codegen.sh runs)
/// with `root` as the crate root.
fn generate_in(root: &Path) -> Result<(), String> {
    let in_root = |args: &[&str]| -> Vec<std::ffi::OsString> {
        let mut line = vec!["cargo-kubegen".into()];
        for arg in args {
            let path_like = arg.starts_with("src/") || arg.starts_with("config/");
            line.push(if path_like {
                root.join(arg).into_os_string()
            } else {
                (*arg).into()
            });
        }
        line
    };
    for args in [
        in_root(&Scaffold::generate_args()),
        in_root(&Scaffold::crd_args()),
    ] {
        let cli = Cli::try_parse_from(args).map_err(|e| e.to_string())?;
        let code = match cli.command {
            Command::Generate(args) => crate::generate(&args),
            Command::Crd(args) => crate::manifests(&args),
            _ => ExitCode::FAILURE,
        };
        if code != ExitCode::SUCCESS {
            return Err("the new crate's generated code could not be written (see above)".into());
        }
    }
    Ok(())
}
