//! A scripted election record: in memory, with resourceVersion semantics, recording
//! every call, failing or hanging on demand.

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use kube::core::Status;
use tokio::time::Instant;

use super::super::lock::{LeaseLock, Versioned};
use super::super::record::LeaseRecord;
use super::super::{Error, Result};

/// One call the elector made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Call {
    Get,
    Create(String),
    Update(String),
}

/// How the store answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    Healthy,
    /// Every call fails with a 500.
    Failing,
    /// Every call hangs forever.
    Hanging,
}

#[derive(Debug)]
pub(super) struct Inner {
    record: Option<LeaseRecord>,
    version: u64,
    mode: Mode,
    calls: Vec<(Instant, Call)>,
    /// Applied at the start of the next update, as if another replica wrote first.
    pub(super) interloper: Option<LeaseRecord>,
}

/// An in-memory election record with resourceVersion semantics, recording every call.
#[derive(Clone, Debug)]
pub(super) struct ScriptedLock(Arc<Mutex<Inner>>);

impl ScriptedLock {
    pub(super) fn new(record: Option<LeaseRecord>) -> Self {
        Self(Arc::new(Mutex::new(Inner {
            version: u64::from(record.is_some()),
            record,
            mode: Mode::Healthy,
            calls: Vec::new(),
            interloper: None,
        })))
    }

    pub(super) fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.0.lock().unwrap()
    }

    pub(super) fn record(&self) -> LeaseRecord {
        self.inner().record.clone().expect("a record")
    }

    /// Another replica writes `record`.
    pub(super) fn set(&self, record: LeaseRecord) {
        let mut inner = self.inner();
        inner.record = Some(record);
        inner.version += 1;
    }

    /// Someone changes the object without touching the election's fields.
    pub(super) fn bump_version(&self) {
        self.inner().version += 1;
    }

    pub(super) fn mode(&self, mode: Mode) {
        self.inner().mode = mode;
    }

    pub(super) fn calls(&self) -> Vec<(Instant, Call)> {
        self.inner().calls.clone()
    }

    fn answer<T: Send + 'static>(
        &self,
        call: Call,
        apply: impl FnOnce(&mut Inner) -> Result<T> + Send + 'static,
    ) -> BoxFuture<'static, Result<T>> {
        let this = self.clone();
        Box::pin(async move {
            let mode = {
                let mut inner = this.inner();
                inner.calls.push((Instant::now(), call));
                inner.mode
            };
            match mode {
                Mode::Healthy => apply(&mut this.inner()),
                Mode::Failing => Err(Error::Api {
                    action: "update",
                    lease: "default/test".into(),
                    source: kube::Error::Api(
                        Status::failure("boom", "InternalError")
                            .with_code(500)
                            .boxed(),
                    ),
                }),
                Mode::Hanging => futures::future::pending().await,
            }
        })
    }
}

fn conflict() -> Error {
    Error::Conflict {
        lease: "default/test".into(),
    }
}

impl LeaseLock for ScriptedLock {
    fn get(&self) -> BoxFuture<'_, Result<Option<Versioned>>> {
        self.answer(Call::Get, |inner| {
            Ok(inner.record.clone().map(|record| Versioned {
                record,
                version: inner.version.to_string(),
            }))
        })
    }

    fn create(&self, record: LeaseRecord) -> BoxFuture<'_, Result<String>> {
        self.answer(Call::Create(record.holder.clone()), move |inner| {
            if inner.record.is_some() {
                return Err(conflict());
            }
            inner.record = Some(record);
            inner.version += 1;
            Ok(inner.version.to_string())
        })
    }

    fn update(&self, record: LeaseRecord, version: String) -> BoxFuture<'_, Result<String>> {
        self.answer(Call::Update(record.holder.clone()), move |inner| {
            if let Some(other) = inner.interloper.take() {
                inner.record = Some(other);
                inner.version += 1;
            }
            if inner.record.is_none() || version != inner.version.to_string() {
                return Err(conflict());
            }
            inner.record = Some(record);
            inner.version += 1;
            Ok(inner.version.to_string())
        })
    }

    fn describe(&self) -> String {
        "default/test".into()
    }
}
