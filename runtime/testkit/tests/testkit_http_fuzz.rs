//! Generative test over HTTP: thousands of seeded random requests against the testkit
//! API server. Every answer must be a success that fits the request or a `Status` with
//! a plausible code; no request may panic the server or drop its connection; after
//! every batch the stored state must equal what the successful writes' answers say.
//!
//! `KUBEGEN_HTTP_FUZZ_SEED` (default 1) and `KUBEGEN_HTTP_FUZZ_CASES` (default 3000)
//! pick the run; a failure prints the seed, the request number and the request, and
//! `KUBEGEN_HTTP_FUZZ_TRACE=1` prints every request with its answer's code.

mod http_fuzz;
mod testkit_support;

use http_fuzz::generate::Generator;
use http_fuzz::kinds::widget_crd;
use http_fuzz::model::Model;
use http_fuzz::request::FuzzRequest;
use http_fuzz::{oracle, panics, wire};
use kubegen_testkit::ApiServer;

const BATCH: u64 = 100;

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(value) => value
            .parse()
            .unwrap_or_else(|_| panic!("{name}={value:?} is not a number")),
        Err(_) => default,
    }
}

async fn register_crd(server: &ApiServer) {
    let path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    testkit_support::create_json(server, path, &widget_crd()).await;
}

fn fail(seed: u64, number: u64, request: Option<&FuzzRequest>, what: &str) -> ! {
    let shown = request
        .map(|r| format!("\nrequest:\n{r}"))
        .unwrap_or_default();
    panic!("http fuzz failed: KUBEGEN_HTTP_FUZZ_SEED={seed}, request #{number}: {what}{shown}");
}

#[tokio::test]
async fn random_requests_get_status_answers_and_keep_state_consistent() {
    panics::install();
    let seed = env_u64("KUBEGEN_HTTP_FUZZ_SEED", 1);
    let cases = env_u64("KUBEGEN_HTTP_FUZZ_CASES", 3000);
    let trace = std::env::var_os("KUBEGEN_HTTP_FUZZ_TRACE").is_some();
    eprintln!("http fuzz: KUBEGEN_HTTP_FUZZ_SEED={seed} KUBEGEN_HTTP_FUZZ_CASES={cases}");
    let server = ApiServer::start().await.expect("start");
    testkit_support::create_namespace(&server, "fuzz").await;
    register_crd(&server).await;
    let mut model = Model::default();
    if let Err(e) = model.check(server.address()).await {
        fail(seed, 0, None, &e);
    }
    let mut generator = Generator::new(seed);
    let mut codes = std::collections::BTreeMap::<u16, u64>::new();
    let mut streamed = 0u64;
    for number in 1..=cases {
        let request = generator.request(&model);
        let outcome = wire::send(server.address(), &request).await;
        let recorded = panics::take();
        if !recorded.is_empty() {
            fail(
                seed,
                number,
                Some(&request),
                &format!("the server panicked: {recorded:?}"),
            );
        }
        let response = match outcome {
            Ok(response) => response,
            Err(e) => fail(seed, number, Some(&request), &e),
        };
        *codes.entry(response.status).or_default() += 1;
        streamed += u64::from(response.streaming);
        if trace {
            let message: String = response.text().chars().take(300).collect();
            let message = if response.status >= 300 {
                message
            } else {
                String::new()
            };
            eprintln!(
                "#{number} {} {} -> {} {message}",
                request.method, request.target, response.status
            );
        }
        let checked =
            oracle::check(&request, &response).and_then(|()| model.observe(&request, &response));
        if let Err(e) = checked {
            let what = format!("{e}\nresponse {}: {}", response.status, response.text());
            fail(seed, number, Some(&request), &what);
        }
        let batch_done = number % BATCH == 0 || number == cases;
        if batch_done && let Err(e) = model.check(server.address()).await {
            let what = format!("consistency check after the batch: {e}");
            fail(seed, number, Some(&request), &what);
        }
    }
    eprintln!(
        "http fuzz: {cases} requests, answers by code {codes:?}, {streamed} watches streaming, {} writes tracked, {} objects checked, {} objects at the end",
        model.writes_tracked,
        model.objects_checked,
        model.len()
    );
    server.shutdown().await;
}
