//! One `rbac.authorization.k8s.io/v1` PolicyRule and whether it allows a request, as
//! kube-apiserver's `RuleAllows` (`plugin/pkg/auth/authorizer/rbac/rbac.go`) decides.

use serde_json::Value;

use super::{Attributes, ResourceAttributes};

/// A PolicyRule read from a stored Role or ClusterRole.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Rule {
    pub(crate) verbs: Vec<String>,
    pub(crate) api_groups: Vec<String>,
    pub(crate) resources: Vec<String>,
    pub(crate) resource_names: Vec<String>,
    pub(crate) non_resource_urls: Vec<String>,
}

/// Every string of a list field (missing or mistyped: none).
fn strings(rule: &Value, field: &str) -> Vec<String> {
    rule.get(field)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// The `rules` of a stored Role or ClusterRole.
pub(crate) fn of_role(role: &Value) -> Vec<Rule> {
    role.get("rules")
        .and_then(Value::as_array)
        .map(|rules| rules.iter().map(Rule::from_json).collect())
        .unwrap_or_default()
}

/// The wildcard of every list of a rule.
const ALL: &str = "*";

impl Rule {
    /// A rule as its JSON form states it.
    pub(crate) fn from_json(rule: &Value) -> Self {
        Self {
            verbs: strings(rule, "verbs"),
            api_groups: strings(rule, "apiGroups"),
            resources: strings(rule, "resources"),
            resource_names: strings(rule, "resourceNames"),
            non_resource_urls: strings(rule, "nonResourceURLs"),
        }
    }

    /// Whether the rule allows the request.
    pub(crate) fn allows(&self, request: &Attributes) -> bool {
        match request {
            Attributes::Resource(resource) => {
                self.verb_matches(&resource.verb)
                    && self.group_matches(&resource.group)
                    && self.resource_matches(resource)
                    && self.name_matches(&resource.name)
            }
            Attributes::NonResource { verb, path } => {
                self.verb_matches(verb) && self.url_matches(path)
            }
        }
    }

    fn verb_matches(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == ALL || v == verb)
    }

    fn group_matches(&self, group: &str) -> bool {
        self.api_groups.iter().any(|g| g == ALL || g == group)
    }

    /// `*` is every resource and subresource; `pods/status` one subresource;
    /// `*/status` that subresource of every resource.
    fn resource_matches(&self, request: &ResourceAttributes) -> bool {
        let combined = match &request.subresource {
            Some(sub) => format!("{}/{sub}", request.resource),
            None => request.resource.clone(),
        };
        self.resources.iter().any(|r| {
            r == ALL
                || *r == combined
                || request
                    .subresource
                    .as_ref()
                    .is_some_and(|sub| r.strip_prefix("*/") == Some(sub.as_str()))
        })
    }

    /// No names: every object; otherwise only requests naming one of them (a list,
    /// a watch or a create names none, so such a rule never allows them).
    fn name_matches(&self, name: &str) -> bool {
        self.resource_names.is_empty() || self.resource_names.iter().any(|n| n == name)
    }

    /// `*` is every path, `/apis/*` every path under `/apis/`, else an exact path.
    fn url_matches(&self, path: &str) -> bool {
        self.non_resource_urls.iter().any(|url| {
            url == ALL
                || url == path
                || url
                    .strip_suffix('*')
                    .is_some_and(|prefix| path.starts_with(prefix))
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn request(
        verb: &str,
        group: &str,
        resource: &str,
        sub: Option<&str>,
        name: &str,
    ) -> Attributes {
        Attributes::Resource(ResourceAttributes {
            verb: verb.to_owned(),
            group: group.to_owned(),
            resource: resource.to_owned(),
            subresource: sub.map(str::to_owned),
            namespace: "default".to_owned(),
            name: name.to_owned(),
        })
    }

    fn rule(value: Value) -> Rule {
        Rule::from_json(&value)
    }

    #[test]
    fn verbs_groups_and_resources_match_exactly_or_by_wildcard() {
        let get_pods =
            rule(json!({"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}));
        assert!(get_pods.allows(&request("get", "", "pods", None, "p")));
        assert!(get_pods.allows(&request("list", "", "pods", None, "")));
        assert!(!get_pods.allows(&request("watch", "", "pods", None, "")));
        assert!(!get_pods.allows(&request("get", "apps", "pods", None, "p")));
        assert!(
            !get_pods.allows(&request("get", "", "pods", Some("status"), "p")),
            "a subresource is another resource"
        );
        let everything = rule(json!({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}));
        assert!(everything.allows(&request(
            "deletecollection",
            "apps",
            "deployments",
            None,
            ""
        )));
        assert!(everything.allows(&request(
            "update",
            "apps",
            "deployments",
            Some("status"),
            "d"
        )));
    }

    #[test]
    fn subresources_match_by_name_or_star_slash() {
        let status = rule(
            json!({"verbs": ["update"], "apiGroups": ["apps"], "resources": ["deployments/status"]}),
        );
        assert!(status.allows(&request(
            "update",
            "apps",
            "deployments",
            Some("status"),
            "d"
        )));
        assert!(!status.allows(&request("update", "apps", "deployments", None, "d")));
        assert!(!status.allows(&request(
            "update",
            "apps",
            "deployments",
            Some("scale"),
            "d"
        )));
        let any_status =
            rule(json!({"verbs": ["patch"], "apiGroups": ["*"], "resources": ["*/status"]}));
        assert!(any_status.allows(&request(
            "patch",
            "example.com",
            "foos",
            Some("status"),
            "f"
        )));
        assert!(!any_status.allows(&request("patch", "example.com", "foos", None, "f")));
    }

    #[test]
    fn resource_names_restrict_to_named_requests() {
        let one = rule(
            json!({"verbs": ["get", "list", "update"], "apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "resourceNames": ["lock"]}),
        );
        assert!(one.allows(&request(
            "get",
            "coordination.k8s.io",
            "leases",
            None,
            "lock"
        )));
        assert!(!one.allows(&request(
            "get",
            "coordination.k8s.io",
            "leases",
            None,
            "other"
        )));
        assert!(!one.allows(&request("list", "coordination.k8s.io", "leases", None, "")));
    }

    #[test]
    fn non_resource_urls_match_exactly_or_by_prefix() {
        let discovery = rule(json!({"verbs": ["get"], "nonResourceURLs": ["/apis/*", "/healthz"]}));
        let path = |verb: &str, path: &str| Attributes::NonResource {
            verb: verb.to_owned(),
            path: path.to_owned(),
        };
        assert!(discovery.allows(&path("get", "/apis/apps/v1")));
        assert!(discovery.allows(&path("get", "/healthz")));
        assert!(!discovery.allows(&path("get", "/healthz/ping")));
        assert!(!discovery.allows(&path("post", "/apis/apps")));
        assert!(
            !discovery.allows(&request("get", "", "pods", None, "")),
            "a resource rule needs resources"
        );
        let role =
            json!({"rules": [{"verbs": ["get"], "nonResourceURLs": ["*"]}, {"verbs": "get"}]});
        let rules = of_role(&role);
        assert_eq!(rules.len(), 2);
        assert!(rules[0].allows(&path("get", "/anything")));
        assert_eq!(rules[1], Rule::default(), "a mistyped list is empty");
    }
}
