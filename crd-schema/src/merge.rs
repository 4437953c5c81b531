//! Several versions of one kind made one CustomResourceDefinition (as JSON): [`merge`]
//! checks that they are one kind and lists every version, [`sort_versions`] orders them
//! in Kubernetes' version priority ([`compare_versions`]), [`set_storage`] picks the one
//! stored.
//!
//! ```
//! use kubegen_crd_schema::envelope::{Definition, Names, Scope, Version};
//! use kubegen_crd_schema::{merge, set_storage, sort_versions};
//! use serde_json::json;
//!
//! let foo = |version| Definition {
//!     group: "example.com".into(),
//!     names: Names::new("Foo", "foos", "foo"),
//!     scope: Scope::Namespaced,
//!     versions: vec![Version::new(version, json!({ "type": "object" }))],
//! }
//! .to_value();
//! let mut crd = merge([foo("v1alpha1"), foo("v1")])?;
//! sort_versions(&mut crd);
//! set_storage(&mut crd, "v1")?;
//! assert_eq!(crd["spec"]["versions"][0]["name"], "v1");
//! assert_eq!(crd["spec"]["versions"][1]["storage"], false);
//! # Ok::<(), kubegen_crd_schema::Error>(())
//! ```

use std::cmp::Ordering;

use serde_json::Value;

use crate::Error;

/// One CRD listing the versions of every CRD of `crds`, in the order given (each may list
/// several). The CRDs must agree on everything but their versions: name, group, names and
/// scope; a version may be given once.
pub fn merge(crds: impl IntoIterator<Item = Value>) -> Result<Value, Error> {
    let mut crds = crds.into_iter();
    let Some(mut merged) = crds.next() else {
        return Err(Error::Merge {
            name: String::new(),
            reason: "no CustomResourceDefinition given".into(),
        });
    };
    let name = name_of(&merged).to_owned();
    let refuse = |reason: String| Error::Merge {
        name: name.clone(),
        reason,
    };
    for crd in crds {
        let differs = |pointer: &str| merged.pointer(pointer) != crd.pointer(pointer);
        if differs("/metadata/name") || differs("/spec/group") {
            let other = crd["metadata"]["name"]
                .as_str()
                .unwrap_or("a CRD without a name");
            return Err(refuse(format!("{other} is another kind")));
        }
        if let Some(field) = ["/spec/names", "/spec/scope"]
            .into_iter()
            .find(|p| differs(p))
        {
            return Err(refuse(format!(
                "its versions disagree on {}: every version of a kind must have the same \
                 kind, plural, singular, short names, categories and scope",
                field.trim_start_matches("/spec/")
            )));
        }
        let more = match crd.pointer("/spec/versions") {
            Some(Value::Array(more)) => more.clone(),
            _ => Vec::new(),
        };
        let versions = versions_mut(&mut merged);
        for version in more {
            if versions.iter().any(|v| v["name"] == version["name"]) {
                let name = version["name"].as_str().unwrap_or_default();
                return Err(refuse(format!("version {name} is given twice")));
            }
            versions.push(version);
        }
    }
    Ok(merged)
}

/// Orders the versions of `crd` as Kubernetes lists them: by [`compare_versions`], equal
/// names keeping their order.
pub fn sort_versions(crd: &mut Value) {
    versions_mut(crd).sort_by(|a, b| {
        let name = |v: &Value| v["name"].as_str().unwrap_or_default().to_owned();
        compare_versions(&name(a), &name(b))
    });
}

/// Makes `storage` the only stored version of `crd`; an error if `crd` does not have it.
pub fn set_storage(crd: &mut Value, storage: &str) -> Result<(), Error> {
    let name = name_of(crd).to_owned();
    let versions = versions_mut(crd);
    if !versions.iter().any(|v| v["name"] == storage) {
        let names: Vec<&str> = versions
            .iter()
            .map(|v| v["name"].as_str().unwrap_or_default())
            .collect();
        return Err(Error::Merge {
            name,
            reason: format!(
                "the storage version {storage} is not among its versions ({})",
                names.join(", ")
            ),
        });
    }
    for version in versions {
        version["storage"] = Value::Bool(version["name"] == storage);
    }
    Ok(())
}

fn name_of(crd: &Value) -> &str {
    crd["metadata"]["name"].as_str().unwrap_or_default()
}

/// `spec.versions` of `crd`, made a list if it is not one.
fn versions_mut(crd: &mut Value) -> &mut Vec<Value> {
    let slot = &mut crd["spec"]["versions"];
    if !slot.is_array() {
        *slot = Value::Array(Vec::new());
    }
    match slot {
        Value::Array(versions) => versions,
        _ => unreachable!("made an array above"),
    }
}

