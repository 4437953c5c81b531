//! Runs the real `kubectl` against the testkit API server, as a user who starts an
//! example with `--keep-running` would: a kubeconfig for the embedded server on
//! 127.0.0.1 in a temporary directory (`KUBECONFIG`), a private `HOME` and discovery
//! cache, and nothing reaching beyond loopback.
//!
//! When `kubectl` is not on `PATH`, [`Kubectl::start`] prints `skipped: kubectl not
//! found` and answers `None`, and the tests pass without running it (`.ci/run` tries
//! to install Debian's `kubernetes-client` first).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use kubegen_testkit::{ApiServer, ApiServerConfig};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStderr, ChildStdout, Command};

/// The `kubectl` on `PATH`, if any.
pub fn find() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("kubectl"))
        .find(|candidate| candidate.is_file())
}

/// What one kubectl run returned.
#[derive(Debug)]
pub struct Output {
    /// The exit code (`None` when killed by a signal).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Output {
    /// Whether kubectl exited with 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

/// A running `kubectl get -w` (or any long-running command), read line by line.
#[derive(Debug)]
pub struct Watching {
    child: Child,
    stdout: Lines<BufReader<ChildStdout>>,
    stderr: Lines<BufReader<ChildStderr>>,
}

async fn next<R: tokio::io::AsyncBufRead + Unpin>(
    lines: &mut Lines<R>,
    timeout: Duration,
) -> String {
    match tokio::time::timeout(timeout, lines.next_line()).await {
        Ok(Ok(Some(line))) => line,
        Ok(Ok(None)) => panic!("kubectl ended its output"),
        Ok(Err(e)) => panic!("reading kubectl's output: {e}"),
        Err(_) => panic!("kubectl printed nothing within {timeout:?}"),
    }
}

impl Watching {
    /// The next line kubectl prints; panics after `timeout` or at the end of its output.
    pub async fn next_line(&mut self, timeout: Duration) -> String {
        next(&mut self.stdout, timeout).await
    }

    /// The next line kubectl logs (standard error), as [`Watching::next_line`].
    pub async fn next_log_line(&mut self, timeout: Duration) -> String {
        next(&mut self.stderr, timeout).await
    }

    /// Waits for kubectl to exit by itself and returns its exit code.
    pub async fn finish(mut self, timeout: Duration) -> Option<i32> {
        let status = tokio::time::timeout(timeout, self.child.wait())
            .await
            .unwrap_or_else(|_| panic!("kubectl did not exit within {timeout:?}"))
            .expect("wait for kubectl");
        status.code()
    }

    /// Kills kubectl and waits for it.
    pub async fn stop(mut self) {
        self.child.kill().await.expect("kill kubectl");
    }
}

/// kubectl pointed at a fresh testkit API server.
#[derive(Debug)]
pub struct Kubectl {
    binary: PathBuf,
    server: ApiServer,
    kubeconfig: PathBuf,
    home: PathBuf,
}

impl Kubectl {
    /// Starts a server and writes its kubeconfig; `None` (after printing `skipped:
    /// kubectl not found`) when kubectl is not on `PATH`.
    pub async fn start() -> Option<Self> {
        Self::start_with(ApiServerConfig::default()).await
    }

    /// [`Kubectl::start`] with a server started with `config` (RBAC on, for one).
    pub async fn start_with(config: ApiServerConfig) -> Option<Self> {
        let Some(binary) = find() else {
            println!("skipped: kubectl not found on PATH");
            eprintln!("skipped: kubectl not found on PATH");
            return None;
        };
        let server = config.start().await.expect("start the testkit API server");
        let kubeconfig = server.kubeconfig().expect("write the kubeconfig");
        let home = kubeconfig
            .parent()
            .expect("the kubeconfig has a directory")
            .join("home");
        std::fs::create_dir_all(&home).expect("create kubectl's HOME");
        Some(Self {
            binary,
            server,
            kubeconfig,
            home,
        })
    }

    /// The server kubectl talks to.
    pub fn server(&self) -> &ApiServer {
        &self.server
    }

    /// A scratch directory for manifests and editor scripts (removed with the server).
    pub fn dir(&self) -> &Path {
        &self.home
    }

    /// Writes `contents` to `name` in [`Kubectl::dir`] and returns its path as a string.
    pub fn file(&self, name: &str, contents: &str) -> String {
        let path = self.home.join(name);
        std::fs::write(&path, contents).expect("write a scratch file");
        path.to_string_lossy().into_owned()
    }

    fn command(&self, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut command = Command::new(&self.binary);
        command
            .args(args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("KUBECONFIG", &self.kubeconfig)
            .env("KUBECACHEDIR", self.home.join("cache"))
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        command
    }

    /// Runs kubectl with `args`, extra environment and standard input.
    pub async fn run_with(&self, args: &[&str], env: &[(&str, &str)], stdin: &str) -> Output {
        let mut child = self.command(args, env).spawn().expect("spawn kubectl");
        let mut input = child.stdin.take().expect("kubectl's stdin");
        input
            .write_all(stdin.as_bytes())
            .await
            .expect("write kubectl's stdin");
        drop(input);
        let output = tokio::time::timeout(Duration::from_secs(120), child.wait_with_output())
            .await
            .unwrap_or_else(|_| panic!("kubectl {args:?} did not finish within 120 s"))
            .expect("run kubectl");
        Output {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Runs kubectl with `args`.
    pub async fn run(&self, args: &[&str]) -> Output {
        self.run_with(args, &[], "").await
    }

    /// Runs kubectl, asserts it succeeded and returns its standard output.
    pub async fn ok(&self, args: &[&str]) -> String {
        let output = self.run(args).await;
        assert!(
            output.success(),
            "kubectl {args:?} failed ({:?}): {}{}",
            output.code,
            output.stderr,
            output.stdout
        );
        output.stdout
    }

    /// Runs kubectl, asserts it failed and returns its standard error.
    pub async fn fails(&self, args: &[&str]) -> String {
        let output = self.run(args).await;
        assert!(
            !output.success(),
            "kubectl {args:?} succeeded: {}",
            output.stdout
        );
        output.stderr
    }

    /// Starts a long-running kubectl (`get -w`, `wait`) and reads its output as it comes.
    pub fn spawn(&self, args: &[&str]) -> Watching {
        let mut child = self.command(args, &[]).spawn().expect("spawn kubectl");
        let stdout = child.stdout.take().expect("kubectl's stdout");
        let stderr = child.stderr.take().expect("kubectl's stderr");
        Watching {
            child,
            stdout: BufReader::new(stdout).lines(),
            stderr: BufReader::new(stderr).lines(),
        }
    }
}

/// The rows of a `kubectl get` table: each line split on runs of spaces.
pub fn table(stdout: &str) -> Vec<Vec<String>> {
    stdout
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.split_whitespace().map(str::to_owned).collect())
        .collect()
}
