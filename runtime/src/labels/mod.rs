//! Label selectors, one type for the whole runtime (apimachinery's `labels` package):
//! parsed from the string syntax (`app=web,tier in (a,b),!legacy`), built from a
//! `metav1.LabelSelector`, matched against labels. Listers filter with it, the testkit
//! API server answers `?labelSelector=` with it, controllers turn their specs' selectors
//! into it. Keys and values are checked as the API server checks them.

mod parse;
pub mod validation;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::hash::BuildHasher;
use std::str::FromStr;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector as ApiLabelSelector;

/// `Result` with this module's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a selector could not be parsed or converted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The selector string is not valid label selector syntax.
    #[error("failed to parse label selector {input:?} at byte {at}: expected {expected}")]
    Syntax {
        /// The whole selector.
        input: String,
        /// Where parsing stopped.
        at: usize,
        /// What was expected there.
        expected: &'static str,
    },
    /// A `matchExpressions` entry used an operator other than In/NotIn/Exists/DoesNotExist.
    #[error("failed to convert label selector: unknown operator {operator:?} for key {key:?}")]
    UnknownOperator {
        /// The label key.
        key: String,
        /// The operator.
        operator: String,
    },
    /// An `In`/`NotIn` requirement without values.
    #[error("failed to convert label selector: operator {operator} on {key:?} needs values")]
    MissingValues {
        /// The label key.
        key: String,
        /// The operator.
        operator: &'static str,
    },
    /// An `Exists`/`DoesNotExist` requirement with values.
    #[error("failed to convert label selector: operator {operator} on {key:?} takes no values")]
    UnexpectedValues {
        /// The label key.
        key: String,
        /// The operator.
        operator: &'static str,
    },
    /// A key is not a qualified name (`[prefix/]name`).
    #[error("invalid label key {key:?}: {reason}")]
    InvalidKey {
        /// The key.
        key: String,
        /// What is wrong with it, in the API server's words.
        reason: String,
    },
    /// A value is not a valid label value.
    #[error("invalid value {value:?} for label {key:?}: {reason}")]
    InvalidValue {
        /// The key it was compared with.
        key: String,
        /// The value.
        value: String,
        /// What is wrong with it, in the API server's words.
        reason: String,
    },
}

/// Labels a selector can be matched against (apimachinery's `labels.Labels`): maps of
/// strings, or any view of an object's labels that can look one up.
pub trait Labels {
    /// The value of label `key`, if the label is set.
    fn label(&self, key: &str) -> Option<&str>;
}

impl Labels for BTreeMap<String, String> {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).map(String::as_str)
    }
}

impl<S: BuildHasher> Labels for HashMap<String, String, S> {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).map(String::as_str)
    }
}

/// One requirement on one label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Requirement {
    /// `key=value` / `key==value`.
    Equals(String, String),
    /// `key!=value` (also true when the label is absent, as in Kubernetes).
    NotEquals(String, String),
    /// `key in (a,b)`.
    In(String, BTreeSet<String>),
    /// `key notin (a,b)` (also true when the label is absent).
    NotIn(String, BTreeSet<String>),
    /// `key`.
    Exists(String),
    /// `!key`.
    DoesNotExist(String),
}

impl Requirement {
    /// Whether `labels` satisfy this requirement.
    pub fn matches<L: Labels + ?Sized>(&self, labels: &L) -> bool {
        match self {
            Requirement::Equals(k, v) => labels.label(k) == Some(v.as_str()),
            Requirement::NotEquals(k, v) => labels.label(k) != Some(v.as_str()),
            Requirement::In(k, vs) => labels.label(k).is_some_and(|v| vs.contains(v)),
            Requirement::NotIn(k, vs) => labels.label(k).is_none_or(|v| !vs.contains(v)),
            Requirement::Exists(k) => labels.label(k).is_some(),
            Requirement::DoesNotExist(k) => labels.label(k).is_none(),
        }
    }

    /// The label key.
    pub fn key(&self) -> &str {
        match self {
            Requirement::Equals(k, _)
            | Requirement::NotEquals(k, _)
            | Requirement::In(k, _)
            | Requirement::NotIn(k, _)
            | Requirement::Exists(k)
            | Requirement::DoesNotExist(k) => k,
        }
    }

    /// This requirement if its key and values are what the API server accepts.
    fn checked(self) -> Result<Self> {
        let key = self.key();
        if let Some(reason) = validation::qualified_name_error(key) {
            return Err(Error::InvalidKey {
                key: key.to_owned(),
                reason,
            });
        }
        let values: Vec<&String> = match &self {
            Requirement::Equals(_, v) | Requirement::NotEquals(_, v) => vec![v],
            Requirement::In(_, vs) | Requirement::NotIn(_, vs) => vs.iter().collect(),
            Requirement::Exists(_) | Requirement::DoesNotExist(_) => Vec::new(),
        };
        for value in values {
            if let Some(reason) = validation::label_value_error(value) {
                return Err(Error::InvalidValue {
                    key: key.to_owned(),
                    value: value.clone(),
                    reason,
                });
            }
        }
        Ok(self)
    }
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let set = |vs: &BTreeSet<String>| vs.iter().cloned().collect::<Vec<_>>().join(",");
        match self {
            Requirement::Equals(k, v) => write!(f, "{k}={v}"),
            Requirement::NotEquals(k, v) => write!(f, "{k}!={v}"),
            Requirement::In(k, vs) => write!(f, "{k} in ({})", set(vs)),
            Requirement::NotIn(k, vs) => write!(f, "{k} notin ({})", set(vs)),
            Requirement::Exists(k) => write!(f, "{k}"),
            Requirement::DoesNotExist(k) => write!(f, "!{k}"),
        }
    }
}

