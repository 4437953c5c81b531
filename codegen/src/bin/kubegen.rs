//! `kubegen`: generate Rust types for Kubernetes APIs.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use kubegen_codegen::emit::{self, GeneratedFile};
use kubegen_codegen::frontend::{self, Source, openapi};
use kubegen_codegen::model::Model;
use kubegen_codegen::{Error, SAMPLE_CRD, output};

/// Exit code for invalid input (as clap uses for usage errors).
const EXIT_INPUT: u8 = 2;
/// Exit code for stale output under `--verify`, and for I/O failures.
const EXIT_FAILED: u8 = 1;

#[derive(Parser)]
#[command(
    name = "kubegen",
    version,
    about = "Generate Rust types for Kubernetes custom resources and API groups",
    long_about = "kubegen turns CustomResourceDefinitions into Rust types that round-trip \
every field (explicit nulls included) and implement k8s-openapi's Resource traits, so kube's \
Api<K> works with them. It reads CRDs (--crd) and the API server's OpenAPI documents \
(--openapi, v3 per group or v2 swagger) for whole API groups.",
    after_help = "Examples:\n  \
kubegen demo                                   # see what it generates, no files needed\n  \
kubegen generate --crd crds/ --out src/generated\n  \
kubegen generate --crd crds/ --out src/generated --verify   # in CI: fail if stale\n  \
kubegen generate --openapi apis__apps__v1_openapi.json --out src/generated"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate Rust types from CRD YAML or JSON files, or from OpenAPI documents.
    #[command(
        after_help = "Layout of DIR (replaced as a whole; kubegen owns it):\n  \
mod.rs                       pub mod <group>;\n  \
<group>/mod.rs               pub mod <version>;   (dots and dashes become _)\n  \
<group>/<version>/mod.rs     pub mod <kind>; pub use <kind>::*;\n  \
<group>/<version>/<kind>.rs  the kind's root type and every nested type\n\n\
Use it with `mod generated;` when DIR is src/generated.\n\
The generated code needs serde, serde_json and k8s-openapi (with a version feature) as \
dependencies.\n\n\
Input errors are printed as file:line:column: message, exit with status 2, and write \
nothing. Files are written to a temporary directory first and swapped in, so an interrupted \
run leaves the previous output intact.\n\n\
OpenAPI documents (--openapi) are the API server's /openapi/v3/apis/<group>/<version> \
or /openapi/v2 output. Every group/version they serve is generated (narrow it with --group \
and --version): kinds from the served paths (plural, scope, status/scale), types from the \
definitions of the group's own package (io.k8s.api.apps.v1.* for apps/v1). Definitions of \
other packages become k8s-openapi types by path (io.k8s.api.core.v1.PodTemplateSpec -> \
::k8s_openapi::api::core::v1::PodTemplateSpec) unless --generate-referenced is given.\n\n\
Examples:\n  \
kubegen generate --crd deploy/crds/ --out src/generated\n  \
kubegen generate --openapi openapi/v3/apis__apps__v1_openapi.json --out src/generated\n  \
kubegen generate --openapi swagger.json --group batch --version v1 --out src/generated\n  \
kubegen generate --crd a.yaml --crd b.json --out src/generated\n  \
kubegen generate --crd deploy/crds/ --out src/generated --verify"
    )]
    Generate {
        /// A CRD file (YAML, possibly multi-document, or JSON) or a directory of them
        /// (*.yaml, *.yml, *.json; documents of other kinds are skipped). Repeatable.
        #[arg(
            long = "crd",
            value_name = "FILE|DIR",
            required_unless_present_any = ["rust", "kubernetes", "openapi"],
            conflicts_with_all = ["rust", "kubernetes"]
        )]
        crds: Vec<PathBuf>,
        /// A directory of Rust API modules: every `#[derive(Resource)]` struct in its
        /// `.rs` files (read with syn, not compiled) gets a typed client, lister and
        /// informer in DIR (`mod.rs`, `clientset.rs`, `listers.rs`, `informers.rs`).
        #[arg(long, value_name = "DIR")]
        rust: Option<PathBuf>,
        /// The Rust module path of the --rust directory, for type paths in generated code.
        #[arg(
            long,
            value_name = "PATH",
            default_value = "crate::apis",
            requires = "rust"
        )]
        rust_module: String,
        /// Generate the `kubernetes` clientset, listers and informers of the built-in
        /// groups (core, apps, batch, coordination, networking, rbac, policy, autoscaling,
        /// storage) over k8s-openapi's types.
        #[arg(long, conflicts_with = "rust")]
        kubernetes: bool,
        /// With --crd: also generate clients, listers and informers for the CRDs' kinds
        /// into this directory (replaced as a whole), naming the types under
        /// --types-module.
        #[arg(long, value_name = "DIR")]
        clients_out: Option<PathBuf>,
        /// With --clients-out: the Rust module path of --out (where the generated types
        /// live), e.g. `crate::generated`.
        #[arg(long, value_name = "PATH", default_value = "crate::generated")]
        types_module: String,
        /// Path of the `kubegen` facade in generated clients (`crate` inside kubegen).
        #[arg(long, value_name = "PATH", default_value = "::kubegen")]
        facade_path: String,
        /// An OpenAPI v3 document (one group/version, /openapi/v3/...) or v2 swagger
        /// document (JSON or YAML), or a directory of them. Repeatable.
        #[arg(long = "openapi", value_name = "FILE|DIR")]
        openapi: Vec<PathBuf>,
        /// Only generate this API group of the OpenAPI documents (`core` for the core
        /// group).
        #[arg(long, value_name = "GROUP", requires = "openapi")]
        group: Option<String>,
        /// Only generate this version of the OpenAPI documents' groups (`v1`).
        #[arg(long, value_name = "VERSION", requires = "openapi")]
        version: Option<String>,
        /// Generate the definitions the selected groups use from other packages too,
        /// instead of using k8s-openapi's types for them.
        #[arg(long, requires = "openapi")]
        generate_referenced: bool,
        /// The output directory (created if missing, replaced as a whole).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Do not write: compare DIR with what would be generated, print a diff and exit
        /// with status 1 if it is stale.
        #[arg(long)]
        verify: bool,
        /// Path of the k8s-openapi crate in generated code.
        #[arg(long, value_name = "PATH", default_value = "::k8s_openapi")]
        k8s_openapi_path: String,
    },
    /// Generate code for an embedded sample CRD (samplecontroller.k8s.io Foo) and print
    /// it, or write it with --out.
    #[command(after_help = "Examples:\n  kubegen demo\n  kubegen demo --out /tmp/foo-types")]
    Demo {
        /// Write the files to DIR instead of printing them.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Generate {
            kubernetes: true,
            facade_path,
            out,
            verify,
            ..
        } => match kubernetes_clients(&facade_path) {
            Ok(files) if verify => check(&out, &files),
            Ok(files) => write(&out, &files),
            Err(code) => code,
        },
        Command::Generate {
            rust: Some(dir),
            rust_module,
            facade_path,
            out,
            verify,
            ..
        } => match rust_clients(&dir, &rust_module, &facade_path) {
            Ok(files) if verify => check(&out, &files),
            Ok(files) => write(&out, &files),
            Err(code) => code,
        },
        Command::Generate {
            crds,
            openapi,
            group,
            version,
            generate_referenced,
            out,
            verify,
            k8s_openapi_path,
            clients_out,
            types_module,
            facade_path,
            ..
        } => {
            let (crd_sources, openapi_sources) = match frontend::read_sources(&crds)
                .and_then(|c| Ok((c, frontend::read_sources(&openapi)?)))
            {
                Ok(sources) => sources,
                Err(e) => return fail(EXIT_INPUT, &e),
            };
            let options = emit::Options {
                k8s_openapi: k8s_openapi_path,
                ..emit::Options::default()
            };
            let selection = openapi::Options {
                group,
                version,
                generate_referenced,
            };
            let files = match generate_all(&crd_sources, &openapi_sources, &selection, &options) {
                Ok(files) => files,
                Err(code) => return code,
            };
            // Everything is generated before anything is written.
            let clients = match &clients_out {
                Some(dir) => match crd_clients(&crd_sources, &types_module, &facade_path) {
                    Ok(clients) => Some((dir, clients)),
                    Err(code) => return code,
                },
                None => None,
            };
            let types = if verify {
                check(&out, &files)
            } else {
                write(&out, &files)
            };
            match clients {
                Some((dir, clients)) if types == ExitCode::SUCCESS => {
                    if verify {
                        check(dir, &clients)
                    } else {
                        write(dir, &clients)
                    }
                }
                _ => types,
            }
        }
        Command::Demo { out } => {
            let sources = [Source::new(
                "<embedded sample: foos.samplecontroller.k8s.io>",
                SAMPLE_CRD,
            )];
            let files = match generate(&sources, &emit::Options::default()) {
                Ok(files) => files,
                Err(code) => return code,
            };
            match out {
                Some(out) => write(&out, &files),
                None => {
                    println!("# Input: the embedded samplecontroller.k8s.io Foo CRD\n");
                    println!("{}", SAMPLE_CRD);
                    for file in &files {
                        println!("# ==== {} ====\n{}", file.path, file.contents);
                    }
                    ExitCode::SUCCESS
                }
            }
        }
    }
}

