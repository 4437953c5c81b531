//! Running a tool and measuring it: wall time, children's CPU time, peak RSS, lines.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// GNU time, which reports a child's peak RSS (`%M`, from `wait4`'s rusage).
const GNU_TIME: &str = "/usr/bin/time";

/// One generator and the commands of one run of it.
pub(crate) struct Tool {
    /// Each command, with the file its stdout goes to (kopium prints its module).
    commands: Vec<(Vec<String>, Option<PathBuf>)>,
    /// Where its output goes (emptied before every run).
    out: PathBuf,
}

impl Tool {
    /// `kubegen generate --crd ... --versions storage --out <out>/generated`, one process.
    pub(crate) fn kubegen(bin: &Path, crds: &[PathBuf], out: &Path) -> Self {
        let mut args = vec![bin.display().to_string(), "generate".to_owned()];
        for crd in crds {
            args.extend(["--crd".to_owned(), crd.display().to_string()]);
        }
        args.extend(["--versions", "storage", "--out"].map(str::to_owned));
        args.push(out.join("generated").display().to_string());
        Self {
            commands: vec![(args, None)],
            out: out.to_owned(),
        }
    }

    /// `kopium -f <crd> --api-version <storage version>` per CRD, stdout to `<out>/<crd>.rs`.
    pub(crate) fn kopium(bin: &Path, crds: &[PathBuf], out: &Path) -> Self {
        let commands = crds
            .iter()
            .map(|crd| {
                let mut args = vec![bin.display().to_string(), "-f".to_owned()];
                args.push(crd.display().to_string());
                if let Some(version) = storage_version(crd) {
                    args.extend(["--api-version".to_owned(), version]);
                }
                (args, Some(out.join(format!("{}.rs", module_name(crd)))))
            })
            .collect();
        Self {
            commands,
            out: out.to_owned(),
        }
    }

    /// The directory of the last run's output.
    pub(crate) fn out(&self) -> &Path {
        &self.out
    }

    /// One run, from an empty output directory.
    pub(crate) fn run(&self) -> Figures {
        let _ = std::fs::remove_dir_all(&self.out);
        std::fs::create_dir_all(&self.out).expect("create the output directory");
        let figures = measured(self.commands.iter().map(|(args, stdout)| {
            let mut command = Command::new(&args[0]);
            command.args(&args[1..]);
            let stdout = stdout
                .as_ref()
                .map(|path| std::fs::File::create(path).expect("create an output file"));
            (command, stdout)
        }));
        Figures {
            lines: rust_lines(&self.out),
            ..figures
        }
    }
}

/// The storage version's name, read from the CRD.
fn storage_version(crd: &Path) -> Option<String> {
    let text = std::fs::read_to_string(crd).ok()?;
    let docs: Vec<serde_json::Value> = serde_saphyr::from_multiple(&text).ok()?;
    docs.iter().find_map(|doc| {
        doc["spec"]["versions"]
            .as_array()?
            .iter()
            .find(|v| v["storage"] == true)?["name"]
            .as_str()
            .map(str::to_owned)
    })
}

