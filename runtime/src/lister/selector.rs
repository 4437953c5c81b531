//! Label selectors: parsed from client-go's string syntax or built from a
//! `metav1.LabelSelector`, and matched against an object's labels.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector as ApiLabelSelector;

/// Why a selector could not be parsed or converted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The selector string is not valid label selector syntax.
    #[error("failed to parse label selector {input:?} at byte {at}: {expected}")]
    Syntax {
        /// The whole selector.
        input: String,
        /// Where parsing stopped.
        at: usize,
        /// What was expected there.
        expected: &'static str,
    },
    /// A `matchExpressions` entry used an operator other than In/NotIn/Exists/DoesNotExist.
    #[error("failed to convert label selector: unknown operator {0:?}")]
    UnknownOperator(String),
    /// An `In`/`NotIn` requirement without values.
    #[error("failed to convert label selector: operator {operator} on {key:?} needs values")]
    MissingValues {
        /// The label key.
        key: String,
        /// The operator.
        operator: &'static str,
    },
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
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        match self {
            Requirement::Equals(k, v) => labels.get(k) == Some(v),
            Requirement::NotEquals(k, v) => labels.get(k) != Some(v),
            Requirement::In(k, vs) => labels.get(k).is_some_and(|v| vs.contains(v)),
            Requirement::NotIn(k, vs) => labels.get(k).is_none_or(|v| !vs.contains(v)),
            Requirement::Exists(k) => labels.contains_key(k),
            Requirement::DoesNotExist(k) => !labels.contains_key(k),
        }
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
/// use kubegen_runtime::lister::Selector;
///
/// let selector: Selector = "app=web,tier!=db,env in (prod, staging),!legacy".parse().unwrap();
/// let labels = BTreeMap::from([
///     ("app".to_string(), "web".to_string()),
///     ("env".to_string(), "prod".to_string()),
/// ]);
/// assert!(selector.matches(&labels));
/// assert_eq!(selector.to_string(), "app=web,tier!=db,env in (prod,staging),!legacy");
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

    /// Adds a requirement (consuming setter).
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
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
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

    /// `matchLabels` and `matchExpressions` ANDed, as the API server evaluates them.
    fn try_from(api: &ApiLabelSelector) -> Result<Self, Error> {
        let mut selector = Selector::everything();
        for (k, v) in api.match_labels.iter().flatten() {
            selector
                .requirements
                .push(Requirement::Equals(k.clone(), v.clone()));
        }
        for expr in api.match_expressions.iter().flatten() {
            let values: BTreeSet<String> = expr.values.iter().flatten().cloned().collect();
            let key = expr.key.clone();
            let requirement = match expr.operator.as_str() {
                "In" | "NotIn" if values.is_empty() => {
                    let operator = if expr.operator == "In" { "In" } else { "NotIn" };
                    return Err(Error::MissingValues { key, operator });
                }
                "In" => Requirement::In(key, values),
                "NotIn" => Requirement::NotIn(key, values),
                "Exists" => Requirement::Exists(key),
                "DoesNotExist" => Requirement::DoesNotExist(key),
                other => return Err(Error::UnknownOperator(other.to_owned())),
            };
            selector.requirements.push(requirement);
        }
        Ok(selector)
    }
}

impl FromStr for Selector {
    type Err = Error;

    fn from_str(input: &str) -> Result<Self, Error> {
        Parser { input, pos: 0 }.selector()
    }
}

