#[derive(Resource)]
#[resource(group = "example.com", version = "v1.2")]
pub struct Foo { metadata: ObjectMeta }
