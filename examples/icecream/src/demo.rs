//! The embedded demo: Icecreams and the pods serving them, and the convergence check
//! that ends the run.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use k8s_openapi::api::core::v1::{ConfigMap, Container, Pod, PodSpec};
use k8s_openapi::api::events::v1::Event as KubeEvent;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};
use kube::Resource;
use kube::api::{DeleteParams, ListParams, ObjectMeta};
use kubegen::runtime::client::{Scope, TypedClient};
use kubegen::runtime::error::Error;
use kubegen::runtime::key::ObjectKey;
use kubegen::runtime::lister::{Lister, Selector};

use crate::App;
use crate::apis::icecream::v1::{Icecream, IcecreamSpec, IcecreamStatus};
use crate::apis::icecream::v1alpha1;
use crate::controller::{Controller, REASON_INVALID_SELECTOR, describe, status_for};
use crate::generated::clientset::Clientset;
use crate::menu::{self, FINALIZER, MENU};

/// The namespace the demo objects live in.
pub const DEMO_NAMESPACE: &str = "default";

/// A pod labelled `app`, scheduled on `node` if given.
pub fn pod(name: &str, app: &str, node: Option<&str>) -> Pod {
    Pod {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            namespace: Some(DEMO_NAMESPACE.to_owned()),
            labels: Some([("app".to_owned(), app.to_owned())].into()),
            ..Default::default()
        },
        spec: Some(PodSpec {
            node_name: node.map(str::to_owned),
            containers: vec![Container {
                name: "scoop".to_owned(),
                image: Some("nginx:latest".to_owned()),
                ..Default::default()
            }],
            ..Default::default()
        }),
        status: None,
    }
}

/// Two Icecreams (vanilla: `app=vanilla`; chocolate: `app in (chocolate, cocoa)`) and
/// five pods, one of them unscheduled and one matching neither.
pub async fn seed(client: &kube::Client) -> Result<(), Error> {
    let icecreams = Clientset::new(client.clone())
        .icecream_v1()
        .icecreams(DEMO_NAMESPACE);
    let vanilla = IcecreamSpec {
        flavor: "vanilla".into(),
        topping: None,
        selector: LabelSelector {
            match_labels: Some([("app".to_owned(), "vanilla".to_owned())].into()),
            ..Default::default()
        },
    };
    let chocolate = IcecreamSpec {
        flavor: "chocolate".into(),
        topping: None,
        selector: LabelSelector {
            match_expressions: Some(vec![LabelSelectorRequirement {
                key: "app".into(),
                operator: "In".into(),
                values: Some(vec!["chocolate".into(), "cocoa".into()]),
            }]),
            ..Default::default()
        },
    };
    icecreams
        .create(&Icecream::new(DEMO_NAMESPACE, "vanilla", vanilla))
        .await?;
    icecreams
        .create(&Icecream::new(DEMO_NAMESPACE, "chocolate", chocolate))
        .await?;
    let pods = TypedClient::<Pod>::new(client.clone(), Scope::Namespace(DEMO_NAMESPACE), &());
    for (name, app, node) in [
        ("vanilla-1", "vanilla", Some("node-a")),
        ("vanilla-2", "vanilla", None),
        ("chocolate-1", "chocolate", Some("node-b")),
        ("cocoa-1", "cocoa", Some("node-c")),
        ("sorbet-1", "sorbet", Some("node-a")),
    ] {
        pods.create(&pod(name, app, node)).await?;
    }
    Ok(())
}

/// One Icecream in a [`Report`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IcecreamReport {
    /// The Icecream.
    pub icecream: ObjectKey,
    /// Its status on the server.
    pub status: Option<IcecreamStatus>,
    /// Why its selector cannot be used (the controller reports it with a Warning event
    /// and leaves the status alone; until that event exists the Icecream is pending).
    pub invalid_selector: Option<String>,
    /// Its entry in its namespace's menu on the server.
    pub menu_entry: Option<String>,
    /// Why it is not in step yet, if it is not.
    pub pending: Option<String>,
}

/// Every Icecream and where it stands, plus whether the caches agree with the server.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// One entry per Icecream, by key.
    pub icecreams: Vec<IcecreamReport>,
    /// Menu entries (`namespace/name`) of Icecreams that are gone: cleanups that did not
    /// run.
    pub stale_menu_entries: Vec<String>,
    /// Why the caches disagree with the server, if they do.
    pub cache_lag: Option<String>,
}

impl Report {
    /// Whether every status and menu entry is in step, every Icecream carries the
    /// finalizer and none waits for its cleanup, no menu entry outlived its Icecream,
    /// and the caches agree with the server.
    pub fn converged(&self) -> bool {
        self.cache_lag.is_none()
            && self.stale_menu_entries.is_empty()
            && self.icecreams.iter().all(|i| i.pending.is_none())
    }

