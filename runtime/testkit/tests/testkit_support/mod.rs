//! Shared helpers of the testkit integration tests: a raw HTTP/1.1 client (to read
//! status codes, headers and bodies exactly as sent) and object builders.
#![allow(dead_code, unreachable_pub, missing_docs)]

use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::api::{Api, ObjectMeta, PostParams};
use kubegen_testkit::ApiServer;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A response read off the wire.
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
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
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

fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = body.windows(2).position(|w| w == b"\r\n") {
        let size_line = std::str::from_utf8(&body[..end]).expect("chunk size");
        let size = usize::from_str_radix(size_line.split(';').next().unwrap_or("0").trim(), 16)
            .expect("hex size");
        body = &body[end + 2..];
        if size == 0 {
            break;
        }
        out.extend_from_slice(&body[..size]);
        body = &body[size + 2..];
    }
    out
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
    let (status, headers, body) = raw_bytes(server, method, path, headers, body.as_bytes()).await;
    RawResponse {
        status,
        headers,
        body: String::from_utf8(body).expect("utf-8 body"),
    }
}

/// [`raw_with_headers`] with a binary body, answering status, headers and body bytes.
pub async fn raw_bytes(
    server: &ApiServer,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut stream = TcpStream::connect(server.address()).await.expect("connect");
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
        server.address()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let mut bytes = request.into_bytes();
    bytes.extend_from_slice(body);
    stream.write_all(&bytes).await.expect("write");
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).await.expect("read");
    let split = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("header end");
    let head = String::from_utf8_lossy(&bytes[..split]).to_string();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .expect("status");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let raw_body = &bytes[split + 4..];
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked {
        dechunk(raw_body)
    } else {
        raw_body.to_vec()
    };
    (status, headers, body)
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
