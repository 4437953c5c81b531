//! Names in Kubernetes OpenAPI documents: definition packages and short names, and the
//! k8s-openapi type a definition of another package maps to.

/// The package of an OpenAPI definition name: everything before the last `.`
/// (`io.k8s.api.apps.v1.Deployment` -> `io.k8s.api.apps.v1`; `""` without a dot).
pub fn definition_package(definition: &str) -> &str {
    definition
        .rsplit_once('.')
        .map_or("", |(package, _)| package)
}

/// The short name of an OpenAPI definition name: after the last `.`
/// (`io.k8s.api.apps.v1.Deployment` -> `Deployment`).
pub fn definition_short_name(definition: &str) -> &str {
    definition
        .rsplit_once('.')
        .map_or(definition, |(_, short)| short)
}

/// The k8s-openapi type path (no leading `::`) for a Kubernetes OpenAPI definition name.
///
/// This is the one rule that maps the definitions of other packages to existing types:
/// k8s-openapi mirrors the Go package layout, so the path is the definition name without
/// its `io.k8s.` prefix, with `.` as `::` and `-` as `_`, under `k8s_openapi::`. Names
/// outside `io.k8s.` have no k8s-openapi type (`None`).
///
/// ```
/// use kubegen_codegen::__internal::naming::k8s_openapi_path;
///
/// assert_eq!(
///     k8s_openapi_path("io.k8s.api.core.v1.PodTemplateSpec").as_deref(),
///     Some("k8s_openapi::api::core::v1::PodTemplateSpec"),
/// );
/// assert_eq!(
///     k8s_openapi_path("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta").as_deref(),
///     Some("k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta"),
/// );
/// assert_eq!(
///     k8s_openapi_path("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON").as_deref(),
///     Some("k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSON"),
/// );
/// assert_eq!(k8s_openapi_path("com.example.v1.Widget"), None);
/// ```
pub fn k8s_openapi_path(definition: &str) -> Option<String> {
    let rest = definition.strip_prefix("io.k8s.")?;
    let mut path = String::from("k8s_openapi");
    for segment in rest.split('.') {
        if segment.is_empty() {
            return None;
        }
        path.push_str("::");
        path.push_str(&segment.replace('-', "_"));
    }
    Some(path)
}
