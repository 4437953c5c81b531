//! Sends a generated request over a fresh HTTP/1.1 connection and reads the answer,
//! reporting a dropped connection or a hang instead of panicking.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::request::FuzzRequest;

/// How long a request may go without an answer before it counts as a hang (a watch
/// counts as streaming once its headers arrived).
const HANG: Duration = Duration::from_secs(30);
/// How long an open watch is read for before the client closes it.
const WATCH_READ: Duration = Duration::from_millis(30);

/// A response as read off the wire.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The body was cut short by the client (an open watch).
    pub streaming: bool,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Result<Value, String> {
        serde_json::from_slice(&self.body).map_err(|e| format!("body is not JSON ({e})"))
    }

    pub fn text(&self) -> String {
        let text = String::from_utf8_lossy(&self.body);
        text.chars().take(2000).collect()
    }
}

fn head_end(bytes: &[u8]) -> Option<usize> {
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

/// Sends `request` and reads the response (or the first moments of a watch stream).
pub async fn send(address: SocketAddr, request: &FuzzRequest) -> Result<Response, String> {
    let mut stream = TcpStream::connect(address)
        .await
        .map_err(|e| format!("connect failed: {e}"))?;
    let bytes = request.to_bytes(&address.to_string());
    // The server may answer (413, 404...) and close before reading a large body.
    let write_error = stream.write_all(&bytes).await.err();
    let mut received = Vec::new();
    let mut buffer = vec![0u8; 64 * 1024];
    let mut streaming = false;
    loop {
        let open_watch =
            request.watch && head_end(&received).is_some() && received.starts_with(b"HTTP/1.1 200");
        let wait = if open_watch { WATCH_READ } else { HANG };
        match tokio::time::timeout(wait, stream.read(&mut buffer)).await {
            Ok(Ok(0)) => break,
            Ok(Ok(n)) => received.extend_from_slice(&buffer[..n]),
            Ok(Err(e)) if head_end(&received).is_none() => {
                return Err(format!(
                    "connection failed before a response: {e} (write error: {write_error:?})"
                ));
            }
            Ok(Err(_)) => break,
            Err(_) if open_watch => {
                streaming = true;
                break;
            }
            Err(_) => return Err(format!("no complete response within {HANG:?}")),
        }
    }
    let Some(split) = head_end(&received) else {
        return Err(format!(
            "connection closed without a response ({} bytes: {:?}; write error: {write_error:?})",
            received.len(),
            String::from_utf8_lossy(&received)
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
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked {
        dechunk(raw_body)?
    } else {
        raw_body.to_vec()
    };
    Ok(Response {
        status,
        headers,
        body,
        streaming,
    })
}
