//! The `kubegen-apiserver` binary: it prints a kubeconfig path that a kube client can use.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

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
    child.kill().expect("stop the child we started");
    child.wait().expect("reap");
    let names = result.expect("list namespaces through the printed kubeconfig");
    assert!(names.contains(&"default".to_owned()), "{names:?}");
}
