//! The Backup operator of kubegen's scaffold benchmark, written with kube-rs
//! (kube-derive's CustomResource, kube-runtime's Controller and finalizer).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta, Time};
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::finalizer::{Event, finalizer};
use kube::runtime::watcher;
use kube::{Client, CustomResource, Resource, ResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

const NAME: &str = "backup-operator";
const FINALIZER: &str = "ops.example.com/finalizer";

/// A Backup: what to back up, when, and how long to keep it.
#[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(group = "ops.example.com", version = "v1", kind = "Backup", namespaced)]
#[kube(status = "BackupStatus")]
#[kube(printcolumn = r#"{"name":"Schedule", "type":"string", "jsonPath":".spec.schedule"}"#)]
#[kube(printcolumn = r#"{"name":"Retention", "type":"integer", "jsonPath":".spec.retentionDays"}"#)]
#[serde(rename_all = "camelCase")]
pub struct BackupSpec {
    /// When to back up, in cron syntax.
    pub schedule: String,
    /// How many days each backup is kept.
    #[serde(default = "default_retention_days")]
    pub retention_days: u32,
    /// What to back up.
    pub target: BackupTarget,
}

fn default_retention_days() -> u32 {
    7
}

/// What a Backup backs up.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BackupTarget {
    /// The database.
    pub database: String,
    /// The Secret holding the database's credentials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_name: Option<String>,
}

/// The observed state of a Backup.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BackupStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_scheduled: Option<Time>,
}

#[derive(Debug, thiserror::Error)]
enum Error {
    #[error(transparent)]
    Finalizer(#[from] Box<kube::runtime::finalizer::Error<kube::Error>>),
}

async fn reconcile(backup: Arc<Backup>, client: Arc<Client>) -> Result<Action, Error> {
    let namespace = backup.namespace().unwrap_or_default();
    let backups: Api<Backup> = Api::namespaced((*client).clone(), &namespace);
    finalizer(&backups, FINALIZER, backup, |event| async {
        match event {
            Event::Apply(backup) => apply(&client, &backups, &backup).await,
            Event::Cleanup(_) => Ok(Action::await_change()),
        }
    })
    .await
    .map_err(|e| Error::Finalizer(Box::new(e)))
}

async fn apply(client: &Client, backups: &Api<Backup>, backup: &Backup) -> Result<Action, kube::Error> {
    let name = backup.name_any();
    let namespace = backup.namespace().unwrap_or_default();
    let config_map = ConfigMap {
        metadata: ObjectMeta {
            name: Some(format!("{name}-backup")),
            owner_references: backup.controller_owner_ref(&()).map(|owner| vec![owner]),
            ..Default::default()
        },
        data: Some(BTreeMap::from([
            ("schedule".to_owned(), backup.spec.schedule.clone()),
            ("retentionDays".to_owned(), backup.spec.retention_days.to_string()),
            ("database".to_owned(), backup.spec.target.database.clone()),
        ])),
        ..Default::default()
    };
    let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), &namespace);
    config_maps.patch(&format!("{name}-backup"), &PatchParams::apply(NAME).force(), &Patch::Apply(&config_map)).await?;
    let generation = backup.metadata.generation;
    let ready = Condition {
        type_: "Ready".into(),
        status: "True".into(),
        reason: "Scheduled".into(),
        message: format!("{name}-backup holds the schedule"),
        observed_generation: generation,
        last_transition_time: Time(k8s_openapi::jiff::Timestamp::now()),
    };
    let status = json!({ "status": {
        "observedGeneration": generation, "conditions": [ready], "lastScheduled": ready.last_transition_time,
    } });
    backups.patch_status(&name, &PatchParams::default(), &Patch::Merge(status)).await?;
    Ok(Action::await_change())
}

fn error_policy(_: Arc<Backup>, error: &Error, _: Arc<Client>) -> Action {
    tracing::warn!(%error, "reconcile failed");
    Action::requeue(Duration::from_secs(5))
}

#[tokio::main]
async fn main() -> Result<(), kube::Error> {
    let client = Client::try_default().await?;
    let backups: Api<Backup> = Api::all(client.clone());
    let config_maps: Api<ConfigMap> = Api::all(client.clone());
    Controller::new(backups, watcher::Config::default())
        .owns(config_maps, watcher::Config::default())
        .shutdown_on_signal()
        .run(reconcile, error_policy, Arc::new(client))
        .for_each(|result| async move {
            if let Err(error) = result {
                tracing::warn!(%error, "reconcile failed");
            }
        })
        .await;
    Ok(())
}
