use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubegen::Resource;

#[derive(schemars::JsonSchema)]
struct FooSpec {}

#[derive(Resource)]
#[resource(
    group = "example",
    version = "V1",
    kind = "1Foo",
    namespaced,
    cluster,
    status,
    scale(spec_replicas_path = "spec.replicas"),
    printcolumn(name = "Count", type = "int", json_path = ".spec.count"),
    group = 42
)]
struct Foo {
    metadata: ObjectMeta,
    spec: FooSpec,
}

fn main() {}
