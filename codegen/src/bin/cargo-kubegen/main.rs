//! `cargo kubegen` (the `cargo-kubegen` binary): generate Rust types and typed clients for
//! Kubernetes APIs.
//!
//! One pipeline: the inputs (`--crd`, `--openapi`, `--rust`, `--kubernetes`) build one
//! model, which is emitted to the outputs (`--out` for types, `--clients-out` for the
//! clientset, listers and informers). Combinations that cannot work are refused before
//! anything is read, with the reason.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{Args, CommandFactory, Parser, Subcommand};
use kubegen_codegen::__internal::emit;
use kubegen_codegen::__internal::emit::crd::ConversionWebhook;
use kubegen_codegen::__internal::frontend::{Source, Versions};
use kubegen_codegen::__internal::model::ClientVerb;
use kubegen_codegen::__internal::naming;
use kubegen_codegen::{Config, SAMPLE_CRD};
use kubegen_codegen::{Output, TypesStyle};

mod scaffold;

/// mimalloc rather than glibc's malloc. A run allocates on every thread and frees much of
/// it on another (a schema is parsed on one thread, and its types built and dropped on
/// whichever takes its version); glibc then locks the allocating thread's arena on every
/// such free, and the threads waited on each other. Measured on the 21 corpus CRDs: wall
/// time -16%, CPU time -8%, peak RSS 55 MB -> 65 MB.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Exit code for invalid input (as clap uses for usage errors).
const EXIT_INPUT: u8 = 2;
/// Exit code for stale output under `--verify`, and for I/O failures.
const EXIT_FAILED: u8 = 1;

#[derive(Parser)]
#[command(
    name = "cargo-kubegen",
    bin_name = "cargo kubegen",
    version,
    about = "Generate Rust types and typed clients for Kubernetes APIs",
    long_about = "kubegen turns CustomResourceDefinitions (--crd) and the API server's OpenAPI \
documents (--openapi) into Rust types that round-trip every field (explicit nulls included) and \
implement k8s-openapi's Resource traits, so kube's Api<K> works with them; and it generates typed \
clientsets, listers and informers (--clients-out) for those kinds, for hand-written \
#[derive(Resource)] structs (--rust) and for the built-in API groups (--kubernetes).",
    after_help = "Examples:\n  \
cargo kubegen demo                                # see what it generates, no files needed\n  \
cargo kubegen generate --crd crds/ --out src/generated\n  \
cargo kubegen generate --crd crds/ --out src/generated --verify   # in CI: fail if stale\n  \
cargo kubegen generate --openapi apis__apps__v1_openapi.json --out src/generated"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate types (--out) and clients (--clients-out) from CRDs, OpenAPI documents,
    /// #[derive(Resource)] structs and the built-in API groups.
    #[command(after_help = GENERATE_HELP)]
    Generate(Box<GenerateArgs>),
    /// Write one CustomResourceDefinition YAML per kind of the #[derive(Resource)] structs
    /// under --rust (read with syn, not compiled), with the schema `Foo::crd()` builds.
    #[command(after_help = CRD_HELP)]
    Crd(CrdArgs),
    /// Create a new operator crate for one kind: API types, controller, main.rs, a testkit
    /// test, config/ (CRD, RBAC, Deployment), a Dockerfile, and its codegen scripts.
    #[command(after_help = scaffold::NEW_HELP)]
    New(Box<scaffold::NewArgs>),
    /// Add a kind to a crate made by `new`: its types, sample, and regenerated clients
    /// and CRD.
    #[command(after_help = scaffold::ADD_HELP)]
    Add(Box<scaffold::AddArgs>),
    /// Write Kubernetes' OpenAPI documents pruned to what kubegen reads of them (the
    /// built-in kinds' apply configurations, the testkit's tables), for a repository to
    /// commit and generate from.
    #[command(after_help = KUBERNETES_INPUTS_HELP)]
    KubernetesInputs(KubernetesInputsArgs),
    /// Generate code for an embedded sample CRD (samplecontroller.k8s.io Foo) and print
    /// it, or write it with --out.
    #[command(
        after_help = "Examples:\n  cargo kubegen demo\n  cargo kubegen demo --out /tmp/foo-types"
    )]
    Demo {
        /// Write the files to DIR instead of printing them.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
}