/// Kubernetes' version priority (apimachinery's `CompareKubeAwareVersionStrings`, the
/// order discovery and `kubectl` list a group's versions in): `v2` before `v1` before
/// `v1beta2` before `v1beta1` before `v1alpha1`, then versions of other shapes
/// alphabetically. `Less` means `a` comes first.
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    /// `(major, stage, minor)`: stage 2 GA, 1 beta, 0 alpha.
    fn parse(version: &str) -> Option<(u64, u8, u64)> {
        let rest = version.strip_prefix('v')?;
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let major = rest[..digits].parse().ok()?;
        let (stage, minor) = match &rest[digits..] {
            "" => return Some((major, 2, 0)),
            tail if tail.starts_with("beta") => (1, &tail[4..]),
            tail if tail.starts_with("alpha") => (0, &tail[5..]),
            _ => return None,
        };
        Some((major, stage, minor.parse().ok()?))
    }
    match (parse(a), parse(b)) {
        (Some((major_a, stage_a, minor_a)), Some((major_b, stage_b, minor_b))) => {
            (stage_b, major_b, minor_b).cmp(&(stage_a, major_a, minor_a))
        }
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::envelope::{Definition, Names, Scope, Version};

    fn foo(versions: &[&str]) -> Value {
        Definition {
            group: "example.com".into(),
            names: Names::new("Foo", "foos", "foo"),
            scope: Scope::Namespaced,
            versions: versions
                .iter()
                .map(|v| Version::new(v, json!({ "type": "object" })))
                .collect(),
        }
        .to_value()
    }

    fn names(crd: &Value) -> Vec<(&str, bool)> {
        crd["spec"]["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|v| (v["name"].as_str().unwrap_or_default(), v["storage"] == true))
            .collect()
    }

    #[test]
    fn versions_sort_as_kubernetes_lists_them() {
        let mut versions = [
            "v1alpha1",
            "foo",
            "v1",
            "v11alpha2",
            "v2beta1",
            "v1beta1",
            "v2",
            "v10",
            "v1beta2",
            "v12alpha1",
            "bar",
            "v1alpha",
        ];
        versions.sort_by(|a, b| compare_versions(a, b));
        assert_eq!(
            versions,
            [
                "v10",
                "v2",
                "v1",
                "v2beta1",
                "v1beta2",
                "v1beta1",
                "v12alpha1",
                "v11alpha2",
                "v1alpha1",
                "bar",
                "foo",
                "v1alpha",
            ]
        );
    }

    #[test]
    fn merging_keeps_the_order_given_until_sorted() {
        let mut crd = merge([foo(&["v1alpha1"]), foo(&["v2", "v1"])]).expect("merged");
        assert_eq!(
            names(&crd),
            [("v1alpha1", true), ("v2", true), ("v1", true)]
        );
        sort_versions(&mut crd);
        set_storage(&mut crd, "v1").expect("stored");
        assert_eq!(
            names(&crd),
            [("v2", false), ("v1", true), ("v1alpha1", false)]
        );
    }

    #[test]
    fn versions_of_other_kinds_are_refused() {
        let mut bar = foo(&["v2"]);
        bar["metadata"]["name"] = "bars.example.com".into();
        let error = merge([foo(&["v1"]), bar]).unwrap_err().to_string();
        assert!(
            error.contains("bars.example.com is another kind"),
            "{error}"
        );

        let mut cluster = foo(&["v2"]);
        cluster["spec"]["scope"] = "Cluster".into();
        let error = merge([foo(&["v1"]), cluster]).unwrap_err().to_string();
        assert!(error.contains("disagree on scope"), "{error}");

        let mut renamed = foo(&["v2"]);
        renamed["spec"]["names"]["shortNames"] = json!(["fo"]);
        let error = merge([foo(&["v1"]), renamed]).unwrap_err().to_string();
        assert!(error.contains("disagree on names"), "{error}");

        let error = merge([foo(&["v1"]), foo(&["v1"])]).unwrap_err().to_string();
        assert!(error.contains("version v1 is given twice"), "{error}");
        assert!(merge([]).is_err());
    }

    #[test]
    fn the_storage_version_must_be_one_of_them() {
        let mut crd = foo(&["v1", "v1beta1"]);
        let error = set_storage(&mut crd, "v2").unwrap_err().to_string();
        assert!(
            error.contains("the storage version v2 is not among its versions (v1, v1beta1)"),
            "{error}"
        );
    }
}
