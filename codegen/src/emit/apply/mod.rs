//! Apply configurations: for every kind whose fields the model knows, a `FooApply` type
//! for server-side apply, like client-go's `applyconfiguration-gen` output.
//!
//! Per kind, `FooApply` mirrors the root struct with every field optional (unset fields
//! are not serialized, so a field manager only claims what it sets; an explicitly empty
//! list or map is sent as empty), with `new(name, namespace)` (cluster-scoped: `new(name)`)
//! setting `apiVersion`, `kind`, `metadata.name` and `metadata.namespace`, one `with_*`
//! setter per field (list and map setters take any iterator and extend), and
//! `extract(&live, field_manager)` (+ `extract_status` where the kind has status) that
//! keeps what the manager owns according to `metadata.managedFields`. The object metadata
//! setters (`with_labels`, `with_annotations`, `with_owner_references`, `with_finalizers`,
//! ...) are the default methods of the runtime's `ApplyMetadata` trait, which every root
//! (and every nested struct with a `metadata: ObjectMeta` field, `PodTemplateSpecApply`)
//! implements with one method handing out its `metadata`. Nested structs the
//! model defines are mirrored too (`FooSpecApply`): generated ones (CRD and OpenAPI
//! inputs) and a hand-written kind's own structs that the Rust front-end read
//! ([`HandWritten::types`], with the serde names its attributes give). Enums, unions and
//! types the model only names (k8s-openapi's, or a hand-written type the front-end kept
//! whole) are used as they are, so setting one sets all of it. A hand-written kind's
//! nested apply configurations go into the kind's module; a struct two kinds share goes
//! into the first kind's. Where a version describes another crate's types
//! ([`Version::external_module`]: the built-in kinds' k8s-openapi types, with fields read
//! from Kubernetes' OpenAPI documents) they are mirrored too, each once in its own
//! group/version, and a field of one version whose type another version describes is that
//! version's apply configuration (`DeploymentSpecApply::template` is
//! `core::v1::PodTemplateSpecApply`).
//!
//! [`HandWritten::types`]: crate::model::HandWritten::types
//!
//! Generated code is thin: the `kubegen` facade's runtime holds the behaviour
//! (`kubegen::runtime::apply`: the `ApplyConfiguration` trait the clients' `apply` and
//! `apply_status` verbs take, the `ApplyMetadata` trait of the metadata setters, the one
//! `fieldsV1` walker behind `extract`).
//!
//! Layout mirrors the types tree: `mod.rs`, `<group>/mod.rs`, `<group>/<version>/mod.rs`
//! (re-exporting its modules) and one file per module of the version's types (a
//! hand-written kind gets the module of its kind).
//!
//! ```
//! use kubegen_codegen::__internal::emit::apply::{ApplyOptions, generate_apply};
//! use kubegen_codegen::SAMPLE_CRD;
//! use kubegen_codegen::__internal::{frontend::{Source, crd}, model::Model};
//!
//! let mut model = Model::default();
//! crd::load(&mut model, &[Source::new("foo.yaml", SAMPLE_CRD)], &crd::Options::default()).unwrap();
//! let files = generate_apply(&model, &ApplyOptions::default()).unwrap();
//! let foo = files.iter().find(|f| f.path == "samplecontroller_k8s_io/v1alpha1/foo.rs").unwrap();
//! assert!(foo.contents.contains("pub struct FooApply"));
//! assert!(foo.contents.contains("pub struct FooSpecApply"));
//! assert!(foo.contents.contains("pub fn with_replicas("));
//! assert!(foo.contents.contains("::kubegen::runtime::apply::ApplyMetadata for FooApply"));
//! ```

mod items;

use std::collections::BTreeMap;

use quote::quote;

use super::common::{Error, Options, Paths, ident, path};
use super::generated::{GeneratedFile, file, version_check};
use super::serde_macro;
use crate::model::{Group, Model, RootType, StructDef, TypeDef, TypeDefKind, Version};
use crate::naming;
use items::{Context, Mirror};

/// Options of the apply configuration emitter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApplyOptions {
    /// Path of the `kubegen` facade in generated code (`::kubegen`, or `crate` inside it).
    pub facade: String,
    /// The module path generated types are mounted at (`crate::generated`), for kinds and
    /// enums generated from CRD and OpenAPI inputs.
    pub types_module: String,
}

impl Default for ApplyOptions {
    fn default() -> Self {
        Self {
            facade: "::kubegen".to_owned(),
            types_module: "crate::generated".to_owned(),
        }
    }
}

impl ApplyOptions {
    /// Sets the facade path.
    pub fn facade(mut self, facade: impl Into<String>) -> Self {
        self.facade = facade.into();
        self
    }

    /// Sets the module path of the generated types.
    pub fn types_module(mut self, module: impl Into<String>) -> Self {
        self.types_module = module.into();
        self
    }
}

