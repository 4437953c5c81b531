//! The `kubegen-apiserver` binary: it prints a kubeconfig path that a kube client can use,
//! and on SIGTERM it stops and removes that kubeconfig.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, ListParams};

#[tokio::test]
async fn the_binary_serves_the_api_and_prints_its_kubeconfig() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubegen-apiserver"))
        .args(["--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn kubegen-apiserver");
    let stdout = child.stdout.take().expect("stdout");
    let mut first_line = String::new();
    BufReader::new(stdout)
        .read_line(&mut first_line)
        .expect("read kubeconfig path");
    let path = first_line.trim().to_owned();
    // Everything that can fail runs before the child is stopped, without panicking.
    let result: Result<Vec<String>, String> = async {
        let kubeconfig = kube::config::Kubeconfig::read_from(&path).map_err(|e| e.to_string())?;
        let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
            .await
            .map_err(|e| e.to_string())?;
        let client = kube::Client::try_from(config).map_err(|e| e.to_string())?;
        let namespaces: Api<Namespace> = Api::all(client);
        let list = namespaces
            .list(&ListParams::default())
            .await
            .map_err(|e| e.to_string())?;
        Ok(list
            .items
            .into_iter()
            .filter_map(|n| n.metadata.name)
            .collect())
    }
    .await;
    let stopped = terminate(&mut child);
    let names = result.expect("list namespaces through the printed kubeconfig");
    assert!(names.contains(&"default".to_owned()), "{names:?}");
    let status = stopped.expect("kubegen-apiserver stops on SIGTERM");
    assert!(status.success(), "kubegen-apiserver exited with {status}");
    assert!(
        !std::path::Path::new(&path).exists(),
        "{path} is left behind after a clean stop"
    );
}

/// Sends SIGTERM (with `kill`, as a service manager would) and waits for the exit. A child
/// still running after a generous deadline is killed, and that is an error.
fn terminate(child: &mut Child) -> Result<ExitStatus, String> {
    let sent = Command::new("kill")
        .arg(child.id().to_string())
        .status()
        .map_err(|e| format!("run kill: {e}"));
    let deadline = Instant::now() + Duration::from_secs(30);
    while sent.as_ref().is_ok_and(ExitStatus::success) && Instant::now() < deadline {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("wait: {e}")),
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    Err(match sent {
        Ok(status) if status.success() => "still running 30 s after SIGTERM".to_owned(),
        Ok(status) => format!("kill exited with {status}"),
        Err(e) => e,
    })
}
