use syn::parse_quote;

use super::*;
use crate::model::Resource;
use crate::naming::kubernetes::EXPECTED_VERSION;

/// The one resource of a derive's model.
fn one(model: &Model) -> Resource<'_> {
    let mut resources = model.resources();
    let resource = resources.next().expect("one resource");
    assert!(resources.next().is_none());
    resource
}

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
    let shape = deep_copy(&input).unwrap();
    assert_eq!(shape.name, "Source");
    assert_eq!(
        shape.generics.params,
        [GenericParam {
            kind: ParamKind::Type,
            name: "T".into(),
            declaration: "T : Send".into()
        }]
    );
    assert_eq!(shape.generics.where_predicates, ["T : Sync"]);
    let ShapeBody::Enum(variants) = shape.body else {
        panic!("an enum")
    };
    assert_eq!(
        variants[0].fields,
        ShapeFields::Named(vec!["url".into(), "r#ref".into()])
    );
    assert_eq!(variants[1].fields, ShapeFields::Unnamed(2));
    assert_eq!(variants[2].fields, ShapeFields::Unit);

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
    let model = resource(&input).unwrap();
    let def = one(&model);
    assert_eq!(def.group.name, "net.example.com");
    assert_eq!(def.kind.name, "NetPolicy");
    assert_eq!(def.kind.names.plural, "netpolicies");
    assert_eq!(def.kind.names.singular, "netpolicy");
    assert_eq!(def.kind.names.list_kind, "NetPolicyList");
    assert_eq!(def.kind.scope, Scope::Cluster);
    assert!(!def.kind.subresources.status);
    assert_eq!(def.root.docs.as_deref(), Some("A network policy of sorts."));
    let wire: Vec<_> = def
        .fields
        .fields
        .iter()
        .map(|f| (f.wire_name.as_str(), f.required))
        .collect();
    assert_eq!(
        wire,
        [
            ("metadata", true),
            ("spec", true),
            ("status", false),
            ("extraData", false)
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
    let model = resource(&input).unwrap();
    let def = one(&model);
    assert_eq!(def.kind.name, "Foo");
    assert_eq!(def.root.name, "FooObject");
    assert_eq!(def.kind.names.short_names, ["fo", "foo"]);
    assert_eq!(def.kind.names.categories, ["all"]);
    let scale = def.kind.subresources.scale.clone().unwrap();
    assert_eq!(
        scale.label_selector_path.as_deref(),
        Some(".status.selector")
    );
    assert_eq!(def.kind.printer_columns[0].priority, 1);
    assert_eq!(def.kind.selectable_fields, [".spec.deploymentName"]);
    assert_eq!(def.fields.fields[2].wire_name, "status");
}

#[test]
fn client_verbs_from_attributes() {
    use crate::model::{ClientVerb, ClientVerbs};
    let verbs_of = |input: DeriveInput| one(&resource(&input).unwrap()).kind.client_verbs.clone();
    assert_eq!(
        verbs_of(parse_quote! {
            #[resource(group = "x.io", version = "v1")]
            struct Foo { metadata: ObjectMeta, spec: FooSpec }
        }),
        ClientVerbs::default()
    );
    let read_only = verbs_of(parse_quote! {
        #[resource(group = "x.io", version = "v1", readonly)]
        struct Foo { metadata: ObjectMeta, spec: FooSpec }
    });
    assert!(read_only.is_read_only() && !read_only.no_status);
    let listed = verbs_of(parse_quote! {
        #[resource(group = "x.io", version = "v1", status, verbs(list, get, deletecollection), no_status_verbs)]
        struct Foo { metadata: ObjectMeta, spec: FooSpec, status: Option<FooStatus> }
    });
    assert_eq!(
        listed.verbs.into_iter().collect::<Vec<_>>(),
        [
            ClientVerb::Get,
            ClientVerb::List,
            ClientVerb::DeleteCollection
        ]
    );
    assert!(listed.no_status);
}

#[test]
fn client_verb_mistakes() {
    let input: DeriveInput = parse_quote! {
        #[resource(group = "x.io", version = "v1", readonly, verbs(get, lsit, get, watch = 1),
                   no_status_verbs, readonly = true)]
        struct Foo { metadata: ObjectMeta, spec: FooSpec }
    };
    assert_eq!(
        messages(&input),
        [
            "unknown verb `lsit`; did you mean `list`?",
            "duplicate verb `get`",
            "verb `watch` takes no value",
            "`readonly` takes no value: write `readonly`",
            "`readonly` is `verbs(get, list, watch)`: write one or the other",
            "`no_status_verbs` needs `status`: a kind without status has no status verbs",
        ]
    );
    let empty: DeriveInput = parse_quote! {
        #[resource(group = "x.io", version = "v1", verbs())]
        struct Foo { metadata: ObjectMeta, spec: FooSpec }
    };
    assert_eq!(messages(&empty), ["`verbs(...)` needs at least one verb"]);
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
            format!("invalid version \"V1\": {EXPECTED_VERSION}").as_str(),
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
fn every_problem_the_model_finds_is_its_own_error() {
    // A kind of 63 characters is valid; its plural and listKind made from it are too long.
    let name = syn::Ident::new(
        &format!("K{}", "a".repeat(62)),
        proc_macro2::Span::call_site(),
    );
    let input: DeriveInput = parse_quote! {
        #[resource(group = "x.io", version = "v1")]
        struct #name { metadata: ObjectMeta, spec: FooSpec }
    };
    let messages = messages(&input);
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(
        messages[0].starts_with("failed to validate x.io/v1: invalid plural"),
        "{messages:?}"
    );
    assert!(
        messages[1].starts_with("failed to validate x.io/v1: invalid listKind"),
        "{messages:?}"
    );
}

#[test]
fn names_follow_kubernetes_rules() {
    let input: DeriveInput = parse_quote! {
        #[resource(group = "example", version = "v1.2", kind = "1Foo", plural = "Foos")]
        struct Foo { metadata: ObjectMeta }
    };
    let got = messages(&input);
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(
        got[0].starts_with("invalid group \"example\": expected a domain with at least one dot")
    );
    assert!(got[1].starts_with("invalid version \"v1.2\""));
    assert!(got[2].starts_with("invalid kind \"1Foo\""));
    assert!(got[3].starts_with("invalid plural \"Foos\""));
    // Kubernetes accepts a dash in a kind, and so does the derive.
    let dashed: DeriveInput = parse_quote! {
        #[resource(group = "example.com", version = "fn", kind = "a-b")]
        struct Dashed { metadata: ObjectMeta, r#type: String }
    };
    let model = resource(&dashed).unwrap();
    assert_eq!(one(&model).version.module, "fn_");
}
