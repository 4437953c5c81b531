//! `kubegen generate` against kopium, side by side on the same CRDs and versions.
//!
//! Run: `cargo bench -p kubegen-codegen --bench versus_kopium`
//!
//! Both tools read the CRD corpus (`$KUBEGEN_CORPUS/crds` or `../shared/corpus/crds`;
//! skipped with a message when absent) and emit only each CRD's storage version:
//! `kubegen generate --crd ... --versions storage --out DIR` in one process (the release
//! build of this checkout's CLI), kopium once per CRD with `--api-version <storage
//! version>`, as a shell loop would. Rounds alternate which tool goes first
//! (`KUBEGEN_BENCH_ROUNDS`, default 5). For each tool it prints the median wall time, the
//! median CPU time (user + sys of the children, from `/proc/self/stat`), the peak RSS of
//! one process (GNU time's `%M`, from `wait4`'s rusage; `n/a` without `/usr/bin/time`)
//! and the lines emitted, then the ratios kubegen / kopium.
//!
//! Then the second measurement: a debug `cargo build` of a crate holding only the
//! generated types, once with each tool's output (the same CRDs and versions). Both crates
//! depend on the same crates (kube with `derive`, k8s-openapi with `latest`, schemars,
//! serde, serde_json: what kopium's output needs) at the versions of this workspace's
//! `Cargo.lock`, which is copied next to them; dependencies are built first, so the timed
//! build compiles the generated crate alone. It prints build seconds and the peak RSS of
//! cargo and rustc (the largest is rustc's). `KUBEGEN_BENCH_BUILD=0` skips it.
//!
//! kopium is taken from `PATH`, else from the cache (`$KUBEGEN_BENCH_CACHE`, default
//! `~/.cache/kubegen-bench`), else installed there with `cargo install --locked kopium`;
//! if that fails the bench says the peer is missing and exits 0 after our figures.

mod measure;

use std::path::{Path, PathBuf};
use std::process::Command;

use measure::{Figures, Tool};

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs this without it, and
    // the measurement (minutes, a kopium install) is not a test.
    if !std::env::args().any(|a| a == "--bench") {
        println!("versus_kopium: measures only under `cargo bench`");
        return;
    }
    let Some(crds) = corpus() else {
        println!("SKIPPED: no CRD corpus (set KUBEGEN_CORPUS or add ../shared/corpus with crds/)");
        return;
    };
    let rounds = env_number("KUBEGEN_BENCH_ROUNDS", 5);
    let cache = cache_dir();
    let work = cache.join("run");
    let kubegen = PathBuf::from(env!("CARGO_BIN_EXE_cargo-kubegen"));
    println!(
        "corpus: {} CRDs, storage version of each; {rounds} rounds, interleaved",
        crds.len()
    );
    let peer = kopium(&cache);
    let ours = Tool::kubegen(&kubegen, &crds, &work.join("kubegen"));
    let theirs = peer
        .as_ref()
        .map(|bin| Tool::kopium(bin, &crds, &work.join("kopium")));

    let mut our_runs = Vec::new();
    let mut their_runs = Vec::new();
    for round in 0..rounds {
        // Alternate who goes first, so neither always meets a warm or cold cache.
        if round % 2 == 0 {
            our_runs.push(ours.run());
            their_runs.extend(theirs.as_ref().map(Tool::run));
        } else {
            their_runs.extend(theirs.as_ref().map(Tool::run));
            our_runs.push(ours.run());
        }
    }
    let ours_figures = Figures::median(&our_runs);
    println!("\ngenerate ({rounds} rounds, medians; peak RSS is the largest of one process)");
    println!("{}", Figures::header());
    println!("{}", ours_figures.row("kubegen"));
    let Some(theirs) = theirs else {
        println!("kopium: MISSING (not on PATH and `cargo install --locked kopium` failed)");
        return;
    };
    let their_figures = Figures::median(&their_runs);
    println!("{}", their_figures.row("kopium"));
    println!("{}", ours_figures.ratio(&their_figures));

    if env_number("KUBEGEN_BENCH_BUILD", 1) == 0 {
        println!("\nbuild of the generated crates: skipped (KUBEGEN_BENCH_BUILD=0)");
        return;
    }
    let build = cache.join("build");
    match measure::builds(&build, &ours, &theirs) {
        Ok((ours, theirs)) => {
            println!("\ndebug `cargo build` of a crate holding only the generated types");
            println!("{}", Figures::header());
            println!("{}", ours.row("kubegen"));
            println!("{}", theirs.row("kopium"));
            println!("{}", ours.ratio(&theirs));
        }
        Err(error) => println!("\nbuild of the generated crates failed: {error}"),
    }
}

/// The corpus CRD files (not the `*.example.yaml` objects), in name order.
fn corpus() -> Option<Vec<PathBuf>> {
    let root = std::env::var_os("KUBEGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    let mut crds: Vec<PathBuf> = std::fs::read_dir(root.join("crds"))
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".yaml") && !name.ends_with(".example.yaml")
        })
        .collect();
    crds.sort();
    (!crds.is_empty()).then_some(crds)
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("KUBEGEN_BENCH_CACHE") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME").map_or_else(std::env::temp_dir, PathBuf::from);
    home.join(".cache/kubegen-bench")
}

/// kopium from `PATH`, the cache, or a fresh `cargo install --locked` into the cache.
fn kopium(cache: &Path) -> Option<PathBuf> {
    let on_path = Command::new("kopium").arg("--version").output();
    if on_path.is_ok_and(|o| o.status.success()) {
        println!("kopium: from PATH");
        return Some(PathBuf::from("kopium"));
    }
    let root = cache.join("kopium");
    let cached = root.join("bin/kopium");
    if !cached.exists() {
        println!(
            "kopium: not on PATH; installing with `cargo install --locked kopium --root {}`",
            root.display()
        );
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let installed = Command::new(cargo)
            .args(["install", "--locked", "kopium", "--root"])
            .arg(&root)
            .status();
        if !installed.is_ok_and(|s| s.success()) {
            return None;
        }
    }
    let version = Command::new(&cached).arg("--version").output().ok()?;
    println!(
        "kopium: {} ({})",
        String::from_utf8_lossy(&version.stdout).trim(),
        cached.display()
    );
    Some(cached)
}
