//! What every client emitter needs: the facade path, each kind's Rust type as tokens, and
//! the names of groups, versions and kinds in generated code, resolved once per model.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::emit::common::{Error, ident, path, type_path};
use crate::model::{ClientVerbs, Group, Kind, Model, RootType, Version};

/// Which kinds a client emitter writes items for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Select {
    /// Every kind: the clientset.
    All,
    /// Kinds whose verbs include list and watch ([`ClientVerbs::informable`]): listers
    /// and informers.
    Informable,
}

impl Select {
    /// Whether `kind` is selected.
    pub(super) fn has(self, kind: &Kind) -> bool {
        match self {
            Select::All => true,
            Select::Informable => kind.client_verbs.informable(),
        }
    }

    /// The selected kinds of `version`, in order.
    pub(super) fn kinds(self, version: &Version) -> impl Iterator<Item = &Kind> {
        version.kinds.values().filter(move |kind| self.has(kind))
    }

    /// Whether `version` has a selected kind.
    pub(super) fn any(self, version: &Version) -> bool {
        self.kinds(version).next().is_some()
    }
}
use crate::naming::{self, UniqueNames};

/// Options of the client emitters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientOptions {
    /// Path of the `kubegen` facade in generated code (`::kubegen`, or `crate` inside it).
    pub facade: String,
    /// The module path generated types are mounted at (`crate::generated`): a generated
    /// kind's type is `<types_module>::<group module>::<version module>::<Type>`.
    pub types_module: String,
    /// Verb sets by kind name (`--verbs Foo=get,list`), replacing what the inputs said for
    /// every kind of that name before anything is emitted ([`crate::pipeline::generate`]).
    pub kind_verbs: BTreeMap<String, ClientVerbs>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            facade: "::kubegen".to_owned(),
            types_module: "crate::generated".to_owned(),
            kind_verbs: BTreeMap::new(),
        }
    }
}

impl ClientOptions {
    /// Sets the facade path.
    pub fn facade(mut self, facade: impl Into<String>) -> Self {
        self.facade = facade.into();
        self
    }

    /// Sets the verbs of every kind named `kind`.
    pub fn kind_verbs(mut self, kind: impl Into<String>, verbs: ClientVerbs) -> Self {
        self.kind_verbs.insert(kind.into(), verbs);
        self
    }

    /// Sets the module path of the generated types.
    pub fn types_module(mut self, module: impl Into<String>) -> Self {
        self.types_module = module.into();
        self
    }
}

/// The names generated code gives one kind.
struct KindIdents {
    /// The Rust type (`::kubegen::__private::k8s_openapi::api::apps::v1::Deployment`).
    ty: TokenStream,
    /// The base of `FooClient`, `FooLister`, `FooInformer`, unique in the version.
    base: String,
    /// The accessor (`foos`), unique in the version.
    accessor: String,
}

/// Resolved paths and names of a model's kinds.
pub(super) struct Clients<'a> {
    model: &'a Model,
    /// The `kubegen` facade (`::kubegen`).
    pub(super) facade: TokenStream,
    /// Group accessor names by group name (`samplecontroller`).
    group_names: BTreeMap<&'a str, String>,
    /// Group-version accessor names (`samplecontroller_v1alpha1`).
    version_names: BTreeMap<(&'a str, &'a str), String>,
    /// Per kind, by (group, version, kind).
    kinds: BTreeMap<(&'a str, &'a str, &'a str), KindIdents>,
}

