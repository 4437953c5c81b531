//! A deduplicating, delaying and rate-limiting work queue with client-go's semantics.
