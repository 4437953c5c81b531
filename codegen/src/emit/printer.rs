//! A small deterministic printer for the token streams the emitters build.
//!
//! It replaces "parse the tokens into a `syn::File`, then prettyplease it": that second
//! parse and the general layout engine cost most of the generator's time. The printer
//! walks the tokens once and lays them out by a few fixed rules that fit what kubegen
//! emits (items, attributes, structs, enums, impls, functions with simple bodies):
//!
//! - a non-empty `{ ... }` group is a block: its contents go on their own lines, one
//!   level deeper; `;` and `,` (outside `<...>`) end a line inside a block, and so does an
//!   outer attribute;
//! - `where` goes on its own line with one predicate per line, as rustfmt puts it;
//! - `(...)`, `[...]` and `<...>` stay on the line unless it would pass [`MAX_WIDTH`]
//!   columns; then the outermost such list gets one element per line;
//! - `#[doc = "..."]` becomes a `///` comment (`#![doc]` a `//!` one), and a raw doc
//!   string of several lines (how the emitters write a description) one comment a line;
//! - spaces between tokens follow rustfmt's habits (`a: T`, `&self`, `Vec<T>`,
//!   `f(x)?;`, `x => y`).
//!
//! Only the tokens' order decides the output, so the same tokens always give the same
//! bytes. Re-reading the output gives the same tokens back (in debug builds
//! [`file`](super::generated::file) checks that on every file).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::iter::Peekable;
use std::ops::Range;

use proc_macro2::{Delimiter, Ident, Literal, Spacing, TokenStream, TokenTree};

/// The column past which a parenthesized or bracketed list is laid out one element a line
/// (below rustfmt's 100, leaving room for what closes the line: `)]`, `)?;`).
const MAX_WIDTH: usize = 90;

/// One indentation level.
const INDENT: &str = "    ";

/// Operators printed as one token (the longest match wins). `<` and `>` are never joined:
/// they are angle brackets in what kubegen emits.
const OPERATORS: [&str; 13] = [
    "..=", "::", "->", "=>", "==", "!=", "&&", "||", "..", "+=", "-=", "|=", "&=",
];

/// A token as the printer sees it: joined operators, lifetimes as one token.
enum Tok {
    /// An identifier: where its text is in the printer's `words`, and what the text means
    /// to the layout.
    Ident(Range<usize>, Word),
    Literal(Literal),
    Lifetime(Ident),
    Op(&'static str),
    Group(Delimiter, Vec<Tok>),
    /// A `macro_rules!` metavariable, `$name`.
    Var(Ident),
    /// A `macro_rules!` repetition, `$( ... )` with its separator and operator (`*`,
    /// `,*`, `?`).
    Repeat(Vec<Tok>, &'static str),
}

impl Tok {
    fn is_op(&self, op: &str) -> bool {
        matches!(self, Tok::Op(o) if *o == op)
    }

    fn is_word(&self, word: Word) -> bool {
        matches!(self, Tok::Ident(_, w) if *w == word)
    }
}

/// What an identifier's text means to the layout, read once when it is lexed: comparing a
/// `proc_macro2::Ident` with a string goes through the ident's wrapper every time, and the
/// layout rules ask about most identifiers several times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Word {
    /// A name (`self`, `Self`, `super` and `crate` included).
    Name,
    /// A `macro_rules!` fragment specifier (`ident`, `ty`, `tt`...), a name elsewhere.
    Fragment,
    /// `macro_rules`.
    MacroRules,
    /// A keyword whose construct takes a block (`fn`, `impl`, `match`...), so a `{` after
    /// it is not a struct literal.
    Opener,
    /// `impl`, an opener after whose generics a space follows.
    Impl,
    /// `else`, which continues the statement of the block before it.
    Else,
    /// `where`, which goes on its own line.
    Where,
    /// `pub`, a keyword with no space before `(`.
    Pub,
    /// `union`: its construct takes a block, but it is no keyword.
    Union,
    /// Any other keyword that is followed by a space before `(`, `[`, `::`, `!`.
    Keyword,
}

impl Word {
    fn of(text: &str) -> Word {
        match text {
            "impl" => Word::Impl,
            "else" => Word::Else,
            "where" => Word::Where,
            "pub" => Word::Pub,
            "macro_rules" => Word::MacroRules,
            "fn" | "struct" | "enum" | "trait" | "mod" | "match" | "if" | "while" | "for"
            | "loop" | "unsafe" => Word::Opener,
            "as" | "async" | "await" | "break" | "const" | "continue" | "dyn" | "extern" | "in"
            | "let" | "move" | "mut" | "ref" | "return" | "static" | "type" | "use" | "yield"
            | "box" => Word::Keyword,
            "union" => Word::Union,
            "block" | "expr" | "expr_2021" | "ident" | "item" | "lifetime" | "literal" | "meta"
            | "pat" | "pat_param" | "path" | "stmt" | "tt" | "ty" | "vis" => Word::Fragment,
            _ => Word::Name,
        }
    }

