//! Sets of field paths, as structured-merge-diff keeps them, and their `fieldsV1` JSON
//! form (the format of `metadata.managedFields[].fieldsV1`, `{"f:spec": {"f:replicas": {}}}`).
//!
//! A `fieldsV1` value is a JSON object whose keys name children of the node it describes:
//!
//! - `f:<name>`: the object field (or map key) `<name>`;
//! - `k:<json object>`: the item of an associative list whose key fields have these values;
//! - `v:<json value>`: the item of a set list equal to this value;
//! - `i:<index>`: the list item at this index (lists of unknown type);
//! - `.`: the node itself (its presence), as opposed to its children.
//!
//! An empty object under a key makes the child a member of the set (a leaf, or an atomic
//! list or map); a non-empty one lists the members below it, and `"."` among them makes
//! the child a member too.
//!
//! A [`FieldSet`] is the trie of those paths: each node is reached by an [`Element`] from
//! its parent and may itself be a member of the set. The client reads one to
//! [`extract`](super::extract) what a manager owns; the testkit's API server keeps one per
//! `managedFields` entry for server-side apply.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value};

/// Why a `fieldsV1` value could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
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
    /// A `k:`, `v:` or `i:` key does not hold valid JSON (a JSON object for `k:`) or a
    /// valid index.
    #[error("field set key `{key}` does not hold a valid value")]
    BadValue {
        /// The key.
        key: String,
    },
}

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Element {
    /// `f:<name>`: a field of a struct or a key of a map.
    Field(String),
    /// `k:<json>`: the item of an associative list (`x-kubernetes-list-type: map`) with
    /// these key fields, as compact JSON with sorted keys (see [`Element::key`]).
    Key(String),
    /// `v:<json>`: the item of a set list with this value, as compact JSON (see
    /// [`Element::value`]).
    Value(String),
    /// `i:<n>`: an item of a list by position (only for lists of unknown type).
    Index(usize),
}

impl Element {
    /// The element of the associative-list item whose key fields are `fields`.
    pub fn key(fields: &Map<String, Value>) -> Self {
        let mut names: Vec<&String> = fields.keys().collect();
        names.sort();
        let parts: Vec<String> = names
            .into_iter()
            .map(|name| format!("{}:{}", Value::String(name.clone()), fields[name]))
            .collect();
        Self::Key(format!("{{{}}}", parts.join(",")))
    }

    /// The element of the set-list item equal to `value`.
    pub fn value(value: &Value) -> Self {
        Self::Value(value.to_string())
    }

    /// Parses a `fieldsV1` key (`"."` is not an element). `k:` and `v:` keys are
    /// rewritten in the compact form [`Element::key`] and [`Element::value`] produce, so
    /// that equal items make equal elements however the JSON was spaced.
    pub fn parse(key: &str) -> Result<Self, FieldsError> {
        let bad = || FieldsError::BadValue {
            key: key.to_owned(),
        };
        let (kind, rest) = key
            .split_at_checked(2)
            .ok_or_else(|| FieldsError::UnknownKey {
                key: key.to_owned(),
            })?;
        match kind {
            "f:" => Ok(Self::Field(rest.to_owned())),
            "k:" => match serde_json::from_str(rest) {
                Ok(Value::Object(fields)) => Ok(Self::key(&fields)),
                _ => Err(bad()),
            },
            "v:" => serde_json::from_str(rest)
                .map(|value| Self::value(&value))
                .map_err(|_| bad()),
            "i:" => rest.parse().map(Self::Index).map_err(|_| bad()),
            _ => Err(FieldsError::UnknownKey {
                key: key.to_owned(),
            }),
        }
    }

    /// The `fieldsV1` key of this element.
    pub fn to_key(&self) -> String {
        match self {
            Self::Field(name) => format!("f:{name}"),
            Self::Key(json) => format!("k:{json}"),
            Self::Value(json) => format!("v:{json}"),
            Self::Index(i) => format!("i:{i}"),
        }
    }
}

/// Writes the element as apimachinery's `fieldpath.Path.String()` does: `.name`,
/// `[name="x",port=80]`, `[="value"]`, `[0]`.
impl fmt::Display for Element {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Field(name) => write!(f, ".{name}"),
            Self::Key(json) => {
                let keys: Map<String, Value> = serde_json::from_str(json).unwrap_or_default();
                let parts: Vec<String> = keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
                write!(f, "[{}]", parts.join(","))
            }
            Self::Value(json) => write!(f, "[={json}]"),
            Self::Index(i) => write!(f, "[{i}]"),
        }
    }
}

/// A path from the root of an object.
pub type Path = Vec<Element>;

/// Formats a path as apimachinery does (`.spec.replicas`).
pub fn path_string(path: &[Element]) -> String {
    path.iter().map(ToString::to_string).collect()
}