    /// The status of one Icecream, by name.
    pub fn status(&self, name: &str) -> Option<&IcecreamStatus> {
        self.icecreams
            .iter()
            .find(|i| i.icecream.name() == name)?
            .status
            .as_ref()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for ice in &self.icecreams {
            let key = ice.icecream.to_string();
            let placed = ice
                .status
                .as_ref()
                .map(describe)
                .unwrap_or_else(|| "no status".to_owned());
            let nodes = ice
                .status
                .as_ref()
                .map(|s| s.nodes.join(", "))
                .unwrap_or_default();
            write!(f, "icecream {key:<20} nodes [{nodes}]: {placed}")?;
            if let Some(entry) = &ice.menu_entry {
                write!(f, "; menu: {}={entry}", ice.icecream.name())?;
            }
            if let Some(why) = &ice.invalid_selector {
                write!(f, " (invalid selector: {why})")?;
            }
            if let Some(why) = &ice.pending {
                write!(f, " (pending: {why})")?;
            }
            writeln!(f)?;
        }
        for entry in &self.stale_menu_entries {
            writeln!(f, "menu entry {entry} outlived its Icecream")?;
        }
        if let Some(lag) = &self.cache_lag {
            writeln!(f, "caches behind the server: {lag}")?;
        }
        Ok(())
    }
}

/// Reads the server and compares every Icecream's status with its pods.
pub async fn check(client: &kube::Client, controller: &Controller) -> Result<Report, Error> {
    let icecreams = Clientset::new(client.clone())
        .icecream_v1()
        .icecreams("")
        .list(&ListParams::default())
        .await?
        .items;
    let pods = TypedClient::<Pod>::new(client.clone(), Scope::All, &())
        .list(&ListParams::default())
        .await?
        .items;
    let warned: Vec<String> = TypedClient::<KubeEvent>::new(client.clone(), Scope::All, &())
        .list(&ListParams::default())
        .await?
        .items
        .into_iter()
        .filter(|e| e.reason.as_deref() == Some(REASON_INVALID_SELECTOR))
        .filter_map(|e| e.regarding.and_then(|r| r.uid))
        .collect();
    // Every menu entry on the server, by `namespace/name`.
    let mut menus: BTreeMap<String, String> =
        TypedClient::<ConfigMap>::new(client.clone(), Scope::All, &())
            .list(&ListParams::default())
            .await?
            .items
            .into_iter()
            .filter(|cm| cm.metadata.name.as_deref() == Some(MENU))
            .flat_map(|cm| {
                let namespace = cm.metadata.namespace.unwrap_or_default();
                cm.data
                    .unwrap_or_default()
                    .into_iter()
                    .map(move |(name, entry)| (format!("{namespace}/{name}"), entry))
            })
            .collect();
    let mut report = Report::default();
    for ice in &icecreams {
        let key = ObjectKey::of(ice);
        let menu_entry = menus.remove(&key.to_string());
        let (invalid_selector, pending) = match Selector::try_from(&ice.spec.selector) {
            Err(error) => {
                let reported = ice
                    .metadata
                    .uid
                    .as_ref()
                    .is_some_and(|uid| warned.contains(uid));
                let pending =
                    (!reported).then(|| "no Warning event for the invalid selector yet".to_owned());
                (Some(error.to_string()), pending)
            }
            Ok(selector) => {
                let matching: Vec<Arc<Pod>> = pods
                    .iter()
                    .filter(|p| p.metadata.namespace == ice.metadata.namespace)
                    .filter(|p| selector.matches_labels(p.metadata.labels.as_ref()))
                    .cloned()
                    .map(Arc::new)
                    .collect();
                let wanted = status_for(&matching, ice.metadata.generation);
                let pending = if ice.status.as_ref() != Some(&wanted) {
                    Some(format!("status should say: {}", describe(&wanted)))
                } else if menu_entry.as_deref() != Some(menu::entry(&wanted).as_str()) {
                    Some(format!("menu entry should be {:?}", menu::entry(&wanted)))
                } else {
                    None
                };
                (None, pending)
            }
        };
        let finalized = ice
            .metadata
            .finalizers
            .iter()
            .flatten()
            .any(|f| f == FINALIZER);
        let pending = if ice.metadata.deletion_timestamp.is_some() {
            Some("being deleted: waiting for its cleanup".to_owned())
        } else if !finalized {
            Some(format!("no finalizer {FINALIZER} yet"))
        } else {
            pending
        };
        report.icecreams.push(IcecreamReport {
            icecream: key,
            status: ice.status.clone(),
            invalid_selector,
            menu_entry,
            pending,
        });
    }
    report.stale_menu_entries = menus.into_keys().collect();
    report.icecreams.sort_by(|a, b| a.icecream.cmp(&b.icecream));
    report.cache_lag = cache_lag(controller.icecreams(), &icecreams)
        .or_else(|| cache_lag(controller.pods(), &pods));
    Ok(report)
}

