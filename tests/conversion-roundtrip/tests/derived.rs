//! The hand-written `Gizmo` (`src/apis/`, two `#[derive(Resource)]` structs): its generated
//! conversions name the structs by their paths, call the user's methods for the renamed,
//! split and retyped fields, carry the fields one version lacks in the annotation, move the
//! type both versions share, and `convert` takes whole objects as JSON between any two
//! versions, as a conversion webhook does.

mod support;

use kubegen_conversion_roundtrip::apis::{v1, v1alpha1 as old};
use kubegen_conversion_roundtrip::derived_conversions::derived_kubegen_io::gizmo::{
    self, VERSIONS,
    v1alpha1::{self as pair, ConvertGizmoV1alpha1},
};
use kubegen_conversion_roundtrip::derived_conversions::{ANNOTATION, Error};
use proptest::prelude::*;
use serde_json::{Value, json};

/// What the generator cannot know about Gizmos.
struct Gizmos;

impl ConvertGizmoV1alpha1 for Gizmos {
    fn gizmo_spec_colour_from_hub(&self, from: &v1::GizmoSpec) -> Result<Option<String>, Error> {
        Ok(from.color.clone())
    }

    fn gizmo_spec_owner_from_hub(&self, from: &v1::GizmoSpec) -> Result<String, Error> {
        Ok(match &from.owner_last_name {
            Some(last) => format!("{} {last}", from.owner_first_name),
            None => from.owner_first_name.clone(),
        })
    }

    fn gizmo_spec_color_to_hub(&self, from: &old::GizmoSpec) -> Result<Option<String>, Error> {
        Ok(from.colour.clone())
    }

    fn gizmo_spec_owner_first_name_to_hub(&self, from: &old::GizmoSpec) -> Result<String, Error> {
        Ok(split(&from.owner).0.to_owned())
    }

    fn gizmo_spec_owner_last_name_to_hub(
        &self,
        from: &old::GizmoSpec,
    ) -> Result<Option<String>, Error> {
        Ok(split(&from.owner).1.map(str::to_owned))
    }

    fn gizmo_phase_to_hub(&self, value: old::GizmoPhase) -> Result<v1::GizmoPhase, Error> {
        Ok(match value {
            old::GizmoPhase::Pending => v1::GizmoPhase::Pending,
            old::GizmoPhase::Ready => v1::GizmoPhase::Ready,
        })
    }

    fn gizmo_phase_from_hub(&self, value: v1::GizmoPhase) -> Result<old::GizmoPhase, Error> {
        match value {
            v1::GizmoPhase::Pending => Ok(old::GizmoPhase::Pending),
            v1::GizmoPhase::Ready => Ok(old::GizmoPhase::Ready),
            v1::GizmoPhase::Failed => Err(Error::new("v1alpha1 has no phase Failed")),
        }
    }
}

/// "First Last" -> ("First", Some("Last")); the first space splits.
fn split(owner: &str) -> (&str, Option<&str>) {
    match owner.split_once(' ') {
        Some((first, last)) => (first, Some(last)),
        None => (owner, None),
    }
}

const OLD: &str = "derived.kubegen.io/v1alpha1";
const HUB: &str = "derived.kubegen.io/v1";

fn sample() -> Value {
    json!({
        "apiVersion": OLD,
        "kind": "Gizmo",
        "metadata": {"name": "g", "namespace": "default", "labels": {"app": "g"}},
        "spec": {
            "size": 3,
            "colour": "red",
            "owner": "Ada Lovelace",
            "labels": {"team": "a"},
            "ports": [{"name": "http", "port": 80}],
            "schedule": {"cron": "@daily", "suspend": true},
            "tier": {"name": "gold", "weight": 2},
        },
        "status": {"phase": "Ready", "observedGeneration": 4},
    })
}

fn convert(object: Value, desired: &str) -> Result<Value, Error> {
    gizmo::convert(&Gizmos, object, desired)
}

