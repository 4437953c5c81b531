//! An operator binary's process around its `run`: the Tokio runtime it runs on, and the
//! exit status and message its result becomes.

use std::process::ExitCode;

use kubegen_runtime::controller::ErrorChain;

/// Runs `run` on a new multi-threaded Tokio runtime and turns how it ended into the
/// process's exit status: success, or failure with `error: ` and the error with its
/// sources (`: `-separated, [`ErrorChain`]) on standard error. An operator's `main` is
/// then its flags, its logging and this.
///
/// ```no_run
/// use std::process::ExitCode;
///
/// async fn run() -> Result<(), Box<dyn std::error::Error>> {
///     // Cluster::connect, Manager::new(..).start(), until_shutdown, stop
///     Ok(())
/// }
///
/// fn main() -> ExitCode {
///     kubegen::operator::run_main(run())
/// }
/// ```
pub fn run_main<E>(run: impl Future<Output = Result<(), E>>) -> ExitCode
where
    E: Into<Box<dyn std::error::Error>>,
{
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: failed to start the tokio runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let error: Box<dyn std::error::Error> = error.into();
            eprintln!("error: {}", ErrorChain(error.as_ref()));
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_result_is_the_exit_status_and_run_has_a_runtime() {
        let ok = run_main(async {
            // Spawning needs the runtime run_main made.
            tokio::spawn(async {}).await.map_err(|e| e.to_string())
        });
        assert_eq!(ok, ExitCode::SUCCESS);
        let failed = run_main(async { Err::<(), _>(std::io::Error::other("no cluster")) });
        assert_eq!(failed, ExitCode::FAILURE);
    }
}
