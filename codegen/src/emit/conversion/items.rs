//! The file of one version pair: the user's trait, `to_hub` / `from_hub`, the round-trip
//! checks, and a private function per type pair and direction.

use std::collections::BTreeMap;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::plan::{Conv, Empty, FieldPlan, Input, Plan, Side, Slot};
use crate::emit::common::{Error, NamedType, Paths, ident, rust_type, type_path};
use crate::model::{Group, TypeRef, Version};
use crate::naming::{self, Direction};

/// Everything the items of one pair's file are built from.
pub(crate) struct Pair<'a> {
    pub(crate) group: &'a Group,
    pub(crate) kind: &'a str,
    pub(crate) spoke: &'a Version,
    pub(crate) hub: &'a Version,
    /// Where the spoke's types live by name, for a hand-written kind; `None`: in the types
    /// tree.
    pub(crate) spoke_paths: Option<&'a BTreeMap<String, String>>,
    /// Where the hub's types live by name, likewise.
    pub(crate) hub_paths: Option<&'a BTreeMap<String, String>>,
    pub(crate) plan: &'a Plan,
    pub(crate) paths: &'a Paths,
    /// Where the types tree is mounted (`crate::generated`).
    pub(crate) types: &'a TokenStream,
}

/// The tree's root module, as the pair's file imports it.
fn root() -> TokenStream {
    quote! { support }
}

