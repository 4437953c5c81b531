//! Measures the smallest thread stack on which each round trip of this crate succeeds: the
//! synthetic CRDs' full objects (`build/synthetic.rs`) and every corpus example.
//!
//! ```text
//! cargo run -p kubegen-corpus-roundtrip --example decode_stack            # debug build
//! cargo run -p kubegen-corpus-roundtrip --example decode_stack -- deep    # names containing "deep"
//! ```
//!
//! Overflowing a stack aborts the process, so each probe runs in a child process (this
//! binary again, `--probe <name> <bytes>`), and a binary search over stack sizes, to
//! `STEP` bytes, finds the smallest that works. It prints one line per round trip:
//! its name and that size in KiB.

use std::process::{Command, ExitCode, Stdio};

use kubegen_corpus_roundtrip::synthetic::{serving_example_com, stack_example_com};
use kubegen_corpus_roundtrip::{EXAMPLES, RoundTrip, SERVING_OBJECT, SYNTHETIC_OBJECT, round_trip};

/// The precision of the search.
const STEP: usize = 4 << 10;
/// The largest stack tried; a round trip that needs more is reported as such.
const MAX: usize = 256 << 20;

/// A round trip by name.
struct Probe {
    name: String,
    run: Box<dyn Fn() -> Result<RoundTrip, String> + Send + Sync>,
}

fn probes() -> Vec<Probe> {
    let mut probes = vec![
        Probe {
            name: "synthetic deep".to_owned(),
            run: Box::new(|| round_trip::<stack_example_com::v1::Deep>(SYNTHETIC_OBJECT)),
        },
        Probe {
            name: "synthetic serving".to_owned(),
            run: Box::new(|| round_trip::<serving_example_com::v1::Serving>(SERVING_OBJECT)),
        },
    ];
    for example in EXAMPLES {
        let round_trip = example.round_trip;
        let text = kubegen_corpus_roundtrip::CORPUS
            .map(|dir| std::path::Path::new(dir).join(example.file))
            .and_then(|path| std::fs::read_to_string(path).ok());
        if let Some(text) = text {
            probes.push(Probe {
                name: format!("corpus {}", example.file),
                run: Box::new(move || round_trip(&text)),
            });
        }
    }
    probes
}

/// In a child: runs probe `name` on a thread of `bytes` stack; exit 0 if it round-trips.
fn probe(name: &str, bytes: usize) -> ExitCode {
    let Some(probe) = probes().into_iter().find(|p| p.name == name) else {
        eprintln!("no probe {name:?}");
        return ExitCode::from(2);
    };
    let thread = std::thread::Builder::new()
        .stack_size(bytes)
        .spawn(move || (probe.run)().is_ok());
    match thread.map(|t| t.join()) {
        Ok(Ok(true)) => ExitCode::SUCCESS,
        _ => ExitCode::from(3),
    }
}

/// Whether probe `name` succeeds on `bytes` of stack, in a child process.
fn fits(name: &str, bytes: usize) -> bool {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("no current exe: {e}"));
    Command::new(exe)
        .args(["--probe", name, &bytes.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The smallest stack (a multiple of `STEP`) on which probe `name` succeeds, if any up to `MAX`.
fn smallest(name: &str) -> Option<usize> {
    if !fits(name, MAX) {
        return None;
    }
    let (mut fails, mut works) = (0, MAX / STEP);
    while works - fails > 1 {
        let mid = (fails + works) / 2;
        if fits(name, mid * STEP) {
            works = mid;
        } else {
            fails = mid;
        }
    }
    Some(works * STEP)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, name, bytes] = args.as_slice()
        && flag == "--probe"
    {
        return match bytes.parse() {
            Ok(bytes) => probe(name, bytes),
            Err(e) => {
                eprintln!("bad size {bytes:?}: {e}");
                ExitCode::from(2)
            }
        };
    }
    let filter = args.first().map(String::as_str).unwrap_or("");
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!(
        "smallest stack per round trip ({profile} build, {} KiB steps)",
        STEP >> 10
    );
    for probe in probes().iter().filter(|p| p.name.contains(filter)) {
        match smallest(&probe.name) {
            Some(bytes) => println!("{:>8} KiB  {}", bytes >> 10, probe.name),
            None => println!(
                "{:>8}      {} (fails even on {} MiB)",
                "-",
                probe.name,
                MAX >> 20
            ),
        }
    }
    ExitCode::SUCCESS
}
