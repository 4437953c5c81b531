//! Kubernetes' naming rules over a model: group, version, kind, list kind, plural,
//! singular, short names and categories, each reported at the place it was written.

use std::collections::BTreeMap;

use super::error::{Error, Result};
use super::{Kind, Location, Model, Version};
use crate::naming::{self, kubernetes};

/// Checks every group, version and kind name of `model` against the API server's rules.
pub(super) fn validate_names(model: &Model) -> Result<()> {
    for group in model.groups.values() {
        let at = first_location(group.versions.values(), |k| k.origin.group.as_ref());
        check(
            &group.name,
            "group",
            &group.name,
            at,
            kubernetes::check_group,
        )?;
        for version in group.versions.values() {
            let context = naming::api_version(&group.name, &version.name);
            let at = first_location([version], |k| k.origin.version.as_ref());
            check(
                &context,
                "version",
                &version.name,
                at,
                kubernetes::check_version,
            )?;
            let mut plurals: BTreeMap<&str, &str> = BTreeMap::new();
            for kind in version.kinds.values() {
                validate_kind(&context, kind)?;
                if let Some(other) = plurals.insert(&kind.names.plural, &kind.name) {
                    return Err(Error::InvalidName {
                        at: kind.origin.of(kind.origin.plural.as_ref()).map(Box::new),
                        context,
                        what: "plural",
                        name: kind.names.plural.clone(),
                        expected: format!(
                            "expected a plural no other kind of the version has (kind `{other}` \
has it)"
                        ),
                    });
                }
            }
        }
    }
    Ok(())
}

fn validate_kind(context: &str, kind: &Kind) -> Result<()> {
    let origin = &kind.origin;
    let names = &kind.names;
    check(
        context,
        "kind",
        &kind.name,
        origin.kind.clone(),
        kubernetes::check_kind,
    )?;
    let at = |location: Option<&Location>| origin.of(location);
    check(
        context,
        "plural",
        &names.plural,
        at(origin.plural.as_ref()),
        kubernetes::check_resource_name,
    )?;
    check(
        context,
        "singular",
        &names.singular,
        at(origin.singular.as_ref()),
        kubernetes::check_resource_name,
    )?;
    check(
        context,
        "listKind",
        &names.list_kind,
        at(origin.list_kind.as_ref()),
        kubernetes::check_kind,
    )?;
    if names.list_kind == kind.name {
        return Err(Error::InvalidName {
            at: at(origin.list_kind.as_ref()).map(Box::new),
            context: context.to_owned(),
            what: "listKind",
            name: names.list_kind.clone(),
            expected: "expected a list kind different from the kind".to_owned(),
        });
    }
    for (i, short) in names.short_names.iter().enumerate() {
        let location = at(origin.short_names.get(i));
        check(
            context,
            "short name",
            short,
            location,
            kubernetes::check_resource_name,
        )?;
    }
    for (i, category) in names.categories.iter().enumerate() {
        let location = at(origin.categories.get(i));
        check(
            context,
            "category",
            category,
            location,
            kubernetes::check_resource_name,
        )?;
    }
    Ok(())
}

fn check(
    context: &str,
    what: &'static str,
    name: &str,
    at: Option<Location>,
    rule: fn(&str) -> Result<(), &'static str>,
) -> Result<()> {
    rule(name).map_err(|expected| Error::InvalidName {
        at: at.map(Box::new),
        context: context.to_owned(),
        what,
        name: name.to_owned(),
        expected: expected.to_owned(),
    })
}

