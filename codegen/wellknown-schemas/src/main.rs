//! `kubegen-wellknown-schemas`: writes (or, with `--verify`, checks) `kubegen-codegen`'s table
//! of the schemas `crd()` writes for numbers and k8s-openapi types.
//!
//! ```text
//! kubegen-wellknown-schemas --out codegen/src/wellknown/generated [--verify]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use kubegen_codegen::__internal::output;

const USAGE: &str = "usage: kubegen-wellknown-schemas --out DIR [--verify]";

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("kubegen-wellknown-schemas: {message}");
    ExitCode::FAILURE
}

fn main() -> ExitCode {
    let mut out = None;
    let mut verify = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--out" => out = args.next().map(PathBuf::from),
            "--verify" => verify = true,
            _ => return fail(format!("unexpected argument `{arg}`\n{USAGE}")),
        }
    }
    let Some(out) = out else {
        return fail(USAGE);
    };
    let files = match kubegen_wellknown_schemas::entries()
        .and_then(|entries| kubegen_wellknown_schemas::generate(&entries))
    {
        Ok(files) => files,
        Err(e) => return fail(e),
    };
    if verify {
        return match output::verify(&out, &files) {
            Ok(diff) if diff.is_empty() => {
                eprintln!("kubegen-wellknown-schemas: {} is up to date", out.display());
                ExitCode::SUCCESS
            }
            Ok(diff) => {
                print!("{diff}");
                fail(format!(
                    "{} is stale; run the same command without --verify to update it",
                    out.display()
                ))
            }
            Err(e) => fail(e),
        };
    }
    match output::write_all(&out, &files) {
        Ok(()) => {
            eprintln!(
                "kubegen-wellknown-schemas: wrote {} files to {}",
                files.len(),
                out.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}