/// A set of field paths (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSet {
    /// Whether the path leading to this node is itself in the set.
    member: bool,
    children: BTreeMap<Element, FieldSet>,
}

impl FieldSet {
    /// The empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The set holding the one-element path `element`.
    pub fn leaf(element: Element) -> Self {
        let mut out = Self::new();
        out.insert(&[element]);
        out
    }

    /// Whether the set holds no path.
    pub fn is_empty(&self) -> bool {
        !self.member && self.children.values().all(Self::is_empty)
    }

    /// Adds `path` (the empty path is ignored: the root is never a member).
    pub fn insert(&mut self, path: &[Element]) {
        let Some((first, rest)) = path.split_first() else {
            return;
        };
        let child = self.children.entry(first.clone()).or_default();
        if rest.is_empty() {
            child.member = true;
        } else {
            child.insert(rest);
        }
    }

    /// Whether `path` is in the set (`&[]`: whether this node is a member).
    pub fn has(&self, path: &[Element]) -> bool {
        match path.split_first() {
            None => self.member,
            Some((first, rest)) => self.children.get(first).is_some_and(|c| c.has(rest)),
        }
    }

    /// The node below `element`, if any path goes through it.
    pub fn child(&self, element: &Element) -> Option<&FieldSet> {
        self.children.get(element)
    }

    /// The nodes below this one, in order.
    pub fn children(&self) -> impl Iterator<Item = (&Element, &FieldSet)> {
        self.children.iter()
    }

    /// The paths in either set.
    pub fn union(&self, other: &Self) -> Self {
        let mut out = self.clone();
        out.member |= other.member;
        for (element, child) in &other.children {
            let merged = match out.children.get(element) {
                Some(mine) => mine.union(child),
                None => child.clone(),
            };
            out.children.insert(element.clone(), merged);
        }
        out
    }

    /// The paths of `self` that are not in `other`.
    pub fn difference(&self, other: &Self) -> Self {
        self.minus(other, false)
    }

    /// The paths in both sets.
    pub fn intersection(&self, other: &Self) -> Self {
        let mut out = Self {
            member: self.member && other.member,
            children: BTreeMap::new(),
        };
        for (element, child) in &self.children {
            if let Some(theirs) = other.children.get(element) {
                let common = child.intersection(theirs);
                if !common.is_empty() {
                    out.children.insert(element.clone(), common);
                }
            }
        }
        out
    }

    /// The paths of `self` that neither are in `other` nor lie below a path of `other`.
    pub fn recursive_difference(&self, other: &Self) -> Self {
        self.minus(other, true)
    }

    /// [`difference`](Self::difference), or with `recursive` the
    /// [`recursive_difference`](Self::recursive_difference).
    fn minus(&self, other: &Self, recursive: bool) -> Self {
        let mut out = Self {
            member: self.member && !other.member,
            children: BTreeMap::new(),
        };
        for (element, child) in &self.children {
            let rest = match other.children.get(element) {
                Some(theirs) if recursive && theirs.member => continue,
                Some(theirs) => child.minus(theirs, recursive),
                None => child.clone(),
            };
            if !rest.is_empty() {
                out.children.insert(element.clone(), rest);
            }
        }
        out
    }

    /// The paths of `self` below the first element `element` (the subtree there,
    /// rooted again): used to keep only what lies under `status`.
    pub fn only_under(&self, element: &Element) -> Self {
        let mut out = Self::new();
        if let Some(child) = self.children.get(element) {
            out.children.insert(element.clone(), child.clone());
        }
        out
    }

    /// Every path in the set, in order.
    pub fn paths(&self) -> Vec<Path> {
        let mut out = Vec::new();
        self.collect(&mut Vec::new(), &mut out);
        out
    }

    fn collect(&self, prefix: &mut Path, out: &mut Vec<Path>) {
        for (element, child) in &self.children {
            prefix.push(element.clone());
            if child.member {
                out.push(prefix.clone());
            }
            child.collect(prefix, out);
            prefix.pop();
        }
    }

