use serde_json::json;

use super::*;
use crate::store::registry::{ServiceReference, WebhookClient};

fn widget(api_version: &str, name: &str) -> Value {
    json!({
        "apiVersion": api_version,
        "kind": "Widget",
        "metadata": {"name": name, "namespace": "default", "uid": "u-1", "resourceVersion": "7",
                     "labels": {"a": "b"}},
        "spec": {"colour": "red"},
    })
}

fn subject() -> Subject {
    Subject {
        api_version: "example.com/v1alpha1".to_owned(),
        kind: "Widget".to_owned(),
    }
}

fn answer(uid: &str, objects: &[Value]) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "response": {"uid": uid, "result": {"status": "Success"}, "convertedObjects": objects},
    }))
    .expect("JSON")
}

fn read(bytes: &[u8], sent: &[&Value], list: bool) -> Result<Vec<Value>, String> {
    read_answer(bytes, "uid-1", "example.com/v1", sent, &subject(), list)
}

#[test]
fn only_objects_at_another_version_are_sent() {
    let objects = [
        widget("example.com/v1", "a"),
        widget("example.com/v1alpha1", "b"),
    ];
    assert_eq!(to_convert(&objects, "example.com/v1"), vec![1]);
    let review: Value =
        serde_json::from_slice(&review("uid-1", "example.com/v1", &[&objects[1]])).expect("JSON");
    assert_eq!(review["apiVersion"], "apiextensions.k8s.io/v1");
    assert_eq!(review["kind"], "ConversionReview");
    assert_eq!(review["request"]["uid"], "uid-1");
    assert_eq!(review["request"]["desiredAPIVersion"], "example.com/v1");
    assert_eq!(review["request"]["objects"], json!([objects[1]]));
}

#[test]
fn a_good_answer_keeps_the_original_metadata_but_labels_and_annotations() {
    let sent = widget("example.com/v1alpha1", "a");
    let mut converted = widget("example.com/v1", "a");
    converted["metadata"]["resourceVersion"] = json!("99");
    converted["metadata"]["labels"] = json!({"a": "c"});
    converted["metadata"]["annotations"] = json!({"note": "converted"});
    let objects = read(&answer("uid-1", &[converted]), &[&sent], false).expect("valid");
    assert_eq!(objects[0]["apiVersion"], "example.com/v1");
    assert_eq!(objects[0]["metadata"]["resourceVersion"], "7");
    assert_eq!(objects[0]["metadata"]["labels"], json!({"a": "c"}));
    assert_eq!(
        objects[0]["metadata"]["annotations"],
        json!({"note": "converted"})
    );
}

#[test]
fn answers_are_refused_as_kube_apiserver_refuses_them() {
    let sent = widget("example.com/v1alpha1", "a");
    let good = widget("example.com/v1", "a");
    let failure = |bytes: Vec<u8>, list: bool| read(&bytes, &[&sent], list).expect_err("refused");

    let other_uid = failure(answer("uid-2", std::slice::from_ref(&good)), false);
    assert_eq!(
        other_uid,
        "conversion webhook for example.com/v1alpha1, Kind=Widget failed: expected response.uid=\"uid-1\", got \"uid-2\""
    );
    let refused = serde_json::to_vec(&json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "response": {"uid": "uid-1", "result": {"status": "Failure", "message": "no colour"}},
    }))
    .expect("JSON");
    assert_eq!(
        failure(refused, false),
        "conversion webhook for example.com/v1alpha1, Kind=Widget failed: no colour"
    );
    let two = failure(answer("uid-1", &[good.clone(), good.clone()]), false);
    assert_eq!(
        two,
        "conversion webhook for example.com/v1alpha1, Kind=Widget returned 2 objects, expected 1"
    );
    let mut renamed = good.clone();
    renamed["metadata"]["name"] = json!("b");
    assert_eq!(
        failure(answer("uid-1", std::slice::from_ref(&renamed)), false),
        "conversion webhook for example.com/v1alpha1, Kind=Widget returned invalid object: must have the same name: a != b"
    );
    assert_eq!(
        failure(answer("uid-1", &[renamed]), true),
        "conversion webhook for example.com/v1alpha1, Kind=Widget returned invalid converted object at index 1: must have the same name: a != b"
    );
    let unconverted = failure(answer("uid-1", std::slice::from_ref(&sent)), false);
    assert_eq!(
        unconverted,
        "conversion webhook for example.com/v1alpha1, Kind=Widget returned invalid object: invalid groupVersion (expected example.com/v1, received example.com/v1alpha1)"
    );
    let mut bad_label = good;
    bad_label["metadata"]["labels"] = json!({"a": "not a valid value!"});
    let message = failure(answer("uid-1", &[bad_label]), false);
    assert!(
        message.starts_with(
            "conversion webhook for example.com/v1alpha1, Kind=Widget returned invalid metadata: metadata.labels: Invalid value"
        ),
        "{message}"
    );
    let not_json = failure(b"not json".to_vec(), false);
    assert!(
        not_json.starts_with("conversion webhook for example.com/v1alpha1, Kind=Widget failed: "),
        "{not_json}"
    );
}

