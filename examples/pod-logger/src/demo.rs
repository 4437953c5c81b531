//! The embedded demo: pods to log, and changes to them (what a scheduler, a kubelet and a
//! user would do on a real cluster).

use k8s_openapi::api::core::v1::{Container, Pod, PodSpec};
use kube::api::{DeleteParams, ObjectMeta, Patch, PatchParams};
use kubegen::runtime::client::{Scope, TypedClient};
use kubegen::runtime::error::Error;
use serde_json::json;

/// The namespace the demo pods live in.
pub const DEMO_NAMESPACE: &str = "default";

/// A pod running nginx, labelled `app`, scheduled on `node` if given.
pub fn pod(name: &str, app: &str, node: Option<&str>) -> Pod {
    Pod {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            namespace: Some(DEMO_NAMESPACE.to_owned()),
            labels: Some([("app".to_owned(), app.to_owned())].into()),
            ..Default::default()
        },
        spec: Some(PodSpec {
            node_name: node.map(str::to_owned),
            containers: vec![Container {
                name: "nginx".to_owned(),
                image: Some("nginx:latest".to_owned()),
                ..Default::default()
            }],
            ..Default::default()
        }),
        status: None,
    }
}

/// Creates three pods.
pub async fn seed(client: &kube::Client) -> Result<(), Error> {
    let pods = TypedClient::<Pod>::new(client.clone(), Scope::Namespace(DEMO_NAMESPACE), &());
    for (name, app, node) in [
        ("web-1", "web", Some("node-a")),
        ("web-2", "web", Some("node-b")),
        ("db-1", "db", None),
    ] {
        pods.create(&pod(name, app, node)).await?;
    }
    Ok(())
}

/// Changes them: the kubelet reports web-1 running, a user relabels db-1, and web-2 is
/// deleted.
pub async fn churn(client: &kube::Client) -> Result<(), Error> {
    let pods = TypedClient::<Pod>::new(client.clone(), Scope::Namespace(DEMO_NAMESPACE), &());
    let running = json!({ "status": { "phase": "Running" } });
    pods.patch_status("web-1", &PatchParams::default(), &Patch::Merge(&running))
        .await?;
    let relabel = json!({ "metadata": { "labels": { "tier": "backend" } } });
    pods.patch("db-1", &PatchParams::default(), &Patch::Merge(&relabel))
        .await?;
    pods.delete("web-2", &DeleteParams::default()).await?;
    Ok(())
}
