//! Reading a Prometheus registry back in tests: the text exposition as a map.

#![allow(clippy::unwrap_used)] // tests: a failed call is a failed test

use std::collections::BTreeMap;

use prometheus_client::registry::Registry;

/// Every sample line of the text exposition, as `series -> value`.
pub(crate) fn scrape(registry: &Registry) -> BTreeMap<String, f64> {
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, registry).unwrap();
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .map(|line| {
            let (series, value) = line.rsplit_once(' ').unwrap();
            (series.to_owned(), value.parse().unwrap())
        })
        .collect()
}
