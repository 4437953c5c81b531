//! Small metrics traits shared by every runtime component.
pub mod informer;