/// A Rust module name from a file name.
fn module_name(path: &Path) -> String {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    stem.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// Lines of every `.rs` file under `dir`.
fn rust_lines(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .map(|p| {
            if p.is_dir() {
                rust_lines(&p)
            } else if p.extension().is_some_and(|e| e == "rs") {
                std::fs::read_to_string(&p).map_or(0, |t| t.lines().count())
            } else {
                0
            }
        })
        .sum()
}

/// Runs `commands` one after the other, each with its stdout going to the file given;
/// each must succeed.
fn measured(commands: impl Iterator<Item = (Command, Option<std::fs::File>)>) -> Figures {
    let gnu_time = Path::new(GNU_TIME).exists();
    let rss_file = std::env::temp_dir().join(format!("kubegen-bench-rss-{}", std::process::id()));
    let mut peak_kib: Option<u64> = None;
    let cpu_before = children_cpu();
    let start = Instant::now();
    for (command, stdout) in commands {
        let mut run = if gnu_time {
            let mut wrapped = Command::new(GNU_TIME);
            wrapped
                .args(["-f", "%M", "-o"])
                .arg(&rss_file)
                .arg(command.get_program())
                .args(command.get_args());
            if let Some(dir) = command.get_current_dir() {
                wrapped.current_dir(dir);
            }
            for (key, value) in command.get_envs() {
                match value {
                    Some(value) => wrapped.env(key, value),
                    None => wrapped.env_remove(key),
                };
            }
            wrapped
        } else {
            command
        };
        if let Some(file) = stdout {
            run.stdout(file);
        }
        let status = run.stderr(Stdio::inherit()).status();
        match status {
            Ok(status) if status.success() => {}
            other => panic!("{run:?} failed: {other:?}"),
        }
        if gnu_time {
            let kib = std::fs::read_to_string(&rss_file)
                .ok()
                .and_then(|t| t.trim().lines().last()?.trim().parse::<u64>().ok());
            peak_kib = peak_kib.max(kib);
        }
    }
    let wall = start.elapsed();
    let cpu = children_cpu().saturating_sub(cpu_before);
    let _ = std::fs::remove_file(&rss_file);
    Figures {
        wall,
        cpu,
        peak_kib,
        lines: 0,
    }
}

/// User + system time of every waited-for child of this process, from `/proc/self/stat`
/// (`cutime`, `cstime`, in clock ticks of 1/100 s, Linux's `USER_HZ`).
fn children_cpu() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    // Fields after the command name (which may hold spaces) start at field 3 (`state`);
    // `cutime` and `cstime` are fields 16 and 17.
    let after = stat.rsplit_once(") ").map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Duration::from_millis((ticks(13) + ticks(14)) * 10)
}

/// What one run cost.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Figures {
    wall: Duration,
    cpu: Duration,
    peak_kib: Option<u64>,
    lines: usize,
}

impl Figures {
    /// The median wall and CPU time of `runs`, their largest peak RSS, the last line count.
    pub(crate) fn median(runs: &[Figures]) -> Figures {
        let median = |mut values: Vec<Duration>| {
            values.sort();
            values.get(values.len() / 2).copied().unwrap_or_default()
        };
        Figures {
            wall: median(runs.iter().map(|r| r.wall).collect()),
            cpu: median(runs.iter().map(|r| r.cpu).collect()),
            peak_kib: runs.iter().filter_map(|r| r.peak_kib).max(),
            lines: runs.last().map_or(0, |r| r.lines),
        }
    }

    /// The table header.
    pub(crate) fn header() -> String {
        format!(
            "{:<16} {:>10} {:>12} {:>14} {:>10}",
            "", "wall", "CPU (u+s)", "peak RSS", "lines"
        )
    }

    /// One row.
    pub(crate) fn row(&self, name: &str) -> String {
        let rss = self.peak_kib.map_or("n/a".to_owned(), |kib| {
            format!("{:.1} MiB", kib as f64 / 1024.0)
        });
        format!(
            "{name:<16} {:>9.3}s {:>11.3}s {rss:>14} {:>10}",
            self.wall.as_secs_f64(),
            self.cpu.as_secs_f64(),
            self.lines
        )
    }

    /// The ratios `self / other`.
    pub(crate) fn ratio(&self, other: &Figures) -> String {
        let ratio = |a: f64, b: f64| {
            if b > 0.0 {
                format!("{:.2}x", a / b)
            } else {
                "n/a".to_owned()
            }
        };
        let rss = match (self.peak_kib, other.peak_kib) {
            (Some(a), Some(b)) => ratio(a as f64, b as f64),
            _ => "n/a".to_owned(),
        };
        format!(
            "{:<16} {:>10} {:>12} {rss:>14} {:>10}",
            "kubegen/kopium",
            ratio(self.wall.as_secs_f64(), other.wall.as_secs_f64()),
            ratio(self.cpu.as_secs_f64(), other.cpu.as_secs_f64()),
            ratio(self.lines as f64, other.lines as f64),
        )
    }
}

