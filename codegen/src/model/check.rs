//! Model validation and the recursion pass.

use std::collections::{BTreeMap, BTreeSet};

use super::error::{Error, Result};
use super::{Kind, Model, RootType, TypeDef, TypeDefKind, TypeRef, Version};
use crate::naming;

impl Model {
    /// Checks what emitters rely on, Kubernetes' naming rules first: group (a DNS-1123
    /// subdomain, or `""` for core), version (a DNS-1035 label), kind and list kind (a
    /// DNS-1035 label once lowercased, and different), plural, singular, short names and
    /// categories (DNS-1035 labels), one kind per plural; then that every module, type,
    /// field and variant name is a Rust identifier unique in its scope, every named
    /// reference resolves, and every kind has a root struct with `metadata: ObjectMeta`.
    pub fn validate(&self) -> Result<()> {
        super::names::validate_names(self)?;
        // Each version's own checks are most of the work: they run at once, and are
        // reported in model order, as checking one version after the other would.
        let versions: Vec<(&str, &Version)> =
            self.versions().map(|(g, v)| (g.name.as_str(), v)).collect();
        let mut checked = crate::parallel::map(&versions, |(group, version)| {
            validate_version(group, version)
        })
        .into_iter();
        let mut modules: BTreeMap<&str, &str> = BTreeMap::new();
        for group in self.groups.values() {
            if let Some(first) = modules.insert(&group.module, &group.name) {
                return Err(Error::GroupModuleClash {
                    first: first.to_owned(),
                    second: group.name.clone(),
                    module: group.module.clone(),
                });
            }
            if !naming::is_identifier(&group.module) {
                return Err(Error::BadName {
                    at: group.name.clone(),
                    scope: "the model".to_owned(),
                    what: "module",
                    name: group.module.clone(),
                    problem: "not a valid identifier",
                });
            }
            for version in group.versions.values() {
                // `checked` holds a result for each version, in this order.
                checked.next().unwrap_or(Ok(()))?;
                for kind in version.kinds.values() {
                    validate_client_verbs(&group.name, &version.name, kind)?;
                }
            }
        }
        Ok(())
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
fn validate_client_verbs(group: &str, version: &str, kind: &Kind) -> Result<()> {
    let verbs = &kind.client_verbs;
    let problem = if verbs.verbs.is_empty() {
        Some("a client needs at least one verb")
    } else if verbs.no_status && !kind.subresources.status {
        Some("status verbs are left out, but the kind has no status subresource")
    } else {
        None
    };
    match problem {
        Some(problem) => Err(Error::ClientVerbs {
            at: kind.origin.kind.clone().map(Box::new),
            context: naming::api_version(group, version),
            kind: kind.name.clone(),
            problem,
        }),
        None => Ok(()),
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

fn validate_version(group: &str, version: &Version) -> Result<()> {
    let bad = |scope: &str, what, name: &str, problem| {
        bad_name(group, version, scope, what, name, problem)
    };
    if !naming::is_identifier(&version.module) {
        return Err(bad(
            &version.name,
            "module",
            &version.module,
            "not a valid identifier",
        ));
    }
    let mut names = BTreeSet::new();
    for ty in &version.types {
        if !names.insert(ty.name.as_str()) {
            return Err(Error::DuplicateType {
                group: group.to_owned(),
                version: version.name.clone(),
                name: ty.name.clone(),
            });
        }
        if !naming::is_identifier(&ty.name) {
            return Err(bad(
                &version.name,
                "type",
                &ty.name,
                "not a valid identifier",
            ));
        }
        if !naming::is_identifier(&ty.module) {
            return Err(bad(
                &ty.name,
                "module",
                &ty.module,
                "not a valid identifier",
            ));
        }
    }
    for ty in &version.types {
        let refs = members(group, version, ty)?;
        if let Some(name) = refs.into_iter().find(|n| !names.contains(n.as_str())) {
            return Err(Error::UnknownType {
                group: group.to_owned(),
                version: version.name.clone(),
                from: ty.name.clone(),
                name,
            });
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
            RootType::External(_) => return Err(missing()),
            RootType::HandWritten(hand) => {
                if !naming::is_type_path(&hand.path) || !naming::is_identifier(&hand.def.name) {
                    return Err(missing());
                }
                members(group, version, &hand.def)?;
            }
            RootType::Generated(_) => {
                if !naming::is_identifier(&kind.module) {
                    return Err(bad(
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
            return Err(missing());
        }
    }
    Ok(())
}

/// Checks that the members (fields, variants) of `ty` are identifiers unique in the type,
/// and returns the names of the types they refer to.
fn members(group: &str, version: &Version, ty: &TypeDef) -> Result<Vec<String>> {
    let mut refs = Vec::new();
    let mut seen = BTreeSet::new();
    let mut member = |what: &'static str, name: &str| {
        if !naming::is_identifier(name) {
            return Err(bad_name(
                group,
                version,
                &ty.name,
                what,
                name,
                "not a valid identifier",
            ));
        }
        if !seen.insert(name.to_owned()) {
            return Err(bad_name(group, version, &ty.name, what, name, "used twice"));
        }
        Ok(())
    };
    match &ty.kind {
        TypeDefKind::Struct(s) => {
            for field in &s.fields {
                member("field", &field.rust_name)?;
                field.ty.visit_named(&mut |n| refs.push(n.to_owned()));
            }
            if let Some(extra) = &s.additional {
                member("field", &extra.rust_name)?;
                extra.value.visit_named(&mut |n| refs.push(n.to_owned()));
            }
        }
        TypeDefKind::Enum(e) => {
            for v in &e.variants {
                member("variant", &v.rust_name)?;
            }
        }
        TypeDefKind::Union(u) => {
            for v in &u.variants {
                member("variant", &v.rust_name)?;
                v.ty.visit_named(&mut |n| refs.push(n.to_owned()));
            }
        }
    }
    Ok(refs)
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
