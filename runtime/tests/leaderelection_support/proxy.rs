//! A TCP proxy in front of the testkit server, one per replica, so that faults hit one
//! replica's link only: cut it (connections reset, new ones refused) or stall it (bytes
//! held back, in order, until the link is up again).

use std::net::{Ipv4Addr, SocketAddr};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The state of one replica's link to the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// Bytes flow both ways.
    Up,
    /// Open connections are dropped, new ones are accepted and closed at once.
    Cut,
    /// Connections stay open but no byte is forwarded until the link is up again
    /// (requests already read are then delivered, late).
    Stalled,
}

/// A proxy from a local port to `target`.
pub struct Proxy {
    address: SocketAddr,
    link: watch::Sender<Link>,
    task: JoinHandle<()>,
}

impl Proxy {
    pub async fn start(target: SocketAddr) -> Self {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .expect("bind proxy");
        let address = listener.local_addr().expect("proxy address");
        let (link, _) = watch::channel(Link::Up);
        let links = link.clone();
        let task = tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                if *links.borrow() == Link::Cut {
                    drop(inbound);
                    continue;
                }
                tokio::spawn(connection(inbound, target, links.subscribe()));
            }
        });
        Self {
            address,
            link,
            task,
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    pub fn set(&self, link: Link) {
        self.link.send_replace(link);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.link.send_replace(Link::Cut);
        self.task.abort();
    }
}

async fn connection(inbound: TcpStream, target: SocketAddr, link: watch::Receiver<Link>) {
    let Ok(outbound) = TcpStream::connect(target).await else {
        return;
    };
    let _ = inbound.set_nodelay(true);
    let _ = outbound.set_nodelay(true);
    let (client_read, client_write) = inbound.into_split();
    let (server_read, server_write) = outbound.into_split();
    tokio::join!(
        pump(client_read, server_write, link.clone()),
        pump(server_read, client_write, link),
    );
}

/// Copies `from` to `to` while the link allows; returns (dropping both halves) when the
/// link is cut or either side closes.
async fn pump(mut from: OwnedReadHalf, mut to: OwnedWriteHalf, mut link: watch::Receiver<Link>) {
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        let mut cut = link.clone();
        let read = tokio::select! {
            read = from.read(&mut buffer) => read,
            _ = cut.wait_for(|l| *l == Link::Cut) => return,
        };
        let n = match read {
            Ok(0) | Err(_) => {
                let _ = to.shutdown().await;
                return;
            }
            Ok(n) => n,
        };
        let state = link.wait_for(|l| *l != Link::Stalled).await.map(|l| *l);
        if !matches!(state, Ok(Link::Up)) {
            return;
        }
        if to.write_all(&buffer[..n]).await.is_err() {
            return;
        }
    }
}