fn generate(sources: &[Source], options: &emit::Options) -> Result<Vec<GeneratedFile>, ExitCode> {
    generate_all(sources, &[], &openapi::Options::default(), options)
}

/// CRDs and OpenAPI documents into one model, then emitted.
fn generate_all(
    crds: &[Source],
    openapi: &[Source],
    selection: &openapi::Options,
    options: &emit::Options,
) -> Result<Vec<GeneratedFile>, ExitCode> {
    let mut model = Model::default();
    let built = frontend::crd::load(&mut model, crds)
        .map_err(Error::from)
        .and_then(|()| {
            if openapi.is_empty() {
                return Ok(());
            }
            Ok(frontend::openapi::load(&mut model, openapi, selection)?)
        })
        .and_then(|()| Ok(emit::generate(&model, options)?));
    built.map_err(|e| match e {
        Error::Crd(e) => fail(EXIT_INPUT, &e),
        Error::OpenApi(e) => fail(EXIT_INPUT, &e),
        Error::Emit(e) => fail(EXIT_FAILED, &e),
    })
}

/// Clients, listers and informers for the `#[derive(Resource)]` structs under `dir`.
fn rust_clients(
    dir: &std::path::Path,
    module: &str,
    facade: &str,
) -> Result<Vec<GeneratedFile>, ExitCode> {
    use kubegen_codegen::emit::clientset::{ClientOptions, TypeSource, generate_clients};
    use kubegen_codegen::frontend::rust;
    let sources = rust::read_dir(dir).map_err(|e| fail(EXIT_INPUT, &e))?;
    let apis = rust::load(&sources, module).map_err(|e| fail(EXIT_INPUT, &e))?;
    let options = ClientOptions {
        facade: facade.to_owned(),
        types: TypeSource::Paths(apis.type_paths),
    };
    generate_clients(&apis.model, &options).map_err(|e| fail(EXIT_FAILED, &e))
}

