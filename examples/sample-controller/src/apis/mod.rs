//! The sample controller's API types, written by hand with `#[derive(Resource,
//! DeepCopy)]`; their clientset, lister and informer are generated into
//! [`generated`](crate::generated) by `kubegen generate --rust src/apis`.

pub mod samplecontroller;
