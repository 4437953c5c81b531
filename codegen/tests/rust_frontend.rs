//! The Rust front-end builds the model the CRD front-end builds: a kind written by hand
//! and the same kind generated from its CRD yield the same clientset, listers and
//! informers, byte for byte.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use kubegen_codegen::__internal::emit::clients::{ClientOptions, generate_clients};
use kubegen_codegen::__internal::frontend::{Source, crd, rust};
use kubegen_codegen::__internal::model::{Model, RootType, Scope};
use kubegen_codegen::SAMPLE_CRD;

/// The hand-written twin of `SAMPLE_CRD` plus a cluster-scoped kind with scale.
const FOO_RS: &str = r#"
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// Foo is a specification for a Foo resource.
#[derive(Clone, Debug, kubegen::Resource)]
#[resource(group = "samplecontroller.k8s.io", version = "v1alpha1", status)]
pub struct Foo {
    pub metadata: ObjectMeta,
    pub spec: FooSpec,
    pub status: Option<FooStatus>,
}

#[derive(kubegen::Resource)]
#[resource(group = "samplecontroller.k8s.io", version = "v1alpha1", cluster,
           scale(spec_replicas_path = ".spec.replicas", status_replicas_path = ".status.replicas"))]
pub struct Zone {
    pub metadata: ObjectMeta,
    pub spec: ZoneSpec,
}

/// Not a resource: ignored.
#[derive(Clone)]
pub struct FooSpec { pub deployment_name: String, pub replicas: i32 }
"#;

const ZONE_CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: zones.samplecontroller.k8s.io
spec:
  group: samplecontroller.k8s.io
  names: { kind: Zone, plural: zones, singular: zone, listKind: ZoneList }
  scope: Cluster
  versions:
    - name: v1alpha1
      served: true
      storage: true
      subresources:
        scale: { specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, properties: { replicas: { type: integer } } }
"#;

fn from_rust() -> Model {
    // The file's place under the API root gives the module path, matching the layout of
    // generated types (`<root>::<group module>::<version>::<Kind>`).
    let source = Source::new("samplecontroller_k8s_io/v1alpha1/mod.rs", FOO_RS);
    let mut model = Model::default();
    let options = rust::Options::default().module("crate::types");
    rust::load(&mut model, &[source], &options).expect("valid Rust APIs");
    model
}

fn from_crds() -> Model {
    let mut model = Model::default();
    crd::load(
        &mut model,
        &[
            Source::new("foo.yaml", SAMPLE_CRD),
            Source::new("zone.yaml", ZONE_CRD),
        ],
        &crd::Options::default(),
    )
    .expect("valid CRDs");
    model
}

fn options() -> ClientOptions {
    ClientOptions::default().types_module("crate::types")
}

#[test]
fn hand_written_and_crd_kinds_have_the_same_client_surface() {
    let by_hand = generate_clients(&from_rust(), &options()).expect("clients from Rust");
    let generated = generate_clients(&from_crds(), &options()).expect("clients from CRDs");
    assert_eq!(by_hand.len(), 4);
    for (a, b) in by_hand.iter().zip(&generated) {
        assert_eq!(a.path, b.path);
        assert_eq!(a.contents, b.contents, "{} differs", a.path);
    }
}

#[test]
fn rust_model_matches_crd_model_api_surface() {
    let rust = from_rust();
    let crds = from_crds();
    for (group, version) in crds.versions() {
        let other = &rust.groups[&group.name].versions[&version.name];
        assert_eq!(
            version.kinds.keys().collect::<Vec<_>>(),
            other.kinds.keys().collect::<Vec<_>>()
        );
        for (name, kind) in &version.kinds {
            let mine = &other.kinds[name];
            assert_eq!(mine.names.plural, kind.names.plural);
            assert_eq!(mine.names.singular, kind.names.singular);
            assert_eq!(mine.names.list_kind, kind.names.list_kind);
            assert_eq!(mine.scope, kind.scope);
            assert_eq!(mine.subresources, kind.subresources);
            assert_eq!(mine.root.name(), kind.root.name());
            assert!(matches!(mine.root, RootType::HandWritten(_)));
            assert!(matches!(kind.root, RootType::Generated(_)));
        }
    }
    assert!(rust.validate().is_ok());
}

