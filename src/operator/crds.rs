//! Installing CustomResourceDefinitions and waiting until they are served.

use std::time::Duration;

use futures::TryStreamExt;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionCondition,
};
use kube::api::{Api, ListParams, Patch, PatchParams, WatchEvent, WatchParams};

/// Why a CRD could not be installed.
#[derive(Debug, thiserror::Error)]
pub enum CrdError {
    /// A CRD without `metadata.name` (it must be `<plural>.<group>`).
    #[error("failed to apply CustomResourceDefinition #{index}: it has no metadata.name")]
    Unnamed {
        /// Its position in the slice given.
        index: usize,
    },
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
    #[error("CustomResourceDefinition {name} was not established within {timeout:?}: {waiting_on}")]
    Timeout {
        /// The CRD's name.
        name: String,
        /// How long we waited.
        timeout: Duration,
        /// What its status showed last: the Established condition's state (missing,
        /// `False` or `Unknown`, with its reason and message), and NamesAccepted's when
        /// it is not `True` (a name another CRD already serves).
        waiting_on: String,
    },
}

/// Server-side applies each CRD as `field_manager` (forcing ownership of conflicting
/// fields) and waits, up to `timeout` for each, for its `Established` condition, so the
/// caller can start informers on its kind right away. A CRD that is not established in
/// time is [`CrdError::Timeout`], which names it and what its conditions showed last.
///
/// ```no_run
/// # async fn demo(client: kube::Client, foo_crd: k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition) -> Result<(), kubegen::operator::CrdError> {
/// use std::time::Duration;
///
/// // `Foo::crd()` for a kind deriving `kubegen::Resource`.
/// kubegen::operator::install_crds(&client, &[foo_crd], "foo-controller", Duration::from_secs(30)).await?;
/// # Ok(()) }
/// ```
pub async fn install_crds(
    client: &kube::Client,
    crds: &[CustomResourceDefinition],
    field_manager: &str,
    timeout: Duration,
) -> Result<(), CrdError> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    for (index, crd) in crds.iter().enumerate() {
        let Some(name) = crd.metadata.name.clone().filter(|n| !n.is_empty()) else {
            return Err(CrdError::Unnamed { index });
        };
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
            let mut last = applied;
            let waited = tokio::time::timeout(timeout, wait_established(&api, &name, &mut last));
            match waited.await {
                Ok(result) => result?,
                Err(_elapsed) => {
                    return Err(CrdError::Timeout {
                        waiting_on: waiting_on(&last),
                        name,
                        timeout,
                    });
                }
            }
        }
        tracing::info!(crd = %name, "CustomResourceDefinition established");
    }
    Ok(())
}

/// The condition of type `type_` in `crd`'s status.
fn condition<'a>(
    crd: &'a CustomResourceDefinition,
    type_: &str,
) -> Option<&'a CustomResourceDefinitionCondition> {
    crd.status
        .iter()
        .flat_map(|s| s.conditions.iter().flatten())
        .find(|c| c.type_ == type_)
}

fn established(crd: &CustomResourceDefinition) -> bool {
    condition(crd, "Established").is_some_and(|c| c.status == "True")
}

/// What keeps `crd` from being established, as its conditions show it.
fn waiting_on(crd: &CustomResourceDefinition) -> String {
    let state = |type_: &str| {
        condition(crd, type_).map(|c| {
            let mut state = format!("condition {type_} is {}", c.status);
            let why: Vec<&str> = [c.reason.as_deref(), c.message.as_deref()]
                .into_iter()
                .flatten()
                .filter(|s| !s.is_empty())
                .collect();
            if !why.is_empty() {
                state.push_str(&format!(" ({})", why.join(": ")));
            }
            state
        })
    };
    let mut parts = vec![
        state("Established").unwrap_or_else(|| "no Established condition in its status".into()),
    ];
    if condition(crd, "NamesAccepted").is_some_and(|c| c.status != "True") {
        parts.extend(state("NamesAccepted"));
    }
    parts.join("; ")
}

/// Waits until the CRD `name` is established, keeping the last version seen in `last`.
async fn wait_established(
    api: &Api<CustomResourceDefinition>,
    name: &str,
    last: &mut CustomResourceDefinition,
) -> Result<(), CrdError> {
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
        if let Some(crd) = list.items.into_iter().next() {
            *last = crd;
        }
        if established(last) {
            return Ok(());
        }
        let version = list.metadata.resource_version.unwrap_or_default();
        let mut events = Box::pin(
            api.watch(&WatchParams::default().fields(&fields), &version)
                .await
                .map_err(fail)?,
        );
        while let Some(event) = events.try_next().await.map_err(fail)? {
            if let WatchEvent::Added(crd) | WatchEvent::Modified(crd) = event {
                *last = crd;
                if established(last) {
                    return Ok(());
                }
            }
        }
        // The watch ended without the condition: list again.
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinitionStatus;

    use super::*;

    fn with_conditions(conditions: &[(&str, &str, &str, &str)]) -> CustomResourceDefinition {
        let conditions = conditions
            .iter()
            .map(
                |(type_, status, reason, message)| CustomResourceDefinitionCondition {
                    type_: (*type_).into(),
                    status: (*status).into(),
                    reason: Some((*reason).into()).filter(|r: &String| !r.is_empty()),
                    message: Some((*message).into()).filter(|m: &String| !m.is_empty()),
                    ..Default::default()
                },
            )
            .collect();
        CustomResourceDefinition {
            status: Some(CustomResourceDefinitionStatus {
                conditions: Some(conditions),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn the_timeout_says_what_the_status_showed() {
        assert_eq!(
            waiting_on(&CustomResourceDefinition::default()),
            "no Established condition in its status"
        );
        assert_eq!(
            waiting_on(&with_conditions(&[(
                "NamesAccepted",
                "True",
                "NoConflicts",
                ""
            )])),
            "no Established condition in its status"
        );
        assert_eq!(
            waiting_on(&with_conditions(&[
                (
                    "NamesAccepted",
                    "False",
                    "ListKindConflict",
                    "\"FooList\" is already in use"
                ),
                (
                    "Established",
                    "False",
                    "NotAccepted",
                    "not all names are accepted"
                ),
            ])),
            "condition Established is False (NotAccepted: not all names are accepted); \
             condition NamesAccepted is False (ListKindConflict: \"FooList\" is already in use)"
        );
        assert_eq!(
            waiting_on(&with_conditions(&[("Established", "Unknown", "", "")])),
            "condition Established is Unknown"
        );
        assert!(established(&with_conditions(&[(
            "Established",
            "True",
            "",
            ""
        )])));
    }

    #[test]
    fn the_timeout_error_names_the_crd() {
        let error = CrdError::Timeout {
            name: "foos.example.com".into(),
            timeout: Duration::from_secs(30),
            waiting_on: "condition Established is False (Installing)".into(),
        };
        assert_eq!(
            error.to_string(),
            "CustomResourceDefinition foos.example.com was not established within 30s: \
             condition Established is False (Installing)"
        );
    }
}
