//! Types kubegen generates from the Kubernetes OpenAPI documents of the shared corpus (see
//! `build.rs`), each paired with its k8s-openapi twin so tests can compare them.

use k8s_openapi::{ListableResource, Resource};

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A generated kind and the way to round-trip objects through it.
pub struct Kind {
    /// The document the kind was generated from.
    pub doc: &'static str,
    /// The OpenAPI definition name of the kind (`io.k8s.api.apps.v1.Deployment`).
    pub definition: &'static str,
    /// Checks the generated resource constants against k8s-openapi's, then sends a JSON
    /// object through k8s-openapi's type and the generated type (see [`round_trip`]).
    pub round_trip: fn(serde_json::Value) -> Result<RoundTrip, String>,
}

/// What an object became on its way through the types.
#[derive(Debug)]
pub struct RoundTrip {
    /// JSON -> generated type -> JSON.
    pub direct: serde_json::Value,
    /// JSON -> k8s-openapi type -> JSON: the object as k8s-openapi understands it.
    pub k8s_openapi: serde_json::Value,
    /// That JSON -> generated type -> JSON.
    pub via_k8s_openapi: serde_json::Value,
}

/// Checks that `G` (generated) and `K` (k8s-openapi) agree on the resource constants and
/// scope, then sends `value` through `G` alone, and through `K` then `G`.
pub fn round_trip<G, K>(value: serde_json::Value) -> Result<RoundTrip, String>
where
    G: ListableResource + DeserializeOwned + Serialize,
    K: Resource + DeserializeOwned + Serialize,
{
    let consts = |api_version: &str, group: &str, kind: &str, version: &str, plural: &str| {
        format!("{api_version} {group} {kind} {version} {plural}")
    };
    let ours = consts(
        G::API_VERSION,
        G::GROUP,
        G::KIND,
        G::VERSION,
        G::URL_PATH_SEGMENT,
    );
    let theirs = consts(
        K::API_VERSION,
        K::GROUP,
        K::KIND,
        K::VERSION,
        K::URL_PATH_SEGMENT,
    );
    if G::LIST_KIND != format!("{}List", G::KIND) {
        return Err(format!("list kind {} of {}", G::LIST_KIND, G::KIND));
    }
    if ours != theirs {
        return Err(format!(
            "resource constants differ: generated `{ours}`, k8s-openapi `{theirs}`"
        ));
    }
    let scope = |name: &str| name.rsplit("::").next().unwrap_or_default().to_owned();
    let (our_scope, their_scope) = (
        scope(std::any::type_name::<<G as Resource>::Scope>()),
        scope(std::any::type_name::<<K as Resource>::Scope>()),
    );
    if our_scope != their_scope {
        return Err(format!(
            "scope differs: generated {our_scope}, k8s-openapi {their_scope}"
        ));
    }
    let through_ours = |value: serde_json::Value| {
        let ours: G = serde_json::from_value(value).map_err(|e| format!("into generated: {e}"))?;
        serde_json::to_value(&ours).map_err(|e| format!("from generated: {e}"))
    };
    let direct = through_ours(value.clone())?;
    let theirs: K = serde_json::from_value(value).map_err(|e| format!("into k8s-openapi: {e}"))?;
    let k8s_openapi =
        serde_json::to_value(&theirs).map_err(|e| format!("from k8s-openapi: {e}"))?;
    let via_k8s_openapi = through_ours(k8s_openapi.clone())?;
    Ok(RoundTrip {
        direct,
        k8s_openapi,
        via_k8s_openapi,
    })
}

include!(concat!(env!("OUT_DIR"), "/table.rs"));
