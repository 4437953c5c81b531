//! Catches panics anywhere in the process (the server's handlers run on tasks whose
//! panics axum turns into a closed connection): a hook records them, the test checks.

use std::sync::{Mutex, Once, PoisonError};

static PANICS: Mutex<Vec<String>> = Mutex::new(Vec::new());
static INSTALL: Once = Once::new();

/// Installs the recording hook (once), keeping the default hook's output.
pub fn install() {
    INSTALL.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let thread = std::thread::current().name().unwrap_or("?").to_owned();
            PANICS
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(format!("thread {thread}: {info}"));
            default(info);
        }));
    });
}

/// The panics recorded since the last call.
pub fn take() -> Vec<String> {
    std::mem::take(&mut *PANICS.lock().unwrap_or_else(PoisonError::into_inner))
}