const GENERATE_HELP: &str = "\
One pipeline: every input goes into one model (checked against Kubernetes' own naming rules), \
which is emitted to the outputs:

  inputs                 kinds' Rust types                  outputs
  --crd, --openapi       generated into --out                --out (types), --clients-out
  --rust                 your #[derive(Resource)] structs    --clients-out, --apply-out,
                                                             --conversions-out
  --kubernetes           k8s-openapi's                       --clients-out

So --out needs --crd or --openapi; --rust and --kubernetes need --clients-out (or another \
output their row lists); clients of \
--crd/--openapi kinds need --out too (they name the generated types, mounted at \
--types-module). Any mix of inputs makes one clientset.

Layout of --out (replaced as a whole; kubegen owns it):
  mod.rs                       pub mod <group>;
  <group>/mod.rs               pub mod <version>;   (dots and dashes become _)
  <group>/<version>/mod.rs     pub mod <kind>; pub use <kind>::*;
  <group>/<version>/<kind>.rs  the kind's root type and every nested type
Use it with `mod generated;` when it is src/generated. The generated types need serde, \
serde_json and k8s-openapi (with a version feature) as dependencies.

--style derive writes --out as sources you own instead (same layout, no DO NOT EDIT): \
each kind a #[derive(Resource)] struct with #[resource(...)] attributes, its nested types \
deriving Serialize, Deserialize and JsonSchema with the schema's facts as serde and schemars \
attributes. `kubegen crd --rust` reads them back into the same CRD (up to the normalisations \
listed in codegen/tests/crd_roundtrip.rs), and `Foo::crd()` builds it at run time. They need \
kubegen, serde, serde_json, schemars and k8s-openapi (with its schemars feature).

Layout of --clients-out: mod.rs, clientset.rs, listers.rs, informers.rs (over the kubegen \
facade, see --facade-path).

Layout of --apply-out: like --out, one FooApply (and FooSpecApply... for the nested structs \
kubegen generates, or reads from --rust sources) per kind, for server-side apply with the clients' apply/apply_status \
verbs; FooApply::extract(&live, manager) reads back what a manager owns. Kinds of \
--kubernetes get theirs from Kubernetes' OpenAPI v3 documents given with --kubernetes-openapi \
(one DeploymentApply, PodSpecApply... per definition the kinds reach, each in its own \
group/version: core/v1 types are shared by apps/v1, batch/v1...), and none without them.

