//! Sets of field paths, as structured-merge-diff keeps them, and their `FieldsV1` JSON
//! form (`{"f:spec": {"f:replicas": {}}}`).
//!
//! A set is a trie: each node is reached by a [`Element`] from its parent and may itself
//! be a member of the set (a leaf, or `"."` in JSON when it also has children).

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value};

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Element {
    /// `f:<name>`: a field of a struct or a key of a map.
    Field(String),
    /// `k:<json>`: the item of an associative list (`x-kubernetes-list-type: map`) with
    /// these key fields, as compact JSON with sorted keys.
    Key(String),
    /// `v:<json>`: the item of a set list with this value, as compact JSON.
    Value(String),
    /// `i:<n>`: an item of a list by position (only for lists of unknown type).
    Index(usize),
}

impl Element {
    /// The `FieldsV1` key of this element.
    fn to_key(&self) -> String {
        match self {
            Self::Field(name) => format!("f:{name}"),
            Self::Key(json) => format!("k:{json}"),
            Self::Value(json) => format!("v:{json}"),
            Self::Index(i) => format!("i:{i}"),
        }
    }

    /// Parses a `FieldsV1` key (`"."` is not an element).
    fn from_key(key: &str) -> Option<Self> {
        let (kind, rest) = key.split_at_checked(2)?;
        match kind {
            "f:" => Some(Self::Field(rest.to_owned())),
            "k:" => Some(Self::Key(rest.to_owned())),
            "v:" => Some(Self::Value(rest.to_owned())),
            "i:" => rest.parse().ok().map(Self::Index),
            _ => None,
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
pub(crate) type Path = Vec<Element>;

/// Formats a path as apimachinery does (`.spec.replicas`).
pub(crate) fn path_string(path: &[Element]) -> String {
    path.iter().map(ToString::to_string).collect()
}

/// Why a `FieldsV1` value could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Error {
    /// A node of the trie is not a JSON object.
    #[error("FieldsV1 node at {0:?} is not an object")]
    NotAnObject(String),
    /// A key is neither `"."` nor a `f:`, `k:`, `v:` or `i:` element.
    #[error("unknown FieldsV1 key {0:?}")]
    BadKey(String),
}

/// A set of field paths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FieldSet {
    /// Whether the path leading to this node is itself in the set.
    member: bool,
    children: BTreeMap<Element, FieldSet>,
}

impl FieldSet {
    /// The empty set.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// The set holding the one-element path `element`.
    pub(crate) fn leaf(element: Element) -> Self {
        let mut out = Self::new();
        out.insert(&[element]);
        out
    }

    /// Whether the set holds no path.
    pub(crate) fn is_empty(&self) -> bool {
        !self.member && self.children.values().all(Self::is_empty)
    }

    /// Adds `path` (the empty path is ignored: the root is never a member).
    pub(crate) fn insert(&mut self, path: &[Element]) {
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

    /// Whether `path` is in the set.
    pub(crate) fn has(&self, path: &[Element]) -> bool {
        match path.split_first() {
            None => self.member,
            Some((first, rest)) => self.children.get(first).is_some_and(|c| c.has(rest)),
        }
    }

    /// The node at `path`, if any path goes through it.
    pub(crate) fn child(&self, element: &Element) -> Option<&FieldSet> {
        self.children.get(element)
    }

    /// The paths in either set.
    pub(crate) fn union(&self, other: &Self) -> Self {
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
    pub(crate) fn difference(&self, other: &Self) -> Self {
        let mut out = Self {
            member: self.member && !other.member,
            children: BTreeMap::new(),
        };
        for (element, child) in &self.children {
            let rest = match other.children.get(element) {
                Some(theirs) => child.difference(theirs),
                None => child.clone(),
            };
            if !rest.is_empty() {
                out.children.insert(element.clone(), rest);
            }
        }
        out
    }

    /// The paths in both sets.
    pub(crate) fn intersection(&self, other: &Self) -> Self {
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
    pub(crate) fn recursive_difference(&self, other: &Self) -> Self {
        let mut out = Self {
            member: self.member && !other.member,
            children: BTreeMap::new(),
        };
        for (element, child) in &self.children {
            let rest = match other.children.get(element) {
                Some(theirs) if theirs.member => continue,
                Some(theirs) => child.recursive_difference(theirs),
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
    pub(crate) fn only_under(&self, element: &Element) -> Self {
        let mut out = Self::new();
        if let Some(child) = self.children.get(element) {
            out.children.insert(element.clone(), child.clone());
        }
        out
    }

    /// Every path in the set, in order.
    pub(crate) fn paths(&self) -> Vec<Path> {
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

    /// The `FieldsV1` JSON form.
    pub(crate) fn to_json(&self) -> Value {
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

    /// Reads the `FieldsV1` JSON form.
    pub(crate) fn from_json(value: &Value) -> Result<Self, Error> {
        let mut set = Self::new();
        set.read(value, "")?;
        Ok(set)
    }

    fn read(&mut self, value: &Value, at: &str) -> Result<(), Error> {
        let Value::Object(map) = value else {
            return Err(Error::NotAnObject(at.to_owned()));
        };
        for (key, child) in map {
            if key == "." {
                self.member = true;
                continue;
            }
            let element = Element::from_key(key).ok_or_else(|| Error::BadKey(key.clone()))?;
            let node = self.children.entry(element).or_default();
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
        });
        let parsed = FieldSet::from_json(&json).expect("parse");
        assert!(parsed.has(&[f("metadata"), f("labels")]));
        assert!(parsed.has(&[f("metadata"), f("labels"), f("app")]));
        assert!(
            !parsed.has(&[f("metadata")]),
            "structs on the way are not members"
        );
        let key = Element::Key(r#"{"name":"web"}"#.to_owned());
        assert!(parsed.has(&[f("spec"), f("containers"), key.clone()]));
        assert_eq!(parsed.to_json(), json);
        assert_eq!(
            path_string(&[f("spec"), f("containers"), key, f("image")]),
            r#".spec.containers[name="web"].image"#
        );
        assert_eq!(
            FieldSet::from_json(&json!({"x": {}})),
            Err(Error::BadKey("x".to_owned()))
        );
        assert!(FieldSet::from_json(&json!({"f:a": 1})).is_err());
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
    }
}
