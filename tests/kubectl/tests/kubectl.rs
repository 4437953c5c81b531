//! Real kubectl against the testkit API server: typed creates (protobuf bodies), client-side
//! apply and `patch` (strategic merge), `edit`, `explain`, `get` tables and the refusals a
//! real server gives, then the everyday commands (`create -f`, `get -o`, selectors,
//! `label`, `annotate`, `scale`, `delete`, `get -w`, `wait`, custom resources), and a
//! validating webhook's denial as `kubectl apply` reports it. Each check asserts kubectl's exit
//! status and the server state (read through a kube client) or kubectl's output columns.
//! Without kubectl on PATH every test prints `skipped: kubectl not found` and passes.

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind};
use kubegen_kubectl_tests::{Kubectl, table};
use kubegen_testkit::ApiServerConfig;

const WAIT: Duration = Duration::from_secs(60);

const CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foos.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Foo, listKind: FooList, plural: foos, singular: foo}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Deployment, type: string, jsonPath: .spec.deploymentName}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              deploymentName: {type: string}
              replicas: {type: integer, minimum: 0}
          status:
            type: object
            properties:
              availableReplicas: {type: integer}
"#;

const FOO: &str = r#"
apiVersion: example.com/v1
kind: Foo
metadata:
  name: example-foo
spec:
  deploymentName: example-foo
  replicas: 1
"#;

fn config_maps(kubectl: &Kubectl) -> Api<ConfigMap> {
    Api::default_namespaced(kubectl.server().client())
}

fn foos(kubectl: &Kubectl) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("example.com", "v1", "Foo");
    let resource = ApiResource::from_gvk_with_plural(&gvk, "foos");
    Api::default_namespaced_with(kubectl.server().client(), &resource)
}

async fn data(kubectl: &Kubectl, name: &str) -> std::collections::BTreeMap<String, String> {
    let cm = config_maps(kubectl).get(name).await.expect("get configmap");
    cm.data.unwrap_or_default()
}

