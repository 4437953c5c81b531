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