#[test]
fn client_surface_follows_scope_and_subresources() {
    let model = from_rust();
    let files = generate_clients(&model, &options()).unwrap();
    let clientset = flat(&files[0].contents);
    assert!(clientset.contains(
        "pub fn samplecontroller_v1alpha1(&self) -> samplecontroller_k8s_io::v1alpha1::Client {"
    ));
    assert!(clientset.contains("pub fn foos(&self, namespace: &str) -> FooClient {"));
    assert!(clientset.contains("pub fn zones(&self) -> ZoneClient {"));
    assert!(clientset.contains(
        "pub type FooClient = ::kubegen::gentype::ResourceClient<crate::types::samplecontroller_k8s_io::v1alpha1::Foo, ::kubegen::gentype::subresources::Status>;"
    ));
    assert!(clientset.contains(
        "pub type ZoneClient = ::kubegen::gentype::ResourceClient<crate::types::samplecontroller_k8s_io::v1alpha1::Zone, ::kubegen::gentype::subresources::Scale>;"
    ));
    assert!(
        clientset.contains(
            "FooClient { ::kubegen::gentype::namespaced(self.client.clone(), namespace) }"
        )
    );
    assert!(clientset.contains("ZoneClient { ::kubegen::gentype::cluster(self.client.clone()) }"));
    let listers = flat(&files[2].contents);
    assert!(listers.contains(
        "pub type FooLister = ::kubegen::runtime::lister::Lister<crate::types::samplecontroller_k8s_io::v1alpha1::Foo>;"
    ));
    let informers = flat(&files[1].contents);
    assert!(
        informers.contains("pub fn samplecontroller(&self) -> samplecontroller_k8s_io::Group {")
    );
    assert!(informers.contains("pub fn v1alpha1(&self) -> v1alpha1::Version {"));
    assert!(informers.contains("pub fn foos(&self) -> FooInformer {"));
    assert!(informers.contains(
        "pub type FooInformer = ::kubegen::gentype::Informer<crate::types::samplecontroller_k8s_io::v1alpha1::Foo>;"
    ));
    assert_eq!(
        model.groups["samplecontroller.k8s.io"].versions["v1alpha1"].kinds["Zone"].scope,
        Scope::Cluster
    );
}

#[test]
fn generation_is_deterministic() {
    let model = from_rust();
    assert_eq!(
        generate_clients(&model, &options()).unwrap(),
        generate_clients(&model, &options()).unwrap()
    );
}

/// The code on one line, without the breaks prettyplease adds for long signatures.
fn flat(code: &str) -> String {
    code.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace("( ", "(")
        .replace("< ", "<")
        .replace(", )", ")")
        .replace(", >", ">")
        .replace(" )", ")")
        .replace(" >", ">")
}

/// Kinds restricting their clients' verbs (client-gen's `+genclient:readonly`,
/// `+genclient:onlyVerbs`, `+genclient:noStatus`).
const VERBS_RS: &str = r#"
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

#[derive(kubegen::Resource)]
#[resource(group = "verbs.example.com", version = "v1", status, readonly)]
pub struct Report { pub metadata: ObjectMeta, pub spec: ReportSpec, pub status: Option<ReportStatus> }

#[derive(kubegen::Resource)]
#[resource(group = "verbs.example.com", version = "v1", verbs(get, list, create, delete))]
pub struct Ticket { pub metadata: ObjectMeta, pub spec: TicketSpec }

#[derive(kubegen::Resource)]
#[resource(group = "verbs.example.com", version = "v1", status, no_status_verbs,
           scale(spec_replicas_path = ".spec.replicas", status_replicas_path = ".status.replicas"))]
pub struct Pool { pub metadata: ObjectMeta, pub spec: PoolSpec, pub status: Option<PoolStatus> }
"#;

#[test]
fn client_aliases_carry_the_verb_sets() {
    let mut model = Model::default();
    let source = Source::new("verbs_example_com/v1/mod.rs", VERBS_RS);
    let rust_options = rust::Options::default().module("crate::types");
    rust::load(&mut model, &[source], &rust_options).expect("valid Rust APIs");
    model.validate().expect("a valid model");
    let files = generate_clients(&model, &options()).unwrap();
    let clientset = flat(&files[0].contents);
    let aliases: Vec<&str> = clientset
        .split("pub type ")
        .skip(1)
        .map(|rest| rest.split(';').next().unwrap())
        .collect();
    assert_eq!(
        aliases,
        [
            "PoolClient = ::kubegen::gentype::ResourceClient<crate::types::verbs_example_com::v1::Pool, ::kubegen::gentype::subresources::Scale>",
            "ReportClient = ::kubegen::gentype::ResourceClient<crate::types::verbs_example_com::v1::Report, ::kubegen::gentype::subresources::Status, ::kubegen::gentype::verbs::ReadOnly>",
            "TicketClient = ::kubegen::gentype::ResourceClient<crate::types::verbs_example_com::v1::Ticket, ::kubegen::gentype::subresources::None, ::kubegen::gentype::verbs::Verbs<::kubegen::gentype::verbs::Yes, ::kubegen::gentype::verbs::Yes, ::kubegen::gentype::verbs::No, ::kubegen::gentype::verbs::Yes, ::kubegen::gentype::verbs::No, ::kubegen::gentype::verbs::No, ::kubegen::gentype::verbs::Yes, ::kubegen::gentype::verbs::No>>",
        ]
    );
}