Layout of --conversions-out: mod.rs (the annotation key, Error, the helpers), then \
<group>/<kind>/<version>.rs for each version of a kind with several but the hub (its storage \
version, or --conversion-hub KIND=VERSION): to_hub, from_hub, round_trip_spoke, round_trip_hub, \
and the trait ConvertKindVersion with a method per field the versions disagree on (renamed, \
split, merged, retyped; enums with other values), which you implement; the generated code \
calls them, so a missing one does not compile. Fields only one version has are carried in the \
kubegen.io/conversion-data annotation, so a round trip gives the object back. \
<group>/<kind>/mod.rs has convert(&user, object, desired_api_version), JSON in and out through \
the hub, for a conversion webhook: WebhookServer::new(config).conversion(\"/convert\", \
converter_fn(move |object, version| convert(&MyConversions, object, version))). Kinds of --rust \
(the same kind in two or more version modules) get them too, naming your structs under \
--rust-module, which need Clone, PartialEq, Serialize and Deserialize; their hub is the version \
marked #[resource(storage)], unless --conversion-hub names another.

Each kind's client offers every verb by default. --readonly-kind Foo (get, list, watch), --verbs Foo=get,list,create and --no-status-verbs Foo (client-gen's +genclient:readonly, +genclient:onlyVerbs, +genclient:noStatus; #[resource(readonly)], #[resource(verbs(...))] and #[resource(no_status_verbs)] on --rust structs) narrow it: FooClient then has only those verbs (apply counts as patch), and calling another is a compile error.

--versions picks the versions of each kind: `served` (the default), `storage`, or a list \
(v1,v1beta1). OpenAPI documents do not say which version is stored.

Input errors (including names Kubernetes would reject) are printed as file:line:column: \
message, exit with status 2, and write nothing. Files are written to a temporary directory \
first and swapped in, so an interrupted run leaves the previous output intact.

OpenAPI documents (--openapi) are the API server's /openapi/v3/apis/<group>/<version> or \
/openapi/v2 output. Every group/version they serve is read (narrow it with --group and \
--version): kinds from the served paths (plural, scope, status/scale), types from the \
definitions of the group's own package (io.k8s.api.apps.v1.* for apps/v1). Definitions of \
other packages become k8s-openapi types by path (io.k8s.api.core.v1.PodTemplateSpec -> \
::k8s_openapi::api::core::v1::PodTemplateSpec) unless --generate-referenced is given.

Examples:
  cargo kubegen generate --crd deploy/crds/ --out src/generated
  cargo kubegen generate --crd deploy/crds/ --out src/generated --clients-out src/clients
  cargo kubegen generate --crd deploy/crds/ --versions storage --out src/generated
  cargo kubegen generate --openapi openapi/v3/apis__apps__v1_openapi.json --out src/generated
  cargo kubegen generate --openapi swagger.json --group batch --version v1 --out src/generated
  cargo kubegen generate --rust src/apis --rust-module crate::apis --clients-out src/generated
  cargo kubegen generate --kubernetes --clients-out src/kubernetes
  cargo kubegen generate --kubernetes --kubernetes-openapi openapi/v3/ --apply-out src/applyconfigurations
  cargo kubegen generate --rust src/apis --clients-out src/generated --apply-out src/applyconfigurations
  cargo kubegen generate --crd deploy/crds/ --out src/apis --style derive   # migrate CRDs to Rust
  cargo kubegen generate --crd deploy/crds/ --out src/generated --clients-out src/clients --readonly-kind Foo
  cargo kubegen generate --crd deploy/crds/ --out src/generated --conversions-out src/conversions
  cargo kubegen generate --crd deploy/crds/ --out src/generated --conversions-out src/conversions --conversion-hub Gateway=v1beta1
  cargo kubegen generate --rust src/apis --rust-module crate::apis --conversions-out src/conversions
  cargo kubegen generate --crd deploy/crds/ --out src/generated --verify";

const CRD_HELP: &str = "\
Each kind's manifest is <group>_<plural>.yaml in --out (replaced as a whole; kubegen owns it). \
The schema is read from the types the kind's fields use, found by name in the same directory, \
as schemars derives it: serde's names and defaults (#[serde(default = \"f\")] where f's body is \
a literal), doc comments, #[schemars(length, range, regex, extend(...))], and \
#[schemars(schema_with = \"f\")] where f ends in a json_schema!({...}) literal. Numbers and the \
k8s-openapi types operators embed (Condition, Time, Quantity, IntOrString, \
ResourceRequirements, PodTemplateSpec...) get the schemas crd() writes for them, from a table \
generated from crd()'s own code; unsigned and floating-point fields get a warning (API \
conventions advise against them). What kubegen cannot read without compiling is an error at \
its file:line:column (exit status 2, nothing written).

Examples:
  cargo kubegen crd --rust src/apis --out config/crd
  cargo kubegen crd --rust src/apis --out config/crd --verify   # in CI: fail if stale
  cargo kubegen crd --rust src/apis --out config/crd \
      --conversion-webhook icecream-system/icecream-webhook --cert-manager icecream-system/serving-cert";

const KUBERNETES_INPUTS_HELP: &str = "\
--openapi is a directory laid out as Kubernetes' api/openapi-spec/ (what kube-apiserver serves \
at /openapi/v2 and /openapi/v3/<group-version>): swagger.json, and v3/<path>_openapi.json with \
`/` written `__` (v3/apis__apps__v1_openapi.json; the v3 documents may also sit beside \
swagger.json). --out gets files of the same names, in one directory (replaced as \
a whole; kubegen owns it): swagger.json with the definitions the testkit's served kinds reach, \
and each *_openapi.json that serves a built-in kind with those kinds' resource paths and the \
definitions they reach, each schema with only the keys kubegen reads. `generate --kubernetes \
--kubernetes-openapi` gives the same apply configurations from them as from the whole \
documents. The documents do not say their Kubernetes version (info.version is \"unversioned\"): \
--kubernetes-version records it in each file.

Examples:
  cargo kubegen kubernetes-inputs --openapi kubernetes/api/openapi-spec --kubernetes-version 1.35 --out hack/kubernetes
  cargo kubegen kubernetes-inputs --openapi kubernetes/api/openapi-spec --kubernetes-version 1.35 --out hack/kubernetes --verify";

#[derive(Args)]
struct KubernetesInputsArgs {
    /// The directory of Kubernetes' OpenAPI documents (swagger.json, *_openapi.json).
    #[arg(long, value_name = "DIR")]
    openapi: PathBuf,
    /// The Kubernetes version of the documents (1.35), recorded in each file.
    #[arg(long, value_name = "VERSION")]
    kubernetes_version: String,
    /// Write the pruned documents here (created if missing, replaced as a whole).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Compare with what --out holds instead of writing; exit 1 with a diff when stale.
    #[arg(long)]
    verify: bool,
}

#[derive(Args)]
struct CrdArgs {
    /// A directory of Rust API modules with #[derive(Resource)] structs.
    #[arg(long, value_name = "DIR")]
    rust: PathBuf,
    /// Write the manifests here (created if missing, replaced as a whole).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Which versions of each kind: `served`, `storage`, or a comma-separated list.
    #[arg(long, value_name = "served|storage|V1,V2", default_value = "served", value_parser = parse_versions)]
    versions: Versions,
    /// Kinds with several versions convert through this webhook Service
    /// (`spec.conversion.strategy: Webhook`): port 443 and path /convert unless given.
    #[arg(long, value_name = "NAMESPACE/SERVICE[:PORT][/PATH]", value_parser = parse_conversion_webhook)]
    conversion_webhook: Option<ConversionWebhook>,
    /// With --conversion-webhook: the cert-manager Certificate whose CA cert-manager
    /// injects into the CRDs (annotation cert-manager.io/inject-ca-from).
    #[arg(long, value_name = "NAMESPACE/CERTIFICATE", requires = "conversion_webhook", value_parser = parse_namespaced_name)]
    cert_manager: Option<String>,
    /// Do not write: compare --out with what would be written, print a diff and exit with
    /// status 1 if stale.
    #[arg(long)]
    verify: bool,
}

#[derive(Args)]
#[command(group(clap::ArgGroup::new("generated_code").args(["clients_out", "apply_out", "conversions_out"]).multiple(true)))]
struct GenerateArgs {
    /// A CRD file (YAML, possibly multi-document, or JSON) or a directory of them
    /// (*.yaml, *.yml, *.json; documents of other kinds are skipped, as by kubectl apply -f,
    /// but inputs without any CRD are an error). Repeatable.
    #[arg(long = "crd", value_name = "FILE|DIR", help_heading = "Inputs")]
    crds: Vec<PathBuf>,
    /// An OpenAPI v3 document (one group/version, /openapi/v3/...) or v2 swagger
    /// document (JSON or YAML), or a directory of them. Repeatable.
    #[arg(long = "openapi", value_name = "FILE|DIR", help_heading = "Inputs")]
    openapi: Vec<PathBuf>,
    /// A directory of Rust API modules: every `#[derive(Resource)]` struct in its `.rs`
    /// files (read with syn, not compiled) is a kind whose type is that struct.
    #[arg(long, value_name = "DIR", help_heading = "Inputs")]
    rust: Option<PathBuf>,
    /// The built-in API groups (core, apps, batch, coordination, networking, rbac,
    /// policy, autoscaling, storage), whose types are k8s-openapi's.
    #[arg(long, help_heading = "Inputs")]
    kubernetes: bool,
    /// Kubernetes' OpenAPI v3 documents (a file or a directory of them): the built-in
    /// kinds' fields, for their apply configurations (--apply-out); the types stay
    /// k8s-openapi's. Repeatable.
    #[arg(
        long,
        value_name = "FILE|DIR",
        requires = "kubernetes",
        help_heading = "Inputs"
    )]
    kubernetes_openapi: Vec<PathBuf>,

    /// Which versions of each kind: `served`, `storage`, or a comma-separated list.
    #[arg(
        long,
        value_name = "served|storage|V1,V2",
        default_value = "served",
        value_parser = parse_versions,
        help_heading = "Input options"
    )]
    versions: Versions,
    /// The Rust module path of the --rust directory, for type paths in generated code.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "crate::apis",
        requires = "rust",
        help_heading = "Input options"
    )]
    rust_module: String,
    /// Only read this API group of the OpenAPI documents (`core` for the core group).
    #[arg(
        long,
        value_name = "GROUP",
        requires = "openapi",
        help_heading = "Input options"
    )]
    group: Option<String>,
    /// Only read this version of the OpenAPI documents' groups (`v1`).
    #[arg(
        long,
        value_name = "VERSION",
        requires = "openapi",
        help_heading = "Input options"
    )]
    version: Option<String>,
    /// Generate the definitions the selected OpenAPI groups use from other packages too,
    /// instead of using k8s-openapi's types for them.
    #[arg(long, requires = "openapi", help_heading = "Input options")]
    generate_referenced: bool,

    /// Write the generated types here (created if missing, replaced as a whole).
    #[arg(long, value_name = "DIR", help_heading = "Outputs")]
    out: Option<PathBuf>,
    /// Write the clientset, listers and informers of every kind here (created if missing,
    /// replaced as a whole).
    #[arg(long, value_name = "DIR", help_heading = "Outputs")]
    clients_out: Option<PathBuf>,
    /// Write the apply configurations (`FooApply`, for server-side apply) of every kind
    /// whose fields kubegen knows here (created if missing, replaced as a whole).
    #[arg(long, value_name = "DIR", help_heading = "Outputs")]
    apply_out: Option<PathBuf>,
    /// Write the conversions of every --crd/--openapi/--rust kind with several versions
    /// here: each version to and from a hub (the storage version, or --conversion-hub),
    /// with a trait per version pair for the fields only you can
    /// convert, and a `convert` per kind for a conversion webhook (created if missing,
    /// replaced as a whole).
    #[arg(long, value_name = "DIR", help_heading = "Outputs")]
    conversions_out: Option<PathBuf>,
    /// Do not write: compare the outputs with what would be generated, print a diff and
    /// exit with status 1 if stale.
    #[arg(long, help_heading = "Outputs")]
    verify: bool,

    /// The Rust module path --out is mounted at (`crate::generated`), for clients of
    /// generated types.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "crate::generated",
        requires = "generated_code",
        help_heading = "Output options"
    )]
    types_module: String,
    /// Path of the `kubegen` facade in generated clients (`crate` inside kubegen).
    #[arg(
        long,
        value_name = "PATH",
        default_value = "::kubegen",
        requires = "generated_code",
        help_heading = "Output options"
    )]
    facade_path: String,
    /// Give the client of every kind named KIND get, list and watch only (client-gen's
    /// `+genclient:readonly`; `#[resource(readonly)]` for --rust). Repeatable.
    #[arg(
        long,
        value_name = "KIND",
        requires = "clients_out",
        help_heading = "Output options"
    )]
    readonly_kind: Vec<String>,
    /// Give the client of every kind named KIND these verbs only (get, list, watch,
    /// create, update, patch, delete, deletecollection; client-gen's
    /// `+genclient:onlyVerbs`). Repeatable.
    #[arg(
        long,
        value_name = "KIND=VERB,VERB",
        value_parser = parse_kind_verbs,
        requires = "clients_out",
        help_heading = "Output options"
    )]
    verbs: Vec<(String, BTreeSet<ClientVerb>)>,
    /// Leave the status verbs out of the client of every kind named KIND, which must
    /// serve /status (client-gen's `+genclient:noStatus`). Repeatable.
    #[arg(
        long,
        value_name = "KIND",
        requires = "clients_out",
        help_heading = "Output options"
    )]
    no_status_verbs: Vec<String>,
    /// Convert the kind KIND (or KIND.GROUP) through VERSION instead of its storage
    /// version. Repeatable.
    #[arg(
        long,
        value_name = "KIND=VERSION",
        value_parser = parse_hub,
        requires = "conversions_out",
        help_heading = "Output options"
    )]
    conversion_hub: Vec<(String, String)>,
    /// How --out writes the types of --crd kinds: `generated` (kubegen's code, DO NOT
    /// EDIT, regenerated by every run) or `derive` (annotated `#[derive(Resource)]` sources
    /// for you to own and edit, which `kubegen crd --rust` reads back into the same CRD:
    /// migrating a CRD to Rust).
    #[arg(
        long,
        value_enum,
        value_name = "STYLE",
        default_value = "generated",
        help_heading = "Output options"
    )]
    style: Style,
    /// Path of the k8s-openapi crate in generated types.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "::k8s_openapi",
        requires = "out",
        help_heading = "Output options"
    )]
    k8s_openapi_path: String,
}

