use kubegen::Resource;

#[derive(Resource)]
struct NoAttributes {
    metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
}

#[derive(Resource)]
#[resource(group = "example.com")]
struct NoVersionNoMetadata {
    api_version: String,
    spec: String,
}

#[derive(Resource)]
#[resource(group = "example.com", version = "v1")]
enum NotAStruct {
    A,
}

#[derive(Resource)]
#[resource(group = "example.com", version = "v1")]
struct Field {
    metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
    #[resource(renmae = "x")]
    spec: String,
}

fn main() {}
