//! `OwnerCheck::confirm` against the testkit: after a dependent is written for an owner,
//! one live read of the owner; the dependent is deleted again when the owner is gone
//! (deleted before the write, or recreated under its name with another uid), left alone
//! when the owner exists, and the checks and deletions are counted in the controller's
//! metrics. The testkit's own collection of dangling dependents is off, so that only the
//! check removes anything.
#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::Resource;
use kube::api::{DeleteParams, ObjectMeta};
use kubegen_runtime::client::{Scope, TypedClient};
use kubegen_runtime::controller::{Confirmation, Controller, ControllerConfig, OwnerCheck};
use kubegen_runtime::metrics::controller::{ControllerMetrics, ControllerMetricsProvider};
use kubegen_testkit::ApiServer;

/// Counts the owner checks' two events.
#[derive(Debug, Default)]
struct Counts {
    checked: AtomicU64,
    deleted: AtomicU64,
}

impl ControllerMetrics for Counts {
    fn owner_checked(&self) {
        self.checked.fetch_add(1, Ordering::SeqCst);
    }

    fn orphan_deleted(&self) {
        self.deleted.fetch_add(1, Ordering::SeqCst);
    }
}

#[derive(Debug, Default, Clone)]
struct Provider(Arc<Counts>);

impl ControllerMetricsProvider for Provider {
    fn controller_metrics(&self, _: &str) -> Option<Arc<dyn ControllerMetrics>> {
        Some(self.0.clone())
    }
}

struct Fixture {
    server: ApiServer,
    owners: TypedClient<ConfigMap>,
    dependents: TypedClient<Secret>,
}

impl Fixture {
    async fn start() -> Self {
        let server = ApiServer::builder()
            .collect_dangling_dependents(false)
            .start()
            .await
            .unwrap();
        let client = server.client();
        Self {
            owners: TypedClient::new(client.clone(), Scope::Namespace("default"), &()),
            dependents: TypedClient::new(client, Scope::Namespace("default"), &()),
            server,
        }
    }

    async fn owner(&self, name: &str) -> ConfigMap {
        let owner = ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                ..Default::default()
            },
            ..Default::default()
        };
        self.owners.create(&owner).await.unwrap()
    }

    async fn delete_owner(&self, name: &str) {
        self.owners
            .delete(name, &DeleteParams::background())
            .await
            .unwrap();
    }

    /// Creates the Secret `name` controlled by `owner` (as the reconcile read it).
    async fn dependent(&self, name: &str, owner: &ConfigMap) -> Secret {
        let secret = Secret {
            metadata: ObjectMeta {
                name: Some(name.into()),
                owner_references: owner.controller_owner_ref(&()).map(|r| vec![r]),
                ..Default::default()
            },
            ..Default::default()
        };
        self.dependents.create(&secret).await.unwrap()
    }

    async fn exists(&self, name: &str) -> bool {
        match self.dependents.get(name).await {
            Ok(_) => true,
            Err(error) if error.is_not_found() => false,
            Err(error) => panic!("{error}"),
        }
    }

    async fn confirm(
        &self,
        check: &OwnerCheck,
        owner: &ConfigMap,
        dependent: &Secret,
    ) -> Confirmation {
        check
            .confirm(&self.owners, owner, &self.dependents, dependent)
            .await
            .unwrap()
    }
}

#[tokio::test]
async fn an_owner_deleted_before_the_write_gets_its_dependent_deleted() {
    let fx = Fixture::start().await;
    let provider = Provider::default();
    let controller = Controller::new(ControllerConfig::default().metrics(provider.clone()));
    let check = controller.owner_check();

    // The reconcile read the owner, then another client deleted it, then the write.
    let owner = fx.owner("web").await;
    fx.delete_owner("web").await;
    let written = fx.dependent("web-secret", &owner).await;
    assert!(fx.exists("web-secret").await, "the server kept the write");

    assert_eq!(
        fx.confirm(&check, &owner, &written).await,
        Confirmation::DependentDeleted
    );
    assert!(!fx.exists("web-secret").await);
    assert_eq!(provider.0.checked.load(Ordering::SeqCst), 1);
    assert_eq!(provider.0.deleted.load(Ordering::SeqCst), 1);
    fx.server.shutdown().await;
}

