//! Strategic merge patch (`application/strategic-merge-patch+json`) for built-in kinds,
//! as the API server applies it: JSON merge patch, except that lists whose field has the
//! `merge` patch strategy are merged (objects by their merge key, scalars as sets), and
//! the directives kubectl sends are honoured:
//!
//! - `$patch: replace` (a map or list is replaced, not merged), `$patch: delete` (a map
//!   is cleared; in a merged list, the item with that merge key is removed);
//!   `$patch: merge` is refused, as apimachinery refuses it (it is a struct-tag strategy,
//!   not a directive);
//! - `$deleteFromPrimitiveList/<field>: [...]` removes scalars from a merged list;
//! - `$setElementOrder/<field>: [...]` orders a list (items by merge key, or scalars);
//! - `$retainKeys: [...]` clears the map's keys missing from the list.
//!
//! Strategies and merge keys come from the generated tables in [`crate::builtin`]. Where
//! apimachinery would store a directive found under a new key verbatim, this applies the
//! value to nothing instead, so stored objects never hold `$` keys.

use serde_json::{Map, Value};

use crate::builtin::{self, Strategy, TypeFields};

/// Why a strategic merge patch could not be applied; each maps to the HTTP answer a real
/// server gives ([`Error::code`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Error {
    /// The patch is not a JSON object.
    #[error("invalid JSON document")]
    NotAnObject,
    /// A `$patch` directive with a value this place does not accept.
    #[error("Unknown patch type: {0} in map: {1}")]
    BadPatchType(String, String),
    /// `$patch: merge` in a list.
    #[error("merging lists cannot yet be specified in the patch")]
    MergeDirectiveInList,
    /// A list item lacks the list's merge key.
    #[error("map: {0} does not contain declared merge key: {1}")]
    NoMergeKey(String, String),
    /// A merged list of objects has no merge key in the schema.
    #[error("cannot merge lists without merge key for {0}")]
    NoMergeKeyInSchema(String),
    /// A `$deleteFromPrimitiveList` value is not a list, or holds objects.
    #[error("invalid patch format for primitive list: {0}")]
    BadPrimitiveList(String),
    /// A `$setElementOrder` value is not a list, or disagrees with the patch list.
    #[error("invalid patch format for $setElementOrder list: {0}")]
    BadSetElementOrder(String),
    /// A `$retainKeys` value is not a list of strings.
    #[error("invalid patch format for retainKeys: {0}")]
    BadRetainKeys(String),
    /// The patch sets a key that its `$retainKeys` list does not keep.
    #[error("RetainKeys does not contain the key {0:?} set in the patch")]
    RetainKeysMismatch(String),
    /// Lists of lists cannot be merged.
    #[error("lists of lists are not supported")]
    ListOfLists,
    /// Items of one list have different types.
    #[error("list element types are not identical: {0}")]
    MixedList(String),
}

impl Error {
    /// The HTTP status a real server answers with (apimachinery's mapping: format errors
    /// are 400, unmergeable content 422, everything else 500).
    pub(crate) fn code(&self) -> u16 {
        match self {
            Self::NotAnObject
            | Self::BadPrimitiveList(_)
            | Self::BadSetElementOrder(_)
            | Self::BadRetainKeys(_) => 400,
            Self::ListOfLists | Self::RetainKeysMismatch(_) => 422,
            _ => 500,
        }
    }
}

type Result<T, E = Error> = std::result::Result<T, E>;

const DIRECTIVE: &str = "$patch";
const RETAIN_KEYS: &str = "$retainKeys";
const DELETE_FROM: &str = "$deleteFromPrimitiveList/";
const SET_ORDER: &str = "$setElementOrder/";

/// The schema of one value: the special fields of its definition, if any.
pub(crate) type Schema = Option<&'static TypeFields>;
type Ty = Schema;

/// The root definition of a served built-in kind (None for custom resources and for
/// kinds whose fields strategic merge patch does not distinguish).
pub(crate) fn root(group: &str, version: &str, kind: &str) -> Ty {
    builtin::definition(group, version, kind).and_then(builtin::type_fields)
}