/// How --out writes the types of --crd kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Style {
    /// Generated code kubegen owns (DO NOT EDIT).
    Generated,
    /// Annotated `#[derive(Resource)]` sources the user owns.
    Derive,
}

fn parse_versions(text: &str) -> Result<Versions, String> {
    text.parse()
}

/// `NAMESPACE/SERVICE[:PORT][/PATH]`: a conversion webhook's Service.
fn parse_conversion_webhook(text: &str) -> Result<ConversionWebhook, String> {
    let expected = || {
        format!(
            "expected NAMESPACE/SERVICE[:PORT][/PATH] (e.g. icecream-system/icecream-webhook:9443/convert), got {text:?}"
        )
    };
    let (namespace, rest) = text.split_once('/').ok_or_else(expected)?;
    let (service_port, path) = match rest.find('/') {
        Some(slash) => (&rest[..slash], &rest[slash..]),
        None => (rest, "/convert"),
    };
    let (service, port) = match service_port.split_once(':') {
        Some((service, port)) => (service, port.parse::<u16>().map_err(|_| expected())?),
        None => (service_port, 443),
    };
    if namespace.is_empty() || service.is_empty() || port == 0 {
        return Err(expected());
    }
    let mut webhook = ConversionWebhook::service(namespace, service);
    webhook.port = port;
    webhook.path = path.to_owned();
    Ok(webhook)
}

