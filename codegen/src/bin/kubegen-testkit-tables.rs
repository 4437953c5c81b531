//! `kubegen-testkit-tables`: generates the testkit API server's tables of facts about the
//! built-in kinds it serves (patch strategies, OpenAPI definitions, protobuf field
//! numbers) from Kubernetes' OpenAPI v2 document and the k8s-pb crate's sources.
//!
//! ```text
//! kubegen-testkit-tables --openapi swagger.json --k8s-pb ~/.cargo/registry/src/.../k8s-pb-0.9.0/src \
//!     --out runtime/testkit/src/builtin/generated [--verify]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use kubegen_codegen::__internal::output;
use kubegen_codegen::__internal::testkit_tables::{self, SERVED};

/// Generate the testkit's built-in tables from an OpenAPI v2 document.
#[derive(Debug, Parser)]
#[command(name = "kubegen-testkit-tables", version, about)]
struct Args {
    /// Kubernetes' OpenAPI v2 document (`swagger.json`).
    #[arg(long)]
    openapi: PathBuf,
    /// The k8s-pb crate's `src` directory (protobuf field numbers of the messages).
    #[arg(long)]
    k8s_pb: PathBuf,
    /// The generated module's directory (replaced as a whole).
    #[arg(long)]
    out: PathBuf,
    /// Compare with the committed output instead of writing; exit 1 when stale.
    #[arg(long)]
    verify: bool,
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("kubegen-testkit-tables: {message}");
    ExitCode::FAILURE
}

fn main() -> ExitCode {
    let args = Args::parse();
    let text = match std::fs::read_to_string(&args.openapi) {
        Ok(text) => text,
        Err(e) => return fail(format!("failed to read {}: {e}", args.openapi.display())),
    };
    let swagger: serde_json::Value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(e) => {
            return fail(format!(
                "{}:{}:{}: {e}",
                args.openapi.display(),
                e.line(),
                e.column()
            ));
        }
    };
    let files = match testkit_tables::generate(&swagger, SERVED, Some(&args.k8s_pb)) {
        Ok(files) => files,
        Err(e) => return fail(format!("{}: {e}", args.openapi.display())),
    };
    if args.verify {
        return match output::verify(&args.out, &files) {
            Ok(diff) if diff.is_empty() => {
                eprintln!(
                    "kubegen-testkit-tables: {} is up to date",
                    args.out.display()
                );
                ExitCode::SUCCESS
            }
            Ok(diff) => {
                print!("{diff}");
                fail(format!(
                    "{} is stale; run the same command without --verify to update it",
                    args.out.display()
                ))
            }
            Err(e) => fail(e),
        };
    }
    match output::write_all(&args.out, &files) {
        Ok(()) => {
            eprintln!(
                "kubegen-testkit-tables: wrote {} to {}",
                kubegen_codegen::__internal::naming::counted(files.len(), "file"),
                args.out.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}
