//! One open watch: the channel its events arrive on, the switch that kills it, its
//! deadline and bookmark timer. The HTTP layer turns it into a response body.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, Interval};

use crate::store::shared::Shared;
use crate::store::watch::WatchItem;

/// One open watch, as its stream reads it; unregisters itself when dropped.
pub(crate) struct Subscription {
    pub(crate) shared: Arc<Shared>,
    /// None for a stream that only reports an error.
    pub(crate) id: Option<u64>,
    pub(crate) rx: mpsc::UnboundedReceiver<WatchItem>,
    pub(crate) kill: watch::Receiver<u64>,
    pub(crate) deadline: Instant,
    pub(crate) bookmarks: Option<Interval>,
    pub(crate) finished: bool,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            self.shared.lock().watchers.remove(id);
        }
    }
}

async fn tick(interval: &mut Option<Interval>) {
    match interval {
        Some(interval) => {
            interval.tick().await;
        }
        None => std::future::pending::<()>().await,
    }
}

impl Subscription {
    /// A bookmark interval whose first tick is one period from now.
    pub(crate) fn bookmark_interval(period: Duration) -> Interval {
        let mut interval = tokio::time::interval_at(Instant::now() + period, period);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        interval
    }

    /// The next item to send, or `None` when the watch ends (killed, timed out, or
    /// after an error).
    pub(crate) async fn next(&mut self) -> Option<WatchItem> {
        if self.finished {
            return None;
        }
        loop {
            tokio::select! {
                biased;
                _ = self.kill.changed() => return None,
                _ = tokio::time::sleep_until(self.deadline) => return None,
                item = self.rx.recv() => {
                    let item = item?;
                    if matches!(item, WatchItem::Error(_)) {
                        self.finished = true;
                    }
                    return Some(item);
                }
                _ = tick(&mut self.bookmarks) => {
                    if let Some(id) = self.id {
                        let mut cluster = self.shared.lock();
                        let rv = cluster.current_rv();
                        cluster.watchers.periodic_bookmark(id, rv);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, SocketAddr};

    use super::*;
    use crate::store::registry::StorageKey;
    use crate::store::shared::ApiServerConfig;
    use crate::store::storage::Cluster;
    use crate::store::watch::Filter;

    fn shared() -> Arc<Shared> {
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
        Arc::new(Shared::new(
            Cluster::new(10),
            ApiServerConfig::default(),
            address,
        ))
    }

    fn open(shared: &Arc<Shared>, timeout: Duration) -> Subscription {
        let storage = StorageKey {
            group: String::new(),
            plural: "configmaps".to_owned(),
        };
        let initial = vec![WatchItem::Bookmark {
            rv: 1,
            initial_end: false,
        }];
        let (id, rx) = shared
            .lock()
            .watchers
            .register(storage, Filter::default(), true, initial);
        Subscription {
            shared: shared.clone(),
            id: Some(id),
            rx,
            kill: shared.kill_receiver(),
            deadline: Instant::now() + timeout,
            bookmarks: None,
            finished: false,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_paused_watch_still_ends_at_its_timeout() {
        let shared = shared();
        shared.lock().watchers.pause();
        let mut subscription = open(&shared, Duration::from_secs(2));
        let opened = Instant::now();
        assert!(subscription.next().await.is_none(), "a held item was sent");
        assert_eq!(opened.elapsed(), Duration::from_secs(2));
        drop(subscription);
        assert_eq!(
            shared.lock().watchers.len(),
            0,
            "the ended watch unregistered"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_killed_watch_ends_even_while_paused() {
        let shared = shared();
        shared.lock().watchers.pause();
        let mut subscription = open(&shared, Duration::from_secs(60));
        shared.kill_watches();
        let opened = Instant::now();
        assert!(subscription.next().await.is_none());
        assert_eq!(opened.elapsed(), Duration::ZERO);
    }
}
