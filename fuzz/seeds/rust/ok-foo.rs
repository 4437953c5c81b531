use kubegen::Resource;

/// A Foo.
#[derive(Clone, Debug, Resource)]
#[resource(group = "samplecontroller.k8s.io", version = "v1alpha1", status, shortname = "fo")]
pub struct Foo {
    pub metadata: ObjectMeta,
    pub spec: FooSpec,
    pub status: Option<FooStatus>,
}

pub mod nested {
    #[derive(kubegen::Resource)]
    #[resource(group = "example.com", version = "v1", kind = "Bar", plural = "bars", cluster)]
    pub struct Bar {
        metadata: ObjectMeta,
        #[serde(rename = "r#type")]
        r#type: Vec<String>,
    }
}
