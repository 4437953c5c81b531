//! The icecream controller's API types, written by hand with `#[derive(Resource,
//! DeepCopy)]`; their clientset, lister and informer are generated into
//! [`generated`](crate::generated).

pub mod icecream;
