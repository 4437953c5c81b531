//! The JSONPath subset CRD `additionalPrinterColumns` use: fields (`.spec.replicas`,
//! `['a.b']`), indexes (`[0]`, `[-1]`), wildcards (`[*]`, `.*`) and filters
//! (`[?(@.type=="Ready")]`, `!=`, or a bare `[?(@.field)]` for presence).

use serde_json::Value;

/// Why a path does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid JSONPath {path:?}: {why}")]
pub(crate) struct Error {
    path: String,
    why: &'static str,
}

#[derive(Debug, Clone, PartialEq)]
enum Step {
    Field(String),
    Index(i64),
    All,
    Filter {
        path: Vec<String>,
        test: Option<(bool, Value)>,
    },
}

/// A parsed path.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JsonPath {
    steps: Vec<Step>,
}

fn literal(text: &str) -> Option<Value> {
    let text = text.trim();
    if let Some(inner) = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .or_else(|| text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')))
    {
        return Some(Value::String(inner.to_owned()));
    }
    serde_json::from_str(text).ok()
}

fn filter(body: &str) -> Option<Step> {
    let (left, test) = match body.split_once("!=") {
        Some((left, right)) => (left, Some((false, literal(right)?))),
        None => match body.split_once("==") {
            Some((left, right)) => (left, Some((true, literal(right)?))),
            None => (body, None),
        },
    };
    let path = left.trim().strip_prefix('@')?;
    let path = path
        .split('.')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    Some(Step::Filter { path, test })
}

impl JsonPath {
    /// Parses a path such as `.status.conditions[?(@.type=="Ready")].status`; `{...}`
    /// around it and a leading `$` are accepted.
    pub(crate) fn parse(path: &str) -> Result<Self, Error> {
        let error = |why| Error {
            path: path.to_owned(),
            why,
        };
        let mut rest = path.trim();
        if let Some(inner) = rest.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            rest = inner.trim();
        }
        rest = rest.strip_prefix('$').unwrap_or(rest);
        let mut steps = Vec::new();
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('.') {
                let end = after.find(['.', '[']).unwrap_or(after.len());
                let name = &after[..end];
                match name {
                    "" => return Err(error("empty field name")),
                    "*" => steps.push(Step::All),
                    _ => steps.push(Step::Field(name.to_owned())),
                }
                rest = &after[end..];
            } else if let Some(after) = rest.strip_prefix('[') {
                let close = if after.starts_with("?(") {
                    after.find(")]").map(|i| i + 1)
                } else {
                    after.find(']')
                }
                .ok_or_else(|| error("unclosed ["))?;
                let inner = after[..close].trim();
                let step = if inner == "*" {
                    Step::All
                } else if let Some(body) =
                    inner.strip_prefix("?(").and_then(|b| b.strip_suffix(')'))
                {
                    filter(body).ok_or_else(|| error("unsupported filter"))?
                } else if let Some(Value::String(name)) = literal(inner)
                    .filter(|_| !inner.starts_with(|c: char| c.is_ascii_digit() || c == '-'))
                {
                    Step::Field(name)
                } else {
                    Step::Index(inner.parse().map_err(|_| error("unsupported subscript"))?)
                };
                steps.push(step);
                rest = &after[close + 1..];
            } else {
                return Err(error("expected . or ["));
            }
        }
        Ok(Self { steps })
    }

    /// Every value the path selects in `root`, in document order.
    pub(crate) fn find<'a>(&self, root: &'a Value) -> Vec<&'a Value> {
        let mut current = vec![root];
        for step in &self.steps {
            let mut next = Vec::new();
            for value in current {
                match (step, value) {
                    (Step::Field(name), Value::Object(map)) => next.extend(map.get(name)),
                    (Step::Index(i), Value::Array(items)) => {
                        let index = if *i < 0 { items.len() as i64 + i } else { *i };
                        next.extend(usize::try_from(index).ok().and_then(|i| items.get(i)));
                    }
                    (Step::All, Value::Array(items)) => next.extend(items),
                    (Step::All, Value::Object(map)) => next.extend(map.values()),
                    (Step::Filter { path, test }, Value::Array(items)) => {
                        next.extend(items.iter().filter(|item| {
                            let found = path.iter().try_fold(*item, |v, field| v.get(field));
                            match (found, test) {
                                (found, None) => found.is_some(),
                                (Some(found), Some((equal, wanted))) => (found == wanted) == *equal,
                                (None, Some((equal, _))) => !*equal,
                            }
                        }));
                    }
                    _ => {}
                }
            }
            current = next;
        }
        current
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn first(path: &str, value: &Value) -> Option<Value> {
        JsonPath::parse(path)
            .expect("parse")
            .find(value)
            .first()
            .map(|v| (*v).clone())
    }

    #[test]
    fn printer_column_paths() {
        let object = json!({
            "metadata": {"name": "x", "labels": {"app.kubernetes.io/name": "web"}},
            "spec": {"replicas": 3, "items": [{"name": "a"}, {"name": "b"}]},
            "status": {"conditions": [
                {"type": "Synced", "status": "False"},
                {"type": "Ready", "status": "True"}
            ]}
        });
        assert_eq!(first(".spec.replicas", &object), Some(json!(3)));
        assert_eq!(first("{.spec.replicas}", &object), Some(json!(3)));
        assert_eq!(first("$.metadata.name", &object), Some(json!("x")));
        assert_eq!(first(".spec.items[1].name", &object), Some(json!("b")));
        assert_eq!(first(".spec.items[-1].name", &object), Some(json!("b")));
        assert_eq!(first(".spec.items[*].name", &object), Some(json!("a")));
        assert_eq!(
            first(r#".status.conditions[?(@.type=="Ready")].status"#, &object),
            Some(json!("True"))
        );
        assert_eq!(
            first(r#".status.conditions[?(@.type!="Synced")].type"#, &object),
            Some(json!("Ready"))
        );
        assert_eq!(
            first(".metadata.labels['app.kubernetes.io/name']", &object),
            Some(json!("web"))
        );
        assert_eq!(first(".spec.missing", &object), None);
        assert_eq!(first(".spec.replicas[0]", &object), None);
        assert!(JsonPath::parse(".spec[").is_err());
        assert!(JsonPath::parse("spec").is_err());
    }
}
