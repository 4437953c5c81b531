//! The generator and the round trip stay within a 2 MiB stack (a spawned thread's default)
//! on the synthetic CRDs of `build/synthetic.rs`: `Deep`, ten times as many inline
//! properties as the corpus's largest schema, nested twice as deep as its deepest, and
//! `Serving`, KServe's InferenceService's shape (some 600 int-or-string fields, a CRD of
//! about 2 MB). `roundtrip.rs` runs the whole corpus on such a thread too.

#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

use kubegen_codegen::__internal::emit;
use kubegen_codegen::__internal::frontend::{Source, crd};
use kubegen_codegen::__internal::model::Model;
use kubegen_corpus_roundtrip::synthetic::serving_example_com::v1::Serving;
use kubegen_corpus_roundtrip::synthetic::stack_example_com::v1::Deep;
use kubegen_corpus_roundtrip::{
    SERVING_CRD, SERVING_INT_OR_STRINGS, SERVING_OBJECT, SYNTHETIC_CRD, SYNTHETIC_DEPTH,
    SYNTHETIC_INLINE, SYNTHETIC_OBJECT, on_small_stack, round_trip,
};

/// Reads and emits `text` on a 2 MiB thread; returns the contents of the file ending in
/// `kind_file`.
fn generate_on_small_stack(
    name: &'static str,
    text: &'static str,
    kind_file: &'static str,
) -> String {
    let files = on_small_stack(move || {
        let mut model = Model::default();
        let source = Source::new(name, text);
        crd::load(&mut model, &[source], &crd::Options::default()).unwrap();
        emit::generate(&model, &emit::Options::default()).unwrap()
    });
    files
        .into_iter()
        .find(|f| f.path.ends_with(kind_file))
        .expect("the kind's file")
        .contents
}

// The corpus's largest inline schema has 596 properties, its deepest nests 9 levels;
// KServe's InferenceService has 582 int-or-string fields. Checked when this compiles.
const _: () = assert!(
    SYNTHETIC_INLINE >= 10 * 596,
    "ten times the corpus's inline properties"
);
const _: () = assert!(SYNTHETIC_DEPTH >= 2 * 9, "twice the corpus's depth");
const _: () = assert!(
    SERVING_INT_OR_STRINGS >= 582,
    "KServe's int-or-string fields"
);

#[test]
fn the_serving_crd_is_as_large_as_kserves() {
    // KServe's InferenceService CRD: 1.9 MB.
    assert!(
        SERVING_CRD.len() >= 1_900_000,
        "{} bytes",
        SERVING_CRD.len()
    );
}

#[test]
fn the_generator_reads_and_emits_the_deep_crd_on_a_2_mib_stack() {
    let kind = generate_on_small_stack("deep.json", SYNTHETIC_CRD, "v1/deep.rs");
    // Every level and inline object is a struct of its own in the kind's file.
    let structs = kind.matches("pub struct ").count();
    assert!(structs > SYNTHETIC_DEPTH * 20, "{structs} structs");
}

#[test]
fn the_generator_reads_and_emits_the_serving_crd_on_a_2_mib_stack() {
    let kind = generate_on_small_stack("serving.json", SERVING_CRD, "v1/serving.rs");
    let fields = kind.matches("IntOrString>").count();
    assert!(
        fields >= SERVING_INT_OR_STRINGS,
        "{fields} int-or-string fields"
    );
}

#[test]
fn the_deep_object_round_trips_on_a_2_mib_stack() {
    let trip = on_small_stack(|| round_trip::<Deep>(SYNTHETIC_OBJECT)).unwrap();
    let expected: serde_json::Value = serde_json::from_str(SYNTHETIC_OBJECT).unwrap();
    assert_eq!(trip.from_yaml, expected, "YAML text -> Deep -> JSON");
    assert_eq!(trip.from_json, expected, "JSON value -> Deep -> JSON");
}

#[test]
fn the_serving_object_round_trips_on_a_2_mib_stack() {
    let trip = on_small_stack(|| round_trip::<Serving>(SERVING_OBJECT)).unwrap();
    let expected: serde_json::Value = serde_json::from_str(SERVING_OBJECT).unwrap();
    assert_eq!(trip.from_yaml, expected, "YAML text -> Serving -> JSON");
    assert_eq!(trip.from_json, expected, "JSON value -> Serving -> JSON");
}
