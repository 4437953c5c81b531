use super::*;

#[test]
fn resources_match_as_kube_apiserver_matches_them() {
    let r = |entries: &[&str]| json!(entries);
    assert!(resource_listed(Some(&r(&["pods"])), "pods", None));
    assert!(!resource_listed(
        Some(&r(&["pods"])),
        "pods",
        Some("status")
    ));
    assert!(resource_listed(
        Some(&r(&["pods/status"])),
        "pods",
        Some("status")
    ));
    assert!(!resource_listed(Some(&r(&["pods/status"])), "pods", None));
    assert!(resource_listed(Some(&r(&["*"])), "pods", None));
    assert!(!resource_listed(Some(&r(&["*"])), "pods", Some("status")));
    assert!(resource_listed(Some(&r(&["*/*"])), "pods", Some("status")));
    assert!(resource_listed(Some(&r(&["*/*"])), "pods", None));
    assert!(resource_listed(
        Some(&r(&["*/status"])),
        "deployments",
        Some("status")
    ));
    assert!(resource_listed(
        Some(&r(&["pods/*"])),
        "pods",
        Some("status")
    ));
}

#[test]
fn denials_carry_the_webhooks_reason_and_code() {
    let error = denial("deny.example.com", Some(&json!({"message": "no way"})));
    assert_eq!(error.code, 403);
    assert_eq!(
        error.message,
        "admission webhook \"deny.example.com\" denied the request: no way"
    );
    let error = denial("d", Some(&json!({"code": 422, "reason": "bad"})));
    assert_eq!((error.code, error.reason), (422, "Invalid"));
    assert_eq!(
        denial("d", None).message,
        "admission webhook \"d\" denied the request without explanation"
    );
}

#[test]
fn configurations_name_a_url_or_a_service() {
    let rt = crate::store::registry::Registry::with_built_ins()
        .get(GROUP, "v1", "validatingwebhookconfigurations")
        .expect("served");
    let service = json!({"webhooks": [{"name": "a", "clientConfig": {"service": {"name": "s", "namespace": "n"}}}]});
    assert!(check_configuration(&rt, &service).is_empty());
    let neither = json!({"webhooks": [{"name": "a", "clientConfig": {}, "matchPolicy": "Loose"}]});
    let fields: Vec<_> = check_configuration(&rt, &neither)
        .into_iter()
        .map(|cause| cause.field)
        .collect();
    assert_eq!(
        fields,
        ["webhooks[0].clientConfig", "webhooks[0].matchPolicy"]
    );
}

fn attributes<'a>(rt: &'a ResourceType, subresource: Option<&'a str>) -> Attributes<'a> {
    Attributes {
        rt,
        subresource,
        operation: Operation::Update,
        name: "w",
        namespace: "default",
        object: None,
        old_object: None,
        dry_run: false,
    }
}

fn hook(versions: &[&str], resources: &[&str], policy: &str) -> Webhook {
    read_webhook(&json!({
        "name": "h",
        "clientConfig": {"url": "https://127.0.0.1:1/"},
        "matchPolicy": policy,
        "rules": [{"operations": ["*"], "apiGroups": ["apps"], "apiVersions": versions, "resources": resources}],
    }))
    .expect("a webhook")
}

#[test]
fn equivalent_versions_match_unless_the_policy_is_exact() {
    let registry = crate::store::registry::Registry::with_built_ins();
    let v1 = registry.get("apps", "v1", "deployments").expect("served");
    let mut beta = (*v1).clone();
    beta.version = "v1beta2".to_owned();
    let equivalents = [Arc::clone(&v1), Arc::new(beta.clone())];
    let request = attributes(&beta, None);
    let on_v1 = hook(&["v1"], &["deployments"], "Equivalent");
    let matched = on_v1
        .matched(&request, None, &equivalents)
        .expect("matched");
    assert_eq!(matched.version, "v1");
    let exact = hook(&["v1"], &["deployments"], "Exact");
    assert!(exact.matched(&request, None, &equivalents).is_none());
    let own = hook(&["*"], &["deployments"], "Exact");
    let matched = own.matched(&request, None, &equivalents).expect("matched");
    assert_eq!(matched.version, "v1beta2");
}

#[test]
fn scale_requests_are_reviewed_as_scales_of_their_resource() {
    let registry = crate::store::registry::Registry::with_built_ins();
    let deployments = registry.get("apps", "v1", "deployments").expect("served");
    let request = attributes(&deployments, Some("scale"));
    assert!(
        hook(&["v1"], &["deployments"], "Equivalent")
            .matched(&request, None, &[])
            .is_none()
    );
    let on_scale = hook(&["v1"], &["deployments/scale"], "Equivalent");
    let matched = on_scale.matched(&request, None, &[]).expect("matched");
    let review = review(&request, "u", matched);
    assert_eq!(
        review["request"]["kind"],
        json!({"group": "autoscaling", "version": "v1", "kind": "Scale"})
    );
    assert_eq!(
        review["request"]["resource"],
        json!({"group": "apps", "version": "v1", "resource": "deployments"})
    );
    assert_eq!(review["request"]["subResource"], "scale");
}
