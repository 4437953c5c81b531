use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubegen::{DeepCopy, Resource};

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct FooSpec {
    pub replicas: i32,
}

// Without `Clone`: the error is here, not in the generated clients and listers.
#[derive(Debug, Resource)]
#[resource(group = "samplecontroller.k8s.io", version = "v1alpha1")]
pub struct Foo {
    pub metadata: ObjectMeta,
    pub spec: FooSpec,
}

// With `DeepCopy` (or `Clone`), no error.
#[derive(Debug, DeepCopy, Resource)]
#[resource(group = "samplecontroller.k8s.io", version = "v1alpha1")]
pub struct Bar {
    pub metadata: ObjectMeta,
    pub spec: FooSpec,
}

fn main() {}
