//! The cells of Kubernetes' printers for the built-in kinds, computed from objects
//! (`pkg/printers/internalversion/printers.go`, written down for these kinds).

use serde_json::{Value, json};

use super::super::age;
use crate::store::selectors::label_selector_string;

pub(super) fn text<'a>(object: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter()
        .try_fold(object, |v, key| v.get(key))
        .and_then(Value::as_str)
}

fn int(object: &Value, path: &[&str]) -> i64 {
    path.iter()
        .try_fold(object, |v, key| v.get(key))
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

fn items<'a>(object: &'a Value, path: &[&str]) -> &'a [Value] {
    path.iter()
        .try_fold(object, |v, key| v.get(key))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

pub(super) fn len(object: &Value, path: &[&str]) -> usize {
    match path.iter().try_fold(object, |v, key| v.get(key)) {
        Some(Value::Object(map)) => map.len(),
        Some(Value::Array(list)) => list.len(),
        _ => 0,
    }
}

fn or_none(text: &str) -> String {
    if text.is_empty() {
        "<none>".to_owned()
    } else {
        text.to_owned()
    }
}

pub(super) fn name(object: &Value) -> Value {
    json!(text(object, &["metadata", "name"]).unwrap_or_default())
}

pub(super) fn age(object: &Value, now: i64) -> Value {
    json!(age::since(
        text(object, &["metadata", "creationTimestamp"]),
        now
    ))
}

/// `labels.FormatLabels`: `k=v` sorted by key, `<none>` when empty.
fn format_labels(map: Option<&Value>) -> String {
    let mut pairs: Vec<String> = map
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    pairs.sort();
    if pairs.is_empty() {
        "<none>".to_owned()
    } else {
        pairs.join(",")
    }
}

fn containers_and_images(pod_spec: Option<&Value>) -> (String, String) {
    let containers = pod_spec
        .and_then(|s| s.get("containers"))
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let field = |key: &str| {
        containers
            .iter()
            .map(|c| c.get(key).and_then(Value::as_str).unwrap_or_default())
            .collect::<Vec<_>>()
            .join(",")
    };
    (field("name"), field("image"))
}

fn workload_wide(object: &Value) -> [Value; 3] {
    let spec = object.get("spec");
    let template = spec
        .and_then(|s| s.get("template"))
        .and_then(|t| t.get("spec"));
    let (containers, images) = containers_and_images(template);
    let selector = spec
        .and_then(|s| s.get("selector"))
        .and_then(|selector| label_selector_string(selector).ok())
        .unwrap_or_default();
    [json!(containers), json!(images), json!(selector)]
}

