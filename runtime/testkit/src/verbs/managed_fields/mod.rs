//! Field ownership (`metadata.managedFields`) and server-side apply, following
//! structured-merge-diff and the API server's field manager:
//!
//! - every create, update and patch records an `Update` entry for its field manager
//!   owning what it added or changed; other managers lose what it changed, and everyone
//!   loses what it removed;
//! - an apply records an `Apply` entry owning exactly the fields of the applied
//!   configuration, merges the configuration into the live object by the schema's list
//!   and map types ([`types`]), removes the fields its previous configuration held that
//!   nobody owns any more, and answers 409 Conflict when it would change a field another
//!   manager owns (unless forced, which takes the field over). Applying a value equal to
//!   the live one shares ownership.
//!
//! Fields the server sets (name, uid, resourceVersion, ...) are never owned, nor status
//! through the main resource of a type with a status subresource, nor anything but
//! status through `/status`.

mod entries;
mod types;
mod walk;

use kubegen_runtime::apply::{Element, FieldSet};
use serde_json::{Value, json};

pub(crate) use entries::{Entry, Operation};
use types::Type;

use crate::store::registry::ResourceType;
use crate::store::status::{ApiError, ApiResult, Cause};
use crate::verbs::place::Part;

/// The longest field manager name a server accepts.
const MAX_MANAGER_LENGTH: usize = 128;

/// Who is writing: the request's field manager and subresource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Writer {
    /// The field manager: `?fieldManager`, or the User-Agent's product name.
    pub(crate) manager: String,
    /// `status` or `scale`, empty for the main resource.
    pub(crate) subresource: String,
}

impl Writer {
    /// The writer of a request: `?fieldManager` when given (at most 128 printable
    /// characters, else 422 Invalid on the verb's options kind), otherwise the
    /// User-Agent up to its first `/` as a real server derives it.
    pub(crate) fn from_request(
        field_manager: Option<&str>,
        user_agent: Option<&str>,
        subresource: Option<&str>,
        options_kind: &str,
    ) -> ApiResult<Self> {
        let manager = match field_manager.filter(|m| !m.is_empty()) {
            Some(manager) => {
                check_manager(manager, options_kind)?;
                manager.to_owned()
            }
            None => manager_from_user_agent(user_agent.unwrap_or_default()),
        };
        Ok(Self {
            manager,
            subresource: subresource.unwrap_or_default().to_owned(),
        })
    }

    /// A writer for writes the server makes itself (bootstrap objects).
    pub(crate) fn server(manager: &str) -> Self {
        Self {
            manager: manager.to_owned(),
            subresource: String::new(),
        }
    }
}

fn check_manager(manager: &str, options_kind: &str) -> ApiResult<()> {
    let mut causes = Vec::new();
    if manager.len() > MAX_MANAGER_LENGTH {
        causes.push(Cause::new(
            "FieldValueTooLong",
            "fieldManager",
            format!("Too long: may not be more than {MAX_MANAGER_LENGTH} bytes"),
        ));
    }
    for (at, c) in manager.char_indices() {
        if c.is_control() {
            causes.push(Cause::invalid(
                "fieldManager",
                &json!(manager),
                format!(
                    "invalid character U+{:04X} (at position {at})",
                    u32::from(c)
                ),
            ));
        }
    }
    if causes.is_empty() {
        Ok(())
    } else {
        Err(ApiError::invalid("meta.k8s.io", options_kind, "", causes))
    }
}

/// The manager name a real server derives from a User-Agent: what precedes the first
/// `/`, without unprintable characters, cut to 128 bytes.
fn manager_from_user_agent(user_agent: &str) -> String {
    let product = user_agent.split('/').next().unwrap_or_default();
    let mut out = String::new();
    for c in product.chars().filter(|c| !c.is_control()) {
        if out.len() + c.len_utf8() > MAX_MANAGER_LENGTH {
            break;
        }
        out.push(c);
    }
    out
}

/// How a write records field ownership.
#[derive(Debug, Clone)]
pub(crate) enum Record {
    /// An update (create, update, non-apply patch) by this writer.
    Update(Writer),
    /// An apply whose entries [`apply`] computed.
    Applied(Vec<Entry>),
}

/// The SSA type of `rt`'s objects.
fn type_of(rt: &ResourceType) -> Type<'_> {
    if rt.custom {
        Type::root(rt.schema.as_ref())
    } else {
        Type::built_in(&rt.group, &rt.version, &rt.kind)
    }
}

/// What a create is compared with: Go's zero value of a built-in kind as far as its
/// schema tells ([`Type::zero`]); an empty object for custom resources.
fn zero_value(rt: &ResourceType) -> Value {
    if rt.custom {
        json!({"metadata": {}})
    } else {
        type_of(rt).zero()
    }
}

/// Drops from `set` what no manager owns in a write to `part`: server-set metadata,
/// and status or everything but status as the subresource decides.
fn owned_part(rt: &ResourceType, part: Part, set: &FieldSet) -> FieldSet {
    let mut server_set = FieldSet::new();
    let f = |name: &str| Element::Field(name.to_owned());
    for top in ["apiVersion", "kind", "metadata"] {
        server_set.insert(&[f(top)]);
    }
    for field in [
        "name",
        "namespace",
        "creationTimestamp",
        "selfLink",
        "uid",
        "clusterName",
        "generation",
        "managedFields",
        "resourceVersion",
    ] {
        server_set.insert(&[f("metadata"), f(field)]);
    }
    let set = set.difference(&server_set);
    match part {
        Part::Status => set.only_under(&f("status")),
        Part::Main if rt.status => set.recursive_difference(&FieldSet::leaf(f("status"))),
        Part::Main => set,
    }
}

