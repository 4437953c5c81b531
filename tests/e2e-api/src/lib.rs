//! A small API crate written the kubegen way: hand-written types with
//! `#[derive(Resource, DeepCopy)]` under [`apis`], and the clientset, listers and
//! informers `hack/update-codegen.sh` generates from them under [`generated`]
//! (`kubegen generate --rust src/apis --rust-module crate::apis --clients-out src/generated`),
//! with the apply configurations under [`applyconfigurations`] (`--apply-out`). The
//! `Widget` CRD in `crds/` gets generated types ([`crd`]) and apply configurations
//! ([`crd_apply`]).

pub mod apis;
/// A kind's generated client offers the verbs the kind declares and no others. The
/// `compile_fail` examples below fail for that reason alone: each makes a call that
/// compiles on an every-verb client of the same kind (the first example), through the
/// generated client instead (rustc's E0599: the method exists, but the client's verb set
/// does not satisfy `CanCreate`/`CanUpdate`/`CanPatch`; stable rustdoc does not compare the
/// code, nightly does).
///
/// ```no_run
/// use kubegen::runtime::client::{Scope, TypedClient};
/// use kubegen_e2e_api::apis::example::v1::{Gauge, Ticket};
/// use kubegen_e2e_api::applyconfigurations::example_com::v1::TicketApply;
///
/// async fn every_verb(client: kube::Client, gauge: Gauge, ticket: Ticket) {
///     let gauges = TypedClient::<Gauge>::new(client.clone(), Scope::Namespace("default"), &());
///     let _ = gauges.create(&gauge).await;
///     let tickets = TypedClient::<Ticket>::new(client, Scope::Namespace("default"), &());
///     let _ = tickets.update(&ticket).await;
///     let _ = tickets.apply(&TicketApply::new("t1", "default"), "me", false).await;
/// }
/// ```
///
/// The read-only `Gauge` (`#[resource(readonly)]`) gets, lists and watches,
///
/// ```no_run
/// use kubegen_e2e_api::apis::example::v1::Gauge;
/// use kubegen_e2e_api::generated::clientset::Clientset;
///
/// async fn read(client: kube::Client) {
///     let gauges = Clientset::new(client).example_v1().gauges("default");
///     let _: Result<Gauge, _> = gauges.get("cpu").await;
///     let _ = gauges.list(&Default::default()).await;
///     let _ = gauges.watch(&Default::default(), "0").await;
/// }
/// ```
///
/// and cannot create:
///
/// ```compile_fail,E0599
/// use kubegen_e2e_api::apis::example::v1::Gauge;
/// use kubegen_e2e_api::generated::clientset::Clientset;
///
/// async fn write(client: kube::Client, gauge: Gauge) {
///     let gauges = Clientset::new(client).example_v1().gauges("default");
///     let _ = gauges.create(&gauge).await;
/// }
/// ```
///
/// `Ticket` (`#[resource(verbs(get, list, create, delete))]`) creates and deletes,
///
/// ```no_run
/// use kubegen_e2e_api::apis::example::v1::Ticket;
/// use kubegen_e2e_api::generated::clientset::Clientset;
///
/// async fn open_and_close(client: kube::Client, ticket: Ticket) {
///     let tickets = Clientset::new(client).example_v1().tickets("default");
///     let _ = tickets.create(&ticket).await;
///     let _ = tickets.delete("t1", &Default::default()).await;
/// }
/// ```
///
/// but cannot update, nor apply (a patch):
///
/// ```compile_fail,E0599
/// use kubegen_e2e_api::apis::example::v1::Ticket;
/// use kubegen_e2e_api::generated::clientset::Clientset;
///
/// async fn edit(client: kube::Client, ticket: Ticket) {
///     let tickets = Clientset::new(client).example_v1().tickets("default");
///     let _ = tickets.update(&ticket).await;
/// }
/// ```
///
/// ```compile_fail,E0599
/// use kubegen_e2e_api::applyconfigurations::example_com::v1::TicketApply;
/// use kubegen_e2e_api::generated::clientset::Clientset;
///
/// async fn apply(client: kube::Client) {
///     let tickets = Clientset::new(client).example_v1().tickets("default");
///     let _ = tickets.apply(&TicketApply::new("t1", "default"), "me", false).await;
/// }
/// ```
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
