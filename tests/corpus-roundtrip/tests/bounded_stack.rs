//! The generator and the round trip stay within a 2 MiB stack (a spawned thread's default)
//! on the synthetic CRD of `build/synthetic.rs`: as many inline properties as the corpus's
//! largest schema, nested deeper than its deepest (that file says why not more). `roundtrip.rs` runs the whole
//! corpus on such a thread too.

#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

use kubegen_codegen::__internal::emit;
use kubegen_codegen::__internal::frontend::{Source, crd};
use kubegen_codegen::__internal::model::Model;
use kubegen_corpus_roundtrip::synthetic::stack_example_com::v1::Deep;
use kubegen_corpus_roundtrip::{SYNTHETIC_CRD, SYNTHETIC_OBJECT, on_small_stack, round_trip};

#[test]
fn the_generator_reads_and_emits_the_synthetic_crd_on_a_2_mib_stack() {
    let files = on_small_stack(|| {
        let mut model = Model::default();
        let source = Source::new("synthetic.json", SYNTHETIC_CRD);
        crd::load(&mut model, &[source], &crd::Options::default()).unwrap();
        emit::generate(&model, &emit::Options::default()).unwrap()
    });
    let kind = files
        .iter()
        .find(|f| f.path.ends_with("v1/deep.rs"))
        .expect("the kind's file");
    // Every level is a struct of its own in the kind's file.
    assert!(
        kind.contents.matches("pub struct ").count() > 50,
        "{} structs",
        kind.contents.matches("pub struct ").count()
    );
}

#[test]
fn the_synthetic_object_round_trips_on_a_2_mib_stack() {
    let trip = on_small_stack(|| round_trip::<Deep>(SYNTHETIC_OBJECT)).unwrap();
    let expected: serde_json::Value = serde_json::from_str(SYNTHETIC_OBJECT).unwrap();
    assert_eq!(trip.from_yaml, expected, "YAML text -> Deep -> JSON");
    assert_eq!(trip.from_json, expected, "JSON value -> Deep -> JSON");
}
