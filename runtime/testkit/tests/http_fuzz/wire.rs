//! Sends a generated request over a fresh HTTP/1.1 connection and reads the answer,
//! reporting a dropped connection or a hang instead of panicking. The bytes on the wire
//! are the testkit tests' one raw HTTP client's ([`crate::testkit_support`]); what is
//! particular here is reading with deadlines and cutting an open watch short.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

pub use crate::testkit_support::Response;
use crate::testkit_support::head_end;

use super::request::FuzzRequest;

/// How long a request may go without an answer before it counts as a hang (a watch
/// counts as streaming once its headers arrived).
const HANG: Duration = Duration::from_secs(30);
/// How long an open watch is read for before the client closes it.
const WATCH_READ: Duration = Duration::from_millis(30);

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
    Response::parse(&received, streaming).map_err(|e| format!("{e} (write error: {write_error:?})"))
}
