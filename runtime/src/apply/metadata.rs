//! [`ApplyMetadata`]: the object metadata setters of every generated apply configuration
//! (client-go's `WithLabels`, `WithAnnotations`, `WithOwnerReferences`, `WithFinalizers`,
//! ...), written once here. A generated type implements the trait with one method that
//! hands out its `metadata` field.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};

/// Object metadata setters of an apply configuration: every kind's `FooApply` implements
/// it, and so does every nested apply configuration with a `metadata: ObjectMeta` field
/// (`PodTemplateSpecApply`).
///
/// As the generated field setters do, the setters of maps insert (a key set twice keeps
/// its last value) and the setters of lists append, so several calls add up; only what is
/// set is sent, and the field manager owns exactly that. Setters that name a field the
/// type itself has (a kind whose own `labels` field has a `with_labels`) are shadowed by
/// the type's; call them as `ApplyMetadata::with_labels(apply, ...)` then.
///
/// Bring the trait into scope to call its setters (`use kubegen::runtime::apply::ApplyMetadata;`).
///
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
/// use kubegen_runtime::apply::ApplyMetadata;
/// use serde_json::json;
///
/// // A stand-in for a generated apply configuration, with the one method they implement.
/// # #[derive(Default, serde::Serialize)]
/// # struct ConfigMapApply { metadata: Option<ObjectMeta> }
/// # impl ApplyMetadata for ConfigMapApply {
/// #     fn metadata_mut(&mut self) -> &mut Option<ObjectMeta> { &mut self.metadata }
/// # }
/// let owner = OwnerReference {
///     api_version: "apps/v1".into(),
///     kind: "Deployment".into(),
///     name: "web".into(),
///     uid: "1234".into(),
///     controller: Some(true),
///     ..Default::default()
/// };
/// let settings = ConfigMapApply::default()
///     .with_name("settings")
///     .with_labels([("app", "web")])
///     .with_labels([("tier", "front")])
///     .with_annotations([("example.com/owner", "team-a")])
///     .with_owner_references([owner])
///     .with_finalizers(["example.com/cleanup"]);
/// assert_eq!(
///     serde_json::to_value(&settings.metadata).unwrap(),
///     json!({
///         "name": "settings",
///         "labels": {"app": "web", "tier": "front"},
///         "annotations": {"example.com/owner": "team-a"},
///         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
///                              "uid": "1234", "controller": true}],
///         "finalizers": ["example.com/cleanup"]
///     })
/// );
/// ```
pub trait ApplyMetadata: Sized {
    /// The apply configuration's `metadata` field (what generated types implement).
    fn metadata_mut(&mut self) -> &mut Option<ObjectMeta>;

    /// Sets `metadata.name`.
    #[inline]
    fn with_name(mut self, name: impl Into<String>) -> Self {
        meta(&mut self).name = Some(name.into());
        self
    }

    /// Sets `metadata.generateName`, the prefix the server completes into a unique name
    /// when `metadata.name` is unset.
    #[inline]
    fn with_generate_name(mut self, prefix: impl Into<String>) -> Self {
        meta(&mut self).generate_name = Some(prefix.into());
        self
    }

    /// Sets `metadata.namespace`.
    #[inline]
    fn with_namespace(mut self, namespace: impl Into<String>) -> Self {
        meta(&mut self).namespace = Some(namespace.into());
        self
    }

    /// Sets `metadata.uid`: the apply fails unless the live object has this UID.
    #[inline]
    fn with_uid(mut self, uid: impl Into<String>) -> Self {
        meta(&mut self).uid = Some(uid.into());
        self
    }

    /// Sets `metadata.resourceVersion`: the apply fails with a conflict unless the live
    /// object is at this version (optimistic concurrency).
    #[inline]
    fn with_resource_version(mut self, version: impl Into<String>) -> Self {
        meta(&mut self).resource_version = Some(version.into());
        self
    }