    /// Keywords are followed by a space before `(`, `[`, `::`, `!` and in `<`-less
    /// positions; `union` is a name there.
    fn is_keyword(self) -> bool {
        matches!(
            self,
            Word::Opener | Word::Impl | Word::Else | Word::Where | Word::Pub | Word::Keyword
        )
    }

    /// Whether a `{` after this word opens a block.
    fn takes_block(self) -> bool {
        matches!(self, Word::Opener | Word::Impl | Word::Else | Word::Union)
    }
}

/// Prints `tokens` as Rust source: one item after another, ending with a newline.
pub(crate) fn print(tokens: TokenStream) -> String {
    let mut words = String::new();
    let toks = lex(tokens, &mut words);
    let mut printer = Printer {
        words,
        ..Printer::default()
    };
    printer.seq(&toks, true);
    printer.newline();
    printer.out
}

/// Splits a stream into [`Tok`]s, moving its tokens (no copies); invisible groups are
/// flattened.
/// Identifiers' texts are appended to `words`, once each: the layout reads them, and the
/// printer copies them from there.
fn lex(tokens: TokenStream, words: &mut String) -> Vec<Tok> {
    let mut out = Vec::new();
    lex_into(tokens, &mut out, words);
    out
}

/// Appends the tokens of `tokens` to `out`, and identifiers' texts to `words`.
fn lex_into(tokens: TokenStream, out: &mut Vec<Tok>, words: &mut String) {
    let mut trees = tokens.into_iter().peekable();
    // Puncts joined to the one before (at most three, the longest operator).
    let mut run = ['\0'; 3];
    while let Some(tree) = trees.next() {
        match tree {
            TokenTree::Group(group) => {
                let delimiter = group.delimiter();
                // Dropping the group first leaves its stream unshared, so it is moved.
                let stream = group.stream();
                drop(group);
                if delimiter == Delimiter::None {
                    lex_into(stream, out, words);
                } else {
                    out.push(Tok::Group(delimiter, lex(stream, words)));
                }
            }
            TokenTree::Ident(ident) => {
                let start = words.len();
                let _ = write!(words, "{ident}");
                let word = Word::of(&words[start..]);
                out.push(Tok::Ident(start..words.len(), word));
            }
            TokenTree::Literal(literal) => out.push(Tok::Literal(literal)),
            TokenTree::Punct(punct) => {
                let mut len = 1;
                run[0] = punct.as_char();
                let mut joint = punct.spacing() == Spacing::Joint;
                while joint && len < run.len() {
                    let Some(TokenTree::Punct(next)) =
                        trees.next_if(|t| matches!(t, TokenTree::Punct(_)))
                    else {
                        break;
                    };
                    run[len] = next.as_char();
                    len += 1;
                    joint = next.spacing() == Spacing::Joint;
                }
                let mut at = 0;
                while at < len {
                    if run[at] == '$'
                        && at + 1 == len
                        && let Some(tok) = macro_var(&mut trees, words)
                    {
                        out.push(tok);
                        at += 1;
                        continue;
                    }
                    if run[at] == '\''
                        && let Some(TokenTree::Ident(name)) =
                            trees.next_if(|t| matches!(t, TokenTree::Ident(_)))
                    {
                        out.push(Tok::Lifetime(name));
                        at += 1;
                        continue;
                    }
                    let (op, used) = operator(&run[at..len]);
                    out.push(Tok::Op(op));
                    at += used;
                }
            }
        }
    }
}

/// What follows a `$`: a metavariable (`$name`) or a repetition (`$( ... ),*`), moved
/// out of `trees`; `None` (a lone `$`) otherwise.
fn macro_var(
    trees: &mut Peekable<impl Iterator<Item = TokenTree>>,
    words: &mut String,
) -> Option<Tok> {
    match trees.next_if(|t| match t {
        TokenTree::Ident(_) => true,
        TokenTree::Group(group) => group.delimiter() == Delimiter::Parenthesis,
        _ => false,
    })? {
        TokenTree::Ident(name) => Some(Tok::Var(name)),
        TokenTree::Group(group) => {
            let contents = lex(group.stream(), words);
            let is_op = |c: char| matches!(c, '*' | '+' | '?');
            let punct = |t: &TokenTree, want: &dyn Fn(char) -> bool| matches!(t, TokenTree::Punct(p) if want(p.as_char()));
            let suffix = match trees.next_if(|t| punct(t, &|c| is_op(c) || c == ',' || c == ';')) {
                Some(TokenTree::Punct(p)) if is_op(p.as_char()) => single(p.as_char()),
                Some(TokenTree::Punct(separator)) => {
                    let op = trees.next_if(|t| punct(t, &is_op));
                    match (separator.as_char(), op) {
                        (',', Some(TokenTree::Punct(op))) => match op.as_char() {
                            '*' => ",*",
                            '+' => ",+",
                            _ => ",?",
                        },
                        (';', Some(TokenTree::Punct(op))) => match op.as_char() {
                            '*' => ";*",
                            '+' => ";+",
                            _ => ";?",
                        },
                        // Not a repetition operator: the separator stays a token of its own.
                        (c, _) => return Some(Tok::Repeat(contents, single(c))),
                    }
                }
                _ => "",
            };
            Some(Tok::Repeat(contents, suffix))
        }
        _ => None,
    }
}

/// The operator at the start of `run`: one of [`OPERATORS`] if `run` starts with it, else
/// the first character; and how many characters it takes.
fn operator(run: &[char]) -> (&'static str, usize) {
    for op in OPERATORS {
        let n = op.len();
        if n <= run.len() && op.chars().zip(&run[..n]).all(|(a, b)| a == *b) {
            return (op, n);
        }
    }
    (single(run[0]), 1)
}

/// A one-character operator as a `'static` string.
fn single(c: char) -> &'static str {
    // All ASCII: a byte scan finds one faster than a `char` search.
    const PUNCTS: &str = "~!@#$%^&*-=+|;:,<.>/?'";
    match PUNCTS.bytes().position(|b| char::from(b) == c) {
        Some(at) => &PUNCTS[at..=at],
        None => "?",
    }
}

