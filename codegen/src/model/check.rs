//! Model validation and the recursion pass.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};

use super::error::{Error, Errors, Result};
use super::{Kind, Model, RootType, TypeDef, TypeDefKind, TypeRef, Version};
use crate::naming;

impl Model {
    /// Checks what emitters rely on, Kubernetes' naming rules first: group (a DNS-1123
    /// subdomain, or `""` for core), version (a DNS-1035 label), kind and list kind (a
    /// DNS-1035 label once lowercased, and different), plural, singular, short names and
    /// categories (DNS-1035 labels), one kind per plural; then that every module, type,
    /// field and variant name is a Rust identifier unique in its scope, every named
    /// reference resolves, and every kind has a root struct with `metadata: ObjectMeta`.
    ///
    /// Every problem is reported, not only the first: the naming rules' in model order
    /// (group, then each version and its kinds), then the rest group by group and version
    /// by version, each name at its `file:line:column` when known; several are one
    /// [`Error::Many`], whose message has one a line. A name with no place of its own
    /// (made from the kind, as a CRD's default `listKind`) is not checked when the kind's
    /// name is bad: that error covers it.
    pub fn validate(&self) -> Result<()> {
        let mut errors = Errors::default();
        super::names::validate_names(self, &mut errors);
        // Each version's own checks are most of the work: they run at once, and are
        // reported in model order, as checking one version after the other would.
        let versions: Vec<(&str, &Version)> =
            self.versions().map(|(g, v)| (g.name.as_str(), v)).collect();
        let mut checked = crate::parallel::map(&versions, |(group, version)| {
            let mut errors = Errors::default();
            validate_version(group, version, &mut errors);
            errors
        })
        .into_iter();
        let mut modules: BTreeMap<&str, &str> = BTreeMap::new();
        for group in self.groups.values() {
            match modules.entry(group.module.as_str()) {
                Entry::Occupied(first) => errors.push(Error::GroupModuleClash {
                    first: (*first.get()).to_owned(),
                    second: group.name.clone(),
                    module: group.module.clone(),
                }),
                Entry::Vacant(entry) => {
                    entry.insert(&group.name);
                }
            }
            if !naming::is_identifier(&group.module) {
                errors.push(Error::BadName {
                    at: group.name.clone(),
                    scope: "the model".to_owned(),
                    what: "module",
                    name: group.module.clone(),
                    problem: "not a valid identifier",
                });
            }
            for version in group.versions.values() {
                // `checked` holds the problems of each version, in this order.
                errors.append(checked.next().unwrap_or_default());
                for kind in version.kinds.values() {
                    validate_client_verbs(&group.name, &version.name, kind, &mut errors);
                }
            }
        }
        errors.finish()
    }

    /// Wraps every by-value reference that closes a cycle (`A` holds `B` holds `A`) in
    /// [`TypeRef::Boxed`], so recursive schemas produce sized Rust types.
    ///
    /// Versions are independent (a type refers only to its version's types): they are
    /// boxed at once.
    pub fn box_recursive_fields(&mut self) {
        let versions: Vec<&mut Version> = self
            .groups
            .values_mut()
            .flat_map(|g| g.versions.values_mut())
            .collect();
        crate::parallel::map_into(versions, box_version);
    }
}

/// A kind's client verbs: at least one, and status verbs left out only where `/status`
/// is served (status verbs themselves follow update and patch, so they need nothing).
fn validate_client_verbs(group: &str, version: &str, kind: &Kind, errors: &mut Errors) {
    let verbs = &kind.client_verbs;
    let problem = if verbs.verbs.is_empty() {
        Some("a client needs at least one verb")
    } else if verbs.no_status && !kind.subresources.status {
        Some("status verbs are left out, but the kind has no status subresource")
    } else {
        None
    };
    if let Some(problem) = problem {
        errors.push(Error::ClientVerbs {
            at: kind.origin.kind.clone().map(Box::new),
            context: naming::api_version(group, version),
            kind: kind.name.clone(),
            problem,
        });
    }
}

/// A [`Error::BadName`] in `group/version`.
fn bad_name(
    group: &str,
    version: &Version,
    scope: &str,
    what: &'static str,
    name: &str,
    problem: &'static str,
) -> Error {
    Error::BadName {
        at: naming::api_version(group, &version.name),
        scope: scope.to_owned(),
        what,
        name: name.to_owned(),
        problem,
    }
}

