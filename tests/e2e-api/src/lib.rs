//! A small API crate written the kubegen way: hand-written types with
//! `#[derive(Resource, DeepCopy)]` under [`apis`], and the clientset, listers and
//! informers `hack/update-codegen.sh` generates from them under [`generated`]
//! (`kubegen generate --rust src/apis --rust-module crate::apis --clients-out src/generated`),
//! with the apply configurations under [`applyconfigurations`] (`--apply-out`). The
//! `Widget` CRD in `crds/` gets generated types ([`crd`]) and apply configurations
//! ([`crd_apply`]).

pub mod apis;
#[rustfmt::skip]
pub mod generated;
// Apply configurations (`FooApply`), written by `kubegen generate --apply-out`.
#[rustfmt::skip]
pub mod applyconfigurations;
// Types generated from `crds/widgets.yaml` (`--out`), and their apply configurations with
// nested types mirrored (`--apply-out`). The schema documents only some fields.
#[rustfmt::skip]
#[allow(missing_docs)]
pub mod crd;
#[rustfmt::skip]
pub mod crd_apply;
