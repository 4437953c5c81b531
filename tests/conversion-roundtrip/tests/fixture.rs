//! The fixture `Gadget` (crds/gadgets.yaml): v1alpha1 converts to and from the hub v1
//! through the user's methods for the renamed (`colour` -> `color`) and split (`owner` ->
//! `ownerFirstName` + `ownerLastName`) fields, the enum with a value more and the schedule
//! v1 requires, while the fields only one version has travel in the annotation.

mod support;

use support::gadgets::Gadgets;

use kubegen_conversion_roundtrip::conversions::ANNOTATION;
use kubegen_conversion_roundtrip::conversions::conversion_kubegen_io::gadget::v1alpha1;
use kubegen_conversion_roundtrip::generated::conversion_kubegen_io::{v1, v1alpha1 as old};
use proptest::prelude::*;
use serde_json::json;

fn old_gadget(value: serde_json::Value) -> old::Gadget {
    serde_json::from_value(value).expect("a v1alpha1 Gadget")
}

fn sample() -> old::Gadget {
    old_gadget(json!({
        "apiVersion": "conversion.kubegen.io/v1alpha1",
        "kind": "Gadget",
        "metadata": {"name": "g", "annotations": {"team": "a"}},
        "spec": {
            "size": 3,
            "colour": "red",
            "owner": "Ada Lovelace",
            "ports": [{"name": "http", "port": 80}],
            "schedule": {"cron": "* * * * *", "suspend": true},
        },
        "status": {"phase": "Ready", "observedGeneration": 2},
    }))
}

#[test]
fn renamed_and_split_fields_go_through_the_users_methods() {
    let hub = v1alpha1::to_hub(sample(), &Gadgets).expect("converts");
    let value = serde_json::to_value(&hub).expect("serializes");
    assert_eq!(value["apiVersion"], "conversion.kubegen.io/v1");
    assert_eq!(value["spec"]["color"], "red");
    assert_eq!(value["spec"]["ownerFirstName"], "Ada");
    assert_eq!(value["spec"]["ownerLastName"], "Lovelace");
    assert_eq!(
        value["spec"]["ports"],
        json!([{"name": "http", "port": 80}])
    );
    assert_eq!(value["spec"]["schedule"], json!({"cron": "* * * * *"}));
    assert_eq!(value["status"]["phase"], "Ready");
    // `suspend`, which v1 lacks, waits in the annotation for the way back.
    let annotations = hub.metadata.annotations.as_ref().expect("annotations");
    assert_eq!(annotations["team"], "a");
    let data: serde_json::Value = serde_json::from_str(&annotations[ANNOTATION]).expect("JSON");
    assert_eq!(
        data,
        json!({
            "apiVersion": "conversion.kubegen.io/v1alpha1",
            "fields": {"/spec/schedule/suspend": true},
        })
    );
    let back = v1alpha1::from_hub(hub, &Gadgets).expect("converts back");
    assert_eq!(back, sample());
}

#[test]
fn a_field_only_v1_requires_gets_the_users_value_and_is_absent_again_unless_changed() {
    let mut gadget = sample();
    gadget.spec.as_mut().expect("spec").schedule = None;
    let hub = v1alpha1::to_hub(gadget.clone(), &Gadgets).expect("converts");
    let spec = hub.spec.as_ref().expect("spec");
    assert_eq!(spec.schedule, v1::GadgetSpecSchedule::default());
    let annotations = hub.metadata.annotations.as_ref().expect("annotations");
    assert_eq!(
        annotations[ANNOTATION],
        r#"{"apiVersion":"conversion.kubegen.io/v1alpha1","fields":{"/spec/schedule":null}}"#
    );
    assert_eq!(
        v1alpha1::from_hub(hub.clone(), &Gadgets).expect("converts back"),
        gadget
    );

    // Set at v1 since: the marker no longer makes it absent.
    let mut edited = hub;
    edited.spec.as_mut().expect("spec").schedule.cron = Some("@daily".to_owned());
    let back = v1alpha1::from_hub(edited, &Gadgets).expect("converts back");
    let schedule = back.spec.and_then(|s| s.schedule).expect("a schedule");
    assert_eq!(schedule.cron.as_deref(), Some("@daily"));
}

#[test]
fn hub_only_fields_are_carried_through_the_spoke() {
    let mut hub = v1alpha1::to_hub(sample(), &Gadgets).expect("converts");
    hub.metadata.annotations = None;
    let spec = hub.spec.as_mut().expect("spec");
    spec.ports.as_mut().expect("ports")[0].protocol = Some("TCP".to_owned());
    let spoke = v1alpha1::from_hub(hub.clone(), &Gadgets).expect("converts");
    let annotations = spoke.metadata.annotations.as_ref().expect("annotations");
    assert_eq!(
        annotations[ANNOTATION],
        r#"{"apiVersion":"conversion.kubegen.io/v1","fields":{"/spec/ports/0/protocol":"TCP"}}"#
    );
    v1alpha1::round_trip_hub(&hub, &Gadgets).expect("hub -> spoke -> hub is lossless");
}

#[test]
fn a_users_error_says_where_it_happened() {
    let mut hub = v1alpha1::to_hub(sample(), &Gadgets).expect("converts");
    hub.status.as_mut().expect("status").phase = Some(v1::GadgetStatusPhase::Failed);
    let error = v1alpha1::from_hub(hub, &Gadgets).expect_err("v1alpha1 has no Failed");
    assert_eq!(error.path, "/status/phase");
    assert_eq!(
        error.to_string(),
        "at /status/phase: v1alpha1 has no phase Failed"
    );
}

#[test]
fn a_malformed_annotation_is_an_error_not_a_panic() {
    let mut gadget = sample();
    gadget
        .metadata
        .annotations
        .get_or_insert_with(Default::default)
        .insert(ANNOTATION.to_owned(), "{not json".to_owned());
    let error = v1alpha1::to_hub(gadget, &Gadgets).expect_err("malformed");
    assert!(error.message.contains("is not JSON"), "{error}");
}

#[test]
fn convert_takes_whole_objects_between_any_two_versions() {
    use kubegen_conversion_roundtrip::conversions::conversion_kubegen_io::gadget;
    let object = serde_json::to_value(sample()).expect("serializes");
    let hub = gadget::convert(&Gadgets, object.clone(), "conversion.kubegen.io/v1")
        .expect("converts to v1");
    let typed = v1alpha1::to_hub(sample(), &Gadgets).expect("converts");
    assert_eq!(hub, serde_json::to_value(typed).expect("serializes"));
    assert_eq!(
        gadget::convert(&Gadgets, hub, "conversion.kubegen.io/v1alpha1"),
        Ok(object.clone())
    );
    assert_eq!(
        gadget::convert(&Gadgets, object.clone(), "conversion.kubegen.io/v1alpha1"),
        Ok(object.clone())
    );
    let error = gadget::convert(&Gadgets, object, "conversion.kubegen.io/v9").expect_err("no v9");
    assert!(
        error
            .message
            .contains("Gadget has no version \"conversion.kubegen.io/v9\""),
        "{error}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn spoke_to_hub_to_spoke_is_lossless(value in spokes()) {
        let gadget = old_gadget(value);
        prop_assert_eq!(v1alpha1::round_trip_spoke(&gadget, &Gadgets), Ok(()));
    }
}

fn spokes() -> BoxedStrategy<serde_json::Value> {
    let crd = support::crd(include_str!("../crds/gadgets.yaml"));
    support::object(
        support::schema(&crd, "v1alpha1"),
        "conversion.kubegen.io/v1alpha1",
        "Gadget",
    )
}
