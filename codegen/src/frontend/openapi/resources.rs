//! Resources from a document's paths: which kinds are served, under which plural, in
//! which scope, with which subresources. Nothing is guessed from kind names.
//!
//! Paths follow the API server's layout, after `/api/v1` (core) or `/apis/<group>/<version>`:
//!
//! | path (after the prefix)                        | means                               |
//! |------------------------------------------------|-------------------------------------|
//! | `<plural>`, `<plural>/{name}`                  | the resource (cluster-scoped unless a namespaced path exists) |
//! | `namespaces/{namespace}/<plural>[/{name}]`     | a namespaced resource               |
//! | `[namespaces/{namespace}/]<plural>/{name}/<sub>` | subresource `<sub>` (`status`, `scale`) |
//! | `watch/...`                                    | deprecated watch paths (skipped)    |
//!
//! The kind of a resource is the `x-kubernetes-group-version-kind` of the operations on
//! its collection or item paths (subresource operations carry the subresource's kind,
//! e.g. `autoscaling/v1 Scale`, and are not used for that).

use std::collections::BTreeMap;

use serde_saphyr::Spanned;

use super::document::PathItem;
use crate::frontend::schema::GroupVersionKind;
use crate::model::Scope;

/// A served resource.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Resource {
    /// The kind the resource serves.
    pub(crate) kind: GroupVersionKind,
    /// The plural (URL path segment).
    pub(crate) plural: String,
    /// Namespaced or cluster-scoped.
    pub(crate) scope: Scope,
    /// Whether `/status` is served.
    pub(crate) status: bool,
    /// Whether `/scale` is served.
    pub(crate) scale: bool,
    /// The first path that named the resource, for errors.
    pub(crate) path: String,
    /// Where that path is in the document.
    pub(crate) location: serde_saphyr::Location,
}

/// What one path says about one resource.
enum Shape<'p> {
    /// Collection or item of `plural`.
    Resource { plural: &'p str, namespaced: bool },
    /// Subresource `sub` of `plural`.
    Subresource { plural: &'p str, sub: &'p str },
}

/// The `(group, version)` a path belongs to and its segments after the prefix.
fn split(path: &str) -> Option<((&str, &str), Vec<&str>)> {
    let mut segments = path.trim_matches('/').split('/');
    let gv = match segments.next()? {
        "api" => ("", segments.next()?),
        "apis" => (segments.next()?, segments.next()?),
        _ => return None,
    };
    Some((gv, segments.collect()))
}

fn shape<'p>(segments: &[&'p str]) -> Option<Shape<'p>> {
    let is_param = |s: &str| s.starts_with('{');
    let (namespaced, rest) = match segments {
        ["namespaces", "{namespace}", rest @ ..] if !rest.is_empty() => (true, rest),
        _ => (false, segments),
    };
    match rest {
        [plural] if !is_param(plural) => Some(Shape::Resource { plural, namespaced }),
        [plural, "{name}"] if !is_param(plural) => Some(Shape::Resource { plural, namespaced }),
        [plural, "{name}", sub] if !is_param(plural) && !is_param(sub) => {
            Some(Shape::Subresource { plural, sub })
        }
        _ => None,
    }
}

/// Whether `path` is the collection or item path of a resource (not a subresource, not a
/// deprecated watch path): the paths whose kind [`resources`] reads.
pub(crate) fn is_resource_path(path: &str) -> bool {
    split(path).is_some_and(|(_, segments)| {
        segments.first() != Some(&"watch")
            && matches!(shape(&segments), Some(Shape::Resource { .. }))
    })
}

/// Every resource the paths serve, keyed by kind (`group`, `version`, `kind`).
pub(crate) fn resources(
    paths: &BTreeMap<String, Spanned<PathItem>>,
) -> BTreeMap<GroupVersionKind, Resource> {
    // (group, version, plural) -> resource.
    let mut by_plural: BTreeMap<(String, String, String), Resource> = BTreeMap::new();
    let mut subresources: Vec<(String, String, String, String)> = Vec::new();
    for (path, item) in paths {
        let Some(((group, version), segments)) = split(path) else {
            continue;
        };
        if segments.first() == Some(&"watch") {
            continue;
        }
        match shape(&segments) {
            Some(Shape::Resource { plural, namespaced }) => {
                let Some(kind) = item.value.kinds().next() else {
                    continue;
                };
                let key = (group.to_owned(), version.to_owned(), plural.to_owned());
                let resource = by_plural.entry(key).or_insert_with(|| Resource {
                    kind: kind.clone(),
                    plural: plural.to_owned(),
                    scope: Scope::Cluster,
                    status: false,
                    scale: false,
                    path: path.clone(),
                    location: item.referenced,
                });
                if namespaced {
                    resource.scope = Scope::Namespaced;
                }
            }
            Some(Shape::Subresource { plural, sub }) => subresources.push((
                group.to_owned(),
                version.to_owned(),
                plural.to_owned(),
                sub.to_owned(),
            )),
            None => {}
        }
    }
    for (group, version, plural, sub) in subresources {
        if let Some(resource) = by_plural.get_mut(&(group, version, plural)) {
            match sub.as_str() {
                "status" => resource.status = true,
                "scale" => resource.scale = true,
                _ => {}
            }
        }
    }
    let mut out = BTreeMap::new();
    for resource in by_plural.into_values() {
        out.entry(resource.kind.clone()).or_insert(resource);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn item(kind: Option<(&str, &str, &str)>) -> Spanned<PathItem> {
        let json = match kind {
            Some((g, v, k)) => format!(
                r#"{{"get": {{"x-kubernetes-group-version-kind": {{"group": "{g}", "version": "{v}", "kind": "{k}"}}}}}}"#
            ),
            None => "{}".to_owned(),
        };
        serde_saphyr::from_str(&json).unwrap()
    }

    #[test]
    fn plural_scope_and_subresources_come_from_paths() {
        let deploy = Some(("apps", "v1", "Deployment"));
        let scale = Some(("autoscaling", "v1", "Scale"));
        let node = Some(("", "v1", "Node"));
        let ns = Some(("", "v1", "Namespace"));
        let paths: BTreeMap<String, Spanned<PathItem>> = [
            ("/apis/apps/v1/deployments", deploy),
            (
                "/apis/apps/v1/namespaces/{namespace}/deployments/{name}",
                deploy,
            ),
            (
                "/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status",
                deploy,
            ),
            (
                "/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale",
                scale,
            ),
            (
                "/apis/apps/v1/watch/namespaces/{namespace}/deployments",
                deploy,
            ),
            ("/api/v1/nodes/{name}", node),
            ("/api/v1/nodes/{name}/proxy/{path}", None),
            ("/api/v1/namespaces/{name}", ns),
            ("/api/v1/namespaces/{name}/status", ns),
            ("/apis/apps/v1/", None),
        ]
        .into_iter()
        .map(|(p, k)| (p.to_owned(), item(k)))
        .collect();
        let found = resources(&paths);
        let kinds: Vec<(&str, &str, Scope, bool, bool)> = found
            .values()
            .map(|r| {
                (
                    r.kind.kind.as_str(),
                    r.plural.as_str(),
                    r.scope,
                    r.status,
                    r.scale,
                )
            })
            .collect();
        assert_eq!(
            kinds,
            [
                ("Namespace", "namespaces", Scope::Cluster, true, false),
                ("Node", "nodes", Scope::Cluster, false, false),
                ("Deployment", "deployments", Scope::Namespaced, true, true),
            ]
        );
    }
}
