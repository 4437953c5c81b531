//! Collection reads: list (selectors, pagination, resourceVersion rules) and the start
//! of a watch (initial events, replay from a resourceVersion, 410 for expired ones).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;

use crate::store::event::EventType;
use crate::store::page::Page;
use crate::store::registry::ResourceType;
use crate::store::selectors::{FieldSelector, LabelSelector, ShardFilter};
use crate::store::shared::Shared;
use crate::store::status::{ApiError, ApiResult, Cause};
use crate::store::storage::{Cluster, ObjectKey, parse_rv};
use crate::store::subscription::Subscription;
use crate::store::watch::{Filter, WatchItem};

/// Query parameters of a request.
pub(crate) type Query = HashMap<String, String>;

fn param<'a>(query: &'a Query, name: &str) -> Option<&'a str> {
    query
        .get(name)
        .map(String::as_str)
        .filter(|v| !v.is_empty())
}

fn flag(query: &Query, name: &str) -> bool {
    matches!(param(query, name), Some("true" | "1"))
}

fn list_options_invalid(field: &str, value: &str, why: &str) -> ApiError {
    let cause = Cause::invalid(field, &json!(value), why);
    ApiError::invalid("meta.k8s.io", "ListOptions", "", vec![cause])
}

/// The namespace, label, field and shard filter of a collection request.
pub(crate) fn filter(
    rt: &ResourceType,
    namespace: Option<&str>,
    query: &Query,
) -> ApiResult<Filter> {
    Ok(Filter {
        namespace: namespace.map(str::to_owned),
        labels: LabelSelector::parse(param(query, "labelSelector").unwrap_or_default())?,
        fields: FieldSelector::parse(param(query, "fieldSelector").unwrap_or_default(), rt)?,
        shard: ShardFilter::parse(param(query, "shardSelector"))?,
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Where a paged list goes on: the snapshot's resourceVersion, how many items earlier
/// pages returned (for `remainingItemCount`) and the last key returned.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Continue {
    rv: u64,
    offset: usize,
    last: ObjectKey,
}

impl Continue {
    /// The opaque token.
    fn encode(&self) -> String {
        let (namespace, name) = &self.last;
        hex(format!("{}:{}:{namespace}/{name}", self.rv, self.offset).as_bytes())
    }

    fn decode(token: &str) -> ApiResult<Self> {
        let invalid = || list_options_invalid("continue", token, "continue key is not valid");
        let text = unhex(token)
            .and_then(|b| String::from_utf8(b).ok())
            .ok_or_else(invalid)?;
        let (rv, rest) = text.split_once(':').ok_or_else(invalid)?;
        let (offset, key) = rest.split_once(':').ok_or_else(invalid)?;
        let (namespace, name) = key.split_once('/').ok_or_else(invalid)?;
        Ok(Self {
            rv: rv.parse().map_err(|_| invalid())?,
            offset: offset.parse().map_err(|_| invalid())?,
            last: (namespace.to_owned(), name.to_owned()),
        })
    }
}

/// GET on a collection: a `{Kind}List` honouring selectors, `limit`/`continue`,
/// `resourceVersion` and `resourceVersionMatch`.
///
/// - unset resourceVersion: the latest state (a consistent read);
/// - `"0"` or `NotOlderThan`: the latest state (504 when the version is in the future);
/// - `Exact`: the state at that version, rebuilt from history; 410 Expired once the
///   history window (or a fault-injected compaction) no longer reaches it;
/// - `continue`: the next page of the snapshot the first page was read from, 410
///   Expired like a compacted etcd when that snapshot is gone.
pub(crate) fn list(
    cluster: &Cluster,
    rt: &ResourceType,
    namespace: Option<&str>,
    query: &Query,
) -> ApiResult<Page> {
    let filter = filter(rt, namespace, query)?;
    let rv_param = param(query, "resourceVersion");
    let rv_match = param(query, "resourceVersionMatch");
    let limit = match param(query, "limit") {
        Some(limit) => match limit.parse::<i64>() {
            Ok(n) if n > 0 => Some(n as usize),
            Ok(_) => None,
            Err(_) => return Err(ApiError::bad_request(format!("invalid limit {limit:?}"))),
        },
        None => None,
    };
    let continue_from = param(query, "continue").map(Continue::decode).transpose()?;
    let current = cluster.current_rv();
    let (snapshot_rv, start) = match (continue_from, rv_param, rv_match) {
        (Some(_), Some(_), _) => {
            return Err(list_options_invalid(
                "resourceVersion",
                rv_param.unwrap_or_default(),
                "specifying resource version is not allowed when using continue",
            ));
        }
        (Some(from), None, _) => (from.rv, Some(from)),
        (None, None, Some(m)) => {
            return Err(list_options_invalid(
                "resourceVersionMatch",
                m,
                "resourceVersionMatch is forbidden unless resourceVersion is provided",
            ));
        }
        (None, None, None) => (current, None),
        (None, Some(rv), m) => {
            let requested = parse_rv(rv)?;
            match m {
                Some("Exact") if requested == 0 => {
                    return Err(list_options_invalid(
                        "resourceVersionMatch",
                        "Exact",
                        "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
                    ));
                }
                Some("Exact") => (requested, None),
                None | Some("NotOlderThan") => {
                    if requested > current {
                        return Err(ApiError::too_large_resource_version(requested, current));
                    }
                    (current, None)
                }
                Some(other) => {
                    return Err(list_options_invalid(
                        "resourceVersionMatch",
                        other,
                        "supported values: \"Exact\", \"NotOlderThan\"",
                    ));
                }
            }
        }
    };
    let revision = cluster.at(&rt.storage_key(), snapshot_rv).map_err(|e| {
        if e.code == 410 && start.is_some() {
            ApiError::expired("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue value from the response.")
        } else {
            e
        }
    })?;
    let offset = start.as_ref().map_or(0, |from| from.offset);
    let mut matching = revision
        .iter(
            namespace,
            start
                .as_ref()
                .map(|from| (from.last.0.as_str(), from.last.1.as_str())),
        )
        .filter(|(_, o)| filter.matches(o));
    let mut items = Vec::new();
    let mut last_key = None;
    for (key, object) in matching.by_ref().take(limit.unwrap_or(usize::MAX)) {
        items.push(object.clone());
        last_key = Some(key);
    }
    let mut metadata = json!({"resourceVersion": snapshot_rv.to_string()});
    if let Some(shard) = filter.shard.selector() {
        // KEP-5866: the applied selector, echoed so the client knows it was served.
        metadata["shardInfo"] = json!({"selector": shard.to_string()});
    }
    if let (Some(_), Some(last)) = (limit, last_key)
        && matching.next().is_some()
    {
        let returned = offset + items.len();
        let next = Continue {
            rv: snapshot_rv,
            offset: returned,
            last: (last.0.to_owned(), last.1.to_owned()),
        };
        metadata["continue"] = json!(next.encode());
        if filter.labels.is_empty() && filter.fields.is_empty() && filter.shard.selector().is_none()
        {
            metadata["remainingItemCount"] =
                json!(revision.count(namespace).saturating_sub(returned));
        }
    }
    Ok(Page::new(rt, metadata, items))
}

/// Settings a watch needs from the server configuration.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WatchDefaults {
    pub(crate) bookmark_interval: Duration,
    pub(crate) timeout: Duration,
}

/// GET with `watch=true`: registers a watcher and returns its stream.
///
/// Unset or `"0"` resourceVersion starts with synthetic ADDED events for the current
/// state; a given resourceVersion replays the events after it; one older than the kept
/// history gets an HTTP 200 stream with a single ERROR event (410, reason Expired), as
/// a real server answers. `sendInitialEvents=true` (with `resourceVersionMatch=NotOlderThan`
/// and `allowWatchBookmarks=true`) sends the current state then a BOOKMARK annotated
/// `k8s.io/initial-events-end: "true"`.
pub(crate) fn watch(
    shared: &Arc<Shared>,
    rt: &ResourceType,
    namespace: Option<&str>,
    query: &Query,
    defaults: WatchDefaults,
) -> ApiResult<Subscription> {
    let filter = filter(rt, namespace, query)?;
    let bookmarks = flag(query, "allowWatchBookmarks");
    let send_initial = param(query, "sendInitialEvents").map(|v| v == "true" || v == "1");
    let rv_match = param(query, "resourceVersionMatch");
    let rv_param = param(query, "resourceVersion");
    if send_initial.is_some() && rv_match != Some("NotOlderThan") {
        return Err(list_options_invalid(
            "sendInitialEvents",
            "true",
            "sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to \"NotOlderThan\"",
        ));
    }
    if send_initial == Some(true) && !bookmarks {
        return Err(list_options_invalid(
            "allowWatchBookmarks",
            "false",
            "allowWatchBookmarks must be set to true when sendInitialEvents is specified",
        ));
    }
    if send_initial.is_none() && rv_match.is_some() {
        return Err(list_options_invalid(
            "resourceVersionMatch",
            rv_match.unwrap_or_default(),
            "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
        ));
    }
    let timeout = match param(query, "timeoutSeconds") {
        Some(t) => Duration::from_secs(
            t.parse()
                .map_err(|_| ApiError::bad_request(format!("invalid timeoutSeconds {t:?}")))?,
        ),
        None => defaults.timeout,
    };
    let requested = rv_param.map(parse_rv).transpose()?.filter(|rv| *rv != 0);

    let mut cluster = shared.lock();
    let storage = rt.storage_key();
    let current = cluster.current_rv();
    let initial_state = |cluster: &Cluster| -> Vec<WatchItem> {
        cluster
            .current(&storage)
            .values()
            .filter(|o| filter.matches(o))
            .map(|o| WatchItem::Event(EventType::Added, o.clone()))
            .collect()
    };
    let initial = match (send_initial, requested) {
        (Some(true), _) => {
            let mut items = initial_state(&cluster);
            items.push(WatchItem::Bookmark {
                rv: current,
                initial_end: true,
            });
            items
        }
        (_, None) => {
            if send_initial == Some(false) {
                Vec::new()
            } else {
                initial_state(&cluster)
            }
        }
        (_, Some(rv)) => match cluster.events_after(&storage, rv) {
            Ok(events) => events
                .iter()
                .filter_map(|e| filter.translate(e))
                .map(|(k, o)| WatchItem::Event(k, o))
                .collect(),
            Err(error) => {
                drop(cluster);
                let rx = expired_channel(error);
                return Ok(subscription(shared, None, rx, timeout, None));
            }
        },
    };
    let (id, rx) = cluster
        .watchers
        .register(storage.clone(), filter, bookmarks, initial);
    drop(cluster);
    let interval = bookmarks.then(|| Subscription::bookmark_interval(defaults.bookmark_interval));
    Ok(subscription(shared, Some(id), rx, timeout, interval))
}

/// A channel holding only an ERROR event (the stream then ends).
fn expired_channel(error: ApiError) -> tokio::sync::mpsc::UnboundedReceiver<WatchItem> {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    // The receiver is alive: sending cannot fail.
    let _ = tx.send(WatchItem::Error(error));
    rx
}

fn subscription(
    shared: &Arc<Shared>,
    id: Option<u64>,
    rx: tokio::sync::mpsc::UnboundedReceiver<WatchItem>,
    timeout: Duration,
    bookmarks: Option<tokio::time::Interval>,
) -> Subscription {
    Subscription {
        shared: shared.clone(),
        id,
        rx,
        kill: shared.kill_receiver(),
        deadline: Instant::now() + timeout,
        bookmarks,
        finished: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continue_tokens_round_trip() {
        let from = Continue {
            rv: 42,
            offset: 500,
            last: ("ns".to_owned(), "name:1".to_owned()),
        };
        assert_eq!(Continue::decode(&from.encode()).expect("decode"), from);
        assert_eq!(Continue::decode("zz").map_err(|e| e.code), Err(422));
        assert_eq!(
            Continue::decode(&hex(b"1:x:a/b")).map_err(|e| e.code),
            Err(422)
        );
    }
}