/// The first location `pick` finds among the kinds of `versions`.
fn first_location<'a>(
    versions: impl IntoIterator<Item = &'a Version>,
    pick: impl Fn(&'a Kind) -> Option<&'a Location>,
) -> Option<Location> {
    versions
        .into_iter()
        .flat_map(|v| v.kinds.values())
        .find_map(pick)
        .cloned()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::model::{
        ClientVerbs, ExternalType, KindNames, Origin, RootType, Scope, Subresources,
    };

    fn kind(name: &str) -> Kind {
        Kind {
            name: name.to_owned(),
            names: KindNames {
                plural: format!("{}s", name.to_lowercase()),
                singular: name.to_lowercase(),
                short_names: Vec::new(),
                categories: Vec::new(),
                list_kind: format!("{name}List"),
            },
            scope: Scope::Namespaced,
            served: true,
            storage: true,
            deprecated: None,
            client_verbs: ClientVerbs::default(),
            subresources: Subresources::default(),
            printer_columns: Vec::new(),
            selectable_fields: Vec::new(),
            validation: Default::default(),
            root: RootType::External(ExternalType::new("k8s_openapi::Foo", true)),
            module: "foo".to_owned(),
            origin: Origin {
                kind: Some(Location::new("in.yaml", 3, 9)),
                ..Origin::default()
            },
        }
    }

    fn model(group: &str, version: &str, kinds: Vec<Kind>) -> Model {
        let mut model = Model::default();
        let v = model.version_mut(group, version);
        for k in kinds {
            v.kinds.insert(k.name.clone(), k);
        }
        model
    }

    fn error(model: &Model) -> String {
        validate_names(model).unwrap_err().to_string()
    }

    #[test]
    fn validation_rejects_contradictory_client_verbs() {
        let mut no_verbs = kind("Foo");
        no_verbs.client_verbs.verbs.clear();
        assert_eq!(
            model("example.com", "v1", vec![no_verbs])
                .validate()
                .unwrap_err()
                .to_string(),
            "in.yaml:3:9: kind `Foo`: a client needs at least one verb"
        );
        let mut no_status = kind("Foo");
        no_status.client_verbs.no_status = true;
        assert_eq!(
            model("example.com", "v1", vec![no_status.clone()])
                .validate()
                .unwrap_err()
                .to_string(),
            "in.yaml:3:9: kind `Foo`: status verbs are left out, but the kind has no status subresource"
        );
        no_status.subresources.status = true;
        no_status.client_verbs = ClientVerbs::read_only();
        no_status.client_verbs.no_status = true;
        model("example.com", "v1", vec![no_status])
            .validate()
            .unwrap();
    }

    #[test]
    fn good_names_pass() {
        validate_names(&model("example.com", "v1", vec![kind("Foo"), kind("a-b")])).unwrap();
        validate_names(&model("", "v1", vec![kind("Pod")])).unwrap();
    }

    #[test]
    fn bad_names_point_at_their_place() {
        let message = error(&model("example.com", "v1.2", vec![kind("Foo")]));
        assert!(
            message.starts_with("failed to validate example.com/v1.2: invalid version \"v1.2\""),
            "{message}"
        );
        let mut bad = kind("Foo");
        bad.names.plural = "Foos".to_owned();
        bad.origin.plural = Some(Location::new("in.yaml", 4, 11));
        let message = error(&model("example.com", "v1", vec![bad]));
        assert!(
            message.starts_with("in.yaml:4:11: invalid plural \"Foos\": expected a DNS-1035 label"),
            "{message}"
        );
        let mut bad = kind("Foo");
        bad.names.list_kind = "Foo".to_owned();
        let message = error(&model("example.com", "v1", vec![bad]));
        assert!(
            message.starts_with("in.yaml:3:9: invalid listKind \"Foo\""),
            "{message}"
        );
        let message = error(&model("example.com", "v1", vec![kind("Foo Bar")]));
        assert!(
            message.starts_with("in.yaml:3:9: invalid kind \"Foo Bar\""),
            "{message}"
        );
    }

    #[test]
    fn two_kinds_cannot_share_a_plural() {
        let mut b = kind("Bar");
        b.names.plural = "foos".to_owned();
        let message = error(&model("example.com", "v1", vec![kind("Foo"), b]));
        assert!(message.contains("invalid plural \"foos\""), "{message}");
    }
}
