//! [`ResourceClient`]: the typed client generated clientsets hand out, and its two
//! constructors.

use std::fmt::Debug;

use kube::{Client, Resource};
use kubegen_runtime::client::{ApiScope, Scope, TypedClient};
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use kubegen_runtime::client::{subresources, verbs};

/// A typed client for one kind whose verbs follow what the kind serves: the runtime's
/// [`TypedClient`] (every verb, pagination, typed errors) with `S` (one of
/// [`subresources`]) adding `update_status`/`patch_status` and `get_scale`/`update_scale`
/// only for kinds that declare those subresources, and `V` (one of [`verbs`]) keeping
/// only the verbs the kind serves (every one by default). A verb is added once, on
/// [`TypedClient`].
///
/// A generated alias of a read-only kind reads but cannot write:
///
/// ```no_run
/// use kubegen::__private::k8s_openapi::api::core::v1::ConfigMap;
/// use kubegen::gentype::{ResourceClient, subresources, verbs};
///
/// pub type ConfigMapClient = ResourceClient<ConfigMap, subresources::None, verbs::ReadOnly>;
///
/// async fn demo(client: kubegen::__private::kube::Client) {
///     let configmaps: ConfigMapClient = kubegen::gentype::namespaced(client, "default");
///     let _ = configmaps.get("settings").await;
/// }
/// ```
///
/// ```compile_fail
/// use kubegen::__private::k8s_openapi::api::core::v1::ConfigMap;
/// use kubegen::gentype::{ResourceClient, subresources, verbs};
///
/// pub type ConfigMapClient = ResourceClient<ConfigMap, subresources::None, verbs::ReadOnly>;
///
/// async fn demo(client: kubegen::__private::kube::Client, configmap: ConfigMap) {
///     let configmaps: ConfigMapClient = kubegen::gentype::namespaced(client, "default");
///     let _ = configmaps.create(&configmap).await; // no `create` on a read-only client
/// }
/// ```
pub type ResourceClient<K, S = subresources::None, V = verbs::AllVerbs> = TypedClient<K, S, V>;

/// A client of `K` in `namespace`; `""` means all namespaces (list and watch only), as
/// client-go's `metav1.NamespaceAll`.
pub fn namespaced<K, S, V>(client: Client, namespace: &str) -> ResourceClient<K, S, V>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Serialize + Debug,
    K::Scope: ApiScope,
{
    let scope = match namespace {
        "" => Scope::All,
        namespace => Scope::Namespace(namespace),
    };
    TypedClient::new(client, scope, &())
        .with_subresources()
        .with_verbs()
}

/// A client of the cluster-scoped `K`.
pub fn cluster<K, S, V>(client: Client) -> ResourceClient<K, S, V>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Serialize + Debug,
    K::Scope: ApiScope,
{
    TypedClient::new(client, Scope::All, &())
        .with_subresources()
        .with_verbs()
}