pub(super) fn pod(object: &Value, now: i64) -> Vec<Value> {
    let status = object.get("status").unwrap_or(&Value::Null);
    let phase = text(status, &["phase"]).unwrap_or_default();
    let mut reason = text(status, &["reason"])
        .filter(|r| !r.is_empty())
        .unwrap_or(phase)
        .to_owned();
    let conditions = items(status, &["conditions"]);
    if conditions.iter().any(|c| {
        text(c, &["type"]) == Some("PodScheduled")
            && text(c, &["reason"]) == Some("SchedulingGated")
    }) {
        reason = "SchedulingGated".to_owned();
    }
    let mut restarts = 0;
    let mut ready = 0;
    let total = len(object, &["spec", "containers"]);
    let init_total = len(object, &["spec", "initContainers"]);
    let mut initializing = false;
    for (i, container) in items(status, &["initContainerStatuses"]).iter().enumerate() {
        restarts += int(container, &["restartCount"]);
        let terminated = container.pointer("/state/terminated");
        let waiting = text(container, &["state", "waiting", "reason"]).unwrap_or_default();
        if terminated.is_some_and(|t| int(t, &["exitCode"]) == 0) {
            continue;
        }
        reason = match terminated {
            Some(t) => match text(t, &["reason"]).filter(|r| !r.is_empty()) {
                Some(r) => format!("Init:{r}"),
                None if int(t, &["signal"]) != 0 => format!("Init:Signal:{}", int(t, &["signal"])),
                None => format!("Init:ExitCode:{}", int(t, &["exitCode"])),
            },
            None if !waiting.is_empty() && waiting != "PodInitializing" => {
                format!("Init:{waiting}")
            }
            None => format!("Init:{i}/{init_total}"),
        };
        initializing = true;
        break;
    }
    let initialized = conditions
        .iter()
        .any(|c| text(c, &["type"]) == Some("Initialized") && text(c, &["status"]) == Some("True"));
    if !initializing || initialized {
        restarts = 0;
        let mut running = false;
        for container in items(status, &["containerStatuses"]).iter().rev() {
            restarts += int(container, &["restartCount"]);
            let waiting =
                text(container, &["state", "waiting", "reason"]).filter(|r| !r.is_empty());
            let terminated = container.pointer("/state/terminated");
            if let Some(waiting) = waiting {
                reason = waiting.to_owned();
            } else if let Some(t) = terminated {
                reason = match text(t, &["reason"]).filter(|r| !r.is_empty()) {
                    Some(r) => r.to_owned(),
                    None if int(t, &["signal"]) != 0 => format!("Signal:{}", int(t, &["signal"])),
                    None => format!("ExitCode:{}", int(t, &["exitCode"])),
                };
            } else if container.get("ready") == Some(&Value::Bool(true))
                && container.pointer("/state/running").is_some()
            {
                running = true;
                ready += 1;
            }
        }
        if reason == "Completed" && running {
            let pod_ready = conditions.iter().any(|c| {
                text(c, &["type"]) == Some("Ready") && text(c, &["status"]) == Some("True")
            });
            reason = if pod_ready { "Running" } else { "NotReady" }.to_owned();
        }
    }
    let deleting = object.pointer("/metadata/deletionTimestamp").is_some();
    if deleting && text(status, &["reason"]) == Some("NodeLost") {
        reason = "Unknown".to_owned();
    } else if deleting && !matches!(phase, "Succeeded" | "Failed") {
        reason = "Terminating".to_owned();
    }
    let ip = items(status, &["podIPs"])
        .first()
        .and_then(|ip| text(ip, &["ip"]))
        .unwrap_or_default();
    let gates = items(object, &["spec", "readinessGates"]);
    let gates = if gates.is_empty() {
        "<none>".to_owned()
    } else {
        let satisfied = gates
            .iter()
            .filter(|gate| {
                let wanted = text(gate, &["conditionType"]);
                conditions
                    .iter()
                    .any(|c| text(c, &["type"]) == wanted && text(c, &["status"]) == Some("True"))
            })
            .count();
        format!("{satisfied}/{}", gates.len())
    };
    vec![
        name(object),
        json!(format!("{ready}/{total}")),
        json!(reason),
        json!(restarts.to_string()),
        age(object, now),
        json!(or_none(ip)),
        json!(or_none(
            text(object, &["spec", "nodeName"]).unwrap_or_default()
        )),
        json!(or_none(
            text(status, &["nominatedNodeName"]).unwrap_or_default()
        )),
        json!(gates),
    ]
}

pub(super) fn deployment(object: &Value, now: i64) -> Vec<Value> {
    let [containers, images, selector] = workload_wide(object);
    vec![
        name(object),
        json!(format!(
            "{}/{}",
            int(object, &["status", "readyReplicas"]),
            int(object, &["spec", "replicas"])
        )),
        json!(int(object, &["status", "updatedReplicas"])),
        json!(int(object, &["status", "availableReplicas"])),
        age(object, now),
        containers,
        images,
        selector,
    ]
}

pub(super) fn replica_set(object: &Value, now: i64) -> Vec<Value> {
    let [containers, images, selector] = workload_wide(object);
    vec![
        name(object),
        json!(int(object, &["spec", "replicas"])),
        json!(int(object, &["status", "replicas"])),
        json!(int(object, &["status", "readyReplicas"])),
        age(object, now),
        containers,
        images,
        selector,
    ]
}

