//! Storage and watch: the cluster state (objects by revision, the type registry, the
//! global resourceVersion and its history), the state shared by handlers, watch streams
//! and handles, watch delivery, selectors, and the `Status` errors every layer returns.
//! It imports nothing from the layers above.

pub(crate) mod event;
pub(crate) mod faults;
pub(crate) mod jsonpath;
pub(crate) mod meta;
pub(crate) mod page;
pub(crate) mod registry;
pub(crate) mod selectors;
pub(crate) mod shared;
pub(crate) mod status;
pub(crate) mod storage;
pub(crate) mod subscription;
pub(crate) mod tokens;
pub(crate) mod watch;
