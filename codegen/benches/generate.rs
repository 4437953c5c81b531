//! Generation time for the whole CRD corpus, beside the floor: merely parsing the same YAML
//! into `serde_json::Value` with serde-saphyr. The same for the OpenAPI corpus (the ten v3
//! per-group documents in one run, and swagger.json with every group), beside parsing the
//! JSON with serde_json.
//!
//! Run: `cargo bench -p kubegen-codegen --bench generate` (corpus from `$KUBEGEN_CORPUS` or
//! `../shared/corpus`; skipped with a message when absent).

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kubegen_codegen::__internal::emit::{self, Options};
use kubegen_codegen::__internal::frontend::{Source, crd, openapi};
use kubegen_codegen::__internal::model::Model;
use kubegen_codegen::__internal::pipeline::{generate_from_crds, generate_from_openapi};

fn corpus() -> Option<Vec<Source>> {
    let root = std::env::var_os("KUBEGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    let dir = root.join("crds");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .ok()?;
    paths.retain(|p| {
        let name = p.to_string_lossy();
        name.ends_with(".yaml") && !name.ends_with(".example.yaml")
    });
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            Some(Source::new(p.file_name()?.to_string_lossy(), text))
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let Some(sources) = corpus() else {
        println!("SKIPPED: no CRD corpus (set KUBEGEN_CORPUS or add ../shared/corpus)");
        return;
    };
    let bytes: usize = sources.iter().map(|s| s.text.len()).sum();
    let files = generate_from_crds(&sources, &Options::default()).expect("corpus generates");
    let out_bytes: usize = files.iter().map(|f| f.contents.len()).sum();
    let out_lines: usize = files.iter().map(|f| f.contents.lines().count()).sum();
    println!(
        "corpus: {} CRD files, {bytes} bytes of YAML -> {} Rust files, {out_lines} lines, {out_bytes} bytes",
        sources.len(),
        files.len()
    );

    let mut group = c.benchmark_group("corpus");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("floor: parse YAML into serde_json::Value", |b| {
        b.iter(|| {
            for source in &sources {
                let docs: Vec<serde_json::Value> =
                    serde_saphyr::from_multiple(black_box(&source.text)).expect("YAML parses");
                black_box(docs);
            }
        })
    });
    group.bench_function("front-end: parse + build model", |b| {
        b.iter(|| {
            let mut model = Model::default();
            crd::load(&mut model, black_box(&sources), &crd::Options::default())
                .expect("corpus loads");
            black_box(model)
        })
    });
    let mut model = Model::default();
    crd::load(&mut model, &sources, &crd::Options::default()).expect("corpus loads");
    group.bench_function("emit + format only", |b| {
        b.iter(|| black_box(emit::generate(black_box(&model), &Options::default())))
    });
    group.bench_function("generate: parse + model + emit + format", |b| {
        b.iter(|| black_box(generate_from_crds(black_box(&sources), &Options::default())))
    });
    group.finish();
}

fn openapi_corpus() -> Option<Vec<Source>> {
    let root = std::env::var_os("KUBEGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join("openapi"))
        .ok()?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .ok()?;
    paths.retain(|p| p.extension().is_some_and(|e| e == "json"));
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            Some(Source::new(p.file_name()?.to_string_lossy(), text))
        })
        .collect()
}

fn bench_openapi(c: &mut Criterion) {
    let Some(all) = openapi_corpus() else {
        println!("SKIPPED: no OpenAPI corpus (set KUBEGEN_CORPUS or add ../shared/corpus)");
        return;
    };
    let (v2, v3): (Vec<Source>, Vec<Source>) =
        all.into_iter().partition(|s| s.name == "swagger.json");
    let selection = openapi::Options::default();
    let mut group = c.benchmark_group("openapi");
    group.sample_size(10);
    for (name, sources) in [("v3 documents", &v3), ("swagger.json", &v2)] {
        if sources.is_empty() {
            continue;
        }
        let bytes: usize = sources.iter().map(|s| s.text.len()).sum();
        let files = generate_from_openapi(sources, &selection, &Options::default())
            .expect("OpenAPI corpus generates");
        let lines: usize = files.iter().map(|f| f.contents.lines().count()).sum();
        println!(
            "openapi {name}: {} documents, {bytes} bytes of JSON -> {} Rust files, {lines} lines",
            sources.len(),
            files.len()
        );
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_function(
            format!("{name}: floor: parse JSON into serde_json::Value"),
            |b| {
                b.iter(|| {
                    for source in sources {
                        let value: serde_json::Value =
                            serde_json::from_str(black_box(&source.text)).expect("JSON parses");
                        black_box(value);
                    }
                })
            },
        );
        group.bench_function(format!("{name}: front-end: parse + build model"), |b| {
            b.iter(|| {
                let mut model = Model::default();
                openapi::load(&mut model, black_box(sources), &selection).expect("loads");
                black_box(model)
            })
        });
        group.bench_function(
            format!("{name}: generate: parse + model + emit + format"),
            |b| {
                b.iter(|| {
                    black_box(generate_from_openapi(
                        black_box(sources),
                        &selection,
                        &Options::default(),
                    ))
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench, bench_openapi);
criterion_main!(benches);
