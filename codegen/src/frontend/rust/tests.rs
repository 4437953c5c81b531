use syn::parse_quote;

use super::*;
use crate::emit::deepcopy::CopyFields;

fn messages(input: &DeriveInput) -> Vec<String> {
    match resource(input) {
        Ok(_) => Vec::new(),
        Err(error) => error.into_iter().map(|e| e.to_string()).collect(),
    }
}

#[test]
fn deep_copy_shapes() {
    let input: DeriveInput = parse_quote! {
        enum Source<T: Send> where T: Sync { Git { url: String, r#ref: T }, Image(String, u8), None }
    };
    let def = deep_copy(&input).unwrap();
    assert_eq!(def.name, "Source");
    assert_eq!(def.generics.type_params, ["T"]);
    assert_eq!(def.generics.where_predicates.len(), 1);
    let CopyBody::Enum(variants) = def.body else {
        panic!("an enum")
    };
    assert_eq!(
        variants[0].1,
        CopyFields::Named(vec!["url".into(), "r#ref".into()])
    );
    assert_eq!(variants[1].1, CopyFields::Unnamed(2));
    assert_eq!(variants[2].1, CopyFields::Unit);

    let union: DeriveInput = parse_quote! { union U { a: u32 } };
    assert!(
        deep_copy(&union)
            .unwrap_err()
            .to_string()
            .contains("unions")
    );
}

#[test]
fn resource_defaults() {
    let input: DeriveInput = parse_quote! {
        /// A network policy of sorts.
        #[resource(group = "net.example.com", version = "v1", cluster)]
        struct NetPolicy { metadata: ObjectMeta, spec: Spec, status: Option<Status>, extra_data: Option<String> }
    };
    let def = resource(&input).unwrap();
    assert_eq!(def.kind.name, "NetPolicy");
    assert_eq!(def.kind.names.plural, "netpolicies");
    assert_eq!(def.kind.names.singular, "netpolicy");
    assert_eq!(def.kind.names.list_kind, "NetPolicyList");
    assert_eq!(def.kind.scope, Scope::Cluster);
    assert!(!def.kind.subresources.status);
    assert_eq!(def.docs.as_deref(), Some("A network policy of sorts."));
    let wire: Vec<_> = def
        .fields
        .iter()
        .map(|f| (f.wire_name.as_str(), f.optional))
        .collect();
    assert_eq!(
        wire,
        [
            ("metadata", false),
            ("spec", false),
            ("status", true),
            ("extraData", true)
        ]
    );
}

#[test]
fn resource_full_attributes() {
    let input: DeriveInput = parse_quote! {
        #[resource(group = "samplecontroller.k8s.io", version = "v1alpha1", kind = "Foo", plural = "foos",
                   namespaced, status, shortname = "fo", shortname = "foo", category = "all",
                   scale(spec_replicas_path = ".spec.replicas", status_replicas_path = ".status.replicas",
                         label_selector_path = ".status.selector"),
                   printcolumn(name = "Replicas", type = "integer", json_path = ".spec.replicas", priority = 1),
                   selectable = ".spec.deploymentName")]
        struct FooObject { metadata: ObjectMeta, spec: FooSpec, #[resource(rename = "status")] state: Option<FooStatus> }
    };
    let def = resource(&input).unwrap();
    assert_eq!(def.kind.name, "Foo");
    assert_eq!(def.type_name, "FooObject");
    assert_eq!(def.kind.names.short_names, ["fo", "foo"]);
    assert_eq!(def.kind.names.categories, ["all"]);
    let scale = def.kind.subresources.scale.unwrap();
    assert_eq!(
        scale.label_selector_path.as_deref(),
        Some(".status.selector")
    );
    assert_eq!(def.kind.printer_columns[0].priority, 1);
    assert_eq!(def.kind.selectable_fields, [".spec.deploymentName"]);
    assert_eq!(def.fields[2].wire_name, "status");
}

#[test]
fn every_error_is_reported_at_once() {
    let input: DeriveInput = parse_quote! {
        #[resource(gruop = "x.io", version = "V1", namespaced, cluster, status, printcolumn(name = "A"),
                   scale(spec_replicas = ".spec.replicas"))]
        struct Foo { spec: FooSpec }
    };
    assert_eq!(
        messages(&input),
        [
            "unknown resource attribute `gruop`; did you mean `group`?",
            "invalid version `V1`: expected a DNS label like `v1alpha1`",
            "a resource is either `namespaced` or `cluster`, not both",
            "`printcolumn` needs `type` and `json_path`",
            "unknown scale attribute `spec_replicas`; did you mean `spec_replicas_path`?",
            "`scale` needs `spec_replicas_path` and `status_replicas_path`",
            "missing `group = \"...\"` in #[resource(...)]",
            "a resource needs a `metadata: ObjectMeta` field",
            "`status` declares the status subresource, but the struct has no `status` field",
        ]
    );
}

#[test]
fn shape_errors() {
    let missing: DeriveInput = parse_quote! { struct Foo { metadata: ObjectMeta } };
    assert_eq!(
        messages(&missing),
        ["#[derive(Resource)] needs #[resource(group = \"...\", version = \"...\")]"]
    );
    let generic: DeriveInput = parse_quote! {
        #[resource(group = "a.io", version = "v1")]
        struct Foo<T> { metadata: ObjectMeta, spec: T }
    };
    assert!(messages(&generic)[0].starts_with("Resource cannot be derived for generic structs"));
    let type_meta: DeriveInput = parse_quote! {
        #[resource(group = "a.io", version = "v1")]
        struct Foo { api_version: String, metadata: Option<ObjectMeta> }
    };
    assert_eq!(
        messages(&type_meta),
        [
            "remove the `apiVersion` field: the derive writes `apiVersion` and `kind` itself",
            "`metadata` must be `ObjectMeta` (k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta)",
        ]
    );
    let tuple: DeriveInput = parse_quote! {
        #[resource(group = "a.io", version = "v1")]
        struct Foo(ObjectMeta);
    };
    assert!(messages(&tuple)[0].starts_with("Resource needs named fields"));
}

#[test]
fn lower_camel_wire_names() {
    assert_eq!(lower_camel("spec"), "spec");
    assert_eq!(lower_camel("extra_data_v2"), "extraDataV2");
    assert_eq!(lower_camel("_private"), "private");
}
