#[derive(kubegen::Resource)]
#[resource(group = "example.com", version = "v1")]
pub struct Bar<T: Clone> where T: Default {
    metadata: ObjectMeta,
    items: Vec<T>,
}
