//! Shared helpers of the testkit integration tests: the one raw HTTP/1.1 client (to read
//! status codes, headers and bodies exactly as sent; the HTTP fuzz test sends its
//! generated requests through it too) and object builders.
#![allow(dead_code, unreachable_pub, missing_docs)]

use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::api::{Api, ObjectMeta, PostParams};
use kubegen_testkit::ApiServer;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A response read off the wire, its chunked body decoded.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The body was cut short by the client (an open watch, read for a moment).
    pub streaming: bool,
}

impl Response {
    /// Parses the bytes received for one request; a body cut short (an open watch) keeps
    /// what arrived.
    pub fn parse(received: &[u8], streaming: bool) -> Result<Self, String> {
        let Some(split) = head_end(received) else {
            return Err(format!(
                "connection closed without a response ({} bytes: {:?})",
                received.len(),
                String::from_utf8_lossy(received)
            ));
        };
        let head = String::from_utf8_lossy(&received[..split]).to_string();
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| format!("no status line in {head:?}"))?;
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
            .collect();
        let raw_body = &received[split + 4..];
        let chunked = header(&headers, "transfer-encoding").is_some_and(|v| v.contains("chunked"));
        let body = if chunked {
            dechunk(raw_body)?
        } else {
            raw_body.to_vec()
        };
        Ok(Self {
            status,
            headers,
            body,
            streaming,
        })
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    pub fn json(&self) -> Result<Value, String> {
        serde_json::from_slice(&self.body).map_err(|e| format!("body is not JSON ({e})"))
    }

    /// The body as text, cut to 2000 characters.
    pub fn text(&self) -> String {
        let text = String::from_utf8_lossy(&self.body);
        text.chars().take(2000).collect()
    }
}

/// A response with a text body, for tests that read it as such.
#[derive(Debug)]
pub struct RawResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl RawResponse {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    /// The body as watch event lines.
    pub fn lines(&self) -> Vec<Value> {
        self.body
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("watch line is JSON"))
            .collect()
    }
}

/// The value of header `name` (any case).
fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Where a response's head ends (the blank line), once it has arrived.
pub fn head_end(bytes: &[u8]) -> Option<usize> {
    bytes.windows(4).position(|w| w == b"\r\n\r\n")
}

/// Decodes a chunked body; a trailing incomplete chunk (a cut-off stream) is kept.
fn dechunk(mut body: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    while let Some(end) = body.windows(2).position(|w| w == b"\r\n") {
        let line = std::str::from_utf8(&body[..end]).map_err(|_| "chunk size is not text")?;
        let size = usize::from_str_radix(line.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| format!("bad chunk size {line:?}"))?;
        body = &body[end + 2..];
        if size == 0 {
            return Ok(out);
        }
        let take = size.min(body.len());
        out.extend_from_slice(&body[..take]);
        if take < size || body.len() < size + 2 {
            return Ok(out);
        }
        body = &body[size + 2..];
    }
    Ok(out)
}

/// The bytes of one request: `Connection: close` and an exact Content-Length after
/// `headers` (written as given, valid or not).
pub fn request_bytes<'a>(
    method: &str,
    target: &str,
    host: &str,
    headers: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    body: &[u8],
) -> Vec<u8> {
    let mut bytes =
        format!("{method} {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n").into_bytes();
    for (name, value) in headers {
        bytes.extend_from_slice(name.as_bytes());
        bytes.extend_from_slice(b": ");
        bytes.extend_from_slice(value);
        bytes.extend_from_slice(b"\r\n");
    }
    bytes.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
    bytes.extend_from_slice(body);
    bytes
}

/// Sends one request with `Connection: close` and reads the whole response.
pub async fn raw(
    server: &ApiServer,
    method: &str,
    path: &str,
    content_type: Option<&str>,
    body: &str,
) -> RawResponse {
    let headers: Vec<(&str, &str)> = content_type
        .map(|c| ("Content-Type", c))
        .into_iter()
        .collect();
    raw_with(server, method, path, &headers, body).await
}

/// [`raw`] with any request headers (`Accept`, `Content-Type`...).
pub async fn raw_with(
    server: &ApiServer,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> RawResponse {
    let response = raw_bytes(server, method, path, headers, body.as_bytes()).await;
    RawResponse {
        status: response.status,
        headers: response.headers,
        body: String::from_utf8(response.body).expect("utf-8 body"),
    }
}

/// [`raw_with`] with a binary body, answering the body as bytes.
pub async fn raw_bytes(
    server: &ApiServer,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Response {
    let address = server.address();
    let headers = headers.iter().map(|(k, v)| (*k, v.as_bytes()));
    let request = request_bytes(method, path, &address.to_string(), headers, body);
    let mut stream = TcpStream::connect(address).await.expect("connect");
    stream.write_all(&request).await.expect("write");
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).await.expect("read");
    Response::parse(&bytes, false).expect("an HTTP response")
}

/// POSTs `object` as JSON to `path` and checks that it was created (201).
pub async fn create_json(server: &ApiServer, path: &str, object: &Value) -> RawResponse {
    let created = raw(
        server,
        "POST",
        path,
        Some("application/json"),
        &object.to_string(),
    )
    .await;
    assert_eq!(created.status, 201, "POST {path}: {}", created.body);
    created
}

pub async fn get(server: &ApiServer, path: &str) -> RawResponse {
    raw(server, "GET", path, None, "").await
}

pub fn meta(name: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_owned()),
        ..Default::default()
    }
}

pub fn configmap(name: &str, value: &str) -> ConfigMap {
    ConfigMap {
        metadata: meta(name),
        data: Some([("value".to_owned(), value.to_owned())].into()),
        ..Default::default()
    }
}

/// A deployment in `default` selecting `app: NAME`, with no pod template.
pub fn deployment(name: &str, replicas: i32) -> Deployment {
    let labels = [("app".to_owned(), name.to_owned())];
    Deployment {
        metadata: meta(name),
        spec: DeploymentSpec {
            replicas: Some(replicas),
            selector: LabelSelector {
                match_labels: Some(labels.into()),
                ..Default::default()
            },
            template: Default::default(),
            ..Default::default()
        },
        ..Default::default()
    }
}

pub async fn create_namespace(server: &ApiServer, name: &str) {
    let namespaces: Api<Namespace> = Api::all(server.client());
    namespaces
        .create(
            &PostParams::default(),
            &Namespace {
                metadata: meta(name),
                ..Default::default()
            },
        )
        .await
        .expect("create namespace");
}

/// The `kube::Error::Api` code and reason of a failed call.
pub fn api_error<T: std::fmt::Debug>(result: Result<T, kube::Error>) -> (u16, String) {
    match result {
        Err(kube::Error::Api(status)) => (status.code, status.reason.clone()),
        other => panic!("expected an API error, got {other:?}"),
    }
}