/// Why a lister differs from the server's objects (by key and resourceVersion), if it does.
fn cache_lag<K: Resource>(lister: &Lister<K>, server: &[K]) -> Option<String> {
    let cached = lister.list(&Selector::everything());
    if cached.len() != server.len() {
        return Some(format!(
            "{} cached, {} on the server",
            cached.len(),
            server.len()
        ));
    }
    server.iter().find_map(|object| {
        let key = ObjectKey::of(object);
        let cached_version = lister
            .get_key(&key)
            .and_then(|c| c.meta().resource_version.clone());
        (cached_version != object.meta().resource_version)
            .then(|| format!("{key} is stale in the cache"))
    })
}

impl kubegen::operator::Converged for Report {
    fn converged(&self) -> bool {
        Report::converged(self)
    }
}

/// The demo's tour once the controller converged on the seeded objects: deletes the
/// Icecream `chocolate` and waits until the controller's cleanup has removed its menu
/// entry and the finalizer has let it go. Tells each step to `say`; returns the final
/// report.
pub async fn delete_and_clean_up(
    app: &App,
    client: &kube::Client,
    mut say: impl FnMut(String),
) -> Result<Report, Error> {
    let icecreams = Clientset::new(client.clone())
        .icecream_v1()
        .icecreams(DEMO_NAMESPACE);
    icecreams
        .delete("chocolate", &DeleteParams::default())
        .await?;
    say(format!(
        "Deleted Icecream chocolate: finalizer {FINALIZER} holds it until the cleanup has removed its entry from ConfigMap {DEMO_NAMESPACE}/{MENU}"
    ));
    let report = app.wait_converged().await;
    let gone = match icecreams.get("chocolate").await {
        Ok(_) => false,
        Err(error) if error.is_not_found() => true,
        Err(error) => return Err(error),
    };
    say(format!(
        "Icecream chocolate {} and its menu entry {}",
        if gone { "is gone" } else { "is still there" },
        if report.stale_menu_entries.is_empty() {
            "was cleaned up first"
        } else {
            "outlived it"
        }
    ));
    Ok(report)
}

/// The two versions and the validating webhook, through the API server (which calls the
/// webhooks): an Icecream written at `v1alpha1` read at `v1`, one written at `v1` read at
/// `v1alpha1`, and a `v1` Icecream whose topping is refused, with the server's reason.
/// Returns the refusal's message, or `None` if the Icecream was let through (no
/// validating webhook is configured).
pub async fn versions(
    client: &kube::Client,
    mut say: impl FnMut(String),
) -> Result<Option<String>, Error> {
    let clientset = Clientset::new(client.clone());
    let old = clientset.icecream_v1alpha1().icecreams(DEMO_NAMESPACE);
    let new = clientset.icecream_v1().icecreams(DEMO_NAMESPACE);
    let selector = |app: &str| LabelSelector {
        match_labels: Some([("app".to_owned(), app.to_owned())].into()),
        ..Default::default()
    };

    let written = v1alpha1::IcecreamSpec {
        order: "strawberry with nuts".into(),
        pod_selector: selector("strawberry"),
    };
    old.create(&v1alpha1::Icecream::new(
        DEMO_NAMESPACE,
        "strawberry",
        written,
    ))
    .await?;
    let read = new.get("strawberry").await?;
    say(format!(
        "Wrote Icecream strawberry at v1alpha1 (order: \"strawberry with nuts\", podSelector app=strawberry); read at v1: flavor {:?}, topping {:?}, selector app={}",
        read.spec.flavor,
        read.spec.topping.as_deref().unwrap_or_default(),
        read.spec
            .selector
            .match_labels
            .as_ref()
            .and_then(|l| l.get("app"))
            .map_or("", String::as_str),
    ));

    let written = IcecreamSpec {
        flavor: "mint".into(),
        topping: Some("sprinkles".into()),
        selector: selector("mint"),
    };
    new.create(&Icecream::new(DEMO_NAMESPACE, "mint", written))
        .await?;
    let read = old.get("mint").await?;
    say(format!(
        "Wrote Icecream mint at v1 (flavor: mint, topping: sprinkles); read at v1alpha1: order {:?}",
        read.spec.order
    ));

    let refused = IcecreamSpec {
        flavor: "vanilla".into(),
        topping: Some("ketchup".into()),
        selector: selector("vanilla"),
    };
    let message = match new
        .create(&Icecream::new(DEMO_NAMESPACE, "odd", refused))
        .await
    {
        Ok(_) => {
            say("Icecream odd with topping ketchup was let through".to_owned());
            return Ok(None);
        }
        Err(error) => match error.status() {
            Some(status) => status.message.clone(),
            None => return Err(error),
        },
    };
    say(format!(
        "Creating Icecream odd at v1 with topping ketchup was refused: {message}"
    ));
    Ok(Some(message))
}
