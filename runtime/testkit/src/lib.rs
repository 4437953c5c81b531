//! kubegen-testkit: an in-process Kubernetes API server over real HTTP, for controller
//! tests and demos.
//!
//! [`ApiServer::start`] binds 127.0.0.1 on a free port and serves the Kubernetes API:
//! discovery, built-in resources, CustomResourceDefinitions registered at runtime, and
//! the verbs get, list, watch, create, update, patch, delete and deletecollection with
//! a real server's semantics (one global resourceVersion counter, 409 on stale
//! updates, 410 Expired for resourceVersions older than the kept history, bookmarks,
//! finalizers, generation, selectors, pagination). The same `kube::Client` code that
//! talks to a cluster talks to it; [`ApiServer::kubeconfig`] lets other clients (kubectl)
//! in too, and the `kubegen-apiserver` binary serves it stand-alone. Requests without a
//! token are the administrator's; [`ApiServer::service_account_client`] authenticates as a
//! ServiceAccount, which [`ApiServerConfig::rbac`] subjects to the stored RBAC roles.
//!
//! # A controller-style test
//!
//! ```
//! use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
//! use kube::api::{Api, ListParams, ObjectMeta, PostParams};
//! use kubegen_testkit::ApiServer;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = ApiServer::start().await?;
//! let client = server.client();
//!
//! // Arrange: a namespace and a configmap, created through the real HTTP API.
//! let namespaces: Api<Namespace> = Api::all(client.clone());
//! let ns = Namespace { metadata: ObjectMeta { name: Some("team-a".into()), ..Default::default() }, ..Default::default() };
//! namespaces.create(&PostParams::default(), &ns).await?;
//! let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "team-a");
//! let cm = ConfigMap {
//!     metadata: ObjectMeta {
//!         name: Some("settings".into()),
//!         labels: Some([("app".to_owned(), "web".to_owned())].into()),
//!         ..Default::default()
//!     },
//!     data: Some([("mode".to_owned(), "fast".to_owned())].into()),
//!     ..Default::default()
//! };
//! configmaps.create(&PostParams::default(), &cm).await?;
//!
//! // Act: here a controller would run its reconcile loop against `client`.
//!
//! // Assert on what the API server holds, exactly as on a cluster.
//! let listed = configmaps.list(&ListParams::default().labels("app=web")).await?;
//! assert_eq!(listed.items.len(), 1);
//! // ConfigMaps have no generation, as on a real server (Deployments and custom resources do).
//! assert_eq!(listed.items[0].metadata.generation, None);
//! assert!(listed.metadata.resource_version.is_some());
//!
//! // Reliability tests make the server misbehave on purpose.
//! server.faults().drop_watches();
//! server.shutdown().await;
//! # Ok(())
//! # }
//! ```
//!
//! # What it serves
//!
//! | group                        | version | kind                           | plural                          | namespaced | subresources  | short names |
//! |------------------------------|---------|--------------------------------|---------------------------------|------------|---------------|-------------|
//! | core                         | v1      | Namespace                      | namespaces                      | no         | status        | ns          |
//! | core                         | v1      | Pod                            | pods                            | yes        | status        | po          |
//! | core                         | v1      | Secret                         | secrets                         | yes        |               |             |
//! | core                         | v1      | ConfigMap                      | configmaps                      | yes        |               | cm          |
//! | core                         | v1      | Service                        | services                        | yes        | status        | svc         |
//! | core                         | v1      | Endpoints                      | endpoints                       | yes        |               | ep          |
//! | discovery.k8s.io             | v1      | EndpointSlice                  | endpointslices                  | yes        |               |             |
//! | core                         | v1      | Event                          | events                          | yes        |               | ev          |
//! | events.k8s.io                | v1      | Event                          | events                          | yes        |               | ev          |
//! | apps                         | v1      | Deployment                     | deployments                     | yes        | status, scale | deploy      |
//! | apps                         | v1      | ReplicaSet                     | replicasets                     | yes        | status, scale | rs          |
//! | coordination.k8s.io          | v1      | Lease                          | leases                          | yes        |               |             |
//! | admissionregistration.k8s.io | v1      | ValidatingWebhookConfiguration | validatingwebhookconfigurations | no         |               |             |
//! | admissionregistration.k8s.io | v1      | MutatingWebhookConfiguration   | mutatingwebhookconfigurations   | no         |               |             |
//! | apiextensions.k8s.io         | v1      | CustomResourceDefinition       | customresourcedefinitions       | no         | status        | crd, crds   |
//! | rbac.authorization.k8s.io    | v1      | Role                           | roles                           | yes        |               |             |
//! | rbac.authorization.k8s.io    | v1      | RoleBinding                    | rolebindings                    | yes        |               |             |
//! | rbac.authorization.k8s.io    | v1      | ClusterRole                    | clusterroles                    | no         |               |             |
//! | rbac.authorization.k8s.io    | v1      | ClusterRoleBinding             | clusterrolebindings             | no         |               |             |
//!
//! The create-only reviews are answered (POST) and never stored; discovery lists them
//! with verb `create` alone: `authorization.k8s.io/v1` SelfSubjectAccessReviews (JSON or
//! protobuf bodies), SubjectAccessReviews, LocalSubjectAccessReviews and
//! SelfSubjectRulesReviews (JSON), and `authentication.k8s.io/v1` TokenReviews (JSON)
//! and SelfSubjectReviews (JSON, or kubectl's protobuf, which carries nothing to read).
//!
//! The table lives in `store/registry.rs`; adding a type is one line there. Namespaces
//! `default`, `kube-system`, `kube-public` and `kube-node-lease` exist at start.
//!
//! # Layout
//!
//! The server reads top-down in layers: a request enters through HTTP routing and
//! content negotiation, which call the verbs, which read and write storage and watch.
//! Every file imports only from its own layer or one below it, and no two files import
//! each other, directly or around a circle; a submodule may use its parent module
//! (`http/table/printers/` uses the column types of `http/table/`), as Rust lets it see
//! the parent's private items. `tests/testkit_layers.rs` reads this table and checks
//! every path of the source that starts at the crate, a parent, the module itself or one
//! of its submodules against it.
//!
//! | layer             | directory  | what it holds                                                                                                                  | may import                          |
//! |-------------------|------------|--------------------------------------------------------------------------------------------------------------------------------|-------------------------------------|
//! | HTTP              | `http/`    | routing, authentication and request attributes, content negotiation, the JSON, protobuf and Table encodings, discovery, OpenAPI, admission and CRD conversion webhook calls (HTTPS) and the services they name, the [`ApiServer`] and [`Faults`] handles | `http`, `verbs`, `store`, `builtin` |
//! | verbs             | `verbs/`   | what each verb and subresource does: validation, defaulting, CRD schemas, patches (merge, JSON, strategic, apply), field ownership (managedFields), deletion cascades, which admission webhooks match and what they answered, webhook client configurations, the ConversionReview sent and what its answer means, RBAC decisions | `verbs`, `store`, `builtin`         |
//! | storage and watch | `store/`   | objects by revision, the type registry, resourceVersions and history, watch delivery, selectors, fault rules, `Status` errors, minted tokens | `store`, `builtin`                  |
//! | Kubernetes facts  | `builtin/` | tables generated from Kubernetes' OpenAPI (patch strategies, protobuf fields, definitions), typed decoding of built-in kinds  | `builtin`                           |
//!
//! # Semantics, and where they differ from a real server
//!
//! - **Authentication and RBAC**: a request without `Authorization: Bearer` is the
//!   administrator's and always allowed (every client of [`ApiServer::client`] and
//!   [`ApiServer::kubeconfig`]). [`ApiServer::service_account_token`] mints a token
//!   (and [`ApiServer::service_account_client`] / [`ApiServer::service_account_config`]
//!   a client or `kube::Config` carrying one) for user
//!   `system:serviceaccount:<namespace>:<name>` in the groups `system:serviceaccounts`,
//!   `system:serviceaccounts:<namespace>` and `system:authenticated`; a token the server
//!   never minted is 401 Unauthorized. With [`ApiServerConfig::rbac`] on, such a
//!   user's requests are authorized as kube-apiserver's RBAC authorizer does, from the
//!   stored `rbac.authorization.k8s.io/v1` objects: ClusterRoleBindings grant their
//!   ClusterRole everywhere, RoleBindings their Role or a ClusterRole in their namespace;
//!   subjects `User`, `Group`, `ServiceAccount` (its namespace defaulting to the
//!   RoleBinding's); rules match `verbs` (`get`, `list`, `watch`, `create`, `update`,
//!   `patch`, `delete`, `deletecollection`, `*`), `apiGroups`, `resources` (`*`,
//!   `deployments/status`, `*/status`), `resourceNames` (a list, watch or create names
//!   no object, unless a `metadata.name` field selector does) and `nonResourceURLs`
//!   (`/apis/*` prefixes). The request's attributes are kube-apiserver's `RequestInfo`
//!   (a namespace is in itself: `GET /api/v1/namespaces/x` is in namespace `x`;
//!   discovery, OpenAPI, `/version` and health paths are non-resource requests with the
//!   method as verb). A denial is 403 Forbidden with kube-apiserver's Status
//!   (`deployments.apps "web" is forbidden: User "system:serviceaccount:default:ctl"
//!   cannot get resource "deployments" in API group "apps" in the namespace "default"`,
//!   `... at the cluster scope`, `forbidden: User ... cannot post path "/apis"`; details
//!   `group`, `kind` (the resource), `name`). What the default bindings give every
//!   authenticated user is granted without stored objects: `get` on the discovery,
//!   OpenAPI, version and health paths (`system:discovery`, `system:public-info-viewer`)
//!   and `create` of self-subject reviews (`system:basic-user`). A
//!   SelfSubjectAccessReview answers `status.allowed` (and the authorizer's
//!   `RBAC: allowed by ...` reason; none when denied, as kube-apiserver) for the
//!   requesting user; the administrator, and everyone with RBAC off, may do everything.
//!   A SubjectAccessReview asks the same for `spec.user` in `spec.groups` (nothing
//!   added to them), a LocalSubjectAccessReview in its path's namespace only (another
//!   `resourceAttributes.namespace` is 400); with RBAC off both are allowed. A
//!   TokenReview answers `authenticated: true` and the user (username, groups; no uid)
//!   for a token the server minted, `authenticated: false` for any other; a
//!   SelfSubjectReview the caller's user, the administrator being `kubernetes-admin` in
//!   `system:masters`. A SelfSubjectRulesReview lists the rules bound to the caller in
//!   `spec.namespace` (`*` on everything for the administrator and with RBAC off),
//!   never `incomplete`. Creating a review is itself authorized (`create
//!   subjectaccessreviews`, `create tokenreviews`; self-subject ones are every
//!   authenticated user's). Differences: no ServiceAccount objects,
//!   token Secrets, impersonation or client certificates; ClusterRole
//!   `aggregationRule`s are not aggregated; the bootstrap roles are not stored objects;
//!   a watch is authorized when it starts only (as on a real server), and RBAC changes
//!   apply to the next request. kubectl (client-go) sends credentials over TLS only, so
//!   against this plain-HTTP server it is always the administrator.
//! - **Writes**: uid, creationTimestamp, generateName, `generation` where the kind's
//!   registry strategy sets it (1 on create; bumped when `spec` changes for pods,
//!   replicasets and CRDs, `spec` or annotations for deployments, anything but metadata
//!   for custom resources and webhook configurations, status excluded with a status
//!   subresource; never set for
//!   configmaps, secrets, namespaces, services, events and leases), finalizers and
//!   deletionTimestamp (a delete with finalizers marks the
//!   object and returns it; removing the last finalizer deletes it; finalizer names must
//!   be qualified names, and none can be added once the object is being deleted: 422
//!   Invalid). An update without
//!   resourceVersion is unconditional; a stale one gets 409 Conflict. An update that
//!   changes nothing is a no-op: no new resourceVersion and no event, as on a real server.
//!   Deleting a namespace deletes its objects (it stays Terminating while objects with
//!   finalizers remain); deleting a CRD removes its resources and objects (their own
//!   finalizers are not waited for). Garbage collection of an owner's dependents is
//!   synchronous: deleting an owner deletes the objects whose ownerReferences name its
//!   uid (recursively), or with `propagationPolicy: Orphan` removes those references
//!   instead; `Foreground` is served like `Background`. Dangling references are
//!   collected as kube-controller-manager's garbage collector does, asynchronously on a
//!   task of the server's: an object written with ownerReferences whose owners are all
//!   gone (looked up by `apiVersion`, `kind` and `name`: not found, or another uid) is
//!   deleted just after the write, and references to gone owners beside existing ones
//!   are removed ([`ApiServerConfig::collect_dangling_dependents`] turns this off);
//!   owners of kinds not served leave the object alone, and objects whose owners go
//!   later are collected by the owner's deletion alone (no periodic sweep). `dryRun=All` computes and validates a write and returns
//!   its result without storing it (no new resourceVersion, no event). `managedFields`
//!   are maintained on every write (see *Field ownership*).
//! - **Admission webhooks**: stored `ValidatingWebhookConfiguration`s and
//!   `MutatingWebhookConfiguration`s are called on create, update and delete of every
//!   other resource, built-in or custom (PUT and PATCH of the main resource, `status`
//!   or `scale`; an apply that creates is a CREATE; a deletecollection admits each
//!   object as a DELETE and stops at the first denial), as kube-apiserver calls them: the write is computed (defaulted, validated) first,
//!   then the mutating webhooks are called (configurations in name order, webhooks in
//!   order; `reinvocationPolicy: IfNeeded` ones once more when a later webhook changed
//!   the object) and their `JSONPatch`es applied, the result is checked again, the
//!   validating webhooks are called, and only then is it stored (409 Conflict if the
//!   object changed meanwhile). Matching: `rules` (operations, groups, versions,
//!   resources with `*`, `*/*`, `pods/status`, scope), `namespaceSelector` (the
//!   Namespace's labels; a Namespace's own), `objectSelector` (new or old object).
//!   Writes through `/scale` are UPDATEs of subresource `scale` whose `object` and
//!   `oldObject` are `autoscaling/v1` Scales (`kind` `autoscaling/v1 Scale`,
//!   `resource` the parent's), matched by `deployments/scale`, `*/scale` or `*/*` (a
//!   rule on `deployments` alone matches no subresource); a mutating webhook's patch
//!   changes the Scale, whose replicas are stored. `/status` writes carry
//!   `subResource: status` and the whole object. `matchPolicy: Equivalent` (the
//!   default) also matches a rule naming another served version of the resource (a CRD
//!   with several versions): the webhook is sent the objects converted to that version
//!   (strategy `None`: `apiVersion` changed; `Webhook`: through the conversion webhook),
//!   `kind`/`resource` at it and `requestKind`/`requestResource` at the request's, and
//!   a mutating webhook's patch applies to the converted object, converted back;
//!   `Exact` matches the request's version only. The call POSTs an
//!   `admission.k8s.io/v1` AdmissionReview over HTTPS trusting only
//!   `clientConfig.caBundle`, within `timeoutSeconds` (default 10, 1 to 30), to
//!   `clientConfig.url` or to the address of `clientConfig.service` (see *Webhook
//!   services*). A denial is the webhook's `status` (code default 403, message
//!   `admission webhook "<name>" denied the request: <reason>`); a failed call
//!   (unreachable, timed out, TLS refused, non-2xx, no valid review, wrong uid) is 500
//!   `failed calling webhook "<name>": <why>` under `failurePolicy: Fail` (the default)
//!   and skipped under `Ignore`; dry-run requests reaching a webhook whose
//!   `sideEffects` is not `None`/`NoneOnDryRun` are 400. Warnings become `Warning`
//!   headers. `clientConfig` is validated as kube-apiserver validates it (exactly one of
//!   an `https` URL and a service; the service's `name`, `namespace`, `port` 1 to 65535
//!   and `path`). Not served: `matchConditions`, and webhooks of the webhook
//!   configurations themselves (never called, as on a real server). Differences: a
//!   `/scale` webhook is sent the Scale of the object as it would be stored (a real
//!   server sends the request's Scale body as decoded). With a conversion webhook,
//!   admission happens at the request's version as on a real server (`requestKind`
//!   and the rules' versions are the request's; the objects a webhook is sent are
//!   converted to the version its rule matched, its patch converted back).
//! - **CRD conversion**: a CRD with `spec.conversion.strategy: Webhook` has its objects
//!   stored at its storage version; every request at another served version goes
//!   through the webhook, as kube-apiserver's converter calls it: get, list (one
//!   ConversionReview for all the items not yet at the version), watch (each event's
//!   object, initial events included; bookmarks need none), the answers of create,
//!   update, patch, apply, delete and deletecollection, and the `status` and `scale`
//!   subresources. Request bodies are converted to the storage version before they are
//!   defaulted, validated and stored; a patch is applied to the object converted to the
//!   request's version (and computed again, up to five times, when the object changed
//!   before the result was stored). Objects already at the wanted version are not sent.
//!   The call POSTs an `apiextensions.k8s.io/v1` ConversionReview (a fresh uid,
//!   `desiredAPIVersion`, `objects`) to `clientConfig.url` or `clientConfig.service`
//!   (see *Webhook services*) over HTTPS trusting only `clientConfig.caBundle`, within [`ApiServerConfig::conversion_timeout`] (30 s by
//!   default, as kube-apiserver). The answer must carry the same uid, `result.status:
//!   Success` and one object per object sent, each at the desired version with the same
//!   kind, name, namespace and uid; other metadata but valid labels and annotations is
//!   restored from the object sent. Anything else fails the request with a 500 whose
//!   message is kube-apiserver's (`conversion webhook for example.com/v1, Kind=Widget
//!   failed: ...`, `... returned 2 objects, expected 1`, `... returned invalid object:
//!   must have the same name: a != b`); a watch ends with an ERROR event carrying it.
//!   A CRD whose `clientConfig` kube-apiserver would refuse (an `http` URL, both or
//!   neither of `url` and `service`, a bad service), `conversionReviewVersions` without
//!   `v1`, or an unserved storage version is refused. Differences: field selectors, defaulting, validation
//!   and managedFields see the object at the storage version (a real server defaults
//!   at the request's version; admission webhooks do see it there, above); `v1beta1` ConversionReviews are not sent.
//!   With strategy `None` every version is the one stored object with its `apiVersion`
//!   changed.
//! - **Webhook services**: a `clientConfig.service` (admission or conversion) is
//!   resolved when the webhook is called, as kube-apiserver's endpoint resolver does
//!   but on loopback only: the Service `namespace/name` mapped by
//!   [`ApiServerConfig::service_address`] is called there (no Service or endpoints
//!   needed); else the stored Service (type `ClusterIP`, `NodePort` or
//!   `LoadBalancer`), its port numbered `service.port` (default 443), and the ready
//!   addresses (`conditions.ready` not false; `subsets[].addresses`) of its
//!   EndpointSlices (label `kubernetes.io/service-name`) or else its Endpoints, on the
//!   endpoint port named as the Service's port. A loopback address is preferred; any
//!   other is refused (`service "ns/name" resolves to 10.0.0.7:9443: the testkit calls
//!   webhooks on loopback addresses only`): the testkit never sends webhook traffic
//!   elsewhere. The certificate is verified for `<service>.<namespace>.svc`, as
//!   kube-apiserver verifies it (`certs::TestCa::service_cert`, feature `certs`, issues
//!   one), and the call is `https://<service>.<namespace>.svc:<port><path>` in errors. An unresolvable
//!   service fails the call as a refused connection does (`failurePolicy` applies),
//!   with kube-apiserver's words: `Post "https://x.ns.svc:443/p": service "x" not
//!   found`, `no service port 8443 found for service "x"`, `no endpoints available for
//!   service "x"`. Differences: no kube-proxy or cluster IPs (a Service's `targetPort`
//!   is not used: the endpoints' ports are), the first ready address is always chosen
//!   (a real server picks one at random), and `service.port` is not defaulted in the
//!   stored object.
//! - **Decoding**: built-in objects are decoded through their k8s-openapi types on every
//!   write (create, update, patch result), so a value of the wrong type is a 400
//!   BadRequest (422 Invalid for a patch result, as on a real server) and fields the type
//!   does not have are dropped. Request bodies over 3 MiB get 413; every error is a
//!   `metav1.Status`.
//! - **Status subresource**: spec changes are ignored on `/status` and status changes
//!   on the main resource; status is cleared on create (pods start `Pending`).
//! - **Patch**: `application/merge-patch+json`, `application/json-patch+json` (a `test`
//!   against `null` of a member absent from an existing object passes, as on a real
//!   server; a failing operation is 422),
//!   `application/strategic-merge-patch+json` for built-in kinds (patch strategies and
//!   merge keys generated from Kubernetes' OpenAPI document; `$patch: replace|delete`,
//!   `$setElementOrder`, `$deleteFromPrimitiveList` and `$retainKeys` honoured; 415 for
//!   custom resources, as on a real server) and `application/apply-patch+yaml`
//!   (server-side apply with `fieldManager` required, creating absent objects; see
//!   *Field ownership*).
//! - **Field ownership** (`metadata.managedFields`, structured-merge-diff's semantics):
//!   entries `{manager, operation, apiVersion, time, fieldsType: FieldsV1, fieldsV1,
//!   subresource}`, ordered as a real server orders them. Create, update and non-apply
//!   patches record an `Update` entry for `?fieldManager` (default: the User-Agent up to
//!   its first `/`; over 128 bytes is 422) owning what they added or changed, defaults
//!   included; other managers lose the fields it changed, everyone loses removed ones.
//!   An apply records an `Apply` entry owning exactly its configuration's fields,
//!   merges the configuration by the schema's types, removes fields its previous
//!   configuration held that nobody owns any more, and answers 409 Conflict (causes of
//!   type `FieldManagerConflict` naming the field and the other manager) when it would
//!   change another manager's field, unless `force=true`, which takes the field over;
//!   applying an equal value shares ownership. `/status` applies and updates own only
//!   status (subresource `status`); status sent to the main resource is not owned.
//!   Field sets use `f:` fields, `k:` keys of `x-kubernetes-list-type: map` lists (merge
//!   keys of the built-in OpenAPI document, `x-kubernetes-list-map-keys` of CRD
//!   schemas), `v:` values of set lists, `.` for members with children; atomic lists
//!   (the default), `x-kubernetes-map-type: atomic` maps and untyped lists are owned as
//!   a whole. Differences: a create is compared with Go's zero value as the schema tells
//!   it (required fields, `metadata` and `spec` structs), so optional non-pointer
//!   structs first set by an update (Deployment `spec.strategy`) get a `.` member a real
//!   server does not write; list items lacking a key field are keyed by the keys they
//!   have (a real server fills schema defaults such as a port's `TCP`); items merged
//!   into a list keep the live order with new ones appended; maps and lists emptied by
//!   an apply's removals are dropped; `managedFields` sent in a request body are
//!   ignored (a real server lets clients replace or reset them); entries are never
//!   converted between versions; unions are not handled; applies through `/scale` are
//!   merged and recorded as `Update`s.
//! - **List**: label selectors (`=`, `==`, `!=`, `in`, `notin`, `key`, `!key`), field
//!   selectors (`metadata.name`, `metadata.namespace`, declared fields such as
//!   `spec.nodeName` for pods or `type` for secrets, CRD `selectableFields`), `limit` and
//!   opaque `continue` tokens (pages come from one snapshot, ordered by namespace/name),
//!   `resourceVersion` with `resourceVersionMatch` `NotOlderThan` (latest state) or
//!   `Exact` (the state at that version, rebuilt from the history window; 410 Expired
//!   beyond it, as a compacted etcd).
//! - **Sharded list and watch** (KEP-5866, alpha in Kubernetes v1.36): `shardSelector`
//!   on list and watch, `shardRange(object.metadata.uid|namespace, '0x<start>',
//!   '0x<end>')` joined by `||`, keeps the objects whose field's 64-bit FNV-1a hash
//!   falls in `[start, end)`; lists echo it in `metadata.shardInfo.selector`; a
//!   malformed one is a 400 saying what is wrong. [`ShardSelectors`] makes the server
//!   ignore the parameter (as one without the feature gate) or refuse it instead.
//! - **Watch**: an unset or `"0"` resourceVersion starts with synthetic ADDED events
//!   for the current state; a given one replays the events after it, in order, then
//!   streams; one older than the history window (see [`ApiServerConfig`]) answers HTTP
//!   200 with one ERROR event carrying a 410 Expired Status, as a real server does.
//!   Objects entering or leaving a label/field selector arrive as ADDED/DELETED.
//!   `allowWatchBookmarks` gets periodic BOOKMARKs (and on [`Faults::send_bookmarks`]),
//!   `timeoutSeconds` ends the stream, `sendInitialEvents=true` sends the current state
//!   then a BOOKMARK annotated `k8s.io/initial-events-end: "true"`. [`Faults`] drops
//!   watches, pauses delivery, compacts history, fails or delays requests;
//!   [`ApiServer::restart`] closes every connection and serves the same data again.
//! - **Schema**: custom resources are defaulted, pruned (unless
//!   `x-kubernetes-preserve-unknown-fields`; `apiVersion`, `kind`, `metadata` are kept at
//!   the root and in `x-kubernetes-embedded-resource`s) and validated for types,
//!   `x-kubernetes-int-or-string`, required fields, enums, nullable and numeric, length
//!   and count bounds; failures are 422 Invalid listing every field path.
//! - **Discovery**: legacy documents, and aggregated discovery (`apidiscovery.k8s.io/v2`)
//!   when the Accept header asks for it.
//! - **Content negotiation**: what a response carries and how it is encoded are decided
//!   together, once per request, by one rule: the Accept header's clauses are tried by
//!   preference (`q`, then specificity, then order), as a real server does, and the first
//!   one the server can answer is taken. `as=PartialObjectMetadata` /
//!   `as=PartialObjectMetadataList` with `g=meta.k8s.io;v=v1` (or `v1beta1`) get metadata
//!   only (kube's `Api<PartialObjectMeta<K>>` and `*_metadata` calls, client-go's metadata
//!   client) on get, list, watch (events and bookmarks) and write responses, and
//!   `as=Table` gets a Table (below). JSON is always served (`*/*` and `application/*`
//!   mean JSON); protobuf only for one whole object of a built-in kind (below). Clauses
//!   asking for what is not served (YAML; protobuf lists, watches, Tables, metadata,
//!   Scales or custom resources) are skipped, so `protobuf, application/json` gets JSON
//!   there, and a header with nothing servable is 406 NotAcceptable (a protobuf-only
//!   Accept on a list, for one), as is the list form on one object or the object form on
//!   a list (a watch sends whole objects instead). Served over HTTP/1.1 without TLS
//!   (authentication: see *Authentication and RBAC*).
//! - **Protobuf**: `application/vnd.kubernetes.protobuf` request bodies of built-in
//!   kinds (kubectl's typed `create` commands send them) are decoded into the object the
//!   same JSON body gives, and single whole objects of built-in kinds (get, create,
//!   update, patch, delete, `/status`) are answered in protobuf when negotiation prefers
//!   it. Unlike a real server, lists, watch streams, Tables, metadata and Scales have no
//!   protobuf form here (a protobuf-only Accept for them is 406 where a real server
//!   answers in protobuf), and Status errors are always JSON (clients decode by the
//!   response's Content-Type); custom resources get 415 for protobuf bodies and 406 for
//!   a protobuf-only Accept, as on a real server. Go's protobuf cannot tell an unset
//!   field from its zero value: a zero number is kept only where the field's
//!   documentation shows a pointer (`replicas: 0` is kept, a protobuf `runAsUser: 0` or
//!   `tolerationSeconds: 0` is lost), and an explicit `false` is always dropped.
//! - **OpenAPI**: `/openapi/v2` (JSON only: a protobuf-only Accept gets 406) and
//!   `/openapi/v3` with one document per group version, for the built-in kinds (schemas
//!   generated from Kubernetes' OpenAPI, patch strategies included) and every CRD
//!   version (its schema, named `com.example.v1.Foo`); paths list the verbs with their
//!   query parameters, as `kubectl explain`, `kubectl apply` and its field-validation
//!   check read them. `fieldValidation` itself is accepted and not enforced: unknown
//!   fields are dropped (built-ins) or pruned (custom resources) silently.
//! - **Tables** (`kubectl get`): `meta.k8s.io` Table (`v1` or `v1beta1`) for get, list,
//!   watch and write responses when the Accept header asks for it, with Kubernetes'
//!   printer columns for the built-in kinds (pods' status from their container statuses;
//!   no kubelet sets them) and a CRD version's `additionalPrinterColumns` (JSONPath
//!   subset: fields, indexes, `*`, `?(@.x=="y")` filters) or its one `Age` column;
//!   `includeObject` and `noHeaders` honoured; a watch sends the column definitions with
//!   its first event only. Services default to `type: ClusterIP` but get no cluster IP.
//!   Endpoints and EndpointSlices get the default `Name` and `Created At` columns (a
//!   real server prints their addresses and ports).
//! - **Simplifications**: CRD status (Established, NamesAccepted) is set in the same
//!   write that creates the CRD; pods are deleted at once (no kubelet, no grace
//!   period); Endpoints and EndpointSlices are stored as written (no controller fills
//!   them from Services and pods); core and `events.k8s.io` Events are separate
//!   stores; list items carry `apiVersion`/`kind`; objects of every CRD version share
//!   one store, and with conversion strategy `None` differ only in `apiVersion` (see
//!   *CRD conversion*).
//! - **Client**: [`ApiServer::client`] has kube's automatic retries of 429/503/504 turned
//!   off so tests see every answer; [`ApiServer::kube_config`] gives kube's defaults.

mod builtin;
mod http;
mod store;
mod verbs;

/// Throwaway certificates for tests of TLS servers (feature `certs`).
#[cfg(feature = "certs")]
pub use http::certs;
pub use http::server::{ApiServer, Error, Faults, Result};
/// The request verb faults match on: the runtime's one [`Verb`](kubegen_runtime::error::Verb).
pub use kubegen_runtime::error::Verb;
pub use store::faults::{Delay, Failure, Matcher};
pub use store::shared::{ApiServerConfig, ShardSelectors};
