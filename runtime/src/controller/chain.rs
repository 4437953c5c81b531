//! One readable line for an error and its causes.

use std::error::Error as StdError;
use std::fmt;

/// Displays an error and each of its sources, `: `-separated, on one line: what a log
/// line or a binary's last words should show.
///
/// A server's refusal reaches kubegen as a `kube::Error::Api`, whose own `Display`
/// appends a `Debug` dump of the whole `Status`; that link of the chain is skipped and
/// the `Status` that follows it speaks instead (`<message>: <reason>`).
///
/// ```
/// use kubegen_runtime::controller::ErrorChain;
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("failed to sync foo default/web")]
/// struct SyncError(#[source] std::io::Error);
///
/// let error = SyncError(std::io::Error::other("connection reset"));
/// assert_eq!(
///     ErrorChain(&error).to_string(),
///     "failed to sync foo default/web: connection reset"
/// );
/// ```
#[derive(Clone, Copy)]
pub struct ErrorChain<'a>(pub &'a (dyn StdError + 'static));

impl fmt::Display for ErrorChain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut cause = self.0.source();
        while let Some(error) = cause {
            if !is_kube_api_error(error) {
                write!(f, ": {error}")?;
            }
            cause = error.source();
        }
        Ok(())
    }
}

impl fmt::Debug for ErrorChain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Whether `error` is kube's wrapper of a server `Status` (whose source is the `Status`).
fn is_kube_api_error(error: &(dyn StdError + 'static)) -> bool {
    matches!(
        error.downcast_ref::<kube::Error>(),
        Some(kube::Error::Api(_))
    )
}

#[cfg(test)]
mod tests {
    use kube::core::Status;

    use super::*;

    /// Shaped like the client's errors: an operation, then kube's error as the source.
    #[derive(Debug, thiserror::Error)]
    #[error("failed to update status of foos \"web\" in namespace \"default\"")]
    struct UpdateFailed(#[source] kube::Error);

    #[test]
    fn a_server_refusal_is_one_line_without_a_debug_dump() {
        let status = Status {
            code: 409,
            message: "Operation cannot be fulfilled on foos \"web\": the object has been modified"
                .into(),
            reason: "Conflict".into(),
            ..Default::default()
        };
        let error = UpdateFailed(kube::Error::Api(Box::new(status)));
        let line = ErrorChain(&error).to_string();
        assert_eq!(
            line,
            "failed to update status of foos \"web\" in namespace \"default\": \
             Operation cannot be fulfilled on foos \"web\": the object has been modified: Conflict"
        );
        assert!(!line.contains('\n') && !line.contains("Status {"));
    }

    #[test]
    fn other_causes_are_chained_in_order() {
        #[derive(Debug, thiserror::Error)]
        #[error("outer")]
        struct Outer(#[source] Middle);
        #[derive(Debug, thiserror::Error)]
        #[error("middle")]
        struct Middle(#[source] std::io::Error);

        let error = Outer(Middle(std::io::Error::other("inner")));
        assert_eq!(ErrorChain(&error).to_string(), "outer: middle: inner");
        assert_eq!(format!("{:?}", ErrorChain(&error)), "outer: middle: inner");
    }
}