impl<'a> Clients<'a> {
    pub(super) fn new(model: &'a Model, options: &ClientOptions) -> Result<Self, Error> {
        let facade = path(&options.facade)?;
        let k8s_openapi = quote! { #facade::__private::k8s_openapi };
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for group in model.groups.keys() {
            *seen.entry(naming::group_short(group)).or_default() += 1;
        }
        let group_names: BTreeMap<&str, String> = model
            .groups
            .values()
            .map(|g| {
                let short = naming::group_short(&g.name);
                let name = if seen[&short] > 1 {
                    g.module.clone()
                } else {
                    short
                };
                (g.name.as_str(), name)
            })
            .collect();
        let mut version_names = BTreeMap::new();
        let mut taken = UniqueNames::snake();
        taken.reserve("new");
        let mut kinds = BTreeMap::new();
        for (group, version) in model.versions().filter(|(_, v)| !v.kinds.is_empty()) {
            let base = format!("{}_{}", group_names[group.name.as_str()], version.module);
            version_names.insert(
                (group.name.as_str(), version.name.as_str()),
                taken.claim(base),
            );
            let mut bases = UniqueNames::camel();
            let mut accessors = UniqueNames::snake();
            accessors.reserve("new");
            for kind in version.kinds.values() {
                let ty = match &kind.root {
                    RootType::Generated(name) => {
                        let text = format!(
                            "{}::{}::{}::{name}",
                            options.types_module, group.module, version.module
                        );
                        type_path(&text, &k8s_openapi)?
                    }
                    RootType::HandWritten(hand) => type_path(&hand.path, &k8s_openapi)?,
                    RootType::External(external) => type_path(&external.path, &k8s_openapi)?,
                };
                let idents = KindIdents {
                    ty,
                    base: bases.claim(naming::kind_type_base(&kind.name)),
                    accessor: accessors.claim(naming::kind_accessor(&kind.name)),
                };
                kinds.insert(
                    (
                        group.name.as_str(),
                        version.name.as_str(),
                        kind.name.as_str(),
                    ),
                    idents,
                );
            }
        }
        Ok(Self {
            model,
            facade,
            group_names,
            version_names,
            kinds,
        })
    }

    /// Every (group, version) with at least one kind, in order.
    pub(super) fn versions(&self) -> impl Iterator<Item = (&'a Group, &'a Version)> {
        self.model.versions().filter(|(_, v)| !v.kinds.is_empty())
    }

    /// Groups with at least one kind that `select` selects.
    pub(super) fn groups(&self, select: Select) -> Vec<&'a Group> {
        let names: BTreeSet<&str> = self
            .versions()
            .filter(|(_, v)| select.any(v))
            .map(|(g, _)| g.name.as_str())
            .collect();
        self.model
            .groups
            .values()
            .filter(|g| names.contains(g.name.as_str()))
            .collect()
    }

    /// The group accessor (`samplecontroller`).
    pub(super) fn group_name(&self, group: &'a Group) -> Ident {
        ident(&self.group_names[group.name.as_str()])
    }

    /// The group-version accessor of the clientset (`samplecontroller_v1alpha1`).
    pub(super) fn version_name(&self, group: &'a Group, version: &'a Version) -> Ident {
        ident(&self.version_names[&(group.name.as_str(), version.name.as_str())])
    }

    fn idents(&self, group: &'a Group, version: &'a Version, kind: &'a Kind) -> &KindIdents {
        &self.kinds[&(
            group.name.as_str(),
            version.name.as_str(),
            kind.name.as_str(),
        )]
    }

    /// The Rust type of a kind.
    pub(super) fn type_path(
        &self,
        group: &'a Group,
        version: &'a Version,
        kind: &'a Kind,
    ) -> &TokenStream {
        &self.idents(group, version, kind).ty
    }

    /// `FooClient`, `FooLister`, `FooInformer`.
    pub(super) fn kind_ident(
        &self,
        group: &'a Group,
        version: &'a Version,
        kind: &'a Kind,
        suffix: &str,
    ) -> Ident {
        format_ident!("{}{suffix}", self.idents(group, version, kind).base)
    }

    /// The accessor of a kind (`foos`, `network_policies`).
    pub(super) fn accessor(&self, group: &'a Group, version: &'a Version, kind: &'a Kind) -> Ident {
        ident(&self.idents(group, version, kind).accessor)
    }
}

/// The module of a group-version inside a generated file (`samplecontroller_k8s_io::v1alpha1`).
pub(super) fn version_path(group: &Group, version: &Version) -> TokenStream {
    let (g, v) = (ident(&group.module), ident(&version.module));
    quote! { #g::#v }
}

/// Nests per-version items into `pub mod <group> { pub mod <version> { ... } }`, for the
/// groups and versions with a kind that `select` selects.
pub(super) fn nest<'a>(
    clients: &Clients<'a>,
    select: Select,
    mut per_version: impl FnMut(&'a Group, &'a Version) -> Result<TokenStream, Error>,
    mut per_group: impl FnMut(&'a Group) -> TokenStream,
) -> Result<TokenStream, Error> {
    let mut out = TokenStream::new();
    for group in clients.groups(select) {
        let module = ident(&group.module);
        let doc = format!(
            " {}.",
            naming::capitalized(&naming::describe_group(&group.name))
        );
        let mut versions = TokenStream::new();
        for version in group.versions.values().filter(|v| select.any(v)) {
            let v = ident(&version.module);
            let doc = format!(" `{}`.", naming::api_version(&group.name, &version.name));
            let items = per_version(group, version)?;
            versions.extend(quote! {
                #[doc = #doc]
                pub mod #v {
                    #items
                }
            });
        }
        let group_items = per_group(group);
        out.extend(quote! {
            #[doc = #doc]
            pub mod #module {
                #group_items
                #versions
            }
        });
    }
    Ok(out)
}