/// The apply configurations of every kind of `model` whose root struct the model holds or
/// describes, sorted by path. Kinds whose type is k8s-openapi's (`--kubernetes`) get them
/// where the model describes their fields (`--kubernetes-openapi`): a field whose type is
/// another version's described type is that version's apply configuration.
pub fn generate_apply(model: &Model, options: &ApplyOptions) -> Result<Vec<GeneratedFile>, Error> {
    let facade = path(&options.facade)?;
    let paths = Paths::new(&Options::through_facade(&options.facade))?;
    let mut files = Vec::new();
    let mut group_modules: BTreeMap<&str, Vec<&Version>> = BTreeMap::new();
    let mut groups: Vec<&Group> = Vec::new();
    for (group, version) in model.versions() {
        let (mirrors, hand_written) = mirrors(group, version)?;
        if mirrors.is_empty() {
            continue;
        }
        let ctx = Context {
            group,
            version,
            facade: &facade,
            paths: &paths,
            types_module: &options.types_module,
            mirrors: &mirrors,
            model,
            hand_written: &hand_written,
        };
        let mut modules: Vec<&str> = mirrors.values().map(|m| m.module).collect();
        modules.sort_unstable();
        modules.dedup();
        let dir = format!("{}/{}", group.module, version.module);
        for module in &modules {
            let path = format!("{dir}/{module}.rs");
            files.push(file(&path, items::module_items(&ctx, module)?)?);
        }
        let children: Vec<_> = modules.iter().map(|m| ident(m)).collect();
        let child_docs = modules
            .iter()
            .map(|m| format!(" Apply configurations of the `{m}` module's types."));
        let doc = format!(
            " Apply configurations of `{}`.",
            naming::api_version(&group.name, &version.name)
        );
        files.push(file(
            &format!("{dir}/mod.rs"),
            quote! {
                #![doc = #doc]
                #(#[doc = #child_docs] pub mod #children;)*
                #(pub use self::#children::*;)*
            },
        )?);
        if !group_modules.contains_key(group.name.as_str()) {
            groups.push(group);
        }
        group_modules
            .entry(group.name.as_str())
            .or_default()
            .push(version);
    }
    for group in &groups {
        let versions = group_modules[group.name.as_str()]
            .iter()
            .map(|v| ident(&v.module));
        let doc = format!(
            " Apply configurations of {}.",
            naming::describe_group(&group.name)
        );
        files.push(file(
            &format!("{}/mod.rs", group.module),
            quote! {
                #![doc = #doc]
                #(pub mod #versions;)*
            },
        )?);
    }
    let children = groups.iter().map(|g| ident(&g.module));
    // Defined before the child modules, so they are in its textual scope.
    let serde_macro = (!groups.is_empty()).then(|| serde_macro::definition(&paths));
    let check = version_check(&facade);
    files.push(file(
        "mod.rs",
        quote! {
            //! Apply configurations generated by kubegen (server-side apply), one module per
            //! API group and version.
            #check
            #serde_macro
            #(pub mod #children;)*
        },
    )?);
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// The root struct of `kind`: the model's, or where the version describes another crate's
/// types (the built-in kinds), the description of the kind's type.
fn root_of<'a>(
    version: &'a Version,
    kind: &'a crate::model::Kind,
) -> Option<(&'a TypeDef, &'a StructDef)> {
    let RootType::External(external) = &kind.root else {
        return version.root_of(kind);
    };
    version.external_module.as_ref()?;
    let def = version.type_named(external.name())?;
    match &def.kind {
        TypeDefKind::Struct(s) => Some((def, s)),
        _ => None,
    }
}

/// The types a version's hand-written roots use, by name.
type HandWrittenTypes<'a> = BTreeMap<&'a str, &'a TypeDef>;

/// The structs of `version` that get an apply configuration, by type name (every
/// generated struct, every hand-written root and the hand-written structs they use), and
/// every type the hand-written roots use, by name.
fn mirrors<'a>(
    group: &Group,
    version: &'a Version,
) -> Result<(BTreeMap<&'a str, Mirror<'a>>, HandWrittenTypes<'a>), Error> {
    let mut out = BTreeMap::new();
    for (order, ty) in version.types.iter().enumerate() {
        if let TypeDefKind::Struct(s) = &ty.kind {
            out.insert(
                ty.name.as_str(),
                Mirror {
                    def: ty,
                    fields: s,
                    module: ty.module.as_str(),
                    kind: None,
                    order,
                },
            );
        }
    }
    let mut hand_written = HandWrittenTypes::new();
    let mut nested = version.types.len();
    for kind in version.kinds.values() {
        let Some((def, fields)) = root_of(version, kind) else {
            continue;
        };
        let module = match &kind.root {
            RootType::HandWritten(_) => kind.module.as_str(),
            _ => def.module.as_str(),
        };
        let order = out.get(def.name.as_str()).map_or(0, |m| m.order);
        out.insert(
            def.name.as_str(),
            Mirror {
                def,
                fields,
                module,
                kind: Some(kind),
                order,
            },
        );
        let RootType::HandWritten(hand) = &kind.root else {
            continue;
        };
        for ty in &hand.types {
            let clash = |other: &TypeDef| Error::ApplyNameClash {
                api_version: naming::api_version(&group.name, &version.name),
                name: ty.name.clone(),
                first: format!("{}::{}", other.module, other.name),
                second: format!("{}::{}", ty.module, ty.name),
            };
            match hand_written.get(ty.name.as_str()) {
                Some(seen) if seen.module != ty.module => return Err(clash(seen)),
                Some(_) => continue,
                None => {}
            }
            if let Some(generated) = version.type_named(&ty.name) {
                return Err(clash(generated));
            }
            hand_written.insert(ty.name.as_str(), ty);
            if let TypeDefKind::Struct(s) = &ty.kind {
                nested += 1;
                out.insert(
                    ty.name.as_str(),
                    Mirror {
                        def: ty,
                        fields: s,
                        module: kind.module.as_str(),
                        kind: None,
                        order: nested,
                    },
                );
            }
        }
    }
    Ok((out, hand_written))
}
