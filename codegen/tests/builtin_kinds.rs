//! The table of built-in kinds (`frontend::builtin`) against the API server's own account,
//! Kubernetes 1.35's OpenAPI v2 document (`$KUBEGEN_CORPUS/openapi/swagger.json` or
//! `../shared/corpus/openapi/swagger.json`; skipped with a message where absent): every kind
//! in the table is served with that plural, scope and subresources, and its type is
//! k8s-openapi's for the definition the server names; every GA kind the server lets clients
//! list and watch is in the table or in [`LEFT_OUT`], with the reason; every GA kind it
//! serves with `post` alone (the reviews) is in the table with `create` alone. And the clients
//! generated from the table keep the kinds that share a name in two groups or versions
//! apart.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use kubegen_codegen::__internal::frontend::builtin;
use kubegen_codegen::__internal::model::{Model, RootType, Scope};
use kubegen_codegen::__internal::naming::k8s_openapi_path;
use kubegen_codegen::Config;
use serde_json::Value;

/// GA kinds the API server lists and watches that the table leaves out, with the reason:
/// (group, version, kind, why). Kinds that cannot be listed and watched (`Binding`,
/// `Eviction`, `TokenRequest`, `Scale`, `ComponentStatus`, which is listed but never
/// watched; the reviews have a test of their own) are not candidates and need no entry.
const LEFT_OUT: &[(&str, &str, &str, &str)] = &[(
    "apiregistration.k8s.io",
    "v1",
    "APIService",
    // Served by the aggregator inside kube-apiserver; Go clients get it from
    // k8s.io/kube-aggregator's clientset, not client-go's `kubernetes` one.
    "kube-aggregator's clientset, not client-go's",
)];

/// What the API server serves of one group, version and kind.
#[derive(Debug, Default)]
struct Served {
    /// `x-kubernetes-action`s of its operations (`get`, `list`, `watch`, `watchlist`...).
    actions: BTreeSet<String>,
    /// The path of one object (`/apis/apps/v1/namespaces/{namespace}/deployments/{name}`).
    item: Option<String>,
    /// The definition its `get` returns (`io.k8s.api.apps.v1.Deployment`).
    definition: Option<String>,
    /// The path its `post` creates at (`/apis/apps/v1/namespaces/{namespace}/deployments`),
    /// unless it is only a subresource of another kind (`pods/{name}/eviction`).
    collection: Option<String>,
    /// The definition its `post` returns.
    created: Option<String>,
}

impl Served {
    fn listed_and_watched(&self) -> bool {
        self.actions.contains("list")
            && (self.actions.contains("watch") || self.actions.contains("watchlist"))
    }
}