fn validate_version(group: &str, version: &Version, errors: &mut Errors) {
    let bad = |scope: &str, what, name: &str, problem| {
        bad_name(group, version, scope, what, name, problem)
    };
    if !naming::is_identifier(&version.module) {
        errors.push(bad(
            &version.name,
            "module",
            &version.module,
            "not a valid identifier",
        ));
    }
    let mut names = BTreeSet::new();
    for ty in &version.types {
        if !names.insert(ty.name.as_str()) {
            // Its name and module were checked with the first definition.
            errors.push(Error::DuplicateType {
                group: group.to_owned(),
                version: version.name.clone(),
                name: ty.name.clone(),
            });
            continue;
        }
        if !naming::is_identifier(&ty.name) {
            errors.push(bad(
                &version.name,
                "type",
                &ty.name,
                "not a valid identifier",
            ));
        }
        if !naming::is_identifier(&ty.module) {
            errors.push(bad(
                &ty.name,
                "module",
                &ty.module,
                "not a valid identifier",
            ));
        }
    }
    for ty in &version.types {
        let mut unknown = BTreeSet::new();
        for name in members(group, version, ty, errors) {
            if !names.contains(name.as_str()) && unknown.insert(name.clone()) {
                errors.push(Error::UnknownType {
                    group: group.to_owned(),
                    version: version.name.clone(),
                    from: ty.name.clone(),
                    name,
                });
            }
        }
    }
    for kind in version.kinds.values() {
        let missing = || Error::MissingRoot {
            group: group.to_owned(),
            version: version.name.clone(),
            kind: kind.name.clone(),
            root: kind.root.name().to_owned(),
        };
        match &kind.root {
            RootType::External(external) if naming::is_type_path(&external.path) => continue,
            RootType::External(_) => {
                errors.push(missing());
                continue;
            }
            RootType::HandWritten(hand) => {
                if !naming::is_type_path(&hand.path) || !naming::is_identifier(&hand.def.name) {
                    errors.push(missing());
                    continue;
                }
                members(group, version, &hand.def, errors);
            }
            RootType::Generated(_) => {
                if !naming::is_identifier(&kind.module) {
                    errors.push(bad(
                        &kind.name,
                        "module",
                        &kind.module,
                        "not a valid identifier",
                    ));
                }
            }
        }
        // The resource impls hand out `&self.metadata` as `ObjectMeta`.
        let is_root = version.root_of(kind).is_some_and(|(_, s)| {
            s.root.is_some()
                && s.fields.iter().any(|f| {
                    f.rust_name == "metadata"
                        && f.required
                        && !f.nullable
                        && f.ty == TypeRef::External(super::ExternalType::object_meta())
                })
        });
        if !is_root {
            errors.push(missing());
        }
    }
}

/// Checks that the members (fields, variants) of `ty` are identifiers unique in the type,
/// and returns the names of the types they refer to.
fn members(group: &str, version: &Version, ty: &TypeDef, errors: &mut Errors) -> Vec<String> {
    let mut refs = Vec::new();
    let mut seen = BTreeSet::new();
    let mut member = |what: &'static str, name: &str| {
        let first = seen.insert(name.to_owned());
        let problem = if !naming::is_identifier(name) {
            // Once, however often it is used.
            first.then_some("not a valid identifier")
        } else {
            (!first).then_some("used twice")
        };
        if let Some(problem) = problem {
            errors.push(bad_name(group, version, &ty.name, what, name, problem));
        }
    };
    match &ty.kind {
        TypeDefKind::Struct(s) => {
            for field in &s.fields {
                member("field", &field.rust_name);
                field.ty.visit_named(&mut |n| refs.push(n.to_owned()));
            }
            if let Some(extra) = &s.additional {
                member("field", &extra.rust_name);
                extra.value.visit_named(&mut |n| refs.push(n.to_owned()));
            }
        }
        TypeDefKind::Enum(e) => {
            for v in &e.variants {
                member("variant", &v.rust_name);
            }
        }
        TypeDefKind::Union(u) => {
            for v in &u.variants {
                member("variant", &v.rust_name);
                v.ty.visit_named(&mut |n| refs.push(n.to_owned()));
            }
        }
    }
    refs
}

/// The by-value edges of a version's type graph: `A -> B` when `A` stores a `B` inline.
fn inline_edges(version: &Version) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for ty in &version.types {
        let out = edges.entry(ty.name.clone()).or_default();
        let refs: Vec<&TypeRef> = match &ty.kind {
            TypeDefKind::Struct(s) => s.fields.iter().map(|f| &f.ty).collect(),
            TypeDefKind::Union(u) => u.variants.iter().map(|v| &v.ty).collect(),
            TypeDefKind::Enum(_) => Vec::new(),
        };
        out.extend(
            refs.into_iter()
                .filter_map(|r| r.inline_named())
                .map(str::to_owned),
        );
    }
    edges
}

fn reaches(edges: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from];
    while let Some(node) = stack.pop() {
        if node == to {
            return true;
        }
        if seen.insert(node) {
            stack.extend(edges.get(node).into_iter().flatten().map(String::as_str));
        }
    }
    false
}