    /// Inserts `entries` into `metadata.labels` (an empty iterator sets it empty).
    #[inline]
    fn with_labels<K, V>(mut self, entries: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<String>,
        V: Into<String>,
    {
        extend_map(&mut meta(&mut self).labels, entries);
        self
    }

    /// Inserts `entries` into `metadata.annotations` (an empty iterator sets it empty).
    #[inline]
    fn with_annotations<K, V>(mut self, entries: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<String>,
        V: Into<String>,
    {
        extend_map(&mut meta(&mut self).annotations, entries);
        self
    }

    /// Appends `values` to `metadata.ownerReferences` (an empty iterator sets it empty).
    /// An `Option` is an iterator too: `with_owner_references(owner.controller_owner_ref(&()))`
    /// with kube's `Resource::controller_owner_ref`.
    #[inline]
    fn with_owner_references(mut self, values: impl IntoIterator<Item = OwnerReference>) -> Self {
        meta(&mut self)
            .owner_references
            .get_or_insert_with(Vec::new)
            .extend(values);
        self
    }

    /// Appends `values` to `metadata.finalizers` (an empty iterator sets it empty).
    #[inline]
    fn with_finalizers(mut self, values: impl IntoIterator<Item = impl Into<String>>) -> Self {
        meta(&mut self)
            .finalizers
            .get_or_insert_with(Vec::new)
            .extend(values.into_iter().map(Into::into));
        self
    }
}

/// `apply`'s metadata, set empty first when unset.
fn meta<A: ApplyMetadata>(apply: &mut A) -> &mut ObjectMeta {
    apply.metadata_mut().get_or_insert_with(ObjectMeta::default)
}

fn extend_map<K, V>(
    map: &mut Option<BTreeMap<String, String>>,
    entries: impl IntoIterator<Item = (K, V)>,
) where
    K: Into<String>,
    V: Into<String>,
{
    map.get_or_insert_with(BTreeMap::new)
        .extend(entries.into_iter().map(|(k, v)| (k.into(), v.into())));
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(Debug, Default, PartialEq, serde::Serialize)]
    struct Apply {
        #[serde(skip_serializing_if = "Option::is_none")]
        metadata: Option<ObjectMeta>,
    }

    impl ApplyMetadata for Apply {
        fn metadata_mut(&mut self) -> &mut Option<ObjectMeta> {
            &mut self.metadata
        }
    }

    fn owner(name: &str) -> OwnerReference {
        OwnerReference {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
            name: name.into(),
            uid: format!("uid-{name}"),
            ..Default::default()
        }
    }

    #[test]
    fn maps_insert_and_lists_append() {
        let apply = Apply::default()
            .with_labels([("a", "1"), ("b", "1")])
            .with_labels([("b".to_owned(), "2".to_owned())])
            .with_annotations(BTreeMap::from([("note", "x")]))
            .with_owner_references([owner("one")])
            .with_owner_references(Some(owner("two")))
            .with_finalizers(["f/1"])
            .with_finalizers(vec!["f/2".to_owned()]);
        let meta = apply.metadata.unwrap();
        assert_eq!(
            meta.labels,
            Some(BTreeMap::from([
                ("a".into(), "1".into()),
                ("b".into(), "2".into())
            ]))
        );
        assert_eq!(
            meta.annotations,
            Some(BTreeMap::from([("note".into(), "x".into())]))
        );
        let owners: Vec<_> = meta
            .owner_references
            .unwrap()
            .into_iter()
            .map(|o| o.name)
            .collect();
        assert_eq!(owners, ["one", "two"]);
        assert_eq!(meta.finalizers, Some(vec!["f/1".into(), "f/2".into()]));
    }

    #[test]
    fn only_what_is_set_is_sent_and_empty_iterators_send_empty() {
        assert_eq!(serde_json::to_value(Apply::default()).unwrap(), json!({}));
        let empty = Apply::default()
            .with_labels(Vec::<(String, String)>::new())
            .with_finalizers(Vec::<String>::new())
            .with_owner_references(None);
        assert_eq!(
            serde_json::to_value(empty).unwrap(),
            json!({"metadata": {"labels": {}, "finalizers": [], "ownerReferences": []}})
        );
    }

    #[test]
    fn scalar_setters_keep_the_rest_of_the_metadata() {
        let apply = Apply {
            metadata: Some(ObjectMeta {
                name: Some("a".into()),
                namespace: Some("ns".into()),
                ..Default::default()
            }),
        }
        .with_labels([("app", "web")])
        .with_name("b")
        .with_generate_name("b-")
        .with_namespace("other")
        .with_uid("u")
        .with_resource_version("7");
        assert_eq!(
            serde_json::to_value(apply).unwrap(),
            json!({"metadata": {
                "name": "b", "generateName": "b-", "namespace": "other", "uid": "u",
                "resourceVersion": "7", "labels": {"app": "web"}
            }})
        );
    }
}
