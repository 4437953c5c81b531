//! Fault injection: make the server misbehave on purpose so reliability tests can prove
//! that caches and controllers converge anyway.

use std::time::Duration;

use crate::store::status::ApiError;
use kubegen_runtime::error::Verb;

/// Which requests a fault applies to: every field left unset matches anything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Matcher {
    verb: Option<Verb>,
    resource: Option<String>,
}

impl Matcher {
    /// Matches every resource request.
    pub fn any() -> Self {
        Self::default()
    }

    /// Only requests with this verb.
    pub fn verb(mut self, verb: Verb) -> Self {
        self.verb = Some(verb);
        self
    }

    /// Only requests for this resource: a plural (`"configmaps"`, any subresource
    /// included) or `plural/subresource` (`"deployments/status"`).
    pub fn resource(mut self, resource: impl Into<String>) -> Self {
        self.resource = Some(resource.into());
        self
    }

    pub(crate) fn matches(&self, verb: Verb, plural: &str, subresource: Option<&str>) -> bool {
        let verb_ok = self.verb.is_none_or(|v| v == verb);
        let resource_ok =
            self.resource
                .as_deref()
                .is_none_or(|wanted| match wanted.split_once('/') {
                    Some((p, s)) => p == plural && Some(s) == subresource,
                    None => wanted == plural,
                });
        verb_ok && resource_ok
    }
}

/// Fail the next `times` requests matching `matcher` with HTTP `code`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    matcher: Matcher,
    code: u16,
    times: usize,
    retry_after: Option<Duration>,
}

impl Failure {
    /// Fails the next matching request (see [`Failure::times`]) with `code` and the
    /// reason a real server gives for it (500 InternalError, 429 TooManyRequests, 409
    /// Conflict, 503 ServiceUnavailable, ...).
    pub fn status(code: u16) -> Self {
        Self {
            matcher: Matcher::any(),
            code,
            times: 1,
            retry_after: None,
        }
    }

    /// How many matching requests fail (default 1).
    pub fn times(mut self, times: usize) -> Self {
        self.times = times;
        self
    }

    /// Which requests fail.
    pub fn matching(mut self, matcher: Matcher) -> Self {
        self.matcher = matcher;
        self
    }

    /// Sends `Retry-After` (whole seconds) and `details.retryAfterSeconds`, as 429s do.
    pub fn retry_after(mut self, after: Duration) -> Self {
        self.retry_after = Some(after);
        self
    }
}

/// Delay responses to requests matching `matcher`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delay {
    matcher: Matcher,
    by: Duration,
}

impl Delay {
    /// Delays every matching request by `by` before it is served.
    pub fn new(by: Duration) -> Self {
        Self {
            matcher: Matcher::any(),
            by,
        }
    }

    /// Which requests are delayed (default: all).
    pub fn matching(mut self, matcher: Matcher) -> Self {
        self.matcher = matcher;
        self
    }
}

/// Armed faults, consulted by every resource request.
#[derive(Debug, Default)]
pub(crate) struct FaultState {
    failures: Vec<Failure>,
    delays: Vec<Delay>,
}

impl FaultState {
    /// Adds a failure for the next matching requests.
    pub(crate) fn fail(&mut self, failure: Failure) {
        self.failures.push(failure);
    }

    /// Adds latency to every matching request.
    pub(crate) fn delay(&mut self, delay: Delay) {
        self.delays.push(delay);
    }

    /// Removes every failure and delay.
    pub(crate) fn clear(&mut self) {
        self.failures.clear();
        self.delays.clear();
    }

    /// The total delay for a request, and the failure it must answer with (consuming one).
    pub(crate) fn on_request(
        &mut self,
        verb: Verb,
        plural: &str,
        sub: Option<&str>,
    ) -> (Duration, Option<ApiError>) {
        let delay = self
            .delays
            .iter()
            .filter(|d| d.matcher.matches(verb, plural, sub))
            .map(|d| d.by)
            .sum();
        let failure = self
            .failures
            .iter_mut()
            .find(|f| f.times > 0 && f.matcher.matches(verb, plural, sub))
            .map(|f| {
                f.times -= 1;
                let retry_after = f.retry_after.map(|d| d.as_secs_f64().ceil() as u64);
                ApiError::injected(f.code, retry_after)
            });
        self.failures.retain(|f| f.times > 0);
        (delay, failure)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_consumed_by_matching_requests_only() {
        let mut state = FaultState::default();
        state.failures.push(
            Failure::status(429)
                .times(2)
                .retry_after(Duration::from_millis(1500))
                .matching(Matcher::any().verb(Verb::List).resource("pods")),
        );
        assert!(state.on_request(Verb::Get, "pods", None).1.is_none());
        assert!(state.on_request(Verb::List, "configmaps", None).1.is_none());
        let first = state.on_request(Verb::List, "pods", None).1.expect("first");
        assert_eq!(
            (first.code, first.reason, first.retry_after),
            (429, "TooManyRequests", Some(2))
        );
        assert!(state.on_request(Verb::List, "pods", None).1.is_some());
        assert!(state.on_request(Verb::List, "pods", None).1.is_none());
    }

    #[test]
    fn subresource_matchers() {
        let status = Matcher::any().resource("deployments/status");
        assert!(status.matches(Verb::Update, "deployments", Some("status")));
        assert!(!status.matches(Verb::Update, "deployments", None));
        assert!(Matcher::any().resource("deployments").matches(
            Verb::Update,
            "deployments",
            Some("scale")
        ));
    }

    #[test]
    fn delays_add_up() {
        let mut state = FaultState::default();
        state.delays.push(Delay::new(Duration::from_millis(5)));
        state
            .delays
            .push(Delay::new(Duration::from_millis(7)).matching(Matcher::any().verb(Verb::Create)));
        assert_eq!(
            state.on_request(Verb::Create, "pods", None).0,
            Duration::from_millis(12)
        );
        assert_eq!(
            state.on_request(Verb::Get, "pods", None).0,
            Duration::from_millis(5)
        );
    }
}