struct Parser<'a> {
    input: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, expected: &'static str) -> Error {
        Error::Syntax {
            input: self.input.to_owned(),
            at: self.pos,
            expected,
        }
    }

    fn rest(&self) -> &str {
        &self.input[self.pos..]
    }

    fn skip_spaces(&mut self) {
        let trimmed = self.rest().trim_start();
        self.pos = self.input.len() - trimmed.len();
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_spaces();
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    /// A label key or value: letters, digits and `-_./`.
    fn word(&mut self) -> &str {
        self.skip_spaces();
        let len = self
            .rest()
            .find(|c: char| !(c.is_ascii_alphanumeric() || "-_./".contains(c)))
            .unwrap_or(self.rest().len());
        let start = self.pos;
        self.pos += len;
        &self.input[start..self.pos]
    }

    fn key(&mut self) -> Result<String, Error> {
        let word = self.word();
        if word.is_empty() {
            Err(self.error("a label key"))
        } else {
            Ok(word.to_owned())
        }
    }

    fn selector(mut self) -> Result<Selector, Error> {
        let mut selector = Selector::everything();
        self.skip_spaces();
        if self.rest().is_empty() {
            return Ok(selector);
        }
        loop {
            selector.requirements.push(self.requirement()?);
            self.skip_spaces();
            if self.rest().is_empty() {
                return Ok(selector);
            }
            if !self.eat(",") {
                return Err(self.error("',' or the end of the selector"));
            }
        }
    }

    fn requirement(&mut self) -> Result<Requirement, Error> {
        if self.eat("!") {
            return Ok(Requirement::DoesNotExist(self.key()?));
        }
        let key = self.key()?;
        if self.eat("!=") {
            return Ok(Requirement::NotEquals(key, self.word().to_owned()));
        }
        if self.eat("==") || self.eat("=") {
            return Ok(Requirement::Equals(key, self.word().to_owned()));
        }
        self.skip_spaces();
        let save = self.pos;
        match self.word() {
            "in" => Ok(Requirement::In(key, self.set()?)),
            "notin" => Ok(Requirement::NotIn(key, self.set()?)),
            "" => {
                self.pos = save;
                Ok(Requirement::Exists(key))
            }
            _ => {
                self.pos = save;
                Err(self.error("'=', '==', '!=', 'in', 'notin', ',' or the end"))
            }
        }
    }

    fn set(&mut self) -> Result<BTreeSet<String>, Error> {
        if !self.eat("(") {
            return Err(self.error("'(' opening a value set"));
        }
        let mut values = BTreeSet::new();
        loop {
            let value = self.word().to_owned();
            if value.is_empty() {
                return Err(self.error("a value"));
            }
            values.insert(value);
            if self.eat(")") {
                return Ok(values);
            }
            if !self.eat(",") {
                return Err(self.error("',' or ')' in a value set"));
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn parses_every_operator() {
        let s: Selector = "a=b, c!=d,e in (x, y),!f,g,h==i,j notin (z)"
            .parse()
            .unwrap();
        assert_eq!(
            s.requirements(),
            [
                Requirement::Equals("a".into(), "b".into()),
                Requirement::NotEquals("c".into(), "d".into()),
                Requirement::In("e".into(), ["x".to_string(), "y".to_string()].into()),
                Requirement::DoesNotExist("f".into()),
                Requirement::Exists("g".into()),
                Requirement::Equals("h".into(), "i".into()),
                Requirement::NotIn("j".into(), ["z".to_string()].into()),
            ]
        );
        assert_eq!(s.to_string().parse::<Selector>().unwrap(), s);
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
    fn syntax_errors_say_where() {
        for (bad, at) in [
            ("a=b,", 4),
            ("a in x", 5),
            ("a in (x", 7),
            ("a b", 2),
            ("=b", 0),
        ] {
            match bad.parse::<Selector>() {
                Err(Error::Syntax { at: got, .. }) => assert_eq!(got, at, "{bad}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
    }

    #[test]
    fn converts_api_label_selectors() {
        let api = ApiLabelSelector {
            match_labels: Some([("app".to_string(), "web".to_string())].into()),
            match_expressions: Some(vec![
                LabelSelectorRequirement {
                    key: "env".into(),
                    operator: "In".into(),
                    values: Some(vec!["prod".into()]),
                },
                LabelSelectorRequirement {
                    key: "old".into(),
                    operator: "DoesNotExist".into(),
                    values: None,
                },
            ]),
        };
        let s = Selector::try_from(&api).unwrap();
        assert_eq!(s.to_string(), "app=web,env in (prod),!old");
        let bad = ApiLabelSelector {
            match_expressions: Some(vec![LabelSelectorRequirement {
                key: "k".into(),
                operator: "Near".into(),
                values: None,
            }]),
            ..Default::default()
        };
        assert_eq!(
            Selector::try_from(&bad),
            Err(Error::UnknownOperator("Near".into()))
        );
    }
}