#[test]
fn crd_conversion_settings_are_checked() {
    let crd = |conversion: Value| json!({"spec": {"conversion": conversion}});
    let webhook = |client: Value, versions: Value| {
        crd(
            json!({"strategy": "Webhook", "webhook": {"clientConfig": client, "conversionReviewVersions": versions}}),
        )
    };
    assert_eq!(
        strategy(&json!({"spec": {}}), Some("v1"), &["v1"]),
        Ok(Conversion::None)
    );
    let good = webhook(json!({"url": "https://127.0.0.1:1/convert"}), json!(["v1"]));
    match strategy(&good, Some("v1"), &["v1", "v1alpha1"]) {
        Ok(Conversion::Webhook(webhook)) => {
            assert_eq!(
                webhook.client,
                WebhookClient::Url("https://127.0.0.1:1/convert".to_owned())
            );
            assert_eq!(webhook.storage_version, "v1");
        }
        other => panic!("{other:?}"),
    }
    let fields = |crd: &Value, served: &[&str]| -> Vec<String> {
        strategy(crd, Some("v1"), served)
            .expect_err("refused")
            .into_iter()
            .map(|cause| cause.field)
            .collect()
    };
    let service = webhook(
        json!({"service": {"name": "s", "namespace": "n", "path": "/convert"}}),
        json!(["v1"]),
    );
    match strategy(&service, Some("v1"), &["v1"]) {
        Ok(Conversion::Webhook(webhook)) => assert_eq!(
            webhook.client,
            WebhookClient::Service(ServiceReference {
                namespace: "n".to_owned(),
                name: "s".to_owned(),
                path: "/convert".to_owned(),
                port: 443,
            })
        ),
        other => panic!("{other:?}"),
    }
    let nameless = webhook(json!({"service": {"namespace": "n"}}), json!(["v1"]));
    assert_eq!(
        fields(&nameless, &["v1"]),
        ["spec.conversion.webhook.clientConfig.service.name"]
    );
    let http = webhook(json!({"url": "http://127.0.0.1:1/"}), json!(["v1beta1"]));
    assert_eq!(
        fields(&http, &["v1"]),
        [
            "spec.conversion.webhook.conversionReviewVersions",
            "spec.conversion.webhook.clientConfig.url"
        ]
    );
    assert_eq!(
        fields(&crd(json!({"strategy": "Webhook"})), &["v1"]),
        ["spec.conversion.webhook"]
    );
    assert_eq!(fields(&good, &["v1alpha1"]), ["spec.versions"]);
    assert_eq!(
        fields(&crd(json!({"strategy": "Magic"})), &["v1"]),
        ["spec.conversion.strategy"]
    );
}
