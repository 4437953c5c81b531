//! Walking a `fieldsV1` field set (the format of `metadata.managedFields[].fieldsV1`)
//! over an object as JSON, keeping only the fields the set lists.
//!
//! A field set is a JSON object whose keys name children of the node it describes:
//!
//! - `f:<name>`: the object field (or map key) `<name>`;
//! - `k:<json object>`: the item of an associative list whose key fields have these values;
//! - `v:<json value>`: the item of a set list equal to this value;
//! - `i:<index>`: the list item at this index (atomic lists of maps);
//! - `.`: the node itself (its presence), as opposed to its children.
//!
//! An empty set under a key means the whole child is owned (a leaf, or an atomic list or
//! map); a non-empty one lists the owned parts of the child.

use serde_json::{Map, Value};

/// Why a field set could not be walked.
#[derive(Debug, thiserror::Error)]
pub enum FieldsError {
    /// A field set, or a member of one, is not a JSON object.
    #[error("field set under `{key}` is not a JSON object")]
    NotAnObject {
        /// The key whose value is not an object (`""` for the whole set).
        key: String,
    },
    /// A key is not one of `f:`, `k:`, `v:`, `i:`, `.`.
    #[error("unknown field set key `{key}` (expected f:, k:, v:, i: or .)")]
    UnknownKey {
        /// The key.
        key: String,
    },
    /// A `k:`, `v:` or `i:` key does not hold valid JSON (or a valid index).
    #[error("field set key `{key}` does not hold a valid value")]
    BadValue {
        /// The key.
        key: String,
    },
}

/// The parts of `value` that the field set `set` lists (see the module docs). Fields and
/// list items the set names but `value` lacks are skipped; list items keep their order.
///
/// ```
/// use kubegen_runtime::apply::owned_fields;
/// use serde_json::json;
///
/// let object = json!({"spec": {"replicas": 3, "paused": false,
///     "containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}});
/// let set = json!({"f:spec": {"f:replicas": {}, "f:containers": {
///     "k:{\"name\":\"b\"}": {".": {}, "f:name": {}}}}});
/// assert_eq!(
///     owned_fields(&object, &set).unwrap(),
///     json!({"spec": {"replicas": 3, "containers": [{"name": "b"}]}})
/// );
/// ```
pub fn owned_fields(value: &Value, set: &Value) -> Result<Value, FieldsError> {
    let set = as_set(set, "")?;
    walk(value, set)
}

fn as_set<'a>(set: &'a Value, key: &str) -> Result<&'a Map<String, Value>, FieldsError> {
    set.as_object().ok_or_else(|| FieldsError::NotAnObject {
        key: key.to_owned(),
    })
}

/// The owned part of one child: all of it for an empty set, else what the set lists.
fn child(value: &Value, set: &Value, key: &str) -> Result<Value, FieldsError> {
    let set = as_set(set, key)?;
    if set.is_empty() {
        Ok(value.clone())
    } else {
        walk(value, set)
    }
}

/// What a list-item key selects.
enum Item {
    /// Items whose fields include these values.
    Key(Map<String, Value>),
    /// Items equal to this value.
    Value(Value),
    /// The item at this index.
    Index(usize),
}

impl Item {
    fn parse(key: &str) -> Result<Option<Self>, FieldsError> {
        let bad = || FieldsError::BadValue {
            key: key.to_owned(),
        };
        if key == "." || key.starts_with("f:") {
            return Ok(None);
        }
        if let Some(json) = key.strip_prefix("k:") {
            return match serde_json::from_str(json) {
                Ok(Value::Object(fields)) => Ok(Some(Item::Key(fields))),
                _ => Err(bad()),
            };
        }
        if let Some(json) = key.strip_prefix("v:") {
            return serde_json::from_str(json)
                .map(|v| Some(Item::Value(v)))
                .map_err(|_| bad());
        }
        if let Some(index) = key.strip_prefix("i:") {
            return index
                .parse()
                .map(|i| Some(Item::Index(i)))
                .map_err(|_| bad());
        }
        Err(FieldsError::UnknownKey {
            key: key.to_owned(),
        })
    }

    fn matches(&self, index: usize, item: &Value) -> bool {
        match self {
            Item::Key(fields) => fields.iter().all(|(k, v)| item.get(k) == Some(v)),
            Item::Value(value) => item == value,
            Item::Index(i) => *i == index,
        }
    }
}

fn walk(value: &Value, set: &Map<String, Value>) -> Result<Value, FieldsError> {
    let mut fields = Map::new();
    let mut items = Vec::new();
    for (key, sub) in set {
        match key.strip_prefix("f:") {
            Some(name) => {
                if let Some(found) = value.as_object().and_then(|o| o.get(name)) {
                    fields.insert(name.to_owned(), child(found, sub, key)?);
                }
            }
            None => {
                if let Some(item) = Item::parse(key)? {
                    items.push((item, sub, key));
                }
            }
        }
    }
    match value {
        Value::Object(_) => Ok(Value::Object(fields)),
        Value::Array(list) => {
            let mut out = Vec::new();
            for (index, element) in list.iter().enumerate() {
                if let Some((_, sub, key)) =
                    items.iter().find(|(i, _, _)| i.matches(index, element))
                {
                    out.push(child(element, sub, key)?);
                }
            }
            Ok(Value::Array(out))
        }
        scalar => Ok(scalar.clone()),
    }
}