#[tokio::test]
async fn a_live_owner_leaves_its_dependent_alone() {
    let fx = Fixture::start().await;
    let provider = Provider::default();
    let controller = Controller::new(ControllerConfig::default().metrics(provider.clone()));
    let check = controller.owner_check();

    let owner = fx.owner("web").await;
    let written = fx.dependent("web-secret", &owner).await;
    let confirmed = fx.confirm(&check, &owner, &written).await;
    assert_eq!(confirmed, Confirmation::OwnerPresent);
    assert!(confirmed.owner_present());
    assert!(fx.exists("web-secret").await);
    // One GET, counted; nothing deleted.
    assert_eq!(provider.0.checked.load(Ordering::SeqCst), 1);
    assert_eq!(provider.0.deleted.load(Ordering::SeqCst), 0);

    // Deleted after the write: the server's collection removes the dependent, as the
    // check relies on.
    fx.delete_owner("web").await;
    assert!(!fx.exists("web-secret").await);
    fx.server.shutdown().await;
}

#[tokio::test]
async fn an_owner_recreated_with_another_uid_gets_the_dependent_deleted() {
    let fx = Fixture::start().await;
    let check = OwnerCheck::default();

    let owner = fx.owner("web").await;
    fx.delete_owner("web").await;
    let recreated = fx.owner("web").await;
    assert_ne!(recreated.metadata.uid, owner.metadata.uid);
    let written = fx.dependent("web-secret", &owner).await;

    assert_eq!(
        fx.confirm(&check, &owner, &written).await,
        Confirmation::DependentDeleted
    );
    assert!(!fx.exists("web-secret").await);
    // The recreated owner is not the check's business.
    fx.owners.get("web").await.unwrap();
    fx.server.shutdown().await;
}

#[tokio::test]
async fn a_dependent_gone_or_replaced_meanwhile_is_left_alone() {
    let fx = Fixture::start().await;
    let check = OwnerCheck::default();
    let owner = fx.owner("web").await;
    fx.delete_owner("web").await;

    // Deleted by someone else before the check.
    let written = fx.dependent("gone", &owner).await;
    fx.dependents
        .delete("gone", &DeleteParams::default())
        .await
        .unwrap();
    assert_eq!(
        fx.confirm(&check, &owner, &written).await,
        Confirmation::DependentAlreadyGone
    );

    // Replaced under its name by another object: the uid precondition spares it.
    let written = fx.dependent("replaced", &owner).await;
    fx.dependents
        .delete("replaced", &DeleteParams::default())
        .await
        .unwrap();
    let replacement = fx.dependent("replaced", &owner).await;
    assert_ne!(replacement.metadata.uid, written.metadata.uid);
    assert_eq!(
        fx.confirm(&check, &owner, &written).await,
        Confirmation::DependentAlreadyGone
    );
    let kept = fx.dependents.get("replaced").await.unwrap();
    assert_eq!(kept.metadata.uid, replacement.metadata.uid);
    fx.server.shutdown().await;
}

#[tokio::test]
async fn objects_not_read_from_the_server_are_refused() {
    let fx = Fixture::start().await;
    let check = OwnerCheck::default();
    let owner = fx.owner("web").await;
    let written = fx.dependent("web-secret", &owner).await;
    let mut unsaved = written.clone();
    unsaved.metadata.uid = None;
    let error = check
        .confirm(&fx.owners, &owner, &fx.dependents, &unsaved)
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot confirm the owner of Secret \"web-secret\": the dependent has no uid"
    );
    let mut ownerless = owner.clone();
    ownerless.metadata.uid = None;
    let error = check
        .confirm(&fx.owners, &ownerless, &fx.dependents, &written)
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot confirm the owner of Secret \"web-secret\": the owner has no uid"
    );
    assert!(fx.exists("web-secret").await);
    fx.server.shutdown().await;
}