/// A label selector: all requirements must hold. The empty selector matches everything.
///
/// ```
/// use std::collections::BTreeMap;
/// use kubegen_runtime::labels::Selector;
///
/// let selector: Selector = "app=web,tier!=db,env in (prod, staging),!legacy".parse().unwrap();
/// let labels = BTreeMap::from([
///     ("app".to_string(), "web".to_string()),
///     ("env".to_string(), "prod".to_string()),
/// ]);
/// assert!(selector.matches(&labels));
/// assert_eq!(selector.to_string(), "app=web,tier!=db,env in (prod,staging),!legacy");
/// ```
///
/// From a spec's `metav1.LabelSelector`, as `metav1.LabelSelectorAsSelector` converts it:
///
/// ```
/// use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};
/// use kubegen_runtime::labels::Selector;
///
/// let spec = LabelSelector {
///     match_labels: Some([("app".to_string(), "web".to_string())].into()),
///     match_expressions: Some(vec![LabelSelectorRequirement {
///         key: "tier".into(),
///         operator: "NotIn".into(),
///         values: Some(vec!["db".into()]),
///     }]),
/// };
/// let selector = Selector::try_from(&spec).unwrap();
/// assert_eq!(selector.to_string(), "app=web,tier notin (db)");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selector {
    requirements: Vec<Requirement>,
}

impl Selector {
    /// The selector that matches every object.
    pub fn everything() -> Self {
        Self::default()
    }

    /// Adds a requirement (consuming setter). It is not validated: parse or convert
    /// untrusted input instead.
    #[must_use]
    pub fn with(mut self, requirement: Requirement) -> Self {
        self.requirements.push(requirement);
        self
    }

    /// The requirements, in order.
    pub fn requirements(&self) -> &[Requirement] {
        &self.requirements
    }

    /// Whether this selector matches everything.
    pub fn is_everything(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Whether `labels` satisfy every requirement.
    pub fn matches<L: Labels + ?Sized>(&self, labels: &L) -> bool {
        self.requirements.iter().all(|r| r.matches(labels))
    }

    /// Whether an object's labels (absent labels: empty) satisfy every requirement.
    pub fn matches_labels(&self, labels: Option<&BTreeMap<String, String>>) -> bool {
        static EMPTY: BTreeMap<String, String> = BTreeMap::new();
        self.matches(labels.unwrap_or(&EMPTY))
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.requirements.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            r.fmt(f)?;
        }
        Ok(())
    }
}

impl TryFrom<&ApiLabelSelector> for Selector {
    type Error = Error;

    /// `matchLabels` and `matchExpressions` ANDed, as the API server evaluates them
    /// (`metav1.LabelSelectorAsSelector`); an empty selector selects everything.
    fn try_from(api: &ApiLabelSelector) -> Result<Self> {
        let mut selector = Selector::everything();
        for (k, v) in api.match_labels.iter().flatten() {
            let requirement = Requirement::Equals(k.clone(), v.clone()).checked()?;
            selector.requirements.push(requirement);
        }
        for expr in api.match_expressions.iter().flatten() {
            let values: BTreeSet<String> = expr.values.iter().flatten().cloned().collect();
            let key = expr.key.clone();
            let requirement = match expr.operator.as_str() {
                "In" if values.is_empty() => {
                    return Err(Error::MissingValues {
                        key,
                        operator: "In",
                    });
                }
                "NotIn" if values.is_empty() => {
                    return Err(Error::MissingValues {
                        key,
                        operator: "NotIn",
                    });
                }
                "Exists" if !values.is_empty() => {
                    return Err(Error::UnexpectedValues {
                        key,
                        operator: "Exists",
                    });
                }
                "DoesNotExist" if !values.is_empty() => {
                    return Err(Error::UnexpectedValues {
                        key,
                        operator: "DoesNotExist",
                    });
                }
                "In" => Requirement::In(key, values),
                "NotIn" => Requirement::NotIn(key, values),
                "Exists" => Requirement::Exists(key),
                "DoesNotExist" => Requirement::DoesNotExist(key),
                other => {
                    return Err(Error::UnknownOperator {
                        key,
                        operator: other.to_owned(),
                    });
                }
            };
            selector.requirements.push(requirement.checked()?);
        }
        Ok(selector)
    }
}

