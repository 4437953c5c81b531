//! Label selectors (the runtime's, read from requests), field selectors and KEP-5866's
//! shard selectors (the runtime's, matched against JSON objects).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector as ApiLabelSelector;
use serde_json::{Map, Value};

use crate::store::registry::ResourceType;
use crate::store::status::{ApiError, ApiResult};
use kubegen_runtime::labels::{Labels, Selector};
use kubegen_runtime::shard::{ShardKey, ShardSelector};

/// An object's `metadata.labels`, as the runtime's selectors read them.
struct ObjectLabels<'a>(Option<&'a Map<String, Value>>);

impl Labels for ObjectLabels<'_> {
    fn label(&self, key: &str) -> Option<&str> {
        self.0?.get(key)?.as_str()
    }
}

/// A `labelSelector` query parameter: the runtime's [`Selector`], matched against JSON
/// objects, its parse errors answered as the API server's 400.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LabelSelector(Selector);

impl LabelSelector {
    /// Parses `a=b,c!=d,e in (x,y),f notin (z),g,!h`.
    pub(crate) fn parse(input: &str) -> ApiResult<Self> {
        input
            .parse()
            .map(Self)
            .map_err(|error| ApiError::bad_request(format!("unable to parse requirement: {error}")))
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_everything()
    }

    /// Whether an object's `metadata.labels` satisfy every requirement.
    pub(crate) fn matches(&self, object: &Value) -> bool {
        let labels = object
            .pointer("/metadata/labels")
            .and_then(Value::as_object);
        self.0.matches(&ObjectLabels(labels))
    }
}

/// Renders a `metav1.LabelSelector` object (matchLabels, matchExpressions) in selector
/// syntax, as the API server fills a Scale's `status.selector`; a selector that does not
/// convert is a 500, as there.
pub(crate) fn label_selector_string(selector: &Value) -> ApiResult<String> {
    let invalid = |why: String| ApiError::internal(format!("invalid label selector: {why}"));
    let api: ApiLabelSelector =
        serde_json::from_value(selector.clone()).map_err(|e| invalid(e.to_string()))?;
    Selector::try_from(&api)
        .map(|selector| selector.to_string())
        .map_err(|e| invalid(e.to_string()))
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

/// A `shardSelector` query parameter (KEP-5866, alpha in Kubernetes v1.36):
/// `shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`, several
/// joined by `||`; absent, it matches everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ShardFilter(Option<ShardSelector>);

impl ShardFilter {
    /// Parses the parameter; a malformed one is a 400 saying what is wrong.
    pub(crate) fn parse(input: Option<&str>) -> ApiResult<Self> {
        input
            .map(|text| {
                text.parse::<ShardSelector>()
                    .map_err(|error| ApiError::bad_request(error.to_string()))
            })
            .transpose()
            .map(Self)
    }

    /// The selector, to echo in the list's `metadata.shardInfo`.
    pub(crate) fn selector(&self) -> Option<&ShardSelector> {
        self.0.as_ref()
    }

    /// Whether the FNV-1a hash of the object's uid or namespace falls in a range.
    pub(crate) fn matches(&self, object: &Value) -> bool {
        self.0.as_ref().is_none_or(|selector| {
            let pointer = match selector.key() {
                ShardKey::Uid => "/metadata/uid",
                ShardKey::Namespace => "/metadata/namespace",
            };
            let value = object
                .pointer(pointer)
                .and_then(Value::as_str)
                .unwrap_or_default();
            selector.matches_value(value)
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::store::registry::Registry;

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
        for selector in ["app in web", "a b c", "app=(x", "=x", "app=a/b"] {
            let error = LabelSelector::parse(selector).expect_err(selector);
            assert_eq!(error.code, 400, "{selector}");
        }
    }

    #[test]
    fn label_selector_objects_render_as_strings() {
        let selector = json!({
            "matchLabels": {"app": "web"},
            "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]
        });
        assert_eq!(
            label_selector_string(&selector).expect("valid"),
            "app=web,tier in (a,b)"
        );
        let unknown = json!({"matchExpressions": [{"key": "tier", "operator": "Near"}]});
        assert_eq!(
            label_selector_string(&unknown).expect_err("invalid").code,
            500
        );
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

    #[test]
    fn shard_selectors_match_the_hash_of_the_uid_or_namespace() {
        // fnv1a_64("default") = 0xebada5168620c5fe, in the upper half.
        let object = json!({"metadata": {"namespace": "default", "uid": "u"}});
        let upper =
            "shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')";
        let lower = "shardRange(object.metadata.namespace, '0x0', '0x8000000000000000')";
        let matches = |selector| ShardFilter::parse(selector).is_ok_and(|f| f.matches(&object));
        assert!(matches(Some(upper)));
        assert!(!matches(Some(lower)));
        assert!(matches(None));
        match ShardFilter::parse(Some("shardRange(object.metadata.name, '0x0', '0x1')")) {
            Err(error) => {
                assert_eq!(error.code, 400);
                assert!(
                    error.message.contains("unsupported field"),
                    "{}",
                    error.message
                );
            }
            Ok(filter) => panic!("parsed {filter:?}"),
        }
    }
}
