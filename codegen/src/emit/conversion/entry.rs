//! A kind's module in the tree (`<group>/<kind>/mod.rs`): its spoke versions' modules and
//! `convert`, the one entry point a conversion webhook calls with whole objects as JSON.

use proc_macro2::TokenStream;
use quote::quote;

use crate::emit::common::{Paths, ident};
use crate::model::{Group, Version};
use crate::naming;

/// A spoke version of the kind.
pub(crate) struct Spoke<'a> {
    /// The version.
    pub(crate) version: &'a Version,
    /// Its root struct's name (which names the pair's trait).
    pub(crate) root: &'a str,
}

/// Everything a kind's module is built from.
pub(crate) struct KindModule<'a> {
    pub(crate) group: &'a Group,
    pub(crate) kind: &'a str,
    pub(crate) hub: &'a Version,
    /// The other versions, in version order.
    pub(crate) spokes: &'a [Spoke<'a>],
    pub(crate) paths: &'a Paths,
}

/// The items of the kind's module: `pub mod` per spoke version, and `convert`, generic over
/// the user's type implementing every pair's trait (one value answers every version, as one
/// webhook path serves the whole CRD).
pub(crate) fn items(module: &KindModule<'_>) -> TokenStream {
    let json = &module.paths.serde_json;
    let kind = module.kind;
    let hub_api = naming::api_version(&module.group.name, &module.hub.name);
    let api = |spoke: &Spoke<'_>| naming::api_version(&module.group.name, &spoke.version.name);
    let doc = format!(
        " `{kind}` conversions: each version to and from the hub `{hub_api}`, and [`convert`] \
         between any two."
    );
    let mods: Vec<_> = module
        .spokes
        .iter()
        .map(|s| ident(&s.version.module))
        .collect();
    let bounds = module.spokes.iter().map(|s| {
        let module = ident(&s.version.module);
        let trait_ = ident(&naming::conversion_trait(s.root, &s.version.name));
        quote! { #module::#trait_ }
    });
    let mut versions: Vec<String> = module.spokes.iter().map(api).collect();
    versions.push(hub_api.clone());
    versions.sort();
    let to_hub = module.spokes.iter().map(|s| {
        let (module, api) = (ident(&s.version.module), api(s));
        quote! { #api => #module::to_hub(support::decode(object)?, user)?, }
    });
    let from_hub = module.spokes.iter().map(|s| {
        let (module, api) = (ident(&s.version.module), api(s));
        quote! { #api => support::encode(&#module::from_hub(hub, user)?, #api, KIND), }
    });
    let convert_doc = format!(
        " Converts a whole `{kind}` object (JSON, as a conversion webhook receives it) to \
         `desired_api_version`: read as the version its `apiVersion` names, converted to the \
         hub `{hub_api}` and from there to the desired version, written back with that \
         `apiVersion` and `kind`. Metadata is converted as it is (with the \
         [`ANNOTATION`](support::ANNOTATION) carrying what the desired version lacks); an \
         object already at the desired version comes back unchanged; a version `{kind}` \
         does not have is an error naming it.\n\n `user` implements the trait of every \
         version pair (`&()` when none has a method)."
    );
    let versions_doc = format!(" The apiVersions of `{kind}`, sorted.");
    quote! {
        #![doc = #doc]

        use super::super as support;

        #(pub mod #mods;)*

        #[doc = #versions_doc]
        pub const VERSIONS: &[&str] = &[#(#versions),*];

        #[doc = #convert_doc]
        pub fn convert<C>(
            user: &C,
            object: #json::Value,
            desired_api_version: &str,
        ) -> Result<#json::Value, support::Error>
        where
            C: #(#bounds)+*,
        {
            const KIND: &str = #kind;
            let from = support::api_version_of(&object)?.to_owned();
            if from == desired_api_version {
                return Ok(object);
            }
            if !VERSIONS.contains(&desired_api_version) {
                return Err(support::unknown_version(KIND, desired_api_version, VERSIONS));
            }
            let hub = match from.as_str() {
                #(#to_hub)*
                #hub_api => support::decode(object)?,
                other => return Err(support::unknown_version(KIND, other, VERSIONS)),
            };
            match desired_api_version {
                #(#from_hub)*
                #hub_api => support::encode(&hub, #hub_api, KIND),
                other => Err(support::unknown_version(KIND, other, VERSIONS)),
            }
        }
    }
}
