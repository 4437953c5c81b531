//! A generated request: what goes on the wire, and what the generator meant by it.

use std::fmt;

use crate::testkit_support::request_bytes;

/// What a request's path addresses, as the generator built it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// A kind's collection (list, watch, create, deletecollection).
    Collection,
    /// One named object.
    Object,
    /// A subresource of a named object (`status`, `scale` or garbage).
    Subresource(String),
    /// Discovery, version, health or OpenAPI documents.
    Discovery,
    /// A path that names nothing (unknown group, version, resource or extra segments).
    Unknown,
}

/// One request, with the generator's intent kept for the checks.
#[derive(Debug, Clone)]
pub struct FuzzRequest {
    pub method: String,
    /// Path and query, already encoded for the request line.
    pub target: String,
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
    /// Index into [`super::kinds::KINDS`] when the path addresses a served kind.
    pub kind: Option<usize>,
    pub shape: Shape,
    /// The namespace in the path, if any.
    pub namespace: Option<String>,
    /// The name in the path, if any.
    pub name: Option<String>,
    /// Whether the request asks for a dry run (query or DeleteOptions).
    pub dry_run: bool,
    /// Whether the query asks for a watch.
    pub watch: bool,
}

impl FuzzRequest {
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_slice())
    }

    /// The media type of the Content-Type header (None when absent).
    pub fn content_type(&self) -> Option<String> {
        self.header("content-type").map(|v| {
            String::from_utf8_lossy(v)
                .split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_owned()
        })
    }

    pub fn has_query(&self, key: &str) -> bool {
        self.target
            .split_once('?')
            .is_some_and(|(_, q)| q.split('&').any(|kv| kv.split('=').next() == Some(key)))
    }

    /// The request as bytes on the wire (`Connection: close`, exact Content-Length).
    pub fn to_bytes(&self, host: &str) -> Vec<u8> {
        let headers = self.headers.iter().map(|(k, v)| (k.as_str(), v.as_slice()));
        request_bytes(&self.method, &self.target, host, headers, &self.body)
    }
}

impl fmt::Display for FuzzRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {}", self.method, self.target)?;
        for (name, value) in &self.headers {
            writeln!(f, "{name}: {}", String::from_utf8_lossy(value))?;
        }
        let body = String::from_utf8_lossy(&self.body);
        let shown: String = body.chars().take(2000).collect();
        write!(f, "body ({} bytes): {shown}", self.body.len())?;
        if shown.len() < body.len() {
            write!(f, "...")?;
        }
        Ok(())
    }
}
