#[derive(Resource)]
#[resource(gruop = "example.com", version = "v1")]
pub struct Foo { metadata: ObjectMeta }