/// Operators after which no space follows (prefix operators and path separators).
fn is_prefix(op: &str) -> bool {
    matches!(
        op,
        "::" | "." | "#" | "!" | "&" | "*" | "-" | ".." | "<" | "'" | "@" | "$"
    )
}

/// Whether a space separates `prev` and `next` on one line.
fn space(prev: &Tok, next: &Tok) -> bool {
    use Tok::{Group, Ident, Op};
    // A metavariable is spaced as a name is.
    if let Tok::Var(name) = prev {
        // Only the word matters here, not where its text is.
        let word = Word::of(&name.to_string());
        return space(&Ident(0..0, word), next);
    }
    if let Op(op) = prev
        && is_prefix(op)
    {
        return false;
    }
    match next {
        Op("," | ";" | "." | "?" | ":" | ">") => false,
        // `name!` is a macro call; `if !x` a negation.
        Op("!") => !matches!(prev, Ident(_, w) if !w.is_keyword()),
        Op("::") => match prev {
            Ident(_, w) => w.is_keyword(),
            Op(op) => *op != ">",
            _ => false,
        },
        Op("<") => matches!(prev, Op(_)),
        Group(Delimiter::Parenthesis | Delimiter::Bracket, _) => match prev {
            Ident(_, w) => w.is_keyword() && *w != Word::Pub,
            // `&'static [T]`
            Tok::Lifetime(_) => true,
            Op(">") => false,
            Op(_) => true,
            _ => false,
        },
        _ => true,
    }
}

/// The printer's output and position.
#[derive(Default)]
struct Printer {
    out: String,
    /// The texts of the identifiers being printed (see [`lex`]).
    words: String,
    indent: usize,
    /// Nothing written on the current line yet (indentation included).
    line_start: bool,
    /// Measuring a list on one line: nested lists do not break.
    trial: bool,
    /// Inside a macro's arguments or a `macro_rules!` body, where a comma the printer
    /// added would change what the macro sees: lists stay on their line.
    in_macro: bool,
}

impl Printer {
    /// Ends the current line, if anything is on it.
    fn newline(&mut self) {
        if !self.line_start && !self.out.is_empty() {
            self.out.push('\n');
        }
        self.line_start = true;
    }

    /// Starts writing a token: indentation at a line's start, else a space if wanted.
    fn lead(&mut self, prev: Option<&Tok>, tok: &Tok) {
        if self.line_start {
            self.indent_line();
        } else if prev.is_some_and(|prev| space(prev, tok)) {
            self.out.push(' ');
        }
    }

    /// Indents the line just started.
    fn indent_line(&mut self) {
        for _ in 0..self.indent {
            self.out.push_str(INDENT);
        }
        self.line_start = false;
    }

    /// Columns used on the current line.
    fn column(&self) -> usize {
        self.out.len() - self.out.rfind('\n').map_or(0, |at| at + 1)
    }

