//! A plain HTTP/1.1 GET, for the tests of the operator's probe and metrics endpoints.

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A GET of `path` over a new connection to `address`: the status line and the body.
pub(crate) async fn get(address: std::net::SocketAddr, path: &str) -> (String, String) {
    let mut stream = tokio::net::TcpStream::connect(address)
        .await
        .expect("connect");
    let request = format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).await.expect("read");
    let (head, body) = response
        .split_once("\r\n\r\n")
        .expect("a response with a head and a body");
    let status = head.lines().next().unwrap_or_default().to_owned();
    (status, body.to_owned())
}
