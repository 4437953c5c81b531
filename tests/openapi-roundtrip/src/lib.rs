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
    let direct = through::<G>(value.clone(), "generated")?;
    let k8s_openapi = through::<K>(value, "k8s-openapi")?;
    let via_k8s_openapi = through::<G>(k8s_openapi.clone(), "generated")?;
    Ok(RoundTrip {
        direct,
        k8s_openapi,
        via_k8s_openapi,
    })
}

/// JSON -> `T` -> JSON, `T` boxed in a function of its own, so the caller's stack frame
/// does not grow with the type (a debug build keeps a copy per move).
#[inline(never)]
fn through<T: DeserializeOwned + Serialize>(
    value: serde_json::Value,
    types: &str,
) -> Result<serde_json::Value, String> {
    let typed: Box<T> = serde_json::from_value(value).map_err(|e| format!("into {types}: {e}"))?;
    serde_json::to_value(&*typed).map_err(|e| format!("from {types}: {e}"))
}

/// The stack of the threads [`on_small_stack`] starts: 2 MiB, a spawned thread's default.
pub const SMALL_STACK: usize = 2 << 20;

/// Runs `f` on a thread with a [`SMALL_STACK`] stack and returns what it returns (its
/// panic, if it panics). Overflowing that stack aborts the test process.
pub fn on_small_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    let thread = std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(f)
        .unwrap_or_else(|e| panic!("cannot start a thread: {e}"));
    thread
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

include!(concat!(env!("OUT_DIR"), "/table.rs"));