pub(super) fn service(object: &Value, now: i64) -> Vec<Value> {
    let spec = object.get("spec").unwrap_or(&Value::Null);
    let ty = text(spec, &["type"]).unwrap_or("ClusterIP");
    let cluster_ip = items(spec, &["clusterIPs"])
        .first()
        .and_then(Value::as_str)
        .or_else(|| text(spec, &["clusterIP"]))
        .unwrap_or_default();
    let external_ips: Vec<&str> = items(spec, &["externalIPs"])
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let external = match ty {
        "ClusterIP" | "NodePort" if !external_ips.is_empty() => external_ips.join(","),
        "ClusterIP" | "NodePort" => "<none>".to_owned(),
        "LoadBalancer" => {
            let mut ips: Vec<&str> = items(object, &["status", "loadBalancer", "ingress"])
                .iter()
                .filter_map(|i| text(i, &["ip"]).or_else(|| text(i, &["hostname"])))
                .collect();
            ips.extend(external_ips);
            if ips.is_empty() {
                "<pending>".to_owned()
            } else {
                ips.join(",")
            }
        }
        "ExternalName" => text(spec, &["externalName"]).unwrap_or_default().to_owned(),
        _ => "<unknown>".to_owned(),
    };
    let ports: Vec<String> = items(spec, &["ports"])
        .iter()
        .map(|p| {
            let protocol = text(p, &["protocol"]).unwrap_or("TCP");
            match int(p, &["nodePort"]) {
                0 => format!("{}/{protocol}", int(p, &["port"])),
                node => format!("{}:{node}/{protocol}", int(p, &["port"])),
            }
        })
        .collect();
    vec![
        name(object),
        json!(ty),
        json!(or_none(cluster_ip)),
        json!(external),
        json!(or_none(&ports.join(","))),
        age(object, now),
        json!(format_labels(spec.get("selector"))),
    ]
}

/// Core and `events.k8s.io` Events: the latter's fields are read under their new names,
/// as the server converts them to its internal Event before printing.
pub(super) fn event(object: &Value, now: i64, events_k8s_io: bool) -> Vec<Value> {
    let (regarding, message, source, first, last, count) = if events_k8s_io {
        (
            "regarding",
            "note",
            "deprecatedSource",
            "deprecatedFirstTimestamp",
            "deprecatedLastTimestamp",
            "deprecatedCount",
        )
    } else {
        (
            "involvedObject",
            "message",
            "source",
            "firstTimestamp",
            "lastTimestamp",
            "count",
        )
    };
    let mut first_seen = age::since(text(object, &[first]), now);
    if text(object, &[first]).is_none() {
        first_seen = age::since(text(object, &["eventTime"]), now);
    }
    let mut last_seen = match text(object, &[last]) {
        Some(last) => age::since(Some(last), now),
        None => first_seen.clone(),
    };
    let mut times = int(object, &[count]);
    if let Some(series) = object.get("series") {
        last_seen = age::since(text(series, &["lastObservedTime"]), now);
        times = int(series, &["count"]);
    } else if times == 0 {
        times = 1;
    }
    let target = object.get(regarding).unwrap_or(&Value::Null);
    let kind = text(target, &["kind"]).unwrap_or_default().to_lowercase();
    let target_name = match text(target, &["name"]).filter(|n| !n.is_empty()) {
        Some(name) => format!("{kind}/{name}"),
        None => kind,
    };
    let controller = if events_k8s_io {
        "reportingController"
    } else {
        "reportingComponent"
    };
    let component = text(object, &[source, "component"])
        .filter(|c| !c.is_empty())
        .or_else(|| text(object, &[controller]))
        .unwrap_or_default();
    let instance = text(object, &[source, "host"])
        .filter(|h| !h.is_empty())
        .or_else(|| text(object, &["reportingInstance"]))
        .unwrap_or_default();
    let source = if instance.is_empty() {
        component.to_owned()
    } else {
        format!("{component}, {instance}")
    };
    vec![
        json!(last_seen),
        json!(text(object, &["type"]).unwrap_or_default()),
        json!(text(object, &["reason"]).unwrap_or_default()),
        json!(target_name),
        json!(text(target, &["fieldPath"]).unwrap_or_default()),
        json!(source),
        json!(text(object, &[message]).unwrap_or_default().trim()),
        json!(first_seen),
        json!(times),
        name(object),
    ]
}
