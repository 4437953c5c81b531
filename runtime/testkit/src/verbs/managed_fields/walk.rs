//! The value algebra of server-side apply over a [`Type`]: the field set a value sets,
//! the comparison of two values, the merge of an applied configuration into a live
//! object, and the removal of fields.

use kubegen_runtime::apply::{Element, FieldSet, Path};
use serde_json::{Map, Value};

use super::types::{ListType, Shape, Type};

/// The field set `value` sets, as structured-merge-diff's `ToFieldSet`: scalars, atomic
/// values and list items are members; structs are not (only what they hold), map
/// entries are, and so are empty maps and nulls.
pub(crate) fn field_set(value: &Value, ty: Type<'_>) -> FieldSet {
    let mut out = FieldSet::new();
    collect(value, ty, &mut Vec::new(), &mut out);
    out
}

fn collect(value: &Value, ty: Type<'_>, path: &mut Path, out: &mut FieldSet) {
    match (ty.shape(value), value) {
        (Shape::Map { atomic: false }, Value::Object(map)) => {
            for (key, child) in map {
                path.push(Element::Field(key.clone()));
                collect(child, ty.field(key), path, out);
                let empty = child.is_null() || child.as_object().is_some_and(Map::is_empty);
                if empty || !ty.declares(key) {
                    out.insert(path);
                }
                path.pop();
            }
        }
        (Shape::List(list_type), Value::Array(items)) if list_type != ListType::Atomic => {
            for (index, item) in items.iter().enumerate() {
                path.push(item_element(&list_type, item, index));
                collect(item, ty.items(), path, out);
                out.insert(path);
                path.pop();
            }
        }
        _ => out.insert(path),
    }
}

/// The path element of a list item: its keys, its value, or (lacking keys) its index.
pub(crate) fn item_element(list_type: &ListType, item: &Value, index: usize) -> Element {
    match (list_type, item) {
        (ListType::Map(keys), Value::Object(fields)) if !keys.is_empty() => {
            let key_fields: Map<String, Value> = keys
                .iter()
                .filter_map(|k| Some((k.clone(), fields.get(k)?.clone())))
                .collect();
            Element::key(&key_fields)
        }
        (ListType::Set, _) => Element::value(item),
        _ => Element::Index(index),
    }
}

/// What changed from one value to another: structured-merge-diff's `Comparison`. A
/// value present on one side only is added or removed with everything below it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Comparison {
    /// Paths only in the new value.
    pub(crate) added: FieldSet,
    /// Leaves (and atomic values) whose value changed.
    pub(crate) modified: FieldSet,
    /// Paths only in the old value.
    pub(crate) removed: FieldSet,
}

/// Compares `old` with `new` (both of type `ty`).
pub(crate) fn compare(old: &Value, new: &Value, ty: Type<'_>) -> Comparison {
    let mut out = Comparison::default();
    compare_at(Some(old), Some(new), ty, &mut Vec::new(), &mut out);
    out
}

fn present(value: &Value) -> Option<&Value> {
    (!value.is_null()).then_some(value)
}

fn compare_at(
    old: Option<&Value>,
    new: Option<&Value>,
    ty: Type<'_>,
    path: &mut Path,
    out: &mut Comparison,
) {
    // A null is there without a value: Go's zero value holds nulls (`containers:
    // null`), and what is filled in there is new, but not the field itself.
    match (old, new) {
        (None, Some(v)) if !v.is_null() => out.added.insert(path),
        (Some(v), None) if !v.is_null() => out.removed.insert(path),
        _ => {}
    }
    let (old, new) = (old.and_then(present), new.and_then(present));
    let Some(either) = new.or(old) else {
        return;
    };
    let shape = ty.shape(either);
    let same_kind = |v: Option<&Value>| v.is_none_or(|v| ty.shape(v) == shape);
    if !same_kind(old) || !same_kind(new) {
        if let (Some(a), Some(b)) = (old, new) {
            debug_assert!(a != b);
            out.modified.insert(path);
        }
        return;
    }
    match shape {
        Shape::Map { atomic: false } => {
            let empty = Map::new();
            let old_map = old.and_then(Value::as_object).unwrap_or(&empty);
            let new_map = new.and_then(Value::as_object).unwrap_or(&empty);
            let keys: std::collections::BTreeSet<&String> =
                old_map.keys().chain(new_map.keys()).collect();
            for key in keys {
                path.push(Element::Field(key.clone()));
                compare_at(old_map.get(key), new_map.get(key), ty.field(key), path, out);
                path.pop();
            }
        }
        Shape::List(ref list_type) if *list_type != ListType::Atomic => {
            let old_items = keyed(list_type, old);
            let new_items = keyed(list_type, new);
            let mut elements: Vec<&Element> = old_items.iter().map(|(e, _)| e).collect();
            for (element, _) in &new_items {
                if !elements.contains(&element) {
                    elements.push(element);
                }
            }
            for element in elements {
                let (a, b) = (find(&old_items, element), find(&new_items, element));
                path.push(element.clone());
                compare_at(a, b, ty.items(), path, out);
                path.pop();
            }
        }
        _ => {
            if let (Some(a), Some(b)) = (old, new)
                && a != b
            {
                out.modified.insert(path);
            }
        }
    }
}

