//! Kubernetes' naming rules over a model: group, version, kind, list kind, plural,
//! singular, short names and categories, each reported at the place it was written.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use super::error::{Error, Errors};
use super::{Kind, Location, Model, Origin, Version};
use crate::naming::{self, kubernetes};

/// A rule of [`kubernetes`]: `Err` says what was expected.
type Rule = fn(&str) -> Result<(), &'static str>;

/// Checks every group, version and kind name of `model` against the API server's rules,
/// in model order, recording each bad one.
pub(super) fn validate_names(model: &Model, errors: &mut Errors) {
    for group in model.groups.values() {
        let at = first_location(group.versions.values(), |k| k.origin.group.as_ref());
        check(
            errors,
            &group.name,
            "group",
            &group.name,
            at,
            kubernetes::check_group,
        );
        for version in group.versions.values() {
            let context = naming::api_version(&group.name, &version.name);
            let at = first_location([version], |k| k.origin.version.as_ref());
            check(
                errors,
                &context,
                "version",
                &version.name,
                at,
                kubernetes::check_version,
            );
            let mut plurals: BTreeMap<&str, &str> = BTreeMap::new();
            for kind in version.kinds.values() {
                validate_kind(&context, kind, errors);
                match plurals.entry(kind.names.plural.as_str()) {
                    Entry::Occupied(other) => errors.push(Error::InvalidName {
                        at: kind.origin.of(kind.origin.plural.as_ref()).map(Box::new),
                        context: context.clone(),
                        what: "plural",
                        name: kind.names.plural.clone(),
                        expected: format!(
                            "expected a plural no other kind of the version has (kind `{}` \
has it)",
                            other.get()
                        ),
                    }),
                    Entry::Vacant(entry) => {
                        entry.insert(&kind.name);
                    }
                }
            }
        }
    }
}

fn validate_kind(context: &str, kind: &Kind, errors: &mut Errors) {
    let names = &kind.names;
    let kind_ok = check(
        errors,
        context,
        "kind",
        &kind.name,
        kind.origin.kind.clone(),
        kubernetes::check_kind,
    );
    let own = KindName {
        context,
        origin: &kind.origin,
        kind_ok,
    };
    let origin = &kind.origin;
    own.check(
        errors,
        "plural",
        &names.plural,
        origin.plural.as_ref(),
        kubernetes::check_resource_name,
    );
    own.check(
        errors,
        "singular",
        &names.singular,
        origin.singular.as_ref(),
        kubernetes::check_resource_name,
    );
    let list_ok = own.check(
        errors,
        "listKind",
        &names.list_kind,
        origin.list_kind.as_ref(),
        kubernetes::check_kind,
    );
    if list_ok && names.list_kind == kind.name {
        errors.push(Error::InvalidName {
            at: origin.of(origin.list_kind.as_ref()).map(Box::new),
            context: context.to_owned(),
            what: "listKind",
            name: names.list_kind.clone(),
            expected: "expected a list kind different from the kind".to_owned(),
        });
    }
    for (i, short) in names.short_names.iter().enumerate() {
        own.check(
            errors,
            "short name",
            short,
            origin.short_names.get(i),
            kubernetes::check_resource_name,
        );
    }
    for (i, category) in names.categories.iter().enumerate() {
        own.check(
            errors,
            "category",
            category,
            origin.categories.get(i),
            kubernetes::check_resource_name,
        );
    }
}

/// The names of one kind other than the kind itself.
struct KindName<'a> {
    /// The group/version (`example.com/v1`).
    context: &'a str,
    origin: &'a Origin,
    /// Whether the kind's name passed its rule.
    kind_ok: bool,
}

impl KindName<'_> {
    /// Checks one name, written at `location` (else at the kind's), recording it when bad;
    /// `false` when it is. A name with no place of its own was made from the kind (a CRD's
    /// default `singular` or `listKind`): when the kind is bad, that error covers it.
    fn check(
        &self,
        errors: &mut Errors,
        what: &'static str,
        name: &str,
        location: Option<&Location>,
        rule: Rule,
    ) -> bool {
        if location.is_none() && !self.kind_ok {
            return true;
        }
        check(
            errors,
            self.context,
            what,
            name,
            self.origin.of(location),
            rule,
        )
    }
}

/// Checks `name` against `rule`, recording it at `at` when bad; `false` when it is.
fn check(
    errors: &mut Errors,
    context: &str,
    what: &'static str,
    name: &str,
    at: Option<Location>,
    rule: Rule,
) -> bool {
    match rule(name) {
        Ok(()) => true,
        Err(expected) => {
            errors.push(Error::InvalidName {
                at: at.map(Box::new),
                context: context.to_owned(),
                what,
                name: name.to_owned(),
                expected: expected.to_owned(),
            });
            false
        }
    }
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

    /// What the naming rules say of `model`.
    fn names(model: &Model) -> Result<(), Error> {
        let mut errors = Errors::default();
        validate_names(model, &mut errors);
        errors.finish()
    }

    fn error(model: &Model) -> String {
        names(model).unwrap_err().to_string()
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
        names(&model("example.com", "v1", vec![kind("Foo"), kind("a-b")])).unwrap();
        names(&model("", "v1", vec![kind("Pod")])).unwrap();
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
        // Its plural, singular and listKind have no place of their own: the kind's error
        // covers them.
        assert_eq!(message.lines().count(), 1, "{message}");
    }

    #[test]
    fn every_bad_name_is_reported_in_order() {
        let mut model = Model::default();
        let mut foo = kind("Foo");
        foo.names.plural = "Foos".to_owned();
        foo.origin.plural = Some(Location::new("foo.yaml", 4, 11));
        let mut bar = kind("Bar");
        bar.names.short_names = vec!["br".to_owned(), "b_r".to_owned()];
        bar.origin.short_names = vec![
            Location::new("bar.yaml", 12, 5),
            Location::new("bar.yaml", 13, 5),
        ];
        let mut baz = kind("Baz");
        baz.names.categories = vec!["All Things".to_owned()];
        baz.origin.categories = vec![Location::new("baz.yaml", 7, 3)];
        for (version, kind) in [("v1", foo), ("v1", bar), ("v2beta1", baz)] {
            let version = model.version_mut("example.com", version);
            version.kinds.insert(kind.name.clone(), kind);
        }
        let error = model.validate().unwrap_err();
        let label = kubernetes::EXPECTED_RESOURCE_NAME;
        let expected = [
            // Model order: versions, then kinds, by name.
            format!("bar.yaml:13:5: invalid short name \"b_r\": {label}"),
            format!("foo.yaml:4:11: invalid plural \"Foos\": {label}"),
            format!("baz.yaml:7:3: invalid category \"All Things\": {label}"),
        ];
        assert_eq!(error.to_string(), expected.join("\n"));
        let each: Vec<String> = error.errors().iter().map(ToString::to_string).collect();
        assert_eq!(each, expected);
        assert!(matches!(
            error.errors(),
            [
                Error::InvalidName {
                    what: "short name",
                    ..
                },
                Error::InvalidName { what: "plural", .. },
                Error::InvalidName {
                    what: "category",
                    ..
                },
            ]
        ));
    }

    #[test]
    fn two_kinds_cannot_share_a_plural() {
        let mut b = kind("Bar");
        b.names.plural = "foos".to_owned();
        let message = error(&model("example.com", "v1", vec![kind("Foo"), b]));
        assert!(message.contains("invalid plural \"foos\""), "{message}");
    }
}
