//! Every corpus example deserializes into its generated type and serializes back to the
//! same JSON value, explicit nulls included.
//!
//! The one normalisation: explicit `null`s inside `metadata` are dropped before comparing.
//! `metadata` is k8s-openapi's `ObjectMeta` (required for `kube::Resource`), which, like the
//! API server, treats `null` as unset (`creationTimestamp: null` is what Go clients write
//! for a zero time). Everything else is compared exactly.
//!
//! It runs on a thread with a 2 MiB stack, whatever `RUST_MIN_STACK` says: the harness
//! must not need more than a spawned thread's default.

use kubegen_corpus_roundtrip::{CORPUS, CRDS, EXAMPLES, on_small_stack};

fn drop_nulls(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(drop_nulls);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}

fn normalise_metadata(value: &mut serde_json::Value) {
    if let Some(meta) = value.get_mut("metadata") {
        drop_nulls(meta);
    }
}

#[test]
fn every_example_round_trips() {
    on_small_stack(round_trip_every_example);
}

fn round_trip_every_example() {
    let Some(corpus) = CORPUS else {
        println!(
            "SKIPPED: no CRD corpus at build time (set KUBEGEN_CORPUS or add ../shared/corpus)"
        );
        return;
    };
    println!(
        "corpus: {corpus}; {} CRDs compiled into this crate",
        CRDS.len()
    );
    let mut failures = Vec::new();
    for example in EXAMPLES {
        let path = std::path::Path::new(corpus).join(example.file);
        let text = std::fs::read_to_string(&path).expect("read example");
        let mut expected: serde_json::Value =
            serde_saphyr::from_str(&text).expect("example is YAML");
        normalise_metadata(&mut expected);
        match (example.round_trip)(&text) {
            Ok(mut got) => {
                normalise_metadata(&mut got.from_yaml);
                normalise_metadata(&mut got.from_json);
                let ok = got.from_yaml == expected && got.from_json == expected;
                println!(
                    "{:<8} {} ({})",
                    if ok { "ok" } else { "CHANGED" },
                    example.file,
                    example.kind
                );
                if !ok {
                    failures.push(format!(
                        "{}: round trip changed the object\nexpected: {expected}\nfrom yaml: {}\nfrom json: {}",
                        example.file, got.from_yaml, got.from_json
                    ));
                }
            }
            Err(e) => {
                println!("FAILED   {} ({}): {e}", example.file, example.kind);
                failures.push(format!("{}: {e}", example.file));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} examples failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
