//! Installing CustomResourceDefinitions and waiting until they are served.

use std::time::Duration;

use futures::TryStreamExt;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ListParams, Patch, PatchParams, WatchEvent, WatchParams};

/// Why a CRD could not be installed.
#[derive(Debug, thiserror::Error)]
pub enum CrdError {
    /// The server refused the CRD.
    #[error("failed to apply CustomResourceDefinition {name}")]
    Apply {
        /// The CRD's name.
        name: String,
        /// Why.
        #[source]
        source: kube::Error,
    },
    /// Watching for the Established condition failed.
    #[error("failed to wait for CustomResourceDefinition {name} to be established")]
    Wait {
        /// The CRD's name.
        name: String,
        /// Why.
        #[source]
        source: kube::Error,
    },
    /// The CRD was not established in time.
    #[error("CustomResourceDefinition {name} was not established within {timeout:?}")]
    Timeout {
        /// The CRD's name.
        name: String,
        /// How long we waited.
        timeout: Duration,
    },
}

/// Server-side applies each CRD as `field_manager` and waits (up to `timeout` each) for
/// its `Established` condition, so the caller can start informers on it right away.
pub async fn install_crds(
    client: &kube::Client,
    crds: &[CustomResourceDefinition],
    field_manager: &str,
    timeout: Duration,
) -> Result<(), CrdError> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    for crd in crds {
        let name = crd.metadata.name.clone().unwrap_or_default();
        let applied = api
            .patch(
                &name,
                &PatchParams::apply(field_manager).force(),
                &Patch::Apply(crd),
            )
            .await
            .map_err(|source| CrdError::Apply {
                name: name.clone(),
                source,
            })?;
        if !established(&applied) {
            tokio::time::timeout(timeout, wait_established(&api, &name))
                .await
                .map_err(|_| CrdError::Timeout {
                    name: name.clone(),
                    timeout,
                })??;
        }
        tracing::info!(crd = %name, "CustomResourceDefinition established");
    }
    Ok(())
}

fn established(crd: &CustomResourceDefinition) -> bool {
    crd.status
        .iter()
        .flat_map(|s| s.conditions.iter().flatten())
        .any(|c| c.type_ == "Established" && c.status == "True")
}

async fn wait_established(api: &Api<CustomResourceDefinition>, name: &str) -> Result<(), CrdError> {
    let fail = |source| CrdError::Wait {
        name: name.to_owned(),
        source,
    };
    loop {
        let fields = format!("metadata.name={name}");
        let list = api
            .list(&ListParams::default().fields(&fields))
            .await
            .map_err(fail)?;
        if list.items.iter().any(established) {
            return Ok(());
        }
        let version = list.metadata.resource_version.unwrap_or_default();
        let mut events = Box::pin(
            api.watch(&WatchParams::default().fields(&fields), &version)
                .await
                .map_err(fail)?,
        );
        while let Some(event) = events.try_next().await.map_err(fail)? {
            if let WatchEvent::Added(crd) | WatchEvent::Modified(crd) = event
                && established(&crd)
            {
                return Ok(());
            }
        }
        // The watch ended without the condition: list again.
    }
}
