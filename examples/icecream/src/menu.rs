//! The menu: one ConfigMap per namespace, [`MENU`], with an entry per Icecream naming the
//! nodes that serve it. Every Icecream of the namespace shares it, so no owner reference
//! can clean an entry up when its Icecream goes: the controller's finalizer
//! ([`FINALIZER`]) holds the deletion until the entry is removed.

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{ObjectMeta, Patch, PatchParams};
use kubegen::runtime::client::{Scope, TypedClient};
use kubegen::runtime::error::Error;
use serde_json::json;

use crate::apis::icecream::v1::IcecreamStatus;

/// The ConfigMap holding the menu of a namespace's Icecreams.
pub const MENU: &str = "icecream-menu";
/// The finalizer that keeps a deleted Icecream until its menu entry is removed.
pub const FINALIZER: &str = "icecream.example.com/menu";

/// An Icecream's menu entry: the nodes serving it, comma-separated (empty: none).
pub fn entry(status: &IcecreamStatus) -> String {
    status.nodes.join(",")
}

/// Sets (`Some`) or removes (`None`) the menu entry of the Icecream `name` in
/// `namespace`, creating the menu on the first entry. A JSON merge patch of one key:
/// entries of other Icecreams, written concurrently by other workers, are untouched.
pub async fn set_entry(
    client: &kube::Client,
    namespace: &str,
    name: &str,
    value: Option<&str>,
) -> Result<(), Error> {
    let configmaps =
        TypedClient::<ConfigMap>::new(client.clone(), Scope::Namespace(namespace), &());
    let patch = json!({ "data": { name: value } });
    let patched = configmaps
        .patch(MENU, &PatchParams::default(), &Patch::Merge(&patch))
        .await;
    let missing = match patched {
        Ok(_) => return Ok(()),
        Err(error) if error.is_not_found() => error,
        Err(error) => return Err(error),
    };
    // No menu yet: nothing to remove, or create it with this entry.
    let Some(value) = value else {
        return Ok(());
    };
    tracing::debug!(error = %missing, %namespace, "creating the menu");
    let menu = ConfigMap {
        metadata: ObjectMeta {
            name: Some(MENU.to_owned()),
            namespace: Some(namespace.to_owned()),
            ..Default::default()
        },
        data: Some([(name.to_owned(), value.to_owned())].into()),
        ..Default::default()
    };
    match configmaps.create(&menu).await {
        Ok(_) => Ok(()),
        // Another worker created it first: add the entry to theirs.
        Err(error) if error.is_already_exists() => configmaps
            .patch(MENU, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .map(|_| ()),
        Err(error) => Err(error),
    }
}