/// Applies `patch` to `target` (an object of the type `ty`).
pub(crate) fn apply(target: &mut Value, patch: &Value, ty: Ty) -> Result<()> {
    let Value::Object(patch) = patch else {
        return Err(Error::NotAnObject);
    };
    let original = match std::mem::take(target) {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    *target = Value::Object(merge_map(original, patch.clone(), ty)?);
    Ok(())
}

/// What the schema says about one field of a value of type `ty`.
#[derive(Debug, Clone, Copy, Default)]
struct FieldMeta {
    ty: Ty,
    strategy: Option<Strategy>,
    merge_key: Option<&'static str>,
}

fn meta(ty: Ty, field: &str) -> FieldMeta {
    match ty.and_then(|t| t.field(field)) {
        Some(f) => FieldMeta {
            ty: f.ty.and_then(builtin::type_fields),
            strategy: f.strategy,
            merge_key: f.merge_key,
        },
        None => FieldMeta::default(),
    }
}

fn merges_lists(field: FieldMeta) -> bool {
    field.strategy.is_some_and(Strategy::merges_lists)
}

/// A patch value set where nothing was: directives inside it are applied to nothing.
fn fresh(value: Value, field: FieldMeta) -> Result<Value> {
    Ok(match value {
        Value::Object(patch) => Value::Object(merge_map(Map::new(), patch, field.ty)?),
        Value::Array(items) => Value::Array(merge_list(Vec::new(), items, field)?),
        other => other,
    })
}

fn merge_map(
    mut original: Map<String, Value>,
    mut patch: Map<String, Value>,
    ty: Ty,
) -> Result<Map<String, Value>> {
    if let Some(directive) = patch.remove(DIRECTIVE) {
        return match directive.as_str() {
            Some("replace") => merge_map(Map::new(), patch, ty),
            Some("delete") => Ok(Map::new()),
            _ => Err(Error::BadPatchType(
                directive.to_string(),
                Value::Object(patch).to_string(),
            )),
        };
    }
    if let Some(retain) = patch.remove(RETAIN_KEYS) {
        retain_keys(&mut original, &patch, &retain)?;
    }
    let ordered: Vec<String> = patch
        .keys()
        .filter(|k| k.starts_with(SET_ORDER))
        .cloned()
        .collect();
    for key in ordered {
        let order = patch.remove(&key).unwrap_or_default();
        let field = &key[SET_ORDER.len()..];
        let patch_list = patch.remove(field);
        if let Some(list) = set_element_order(&original, field, patch_list, order, ty)? {
            original.insert(field.to_owned(), list);
        }
    }
    let mut deletions = Vec::new();
    for (key, value) in patch {
        if let Some(field) = key.strip_prefix(DELETE_FROM) {
            deletions.push((field.to_owned(), value));
            continue;
        }
        if key.starts_with('$') {
            // An unknown directive: a real server's typed decoding drops it too.
            continue;
        }
        if value.is_null() {
            original.remove(&key);
            continue;
        }
        let field = meta(ty, &key);
        let merged = match (original.remove(&key), value) {
            (None, value) => fresh(value, field)?,
            (Some(Value::Object(current)), Value::Object(patch)) => {
                if field.strategy == Some(Strategy::Replace) {
                    Value::Object(merge_map(Map::new(), patch, field.ty)?)
                } else {
                    Value::Object(merge_map(current, patch, field.ty)?)
                }
            }
            (Some(Value::Array(current)), Value::Array(patch)) => {
                Value::Array(list_field(current, patch, field)?)
            }
            (Some(_), value) => fresh(value, field)?,
        };
        original.insert(key, merged);
    }
    for (field, values) in deletions {
        delete_from_primitive_list(&mut original, &field, values)?;
    }
    Ok(original)
}

fn retain_keys(
    original: &mut Map<String, Value>,
    patch: &Map<String, Value>,
    retain: &Value,
) -> Result<()> {
    let keys: Vec<&str> = retain
        .as_array()
        .ok_or_else(|| Error::BadRetainKeys(retain.to_string()))?
        .iter()
        .map(|k| {
            k.as_str()
                .ok_or_else(|| Error::BadRetainKeys(retain.to_string()))
        })
        .collect::<Result<_>>()?;
    for (key, value) in patch {
        let directive =
            key.starts_with(DELETE_FROM) || key.starts_with(SET_ORDER) || key == DIRECTIVE;
        if !value.is_null() && !directive && !keys.contains(&key.as_str()) {
            return Err(Error::RetainKeysMismatch(key.clone()));
        }
    }
    original.retain(|key, _| keys.contains(&key.as_str()));
    Ok(())
}

fn delete_from_primitive_list(
    original: &mut Map<String, Value>,
    field: &str,
    values: Value,
) -> Result<()> {
    let Value::Array(values) = values else {
        return Err(Error::BadPrimitiveList(values.to_string()));
    };
    if values.iter().any(|v| v.is_object() || v.is_array()) {
        return Err(Error::BadPrimitiveList(Value::Array(values).to_string()));
    }
    if let Some(Value::Array(current)) = original.get_mut(field) {
        current.retain(|item| !values.iter().any(|v| same(v, item)));
    }
    Ok(())
}

/// A list field of the patch merged into the current list by the field's strategy.
fn list_field(current: Vec<Value>, patch: Vec<Value>, field: FieldMeta) -> Result<Vec<Value>> {
    if merges_lists(field) {
        merge_list(current, patch, field)
    } else {
        replaced_list(patch, field)
    }
}

fn replaced_list(patch: Vec<Value>, field: FieldMeta) -> Result<Vec<Value>> {
    patch
        .into_iter()
        .map(|item| match item {
            Value::Object(map) => Ok(Value::Object(merge_map(Map::new(), map, field.ty)?)),
            other => Ok(other),
        })
        .collect()
}

/// Scalars compare as Go compares decoded JSON: every number is a float64.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// The identity of a list item: its merge key value for objects, itself for scalars.
fn identity<'v>(item: &'v Value, merge_key: Option<&str>) -> Option<&'v Value> {
    match (item, merge_key) {
        (Value::Object(map), Some(key)) => map.get(key),
        (Value::Object(_), None) => None,
        (scalar, _) => Some(scalar),
    }
}