impl FromStr for Selector {
    type Err = Error;

    /// Parses client-go's syntax: `,`-separated requirements `k=v`, `k==v`, `k!=v`,
    /// `k in (a,b)`, `k notin (a,b)`, `k`, `!k`; the empty string selects everything.
    fn from_str(input: &str) -> Result<Self> {
        parse::selector(input)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;

    pub(super) fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn expression(key: &str, operator: &str, values: &[&str]) -> LabelSelectorRequirement {
        LabelSelectorRequirement {
            key: key.into(),
            operator: operator.into(),
            values: (!values.is_empty()).then(|| values.iter().map(|v| v.to_string()).collect()),
        }
    }

    fn with_expression(expression: LabelSelectorRequirement) -> ApiLabelSelector {
        ApiLabelSelector {
            match_expressions: Some(vec![expression]),
            ..Default::default()
        }
    }

    #[test]
    fn matching_follows_kubernetes_semantics() {
        let s: Selector = "a=b,c!=d,e in (x,y),!f".parse().unwrap();
        assert!(s.matches(&labels(&[("a", "b"), ("e", "x")])));
        assert!(s.matches(&labels(&[("a", "b"), ("c", "z"), ("e", "y")])));
        assert!(!s.matches(&labels(&[("a", "b"), ("c", "d"), ("e", "x")])));
        assert!(!s.matches(&labels(&[("a", "b"), ("e", "w")])));
        assert!(!s.matches(&labels(&[("a", "b"), ("e", "x"), ("f", "")])));
        assert!(!s.matches(&labels(&[("e", "x")])));
        let notin: Selector = "k notin (v)".parse().unwrap();
        assert!(notin.matches(&labels(&[])));
        assert!(!notin.matches(&labels(&[("k", "v")])));
        assert!(Selector::everything().matches_labels(None));
        assert!("".parse::<Selector>().unwrap().is_everything());
        assert!(
            "a=".parse::<Selector>()
                .unwrap()
                .matches(&labels(&[("a", "")]))
        );
    }

    #[test]
    fn matches_any_labels_view() {
        /// Labels stored as `key:value` lines, looked up without building a map.
        struct Lines(&'static str);
        impl Labels for Lines {
            fn label(&self, key: &str) -> Option<&str> {
                self.0
                    .lines()
                    .find_map(|line| line.strip_prefix(key)?.strip_prefix(':'))
            }
        }
        let s: Selector = "app=web,!legacy".parse().unwrap();
        assert!(s.matches(&Lines("app:web\ntier:db")));
        assert!(!s.matches(&Lines("app:web\nlegacy:")));
        let hashed: HashMap<String, String> = labels(&[("app", "web")]).into_iter().collect();
        assert!(s.matches(&hashed));
    }

    #[test]
    fn converts_api_label_selectors() {
        let api = ApiLabelSelector {
            match_labels: Some(labels(&[("app", "web")])),
            match_expressions: Some(vec![
                expression("env", "In", &["prod", "staging"]),
                expression("old", "DoesNotExist", &[]),
            ]),
        };
        let s = Selector::try_from(&api).unwrap();
        assert_eq!(s.to_string(), "app=web,env in (prod,staging),!old");
        assert!(s.matches(&labels(&[("app", "web"), ("env", "prod")])));
        assert!(!s.matches(&labels(&[("app", "web"), ("env", "dev")])));
        assert!(!s.matches(&labels(&[("app", "web"), ("env", "prod"), ("old", "")])));
        assert!(
            Selector::try_from(&ApiLabelSelector::default())
                .unwrap()
                .is_everything()
        );
    }

    #[test]
    fn conversion_rejects_what_kubernetes_rejects() {
        let convert = |e| Selector::try_from(&with_expression(e));
        assert_eq!(
            convert(expression("k", "Near", &[])),
            Err(Error::UnknownOperator {
                key: "k".into(),
                operator: "Near".into()
            })
        );
        assert!(matches!(
            convert(expression("k", "In", &[])),
            Err(Error::MissingValues { operator: "In", .. })
        ));
        assert!(matches!(
            convert(expression("k", "NotIn", &[])),
            Err(Error::MissingValues {
                operator: "NotIn",
                ..
            })
        ));
        assert!(matches!(
            convert(expression("k", "Exists", &["x"])),
            Err(Error::UnexpectedValues {
                operator: "Exists",
                ..
            })
        ));
        assert!(matches!(
            convert(expression("Bad Key", "Exists", &[])),
            Err(Error::InvalidKey { .. })
        ));
        assert!(matches!(
            convert(expression("k", "In", &["ok", "not ok"])),
            Err(Error::InvalidValue { value, .. }) if value == "not ok"
        ));
        let bad_label = ApiLabelSelector {
            match_labels: Some(labels(&[("app", &"x".repeat(64))])),
            ..Default::default()
        };
        assert!(matches!(
            Selector::try_from(&bad_label),
            Err(Error::InvalidValue { .. })
        ));
    }
}