    /// Prints a sequence of tokens; in a block (`block`) statements, fields and attributes
    /// end lines.
    fn seq(&mut self, toks: &[Tok], block: bool) {
        // Stand for "no space next" after a closure's opening `|`, and "a space next"
        // after the `>` that closes `impl<...>`.
        let glued = Tok::Op("<");
        let spaced = Tok::Op("=");
        // A comma ended a line of this block (fields, arms): the last one gets one too.
        let mut listed = false;
        let mut prev: Option<&Tok> = None;
        let mut in_where = false;
        // A keyword that takes a block (`fn`, `impl`, `match`, ...) since the statement
        // began: the next `{` is that block, not a struct literal.
        let mut opener = false;
        let mut closure_open = false;
        let mut i = 0;
        while i < toks.len() {
            let tok = &toks[i];
            // Attributes: `#[...]` and `#![...]`.
            if tok.is_op("#") {
                let inner = toks.get(i + 1).is_some_and(|t| t.is_op("!"));
                let at = i + 1 + usize::from(inner);
                if let Some(Tok::Group(Delimiter::Bracket, contents)) = toks.get(at) {
                    self.lead(prev, tok);
                    self.attribute(inner, contents);
                    i = at + 1;
                    if block {
                        self.newline();
                        prev = None;
                    } else {
                        prev = toks.get(at);
                    }
                    continue;
                }
            }
            // `macro_rules! name { ... }`: the rules, one a line, their lists unbroken.
            if let (Tok::Ident(_, Word::MacroRules), Some(Tok::Op("!")), Some(Tok::Ident(name, _))) =
                (tok, toks.get(i + 1), toks.get(i + 2))
                && let Some(Tok::Group(Delimiter::Brace, rules)) = toks.get(i + 3)
            {
                self.lead(prev, tok);
                let _ = write!(self.out, "macro_rules! {} ", &self.words[name.clone()]);
                let in_macro = std::mem::replace(&mut self.in_macro, true);
                self.brace(rules, Braces::Block);
                self.in_macro = in_macro;
                self.newline();
                prev = None;
                i += 4;
                continue;
            }
            match tok {
                Tok::Var(name) => {
                    self.lead(prev, tok);
                    let _ = write!(self.out, "${name}");
                    // `$name:fragment` in a rule's pattern.
                    if let (Some(Tok::Op(":")), Some(Tok::Ident(fragment, Word::Fragment))) =
                        (toks.get(i + 1), toks.get(i + 2))
                    {
                        self.out.push(':');
                        self.out.push_str(&self.words[fragment.clone()]);
                        prev = toks.get(i + 2);
                        i += 3;
                        continue;
                    }
                }
                Tok::Repeat(contents, suffix) => {
                    self.lead(prev, tok);
                    self.out.push_str("$(");
                    let in_macro = std::mem::replace(&mut self.in_macro, true);
                    self.seq(contents, false);
                    self.in_macro = in_macro;
                    self.out.push(')');
                    self.out.push_str(suffix);
                    // In a block, a repeated statement, field or arm ends its line.
                    let ends_line = matches!(
                        contents.last(),
                        Some(Tok::Op(";" | ",") | Tok::Group(Delimiter::Brace, _))
                    );
                    if block && ends_line {
                        self.newline();
                        prev = None;
                        i += 1;
                        continue;
                    }
                }
                Tok::Group(Delimiter::Parenthesis, contents)
                    if prev.is_some_and(|p| p.is_op("!")) =>
                {
                    // A macro call's arguments.
                    self.lead(prev, tok);
                    let in_macro = std::mem::replace(&mut self.in_macro, true);
                    self.list('(', ')', contents);
                    self.in_macro = in_macro;
                }
                Tok::Op(";") => {
                    self.out.push(';');
                    opener = false;
                    if block {
                        self.newline();
                        prev = None;
                        in_where = false;
                        i += 1;
                        continue;
                    }
                }
                Tok::Op(",") => {
                    self.out.push(',');
                    opener = false;
                    if block {
                        self.newline();
                        listed |= !in_where;
                        prev = None;
                        i += 1;
                        continue;
                    }
                }
                Tok::Op("<") => {
                    self.lead(prev, tok);
                    match closing_angle(&toks[i..]) {
                        Some(len) => {
                            self.list('<', '>', &toks[i + 1..i + len]);
                            let after_impl = prev.is_some_and(|p| p.is_word(Word::Impl));
                            // `impl<T> Trait`: a space before whatever follows.
                            prev = Some(if after_impl { &spaced } else { &toks[i + len] });
                            i += len + 1;
                            continue;
                        }
                        None => self.out.push('<'),
                    }
                }
                Tok::Op("|") if !closure_open && prev.is_none_or(opens_expression) => {
                    self.lead(prev, tok);
                    self.out.push('|');
                    closure_open = true;
                    // Nothing between the opening `|` and the first parameter.
                    prev = Some(&glued);
                    i += 1;
                    continue;
                }
                Tok::Op("|") if closure_open => {
                    self.out.push('|');
                    closure_open = false;
                }
                Tok::Ident(_, Word::Where) if block => {
                    self.newline();
                    self.lead(None, tok);
                    self.out.push_str("where");
                    self.newline();
                    self.indent += 1;
                    in_where = true;
                    prev = None;
                    i += 1;
                    continue;
                }
                Tok::Group(Delimiter::Brace, contents) => {
                    if in_where {
                        if !self.line_start && !self.out.ends_with(',') {
                            self.out.push(',');
                        }
                        self.newline();
                        self.indent -= 1;
                        in_where = false;
                        prev = None;
                    }
                    self.lead(prev, tok);
                    let layout = if prev.is_some_and(|p| p.is_op("::")) {
                        Braces::Path
                    } else if !opener && prev.is_some_and(names_type) {
                        Braces::Literal
                    } else {
                        Braces::Block
                    };
                    // An empty item body (`impl Foo {}`) ends its line as a longer one does.
                    let empty_body = contents.is_empty() && layout == Braces::Block;
                    let multiline = self.brace(contents, layout) || empty_body;
                    opener = false;
                    let next = toks.get(i + 1);
                    let continues = next.is_some_and(|n| {
                        n.is_word(Word::Else)
                            || matches!(n, Tok::Op(";" | "," | "." | "?") | Tok::Group(..))
                    });
                    if multiline && block && !continues {
                        self.newline();
                        prev = None;
                        i += 1;
                        continue;
                    }
                }
                Tok::Group(delimiter, contents) => {
                    self.lead(prev, tok);
                    match delimiter {
                        Delimiter::Bracket => self.list('[', ']', contents),
                        _ => self.list('(', ')', contents),
                    }
                }
                Tok::Ident(text, word) => {
                    self.lead(prev, tok);
                    opener |= word.takes_block();
                    self.out.push_str(&self.words[text.clone()]);
                }
                Tok::Literal(literal) => {
                    self.lead(prev, tok);
                    let _ = write!(self.out, "{literal}");
                }
                Tok::Lifetime(name) => {
                    self.lead(prev, tok);
                    let _ = write!(self.out, "'{name}");
                }
                Tok::Op(op) => {
                    self.lead(prev, tok);
                    self.out.push_str(op);
                    if *op == "=>" {
                        opener = false;
                    }
                }
            }
            prev = Some(tok);
            i += 1;
        }
        let ends_list = !matches!(
            toks.last(),
            Some(Tok::Op("," | ";") | Tok::Group(Delimiter::Brace, _))
        );
        // `..base` ends a struct literal and takes no comma after it.
        let last_element = toks
            .iter()
            .rposition(|t| t.is_op(","))
            .map_or(toks, |comma| &toks[comma + 1..]);
        let base = last_element.first().is_some_and(|t| t.is_op(".."));
        // A macro's arguments keep their commas as written.
        if block && listed && ends_list && !base && !self.in_macro {
            self.out.push(',');
        }
    }