fn position(list: &[Value], item: &Value, merge_key: Option<&str>) -> Option<usize> {
    let wanted = identity(item, merge_key)?;
    list.iter()
        .position(|candidate| identity(candidate, merge_key).is_some_and(|id| same(id, wanted)))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ElementKind {
    Object,
    Scalar(u8),
}

/// The kind shared by every item of the lists; errors on lists of lists and mixtures.
fn element_kind(lists: &[&[Value]]) -> Result<Option<ElementKind>> {
    let mut kind = None;
    for item in lists.iter().flat_map(|l| l.iter()) {
        let this = match item {
            Value::Array(_) => return Err(Error::ListOfLists),
            Value::Object(_) => ElementKind::Object,
            Value::String(_) => ElementKind::Scalar(0),
            Value::Number(_) => ElementKind::Scalar(1),
            Value::Bool(_) => ElementKind::Scalar(2),
            Value::Null => ElementKind::Scalar(3),
        };
        match kind {
            None => kind = Some(this),
            Some(previous) if previous != this => {
                let all: Vec<&Value> = lists.iter().flat_map(|l| l.iter()).collect();
                return Err(Error::MixedList(
                    serde_json::to_string(&all).unwrap_or_default(),
                ));
            }
            Some(_) => {}
        }
    }
    Ok(kind)
}

fn require_key<'v>(item: &'v Map<String, Value>, key: &str) -> Result<&'v Value> {
    item.get(key)
        .ok_or_else(|| Error::NoMergeKey(Value::Object(item.clone()).to_string(), key.to_owned()))
}

/// Merges a list with the `merge` strategy.
fn merge_list(mut original: Vec<Value>, patch: Vec<Value>, field: FieldMeta) -> Result<Vec<Value>> {
    if original.is_empty() && patch.is_empty() {
        return Ok(original);
    }
    let kind = element_kind(&[&original, &patch])?;
    if kind != Some(ElementKind::Object) {
        let mut merged: Vec<Value> = Vec::with_capacity(original.len() + patch.len());
        for item in original.iter().chain(&patch) {
            if !merged.iter().any(|m| same(m, item)) {
                merged.push(item.clone());
            }
        }
        return Ok(order_by(merged, &patch, &original, None));
    }
    let key = field.merge_key.ok_or_else(|| {
        Error::NoMergeKeyInSchema(field.ty.map_or("a list of objects", |t| t.name).to_owned())
    })?;
    // Directives first: `$patch: delete` items remove, `$patch: replace` replaces.
    let mut plain = Vec::with_capacity(patch.len());
    let mut replace = false;
    for item in patch {
        let Value::Object(map) = item else {
            return Err(Error::MixedList(item.to_string()));
        };
        match map.get(DIRECTIVE).map(|d| d.as_str()) {
            None => plain.push(map),
            Some(Some("delete")) => {
                let id = require_key(&map, key)?.clone();
                original.retain(|o| identity(o, Some(key)).is_none_or(|v| !same(v, &id)));
            }
            Some(Some("replace")) => replace = true,
            Some(Some("merge")) => return Err(Error::MergeDirectiveInList),
            Some(_) => {
                return Err(Error::BadPatchType(
                    map[DIRECTIVE].to_string(),
                    Value::Object(map.clone()).to_string(),
                ));
            }
        }
    }
    if replace {
        return plain
            .into_iter()
            .map(|map| Ok(Value::Object(merge_map(Map::new(), map, field.ty)?)))
            .collect();
    }
    let mut merged = original.clone();
    let mut order = Vec::with_capacity(plain.len());
    for map in plain {
        let id = require_key(&map, key)?.clone();
        order.push(Value::Object(Map::from_iter([(
            key.to_owned(),
            id.clone(),
        )])));
        let existing = merged
            .iter()
            .position(|o| identity(o, Some(key)).is_some_and(|v| same(v, &id)));
        match existing {
            Some(i) => {
                let current = match std::mem::take(&mut merged[i]) {
                    Value::Object(current) => current,
                    _ => Map::new(),
                };
                merged[i] = Value::Object(merge_map(current, map, field.ty)?);
            }
            None => merged.push(Value::Object(merge_map(Map::new(), map, field.ty)?)),
        }
    }
    Ok(order_by(merged, &order, &original, Some(key)))
}

