//! Walking an object, as JSON, by a [`FieldSet`]: keeping only the fields the set lists.
//!
//! Without the object's schema, list items are matched by what their element says: a
//! `k:` element selects the items whose fields include its key fields, a `v:` element
//! the items equal to its value, an `i:` element the item at its index.

use serde_json::{Map, Value};

use super::fieldset::{Element, FieldSet};

/// The parts of `value` that `set` lists. A member of the set with nothing listed below
/// it is kept whole (a leaf, or an atomic list or map); one with members below keeps just
/// those. Fields and list items the set names but `value` lacks are skipped; list items
/// keep their order.
///
/// ```
/// use kubegen_runtime::apply::{FieldSet, owned_fields};
/// use serde_json::json;
///
/// let object = json!({"spec": {"replicas": 3, "paused": false,
///     "containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}});
/// let set = FieldSet::from_json(&json!({"f:spec": {"f:replicas": {}, "f:containers": {
///     "k:{\"name\":\"b\"}": {".": {}, "f:name": {}}}}}))?;
/// assert_eq!(
///     owned_fields(&object, &set),
///     json!({"spec": {"replicas": 3, "containers": [{"name": "b"}]}})
/// );
/// # Ok::<(), kubegen_runtime::apply::FieldsError>(())
/// ```
pub fn owned_fields(value: &Value, set: &FieldSet) -> Value {
    let mut fields = Map::new();
    let mut items = Vec::new();
    for (element, below) in set.children() {
        match element {
            Element::Field(name) => {
                if let Some(found) = value.as_object().and_then(|o| o.get(name)) {
                    fields.insert(name.clone(), child(found, below));
                }
            }
            other => {
                if let Some(item) = Item::of(other) {
                    items.push((item, below));
                }
            }
        }
    }
    match value {
        Value::Object(_) => Value::Object(fields),
        Value::Array(list) => Value::Array(
            list.iter()
                .enumerate()
                .filter_map(|(index, element)| {
                    let (_, below) = items.iter().find(|(i, _)| i.matches(index, element))?;
                    Some(child(element, below))
                })
                .collect(),
        ),
        scalar => scalar.clone(),
    }
}

/// The owned part of one child: all of it when nothing is listed below it.
fn child(value: &Value, set: &FieldSet) -> Value {
    if set.children().next().is_none() {
        value.clone()
    } else {
        owned_fields(value, set)
    }
}

/// What a list-item element selects, read once per node.
enum Item {
    /// Items whose fields include these values.
    Key(Map<String, Value>),
    /// Items equal to this value.
    Value(Value),
    /// The item at this index.
    Index(usize),
}

impl Item {
    /// The selector of a list-item element (`None` for a field). The JSON of `k:` and
    /// `v:` elements was checked when the set was read.
    fn of(element: &Element) -> Option<Self> {
        match element {
            Element::Field(_) => None,
            Element::Key(json) => serde_json::from_str(json).ok().map(Item::Key),
            Element::Value(json) => serde_json::from_str(json).ok().map(Item::Value),
            Element::Index(i) => Some(Item::Index(*i)),
        }
    }

    fn matches(&self, index: usize, item: &Value) -> bool {
        match self {
            Item::Key(fields) => fields.iter().all(|(k, v)| item.get(k) == Some(v)),
            Item::Value(value) => item == value,
            Item::Index(i) => *i == index,
        }
    }
}
