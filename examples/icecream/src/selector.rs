//! `metav1.LabelSelector` (what users write in a spec) to the runtime's [`Selector`]
//! (what listers filter with).

use std::collections::BTreeSet;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kubegen_runtime::lister::{Requirement, Selector};

/// Why a label selector is not valid.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    /// An expression used an operator Kubernetes does not know.
    #[error("failed to convert the label selector: unknown operator {operator:?} for key {key:?}")]
    UnknownOperator {
        /// The expression's key.
        key: String,
        /// The operator.
        operator: String,
    },
    /// `In` / `NotIn` without values, or `Exists` / `DoesNotExist` with values.
    #[error("failed to convert the label selector: operator {operator} for key {key:?} {problem}")]
    BadValues {
        /// The expression's key.
        key: String,
        /// The operator.
        operator: String,
        /// What is wrong.
        problem: &'static str,
    },
}

/// Converts a label selector as `metav1.LabelSelectorAsSelector` does: every
/// `matchLabels` pair and every expression must hold; an empty selector selects everything.
pub fn to_selector(label_selector: &LabelSelector) -> Result<Selector, SelectorError> {
    let mut selector = Selector::everything();
    for (key, value) in label_selector.match_labels.iter().flatten() {
        selector = selector.with(Requirement::Equals(key.clone(), value.clone()));
    }
    for expression in label_selector.match_expressions.iter().flatten() {
        let key = expression.key.clone();
        let values: BTreeSet<String> = expression.values.iter().flatten().cloned().collect();
        let bad = |problem| SelectorError::BadValues {
            key: key.clone(),
            operator: expression.operator.clone(),
            problem,
        };
        let requirement = match expression.operator.as_str() {
            "In" | "NotIn" if values.is_empty() => return Err(bad("needs values")),
            "Exists" | "DoesNotExist" if !values.is_empty() => return Err(bad("takes no values")),
            "In" => Requirement::In(key, values),
            "NotIn" => Requirement::NotIn(key, values),
            "Exists" => Requirement::Exists(key),
            "DoesNotExist" => Requirement::DoesNotExist(key),
            other => {
                return Err(SelectorError::UnknownOperator {
                    key,
                    operator: other.to_owned(),
                });
            }
        };
        selector = selector.with(requirement);
    }
    Ok(selector)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;

    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn expression(key: &str, operator: &str, values: &[&str]) -> LabelSelectorRequirement {
        LabelSelectorRequirement {
            key: key.into(),
            operator: operator.into(),
            values: (!values.is_empty()).then(|| values.iter().map(|v| (*v).to_owned()).collect()),
        }
    }

    #[test]
    fn converts_labels_and_expressions() {
        let selector = to_selector(&LabelSelector {
            match_labels: Some(labels(&[("app", "ice")])),
            match_expressions: Some(vec![
                expression("flavor", "In", &["vanilla", "chocolate"]),
                expression("legacy", "DoesNotExist", &[]),
            ]),
        })
        .unwrap();
        assert!(selector.matches(&labels(&[("app", "ice"), ("flavor", "vanilla")])));
        assert!(!selector.matches(&labels(&[("app", "ice"), ("flavor", "mint")])));
        assert!(!selector.matches(&labels(&[
            ("app", "ice"),
            ("flavor", "vanilla"),
            ("legacy", "")
        ])));
        assert!(
            to_selector(&LabelSelector::default())
                .unwrap()
                .is_everything()
        );
    }

    #[test]
    fn rejects_what_kubernetes_rejects() {
        let with = |e| LabelSelector {
            match_expressions: Some(vec![e]),
            ..Default::default()
        };
        assert!(matches!(
            to_selector(&with(expression("a", "Near", &[]))),
            Err(SelectorError::UnknownOperator { .. })
        ));
        assert!(matches!(
            to_selector(&with(expression("a", "In", &[]))),
            Err(SelectorError::BadValues { .. })
        ));
        assert!(matches!(
            to_selector(&with(expression("a", "Exists", &["x"]))),
            Err(SelectorError::BadValues { .. })
        ));
    }
}