/// `NAMESPACE/NAME`.
fn parse_namespaced_name(text: &str) -> Result<String, String> {
    match text.split_once('/') {
        Some((namespace, name))
            if !namespace.is_empty() && !name.is_empty() && !name.contains('/') =>
        {
            Ok(text.to_owned())
        }
        _ => Err(format!(
            "expected NAMESPACE/NAME (e.g. icecream-system/serving-cert), got {text:?}"
        )),
    }
}

/// `KIND=VERSION`: a kind (or `KIND.GROUP`) and the version its conversions go through.
fn parse_hub(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .filter(|(kind, version)| !kind.is_empty() && !version.is_empty())
        .map(|(kind, version)| (kind.to_owned(), version.to_owned()))
        .ok_or_else(|| format!("expected KIND=VERSION (e.g. Gateway=v1), got {text:?}"))
}

/// `KIND=VERB,VERB`: a kind name and at least one known verb, each once.
fn parse_kind_verbs(text: &str) -> Result<(String, BTreeSet<ClientVerb>), String> {
    let (kind, list) = text
        .split_once('=')
        .filter(|(kind, _)| !kind.is_empty())
        .ok_or_else(|| {
            format!("expected KIND=VERB,VERB (e.g. Foo=get,list,watch), got {text:?}")
        })?;
    let mut verbs = BTreeSet::new();
    for name in list.split(',') {
        let verb = ClientVerb::from_name(name).ok_or_else(|| {
            format!(
                "unknown verb {name:?}; expected one of: {}",
                ClientVerb::names()
            )
        })?;
        if !verbs.insert(verb) {
            return Err(format!("verb {name:?} is given twice"));
        }
    }
    Ok((kind.to_owned(), verbs))
}

