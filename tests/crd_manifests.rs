//! `kubegen crd` writes, for every kind in this repository, the CustomResourceDefinition
//! that the kind's `crd()` builds at run time.
//!
//! The manifests are built in process from each API directory exactly as `kubegen crd`
//! builds them (the Rust front-end with schemas, then the CRD emitter), and compared as
//! `CustomResourceDefinition`s with what `crd()` returns; `hack/verify-codegen.sh` checks
//! that the committed files under each tree's `config/crd` are those manifests.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a panic is the failure report.

use std::collections::BTreeMap;
use std::path::Path;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen_codegen::__internal::{emit, frontend::rust, model::Model};

/// The manifests `kubegen crd --rust <dir>` writes, by CRD name.
fn manifests(dir: &str) -> BTreeMap<String, CustomResourceDefinition> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let sources = rust::read_dir(&dir).unwrap();
    let mut model = Model::default();
    let options = rust::Options::default().schemas(true);
    rust::load(&mut model, &sources, &options).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    emit::crd::manifests(&model, &emit::crd::ManifestOptions::default())
        .unwrap()
        .into_iter()
        .map(|file| {
            let crd: CustomResourceDefinition = serde_saphyr::from_str(&file.contents).unwrap();
            (crd.metadata.name.clone().unwrap(), crd)
        })
        .collect()
}

/// Every kind of `dir` has a manifest equal to its `crd()`, and there is no other manifest.
fn assert_same(dir: &str, runtime: Vec<CustomResourceDefinition>) {
    let mut generated = manifests(dir);
    for crd in runtime {
        let name = crd.metadata.name.clone().unwrap();
        let manifest = generated
            .remove(&name)
            .unwrap_or_else(|| panic!("{dir}: no manifest for {name}"));
        let (want, got) = (
            serde_saphyr::to_string(&crd).unwrap(),
            serde_saphyr::to_string(&manifest).unwrap(),
        );
        assert!(
            crd == manifest,
            "{dir}: the manifest of {name} differs from crd()\n--- crd()\n{want}\n--- kubegen crd\n{got}"
        );
    }
    let extra: Vec<&String> = generated.keys().collect();
    assert!(
        extra.is_empty(),
        "{dir}: manifests without a kind checked here: {extra:?}"
    );
}

#[test]
fn e2e_api_manifests_equal_crd() {
    use kubegen_e2e_api::apis::example::v1::{Gauge, Setting, Ticket};
    use kubegen_e2e_api::apis::samplecontroller::v1alpha1::{Foo, Zone};
    assert_same(
        "tests/e2e-api/src/apis",
        vec![
            Foo::crd(),
            Zone::crd(),
            Setting::crd(),
            Gauge::crd(),
            Ticket::crd(),
        ],
    );
}

#[test]
fn sample_controller_manifests_equal_crd() {
    use sample_controller::apis::samplecontroller::v1alpha1::Foo;
    assert_same("examples/sample-controller/src/apis", vec![Foo::crd()]);
}

/// `kubegen-codegen`'s golden fixture, compiled here so that its goldens are known to be
/// what `crd()` builds.
#[allow(dead_code, missing_docs, unreachable_pub)]
#[path = "../codegen/tests/fixtures/rust/widgets/v1.rs"]
mod widgets;

/// The kind of issue 23 (numbers, k8s-openapi types, default functions), also a golden
/// fixture of `kubegen-codegen`.
#[allow(dead_code, missing_docs, unreachable_pub)]
#[path = "../codegen/tests/fixtures/rust/backups/v1.rs"]
mod backups;

/// A kind embedding the large k8s-openapi types (a pod template, volumes, affinity).
#[allow(dead_code, missing_docs, unreachable_pub)]
#[path = "crd_manifests/templates/v1.rs"]
mod templates;

#[test]
fn codegen_fixture_manifests_equal_crd() {
    use widgets::{GadgetType, Widget};
    assert_same(
        "codegen/tests/fixtures/rust/widgets",
        vec![Widget::crd(), GadgetType::crd()],
    );
    assert_same(
        "codegen/tests/fixtures/rust/backups",
        vec![backups::Backup::crd()],
    );
}

#[test]
fn well_known_types_manifests_equal_crd() {
    assert_same(
        "tests/crd_manifests/templates",
        vec![templates::Runner::crd()],
    );
}

/// `kubegen generate --style derive`'s sources of codegen's CRD fixtures (its goldens):
/// they compile, and `crd()` builds the schema `kubegen crd` reads from them.
#[rustfmt::skip] // Goldens: exactly what kubegen writes.
#[allow(dead_code, missing_docs, unreachable_pub, clippy::all)]
#[path = "../codegen/tests/golden_annotated/validations/validations_example_com/v1/pool.rs"]
mod annotated_pool;
#[rustfmt::skip] // Goldens: exactly what kubegen writes.
#[allow(dead_code, missing_docs, unreachable_pub, clippy::all)]
#[path = "../codegen/tests/golden_annotated/unions/unions_example_com/v1/route.rs"]
mod annotated_route;
#[rustfmt::skip] // Goldens: exactly what kubegen writes.
#[allow(dead_code, missing_docs, unreachable_pub, clippy::all)]
#[path = "../codegen/tests/golden_annotated/shapes/shapes_example_com/v1/shape.rs"]
mod annotated_shape;
#[rustfmt::skip] // Goldens: exactly what kubegen writes.
#[allow(dead_code, missing_docs, unreachable_pub, clippy::all)]
#[path = "../codegen/tests/golden_annotated/nullable/nullable_example_com/v1/thing.rs"]
mod annotated_thing;
#[rustfmt::skip] // Goldens: exactly what kubegen writes.
#[allow(dead_code, missing_docs, unreachable_pub, clippy::all)]
#[path = "../codegen/tests/golden_annotated/wellknown/wellknown_example_com/v1/watcher.rs"]
mod annotated_watcher;

#[test]
fn annotated_sources_manifests_equal_crd() {
    assert_same(
        "codegen/tests/golden_annotated/validations",
        vec![annotated_pool::Pool::crd()],
    );
    assert_same(
        "codegen/tests/golden_annotated/shapes",
        vec![annotated_shape::Shape::crd()],
    );
    assert_same(
        "codegen/tests/golden_annotated/wellknown",
        vec![annotated_watcher::Watcher::crd()],
    );
    assert_same(
        "codegen/tests/golden_annotated/nullable",
        vec![annotated_thing::Thing::crd()],
    );
    assert_same(
        "codegen/tests/golden_annotated/unions",
        vec![annotated_route::Route::crd()],
    );
}

#[test]
fn icecream_manifests_equal_crd() {
    use icecream::apis::icecream::{v1, v1alpha1};
    // Both versions in one CRD; `kubegen crd` adds the conversion webhook on top (its
    // flags in hack/codegen-targets.sh), which this comparison leaves out.
    let crd = kubegen::crd::merge(
        [v1::Icecream::crd(), v1alpha1::Icecream::crd()],
        v1::VERSION,
    )
    .unwrap();
    assert_same("examples/icecream/src/apis", vec![crd]);
}