fn box_version(version: &mut Version) {
    let edges = inline_edges(version);
    let needs_box = |owner: &str, ty: &TypeRef| {
        ty.inline_named()
            .is_some_and(|target| reaches(&edges, target, owner))
    };
    for ty in &mut version.types {
        let owner = ty.name.clone();
        match &mut ty.kind {
            TypeDefKind::Struct(s) => {
                for field in &mut s.fields {
                    if needs_box(&owner, &field.ty) {
                        field.ty = boxed(std::mem::replace(&mut field.ty, TypeRef::Json));
                    }
                }
            }
            TypeDefKind::Union(u) => {
                for v in &mut u.variants {
                    if needs_box(&owner, &v.ty) {
                        v.ty = boxed(std::mem::replace(&mut v.ty, TypeRef::Json));
                    }
                }
            }
            TypeDefKind::Enum(_) => {}
        }
    }
}

/// Puts the `Box` inside any `Option` (`Option<Box<T>>`, the idiomatic shape).
fn boxed(ty: TypeRef) -> TypeRef {
    match ty {
        TypeRef::Option(inner) => TypeRef::option(boxed(*inner)),
        other => TypeRef::Boxed(Box::new(other)),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::model::{Field, StructDef, TypeDef};

    fn field(name: &str, ty: TypeRef) -> Field {
        Field {
            wire_name: name.to_owned(),
            rust_name: name.to_owned(),
            ty,
            required: false,
            nullable: false,
            default: None,
            docs: None,
            validation: Default::default(),
            written_schema: None,
        }
    }

    fn strukt(name: &str, fields: Vec<Field>) -> TypeDef {
        TypeDef {
            name: name.to_owned(),
            module: "m".to_owned(),
            docs: None,
            kind: TypeDefKind::Struct(StructDef {
                fields,
                ..StructDef::default()
            }),
        }
    }

    fn model_with(types: Vec<TypeDef>) -> Model {
        let mut model = Model::default();
        model.version_mut("example.com", "v1").types = types;
        model
    }

    fn field_ty<'a>(model: &'a Model, ty: &str, field: &str) -> &'a TypeRef {
        let version = &model.groups["example.com"].versions["v1"];
        match &version.type_named(ty).map(|t| &t.kind) {
            Some(TypeDefKind::Struct(s)) => s
                .fields
                .iter()
                .find(|f| f.rust_name == field)
                .map(|f| &f.ty)
                .unwrap(),
            _ => panic!("no struct {ty}"),
        }
    }

    #[test]
    fn recursion_is_boxed_only_on_cycles() {
        let mut model = model_with(vec![
            strukt(
                "Node",
                vec![
                    field("child", TypeRef::option(TypeRef::Named("Node".into()))),
                    field("children", TypeRef::vec(TypeRef::Named("Node".into()))),
                    field("leaf", TypeRef::Named("Leaf".into())),
                ],
            ),
            strukt("Leaf", vec![field("a", TypeRef::Named("Other".into()))]),
            strukt("Other", vec![field("back", TypeRef::Named("Leaf".into()))]),
        ]);
        model.validate().unwrap();
        model.box_recursive_fields();
        assert_eq!(
            field_ty(&model, "Node", "child"),
            &TypeRef::option(TypeRef::Boxed(Box::new(TypeRef::Named("Node".into()))))
        );
        // Vec already puts the recursion on the heap.
        assert_eq!(
            field_ty(&model, "Node", "children"),
            &TypeRef::vec(TypeRef::Named("Node".into()))
        );
        // Node -> Leaf is not part of a cycle; Leaf <-> Other is.
        assert_eq!(
            field_ty(&model, "Node", "leaf"),
            &TypeRef::Named("Leaf".into())
        );
        assert!(matches!(field_ty(&model, "Leaf", "a"), TypeRef::Boxed(_)));
        assert!(matches!(
            field_ty(&model, "Other", "back"),
            TypeRef::Boxed(_)
        ));
    }

    #[test]
    fn validation_rejects_unknown_and_duplicate_names() {
        let unknown = model_with(vec![strukt(
            "A",
            vec![field("b", TypeRef::Named("B".into()))],
        )]);
        assert!(matches!(unknown.validate(), Err(Error::UnknownType { .. })));

        let duplicate = model_with(vec![strukt("A", vec![]), strukt("A", vec![])]);
        assert!(matches!(
            duplicate.validate(),
            Err(Error::DuplicateType { .. })
        ));

        let twice = model_with(vec![strukt(
            "A",
            vec![field("x", TypeRef::String), field("x", TypeRef::Bool)],
        )]);
        assert!(matches!(
            twice.validate(),
            Err(Error::BadName {
                problem: "used twice",
                ..
            })
        ));

        let keyword = model_with(vec![strukt("A", vec![field("type", TypeRef::String)])]);
        assert!(matches!(keyword.validate(), Err(Error::BadName { .. })));
    }
}
