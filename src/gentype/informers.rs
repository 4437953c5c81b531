//! [`InformerFactory`]: the shared informer factory generated informer accessors use,
//! and [`Informer`], what they hand out for one kind.

use std::fmt::Debug;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use kube::Resource;
use kubegen_runtime::client::ApiScope;
use kubegen_runtime::factory::{InformerOptions, SharedInformerFactory};
use kubegen_runtime::informer::SharedInformer;
use kubegen_runtime::lister::Lister;
use serde::de::DeserializeOwned;

type Tweak = Arc<dyn Fn(&mut InformerOptions) + Send + Sync>;

/// A [`SharedInformerFactory`] with the options every informer it hands out gets: one
/// namespace, label and field selectors, and a tweak hook (client-go's
/// `WithNamespace`, `WithTweakListOptions`). Informers stay shared per
/// (type, options) by the underlying factory, however many controllers ask.
///
/// ```no_run
/// # fn demo(client: kube::Client) {
/// use kubegen::gentype::InformerFactory;
/// use kubegen::runtime::factory::SharedInformerFactory;
///
/// let factory = InformerFactory::new(SharedInformerFactory::new(client))
///     .namespace("default")
///     .label_selector("app=web")
///     .tweak(|options| options.field_selector = Some("metadata.name!=skip".into()));
/// # }
/// ```
#[derive(Clone)]
pub struct InformerFactory {
    shared: SharedInformerFactory,
    options: InformerOptions,
    tweak: Option<Tweak>,
}

impl Debug for InformerFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InformerFactory")
            .field("shared", &self.shared)
            .field("options", &self.options)
            .field("tweak", &self.tweak.is_some())
            .finish()
    }
}

impl InformerFactory {
    /// Informers from `shared`, over all namespaces and without selectors.
    pub fn new(shared: SharedInformerFactory) -> Self {
        Self {
            shared,
            options: InformerOptions::default(),
            tweak: None,
        }
    }

    /// Only objects of `namespace` (ignored for cluster-scoped kinds).
    #[must_use]
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.options.namespace = Some(namespace.into());
        self
    }

    /// Only objects matching this label selector.
    #[must_use]
    pub fn label_selector(mut self, selector: impl Into<String>) -> Self {
        self.options.label_selector = Some(selector.into());
        self
    }

    /// Only objects matching this field selector.
    #[must_use]
    pub fn field_selector(mut self, selector: impl Into<String>) -> Self {
        self.options.field_selector = Some(selector.into());
        self
    }

    /// A hook that adjusts the options of every informer this factory hands out.
    #[must_use]
    pub fn tweak(mut self, tweak: impl Fn(&mut InformerOptions) + Send + Sync + 'static) -> Self {
        self.tweak = Some(Arc::new(tweak));
        self
    }

    /// The options informers of this factory get (the tweak applied).
    pub fn options(&self) -> InformerOptions {
        let mut options = self.options.clone();
        if let Some(tweak) = &self.tweak {
            tweak(&mut options);
        }
        options
    }

    /// The shared informer of `K` for these options.
    pub fn informer<K>(&self) -> SharedInformer<K>
    where
        K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        K::Scope: ApiScope,
    {
        self.shared.informer_with::<K>(&(), self.options())
    }

    /// The underlying factory: `start()`, `wait_for_cache_sync()`, `shutdown()`.
    pub fn shared(&self) -> &SharedInformerFactory {
        &self.shared
    }

    /// Starts every informer requested so far.
    pub fn start(&self) {
        self.shared.start();
    }

    /// Waits until every started informer has synced, or `timeout`; reports per type.
    pub async fn wait_for_cache_sync(
        &self,
        timeout: Duration,
    ) -> std::collections::BTreeMap<String, bool> {
        self.shared.wait_for_cache_sync(timeout).await
    }

    /// Stops every informer.
    pub async fn shutdown(&self) {
        self.shared.shutdown().await;
    }
}

/// The shared informer of one kind `K` from an [`InformerFactory`], as generated
/// accessors hand it out (`factory.core().v1().pods()`, client-go's `PodInformer`).
pub struct Informer<K> {
    factory: InformerFactory,
    kind: PhantomData<fn() -> K>,
}

impl<K> Clone for Informer<K> {
    fn clone(&self) -> Self {
        Self {
            factory: self.factory.clone(),
            kind: PhantomData,
        }
    }
}

impl<K> Debug for Informer<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Informer")
            .field("kind", &std::any::type_name::<K>())
            .field("factory", &self.factory)
            .finish()
    }
}

impl<K> Informer<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::Scope: ApiScope,
{
    /// The informer of `K` in `factory`.
    pub fn new(factory: InformerFactory) -> Self {
        Self {
            factory,
            kind: PhantomData,
        }
    }

    /// The shared informer (created on first use, shared afterwards).
    pub fn informer(&self) -> SharedInformer<K> {
        self.factory.informer::<K>()
    }

    /// A lister over the shared informer's cache.
    pub fn lister(&self) -> Lister<K> {
        self.informer().lister()
    }
}