/// Orders a merged list as apimachinery does: the items named in `wanted` in that order,
/// the others (server-only items) in their `server` order, interleaved so that a
/// server-only item stays before a wanted item it preceded on the server.
fn order_by(
    merged: Vec<Value>,
    wanted: &[Value],
    server: &[Value],
    merge_key: Option<&str>,
) -> Vec<Value> {
    let (mut chosen, mut server_only): (Vec<Value>, Vec<Value>) = merged
        .into_iter()
        .partition(|item| position(wanted, item, merge_key).is_some());
    chosen.sort_by_key(|item| position(wanted, item, merge_key));
    server_only.sort_by_key(|item| position(server, item, merge_key));
    let mut result = Vec::with_capacity(chosen.len() + server_only.len());
    let mut left = server_only.into_iter().peekable();
    let mut right = chosen.into_iter().peekable();
    loop {
        let take_left = match (left.peek(), right.peek()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(l), Some(r)) => {
                match (
                    position(server, l, merge_key),
                    position(server, r, merge_key),
                ) {
                    (Some(li), Some(ri)) => li < ri,
                    _ => false,
                }
            }
        };
        let next = if take_left { left.next() } else { right.next() };
        result.extend(next);
    }
    result
}

/// Applies `$setElementOrder/<field>`: merges the field's patch list (if any) and orders
/// the result; returns the new list (None when the field is in neither object).
fn set_element_order(
    original: &Map<String, Value>,
    field: &str,
    patch_list: Option<Value>,
    order: Value,
    ty: Ty,
) -> Result<Option<Value>> {
    if field.is_empty() {
        return Err(Error::BadSetElementOrder(order.to_string()));
    }
    let Value::Array(order) = order else {
        return Err(Error::BadSetElementOrder(order.to_string()));
    };
    let meta = meta(ty, field);
    let current = match original.get(field) {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) => Some(items.clone()),
        Some(other) => return Err(Error::BadSetElementOrder(other.to_string())),
    };
    let patch_list = match patch_list {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) => Some(items),
        Some(other) => return Err(Error::BadSetElementOrder(other.to_string())),
    };
    let key =
        match element_kind(&[&order])? {
            Some(ElementKind::Object) => Some(meta.merge_key.ok_or_else(|| {
                Error::BadSetElementOrder(Value::Array(order.clone()).to_string())
            })?),
            _ => None,
        };
    if let Some(list) = &patch_list {
        check_order(list, &order, key)?;
    }
    let server = current.clone().unwrap_or_default();
    let merged = match (current, patch_list) {
        (None, None) => return Ok(None),
        (Some(current), None) => current,
        (None, Some(patch)) => fresh_list(patch, meta)?,
        (Some(current), Some(patch)) => list_field(current, patch, meta)?,
    };
    if let Some(key) = key {
        for item in &merged {
            if let Value::Object(map) = item {
                require_key(map, key)?;
            }
        }
    }
    Ok(Some(Value::Array(order_by(merged, &order, &server, key))))
}

fn fresh_list(patch: Vec<Value>, field: FieldMeta) -> Result<Vec<Value>> {
    if merges_lists(field) {
        merge_list(Vec::new(), patch, field)
    } else {
        replaced_list(patch, field)
    }
}

/// The patch list's items (directives aside) must appear in the order list, in order.
fn check_order(patch: &[Value], order: &[Value], key: Option<&str>) -> Result<()> {
    let mut next = 0;
    for item in patch {
        if item.get(DIRECTIVE).is_some() {
            continue;
        }
        match order[next..]
            .iter()
            .position(|o| match (identity(o, key), identity(item, key)) {
                (Some(a), Some(b)) => same(a, b),
                _ => false,
            }) {
            Some(offset) => next += offset + 1,
            None => {
                return Err(Error::BadSetElementOrder(format!(
                    "the order in patch list {} doesn't match $setElementOrder list {}",
                    Value::Array(patch.to_vec()),
                    Value::Array(order.to_vec())
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