    /// `#[...]` or `#![...]`; a doc attribute with a one-line string becomes a comment.
    fn attribute(&mut self, inner: bool, contents: &[Tok]) {
        if let [
            Tok::Ident(name, Word::Name),
            Tok::Op("="),
            Tok::Literal(literal),
        ] = contents
            && self.words[name.clone()] == *"doc"
        {
            let written = literal.to_string();
            if let Some(text) = doc_text(literal, &written) {
                for (i, line) in text.split('\n').enumerate() {
                    if i > 0 {
                        self.newline();
                        self.indent_line();
                    }
                    self.out.push_str(if inner { "//!" } else { "///" });
                    self.out.push_str(line);
                }
                // A comment runs to the end of the line.
                self.newline();
                return;
            }
        }
        self.out.push_str(if inner { "#![" } else { "#[" });
        self.seq(contents, false);
        self.out.push(']');
    }

    /// A `{ ... }` group: `{}` when empty, else laid out as `layout` says. Returns
    /// whether it took more than one line.
    fn brace(&mut self, contents: &[Tok], layout: Braces) -> bool {
        if contents.is_empty() {
            self.out.push_str("{}");
            return false;
        }
        match layout {
            Braces::Path => {
                self.out.push('{');
                self.seq(contents, false);
                self.out.push('}');
                return false;
            }
            Braces::Literal => {
                let start = self.out.len();
                let fields = match contents.split_last() {
                    Some((last, fields)) if last.is_op(",") && !self.in_macro => fields,
                    _ => contents,
                };
                self.out.push_str("{ ");
                self.seq(fields, false);
                self.out.push_str(" }");
                if !self.out[start..].contains('\n') && self.column() <= MAX_WIDTH {
                    return false;
                }
                self.out.truncate(start);
            }
            Braces::Block => {}
        }
        self.out.push('{');
        self.newline();
        self.indent += 1;
        self.seq(contents, true);
        self.newline();
        self.indent -= 1;
        self.lead(None, &Tok::Op("}"));
        self.out.push('}');
        true
    }

    /// A `(...)`, `[...]` or `<...>` list: on the line if the line stays within
    /// [`MAX_WIDTH`], else one element a line (each with a comma), its own elements laid out
    /// the same way.
    fn list(&mut self, open: char, close: char, contents: &[Tok]) {
        let start = self.out.len();
        let trial = std::mem::replace(&mut self.trial, true);
        self.out.push(open);
        self.seq(contents, false);
        self.out.push(close);
        self.trial = trial;
        if trial
            || self.in_macro
            || contents.is_empty()
            || self.out[start..].contains('\n')
            || self.column() <= MAX_WIDTH
        {
            return;
        }
        self.out.truncate(start);
        self.out.push(open);
        self.newline();
        self.indent += 1;
        for element in split_commas(contents) {
            self.seq(element, false);
            self.out.push(',');
            self.newline();
        }
        self.indent -= 1;
        self.lead(None, &Tok::Op(")"));
        self.out.push(close);
    }
}

/// The length of the `<...>` that `toks` starts with, up to its closing `>`; `None` when
/// it does not close.
fn closing_angle(toks: &[Tok]) -> Option<usize> {
    let mut depth = 0usize;
    for (i, tok) in toks.iter().enumerate() {
        match tok {
            Tok::Op("<") => depth += 1,
            Tok::Op(">") => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            Tok::Op(";") | Tok::Group(Delimiter::Brace, _) => return None,
            _ => {}
        }
    }
    None
}

