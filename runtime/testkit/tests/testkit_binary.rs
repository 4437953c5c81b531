//! The `kubegen-apiserver` binary: it prints a kubeconfig path that a kube client can use,
//! and on SIGTERM it stops and removes that kubeconfig; its output to a file or a pipe
//! has no colour codes, and `--help` says where the kubeconfig goes.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, ListParams};

#[tokio::test]
async fn the_binary_serves_the_api_and_prints_its_kubeconfig() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubegen-apiserver"))
        .args(["--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn kubegen-apiserver");
    // The logs are read as they come, so the child never blocks on a full pipe.
    let mut stderr = child.stderr.take().expect("stderr");
    let logs = std::thread::spawn(move || {
        let mut logs = Vec::new();
        stderr.read_to_end(&mut logs).map(|_| logs)
    });
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first_line = String::new();
    stdout
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
    // Standard output and error went to pipes, not terminals: plain text only.
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).expect("read stdout");
    let logs = logs
        .join()
        .expect("the stderr reader does not panic")
        .expect("read stderr");
    let text = String::from_utf8_lossy(&logs);
    assert!(text.contains("serving"), "the start is logged: {text}");
    assert!(
        !logs.contains(&0x1b),
        "ESC (a colour code) in the logs: {text:?}"
    );
    assert!(
        !first_line.as_bytes().contains(&0x1b) && !rest.contains(&0x1b),
        "ESC on stdout"
    );
}

#[test]
fn help_says_where_the_kubeconfig_goes_and_how_kubectl_uses_it() {
    let output = Command::new(env!("CARGO_BIN_EXE_kubegen-apiserver"))
        .arg("--help")
        .output()
        .expect("run kubegen-apiserver --help");
    assert!(output.status.success(), "{output:?}");
    let help = String::from_utf8_lossy(&output.stdout);
    for needle in [
        "kubegen-testkit-<pid>-<port>/kubeconfig",
        "$TMPDIR",
        "first line of standard output",
        "removed when the server stops",
        "export KUBECONFIG=",
        "kubectl get namespaces",
        "kubectl --kubeconfig",
    ] {
        assert!(help.contains(needle), "--help lacks {needle:?}:\n{help}");
    }
    assert!(!output.stdout.contains(&0x1b), "ESC in --help to a pipe");
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
