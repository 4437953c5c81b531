//! A small API crate written the kubegen way: hand-written types with
//! `#[derive(Resource, DeepCopy)]` under [`apis`], and the clientset, listers and
//! informers `hack/update-codegen.sh` generates from them under [`generated`]
//! (`kubegen generate --rust src/apis --rust-module crate::apis --clients-out src/generated`).

pub mod apis;
#[rustfmt::skip]
pub mod generated;
