use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubegen::Resource;

#[derive(schemars::JsonSchema)]
struct FooSpec {}

#[derive(Resource)]
#[resource(
    gruop = "samplecontroller.k8s.io",
    version = "v1alpha1",
    namspaced,
    shortnames = "fo",
    printcolumn(name = "Age", typ = "date", json_path = ".metadata.creationTimestamp")
)]
struct Foo {
    metadata: ObjectMeta,
    spec: FooSpec,
}

fn main() {
    // The fallback keeps these from adding errors of their own.
    let _ = Foo::crd();
    let _ = <Foo as kube::Resource>::kind(&());
}