impl GenerateArgs {
    /// The run these arguments ask for.
    fn config(&self) -> Config {
        let mut config = Config::new()
            .versions(self.versions.clone())
            .generate_referenced(self.generate_referenced)
            .style(match self.style {
                Style::Generated => TypesStyle::Generated,
                Style::Derive => TypesStyle::Derive,
            })
            .types_module(self.types_module.clone())
            .facade_path(self.facade_path.clone())
            .k8s_openapi_path(self.k8s_openapi_path.clone());
        config = self.crds.iter().fold(config, |c, path| c.crd(path));
        config = self.openapi.iter().fold(config, |c, path| c.openapi(path));
        if let Some(dir) = &self.rust {
            config = config.rust(dir, self.rust_module.clone());
        }
        if self.kubernetes {
            config = config.kubernetes();
        }
        config = self
            .kubernetes_openapi
            .iter()
            .fold(config, |c, path| c.kubernetes_openapi(path));
        if let Some(group) = &self.group {
            config = config.openapi_group(group.clone());
        }
        if let Some(version) = &self.version {
            config = config.openapi_version(version.clone());
        }
        let outputs = [
            (
                &self.out,
                Config::types_out as fn(Config, PathBuf) -> Config,
            ),
            (&self.clients_out, Config::clients_out),
            (&self.apply_out, Config::apply_out),
            (&self.conversions_out, Config::conversions_out),
        ];
        for (dir, set) in outputs {
            if let Some(dir) = dir {
                config = set(config, dir.clone());
            }
        }
        config = self
            .readonly_kind
            .iter()
            .fold(config, |c, k| c.readonly_kind(k));
        config = self
            .verbs
            .iter()
            .fold(config, |c, (k, verbs)| c.kind_verbs(k, verbs.clone()));
        config = self
            .no_status_verbs
            .iter()
            .fold(config, |c, k| c.no_status_verbs(k));
        self.conversion_hub
            .iter()
            .fold(config, |c, (kind, version)| c.conversion_hub(kind, version))
    }
}