fn find<'v>(items: &[(Element, &'v Value)], element: &Element) -> Option<&'v Value> {
    items.iter().find(|(e, _)| e == element).map(|(_, v)| *v)
}

fn keyed<'v>(list_type: &ListType, value: Option<&'v Value>) -> Vec<(Element, &'v Value)> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .enumerate()
                .map(|(i, item)| (item_element(list_type, item, i), item))
                .collect()
        })
        .unwrap_or_default()
}

/// Merges an applied configuration into a live value: structs and granular maps key by
/// key, associative lists and sets item by item (live order kept, new items appended),
/// everything else replaced by the configuration.
pub(crate) fn merge(live: &Value, config: &Value, ty: Type<'_>) -> Value {
    let shape = ty.shape(config);
    if ty.shape(live) != shape {
        return config.clone();
    }
    match (shape, live, config) {
        (Shape::Map { atomic: false }, Value::Object(live_map), Value::Object(config_map)) => {
            let mut out = live_map.clone();
            for (key, value) in config_map {
                let merged = match live_map.get(key) {
                    Some(old) => merge(old, value, ty.field(key)),
                    None => value.clone(),
                };
                out.insert(key.clone(), merged);
            }
            Value::Object(out)
        }
        (Shape::List(list_type), Value::Array(live_items), Value::Array(config_items))
            if list_type != ListType::Atomic =>
        {
            let mut out = live_items.clone();
            let mut elements: Vec<Element> = live_items
                .iter()
                .enumerate()
                .map(|(i, item)| item_element(&list_type, item, i))
                .collect();
            for (i, item) in config_items.iter().enumerate() {
                let element = item_element(&list_type, item, i);
                match elements.iter().position(|e| *e == element) {
                    Some(at) => out[at] = merge(&out[at], item, ty.items()),
                    None => {
                        out.push(item.clone());
                        elements.push(element);
                    }
                }
            }
            Value::Array(out)
        }
        _ => config.clone(),
    }
}

/// Removes from `value` every member of `drop` unless `keep` holds a path at or below
/// it; maps and lists emptied by the removal go too.
pub(crate) fn remove(value: &mut Value, drop: &FieldSet, keep: &FieldSet, ty: Type<'_>) {
    let empty = FieldSet::new();
    match (ty.shape(value), value) {
        (Shape::Map { atomic: false }, Value::Object(map)) => {
            let keys: Vec<String> = map.keys().cloned().collect();
            for key in keys {
                let element = Element::Field(key.clone());
                let Some(below) = drop.child(&element) else {
                    continue;
                };
                let kept = keep.child(&element).unwrap_or(&empty);
                if below.has(&[]) && kept.is_empty() {
                    map.remove(&key);
                } else if let Some(child) = map.get_mut(&key) {
                    let child_type = ty.field(&key);
                    let was_empty = is_empty_container(child);
                    remove(child, below, kept, child_type);
                    // A map or list emptied here goes; a struct stays.
                    if !was_empty
                        && is_empty_container(child)
                        && kept.is_empty()
                        && !child_type.is_struct()
                    {
                        map.remove(&key);
                    }
                }
            }
        }
        (Shape::List(list_type), Value::Array(items)) if list_type != ListType::Atomic => {
            let old = std::mem::take(items);
            for (i, mut item) in old.into_iter().enumerate() {
                let element = item_element(&list_type, &item, i);
                match drop.child(&element) {
                    Some(below) => {
                        let kept = keep.child(&element).unwrap_or(&empty);
                        if below.has(&[]) && kept.is_empty() {
                            continue;
                        }
                        // The key fields of an item that stays stay with it.
                        let mut below = below.clone();
                        if let ListType::Map(keys) = &list_type {
                            for key in keys {
                                below =
                                    below.difference(&FieldSet::leaf(Element::Field(key.clone())));
                            }
                        }
                        remove(&mut item, &below, kept, ty.items());
                        items.push(item);
                    }
                    None => items.push(item),
                }
            }
        }
        _ => {}
    }
}

