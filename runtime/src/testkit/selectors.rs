//! Label selectors (equality and set-based) and field selectors.

use serde_json::Value;

use super::registry::ResourceType;
use super::status::{ApiError, ApiResult};

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
}

impl Requirement {
    fn matches(&self, labels: Option<&serde_json::Map<String, Value>>) -> bool {
        let get = |key: &str| labels.and_then(|l| l.get(key)).and_then(Value::as_str);
        match self {
            Self::Equals(k, v) => get(k) == Some(v.as_str()),
            Self::NotEquals(k, v) => get(k) != Some(v.as_str()),
            Self::In(k, values) => get(k).is_some_and(|actual| values.iter().any(|v| v == actual)),
            Self::NotIn(k, values) => {
                get(k).is_none_or(|actual| values.iter().all(|v| v != actual))
            }
            Self::Exists(k) => get(k).is_some(),
            Self::DoesNotExist(k) => get(k).is_none(),
        }
    }
}

/// A parsed label selector; the empty selector matches everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LabelSelector {
    requirements: Vec<Requirement>,
}

/// Splits on commas outside parentheses.
fn split_terms(input: &str) -> Vec<&str> {
    let mut terms = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in input.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                terms.push(&input[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    terms.push(&input[start..]);
    terms
}

fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 317
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
}

fn valid_value(value: &str) -> bool {
    value.len() <= 63
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

impl LabelSelector {
    /// Parses `a=b,c!=d,e in (x,y),f notin (z),g,!h`.
    pub(crate) fn parse(input: &str) -> ApiResult<Self> {
        let bad = |why: &str| {
            ApiError::bad_request(format!(
                "unable to parse requirement: {why} in label selector {input:?}"
            ))
        };
        let mut requirements = Vec::new();
        if input.trim().is_empty() {
            return Ok(Self { requirements });
        }
        for term in split_terms(input) {
            let term = term.trim();
            if let Some(key) = term.strip_prefix('!') {
                let key = key.trim();
                if !valid_key(key) {
                    return Err(bad("invalid key"));
                }
                requirements.push(Requirement::DoesNotExist(key.to_owned()));
            } else if let Some((key, value)) = term.split_once("!=") {
                let (key, value) = (key.trim(), value.trim());
                if !valid_key(key) || !valid_value(value) {
                    return Err(bad("invalid key or value"));
                }
                requirements.push(Requirement::NotEquals(key.to_owned(), value.to_owned()));
            } else if let Some((key, value)) = term.split_once('=') {
                let value = value.strip_prefix('=').unwrap_or(value);
                let (key, value) = (key.trim(), value.trim());
                if !valid_key(key) || !valid_value(value) {
                    return Err(bad("invalid key or value"));
                }
                requirements.push(Requirement::Equals(key.to_owned(), value.to_owned()));
            } else if let Some(open) = term.find('(') {
                let close = term
                    .rfind(')')
                    .filter(|c| *c > open)
                    .ok_or_else(|| bad("missing ')'"))?;
                let head: Vec<&str> = term[..open].split_whitespace().collect();
                let values: Vec<String> = term[open + 1..close]
                    .split(',')
                    .map(|v| v.trim().to_owned())
                    .filter(|v| !v.is_empty())
                    .collect();
                if values.iter().any(|v| !valid_value(v)) || !term[close + 1..].trim().is_empty() {
                    return Err(bad("invalid value list"));
                }
                match head.as_slice() {
                    [key, "in"] if valid_key(key) && !values.is_empty() => {
                        requirements.push(Requirement::In((*key).to_owned(), values));
                    }
                    [key, "notin"] if valid_key(key) && !values.is_empty() => {
                        requirements.push(Requirement::NotIn((*key).to_owned(), values));
                    }
                    _ => return Err(bad("expected 'key in (values)' or 'key notin (values)'")),
                }
            } else if valid_key(term) {
                requirements.push(Requirement::Exists(term.to_owned()));
            } else {
                return Err(bad("invalid requirement"));
            }
        }
        Ok(Self { requirements })
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Whether an object's `metadata.labels` satisfy every requirement.
    pub(crate) fn matches(&self, object: &Value) -> bool {
        let labels = object
            .pointer("/metadata/labels")
            .and_then(Value::as_object);
        self.requirements.iter().all(|r| r.matches(labels))
    }
}

/// Renders a `metav1.LabelSelector` object (matchLabels, matchExpressions) in selector syntax.
pub(crate) fn label_selector_string(selector: &Value) -> String {
    let mut terms = Vec::new();
    if let Some(labels) = selector.get("matchLabels").and_then(Value::as_object) {
        for (k, v) in labels {
            terms.push(format!("{k}={}", v.as_str().unwrap_or_default()));
        }
    }
    for expr in selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let key = expr.get("key").and_then(Value::as_str).unwrap_or_default();
        let values: Vec<&str> = expr
            .get("values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        match expr.get("operator").and_then(Value::as_str) {
            Some("In") => terms.push(format!("{key} in ({})", values.join(","))),
            Some("NotIn") => terms.push(format!("{key} notin ({})", values.join(","))),
            Some("Exists") => terms.push(key.to_owned()),
            Some("DoesNotExist") => terms.push(format!("!{key}")),
            _ => {}
        }
    }
    terms.join(",")
}

/// Reads a dotted path (`spec.nodeName`) as the string a field selector compares.
pub(crate) fn field_value(object: &Value, path: &str) -> String {
    let mut current = object;
    for segment in path.split('.') {
        match current.get(segment) {
            Some(next) => current = next,
            None => return String::new(),
        }
    }
    match current {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// One `field=value` or `field!=value` term.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FieldTerm {
    field: String,
    value: String,
    negated: bool,
}

/// A parsed field selector; the empty selector matches everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FieldSelector {
    terms: Vec<FieldTerm>,
}

impl FieldSelector {
    /// Parses `metadata.name=x,spec.nodeName!=y`, accepting only fields `rt` supports.
    pub(crate) fn parse(input: &str, rt: &ResourceType) -> ApiResult<Self> {
        let mut terms = Vec::new();
        if input.trim().is_empty() {
            return Ok(Self { terms });
        }
        for term in input.split(',') {
            let (field, value, negated) = if let Some((f, v)) = term.split_once("!=") {
                (f, v, true)
            } else if let Some((f, v)) = term.split_once("==") {
                (f, v, false)
            } else if let Some((f, v)) = term.split_once('=') {
                (f, v, false)
            } else {
                return Err(ApiError::bad_request(format!(
                    "invalid field selector {input:?}: invalid selector: '{term}'; can't understand '{term}'"
                )));
            };
            let field = field.trim();
            let supported = matches!(field, "metadata.name" | "metadata.namespace")
                || rt.selectable_fields.iter().any(|f| f == field);
            if !supported {
                return Err(ApiError::bad_request(format!(
                    "field label not supported: {field}"
                )));
            }
            terms.push(FieldTerm {
                field: field.to_owned(),
                value: value.trim().to_owned(),
                negated,
            });
        }
        Ok(Self { terms })
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    pub(crate) fn matches(&self, object: &Value) -> bool {
        self.terms
            .iter()
            .all(|t| (field_value(object, &t.field) == t.value) != t.negated)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::testkit::registry::Registry;

    fn labelled(labels: Value) -> Value {
        json!({"metadata": {"labels": labels}})
    }

    #[test]
    fn equality_and_set_based_requirements() {
        let object = labelled(json!({"app": "web", "tier": "front"}));
        let cases = [
            ("app=web", true),
            ("app==web", true),
            ("app!=web", false),
            ("app in (web, db)", true),
            ("app notin (web)", false),
            ("tier", true),
            ("!tier", false),
            ("!missing,app=web", true),
            ("missing notin (x)", true),
            ("app in (db),tier", false),
            ("", true),
        ];
        for (selector, expected) in cases {
            let parsed = LabelSelector::parse(selector).expect(selector);
            assert_eq!(parsed.matches(&object), expected, "{selector}");
        }
    }

    #[test]
    fn malformed_label_selectors_are_rejected() {
        for selector in ["app in web", "a b c", "app=(x", "=x"] {
            assert!(LabelSelector::parse(selector).is_err(), "{selector}");
        }
    }

    #[test]
    fn label_selector_objects_render_as_strings() {
        let selector = json!({
            "matchLabels": {"app": "web"},
            "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]
        });
        assert_eq!(label_selector_string(&selector), "app=web,tier in (a,b)");
    }

    #[test]
    fn field_selectors_use_declared_fields() {
        let registry = Registry::with_built_ins();
        let pods = registry.get("", "v1", "pods").expect("pods");
        let pod = json!({"metadata": {"name": "p", "namespace": "ns"}, "spec": {"nodeName": "n1"}});
        assert!(
            FieldSelector::parse("spec.nodeName=n1", &pods)
                .expect("parse")
                .matches(&pod)
        );
        assert!(
            !FieldSelector::parse("spec.nodeName!=n1", &pods)
                .expect("parse")
                .matches(&pod)
        );
        assert!(
            FieldSelector::parse("metadata.namespace==ns,metadata.name=p", &pods)
                .expect("parse")
                .matches(&pod)
        );
        assert_eq!(
            FieldSelector::parse("spec.foo=x", &pods)
                .expect_err("unsupported")
                .code,
            400
        );
    }
}