/// The command line without the `kubegen` word cargo inserts when it runs this binary as
/// the `cargo kubegen` subcommand, so `cargo kubegen generate` and `cargo-kubegen generate`
/// parse alike.
fn command_line() -> Vec<std::ffi::OsString> {
    let mut args: Vec<_> = std::env::args_os().collect();
    if args.get(1).is_some_and(|word| word == "kubegen") {
        args.remove(1);
    }
    args
}

fn main() -> ExitCode {
    match Cli::parse_from(command_line()).command {
        Command::Generate(args) => run("generate", &args.config(), args.verify),
        Command::Crd(args) => run("crd", &args.config(), args.verify),
        Command::KubernetesInputs(args) => kubernetes_inputs(&args),
        Command::Demo { out } => demo(out.as_deref()),
        Command::New(args) => scaffold::new(&args),
        Command::Add(args) => scaffold::add(&args),
    }
}

impl CrdArgs {
    /// The run these arguments ask for.
    fn config(&self) -> Config {
        let config = Config::new()
            .rust(&self.rust, "crate::apis")
            .versions(self.versions.clone())
            .manifests_out(&self.out);
        match &self.conversion_webhook {
            Some(webhook) => config.conversion_webhook(ConversionWebhook {
                cert_manager: self.cert_manager.clone(),
                ..webhook.clone()
            }),
            None => config,
        }
    }
}

