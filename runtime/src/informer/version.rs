//! How far an informer's cache has caught up with the server: the resourceVersion of
//! the last list or watch event (bookmarks included) its reflector applied (client-go's
//! `LastSyncResourceVersion`, and KEP-5647's `LastStoreSyncResourceVersion`).

use std::sync::Arc;

use tokio::sync::watch;

/// A shared view of an informer's last synced resourceVersion; clones share it. Empty
/// until the first list.
#[derive(Clone, Debug)]
pub(crate) struct SyncedVersion(Arc<watch::Sender<String>>);

impl SyncedVersion {
    pub(crate) fn new() -> Self {
        Self(Arc::new(watch::Sender::new(String::new())))
    }

    /// The cache holds the server's state up to `resource_version`: called by the
    /// reflector's sink after the change is in the store.
    pub(crate) fn set(&self, resource_version: &str) {
        self.0.send_if_modified(|current| {
            if current == resource_version {
                return false;
            }
            resource_version.clone_into(current);
            true
        });
    }

    /// The last resourceVersion set ("" before the first list).
    pub(crate) fn get(&self) -> String {
        self.0.borrow().clone()
    }

    /// Whether `other` is a view of the same informer.
    pub(crate) fn same(&self, other: &SyncedVersion) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_latest_version() {
        let version = SyncedVersion::new();
        let reader = version.clone();
        assert_eq!(reader.get(), "");
        version.set("17");
        version.set("18");
        assert_eq!(reader.get(), "18");
    }
}
