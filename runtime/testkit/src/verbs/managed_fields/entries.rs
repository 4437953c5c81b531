//! `metadata.managedFields` entries: read from and written to objects.

use kubegen_runtime::apply::FieldSet;
use serde_json::{Map, Value, json};

use super::Writer;
use crate::store::meta;

/// The operation an entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Operation {
    /// Server-side apply.
    Apply,
    /// Any other write.
    Update,
}

impl Operation {
    fn as_str(self) -> &'static str {
        match self {
            Self::Apply => "Apply",
            Self::Update => "Update",
        }
    }
}

/// One `managedFields` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The field manager.
    pub(crate) manager: String,
    /// Apply or Update.
    pub(crate) operation: Operation,
    /// The apiVersion the fields are of.
    pub(crate) api_version: String,
    /// When the set last grew or changed values (RFC 3339), if known.
    pub(crate) time: Option<String>,
    /// The subresource written through (empty for the main resource).
    pub(crate) subresource: String,
    /// The fields owned.
    pub(crate) fields: FieldSet,
}

impl Entry {
    /// A new, empty entry for `writer`.
    pub(crate) fn new(writer: &Writer, operation: Operation, api_version: &str) -> Self {
        Self {
            manager: writer.manager.clone(),
            operation,
            api_version: api_version.to_owned(),
            time: None,
            subresource: writer.subresource.clone(),
            fields: FieldSet::new(),
        }
    }

    /// Whether two entries are the same manager (name, operation and subresource).
    fn same_manager(&self, other: &Self) -> bool {
        self.manager == other.manager
            && self.operation == other.operation
            && self.subresource == other.subresource
    }

    /// The entry owning `fields`, stamped with the current time when they differ from
    /// what it owned (or it is new).
    pub(crate) fn with_fields(mut self, fields: FieldSet) -> Self {
        if self.time.is_none() || self.fields != fields {
            self.time = Some(meta::now_rfc3339());
        }
        self.fields = fields;
        self
    }

    /// The manager as conflict messages name it: `"name"`, with `with subresource "x"`
    /// and, for updates, `using <apiVersion>` (at the time).
    pub(crate) fn describe(&self) -> String {
        let mut out = format!("{:?}", self.manager);
        if !self.subresource.is_empty() {
            out.push_str(&format!(" with subresource {:?}", self.subresource));
        }
        if self.operation == Operation::Update {
            out.push_str(&format!(" using {}", self.api_version));
            if let Some(time) = &self.time {
                out.push_str(&format!(" at {time}"));
            }
        }
        out
    }

    fn to_json(&self) -> Value {
        let mut entry = json!({
            "manager": self.manager,
            "operation": self.operation.as_str(),
            "apiVersion": self.api_version,
            "fieldsType": "FieldsV1",
            "fieldsV1": self.fields.to_json(),
        });
        if let Some(time) = &self.time {
            entry["time"] = json!(time);
        }
        if !self.subresource.is_empty() {
            entry["subresource"] = json!(self.subresource);
        }
        entry
    }

    fn from_json(value: &Value) -> Option<Self> {
        let text = |key: &str| value.get(key).and_then(Value::as_str);
        let operation = match text("operation")? {
            "Apply" => Operation::Apply,
            "Update" => Operation::Update,
            _ => return None,
        };
        Some(Self {
            manager: text("manager").unwrap_or_default().to_owned(),
            operation,
            api_version: text("apiVersion").unwrap_or_default().to_owned(),
            time: text("time").map(str::to_owned),
            subresource: text("subresource").unwrap_or_default().to_owned(),
            fields: FieldSet::from_json(value.get("fieldsV1").unwrap_or(&json!({}))).ok()?,
        })
    }
}

/// The entries of an object (unreadable ones skipped).
pub(crate) fn decode(object: &Value) -> Vec<Entry> {
    object
        .pointer("/metadata/managedFields")
        .and_then(Value::as_array)
        .map(|entries| entries.iter().filter_map(Entry::from_json).collect())
        .unwrap_or_default()
}

/// Removes and returns the entry of the same manager as `like`.
pub(crate) fn take(entries: &mut Vec<Entry>, like: &Entry) -> Option<Entry> {
    let at = entries.iter().position(|e| e.same_manager(like))?;
    Some(entries.remove(at))
}

/// Writes `entries` (empty ones dropped) into `object`'s metadata, ordered as a real
/// server orders them: by operation, time, manager, apiVersion, subresource.
pub(crate) fn store(object: &mut Value, mut entries: Vec<Entry>) {
    entries.retain(|e| !e.fields.is_empty());
    entries.sort_by(|a, b| {
        (
            a.operation,
            &a.time,
            &a.manager,
            &a.api_version,
            &a.subresource,
        )
            .cmp(&(
                b.operation,
                &b.time,
                &b.manager,
                &b.api_version,
                &b.subresource,
            ))
    });
    if object.get("metadata").is_none_or(|m| !m.is_object()) {
        object["metadata"] = Value::Object(Map::new());
    }
    if let Some(metadata) = object["metadata"].as_object_mut() {
        if entries.is_empty() {
            metadata.remove("managedFields");
        } else {
            let encoded = entries.iter().map(Entry::to_json).collect();
            metadata.insert("managedFields".to_owned(), Value::Array(encoded));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_sort_like_a_real_server() {
        let object = json!({"metadata": {"managedFields": [
            {"manager": "b", "operation": "Update", "apiVersion": "v1", "time": "2026-01-01T00:00:01Z",
             "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:x": {}}}},
            {"manager": "z", "operation": "Apply", "apiVersion": "v1", "time": "2026-01-01T00:00:02Z",
             "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:y": {}}}, "subresource": "status"},
            {"manager": "bad", "operation": "Delete"},
        ]}});
        let entries = decode(&object);
        assert_eq!(entries.len(), 2, "the unreadable entry is skipped");
        assert_eq!(entries[1].subresource, "status");
        let mut stored = json!({});
        store(&mut stored, entries);
        let managers: Vec<&str> = stored["metadata"]["managedFields"]
            .as_array()
            .expect("entries")
            .iter()
            .filter_map(|e| e["manager"].as_str())
            .collect();
        assert_eq!(managers, ["z", "b"], "Apply sorts before Update");
        assert_eq!(
            stored["metadata"]["managedFields"][1],
            object["metadata"]["managedFields"][0]
        );
        assert_eq!(
            decode(&stored)[0].describe(),
            r#""z" with subresource "status""#
        );
        assert_eq!(
            decode(&stored)[1].describe(),
            r#""b" using v1 at 2026-01-01T00:00:01Z"#
        );
    }
}