/// Runs `config` for the subcommand `name`: a refused configuration is a usage error
/// (clap's message and exit status 2), then everything is generated before anything is
/// written or compared.
fn run(name: &str, config: &Config, verify: bool) -> ExitCode {
    if let Err(refusal) = config.check() {
        let kind = match refusal.missing {
            true => ErrorKind::MissingRequiredArgument,
            false => ErrorKind::ArgumentConflict,
        };
        let mut command = Cli::command();
        let command = command
            .find_subcommand_mut(name)
            .cloned()
            .unwrap_or_else(Cli::command);
        let mut command = command.bin_name(format!("cargo kubegen {name}"));
        command.error(kind, refusal.message).exit();
    }
    let run = match config.generate() {
        Ok(run) => run,
        Err(e) if e.is_input() => return fail(EXIT_INPUT, &e),
        Err(e) => return fail(EXIT_FAILED, &e),
    };
    run.warnings
        .iter()
        .for_each(|warning| eprintln!("{warning}"));
    let mut status = ExitCode::SUCCESS;
    for output in &run.outputs {
        let result = match verify {
            true => check(output),
            false => write(output),
        };
        if result != ExitCode::SUCCESS {
            status = result;
            if !verify {
                break;
            }
        }
    }
    status
}

/// `kubernetes-inputs`: reads the documents, prunes them, then writes or verifies.
fn kubernetes_inputs(args: &KubernetesInputsArgs) -> ExitCode {
    use kubegen_codegen::__internal::kubernetes_inputs::{self, Header};
    use kubegen_codegen::__internal::testkit_tables::SERVED;

    let header = Header {
        kubernetes_version: args.kubernetes_version.clone(),
        regenerate: format!(
            "cargo kubegen kubernetes-inputs --openapi <Kubernetes {} api/openapi-spec> \
--kubernetes-version {} --out {}",
            args.kubernetes_version,
            args.kubernetes_version,
            args.out.display()
        ),
    };
    let files = kubernetes_inputs::read_dir(&args.openapi).and_then(|(swagger, documents)| {
        kubernetes_inputs::generate(&swagger, &documents, SERVED, &header)
    });
    let files = match files {
        Ok(files) => files,
        Err(e) if e.is_input() => return fail(EXIT_INPUT, &e),
        Err(e) => return fail(EXIT_FAILED, &e),
    };
    let output = Output {
        dir: args.out.clone(),
        files,
    };
    match args.verify {
        true => check(&output),
        false => write(&output),
    }
}

fn demo(out: Option<&Path>) -> ExitCode {
    let sources = [Source::new(
        "<embedded sample: foos.samplecontroller.k8s.io>",
        SAMPLE_CRD,
    )];
    let files = match kubegen_codegen::__internal::pipeline::generate_from_crds(
        &sources,
        &emit::Options::default(),
    ) {
        Ok(files) => files,
        Err(e) => return fail(EXIT_FAILED, &e),
    };
    match out {
        Some(out) => write(&Output {
            dir: out.to_owned(),
            files,
        }),
        None => {
            println!("# Input: the embedded samplecontroller.k8s.io Foo CRD\n");
            println!("{SAMPLE_CRD}");
            for file in &files {
                println!("# ==== {} ====\n{}", file.path, file.contents);
            }
            ExitCode::SUCCESS
        }
    }
}

fn write(output: &Output) -> ExitCode {
    match output.write() {
        Ok(()) => {
            eprintln!(
                "kubegen: wrote {} to {}",
                naming::counted(output.files.len(), "file"),
                output.dir.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(EXIT_FAILED, &e),
    }
}

fn check(output: &Output) -> ExitCode {
    match output.verify() {
        Ok(None) => {
            eprintln!("kubegen: {} is up to date", output.dir.display());
            ExitCode::SUCCESS
        }
        Ok(Some(diff)) => {
            print!("{diff}");
            eprintln!(
                "kubegen: {} is stale; run the same command without --verify to update it",
                output.dir.display()
            );
            ExitCode::from(EXIT_FAILED)
        }
        Err(e) => fail(EXIT_FAILED, &e),
    }
}

fn fail(code: u8, error: &dyn std::fmt::Display) -> ExitCode {
    eprintln!("{error}");
    ExitCode::from(code)
}
