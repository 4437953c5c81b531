//! Who a request is: the bearer tokens minted for ServiceAccounts and the users they
//! authenticate as. A request without a token is the administrator, as before tokens
//! existed; one with a token the server never minted is refused (401).

use std::collections::HashMap;

/// An authenticated user as kube-apiserver's authenticators describe one: a name and
/// the groups it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct User {
    /// `system:serviceaccount:<namespace>:<name>` for a ServiceAccount.
    pub(crate) name: String,
    /// `system:serviceaccounts`, `system:serviceaccounts:<namespace>` and
    /// `system:authenticated` for a ServiceAccount.
    pub(crate) groups: Vec<String>,
}

/// The group every authenticated user is in.
pub(crate) const AUTHENTICATED: &str = "system:authenticated";

impl User {
    /// The user a ServiceAccount's token authenticates as.
    pub(crate) fn service_account(namespace: &str, name: &str) -> Self {
        Self {
            name: format!("system:serviceaccount:{namespace}:{name}"),
            groups: vec![
                "system:serviceaccounts".to_owned(),
                format!("system:serviceaccounts:{namespace}"),
                AUTHENTICATED.to_owned(),
            ],
        }
    }

    /// The ServiceAccount `(namespace, name)` this user is, if it is one.
    pub(crate) fn service_account_name(&self) -> Option<(&str, &str)> {
        let rest = self.name.strip_prefix("system:serviceaccount:")?;
        rest.split_once(':')
    }
}

/// The tokens the server minted, by token.
#[derive(Debug, Default)]
pub(crate) struct Tokens {
    users: HashMap<String, User>,
}

impl Tokens {
    /// A new token for the ServiceAccount `namespace/name` (every call mints another;
    /// all stay valid while the server runs).
    pub(crate) fn mint(&mut self, namespace: &str, name: &str) -> String {
        let bits: u128 = rand::random();
        let token = format!("kubegen-testkit.{bits:032x}");
        self.users
            .insert(token.clone(), User::service_account(namespace, name));
        token
    }

    /// The user a token authenticates as, if the server minted it.
    pub(crate) fn user(&self, token: &str) -> Option<&User> {
        self.users.get(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_service_account_token_is_the_service_account_user() {
        let mut tokens = Tokens::default();
        let token = tokens.mint("team-a", "ctl");
        let other = tokens.mint("team-a", "ctl");
        assert_ne!(token, other, "every mint is a new token");
        let user = tokens.user(&token).expect("minted");
        assert_eq!(user.name, "system:serviceaccount:team-a:ctl");
        assert_eq!(
            user.groups,
            [
                "system:serviceaccounts",
                "system:serviceaccounts:team-a",
                "system:authenticated"
            ]
        );
        assert_eq!(user.service_account_name(), Some(("team-a", "ctl")));
        assert_eq!(tokens.user("kubegen-testkit.nope"), None);
    }
}