#[test]
fn convert_goes_through_the_hub_and_back() {
    let hub = convert(sample(), HUB).expect("converts to v1");
    assert_eq!(hub["apiVersion"], HUB);
    assert_eq!(hub["kind"], "Gizmo");
    assert_eq!(
        hub["metadata"]["labels"],
        json!({"app": "g"}),
        "metadata is kept"
    );
    assert_eq!(
        hub["spec"],
        json!({
            "size": 3,
            "color": "red",
            "ownerFirstName": "Ada",
            "ownerLastName": "Lovelace",
            "labels": {"team": "a"},
            "ports": [{"name": "http", "port": 80}],
            "schedule": {"cron": "@daily"},
            "tier": {"name": "gold", "weight": 2},
        })
    );
    let data: Value = serde_json::from_str(
        hub["metadata"]["annotations"][ANNOTATION]
            .as_str()
            .expect("the annotation"),
    )
    .expect("JSON");
    assert_eq!(
        data,
        json!({"apiVersion": OLD, "fields": {"/spec/schedule/suspend": true}})
    );
    assert_eq!(convert(hub, OLD).expect("converts back"), sample());
}

#[test]
fn hub_only_fields_wait_in_the_annotation() {
    let mut hub = convert(sample(), HUB).expect("converts to v1");
    hub["metadata"]
        .as_object_mut()
        .expect("metadata")
        .remove("annotations");
    hub["spec"]["ports"][0]["protocol"] = json!("TCP");
    let spoke = convert(hub.clone(), OLD).expect("converts to v1alpha1");
    assert!(spoke["spec"]["ports"][0].get("protocol").is_none());
    assert_eq!(convert(spoke, HUB).expect("converts back"), hub);
}

#[test]
fn an_object_at_the_desired_version_comes_back_unchanged() {
    // Even with what the types do not model: nothing is read.
    let mut object = sample();
    object["spec"]["unknown"] = json!([1, 2]);
    assert_eq!(convert(object.clone(), OLD), Ok(object));
}

#[test]
fn unknown_versions_are_errors_naming_them() {
    assert_eq!(VERSIONS, [HUB, OLD]);
    let error = convert(sample(), "derived.kubegen.io/v2").expect_err("no v2");
    assert_eq!(
        error.to_string(),
        "Gizmo has no version \"derived.kubegen.io/v2\" (it has derived.kubegen.io/v1, \
         derived.kubegen.io/v1alpha1)"
    );
    let mut object = sample();
    object["apiVersion"] = json!("derived.kubegen.io/v0");
    let error = convert(object, HUB).expect_err("no v0");
    assert!(
        error
            .message
            .contains("no version \"derived.kubegen.io/v0\""),
        "{error}"
    );
    let error = convert(json!({"kind": "Gizmo"}), HUB).expect_err("no apiVersion");
    assert_eq!(error.message, "the object has no apiVersion");
}

#[test]
fn a_users_error_and_a_malformed_object_are_errors() {
    let mut hub = convert(sample(), HUB).expect("converts to v1");
    hub["status"]["phase"] = json!("Failed");
    let error = convert(hub, OLD).expect_err("v1alpha1 has no Failed");
    assert_eq!(
        error.to_string(),
        "at /status/phase: v1alpha1 has no phase Failed"
    );
    let mut object = sample();
    object["spec"]["size"] = json!("three");
    let error = convert(object, HUB).expect_err("size is a number");
    assert!(
        error.message.starts_with("failed to read the object"),
        "{error}"
    );
}

/// A v1alpha1 Gizmo as its types write it (what a webhook would have stored).
fn normalized(object: Value) -> Value {
    let typed: old::Gizmo = serde_json::from_value(object).expect("a v1alpha1 Gizmo");
    serde_json::to_value(&typed).expect("serializes")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn spoke_to_hub_to_spoke_through_convert_is_lossless(value in spokes()) {
        let value = normalized(value);
        let hub = convert(value.clone(), HUB).expect("converts to v1");
        prop_assert_eq!(convert(hub, OLD), Ok(value.clone()));
        let typed: old::Gizmo = serde_json::from_value(value).expect("a v1alpha1 Gizmo");
        prop_assert_eq!(pair::round_trip_spoke(&typed, &Gizmos), Ok(()));
    }
}

fn spokes() -> BoxedStrategy<Value> {
    let crd = serde_json::to_value(old::Gizmo::crd()).expect("the CRD serializes");
    support::object(support::schema(&crd, "v1alpha1"), OLD, "Gizmo")
}
