//! kubegen-derive: the `Resource` and `DeepCopy` derives.
//!
//! The derives parse with the Rust front-end of `kubegen-codegen` (its internal
//! `frontend::rust`, reached through `kubegen_codegen::__internal`, which is not that
//! crate's API), which turns the input into model data (a validated `Model` holding the
//! kind, or a `TypeShape`), and emit from that data with its emitters (`emit::resource`,
//! `emit::deepcopy`), so a struct annotated by hand and
//! the same type generated from its CRD implement the same traits the same way. This crate
//! is only the proc-macro shell; use it through the `kubegen` facade.

use proc_macro::TokenStream;
use quote::quote;
use syn::DeriveInput;

use kubegen_codegen::__internal::emit::{self, deepcopy, resource};
use kubegen_codegen::__internal::frontend::rust;

/// Implements `Clone` with a `clone_from` that copies field by field, so `String`s,
/// `Vec`s and maps of the destination keep their buffers (a derived `Clone::clone_from`
/// replaces the whole value). Enums copy field by field when both sides are the same
/// variant. Type parameters get a `Clone` bound, as with `#[derive(Clone)]`.
///
/// ```
/// use kubegen::DeepCopy;
///
/// #[derive(DeepCopy, Debug, PartialEq)]
/// struct Labels { names: Vec<String> }
///
/// let source = Labels { names: vec!["a".into(), "b".into()] };
/// let mut cache = Labels { names: Vec::with_capacity(16) };
/// let buffer = cache.names.as_ptr();
/// cache.clone_from(&source);
/// assert_eq!(cache, source);
/// assert_eq!(cache.names.as_ptr(), buffer); // the allocation was reused
/// ```
#[proc_macro_derive(DeepCopy)]
pub fn derive_deep_copy(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as DeriveInput);
    let expanded = rust::deep_copy(&input).and_then(|shape| {
        deepcopy::clone_impl(&shape).map_err(|e| syn::Error::new(input.ident.span(), e))
    });
    match expanded {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

/// Makes a struct with `metadata: ObjectMeta`, `spec` and an optional `status` a
/// Kubernetes resource.
///
/// ```text
/// #[resource(
///     group = "samplecontroller.k8s.io", version = "v1alpha1",  // required
///     kind = "Foo", plural = "foos", singular = "foo",          // default: from the type name
///     namespaced | cluster,                                       // default: namespaced
///     status,                                                     // the status subresource
///     storage,                                                    // the storage version of a
///                                                                 // kind with several versions
///     scale(spec_replicas_path = ".spec.replicas", status_replicas_path = ".status.replicas",
///           label_selector_path = ".status.selector"),
///     shortname = "fo", category = "all",                         // repeatable
///     printcolumn(name = "Replicas", type = "integer", json_path = ".spec.replicas",
///                 description = "...", priority = 0),             // repeatable
///     selectable = ".spec.deploymentName",                        // repeatable
///     validation(rule = "self.spec.replicas <= 10", message = "...",  // repeatable: CEL
///                message_expression = "...", reason = "FieldValueInvalid",
///                field_path = ".spec.replicas", optional_old_self = true),
///     readonly | verbs(get, list, watch, create, update, patch, delete, deletecollection),
///                                                                 // the client's verbs
///                                                                 // (default: all)
///     no_status_verbs,                                            // no status verbs in the
///                                                                 // client (needs `status`)
///     crate = "::kubegen",                                        // the facade's path
/// )]
/// ```
///
/// The struct must implement `Clone` (`#[derive(DeepCopy)]`, or `#[derive(Clone)]`):
/// generated clients, listers and informers clone objects out of their caches, so the
/// derive asserts it, with an error at the struct's name.
///
/// It implements `k8s_openapi::Resource`, `ListableResource` and `Metadata` (so kube's
/// blanket impl makes it a `kube::Resource`, exactly like k8s-openapi's types),
/// `Serialize` and `Deserialize` (writing `apiVersion` and `kind`, so do not derive serde on
/// the root type nor add a TypeMeta field; field names are camelCased, or renamed with
/// `#[resource(rename = "...")]`), and `crd()` / `try_crd()` returning the
/// CustomResourceDefinition with a structural schema built from the fields' `JsonSchema`.
/// A kind with several versions is one struct per version (in modules `v1alpha1`, `v1`),
/// exactly one marked `storage`; `kubegen::crd::merge` makes their `crd()`s the one
/// definition, as `kubegen crd` writes it.
///
/// Field types' own schemas come from their `JsonSchema` impls, so rules and extensions of
/// nested fields are schemars attributes:
/// `#[schemars(extend("x-kubernetes-validations" = [{"rule": "...", "message": "..."}]))]`,
/// `#[schemars(extend("x-kubernetes-list-type" = "set"))]`. `kubegen crd` reads the same
/// attributes (and these `#[resource]` ones) to write the manifest `crd()` builds.
///
/// The client verbs (client-gen's `+genclient:readonly`, `+genclient:onlyVerbs`,
/// `+genclient:noStatus`) shape the kind's generated client (`kubegen generate --rust`):
/// `FooClient` offers only those verbs, server-side apply counting as `patch` and the
/// status and scale verbs following `update`, `patch` and `get`; calling another one is a
/// compile error.
///
/// Mistakes are reported together, each at its span, with "did you mean" help.
#[proc_macro_derive(Resource, attributes(resource))]
pub fn derive_resource(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as DeriveInput);
    let facade = rust::facade_path(&input).unwrap_or_else(|| "::kubegen".to_owned());
    let expanded = rust::resource(&input).and_then(|model| {
        let options = emit::Options::through_facade(&facade);
        let emit = resource::Emit {
            deserialize: true,
            crd: Some(facade.clone()),
        };
        let error = |e: &dyn std::fmt::Display| syn::Error::new(input.ident.span(), e.to_string());
        let root = model
            .resources()
            .next()
            .ok_or_else(|| error(&"no resource in the model"))?;
        let impls = resource::impls(&root, &options, &emit).map_err(|e| error(&e))?;
        let clone = resource::assert_clone(&input.ident, &facade);
        Ok(quote! { #impls #clone })
    });
    match expanded {
        Ok(tokens) => tokens.into(),
        Err(error) => {
            let errors = error.to_compile_error();
            let fallback = resource::fallback(&input.ident.to_string(), &facade);
            quote! { #errors #fallback }.into()
        }
    }
}