/// Registers the Foo CRD and creates `example-foo`.
async fn with_foo(kubectl: &Kubectl) {
    let crd = kubectl.file("crd.yaml", CRD);
    kubectl.ok(&["create", "-f", &crd]).await;
    let object = kubectl.file("foo.yaml", FOO);
    kubectl.ok(&["create", "-f", &object]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_create_commands_send_protobuf_and_are_stored() {
    let Some(kubectl) = Kubectl::start().await else {
        return;
    };
    kubectl.ok(&["create", "namespace", "demo"]).await;
    let namespaces: Api<Namespace> = Api::all(kubectl.server().client());
    namespaces.get("demo").await.expect("namespace demo");

    let output = kubectl
        .run(&["create", "configmap", "c1", "--from-literal=a=b", "-v=8"])
        .await;
    assert!(output.success(), "{}", output.stderr);
    assert!(
        output
            .stderr
            .contains("Content-Type: application/vnd.kubernetes.protobuf"),
        "kubectl sent protobuf: {}",
        output.stderr
    );
    assert_eq!(data(&kubectl, "c1").await["a"], "b");

    kubectl
        .ok(&["create", "deployment", "d1", "--image=nginx", "-n", "demo"])
        .await;
    let deployments: Api<Deployment> = Api::namespaced(kubectl.server().client(), "demo");
    let d1 = deployments.get("d1").await.expect("deployment d1");
    let spec = d1.spec;
    assert_eq!(spec.replicas, Some(1));
    let containers = spec.template.spec.expect("pod spec").containers;
    assert_eq!(containers[0].image.as_deref(), Some("nginx"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apply_twice_patches_with_strategic_merge() {
    let Some(kubectl) = Kubectl::start().await else {
        return;
    };
    let first =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: '1'\n  b: '2'\n";
    let path = kubectl.file("cm.yaml", first);
    // Default client-side validation reads /openapi/v3.
    assert!(
        kubectl
            .ok(&["apply", "-f", &path])
            .await
            .contains("created")
    );
    let second = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: '3'\n";
    let path = kubectl.file("cm.yaml", second);
    let output = kubectl.run(&["apply", "-f", &path, "-v=8"]).await;
    assert!(output.success(), "{}", output.stderr);
    assert!(output.stdout.contains("configured"), "{}", output.stdout);
    assert!(
        output
            .stderr
            .contains("Content-Type: application/strategic-merge-patch+json"),
        "{}",
        output.stderr
    );
    let applied = data(&kubectl, "applied").await;
    assert_eq!(
        applied.into_iter().collect::<Vec<_>>(),
        [("a".to_owned(), "3".to_owned())],
        "b, dropped from the file, is removed"
    );

    // Server-side apply of another value conflicts with the client-side apply's
    // field manager until forced, which takes the field over.
    let changed = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: '4'\n";
    let path = kubectl.file("cm.yaml", changed);
    let refused = kubectl
        .fails(&["apply", "--server-side", "-f", &path])
        .await;
    assert!(
        refused.contains(r#"conflict with "kubectl-client-side-apply" using v1"#)
            && refused.contains(".data.a"),
        "{refused}"
    );
    kubectl
        .ok(&["apply", "--server-side", "-f", &path, "--force-conflicts"])
        .await;
    assert_eq!(data(&kubectl, "applied").await["a"], "4");
    let ssa = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  k: v\n";
    let path = kubectl.file("ssa.yaml", ssa);
    kubectl.ok(&["apply", "--server-side", "-f", &path]).await;
    assert_eq!(data(&kubectl, "ssa").await["k"], "v");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn patch_label_annotate_and_scale() {
    let Some(kubectl) = Kubectl::start().await else {
        return;
    };
    kubectl
        .ok(&["create", "configmap", "c1", "--from-literal=a=b"])
        .await;
    // Strategic merge is kubectl's default patch type.
    kubectl
        .ok(&["patch", "cm", "c1", "-p", r#"{"data":{"a":"c"}}"#])
        .await;
    assert_eq!(data(&kubectl, "c1").await["a"], "c");
    kubectl
        .ok(&[
            "patch",
            "cm",
            "c1",
            "--type",
            "merge",
            "-p",
            r#"{"data":{"m":"1"}}"#,
        ])
        .await;
    let json_patch = r#"[{"op":"add","path":"/data/j","value":"2"}]"#;
    kubectl
        .ok(&["patch", "cm", "c1", "--type", "json", "-p", json_patch])
        .await;
    let patched = data(&kubectl, "c1").await;
    assert_eq!(
        (
            patched["a"].as_str(),
            patched["m"].as_str(),
            patched["j"].as_str()
        ),
        ("c", "1", "2")
    );

    kubectl.ok(&["label", "cm", "c1", "app=web"]).await;
    kubectl.ok(&["annotate", "cm", "c1", "note=hi"]).await;
    let meta = config_maps(&kubectl).get("c1").await.expect("c1").metadata;
    assert_eq!(meta.labels.expect("labels")["app"], "web");
    assert_eq!(meta.annotations.expect("annotations")["note"], "hi");

    kubectl
        .ok(&["create", "deployment", "d1", "--image=nginx"])
        .await;
    kubectl
        .ok(&["scale", "deployment", "d1", "--replicas=3"])
        .await;
    let deployments: Api<Deployment> = Api::default_namespaced(kubectl.server().client());
    let d1 = deployments.get("d1").await.expect("d1");
    assert_eq!(d1.spec.replicas, Some(3));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_saved_unchanged_or_changed() {
    let Some(kubectl) = Kubectl::start().await else {
        return;
    };
    kubectl
        .ok(&["create", "configmap", "c1", "--from-literal=a=b"])
        .await;
    with_foo(&kubectl).await;
    for target in [["cm", "c1"], ["foo", "example-foo"]] {
        let before = kubectl.server().resource_version();
        let output = kubectl
            .run_with(&["edit", target[0], target[1]], &[("EDITOR", "true")], "")
            .await;
        assert!(output.success(), "edit {target:?}: {}", output.stderr);
        assert!(
            output.stderr.contains("Edit cancelled, no changes made")
                || output.stdout.contains("Edit cancelled, no changes made"),
            "{output:?}"
        );
        assert_eq!(
            kubectl.server().resource_version(),
            before,
            "nothing written"
        );
    }
    // An editor that changes the value: kubectl patches the object.
    let editor = kubectl.file(
        "editor.sh",
        "#!/bin/sh\nsed -i 's/a: b/a: edited/' \"$1\"\n",
    );
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod the editor");
    let output = kubectl
        .run_with(&["edit", "cm", "c1"], &[("EDITOR", &editor)], "")
        .await;
    assert!(output.success(), "{output:?}");
    assert_eq!(data(&kubectl, "c1").await["a"], "edited");
    let editor = kubectl.file(
        "editor.sh",
        "#!/bin/sh\nsed -i 's/replicas: 1/replicas: 4/' \"$1\"\n",
    );
    let output = kubectl
        .run_with(&["edit", "foo", "example-foo"], &[("EDITOR", &editor)], "")
        .await;
    assert!(output.success(), "{output:?}");
    let foo = foos(&kubectl).get("example-foo").await.expect("foo");
    assert_eq!(foo.data["spec"]["replicas"], 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_and_api_resources() {
    let Some(kubectl) = Kubectl::start().await else {
        return;
    };
    let explain = kubectl.ok(&["explain", "configmap"]).await;
    assert!(explain.contains("ConfigMap"), "{explain}");
    assert!(explain.contains("binaryData"), "{explain}");
    let field = kubectl.ok(&["explain", "deployment.spec.replicas"]).await;
    assert!(field.contains("replicas"), "{field}");
    with_foo(&kubectl).await;
    let foo = kubectl.ok(&["explain", "foo.spec"]).await;
    assert!(foo.contains("deploymentName"), "{foo}");

    let resources = kubectl.ok(&["api-resources"]).await;
    let rows = table(&resources);
    for wanted in ["configmaps", "deployments", "namespaces", "foos"] {
        assert!(
            rows.iter()
                .any(|row| row.first().map(String::as_str) == Some(wanted)),
            "{wanted} missing: {resources}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_shows_the_columns_kubectl_users_know() {
    let Some(kubectl) = Kubectl::start().await else {
        return;
    };
    kubectl
        .ok(&[
            "create",
            "configmap",
            "c1",
            "--from-literal=a=b",
            "--from-literal=c=d",
        ])
        .await;
    let rows = table(&kubectl.ok(&["get", "cm", "c1"]).await);
    assert_eq!(rows[0], ["NAME", "DATA", "AGE"]);
    assert_eq!(rows[1][..2], ["c1", "2"]);

    kubectl
        .ok(&[
            "create",
            "deployment",
            "d1",
            "--image=nginx",
            "--replicas=2",
        ])
        .await;
    let rows = table(&kubectl.ok(&["get", "deploy"]).await);
    assert_eq!(rows[0], ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]);
    assert_eq!(rows[1][..2], ["d1", "0/2"]);

    with_foo(&kubectl).await;
    let rows = table(&kubectl.ok(&["get", "foos"]).await);
    assert_eq!(rows[0], ["NAME", "DEPLOYMENT", "REPLICAS", "AGE"]);
    assert_eq!(rows[1][..3], ["example-foo", "example-foo", "1"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_outputs_and_selectors() {
    let Some(kubectl) = Kubectl::start().await else {
        return;
    };
    let manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c1\n  labels: {app: web}\ndata:\n  a: b\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c2\n  labels: {app: db}\ndata:\n  a: z\n";
    let path = kubectl.file("cms.yaml", manifest);
    kubectl.ok(&["create", "-f", &path]).await;
    assert_eq!(data(&kubectl, "c2").await["a"], "z");

    let yaml = kubectl.ok(&["get", "cm", "c1", "-o", "yaml"]).await;
    assert!(
        yaml.contains("kind: ConfigMap") && yaml.contains("a: b"),
        "{yaml}"
    );
    let value = kubectl
        .ok(&["get", "cm", "c1", "-o", "jsonpath={.data.a}"])
        .await;
    assert_eq!(value, "b");
    let names = kubectl
        .ok(&["get", "cm", "-l", "app=db", "-o", "name"])
        .await;
    assert_eq!(names.trim(), "configmap/c2");
    let names = kubectl
        .ok(&[
            "get",
            "cm",
            "--field-selector",
            "metadata.name=c1",
            "-o",
            "name",
        ])
        .await;
    assert_eq!(names.trim(), "configmap/c1");

    let described = kubectl.ok(&["describe", "cm", "c1"]).await;
    assert!(
        described.contains("c1") && described.contains("Data"),
        "{described}"
    );
    assert!(described.contains("app=web"), "{described}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_delete_and_wait_for_delete() {
    let Some(kubectl) = Kubectl::start().await else {
        return;
    };
    kubectl
        .ok(&["create", "configmap", "w1", "--from-literal=a=b"])
        .await;
    let mut watch = kubectl.spawn(&["get", "cm", "-w", "-o", "name"]);
    // kube-root-ca.crt and w1 are listed first (in name order), then events stream.
    let mut listed = Vec::new();
    while !listed.contains(&"configmap/w1".to_owned()) {
        listed.push(watch.next_line(WAIT).await);
    }
    kubectl
        .ok(&["create", "configmap", "w2", "--from-literal=a=b"])
        .await;
    loop {
        if watch.next_line(WAIT).await == "configmap/w2" {
            break;
        }
    }
    watch.stop().await;

    kubectl.ok(&["delete", "cm", "w2"]).await;

    // A finalizer holds w1 until `kubectl wait` watches it; removing it ends the wait.
    let held = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: w1\n  finalizers: [example.com/hold]\n";
    let path = kubectl.file("held.yaml", held);
    kubectl.ok(&["apply", "-f", &path]).await;
    kubectl.ok(&["delete", "cm", "w1", "--wait=false"]).await;
    let mut wait = kubectl.spawn(&["wait", "--for=delete", "cm/w1", "--timeout=60s", "-v=6"]);
    while !wait.next_log_line(WAIT).await.contains("watch=true") {}
    let unhold = r#"{"metadata":{"finalizers":null}}"#;
    kubectl
        .ok(&["patch", "cm", "w1", "--type", "merge", "-p", unhold])
        .await;
    assert_eq!(wait.next_line(WAIT).await, "configmap/w1 condition met");
    assert_eq!(wait.finish(WAIT).await, Some(0));
    let gone = config_maps(&kubectl).get_opt("w1").await.expect("get w1");
    assert!(gone.is_none());
    assert!(
        kubectl
            .fails(&["get", "cm", "w1"])
            .await
            .contains("NotFound")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_resources() {
    let Some(kubectl) = Kubectl::start().await else {
        return;
    };
    with_foo(&kubectl).await;
    let value = kubectl
        .ok(&[
            "get",
            "foo",
            "example-foo",
            "-o",
            "jsonpath={.spec.deploymentName}",
        ])
        .await;
    assert_eq!(value, "example-foo");
    kubectl
        .ok(&[
            "patch",
            "foo",
            "example-foo",
            "--type",
            "merge",
            "-p",
            r#"{"spec":{"replicas":2}}"#,
        ])
        .await;
    assert_eq!(
        foos(&kubectl).get("example-foo").await.expect("foo").data["spec"]["replicas"],
        2
    );
    // Strategic merge patch is not served for custom resources, as on a real server.
    let refused = kubectl
        .fails(&[
            "patch",
            "foo",
            "example-foo",
            "-p",
            r#"{"spec":{"replicas":3}}"#,
        ])
        .await;
    assert!(
        refused.contains("application/strategic-merge-patch+json is not supported"),
        "{refused}"
    );
    kubectl
        .ok(&["label", "foo", "example-foo", "tier=gold"])
        .await;
    let names = kubectl
        .ok(&["get", "foos", "-l", "tier=gold", "-o", "name"])
        .await;
    assert_eq!(names.trim(), "foo.example.com/example-foo");
    kubectl.ok(&["delete", "foo", "example-foo"]).await;
    assert!(
        foos(&kubectl)
            .get_opt("example-foo")
            .await
            .expect("get")
            .is_none()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_bodies_are_refused_with_a_status() {
    let Some(kubectl) = Kubectl::start().await else {
        return;
    };
    let number = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: numeric\ndata:\n  a: 1\n";
    let path = kubectl.file("numeric.yaml", number);
    let refused = kubectl
        .fails(&["create", "-f", &path, "--validate=false"])
        .await;
    assert!(refused.contains("BadRequest"), "{refused}");
    assert!(
        config_maps(&kubectl)
            .get_opt("numeric")
            .await
            .expect("get")
            .is_none()
    );

    // 50 MB of data: the server answers 413 as a Status, which kubectl reports as such.
    let big = format!(
        "{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{{\"name\":\"big\"}},\"data\":{{\"a\":\"{}\"}}}}",
        "x".repeat(50 * 1024 * 1024)
    );
    let path = kubectl.file("big.json", &big);
    let refused = kubectl
        .fails(&["create", "-f", &path, "--validate=false"])
        .await;
    assert!(refused.contains("RequestEntityTooLarge"), "{refused}");
    assert!(
        config_maps(&kubectl)
            .get_opt("big")
            .await
            .expect("get")
            .is_none()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn version_needs_no_network() {
    let Some(kubectl) = Kubectl::start().await else {
        return;
    };
    let client = kubectl.ok(&["version", "--client"]).await;
    assert!(client.contains("Client Version"), "{client}");
    let both = kubectl.ok(&["version"]).await;
    assert!(both.contains("Server Version"), "{both}");
}

/// Passwords belong in Secrets.
struct NoPasswords;

impl kubegen_runtime::webhook::Validator<ConfigMap> for NoPasswords {
    async fn validate_create(
        &self,
        object: &ConfigMap,
        _: &kubegen_runtime::webhook::AdmissionRequest<ConfigMap>,
    ) -> kubegen_runtime::webhook::Verdict {
        use kubegen_runtime::webhook::Verdict;
        match object
            .data
            .as_ref()
            .is_some_and(|d| d.contains_key("password"))
        {
            true => Verdict::deny("passwords belong in Secrets"),
            false => Verdict::allow(),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_denial_reaches_kubectl_apply_with_its_reason() {
    use kubegen_runtime::webhook::{WebhookClient, WebhookServer, WebhookServerConfig};
    let Some(kubectl) = Kubectl::start().await else {
        return;
    };
    let certs = kubectl.dir().join("webhook-certs");
    let ca = kubegen_testkit::certs::TestCa::new().expect("a CA");
    let serving = ca
        .serving_cert(&["127.0.0.1"])
        .expect("a serving certificate");
    serving
        .write_to(&certs)
        .expect("write the serving certificate");
    let server = || {
        WebhookServer::new(WebhookServerConfig::default().cert_dir(&certs))
            .validating("/validate-configmaps", NoPasswords)
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let client = WebhookClient::url(format!(
        "https://{}",
        listener.local_addr().expect("address")
    ))
    .ca_bundle(ca.cert_pem().as_bytes().to_vec());
    let configuration = server()
        .configurations("no-passwords", &client)
        .validating
        .expect("one validating webhook");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(server().serve(listener, async {
        let _ = stopped.await;
    }));
    let configurations = Api::all(kubectl.server().client());
    configurations
        .create(&Default::default(), &configuration)
        .await
        .expect("store the webhook configuration");

    let refused = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: secretive\ndata:\n  password: hunter2\n";
    let path = kubectl.file("secretive.yaml", refused);
    let message = kubectl.fails(&["apply", "-f", &path]).await;
    assert!(
        message.contains(
            r#"admission webhook "validate.configmaps.core" denied the request: passwords belong in Secrets"#
        ),
        "{message}"
    );
    let fine = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\ndata:\n  mode: fast\n";
    let path = kubectl.file("plain.yaml", fine);
    assert!(
        kubectl
            .ok(&["apply", "-f", &path])
            .await
            .contains("created")
    );
    assert!(
        config_maps(&kubectl)
            .get_opt("secretive")
            .await
            .expect("get")
            .is_none()
    );
    let _ = stop.send(());
    serving
        .await
        .expect("join")
        .expect("the webhook server stops cleanly");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rbac_objects_and_auth_can_i() {
    let Some(kubectl) = Kubectl::start_with(ApiServerConfig::default().rbac(true)).await else {
        return;
    };
    // kubectl's typed create commands send the RBAC objects as protobuf.
    kubectl
        .ok(&[
            "create",
            "role",
            "cm-reader",
            "--verb=get,list",
            "--resource=configmaps",
        ])
        .await;
    kubectl
        .ok(&[
            "create",
            "rolebinding",
            "ctl-reads",
            "--role=cm-reader",
            "--serviceaccount=default:ctl",
        ])
        .await;
    // client-go sends credentials over TLS only, so kubectl is the administrator here
    // (no token), whom RBAC allows everything: its review (protobuf) says so.
    let yes = kubectl
        .run(&["auth", "can-i", "delete", "configmaps", "-n", "kube-system"])
        .await;
    assert_eq!(
        (yes.code, yes.stdout.trim()),
        (Some(0), "yes"),
        "{}",
        yes.stderr
    );
    // What kubectl stored binds the ServiceAccount as written.
    let server = kubectl.server();
    let ctl = server
        .service_account_client("default", "ctl")
        .expect("client");
    let configmaps: Api<ConfigMap> = Api::default_namespaced(ctl);
    configmaps
        .list(&Default::default())
        .await
        .expect("list is granted");
    let denied = configmaps
        .create(&Default::default(), &ConfigMap::default())
        .await
        .expect_err("create is not");
    assert!(matches!(denied, kube::Error::Api(status) if status.code == 403));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auth_whoami_and_api_resources_show_the_reviews() {
    let Some(kubectl) = Kubectl::start_with(ApiServerConfig::default().rbac(true)).await else {
        return;
    };
    // kubectl is the administrator here (see above); its SelfSubjectReview says who that is.
    let whoami = kubectl.ok(&["auth", "whoami", "-o", "json"]).await;
    let answer: serde_json::Value = serde_json::from_str(&whoami).expect("a review");
    assert_eq!(answer["kind"], "SelfSubjectReview", "{whoami}");
    assert_eq!(
        answer["status"]["userInfo"]["username"], "kubernetes-admin",
        "{whoami}"
    );
    // Discovery lists the reviews with verb `create` alone.
    let resources = kubectl
        .ok(&[
            "api-resources",
            "--api-group=authorization.k8s.io",
            "-o",
            "wide",
        ])
        .await;
    let rows = table(&resources);
    let local = rows
        .iter()
        .find(|row| row.first().map(String::as_str) == Some("localsubjectaccessreviews"))
        .unwrap_or_else(|| panic!("no localsubjectaccessreviews: {resources}"));
    assert!(local.iter().any(|cell| cell == "create"), "{resources}");
}
