//! A list response, serialized straight from the stored objects: a page of 500 items
//! costs its serialization, not 500 deep copies (which on a large heap cost more than
//! the rest of the request).

use std::sync::Arc;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use crate::store::registry::ResourceType;

/// One stored object as served in a given version (`apiVersion` and `kind` replaced).
struct Rendered<'a> {
    object: &'a Value,
    api_version: &'a str,
    kind: &'a str,
}

impl Serialize for Rendered<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Value::Object(fields) = self.object else {
            return self.object.serialize(serializer);
        };
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("apiVersion", self.api_version)?;
        map.serialize_entry("kind", self.kind)?;
        for (key, value) in fields {
            if key != "apiVersion" && key != "kind" {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

/// A `{Kind}List` whose items are shared with the store.
#[derive(Debug, Clone)]
pub(crate) struct Page {
    /// `apiVersion` of the list and of its items.
    pub(crate) api_version: String,
    /// `kind` of the list, e.g. `ConfigMapList`.
    pub(crate) list_kind: String,
    /// `kind` of the items.
    pub(crate) item_kind: String,
    /// `metadata` (resourceVersion, continue, remainingItemCount).
    pub(crate) metadata: Value,
    /// The items, as stored.
    pub(crate) items: Vec<Arc<Value>>,
}

impl Page {
    /// A page of `rt`'s list kind in its version.
    pub(crate) fn new(rt: &ResourceType, metadata: Value, items: Vec<Arc<Value>>) -> Self {
        Self {
            api_version: rt.api_version(),
            list_kind: rt.list_kind.clone(),
            item_kind: rt.kind.clone(),
            metadata,
            items,
        }
    }

    fn rendered<'a>(&'a self, object: &'a Value) -> Rendered<'a> {
        Rendered {
            object,
            api_version: &self.api_version,
            kind: &self.item_kind,
        }
    }
}

struct Items<'a>(&'a Page);

impl Serialize for Items<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.items.iter().map(|item| self.0.rendered(item)))
    }
}

impl Serialize for Page {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("kind", &self.list_kind)?;
        map.serialize_entry("apiVersion", &self.api_version)?;
        map.serialize_entry("metadata", &self.metadata)?;
        map.serialize_entry("items", &Items(self))?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn items_are_served_in_the_lists_version() {
        let page = Page {
            api_version: "example.com/v2".to_owned(),
            list_kind: "FooList".to_owned(),
            item_kind: "Foo".to_owned(),
            metadata: json!({"resourceVersion": "7"}),
            items: vec![
                Arc::new(
                    json!({"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "a"}}),
                ),
                Arc::new(json!({"metadata": {"name": "b"}, "spec": {"x": 1}})),
            ],
        };
        let serialized: Value = serde_json::to_value(&page).expect("serialize");
        assert_eq!(
            serialized,
            json!({
                "kind": "FooList",
                "apiVersion": "example.com/v2",
                "metadata": {"resourceVersion": "7"},
                "items": [
                    {"apiVersion": "example.com/v2", "kind": "Foo", "metadata": {"name": "a"}},
                    {"apiVersion": "example.com/v2", "kind": "Foo", "metadata": {"name": "b"}, "spec": {"x": 1}},
                ],
            })
        );
    }
}
