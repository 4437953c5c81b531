//! `retry_on_conflict`: client-go's `retry.RetryOnConflict` with its backoff values, on
//! the runtime's one [`Backoff`].

use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;

use crate::backoff::{Backoff, Delays};
use crate::error::Error;

/// client-go's `retry.DefaultRetry`: 5 attempts, 10 ms apart (factor 1.0, jitter 0.1).
/// For conflicts with other writers of an object the caller owns.
pub const DEFAULT_RETRY: Backoff = Backoff {
    steps: 5,
    duration: Duration::from_millis(10),
    factor: 1.0,
    jitter: 0.1,
    cap: None,
    reset_after: None,
};

/// client-go's `retry.DefaultBackoff`: 4 attempts starting at 10 ms, factor 5.0, jitter
/// 0.1. For conflicts with controllers actively managing the same object.
pub const DEFAULT_BACKOFF: Backoff = Backoff {
    steps: 4,
    duration: Duration::from_millis(10),
    factor: 5.0,
    jitter: 0.1,
    cap: None,
    reset_after: None,
};

/// Runs `attempt` until it succeeds or fails with something other than a conflict, at
/// most `backoff.steps` times (at least once), sleeping the backoff's delays between
/// attempts (tokio time); returns the last result. Each attempt should read the latest
/// object and apply its change again.
///
/// ```no_run
/// # async fn demo(client: kubegen_runtime::client::TypedClient<k8s_openapi::api::core::v1::ConfigMap>) -> Result<(), kubegen_runtime::error::Error> {
/// use kubegen_runtime::client::{retry_on_conflict, DEFAULT_RETRY};
///
/// retry_on_conflict(DEFAULT_RETRY, || async {
///     let mut cm = client.get("settings").await?;
///     cm.data.get_or_insert_default().insert("mode".into(), "fast".into());
///     client.update(&cm).await
/// })
/// .await?;
/// # Ok(()) }
/// ```
pub async fn retry_on_conflict<T, F, Fut>(backoff: Backoff, attempt: F) -> Result<T, Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, Error>>,
{
    retry_on_error(backoff, Error::is_conflict, attempt).await
}

/// Like [`retry_on_conflict`] for any retriable error (client-go's `retry.OnError`).
///
/// Unlike client-go's `wait.ExponentialBackoff`, reaching [`Backoff::cap`] does not end
/// the attempts early: `steps` alone counts them.
pub async fn retry_on_error<T, F, Fut>(
    backoff: Backoff,
    retriable: impl Fn(&Error) -> bool,
    mut attempt: F,
) -> Result<T, Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, Error>>,
{
    let steps = backoff.steps.max(1);
    let mut delays = Delays::new(backoff);
    let mut attempts = 0;
    loop {
        attempts += 1;
        match attempt().await {
            Err(err) if attempts < steps && retriable(&err) => {
                tokio::time::sleep(delays.next(Instant::now())).await;
            }
            result => return result,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::error::{Operation, Verb};
    use kube::core::Status;

    fn conflict() -> Error {
        Error::Api {
            operation: Box::new(Operation {
                verb: Verb::Update,
                resource: "configmaps".into(),
                subresource: None,
                namespace: None,
                name: Some("x".into()),
            }),
            source: kube::Error::Api(Status::failure("stale", "Conflict").with_code(409).boxed()),
        }
    }

    #[test]
    fn delays_follow_client_go_schedules() {
        let now = Instant::now();
        let mut retry = Delays::new(DEFAULT_RETRY);
        for _ in 1..=4 {
            let d = retry.next(now);
            assert!(
                d >= Duration::from_millis(10) && d <= Duration::from_millis(11),
                "{d:?}"
            );
        }
        let mut backoff = Delays::new(DEFAULT_BACKOFF);
        let third = (0..3).map(|_| backoff.next(now)).last().unwrap();
        assert!(third >= Duration::from_millis(250) && third <= Duration::from_millis(275));
        let capped = Backoff {
            cap: Some(Duration::from_millis(30)),
            jitter: 0.0,
            ..DEFAULT_BACKOFF
        };
        let mut capped = Delays::new(capped);
        let fourth = (0..4).map(|_| capped.next(now)).last().unwrap();
        assert_eq!(fourth, Duration::from_millis(30));
    }

    #[tokio::test(start_paused = true)]
    async fn waits_the_schedule_between_attempts_and_ignores_the_cap_for_counting() {
        let start = Instant::now();
        let mut at = Vec::new();
        let capped = Backoff {
            cap: Some(Duration::from_millis(30)),
            jitter: 0.0,
            ..DEFAULT_BACKOFF
        };
        let result: Result<(), _> = retry_on_conflict(capped, || {
            at.push(start.elapsed());
            async { Err(conflict()) }
        })
        .await;
        assert!(result.unwrap_err().is_conflict());
        let ms = |m| Duration::from_millis(m);
        assert_eq!(at, [ms(0), ms(10), ms(40), ms(70)]);
    }

    #[tokio::test(start_paused = true)]
    async fn retries_conflicts_until_success() {
        let mut calls = 0;
        let result = retry_on_conflict(DEFAULT_RETRY, || {
            calls += 1;
            let n = calls;
            async move { if n < 3 { Err(conflict()) } else { Ok(n) } }
        })
        .await;
        assert_eq!(result.unwrap(), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn gives_up_after_steps_with_the_last_conflict() {
        let mut calls = 0;
        let result: Result<(), _> = retry_on_conflict(DEFAULT_BACKOFF, || {
            calls += 1;
            async { Err(conflict()) }
        })
        .await;
        assert!(result.unwrap_err().is_conflict());
        assert_eq!(calls, 4);
    }

    #[tokio::test(start_paused = true)]
    async fn other_errors_are_not_retried() {
        let mut calls = 0;
        let result: Result<(), _> = retry_on_conflict(DEFAULT_RETRY, || {
            calls += 1;
            async {
                Err(Error::Pagination {
                    operation: Box::new(Operation {
                        verb: Verb::List,
                        resource: "configmaps".into(),
                        subresource: None,
                        namespace: None,
                        name: None,
                    }),
                })
            }
        })
        .await;
        assert!(result.is_err());
        assert_eq!(calls, 1);
    }
}