fn is_empty_container(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn deployment() -> Type<'static> {
        Type::built_in("apps", "v1", "Deployment")
    }

    fn fields(json: Value) -> FieldSet {
        FieldSet::from_json(&json).expect("fieldsV1")
    }

    #[test]
    fn field_sets_of_applied_configurations() {
        // The shape the server-side apply documentation shows for an applied
        // Deployment: leaves, list items with ".", no struct members.
        let config = json!({
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "replicas": 3,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {"spec": {"containers": [
                    {"name": "web", "image": "nginx", "ports": [{"containerPort": 80, "protocol": "TCP"}]},
                ]}},
            },
        });
        let expected = fields(json!({
            "f:metadata": {"f:labels": {"f:app": {}}},
            "f:spec": {
                "f:replicas": {},
                "f:selector": {},
                "f:template": {"f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {
                    ".": {}, "f:image": {}, "f:name": {},
                    "f:ports": {"k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {
                        ".": {}, "f:containerPort": {}, "f:protocol": {}
                    }},
                }}}},
            },
        }));
        assert_eq!(field_set(&config, deployment()), expected);
        // An empty map is owned as such; finalizers are a set.
        let config = json!({"metadata": {"annotations": {}, "finalizers": ["a/b"]}});
        assert_eq!(
            field_set(&config, deployment()),
            fields(json!({"f:metadata": {"f:annotations": {}, "f:finalizers": {"v:\"a/b\"": {}}}}))
        );
    }

    #[test]
    fn comparisons_add_whole_subtrees() {
        let old = json!({"metadata": {}, "spec": {"replicas": 1}});
        let new = json!({
            "metadata": {"labels": {"app": "web"}},
            "spec": {"replicas": 2, "strategy": {"rollingUpdate": {"maxSurge": 1}}},
        });
        let comparison = compare(&old, &new, deployment());
        assert_eq!(
            comparison.added,
            fields(json!({
                "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                "f:spec": {"f:strategy": {".": {}, "f:rollingUpdate": {".": {}, "f:maxSurge": {}}}},
            }))
        );
        assert_eq!(
            comparison.modified,
            fields(json!({"f:spec": {"f:replicas": {}}}))
        );
        assert!(comparison.removed.is_empty());
        // Filling a null of the zero value adds what is inside, not the field.
        let zero = json!({"spec": {"template": {"spec": {"containers": null}}}});
        let filled = json!({"spec": {"template": {"spec": {"containers": [{"name": "a"}]}}}});
        assert_eq!(
            compare(&zero, &filled, deployment()).added,
            fields(
                json!({"f:spec": {"f:template": {"f:spec": {"f:containers": {
                    "k:{\"name\":\"a\"}": {".": {}, "f:name": {}}
                }}}}})
            )
        );
        let back = compare(&new, &old, deployment());
        assert_eq!(back.removed, comparison.added);
        assert!(compare(&new, &new, deployment()) == Comparison::default());
    }

    #[test]
    fn merging_follows_list_types() {
        let live = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "a", "image": "one", "args": ["x"]},
            {"name": "b", "image": "two"},
        ]}}}});
        let config = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "c", "image": "three"},
            {"name": "a", "image": "uno", "args": ["y"]},
        ]}}}});
        let merged = merge(&live, &config, deployment());
        assert_eq!(
            merged["spec"]["template"]["spec"]["containers"],
            json!([
                {"name": "a", "image": "uno", "args": ["y"]},
                {"name": "b", "image": "two"},
                {"name": "c", "image": "three"},
            ])
        );
        // An atomic struct is replaced, not merged.
        let live = json!({"spec": {"selector": {"matchLabels": {"a": "1"}}}});
        let config = json!({"spec": {"selector": {"matchLabels": {"b": "2"}}}});
        assert_eq!(merge(&live, &config, deployment()), config);
    }

    #[test]
    fn removal_keeps_what_others_own() {
        let mut object = json!({
            "metadata": {"labels": {"a": "1", "b": "2"}},
            "spec": {"replicas": 3, "template": {"spec": {"containers": [
                {"name": "a", "image": "one"}, {"name": "b", "image": "two"},
            ]}}},
        });
        let drop = fields(json!({
            "f:metadata": {"f:labels": {"f:a": {}, "f:b": {}}},
            "f:spec": {"f:replicas": {}, "f:template": {"f:spec": {"f:containers": {
                "k:{\"name\":\"a\"}": {".": {}, "f:image": {}, "f:name": {}},
                "k:{\"name\":\"b\"}": {".": {}, "f:image": {}, "f:name": {}},
            }}}},
        }));
        let keep = fields(json!({
            "f:metadata": {"f:labels": {"f:b": {}}},
            "f:spec": {"f:template": {"f:spec": {"f:containers": {
                "k:{\"name\":\"b\"}": {"f:image": {}},
            }}}},
        }));
        remove(&mut object, &drop.difference(&keep), &keep, deployment());
        assert_eq!(
            object,
            json!({
                "metadata": {"labels": {"b": "2"}},
                "spec": {"template": {"spec": {"containers": [{"name": "b", "image": "two"}]}}},
            })
        );
        let mut object = json!({"metadata": {"labels": {"a": "1"}}, "data": {"x": "y"}});
        remove(
            &mut object,
            &fields(json!({"f:metadata": {"f:labels": {"f:a": {}}}})),
            &FieldSet::new(),
            Type::root(None),
        );
        assert_eq!(
            object,
            json!({"metadata": {}, "data": {"x": "y"}}),
            "emptied maps go"
        );
    }
}
