//! Small metrics traits shared by every runtime component.