/// The imports of a pair's file: the root module (from `<group>/<kind>/<version>.rs`) and
/// the two versions' types modules in the types tree, as `spoke` and `hub` (hand-written
/// types are named by their paths instead).
fn imports(pair: &Pair<'_>) -> TokenStream {
    let types = pair.types;
    let group = ident(&pair.group.module);
    let module = |version: &Version, paths: Option<&BTreeMap<String, String>>, alias: &str| {
        let version = ident(&version.module);
        let alias = ident(alias);
        match paths {
            Some(_) => TokenStream::new(),
            None => quote! { use #types::#group::#version as #alias; },
        }
    };
    let hub = module(pair.hub, pair.hub_paths, "hub");
    let spoke = module(pair.spoke, pair.spoke_paths, "spoke");
    quote! {
        use super::super::super as support;
        #hub
        #spoke
    }
}

impl Pair<'_> {
    fn version(&self, side: Side) -> &Version {
        match side {
            Side::Spoke => self.spoke,
            Side::Hub => self.hub,
        }
    }

    fn ty(&self, side: Side, ty: &TypeRef) -> Result<TokenStream, Error> {
        let (module, paths) = match side {
            Side::Spoke => (quote! { spoke }, self.spoke_paths),
            Side::Hub => (quote! { hub }, self.hub_paths),
        };
        rust_type(self.paths, ty, &|named| match named {
            NamedType::Model(name) => match paths.and_then(|p| p.get(name)) {
                Some(path) => type_path(path, &self.paths.k8s_openapi),
                None => {
                    let name = ident(name);
                    Ok(quote! { #module::#name })
                }
            },
            NamedType::External(external) => type_path(&external.path, &self.paths.k8s_openapi),
        })
    }

    fn named(&self, side: Side, name: &str) -> Result<TokenStream, Error> {
        self.ty(side, &TypeRef::Named(name.to_owned()))
    }

    /// The user's trait, named after the spoke's root type (an identifier, where the kind
    /// need not be one).
    fn trait_ident(&self) -> Ident {
        ident(&naming::conversion_trait(
            &self.plan.structs[0].spoke,
            &self.spoke.name,
        ))
    }

    fn api_version(&self, side: Side) -> String {
        naming::api_version(&self.group.name, &self.version(side).name)
    }
}

fn index(direction: Direction) -> usize {
    match direction {
        Direction::ToHub => 0,
        Direction::FromHub => 1,
    }
}

/// Every item of the pair's file.
pub(crate) fn items(pair: &Pair<'_>) -> Result<TokenStream, Error> {
    let root = root();
    let trait_ = pair.trait_ident();
    let plan = pair.plan;
    let spoke_version = &pair.spoke.name;
    let hub_version = &pair.hub.name;
    let kind = pair.kind;
    let doc = format!(
        " `{kind}` `{}` <-> the hub `{}`: [`to_hub`], [`from_hub`], the round-trip checks, and \
         the trait [`{trait_}`] of what only you can convert.",
        pair.api_version(Side::Spoke),
        pair.api_version(Side::Hub)
    );
    let mut methods = Vec::new();
    for method in &plan.methods {
        let name = ident(&method.name);
        let source = Side::source(method.direction);
        let target = Side::target(method.direction);
        let input = match &method.input {
            Input::Struct(name) => {
                let ty = pair.named(source, name)?;
                quote! { , from: &#ty }
            }
            Input::Value(ty) => {
                let ty = pair.ty(source, ty)?;
                quote! { , value: #ty }
            }
            Input::Nothing => TokenStream::new(),
        };
        let output = pair.ty(target, &method.output)?;
        let (from, to) = match method.direction {
            Direction::ToHub => (spoke_version, hub_version),
            Direction::FromHub => (hub_version, spoke_version),
        };
        let doc = format!(
            " Computes {} (`{from}` -> `{to}`), at `{}`.",
            method.what, method.path
        );
        methods.push(quote! {
            #[doc = #doc]
            fn #name(&self #input) -> Result<#output, #root::Error>;
        });
    }
    let trait_doc = if methods.is_empty() {
        format!(
            " What you write to convert `{kind}` between `{spoke_version}` and the hub \
             `{hub_version}`: nothing, every field agrees, so every type implements it (pass \
             `&()`)."
        )
    } else {
        format!(
            " What you write to convert `{kind}` between `{spoke_version}` and the hub \
             `{hub_version}`: a method per field (or type) whose versions do not agree \
             (renamed, split, merged or retyped fields, enums with other values). Every \
             other field is converted for you; fields only one version has, with nothing \
             on the other side they could come from, are carried in the [`{annotation}`] \
             annotation.",
            annotation = "support::ANNOTATION"
        )
    };
    let blanket = methods
        .is_empty()
        .then(|| quote! { impl<T> #trait_ for T {} });

    let spoke_root = pair.named(Side::Spoke, &plan.structs[0].spoke)?;
    let hub_root = pair.named(Side::Hub, &plan.structs[0].hub)?;
    let [root_to_hub, root_from_hub] = plan.structs[0].fns.clone().map(|f| ident(&f));
    let spoke_api = pair.api_version(Side::Spoke);
    let hub_api = pair.api_version(Side::Hub);
    let to_hub_doc = format!(" Converts a `{spoke_api}` `{kind}` to the hub `{hub_api}`.");
    let from_hub_doc = format!(" Converts a hub `{hub_api}` `{kind}` to `{spoke_api}`.");
    let round_spoke_doc = format!(
        " Checks that `{spoke_api}` -> `{hub_api}` -> `{spoke_api}` gives `spoke` back, or says \
         where it differs."
    );
    let round_hub_doc = format!(
        " Checks that `{hub_api}` -> `{spoke_api}` -> `{hub_api}` gives `hub` back, or says \
         where it differs."
    );
    let bound = quote! { C: #trait_ };
    let imports = imports(pair);

    let mut fns = TokenStream::new();
    for pair_index in 0..plan.structs.len() {
        for direction in Direction::BOTH {
            fns.extend(struct_fn(pair, pair_index, direction)?);
        }
    }
    for e in &plan.enums {
        for direction in Direction::BOTH {
            let source = Side::source(direction);
            let target = Side::target(direction);
            let name = ident(&e.fns[index(direction)]);
            let (src, tgt) = match direction {
                Direction::ToHub => (&e.spoke, &e.hub),
                Direction::FromHub => (&e.hub, &e.spoke),
            };
            let src_ty = pair.named(source, src)?;
            let tgt_ty = pair.named(target, tgt)?;
            let arms = e.variants.iter().map(|(s, h)| {
                let (a, b) = match direction {
                    Direction::ToHub => (ident(s), ident(h)),
                    Direction::FromHub => (ident(h), ident(s)),
                };
                quote! { #src_ty::#a => #tgt_ty::#b, }
            });
            fns.extend(quote! {
                fn #name(from: #src_ty) -> #tgt_ty {
                    match from {
                        #(#arms)*
                    }
                }
            });
        }
    }
    for u in &plan.unions {
        for direction in Direction::BOTH {
            let source = Side::source(direction);
            let target = Side::target(direction);
            let name = ident(&u.fns[index(direction)]);
            let (src, tgt) = match direction {
                Direction::ToHub => (&u.spoke, &u.hub),
                Direction::FromHub => (&u.hub, &u.spoke),
            };
            let src_ty = pair.named(source, src)?;
            let tgt_ty = pair.named(target, tgt)?;
            let mut arms = TokenStream::new();
            for (s, h, conv) in &u.variants {
                let (a, b) = match direction {
                    Direction::ToHub => (ident(s), ident(h)),
                    Direction::FromHub => (ident(h), ident(s)),
                };
                let value = expr(plan, conv, quote! { v }, direction);
                arms.extend(quote! { #src_ty::#a(v) => #tgt_ty::#b(#value), });
            }
            fns.extend(quote! {
                fn #name<#bound>(user: &C, cx: &mut #root::Context, from: #src_ty) -> Result<#tgt_ty, #root::Error> {
                    Ok(match from {
                        #arms
                    })
                }
            });
        }
    }

    Ok(quote! {
        #![doc = #doc]
        #![allow(unused_variables)]

        #imports

        #[doc = #trait_doc]
        pub trait #trait_ {
            #(#methods)*
        }
        #blanket

        #[doc = #to_hub_doc]
        pub fn to_hub<#bound>(from: #spoke_root, user: &C) -> Result<#hub_root, #root::Error> {
            let mut cx = #root::Context::begin(&from.metadata, #hub_api)?;
            let mut to = #root_to_hub(user, &mut cx, from)?;
            cx.finish(&mut to.metadata, #spoke_api)?;
            Ok(to)
        }

        #[doc = #from_hub_doc]
        pub fn from_hub<#bound>(from: #hub_root, user: &C) -> Result<#spoke_root, #root::Error> {
            let mut cx = #root::Context::begin(&from.metadata, #spoke_api)?;
            let mut to = #root_from_hub(user, &mut cx, from)?;
            cx.finish(&mut to.metadata, #hub_api)?;
            Ok(to)
        }

        #[doc = #round_spoke_doc]
        pub fn round_trip_spoke<#bound>(spoke: &#spoke_root, user: &C) -> Result<(), #root::Error> {
            let back = from_hub(to_hub(spoke.clone(), user)?, user)?;
            #root::compare(spoke, &back)
        }

        #[doc = #round_hub_doc]
        pub fn round_trip_hub<#bound>(hub: &#hub_root, user: &C) -> Result<(), #root::Error> {
            let back = to_hub(from_hub(hub.clone(), user)?, user)?;
            #root::compare(hub, &back)
        }

        #fns
    })
}

/// Whether converting by `conv` cannot fail (no context, no user's method).
fn infallible(conv: &Conv) -> bool {
    matches!(conv, Conv::Move | Conv::Enum(_))
}

/// The value of `conv` applied to `value`: an expression of the target's type.
fn expr(plan: &Plan, conv: &Conv, value: TokenStream, direction: Direction) -> TokenStream {
    match conv {
        Conv::Move => value,
        Conv::Enum(i) => {
            let name = ident(&plan.enums[*i].fns[index(direction)]);
            quote! { #name(#value) }
        }
        _ => {
            let fallible = fallible(plan, conv, value, direction);
            quote! { #fallible? }
        }
    }
}

/// `|cx, v| ...`: a closure converting by `inner`, returning a `Result`.
fn closure(plan: &Plan, inner: &Conv, direction: Direction) -> TokenStream {
    if infallible(inner) {
        let body = expr(plan, inner, quote! { v }, direction);
        quote! { |_, v| Ok(#body) }
    } else {
        let body = fallible(plan, inner, quote! { v }, direction);
        quote! { |cx, v| #body }
    }
}

/// The conversion of `value` by a fallible `conv`: an expression of type
/// `Result<target, Error>`.
fn fallible(plan: &Plan, conv: &Conv, value: TokenStream, direction: Direction) -> TokenStream {
    let root = root();
    let helper = |inner: &Conv, helper: &str| {
        let helper = format_ident!("{helper}");
        let closure = closure(plan, inner, direction);
        quote! { #root::#helper(cx, #value, #closure) }
    };
    match conv {
        Conv::Move | Conv::Enum(_) => {
            let value = expr(plan, conv, value, direction);
            quote! { Ok(#value) }
        }
        Conv::Option(inner) => helper(inner, "option"),
        Conv::Vec(inner) => helper(inner, "vec"),
        Conv::Map(inner) => helper(inner, "map"),
        Conv::Boxed(inner) => helper(inner, "boxed"),
        Conv::Struct(i) => {
            let name = ident(&plan.structs[*i].fns[index(direction)]);
            quote! { #name(user, cx, #value) }
        }
        Conv::Union(i) => {
            let name = ident(&plan.unions[*i].fns[index(direction)]);
            quote! { #name(user, cx, #value) }
        }
        Conv::User(methods) => {
            let name = ident(&plan.methods[methods[index(direction)]].name);
            quote! { user.#name(#value) }
        }
    }
}

fn local(prefix: &str, slot: &Slot) -> Ident {
    format_ident!("{prefix}_{}", slot.rust.trim_start_matches("r#"))
}

/// The function converting the struct pair `pair_index` in `direction`.
fn struct_fn(
    pair: &Pair<'_>,
    pair_index: usize,
    direction: Direction,
) -> Result<TokenStream, Error> {
    let root = root();
    let plan = pair.plan;
    let sp = &plan.structs[pair_index];
    let source = Side::source(direction);
    let target = Side::target(direction);
    let (src, tgt) = match direction {
        Direction::ToHub => (&sp.spoke, &sp.hub),
        Direction::FromHub => (&sp.hub, &sp.spoke),
    };
    let src_ty = pair.named(source, src)?;
    let tgt_ty = pair.named(target, tgt)?;
    let name = ident(&sp.fns[index(direction)]);
    let trait_ = pair.trait_ident();

    // Values computed from the whole source, before it is taken apart.
    let mut before = TokenStream::new();
    // The source's fields: `field: binding`.
    let mut bindings = TokenStream::new();
    // Source-only fields stored in the annotation.
    let mut stores = TokenStream::new();
    // The target's fields: `field: value`.
    let mut values = TokenStream::new();
    let side_slot = |spoke: &Slot, hub: &Slot, side: Side| -> Slot {
        match side {
            Side::Spoke => spoke.clone(),
            Side::Hub => hub.clone(),
        }
    };
    for field in &sp.fields {
        match field {
            FieldPlan::Both { spoke, hub, conv } => {
                let (s, t) = (side_slot(spoke, hub, source), side_slot(spoke, hub, target));
                let (s_field, t_field, binding) = (ident(&s.rust), ident(&t.rust), local("s", &s));
                bindings.extend(quote! { #s_field: #binding, });
                let value = if infallible(conv) {
                    expr(plan, conv, quote! { #binding }, direction)
                } else {
                    let key = &s.key;
                    let closure = closure(plan, conv, direction);
                    quote! { #root::field(cx, #key, #binding, #closure)? }
                };
                values.extend(quote! { #t_field: #value, });
            }
            FieldPlan::HalfOptional {
                spoke,
                hub,
                conv,
                optional,
                method,
            } => {
                let (s, t) = (side_slot(spoke, hub, source), side_slot(spoke, hub, target));
                let (s_field, t_field, binding) = (ident(&s.rust), ident(&t.rust), local("s", &s));
                bindings.extend(quote! { #s_field: #binding, });
                let key = &s.key;
                let convert = |value: TokenStream| {
                    if infallible(conv) {
                        expr(plan, conv, value, direction)
                    } else {
                        let closure = closure(plan, conv, direction);
                        quote! { #root::field(cx, #key, #value, #closure)? }
                    }
                };
                let value = if *optional == source {
                    // Absent here: the user's value there, and a marker for the way back.
                    let method = ident(&plan.methods[*method].name);
                    let present = convert(quote! { v });
                    quote! {
                        match #binding {
                            Some(v) => #present,
                            None => {
                                cx.store(#key, &())?;
                                user.#method()?
                            }
                        }
                    }
                } else {
                    // Absent there again, unless the value was changed since.
                    let method = ident(&plan.methods[*method].name);
                    let present = convert(quote! { #binding });
                    quote! {
                        match cx.restore::<()>(#key)? {
                            Some(()) if #binding == user.#method()? => None,
                            _ => Some(#present),
                        }
                    }
                };
                values.extend(quote! { #t_field: #value, });
            }
            FieldPlan::Retyped {
                spoke,
                hub,
                methods,
            } => {
                let (s, t) = (side_slot(spoke, hub, source), side_slot(spoke, hub, target));
                let s_field = ident(&s.rust);
                bindings.extend(quote! { #s_field: _, });
                let method = ident(&plan.methods[methods[index(direction)]].name);
                let t_field = ident(&t.rust);
                let computed = local("t", &t);
                before.extend(quote! { let #computed = user.#method(&from)?; });
                values.extend(quote! { #t_field: #computed, });
            }
            FieldPlan::Carried {
                side,
                slot,
                fallback,
            } => {
                let field = ident(&slot.rust);
                let key = &slot.key;
                if *side == source {
                    let binding = local("s", slot);
                    bindings.extend(quote! { #field: #binding, });
                    stores.extend(match slot.empty {
                        Empty::None => quote! {
                            if let Some(v) = &#binding {
                                cx.store(#key, v)?;
                            }
                        },
                        Empty::Map => quote! {
                            if !#binding.is_empty() {
                                cx.store(#key, &#binding)?;
                            }
                        },
                        Empty::Required => quote! { cx.store(#key, &#binding)?; },
                    });
                } else {
                    let computed = local("t", slot);
                    let restore = match (slot.empty, fallback) {
                        (Empty::None, _) => quote! { cx.restore(#key)? },
                        (Empty::Map, _) => quote! { cx.restore(#key)?.unwrap_or_default() },
                        (Empty::Required, Some(method)) => {
                            let method = ident(&plan.methods[*method].name);
                            quote! {
                                match cx.restore(#key)? {
                                    Some(v) => v,
                                    None => user.#method(&from)?,
                                }
                            }
                        }
                        (Empty::Required, None) => quote! { cx.restore(#key)?.unwrap_or_default() },
                    };
                    before.extend(quote! { let #computed = #restore; });
                    values.extend(quote! { #field: #computed, });
                }
            }
            FieldPlan::Computed { side, slot, method } => {
                let field = ident(&slot.rust);
                if *side == source {
                    bindings.extend(quote! { #field: _, });
                } else {
                    let computed = local("t", slot);
                    let method = ident(&plan.methods[*method].name);
                    before.extend(quote! { let #computed = user.#method(&from)?; });
                    values.extend(quote! { #field: #computed, });
                }
            }
        }
    }
    Ok(quote! {
        fn #name<C: #trait_>(user: &C, cx: &mut #root::Context, from: #src_ty) -> Result<#tgt_ty, #root::Error> {
            #before
            let #src_ty { #bindings } = from;
            #stores
            Ok(#tgt_ty { #values })
        }
    })
}
