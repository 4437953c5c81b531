//! The label selector string syntax, as client-go's `labels.Parse` reads it.

use std::collections::BTreeSet;

use super::{Error, Requirement, Selector};

/// Parses `input`; every requirement's key and values are validated.
pub(super) fn selector(input: &str) -> Result<Selector, Error> {
    Parser { input, pos: 0 }.selector()
}

struct Parser<'a> {
    input: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, expected: &'static str) -> Error {
        Error::Syntax {
            input: self.input.to_owned(),
            at: self.pos,
            expected,
        }
    }

    fn rest(&self) -> &str {
        &self.input[self.pos..]
    }

    fn skip_spaces(&mut self) {
        let trimmed = self.rest().trim_start();
        self.pos = self.input.len() - trimmed.len();
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_spaces();
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    /// A label key or value: letters, digits and `-_./`.
    fn word(&mut self) -> &str {
        self.skip_spaces();
        let len = self
            .rest()
            .find(|c: char| !(c.is_ascii_alphanumeric() || "-_./".contains(c)))
            .unwrap_or(self.rest().len());
        let start = self.pos;
        self.pos += len;
        &self.input[start..self.pos]
    }

    fn key(&mut self) -> Result<String, Error> {
        let word = self.word();
        if word.is_empty() {
            Err(self.error("a label key"))
        } else {
            Ok(word.to_owned())
        }
    }

    fn selector(mut self) -> Result<Selector, Error> {
        let mut selector = Selector::everything();
        self.skip_spaces();
        if self.rest().is_empty() {
            return Ok(selector);
        }
        loop {
            selector.requirements.push(self.requirement()?.checked()?);
            self.skip_spaces();
            if self.rest().is_empty() {
                return Ok(selector);
            }
            if !self.eat(",") {
                return Err(self.error("',' or the end of the selector"));
            }
        }
    }

    fn requirement(&mut self) -> Result<Requirement, Error> {
        if self.eat("!") {
            return Ok(Requirement::DoesNotExist(self.key()?));
        }
        let key = self.key()?;
        if self.eat("!=") {
            return Ok(Requirement::NotEquals(key, self.word().to_owned()));
        }
        if self.eat("==") || self.eat("=") {
            return Ok(Requirement::Equals(key, self.word().to_owned()));
        }
        self.skip_spaces();
        let save = self.pos;
        match self.word() {
            "in" => Ok(Requirement::In(key, self.set()?)),
            "notin" => Ok(Requirement::NotIn(key, self.set()?)),
            "" => {
                self.pos = save;
                Ok(Requirement::Exists(key))
            }
            _ => {
                self.pos = save;
                Err(self.error("'=', '==', '!=', 'in', 'notin', ',' or the end"))
            }
        }
    }

    fn set(&mut self) -> Result<BTreeSet<String>, Error> {
        if !self.eat("(") {
            return Err(self.error("'(' opening a value set"));
        }
        let mut values = BTreeSet::new();
        loop {
            let value = self.word().to_owned();
            if value.is_empty() {
                return Err(self.error("a value"));
            }
            values.insert(value);
            if self.eat(")") {
                return Ok(values);
            }
            if !self.eat(",") {
                return Err(self.error("',' or ')' in a value set"));
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::tests::labels;
    use super::*;

    #[test]
    fn parses_every_operator() {
        let s: Selector = "a=b, c!=d,e in (x, y),!f,g,h==i,j notin (z),example.com/k"
            .parse()
            .unwrap();
        assert_eq!(
            s.requirements(),
            [
                Requirement::Equals("a".into(), "b".into()),
                Requirement::NotEquals("c".into(), "d".into()),
                Requirement::In("e".into(), ["x".to_string(), "y".to_string()].into()),
                Requirement::DoesNotExist("f".into()),
                Requirement::Exists("g".into()),
                Requirement::Equals("h".into(), "i".into()),
                Requirement::NotIn("j".into(), ["z".to_string()].into()),
                Requirement::Exists("example.com/k".into()),
            ]
        );
        assert_eq!(s.to_string().parse::<Selector>().unwrap(), s);
        assert!(s.matches(&labels(&[
            ("a", "b"),
            ("e", "y"),
            ("g", ""),
            ("h", "i"),
            ("example.com/k", "v")
        ])));
    }

    #[test]
    fn syntax_errors_say_where() {
        for (bad, at) in [
            ("a=b,", 4),
            ("a in x", 5),
            ("a in (x", 7),
            ("a b", 2),
            ("=b", 0),
            ("a in ()", 6),
            ("app=(x", 4),
        ] {
            match bad.parse::<Selector>() {
                Err(Error::Syntax { at: got, .. }) => assert_eq!(got, at, "{bad}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
    }

    #[test]
    fn keys_and_values_are_checked_as_the_api_server_does() {
        for bad in [
            "-app=x",
            "Example.com/app=x",
            "a/b/c=x",
            &format!("{}=x", "k".repeat(64)),
        ] {
            assert!(
                matches!(bad.parse::<Selector>(), Err(Error::InvalidKey { .. })),
                "{bad}"
            );
        }
        for bad in [
            "app=-x",
            "app in (ok,x/y)",
            &format!("app!={}", "v".repeat(64)),
        ] {
            assert!(
                matches!(bad.parse::<Selector>(), Err(Error::InvalidValue { .. })),
                "{bad}"
            );
        }
        assert!("app.kubernetes.io/name=web_1.2".parse::<Selector>().is_ok());
    }
}