/// Clients, listers and informers for the kinds of CRD sources, over generated types.
fn crd_clients(
    sources: &[Source],
    types_module: &str,
    facade: &str,
) -> Result<Vec<GeneratedFile>, ExitCode> {
    use kubegen_codegen::emit::clientset::{ClientOptions, TypeSource, generate_clients};
    let mut model = kubegen_codegen::model::Model::default();
    frontend::crd::load(&mut model, sources).map_err(|e| fail(EXIT_INPUT, &e))?;
    let options = ClientOptions {
        facade: facade.to_owned(),
        types: TypeSource::Generated(types_module.to_owned()),
    };
    generate_clients(&model, &options).map_err(|e| fail(EXIT_FAILED, &e))
}

/// Clients, listers and informers of the built-in groups over k8s-openapi.
fn kubernetes_clients(facade: &str) -> Result<Vec<GeneratedFile>, ExitCode> {
    use kubegen_codegen::emit::clientset::{ClientOptions, TypeSource, generate_clients};
    let options = ClientOptions {
        facade: facade.to_owned(),
        types: TypeSource::K8sOpenApi,
    };
    generate_clients(&kubegen_codegen::frontend::builtin::model(), &options)
        .map_err(|e| fail(EXIT_FAILED, &e))
}

fn write(out: &std::path::Path, files: &[GeneratedFile]) -> ExitCode {
    match output::write_all(out, files) {
        Ok(()) => {
            eprintln!("kubegen: wrote {} files to {}", files.len(), out.display());
            ExitCode::SUCCESS
        }
        Err(e) => fail(EXIT_FAILED, &e),
    }
}

fn check(out: &std::path::Path, files: &[GeneratedFile]) -> ExitCode {
    match output::verify(out, files) {
        Ok(diff) if diff.is_empty() => {
            eprintln!("kubegen: {} is up to date", out.display());
            ExitCode::SUCCESS
        }
        Ok(diff) => {
            print!("{diff}");
            eprintln!(
                "kubegen: {} is stale; run the same command without --verify to update it",
                out.display()
            );
            ExitCode::from(EXIT_FAILED)
        }
        Err(e) => fail(EXIT_FAILED, &e),
    }
}

fn fail(code: u8, error: &dyn std::fmt::Display) -> ExitCode {
    eprintln!("{error}");
    ExitCode::from(code)
}