    /// The `fieldsV1` JSON form.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        if self.member && !self.children.is_empty() {
            map.insert(".".to_owned(), Value::Object(Map::new()));
        }
        for (element, child) in &self.children {
            if !child.is_empty() {
                map.insert(element.to_key(), child.to_json());
            }
        }
        Value::Object(map)
    }

    /// Reads the `fieldsV1` JSON form.
    pub fn from_json(value: &Value) -> Result<Self, FieldsError> {
        let mut set = Self::new();
        set.read(value, "")?;
        Ok(set)
    }

    fn read(&mut self, value: &Value, at: &str) -> Result<(), FieldsError> {
        let Value::Object(map) = value else {
            return Err(FieldsError::NotAnObject { key: at.to_owned() });
        };
        for (key, child) in map {
            if key == "." {
                self.member = true;
                continue;
            }
            let node = self.children.entry(Element::parse(key)?).or_default();
            // A node without children is a leaf, hence a member.
            if child.as_object().is_some_and(Map::is_empty) {
                node.member = true;
            }
            node.read(child, key)?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn f(name: &str) -> Element {
        Element::Field(name.to_owned())
    }

    fn set(paths: &[&[Element]]) -> FieldSet {
        let mut out = FieldSet::new();
        for path in paths {
            out.insert(path);
        }
        out
    }

    #[test]
    fn fields_v1_round_trips_with_members_that_have_children() {
        let json = json!({
            "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {".": {}, "f:image": {}}}},
            "f:finalizers": {"v:\"a/b\"": {}},
            "f:args": {"i:2": {}},
        });
        let parsed = FieldSet::from_json(&json).unwrap();
        assert!(parsed.has(&[f("metadata"), f("labels")]));
        assert!(parsed.has(&[f("metadata"), f("labels"), f("app")]));
        assert!(
            !parsed.has(&[f("metadata")]),
            "structs on the way are not members"
        );
        let key = Element::Key(r#"{"name":"web"}"#.to_owned());
        assert!(parsed.has(&[f("spec"), f("containers"), key.clone()]));
        assert!(parsed.has(&[f("args"), Element::Index(2)]));
        assert_eq!(parsed.to_json(), json);
        assert_eq!(
            path_string(&[f("spec"), f("containers"), key, f("image")]),
            r#".spec.containers[name="web"].image"#
        );
    }

    #[test]
    fn list_item_keys_are_read_in_one_compact_form() {
        let spaced = FieldSet::from_json(&json!({
            "k:{ \"protocol\": \"TCP\", \"port\": 80 }": {},
            "v:[ 1, 2 ]": {},
        }))
        .unwrap();
        let key = Element::key(json!({"port": 80, "protocol": "TCP"}).as_object().unwrap());
        assert_eq!(
            key,
            Element::Key(r#"{"port":80,"protocol":"TCP"}"#.to_owned())
        );
        assert!(spaced.has(&[key]));
        assert!(spaced.has(&[Element::value(&json!([1, 2]))]));
        assert_eq!(
            spaced.to_json(),
            json!({"k:{\"port\":80,\"protocol\":\"TCP\"}": {}, "v:[1,2]": {}})
        );
    }

    #[test]
    fn malformed_field_sets_name_the_key() {
        let error = |json: Value| FieldSet::from_json(&json).unwrap_err();
        let key = |k: &str| k.to_owned();
        assert_eq!(
            error(json!({"x": {}})),
            FieldsError::UnknownKey { key: key("x") }
        );
        assert_eq!(
            error(json!({"q:x": {}})),
            FieldsError::UnknownKey { key: key("q:x") }
        );
        assert_eq!(
            error(json!({"f:a": 1})),
            FieldsError::NotAnObject { key: key("f:a") }
        );
        assert_eq!(error(json!([])), FieldsError::NotAnObject { key: key("") });
        for bad in ["k:{not json", "k:[1]", "v:{", "i:x", "i:-1"] {
            assert_eq!(
                error(json!({"f:a": {bad: {}}})),
                FieldsError::BadValue { key: key(bad) }
            );
        }
    }

    #[test]
    fn set_algebra() {
        let a = set(&[&[f("a"), f("x")], &[f("a"), f("y")], &[f("b")]]);
        let b = set(&[&[f("a"), f("y")], &[f("c")]]);
        assert_eq!(
            a.union(&b),
            set(&[&[f("a"), f("x")], &[f("a"), f("y")], &[f("b")], &[f("c")]])
        );
        assert_eq!(a.difference(&b), set(&[&[f("a"), f("x")], &[f("b")]]));
        assert_eq!(a.intersection(&b), set(&[&[f("a"), f("y")]]));
        assert!(a.difference(&a).is_empty());
        assert_eq!(a.difference(&a).to_json(), json!({}));
        // Recursive difference drops everything below a member of the other set.
        let status = set(&[&[f("a")]]);
        assert_eq!(a.recursive_difference(&status), set(&[&[f("b")]]));
        assert_eq!(
            a.only_under(&f("a")),
            set(&[&[f("a"), f("x")], &[f("a"), f("y")]])
        );
        assert_eq!(
            a.paths(),
            vec![vec![f("a"), f("x")], vec![f("a"), f("y")], vec![f("b")]]
        );
        let below_a: Vec<&Element> = a
            .child(&f("a"))
            .unwrap()
            .children()
            .map(|(e, _)| e)
            .collect();
        assert_eq!(below_a, [&f("x"), &f("y")]);
    }
}