/// Records the ownership of a write that turned `old` (None on create) into `new`, in
/// `new`'s `metadata.managedFields`.
pub(crate) fn record(
    rt: &ResourceType,
    part: Part,
    old: Option<&Value>,
    new: &mut Value,
    record: &Record,
) {
    let entries = match record {
        Record::Applied(entries) => entries.clone(),
        Record::Update(writer) => {
            let zero = zero_value(rt);
            let old = old.unwrap_or(&zero);
            let mut entries = entries::decode(old);
            let comparison = walk::compare(old, new, type_of(rt));
            let changed = owned_part(rt, part, &comparison.modified.union(&comparison.added));
            let removed = owned_part(rt, part, &comparison.removed);
            let me = Entry::new(writer, Operation::Update, &rt.api_version());
            let mine = entries::take(&mut entries, &me).unwrap_or(me);
            for entry in &mut entries {
                entry.fields = entry.fields.difference(&changed).difference(&removed);
            }
            let fields = mine.fields.union(&changed).difference(&removed);
            entries.push(mine.with_fields(fields));
            entries
        }
    };
    entries::store(new, entries);
}

/// One field another manager owns that an apply would change.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Conflict {
    manager: String,
    path: String,
}

/// Server-side apply of `config` by `writer` to `live` (None: the object is created):
/// the object to store and its managed fields, or 409 Conflict listing the fields other
/// managers own that the apply would change (unless `force`).
pub(crate) fn apply(
    rt: &ResourceType,
    part: Part,
    live: Option<&Value>,
    config: &Value,
    writer: &Writer,
    force: bool,
) -> ApiResult<(Value, Vec<Entry>)> {
    let ty = type_of(rt);
    // An apply creating the object merges into an empty one (no nulls to store).
    let empty = json!({"metadata": {}});
    let live = live.unwrap_or(&empty);
    let mut entries = entries::decode(live);
    let mut merged = walk::merge(live, config, ty);

    let me = Entry::new(writer, Operation::Apply, &rt.api_version());
    let previous = entries::take(&mut entries, &me).unwrap_or(me);
    let last = previous.fields.clone();
    let mine = previous.with_fields(owned_part(rt, part, &walk::field_set(config, ty)));
    let owned = entries
        .iter()
        .fold(mine.fields.clone(), |all, e| all.union(&e.fields));
    walk::remove(&mut merged, &last.difference(&owned), &owned, ty);

    let comparison = walk::compare(live, &merged, ty);
    let changed = owned_part(rt, part, &comparison.modified.union(&comparison.added));
    let mut conflicts = Vec::new();
    for entry in &mut entries {
        let taken = entry.fields.intersection(&changed);
        conflicts.extend(taken.paths().iter().map(|path| Conflict {
            manager: entry.describe(),
            path: kubegen_runtime::apply::path_string(path),
        }));
        entry.fields = entry.fields.difference(&taken);
    }
    if !conflicts.is_empty() && !force {
        return Err(conflict_error(&conflicts));
    }
    let removed = owned_part(rt, part, &comparison.removed);
    for entry in &mut entries {
        entry.fields = entry.fields.difference(&removed);
    }
    entries.push(mine);
    entries.retain(|e| !e.fields.is_empty());
    Ok((merged, entries))
}

/// The 409 a real server answers a conflicting apply with.
fn conflict_error(conflicts: &[Conflict]) -> ApiError {
    let causes: Vec<Value> = conflicts
        .iter()
        .map(|c| {
            json!({
                "reason": "FieldManagerConflict",
                "message": format!("conflict with {}", c.manager),
                "field": c.path,
            })
        })
        .collect();
    let message = if let [only] = conflicts {
        format!(
            "Apply failed with 1 conflict: conflict with {}: {}",
            only.manager, only.path
        )
    } else {
        let mut managers: Vec<&String> = conflicts.iter().map(|c| &c.manager).collect();
        managers.sort();
        managers.dedup();
        let mut lines = Vec::new();
        for manager in managers {
            lines.push(format!("conflicts with {manager}:"));
            for conflict in conflicts.iter().filter(|c| &c.manager == manager) {
                lines.push(format!("- {}", conflict.path));
            }
        }
        format!(
            "Apply failed with {} conflicts: {}",
            conflicts.len(),
            lines.join("\n")
        )
    };
    ApiError {
        code: 409,
        reason: "Conflict",
        message,
        details: Some(json!({"causes": causes})),
        retry_after: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn managers_come_from_the_query_or_the_user_agent() {
        let writer = Writer::from_request(
            None,
            Some("kubectl/v1.31.0 (linux/amd64) kubernetes/abc"),
            None,
            "PatchOptions",
        )
        .expect("writer");
        assert_eq!(writer.manager, "kubectl");
        let writer = Writer::from_request(Some("ctl"), Some("x/1"), Some("status"), "PatchOptions")
            .expect("writer");
        assert_eq!(
            (writer.manager.as_str(), writer.subresource.as_str()),
            ("ctl", "status")
        );
        let long = "m".repeat(129);
        let error =
            Writer::from_request(Some(&long), None, None, "CreateOptions").expect_err("too long");
        assert_eq!(error.code, 422);
        assert!(
            error.message.contains("fieldManager: Too long"),
            "{}",
            error.message
        );
        assert!(Writer::from_request(Some(&"m".repeat(128)), None, None, "CreateOptions").is_ok());
        assert_eq!(manager_from_user_agent(&"u".repeat(300)).len(), 128);
        assert_eq!(manager_from_user_agent(""), "");
    }
}