/// How a `{ ... }` group is laid out.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Braces {
    /// Statements, items, fields or arms, one a line.
    Block,
    /// A struct literal: on one line when it fits (`Self { client }`), else as a block.
    Literal,
    /// A group of paths in `use a::{b, c}`: on the line.
    Path,
}

/// Whether `prev` can end the path of a struct literal (`Self`, `Foo`, `Foo<T>`).
fn names_type(prev: &Tok) -> bool {
    match prev {
        Tok::Ident(_, word) => !word.is_keyword(),
        Tok::Var(_) => true,
        Tok::Op(op) => *op == ">",
        _ => false,
    }
}

/// Whether a `|` after `prev` opens a closure's parameters (an expression starts there).
fn opens_expression(prev: &Tok) -> bool {
    match prev {
        Tok::Op(op) => !matches!(*op, ")" | "]" | ">"),
        Tok::Ident(_, word) => word.is_keyword(),
        _ => false,
    }
}

/// The elements of a comma-separated list (commas inside `<...>` do not split; a trailing
/// comma gives no empty element).
fn split_commas(toks: &[Tok]) -> Vec<&[Tok]> {
    let mut elements = Vec::new();
    let mut angle = 0usize;
    let mut start = 0;
    for (i, tok) in toks.iter().enumerate() {
        match tok {
            Tok::Op("<") => angle += 1,
            Tok::Op(">") => angle = angle.saturating_sub(1),
            Tok::Op(",") if angle == 0 => {
                elements.push(&toks[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < toks.len() {
        elements.push(&toks[start..]);
    }
    elements
}

/// The text of a doc string (`written` is `literal` as written, quotes and escapes
/// included) when line comments can carry it exactly: no carriage return, no line
/// starting with `/` or `!` (which would make another kind of comment), and one line
/// unless the string is raw (a raw doc string of several lines is how the emitters write
/// a text of several lines: it becomes one comment a line). A string without escapes is
/// its text between the quotes; only one with escapes is read with syn.
fn doc_text<'a>(literal: &Literal, written: &'a str) -> Option<Cow<'a, str>> {
    let mut raw = false;
    let text = match written.strip_prefix('"').and_then(|w| w.strip_suffix('"')) {
        Some(plain) if !plain.contains('\\') => Cow::Borrowed(plain),
        _ if written.starts_with("r#") || written.starts_with("r\"") => {
            // A raw string: its text is between `r#.."` and `"#..`, as written.
            raw = true;
            let hashes = written[1..].bytes().take_while(|b| *b == b'#').count();
            Cow::Borrowed(written.get(hashes + 2..written.len() - hashes - 1)?)
        }
        _ => {
            let syn::Lit::Str(text) = syn::Lit::new(literal.clone()) else {
                return None;
            };
            Cow::Owned(text.value())
        }
    };
    let plain = !text.contains('\r')
        && (raw || !text.contains('\n'))
        && text.split('\n').all(|line| !line.starts_with(['/', '!']));
    plain.then_some(text)
}

/// Checks that `printed` is a Rust file holding `tokens`, up to the trailing commas the
/// printer adds (before a closing delimiter or `>`, or ending a `where` clause).
#[cfg(debug_assertions)]
pub(crate) fn reads_back(tokens: TokenStream, printed: &str) -> Result<(), String> {
    let reread: TokenStream = printed
        .parse()
        .map_err(|e| format!("printed file does not lex: {e:?}"))?;
    syn::parse2::<syn::File>(reread.clone())
        .map_err(|e| format!("printed file does not parse: {e}"))?;
    let (mut expected, mut actual) = (Vec::new(), Vec::new());
    flatten(tokens, &mut expected);
    flatten(reread, &mut actual);
    let (expected, actual) = (
        without_trailing_commas(expected),
        without_trailing_commas(actual),
    );
    match expected.iter().zip(&actual).position(|(a, b)| a != b) {
        None if expected.len() == actual.len() => Ok(()),
        at => {
            let at = at.unwrap_or(expected.len().min(actual.len()));
            let around = |v: &[String]| v[at.saturating_sub(8)..(at + 8).min(v.len())].join(" ");
            Err(format!(
                "printed file reads back as different tokens: expected `{}`, read `{}`",
                around(&expected),
                around(&actual)
            ))
        }
    }
}

/// Tokens as comparable strings: delimiters as `(`/`)` marks, strings by value.
#[cfg(debug_assertions)]
fn flatten(tokens: TokenStream, out: &mut Vec<String>) {
    for tree in tokens {
        match tree {
            TokenTree::Group(group) => {
                // A doc string of several lines reads back as one comment a line.
                if let Some(lines) = doc_lines(&group) {
                    // `#` or `#!` before the group.
                    let inner =
                        out.len() >= 2 && out[out.len() - 1] == "!" && out[out.len() - 2] == "#";
                    let marks = out.split_off(out.len().saturating_sub(1 + usize::from(inner)));
                    for line in lines {
                        out.extend(marks.iter().cloned());
                        out.extend(["[", "doc", "="].map(str::to_owned));
                        out.push(format!("{line:?}"));
                        out.push("]".to_owned());
                    }
                    continue;
                }
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                if !open.is_empty() {
                    out.push(open.to_owned());
                }
                flatten(group.stream(), out);
                if !close.is_empty() {
                    out.push(close.to_owned());
                }
            }
            TokenTree::Ident(ident) => out.push(ident.to_string()),
            TokenTree::Punct(punct) => out.push(punct.as_char().to_string()),
            TokenTree::Literal(literal) => out.push(match syn::Lit::new(literal) {
                syn::Lit::Str(text) => format!("{:?}", text.value()),
                other => quote::ToTokens::to_token_stream(&other).to_string(),
            }),
        }
    }
}

/// The lines of a `[doc = "..."]` group whose string has more than one.
#[cfg(debug_assertions)]
fn doc_lines(group: &proc_macro2::Group) -> Option<Vec<String>> {
    if group.delimiter() != Delimiter::Bracket {
        return None;
    }
    let trees: Vec<TokenTree> = group.stream().into_iter().collect();
    let [
        TokenTree::Ident(name),
        TokenTree::Punct(eq),
        TokenTree::Literal(literal),
    ] = &trees[..]
    else {
        return None;
    };
    if *name != "doc" || eq.as_char() != '=' {
        return None;
    }
    let syn::Lit::Str(text) = syn::Lit::new(literal.clone()) else {
        return None;
    };
    let text = text.value();
    text.contains('\n')
        .then(|| text.split('\n').map(str::to_owned).collect())
}

#[cfg(debug_assertions)]
fn without_trailing_commas(tokens: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(tokens.len());
    for (i, token) in tokens.iter().enumerate() {
        let next = tokens.get(i + 1).map(String::as_str);
        if token == "," && matches!(next, Some(")" | "]" | "}" | "{" | ">")) {
            continue;
        }
        out.push(token.clone());
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use quote::quote;

    use super::{Word, print};

    #[test]
    fn lays_out_items() {
        let doc = " A foo.";
        let tokens = quote! {
            #![doc = " Module."]
            #[doc = #doc]
            #[derive(Debug, Clone)]
            pub struct Foo {
                #[serde(default)]
                pub a: Option<::std::collections::BTreeMap<String, i64>>,
                pub b: &'static str,
            }
            const _: () = {
                impl<'de> ::serde::Deserialize<'de> for Foo {
                    fn deserialize<D>(d: D) -> ::core::result::Result<Self, D::Error>
                    where
                        D: ::serde::Deserializer<'de>
                    {
                        if let ::core::option::Option::Some(v) = &self.a {
                            map.next_key::<Field>()?;
                        } else {
                            return *self;
                        }
                        match x {
                            Field::A => Self { a: 1, b: |x: &Self| &x.b },
                            _ => {}
                        }
                    }
                }
            };
            pub use self::foo::*;
        };
        let expected = r#"//! Module.
/// A foo.
#[derive(Debug, Clone)]
pub struct Foo {
    #[serde(default)]
    pub a: Option<::std::collections::BTreeMap<String, i64>>,
    pub b: &'static str,
}
const _: () = {
    impl<'de> ::serde::Deserialize<'de> for Foo {
        fn deserialize<D>(d: D) -> ::core::result::Result<Self, D::Error>
        where
            D: ::serde::Deserializer<'de>,
        {
            if let ::core::option::Option::Some(v) = &self.a {
                map.next_key::<Field>()?;
            } else {
                return *self;
            }
            match x {
                Field::A => Self { a: 1, b: |x: &Self| &x.b },
                _ => {}
            }
        }
    }
};
pub use self::foo::*;
"#;
        assert_eq!(print(tokens.clone()), expected);
        super::reads_back(tokens, expected).unwrap();
    }

    #[test]
    fn a_struct_base_takes_no_trailing_comma() {
        let tokens = quote! {
            fn new() -> Self {
                Self {
                    kind: Some("Foo".to_owned()),
                    metadata: Some(Meta { name: Some(name.into()), namespace: Some(namespace.into()), ..Default::default() }),
                    ..Default::default()
                }
            }
        };
        let printed = print(tokens.clone());
        assert!(
            printed.contains("        ..Default::default()\n    }"),
            "{printed}"
        );
        super::reads_back(tokens, &printed).expect("the printed file reads back");
    }

    #[test]
    fn words_are_classified_as_the_layout_needs() {
        assert_eq!(Word::of("fn"), Word::Opener);
        assert!(Word::of("fn").is_keyword() && Word::of("fn").takes_block());
        // `union` opens a block but is spaced as a name.
        assert!(Word::of("union").takes_block() && !Word::of("union").is_keyword());
        assert!(Word::of("pub").is_keyword() && !Word::of("pub").takes_block());
        assert!(Word::of("else").takes_block());
        assert_eq!(Word::of("ty"), Word::Fragment);
        // Raw identifiers and `self`-like words are names.
        for name in ["r#type", "self", "Self", "crate", "super", "Foo", "types"] {
            assert_eq!(Word::of(name), Word::Name, "{name}");
        }
    }

    #[test]
    fn breaks_long_lists() {
        let tokens = quote! {
            pub struct Foo {
                #[serde(default, deserialize_with = "deserialize_some", skip_serializing_if = "Option::is_none")]
                pub a: Option<i64>,
            }
        };
        let expected = r#"pub struct Foo {
    #[serde(
        default,
        deserialize_with = "deserialize_some",
        skip_serializing_if = "Option::is_none",
    )]
    pub a: Option<i64>,
}
"#;
        assert_eq!(print(tokens.clone()), expected);
        super::reads_back(tokens, expected).unwrap();
    }

    #[test]
    fn lays_out_macro_rules_and_keeps_macro_arguments_as_written() {
        let tokens = quote! {
            macro_rules! fields {
                ($name:ident { $($field:ident $wire:literal),* $(,)? } $(.. $extra:ident)?) => {
                    impl $name {
                        fn names() -> &'static [&'static str] {
                            &[$($wire),*]
                        }
                        fn show(&self) {
                            $(println!("{}", &self.$field);)*
                            $(for (key, value) in &self.$extra {
                                println!("{key}: {value}");
                            })?
                        }
                    }
                };
                (@one $field:ident) => { $field };
            }
            fields!(AVeryLongStructNameThatWouldOtherwiseBreakTheList { first "first", second "second" });
        };
        // Rules one a line, `$name:fragment` and `$( ... ),*` written as in source; a
        // macro's arguments keep their commas as written (none is added or dropped).
        let expected = r#"macro_rules! fields {
    ($name:ident { $($field:ident $wire:literal),* $(,)? } $(..$extra:ident)?) => {
        impl $name {
            fn names() -> &'static [&'static str] {
                &[$($wire),*]
            }
            fn show(&self) {
                $(println!("{}", &self.$field);)*
                $(for (key, value) in &self.$extra {
                    println!("{key}: {value}");
                })?
            }
        }
    };
    (@one $field:ident) => {
        $field
    };
}
fields!(AVeryLongStructNameThatWouldOtherwiseBreakTheList {
    first "first",
    second "second"
});
"#;
        assert_eq!(print(tokens.clone()), expected);
        super::reads_back(tokens, expected).unwrap();
    }

    #[test]
    fn breaks_long_generics_outermost_first() {
        let tokens = quote! {
            pub type ConfigMapClient = crate::gentype::ResourceClient<crate::__private::k8s_openapi::api::core::v1::ConfigMap, crate::gentype::subresources::None>;
        };
        let expected = "pub type ConfigMapClient = crate::gentype::ResourceClient<
    crate::__private::k8s_openapi::api::core::v1::ConfigMap,
    crate::gentype::subresources::None,
>;
";
        assert_eq!(print(tokens.clone()), expected);
        super::reads_back(tokens, expected).unwrap();
    }

    #[test]
    fn reads_back_detects_changes() {
        let tokens = quote! { pub struct Foo(i32); };
        assert!(super::reads_back(tokens.clone(), "pub struct Foo(i64);").is_err());
        assert!(super::reads_back(tokens, "pub struct Foo(i32").is_err());
    }

    #[test]
    fn docs_with_escapes_become_comments() {
        let tokens = quote! {
            #[doc = " a \"quoted\" C:\\path, tab\t and é"]
            pub struct Foo;
        };
        let expected = "/// a \"quoted\" C:\\path, tab\t and é\npub struct Foo;\n";
        assert_eq!(print(tokens.clone()), expected);
        super::reads_back(tokens, expected).unwrap();
    }

    #[test]
    fn raw_docs_become_comments_as_written() {
        let tokens = quote! {
            #[doc = r##" a "quoted"# C:\path"##]
            pub struct Foo;
        };
        let expected = "/// a \"quoted\"# C:\\path\npub struct Foo;\n";
        assert_eq!(print(tokens.clone()), expected);
        super::reads_back(tokens, expected).unwrap();
    }

    #[test]
    fn raw_docs_of_several_lines_become_one_comment_a_line() {
        let raw = |text: &str| text.parse::<proc_macro2::Literal>().unwrap();
        let doc = raw("r\" First.\n\n Second.\"");
        let tokens = quote! {
            mod m {
                #[doc = #doc]
                pub struct Foo;
            }
        };
        let expected =
            "mod m {\n    /// First.\n    ///\n    /// Second.\n    pub struct Foo;\n}\n";
        assert_eq!(print(tokens.clone()), expected);
        super::reads_back(tokens, expected).unwrap();
        // A line that would start another kind of comment keeps the attribute.
        let doc = raw("r\" a\n/ b\"");
        let tokens = quote! {
            #[doc = #doc]
            pub struct Foo;
        };
        assert!(print(tokens).starts_with("#[doc = r\" a\n/ b\"]"));
    }

    #[test]
    fn keeps_odd_docs_as_attributes() {
        let tokens = quote! {
            #[doc = "/ slash"]
            #[doc = "two\nlines"]
            pub struct Foo;
        };
        let expected = "#[doc = \"/ slash\"]\n#[doc = \"two\\nlines\"]\npub struct Foo;\n";
        assert_eq!(print(tokens.clone()), expected);
        super::reads_back(tokens, expected).unwrap();
    }
}