/// The crates every generated-types crate depends on, with this workspace's version
/// requirements (`Cargo.lock`, copied beside, pins the exact versions).
const DEPENDENCIES: [(&str, &str); 5] = [
    ("kube", r#"default-features = false, features = ["derive"]"#),
    ("k8s-openapi", r#"features = ["latest"]"#),
    ("schemars", ""),
    ("serde", r#"features = ["derive"]"#),
    ("serde_json", ""),
];

/// Debug builds of a crate holding only `ours`' output and of one holding only `theirs`',
/// in `dir`, dependencies built first and not timed.
pub(crate) fn builds(dir: &Path, ours: &Tool, theirs: &Tool) -> Result<(Figures, Figures), String> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let manifest = std::fs::read_to_string(workspace.join("Cargo.toml"))
        .map_err(|e| format!("failed to read the workspace manifest: {e}"))?;
    let mut dependencies = String::new();
    for (name, extra) in DEPENDENCIES {
        let version = workspace_version(&manifest, name)
            .ok_or_else(|| format!("no version of `{name}` in [workspace.dependencies]"))?;
        let extra = if extra.is_empty() {
            String::new()
        } else {
            format!(", {extra}")
        };
        dependencies.push_str(&format!("{name} = {{ version = \"{version}\"{extra} }}\n"));
    }
    let crates = [("kubegen", ours), ("kopium", theirs)].map(|(name, tool)| {
        let root = dir.join(format!("{name}-types"));
        (name, tool, root)
    });
    for (name, _, root) in &crates {
        let _ = std::fs::remove_dir_all(root.join("src"));
        std::fs::create_dir_all(root.join("src")).map_err(|e| e.to_string())?;
        std::fs::write(
            root.join("Cargo.toml"),
            format!(
                "[package]\nname = \"{name}-types\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
                 publish = false\n\n[dependencies]\n{dependencies}\n[workspace]\n"
            ),
        )
        .map_err(|e| e.to_string())?;
        std::fs::copy(workspace.join("Cargo.lock"), root.join("Cargo.lock"))
            .map_err(|e| e.to_string())?;
        std::fs::write(root.join("src/lib.rs"), "").map_err(|e| e.to_string())?;
    }
    let target = dir.join("target");
    println!("\nbuilding the dependencies of the generated crates once (not timed)...");
    for (_, _, root) in &crates {
        cargo_build(root, &target)?;
    }
    let mut figures = Vec::new();
    for (name, tool, root) in &crates {
        let src = root.join("src");
        let lib = if *name == "kubegen" {
            copy_tree(&tool.out().join("generated"), &src.join("generated"))?;
            "pub mod generated;\n".to_owned()
        } else {
            let mut lib = String::new();
            let mut modules: Vec<PathBuf> = std::fs::read_dir(tool.out())
                .map_err(|e| e.to_string())?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .collect();
            modules.sort();
            for module in modules {
                let file = module.file_name().unwrap_or_default();
                std::fs::copy(&module, src.join(file)).map_err(|e| e.to_string())?;
                let stem = module.file_stem().unwrap_or_default().to_string_lossy();
                lib.push_str(&format!("pub mod {stem};\n"));
            }
            lib
        };
        std::fs::write(src.join("lib.rs"), lib).map_err(|e| e.to_string())?;
        let build = measured(std::iter::once((cargo_command(root, &target), None)));
        figures.push(Figures {
            lines: rust_lines(&src),
            ..build
        });
    }
    Ok((figures[0], figures[1]))
}

/// `version = "x"` (or `"x"`) of `name` in the workspace manifest's dependency table.
fn workspace_version(manifest: &str, name: &str) -> Option<String> {
    let line = manifest
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{name} =")))?;
    let value = line.split_once('=')?.1.trim();
    let quoted = match value.strip_prefix('{') {
        Some(table) => table.split("version").nth(1)?.split_once('=')?.1,
        None => value,
    };
    Some(
        quoted
            .trim()
            .trim_start_matches('"')
            .split('"')
            .next()?
            .to_owned(),
    )
}

fn cargo_command(root: &Path, target: &Path) -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .arg("build")
        .arg("--quiet")
        .current_dir(root)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_INCREMENTAL", "0");
    command
}

fn cargo_build(root: &Path, target: &Path) -> Result<(), String> {
    let status = cargo_command(root, target)
        .status()
        .map_err(|e| e.to_string())?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo build` in {} failed", root.display()))
    }
}

fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| e.to_string())?;
    for entry in std::fs::read_dir(from).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let dest = to.join(path.file_name().unwrap_or_default());
        if path.is_dir() {
            copy_tree(&path, &dest)?;
        } else {
            std::fs::copy(&path, &dest).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}