fn is_ga(version: &str) -> bool {
    version
        .strip_prefix('v')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn swagger() -> Option<Value> {
    let root = std::env::var_os("KUBEGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    let text = std::fs::read_to_string(root.join("openapi/swagger.json")).ok()?;
    Some(serde_json::from_str(&text).unwrap())
}

/// A kind's group, version and name.
type Gvk = (String, String, String);

/// Every (group, version, kind) the document's paths serve, and the set of its paths.
fn served(swagger: &Value) -> (BTreeMap<Gvk, Served>, BTreeSet<String>) {
    let paths = swagger["paths"].as_object().unwrap();
    let mut kinds: BTreeMap<Gvk, Served> = BTreeMap::new();
    for (path, item) in paths {
        for op in item.as_object().unwrap().values() {
            let (Some(action), Some(gvk)) = (
                op["x-kubernetes-action"].as_str(),
                op.get("x-kubernetes-group-version-kind"),
            ) else {
                continue;
            };
            let key = (
                gvk["group"].as_str().unwrap().to_owned(),
                gvk["version"].as_str().unwrap().to_owned(),
                gvk["kind"].as_str().unwrap().to_owned(),
            );
            let served = kinds.entry(key).or_default();
            served.actions.insert(action.to_owned());
            if action == "post" && !path.contains("{name}") {
                served.collection = Some(path.clone());
                served.created = op["responses"]["201"]["schema"]["$ref"]
                    .as_str()
                    .and_then(|r| r.strip_prefix("#/definitions/"))
                    .map(str::to_owned);
            }
            if action == "get" && path.ends_with("/{name}") && !path.contains("/watch/") {
                served.item = Some(path.clone());
                served.definition = op["responses"]["200"]["schema"]["$ref"]
                    .as_str()
                    .and_then(|r| r.strip_prefix("#/definitions/"))
                    .map(str::to_owned);
            }
        }
    }
    (kinds, paths.keys().cloned().collect())
}

fn table() -> Model {
    let mut model = Model::default();
    builtin::load(&mut model, &builtin::Options::default()).unwrap();
    model
}

#[test]
fn every_built_in_kind_is_served_as_the_table_says() {
    let Some(swagger) = swagger() else {
        println!("SKIPPED: no swagger.json (set KUBEGEN_CORPUS or add ../shared/corpus/openapi)");
        return;
    };
    let (served, paths) = served(&swagger);
    let model = table();
    let mut wrong = Vec::new();
    for (group, version) in model.versions() {
        for kind in version.kinds.values() {
            let gvk = format!("{}/{}/{}", group.name, version.name, kind.name);
            let key = (group.name.clone(), version.name.clone(), kind.name.clone());
            let Some(s) = served.get(&key) else {
                wrong.push(format!("{gvk}: not served"));
                continue;
            };
            if !kind.client_verbs.informable() {
                create_only(&gvk, kind, s, &version.name, &mut wrong);
                continue;
            }
            if !is_ga(&version.name) || !s.listed_and_watched() {
                wrong.push(format!("{gvk}: not GA, or not listed and watched"));
            }
            let Some(item) = &s.item else {
                wrong.push(format!("{gvk}: no path to one object"));
                continue;
            };
            let namespaced = item.contains("/{namespace}/");
            if namespaced != (kind.scope == Scope::Namespaced) {
                wrong.push(format!("{gvk}: scope {:?}, served at {item}", kind.scope));
            }
            let plural = item.trim_end_matches("/{name}").rsplit('/').next().unwrap();
            if plural != kind.names.plural {
                wrong.push(format!(
                    "{gvk}: plural {}, served as {plural}",
                    kind.names.plural
                ));
            }
            let status = paths.contains(&format!("{item}/status"));
            if status != kind.subresources.status {
                wrong.push(format!(
                    "{gvk}: status {}, server {status}",
                    kind.subresources.status
                ));
            }
            let scale = paths.contains(&format!("{item}/scale"));
            if scale != kind.subresources.scale.is_some() {
                wrong.push(format!(
                    "{gvk}: scale {}, server {scale}",
                    kind.subresources.scale.is_some()
                ));
            }
            let expected = s.definition.as_deref().and_then(k8s_openapi_path);
            let actual = match &kind.root {
                RootType::External(t) => Some(t.path.clone()),
                _ => None,
            };
            if expected.is_none() || actual != expected {
                wrong.push(format!("{gvk}: type {actual:?}, definition {expected:?}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the table disagrees with swagger.json:\n{}",
        wrong.join("\n")
    );
}

/// Checks a row whose client has `create` alone (a review) against what the server
/// serves of it: GA, `post` its only action, its scope, plural and type those of the path
/// it is created at.
fn create_only(
    gvk: &str,
    kind: &kubegen_codegen::__internal::model::Kind,
    served: &Served,
    version: &str,
    wrong: &mut Vec<String>,
) {
    let verbs: Vec<&str> = kind.client_verbs.verbs.iter().map(|v| v.name()).collect();
    if verbs != ["create"] {
        wrong.push(format!(
            "{gvk}: a kind not listed and watched with verbs {verbs:?}"
        ));
    }
    let actions: Vec<&str> = served.actions.iter().map(String::as_str).collect();
    if !is_ga(version) || actions != ["post"] {
        wrong.push(format!("{gvk}: not GA, or served with actions {actions:?}"));
    }
    let Some(collection) = &served.collection else {
        wrong.push(format!("{gvk}: no path to create at"));
        return;
    };
    let namespaced = collection.contains("/{namespace}/");
    if namespaced != (kind.scope == Scope::Namespaced) {
        wrong.push(format!(
            "{gvk}: scope {:?}, served at {collection}",
            kind.scope
        ));
    }
    let plural = collection.rsplit('/').next().unwrap();
    if plural != kind.names.plural {
        wrong.push(format!(
            "{gvk}: plural {}, served as {plural}",
            kind.names.plural
        ));
    }
    if kind.subresources.status || kind.subresources.scale.is_some() {
        wrong.push(format!("{gvk}: subresources on a create-only kind"));
    }
    let expected = served.created.as_deref().and_then(k8s_openapi_path);
    let actual = match &kind.root {
        RootType::External(t) => Some(t.path.clone()),
        _ => None,
    };
    if expected.is_none() || actual != expected {
        wrong.push(format!("{gvk}: type {actual:?}, definition {expected:?}"));
    }
}

/// GA kinds the API server serves with `post` alone at a path of their own that the table
/// leaves out, with the reason. Those created only as another kind's subresource
/// (`Eviction`, `TokenRequest`) are not candidates.
const CREATE_ONLY_LEFT_OUT: &[(&str, &str, &str, &str)] = &[(
    "",
    "v1",
    "Binding",
    // `POST .../bindings` is the old form of `pods/{name}/binding`; client-go has no
    // Bindings client, only the Pod client's `Bind`.
    "client-go binds through the Pod client, it has no Bindings client",
)];

/// Every GA kind the server serves with `post` as its only action at a path of its own
/// (the reviews) is in the table, create-only, or in [`CREATE_ONLY_LEFT_OUT`].
#[test]
fn every_create_only_ga_kind_is_in_the_table() {
    let Some(swagger) = swagger() else {
        println!("SKIPPED: no swagger.json (set KUBEGEN_CORPUS or add ../shared/corpus/openapi)");
        return;
    };
    let (served, _) = served(&swagger);
    let model = table();
    let mut missing = Vec::new();
    for ((group, version, kind), s) in &served {
        if !is_ga(version) || s.actions.iter().ne(["post"].iter()) || s.collection.is_none() {
            continue;
        }
        let key = (group.as_str(), version.as_str(), kind.as_str());
        if CREATE_ONLY_LEFT_OUT
            .iter()
            .any(|&(g, v, k, _)| (g, v, k) == key)
        {
            continue;
        }
        let row = model
            .groups
            .get(group)
            .and_then(|g| g.versions.get(version))
            .and_then(|v| v.kinds.get(kind));
        if row.is_none_or(|k| k.client_verbs.informable()) {
            missing.push(format!("{group}/{version}/{kind}"));
        }
    }
    assert!(
        missing.is_empty(),
        "served with `post` alone, but not a create-only row of the table:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_listed_and_watched_ga_kind_is_in_the_table_or_left_out_with_a_reason() {
    let Some(swagger) = swagger() else {
        println!("SKIPPED: no swagger.json (set KUBEGEN_CORPUS or add ../shared/corpus/openapi)");
        return;
    };
    let (served, _) = served(&swagger);
    let model = table();
    let in_table = |(group, version, kind): (&str, &str, &str)| {
        model
            .groups
            .get(group)
            .and_then(|g| g.versions.get(version))
            .is_some_and(|v| v.kinds.contains_key(kind))
    };
    let mut missing = Vec::new();
    for ((group, version, kind), s) in &served {
        if !is_ga(version) || !s.listed_and_watched() {
            continue;
        }
        let key = (group.as_str(), version.as_str(), kind.as_str());
        let left_out = LEFT_OUT.iter().any(|&(g, v, k, _)| (g, v, k) == key);
        if !in_table(key) && !left_out {
            missing.push(format!("{group}/{version}/{kind}"));
        }
    }
    assert!(
        missing.is_empty(),
        "served, listed and watched, but neither in the table nor left out:\n{}",
        missing.join("\n")
    );
    for &(group, version, kind, why) in LEFT_OUT {
        assert!(!why.is_empty());
        let key = (group.to_owned(), version.to_owned(), kind.to_owned());
        assert!(
            served.get(&key).is_some_and(Served::listed_and_watched),
            "{group}/{version}/{kind} is left out but not served: drop it from LEFT_OUT"
        );
        assert!(
            !in_table((group, version, kind)),
            "{kind} is left out and in the table"
        );
    }
}

/// The generated file `name` of the built-in clients, parsed.
fn client_file(
    files: &[kubegen_codegen::__internal::emit::GeneratedFile],
    name: &str,
) -> syn::File {
    let file = files.iter().find(|f| f.path == name).unwrap();
    syn::parse_file(&file.contents).unwrap()
}

/// The items of the module at `path` (`["core", "v1"]`) in `items`.
fn module<'a>(items: &'a [syn::Item], path: &[&str]) -> &'a [syn::Item] {
    let Some((first, rest)) = path.split_first() else {
        return items;
    };
    let inner = items
        .iter()
        .find_map(|item| match item {
            syn::Item::Mod(m) if m.ident == first => m.content.as_ref().map(|(_, i)| i),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no module {first}"));
    module(inner, rest)
}

/// The kind the alias `name` in the module at `path` is for: the first type argument of
/// the aliased type (`ResourceClient<K, S>`, `Lister<K>`, `Informer<K>`), without spaces.
fn alias_kind(file: &syn::File, path: &[&str], name: &str) -> String {
    let ty = module(&file.items, path)
        .iter()
        .find_map(|item| match item {
            syn::Item::Type(t) if t.ident == name => Some(&t.ty),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no {name} in {}", path.join("::")));
    let syn::Type::Path(ty) = &**ty else {
        panic!("{name} is not an alias of a path")
    };
    let arguments = &ty.path.segments.last().unwrap().arguments;
    let syn::PathArguments::AngleBracketed(arguments) = arguments else {
        panic!("{name} has no type arguments")
    };
    let Some(syn::GenericArgument::Type(kind)) = arguments.args.first() else {
        panic!("{name}'s first argument is not a type")
    };
    quote::quote!(#kind).to_string().replace(' ', "")
}

/// The names of the functions of `impl Name` blocks in `items`, with their return types.
fn methods(items: &[syn::Item], name: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for item in items {
        let syn::Item::Impl(i) = item else { continue };
        let self_ty = &i.self_ty;
        if quote::quote!(#self_ty).to_string() != name {
            continue;
        }
        for member in &i.items {
            if let syn::ImplItem::Fn(f) = member
                && let syn::ReturnType::Type(_, ty) = &f.sig.output
            {
                let ty = quote::quote!(#ty).to_string().replace(' ', "");
                out.insert(f.sig.ident.to_string(), ty);
            }
        }
    }
    out
}

#[test]
fn kinds_of_one_name_in_two_groups_or_versions_get_their_own_modules_and_accessors() {
    let run = Config::new()
        .kubernetes()
        .clients_out("clients")
        .generate()
        .unwrap();
    let files = &run.outputs[0].files;
    let k8s = "::kubegen::__private::k8s_openapi::api";

    let clientset = client_file(files, "clientset.rs");
    let accessors = methods(&clientset.items, "Clientset");
    assert_eq!(accessors["core_v1"], "core::v1::Client");
    assert_eq!(accessors["events_v1"], "events_k8s_io::v1::Client");
    assert_eq!(accessors["autoscaling_v1"], "autoscaling::v1::Client");
    assert_eq!(accessors["autoscaling_v2"], "autoscaling::v2::Client");
    let core_event = format!("{k8s}::core::v1::Event");
    let events_event = format!("{k8s}::events::v1::Event");
    for (module, kind) in [
        (["core", "v1"], &core_event),
        (["events_k8s_io", "v1"], &events_event),
    ] {
        assert_eq!(&alias_kind(&clientset, &module, "EventClient"), kind);
        let accessors = methods(module_items(&clientset, &module), "Client");
        assert_eq!(accessors["events"], "EventClient");
    }
    for version in ["v1", "v2"] {
        assert_eq!(
            alias_kind(
                &clientset,
                &["autoscaling", version],
                "HorizontalPodAutoscalerClient"
            ),
            format!("{k8s}::autoscaling::{version}::HorizontalPodAutoscaler")
        );
    }

    let listers = client_file(files, "listers.rs");
    assert_eq!(
        alias_kind(&listers, &["core", "v1"], "EventLister"),
        core_event
    );
    assert_eq!(
        alias_kind(&listers, &["events_k8s_io", "v1"], "EventLister"),
        events_event
    );

    let informers = client_file(files, "informers.rs");
    let groups = methods(&informers.items, "InformerFactory");
    assert_eq!(groups["core"], "core::Group");
    assert_eq!(groups["events"], "events_k8s_io::Group");
    assert_eq!(
        alias_kind(&informers, &["core", "v1"], "EventInformer"),
        core_event
    );
    assert_eq!(
        alias_kind(&informers, &["events_k8s_io", "v1"], "EventInformer"),
        events_event
    );
    let autoscaling = methods(module_items(&informers, &["autoscaling"]), "Group");
    assert_eq!(autoscaling["v1"], "v1::Version");
    assert_eq!(autoscaling["v2"], "v2::Version");
}

fn module_items<'a>(file: &'a syn::File, path: &[&str]) -> &'a [syn::Item] {
    module(&file.items, path)
}
