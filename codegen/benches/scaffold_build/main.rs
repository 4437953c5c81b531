//! The first build of your own operator: the crate `cargo kubegen new` scaffolds, grown
//! into the Backup operator of issue 23's report (`tests/fixtures/scaffold/backup`), beside
//! the same operator written with kube-rs (`benches/scaffold_build/kube-rs`: kube-derive's
//! `CustomResource`, kube-runtime's `Controller` and `finalizer`).
//!
//! Run: `cargo bench -p kubegen-codegen --bench scaffold_build`
//!
//! The kube-rs crate is built twice: as it is (cargo's default dev profile, full debug
//! info), and with the dev profile the scaffold writes (line tables for the crate, no
//! debug info for dependencies), to separate what the profile gives from the rest. Every
//! crate gets this workspace's `Cargo.lock` (the same dependency versions) and is fetched
//! first (the same cached registry). For each, in alternating order
//! (`KUBEGEN_BENCH_ROUNDS` rounds, default 1), it times a debug `cargo build` from an
//! empty target directory (clean), then one after a one-line change to the controller
//! (incremental), and prints the medians and the ratios. It also prints
//! the lines of each crate's sources, and, for ours, the lines that differ from the
//! scaffold (what a user writes by hand).

#[path = "../../tests/support/mod.rs"]
mod support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use support::{checkout, new_backup_operator, overlay, path_with_cli, tree};

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("scaffold_build: measures only under `cargo bench`");
        return;
    }
    let rounds = std::env::var("KUBEGEN_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1usize);
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixture = manifest_dir.join("tests/fixtures/scaffold/backup");
    let work = std::env::temp_dir().join(format!("kubegen-scaffold-build-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("work directory");

    let ours = work.join("backup-operator");
    let scaffold = work.join("scaffold");
    for dir in [&ours, &scaffold] {
        run(new_backup_operator(dir), "cargo kubegen new");
    }
    overlay(&fixture, &ours);
    run(
        Command::new("bash")
            .arg("hack/update-codegen.sh")
            .current_dir(&ours)
            .env("PATH", path_with_cli())
            .output()
            .expect("bash"),
        "hack/update-codegen.sh",
    );
    let theirs = work.join("kube-rs");
    overlay(
        &manifest_dir.join("benches/scaffold_build/kube-rs"),
        &theirs,
    );
    // The same crate with the scaffold's dev profile (less debug info), to show what the
    // profile gives apart from the rest.
    let theirs_lean = work.join("kube-rs-lean");
    overlay(&theirs, &theirs_lean);
    let ours_manifest = std::fs::read_to_string(ours.join("Cargo.toml")).expect("our manifest");
    let start = ours_manifest
        .find("[profile.dev]")
        .expect("the scaffold sets a dev profile");
    let manifest = std::fs::read_to_string(theirs_lean.join("Cargo.toml")).expect("manifest");
    std::fs::write(
        theirs_lean.join("Cargo.toml"),
        format!("{manifest}\n{}", &ours_manifest[start..]),
    )
    .expect("write");
    for dir in [&ours, &theirs, &theirs_lean] {
        std::fs::copy(checkout().join("Cargo.lock"), dir.join("Cargo.lock")).expect("Cargo.lock");
        let fetched = Command::new("cargo").arg("fetch").current_dir(dir).output();
        run(fetched.expect("cargo"), "cargo fetch");
    }

    let crates = [
        ("kubegen", &ours, "src/controller.rs"),
        ("kube-rs", &theirs, "src/main.rs"),
        (
            "kube-rs (the scaffold's profile)",
            &theirs_lean,
            "src/main.rs",
        ),
    ];
    let mut clean = [Vec::new(), Vec::new(), Vec::new()];
    let mut incremental = [Vec::new(), Vec::new(), Vec::new()];
    for round in 0..rounds {
        for i in if round % 2 == 0 { [0, 1, 2] } else { [2, 1, 0] } {
            let (name, dir, changed) = crates[i];
            let target = work.join(format!("target-{i}"));
            let _ = std::fs::remove_dir_all(&target);
            clean[i].push(build(dir, &target));
            let file = dir.join(changed);
            let mut text = std::fs::read_to_string(&file).expect("read");
            text.push_str(&format!("\n// edit {round}\n"));
            std::fs::write(&file, text).expect("write");
            incremental[i].push(build(dir, &target));
            println!(
                "round {round}: {name} clean {:.1} s, incremental {:.1} s",
                secs(clean[i].last()),
                secs(incremental[i].last())
            );
        }
    }
    let clean: Vec<f64> = clean.iter_mut().map(|runs| median(runs)).collect();
    let incremental: Vec<f64> = incremental.iter_mut().map(|runs| median(runs)).collect();
    println!(
        "\n| build (debug, {rounds} round(s)) | kubegen | kube-rs | kube-rs with the scaffold's profile | kubegen / kube-rs | kubegen / kube-rs, same profile |"
    );
    println!("|---|---|---|---|---|---|");
    for (what, runs) in [
        ("clean", &clean),
        ("incremental (one line in the controller)", &incremental),
    ] {
        println!(
            "| {what} | {:.1} s | {:.1} s | {:.1} s | {:.2}x | {:.2}x |",
            runs[0],
            runs[1],
            runs[2],
            runs[0] / runs[1],
            runs[0] / runs[2]
        );
    }
    println!(
        "\nsource lines: kubegen crate {} (of which the user wrote or changed {} against the scaffold), kube-rs crate {}",
        lines(&ours.join("src")) + lines(&ours.join("tests")),
        changed_lines(&fixture, &scaffold),
        lines(&theirs.join("src"))
    );
    let _ = std::fs::remove_dir_all(&work);
}

fn run(output: std::process::Output, what: &str) {
    assert!(
        output.status.success(),
        "{what} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn build(dir: &Path, target: &Path) -> Duration {
    let start = Instant::now();
    let output = Command::new("cargo")
        .args(["build", "--quiet", "--offline"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .output();
    run(output.expect("cargo"), "cargo build");
    start.elapsed()
}

fn secs(d: Option<&Duration>) -> f64 {
    d.map_or(0.0, Duration::as_secs_f64)
}

fn median(runs: &mut [Duration]) -> f64 {
    runs.sort();
    runs.get(runs.len() / 2).map_or(0.0, Duration::as_secs_f64)
}

/// Non-blank lines of the `.rs` files under `dir`, generated code (`generated/`) left out.
fn lines(dir: &Path) -> usize {
    tree(dir)
        .iter()
        .filter(|f| f.ends_with(".rs") && !f.starts_with("generated/"))
        .map(|f| {
            let text = std::fs::read_to_string(dir.join(f)).unwrap_or_default();
            text.lines().filter(|l| !l.trim().is_empty()).count()
        })
        .sum()
}

/// Non-blank lines the files of `fixture` (what a user writes on the scaffold) add or
/// change against the same files of `scaffold` (`diff`'s `>` lines).
fn changed_lines(fixture: &Path, scaffold: &Path) -> usize {
    tree(fixture)
        .iter()
        .map(|relative| {
            let output = Command::new("diff")
                .arg(scaffold.join(relative))
                .arg(fixture.join(relative))
                .output()
                .expect("diff");
            String::from_utf8_lossy(&output.stdout)
                .lines()
                .filter(|l| l.strip_prefix("> ").is_some_and(|l| !l.trim().is_empty()))
                .count()
        })
        .sum()
}
