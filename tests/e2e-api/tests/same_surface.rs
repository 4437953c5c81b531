//! A type written by hand and the same type generated from its CRD yield the same client
//! surface: the CRDs that `crd()` builds for this crate's derived types, read back by the
//! CRD front-end, generate byte-identical clients to the Rust front-end's reading of the
//! source files, and both match the committed `src/generated`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use kubegen_codegen::__internal::emit::clients::{ClientOptions, generate_clients};
use kubegen_codegen::__internal::frontend::{Source, crd, rust};
use kubegen_codegen::__internal::model::{Model, RootType};
use kubegen_e2e_api::apis::example::v1::{Gauge, Setting, Ticket};
use kubegen_e2e_api::apis::samplecontroller::v1alpha1::{Foo, Zone};

#[test]
fn crd_and_rust_front_ends_generate_the_same_clients() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sources = rust::read_dir(&dir.join("src/apis")).unwrap();
    let mut by_hand = Model::default();
    let rust_options = rust::Options::default().module("crate::apis");
    rust::load(&mut by_hand, &sources, &rust_options).unwrap();
    let options = ClientOptions::default();
    let from_rust = generate_clients(&by_hand, &options).unwrap();

    let crds: Vec<Source> = [
        Foo::crd(),
        Zone::crd(),
        Setting::crd(),
        Gauge::crd(),
        Ticket::crd(),
    ]
    .iter()
    .enumerate()
    .map(|(i, c)| Source::new(format!("crd-{i}.json"), serde_json::to_string(c).unwrap()))
    .collect();
    let mut model = Model::default();
    crd::load(&mut model, &crds, &crd::Options::default()).unwrap();
    // The CRD model generates its types; point its kinds at the hand-written ones instead,
    // as the Rust model says where they are, so both name the same types. Client verbs are
    // not part of a CRD (kubegen generate --crd takes them as options): take them from
    // the Rust model too.
    for group in model.groups.values_mut() {
        for version in group.versions.values_mut() {
            for kind in version.kinds.values_mut() {
                let twin = &by_hand.groups[&group.name].versions[&version.name].kinds[&kind.name];
                kind.root = twin.root.clone();
                kind.client_verbs = twin.client_verbs.clone();
                assert!(matches!(kind.root, RootType::HandWritten(_)));
            }
        }
    }
    let from_crds = generate_clients(&model, &options).unwrap();

    assert_eq!(from_rust.len(), from_crds.len());
    for (a, b) in from_rust.iter().zip(&from_crds) {
        assert_eq!(a.path, b.path);
        assert_eq!(a.contents, b.contents, "{} differs", a.path);
        let committed = std::fs::read_to_string(dir.join("src/generated").join(&a.path)).unwrap();
        assert_eq!(
            a.contents, committed,
            "src/generated/{} is stale: run hack/update-codegen.sh",
            a.path
        );
    }
}
