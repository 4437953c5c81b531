//! The types and conversions kubegen generates for this crate's fixture CRD and, when the
//! shared corpus is there (`cfg(corpus)`), for some of its multi-version CRDs (see
//! `build.rs`): `generated` and `conversions`; and the conversions of the hand-written
//! kinds of [`apis`]: `derived_conversions`. The tests convert between their versions.

pub mod apis;

include!(concat!(env!("OUT_DIR"), "/table.rs"));
